/*
 * In-place alltoallv: the auxiliary buffers (paper section 3.5).
 *
 * The additional memory a (pcoll_aux_bytes, default 1 MiB) is cut into b
 * static buffers (pcoll_aux_buffers, default max(1, p/8)) of a/b bytes.
 * Items from peer j may only go to buffer j mod b, first come, first served:
 * the first peer that is granted space in an empty buffer owns it until it
 * is empty again, so a buffer holds one peer's next items in arrival order
 * and needs no search for free space and no fragmentation bookkeeping.  The
 * items are kept in the signature form of the type (size bytes each); when
 * a buffer's free end is shorter than its drained front, the held items are
 * shifted to its start.  With b > p only p buffers can ever be used, so only
 * p are made.
 *
 * Progress needs at least one item per buffer (Siegel and Siegel's
 * condition, cited in section 3.1): smaller a/b is PCOLL_ERR_ARG.
 *
 * Memory: min(b, p) * floor(a/b / size) * size bytes.
 */
#include <limits.h>
#include <string.h>

#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

int pcoll__ip_aux_config(int p, int size, const pcoll__opts_t *opts, const char *fn, int *nbuf,
                         long long *cap)
{
    long long a = opts->aux_bytes ? opts->aux_bytes : PCOLL__IP_AUX_BYTES;
    int b = opts->aux_buffers ? opts->aux_buffers : (p / 8 > 1 ? p / 8 : 1);
    if (a / b < size)
        return pcoll__error(PCOLL_ERR_ARG,
                            "%s: pcoll_aux_bytes = %lld gives less than one item (%d bytes) to "
                            "each of the pcoll_aux_buffers = %d auxiliary buffers",
                            fn, a, size, b);
    *nbuf = b < p ? b : p;
    *cap = size > 0 ? a / b / size : 0;
    return PCOLL_SUCCESS;
}

static pcoll__ip_aux_t *buffer_of(const pcoll__ip_t *ip, int q)
{
    return &ip->aux[q % ip->nbuf];
}

/* Item `item` of buffer k. */
static char *slot(const pcoll__ip_t *ip, int k, long long item)
{
    return ip->auxmem + ((long long)k * ip->cap + item) * ip->size;
}

/* Move the held items to the start of the buffer. */
static void shift(const pcoll__ip_t *ip, pcoll__ip_aux_t *x)
{
    int k = (int)(x - ip->aux);
    memmove(slot(ip, k, 0), slot(ip, k, x->head), (size_t)((x->tail - x->head) * ip->size));
    x->tail -= x->head;
    x->head = 0;
}

long long pcoll__ip_aux_grant(pcoll__ip_t *ip, int q, long long need)
{
    pcoll__ip_aux_t *x = buffer_of(ip, q);
    long long n;
    if (need <= 0 || (x->owner >= 0 && x->owner != q))
        return 0;
    if (x->head > 0 && ip->cap - x->tail < x->head)
        shift(ip, x);
    n = ip->cap - x->tail;
    n = n < need ? n : need;
    n = n < INT_MAX ? n : INT_MAX;
    if (n > 0)
        x->owner = q;
    return n;
}

char *pcoll__ip_aux_slot(const pcoll__ip_t *ip, int q, long long off)
{
    const pcoll__ip_aux_t *x = buffer_of(ip, q);
    return slot(ip, q % ip->nbuf, x->tail + off);
}

/* An empty buffer is free for the next peer. */
static void release_if_empty(pcoll__ip_aux_t *x)
{
    if (x->head == x->tail)
        *x = (pcoll__ip_aux_t){-1, 0, 0};
}

void pcoll__ip_aux_append(pcoll__ip_t *ip, int q, long long n)
{
    pcoll__ip_aux_t *x = buffer_of(ip, q);
    if (x->owner != q)
        return;
    x->tail += n;
    ip->auxn[q] += n;
    release_if_empty(x);
}

int pcoll__ip_aux_drain(pcoll__ip_t *ip, int q, long long n)
{
    pcoll__ip_aux_t *x = buffer_of(ip, q);
    int rc = pcoll__ip_unstage(ip, slot(ip, q % ip->nbuf, x->head), ip->rlo[q], n);
    x->head += n;
    ip->auxn[q] -= n;
    ip->rlo[q] += n;
    release_if_empty(x);
    return rc;
}
