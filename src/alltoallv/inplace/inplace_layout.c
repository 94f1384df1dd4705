/*
 * In-place alltoallv: the index sets (paper section 3.2).
 *
 * The layout is checked first: counts and displacements not negative, send
 * blocks disjoint from each other, receive blocks disjoint from each other
 * (a send block may overlap receive blocks: that is the point).  The buffer's
 * extent is implied by the arguments (the highest end of any block), so only
 * a negative displacement can put a block outside it.
 *
 * Then every send set S_i is split at the lowest and highest indices of the
 * receive sets into subsets S_i^k that either lie in no receive set or lie
 * inside one, R_j = rmatch(S_i^k).  The paper assumes S_1 < S_2 < ... in the
 * buffer and asks for a local reordering otherwise; here the receive sets
 * are sorted by position for the splitting, the subsets are kept peer by
 * peer in message order (sub0, sfirst), and the subsets of each R_j are
 * listed by position (rorder, rfirst), so any order of the blocks works.
 * smatch(R_j) is then the lowest listed subset with items left, which is the
 * paper's "i and k minimal" under its ordering assumption.
 *
 * Cost: O(p log p) time; at most p + 2p subsets (each receive set adds at
 * most two cuts); temporary O(p) memory.
 */
#include <stdlib.h>

#include "alltoallv/inplace/inplace.h"
#include "base/mem.h"
#include "base/status.h"

/* A block [lo, hi) of `peer`, or a subset keyed by receive set (sorting). */
typedef struct span {
    long long lo, hi;
    int peer;
} span_t;

static int by_lo(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Sort by receive set (in `peer`'s place: hi), then by position. */
static int by_rset_lo(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    if (x->hi != y->hi)
        return (x->hi > y->hi) - (x->hi < y->hi);
    return by_lo(a, b);
}

/* The non-empty blocks sorted by position; returns how many. */
static int sorted_blocks(int p, const int *counts, const int *displs, span_t *out)
{
    int i, n = 0;
    for (i = 0; i < p; i++)
        if (counts[i] > 0)
            out[n++] = (span_t){displs[i], (long long)displs[i] + counts[i], i};
    qsort(out, (size_t)n, sizeof *out, by_lo);
    return n;
}

/* Counts and displacements of one direction, and disjoint blocks. */
static int check_side(int p, const int *counts, const int *displs, const char *what, span_t *tmp,
                      const char *fn)
{
    int i, n;
    for (i = 0; i < p; i++) {
        if (counts[i] < 0)
            return pcoll__error(PCOLL_ERR_ARG, "%s: %scounts[%d] is negative (%d)", fn, what, i,
                                counts[i]);
        if (counts[i] > 0 && displs[i] < 0)
            return pcoll__error(PCOLL_ERR_ARG,
                                "%s: %sdispls[%d] = %d puts a block before the buffer", fn, what, i,
                                displs[i]);
    }
    n = sorted_blocks(p, counts, displs, tmp);
    for (i = 1; i < n; i++)
        if (tmp[i].lo < tmp[i - 1].hi)
            return pcoll__error(PCOLL_ERR_ARG,
                                "%s: the %s blocks of ranks %d and %d overlap (items %lld..%lld "
                                "and %lld..%lld)",
                                fn, what, tmp[i - 1].peer, tmp[i].peer, tmp[i - 1].lo,
                                tmp[i - 1].hi - 1, tmp[i].lo, tmp[i].hi - 1);
    return PCOLL_SUCCESS;
}

int pcoll__ip_check(int p, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls, const char *fn)
{
    span_t *tmp;
    int rc;
    if (!scounts || !sdispls || !rcounts || !rdispls)
        return pcoll__error(PCOLL_ERR_ARG, "%s: a count or displacement array is NULL", fn);
    if (!(tmp = pcoll__malloc((size_t)p * sizeof *tmp)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: %d blocks", fn, p);
    rc = check_side(p, scounts, sdispls, "send", tmp, fn);
    if (rc == PCOLL_SUCCESS)
        rc = check_side(p, rcounts, rdispls, "recv", tmp, fn);
    pcoll__free(tmp);
    return rc;
}

/* The first of the n sorted receive sets that ends after item lo. */
static int first_after(const span_t *r, int n, long long lo)
{
    int a = 0, b = n;
    while (a < b) {
        int m = a + (b - a) / 2;
        if (r[m].hi <= lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Split S_peer = [lo, hi) at the boundaries of the sorted receive sets r,
 * appending its subsets to ip->sub0 in message order. */
static void split_one(pcoll__ip_t *ip, const span_t *r, int nr, long long lo, long long hi,
                      int peer)
{
    int k = first_after(r, nr, lo);
    while (lo < hi) {
        long long end = hi;
        int rset = -1;
        if (k < nr && r[k].lo <= lo) {
            end = r[k].hi < hi ? r[k].hi : hi;
            rset = r[k++].peer;
        } else if (k < nr && r[k].lo < hi) {
            end = r[k].lo;
        }
        ip->sub0[ip->nsub++] = (pcoll__ip_sub_t){lo, end - lo, peer, rset, -1, -1};
        lo = end;
    }
}

/* rorder and rfirst: the subsets inside each receive set, by position. */
static void group_by_rset(pcoll__ip_t *ip, span_t *tmp)
{
    int i, n = 0;
    for (i = 0; i < ip->nsub; i++)
        if (ip->sub0[i].rset >= 0)
            tmp[n++] = (span_t){ip->sub0[i].lo, ip->sub0[i].rset, i};
    qsort(tmp, (size_t)n, sizeof *tmp, by_rset_lo);
    for (i = 0; i <= ip->p; i++)
        ip->rfirst[i] = 0;
    for (i = 0; i < n; i++) {
        ip->rorder[i] = tmp[i].peer;
        ip->rfirst[tmp[i].hi + 1]++;
    }
    for (i = 0; i < ip->p; i++)
        ip->rfirst[i + 1] += ip->rfirst[i];
}

int pcoll__ip_split(pcoll__ip_t *ip, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls)
{
    span_t *r = pcoll__malloc((size_t)(3 * ip->p) * sizeof *r);
    int i, nr;
    if (!r)
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: %d receive sets", ip->p);
    for (i = 0; i < ip->p; i++) {
        ip->rbeg[i] = rdispls[i];
        ip->rend[i] = (long long)rdispls[i] + rcounts[i];
        if (rcounts[i] == 0)
            ip->rbeg[i] = ip->rend[i] = 0;
    }
    nr = sorted_blocks(ip->p, rcounts, rdispls, r);
    ip->nsub = 0;
    for (i = 0; i < ip->p; i++) {
        ip->sfirst[i] = ip->nsub;
        if (scounts[i] > 0)
            split_one(ip, r, nr, sdispls[i], (long long)sdispls[i] + scounts[i], i);
    }
    ip->sfirst[ip->p] = ip->nsub;
    group_by_rset(ip, r);
    pcoll__free(r);
    return PCOLL_SUCCESS;
}
