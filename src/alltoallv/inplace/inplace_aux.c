/*
 * In-place alltoallv: the auxiliary memory (paper section 3.5), as slots
 * that any peer may use.
 *
 * The paper cuts the additional memory a into b static buffers and lets the
 * items of peer j use only buffer j mod b, first come, first served.  Then a
 * buffer waits for one peer while others that share it cannot send, and
 * when a/b exceeds what a peer still has to send the rest of the buffer lies
 * idle (the paper's own observation: 100% aux memory is hardly faster than
 * 10%).  Here the a bytes are cut into slots that are taken from a free
 * stack by whichever peer is granted next (the paper's "more advanced
 * auxiliary buffer strategies"): any peer can use any slot, a slot holds one
 * peer's next items in arrival order (no search, no fragmentation), and it
 * is free again once they are all in place.  A grant into a slot is at most
 * the slot's size, so the slot count sets the size of a transfer: by
 * default a / PCOLL__IP_SLOT_BYTES slots, at least 2 (one transfer in
 * flight while another slot drains) and at most PCOLL__IP_MAX_SLOTS;
 * pcoll_aux_buffers = b sets min(b, p) slots of a/b bytes instead.  The
 * slots then shrink to what a run can use: none larger than the largest
 * receive block, no more than the peers that send anything.
 *
 * Progress needs at least one item per slot (Siegel and Siegel's condition,
 * cited in section 3.1): a smaller a/b is PCOLL_ERR_ARG.
 *
 * Memory: at most a bytes (nbuf * cap * size).
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

/* Default slot count for a bytes of items of size bytes: as many slots of
 * PCOLL__IP_SLOT_BYTES as fit, 2..PCOLL__IP_MAX_SLOTS, each >= one item. */
static long long default_slots(long long a, int size)
{
    long long k = a / PCOLL__IP_SLOT_BYTES;
    k = k < 2 ? 2 : k > PCOLL__IP_MAX_SLOTS ? PCOLL__IP_MAX_SLOTS : k;
    while (k > 1 && a / k < size)
        k--;
    return k;
}

int pcoll__ip_aux_config(int p, int size, const pcoll__opts_t *opts, const char *fn, int *nbuf,
                         long long *cap)
{
    long long a = opts->aux_bytes ? opts->aux_bytes : PCOLL__IP_AUX_BYTES;
    long long b = opts->aux_buffers ? opts->aux_buffers : default_slots(a, size > 0 ? size : 1);
    if (a / b < size)
        return pcoll__error(PCOLL_ERR_ARG,
                            "%s: pcoll_aux_bytes = %lld gives less than one item (%d bytes) to "
                            "each of the pcoll_aux_buffers = %lld auxiliary buffers",
                            fn, a, size, b);
    *nbuf = b < p ? (int)b : p;
    *cap = size > 0 ? a / b / size : 0;
    return PCOLL_SUCCESS;
}

void pcoll__ip_aux_fit(int p, const int *rcounts, int *nbuf, long long *cap)
{
    long long most = 0;
    int senders = 0;
    for (int j = 0; j < p; j++) {
        most = rcounts[j] > most ? rcounts[j] : most;
        senders += rcounts[j] > 0;
    }
    *cap = *cap < most ? *cap : most;
    *nbuf = *nbuf < senders ? *nbuf : senders;
    if (*cap == 0 || *nbuf == 0)
        *cap = *nbuf = 0;
}

/* Item `item` of slot k. */
static char *slot_at(const pcoll__ip_t *ip, int k, long long item)
{
    return ip->auxmem + ((long long)k * ip->cap + item) * ip->size;
}

int pcoll__ip_aux_take(pcoll__ip_t *ip, int q)
{
    int k;
    if (ip->nfree == 0)
        return -1;
    k = ip->freeslot[--ip->nfree];
    ip->aux[k] = (pcoll__ip_aux_t){q, 0, 0};
    ip->slot[q] = k;
    return k;
}

char *pcoll__ip_aux_slot(const pcoll__ip_t *ip, int q)
{
    const pcoll__ip_aux_t *x = &ip->aux[ip->slot[q]];
    return slot_at(ip, ip->slot[q], x->tail);
}

/* An empty slot goes back on the free stack. */
static void release_if_empty(pcoll__ip_t *ip, int q)
{
    int k = ip->slot[q];
    if (ip->aux[k].head < ip->aux[k].tail)
        return;
    ip->aux[k] = (pcoll__ip_aux_t){-1, 0, 0};
    ip->freeslot[ip->nfree++] = k;
    ip->slot[q] = -1;
}

void pcoll__ip_aux_append(pcoll__ip_t *ip, int q, long long n)
{
    ip->aux[ip->slot[q]].tail += n;
    ip->auxn[q] += n;
    release_if_empty(ip, q);
}

int pcoll__ip_aux_drain(pcoll__ip_t *ip, int q, long long n)
{
    pcoll__ip_aux_t *x = &ip->aux[ip->slot[q]];
    int rc = pcoll__ip_unstage(ip, slot_at(ip, ip->slot[q], x->head), ip->rlo[q], n);
    x->head += n;
    ip->auxn[q] -= n;
    ip->rlo[q] += n;
    ip->items_left -= n;
    release_if_empty(ip, q);
    return rc;
}
