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
 * is free again once they are all in place.  A peer whose items wait in a
 * slot may take another free one for its next items (its slots form a
 * chain, oldest first, drained in that order), so a free slot does not idle
 * while every peer still sending has items waiting.  A grant into a slot is at most
 * the slot's size, so the slot count sets the size of a transfer: by
 * default a / PCOLL__IP_SLOT_BYTES slots, at least 2 (one transfer in
 * flight while another slot drains) and at most PCOLL__IP_MAX_SLOTS; but
 * one slot when a is under PCOLL__IP_ONE_SLOT_BYTES: with the receive sets'
 * room gathered by parking (inplace_update.c) most transfers go to direct
 * room, and one slot of a 10 KiB a is faster in simulation (1 MiB per
 * rank: P = 64 310 us against 431 with two, P = 16 234 against 256; P = 256
 * had two faster, 1129 against 1272 us, measured before parking was
 * bounded; docs/notes.md);
 * pcoll_aux_buffers = b sets min(b, p) slots of a/b bytes instead.  The
 * slots then fit what a run can use: no more than the peers that send
 * anything (fewer slots are larger, the same memory in all), none larger
 * than the largest receive block.
 *
 * Progress needs at least one item per slot (Siegel and Siegel's condition,
 * cited in section 3.1): a smaller a/b is PCOLL_ERR_ARG.
 *
 * Memory: at most a bytes (nbuf * cap * size).
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

/* Default slot count for a bytes of items of size bytes: as many slots of
 * PCOLL__IP_SLOT_BYTES as fit, 2..PCOLL__IP_MAX_SLOTS, each >= one item;
 * one slot for a under PCOLL__IP_ONE_SLOT_BYTES. */
static long long default_slots(long long a, int size)
{
    long long k = a / PCOLL__IP_SLOT_BYTES;
    k = k < 2 ? 2 : k > PCOLL__IP_MAX_SLOTS ? PCOLL__IP_MAX_SLOTS : k;
    if (a < PCOLL__IP_ONE_SLOT_BYTES)
        k = 1;
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
    long long most = 0, items = (long long)*nbuf * *cap; /* the aux memory, in items */
    int senders = 0;
    for (int j = 0; j < p; j++) {
        most = rcounts[j] > most ? rcounts[j] : most;
        senders += rcounts[j] > 0;
    }
    *nbuf = *nbuf < senders ? *nbuf : senders;
    if (*nbuf > 0) /* fewer slots: larger ones, the same memory */
        *cap = items / *nbuf;
    *cap = *cap < most ? *cap : most;
    if (*cap == 0 || *nbuf == 0)
        *cap = *nbuf = 0;
}

/* Item `item` of slot k. */
static char *slot_at(const pcoll__ip_t *ip, int k, long long item)
{
    return ip->auxmem + ((long long)k * ip->cap + item) * ip->size;
}

/* Peer q's newest slot (q holds one). */
static int newest(const pcoll__ip_t *ip, int q)
{
    int k = ip->slot[q];
    while (ip->aux[k].next >= 0)
        k = ip->aux[k].next;
    return k;
}

int pcoll__ip_aux_take(pcoll__ip_t *ip, int q)
{
    int k;
    if (ip->nfree == 0)
        return -1;
    k = ip->freeslot[--ip->nfree];
    ip->aux[k] = (pcoll__ip_aux_t){q, -1, 0, 0};
    if (ip->slot[q] < 0)
        ip->slot[q] = k;
    else
        ip->aux[newest(ip, q)].next = k;
    return k;
}

char *pcoll__ip_aux_slot(const pcoll__ip_t *ip, int q)
{
    int k = newest(ip, q);
    return slot_at(ip, k, ip->aux[k].tail);
}

/* Slot k, empty, goes back on the free stack; prev: the slot before it in
 * its owner's chain (-1: it is the oldest). */
static void release(pcoll__ip_t *ip, int k, int prev)
{
    int q = ip->aux[k].owner;
    if (prev < 0)
        ip->slot[q] = ip->aux[k].next;
    else
        ip->aux[prev].next = ip->aux[k].next;
    ip->aux[k] = (pcoll__ip_aux_t){-1, -1, 0, 0};
    ip->freeslot[ip->nfree++] = k;
    ip->freed++;
}

void pcoll__ip_aux_append(pcoll__ip_t *ip, int q, long long n)
{
    int k = ip->slot[q], prev = -1;
    while (ip->aux[k].next >= 0) {
        prev = k;
        k = ip->aux[k].next;
    }
    ip->aux[k].tail += n;
    ip->auxn[q] += n;
    if (n == 0) /* an empty answer: the slot is not needed */
        release(ip, k, prev);
}

int pcoll__ip_aux_drain(pcoll__ip_t *ip, int q, long long n)
{
    int rc = PCOLL_SUCCESS;
    while (n > 0 && rc == PCOLL_SUCCESS) {
        int k = ip->slot[q];
        pcoll__ip_aux_t *x = &ip->aux[k];
        long long c = x->tail - x->head < n ? x->tail - x->head : n;
        rc = pcoll__ip_unstage(ip, slot_at(ip, k, x->head), ip->rlo[q], c);
        x->head += c;
        ip->auxn[q] -= c;
        ip->rlo[q] += c;
        ip->items_left -= c;
        n -= c;
        if (x->head == x->tail && (x->next >= 0 || ip->gout[q] == 0 || !ip->gkind[q]))
            release(ip, k, -1);
    }
    return rc;
}
