/*
 * In-place alltoallv: updating the index sets (paper section 3.4) after
 * each transfer instead of after a global phase.
 *
 * When the items of a grant have arrived, R_j's bottom moves up by them
 * (inplace_phase.c).  When the items sent to peer q have left:
 * 1. they leave the front of their message: the lowest indices of
 *    S_q^1, S_q^2, ... in order;
 * 2. the free space of their receive set R_j (if any) is joined at its
 *    lowest indices: the unsent subsets S_i^k with rmatch(S_i^k) = R_j are
 *    moved, highest first, to the top of R_j (toward higher indices only,
 *    so they never reach the items already received at the bottom), and
 *    smatch(R_j) moves to the lowest subset with items left.  A subset
 *    whose items are in flight stays where it is (the subsets below it
 *    move up to it), and the next update of R_j moves it;
 * 3. items of peer j waiting in an aux slot move into the freed bottom of
 *    R_j, as many as fit (also when they arrive).
 * Steps 2 and 3 wait until R_j's room is asked for: items of j wait in a
 * slot, or j is about to be granted (pcoll__ip_join).  Until then R_j only
 * notes that it has holes, so several transfers out of it cost one pass of
 * moves instead of one each.
 * The paper also recomputes |S_i|; srem holds it.
 *
 * Cost: O(subsets of R_j) per transfer, plus the moves: in the worst case
 * every unsent item of a receive set moves once per transfer out of it.  A
 * subset already at the top of its receive set does not move again until a
 * subset above it shrinks.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

long long pcoll__ip_free_end(const pcoll__ip_t *ip, int j)
{
    return ip->rcur[j] < ip->rfirst[j + 1] ? ip->sub[ip->rorder[ip->rcur[j]]].lo : ip->rend[j];
}

/* Step 1: the first n unsent items of the message to q are gone; returns
 * the receive set they lay in (-1: none). */
static int consume(pcoll__ip_t *ip, int q, long long n)
{
    pcoll__ip_sub_t *s = &ip->sub[ip->scur[q]];
    ip->srem[q] -= n;
    ip->items_left -= n;
    s->lo += n;
    s->len -= n;
    while (ip->scur[q] < ip->sfirst[q + 1] && ip->sub[ip->scur[q]].len == 0)
        ip->scur[q]++;
    return s->rset;
}

/* Whether subset s has items in flight (they are its first ones). */
static int flying(const pcoll__ip_t *ip, const pcoll__ip_sub_t *s)
{
    return ip->sfly[s->peer] > 0 && &ip->sub[ip->scur[s->peer]] == s;
}

/* Step 2 for R_j. */
static int compact(pcoll__ip_t *ip, int j)
{
    long long top = ip->rend[j];
    int x, rc = PCOLL_SUCCESS;
    for (x = ip->rfirst[j + 1] - 1; x >= ip->rcur[j] && rc == PCOLL_SUCCESS; x--) {
        pcoll__ip_sub_t *s = &ip->sub[ip->rorder[x]];
        if (s->len == 0)
            continue;
        if (s->lo + s->len < top && !flying(ip, s)) {
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

int pcoll__ip_refill(pcoll__ip_t *ip, int j)
{
    long long room = pcoll__ip_free_end(ip, j) - ip->rlo[j];
    long long n = ip->auxn[j] < room ? ip->auxn[j] : room;
    return n > 0 ? pcoll__ip_aux_drain(ip, j, n) : PCOLL_SUCCESS;
}

int pcoll__ip_join(pcoll__ip_t *ip, int j)
{
    int rc = PCOLL_SUCCESS;
    if (ip->holes[j]) {
        ip->holes[j] = 0;
        rc = compact(ip, j);
    }
    return rc == PCOLL_SUCCESS ? pcoll__ip_refill(ip, j) : rc;
}

int pcoll__ip_sent(pcoll__ip_t *ip, int q)
{
    long long n = ip->sfly[q];
    int j;
    ip->sfly[q] = 0;
    j = consume(ip, q, n);
    if (j < 0)
        return PCOLL_SUCCESS;
    ip->holes[j] = 1;
    return ip->auxn[j] > 0 ? pcoll__ip_join(ip, j) : PCOLL_SUCCESS;
}

int pcoll__ip_settle(pcoll__ip_t *ip)
{
    int j, rc = PCOLL_SUCCESS;
    for (j = 0; j < ip->p && rc == PCOLL_SUCCESS; j++) {
        ip->holes[j] = 0;
        rc = compact(ip, j);
    }
    return rc;
}
