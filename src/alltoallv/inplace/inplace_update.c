/*
 * In-place alltoallv: updating the index sets after a phase (paper section
 * 3.4).
 *
 * 1. Each R_j loses the items received in place at its bottom (rlo moves
 *    up); items that went to the aux buffer are counted as waiting there.
 * 2. The items sent leave the front of their message: the lowest indices of
 *    S_i^1, S_i^2, ... in order.
 * 3. The free space of each R_j is joined at its lowest indices: the unsent
 *    subsets S_i^k with rmatch(S_i^k) = R_j are moved, highest first, to the
 *    top of R_j (toward higher indices only, so they never reach the items
 *    already received at the bottom), and smatch(R_j) moves to the lowest
 *    subset with items left.
 * 4. Items of peer j waiting in the aux buffer move into the freed bottom of
 *    R_j, as many as fit.
 * The paper also recomputes |S_i|; srem holds it.
 *
 * Cost: O(p + subsets) per phase, plus the moves: in the worst case every
 * unsent item of a receive set moves once per phase.  A subset already at
 * the top of its receive set does not move again until a subset above it
 * shrinks.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

long long pcoll__ip_free_end(const pcoll__ip_t *ip, int j)
{
    return ip->rcur[j] < ip->rfirst[j + 1] ? ip->sub[ip->rorder[ip->rcur[j]]].lo : ip->rend[j];
}

/* Step 2: the first n unsent items of the message to q are gone. */
static void consume(pcoll__ip_t *ip, int q, long long n)
{
    ip->srem[q] -= n;
    while (n > 0) {
        pcoll__ip_sub_t *s = &ip->sub[ip->scur[q]];
        long long take = n < s->len ? n : s->len;
        s->lo += take;
        s->len -= take;
        n -= take;
        if (s->len == 0)
            ip->scur[q]++;
    }
}

/* Step 3 for R_j. */
static int compact(pcoll__ip_t *ip, int j)
{
    long long top = ip->rend[j];
    int x, rc = PCOLL_SUCCESS;
    for (x = ip->rfirst[j + 1] - 1; x >= ip->rcur[j] && rc == PCOLL_SUCCESS; x--) {
        pcoll__ip_sub_t *s = &ip->sub[ip->rorder[x]];
        if (s->len == 0)
            continue;
        if (s->lo + s->len < top) {
            rc = pcoll__ip_move_up(ip, s->lo, top - s->len, s->len);
            s->lo = top - s->len;
            ip->moved += s->len;
        }
        top = s->lo;
    }
    while (ip->rcur[j] < ip->rfirst[j + 1] && ip->sub[ip->rorder[ip->rcur[j]]].len == 0)
        ip->rcur[j]++;
    return rc;
}

/* Steps 1 and 2 for the peers of this phase. */
static void account(pcoll__ip_t *ip)
{
    int i;
    for (i = 0; i < ip->npeers; i++) {
        int q = ip->peers[i];
        long long direct = ip->out[(long long)q * PCOLL__IP_CTL];
        direct = ip->tin[q] < direct ? ip->tin[q] : direct;
        ip->rlo[q] += direct;
        pcoll__ip_aux_append(ip, q, ip->tin[q] - direct);
        consume(ip, q, ip->tout[q]);
    }
}

int pcoll__ip_update(pcoll__ip_t *ip)
{
    int j, rc = PCOLL_SUCCESS;
    account(ip);
    for (j = 0; j < ip->p && rc == PCOLL_SUCCESS; j++)
        rc = compact(ip, j);
    for (j = 0; j < ip->p && rc == PCOLL_SUCCESS; j++) {
        long long room = pcoll__ip_free_end(ip, j) - ip->rlo[j];
        long long n = ip->auxn[j] < room ? ip->auxn[j] : room;
        if (n > 0)
            rc = pcoll__ip_aux_drain(ip, j, n);
    }
    return rc;
}
