/*
 * In-place alltoallv: updating the index sets (paper section 3.4) after
 * each transfer instead of after a global phase.
 *
 * When the items of a grant have arrived, R_j's bottom moves up by them
 * (inplace_phase.c).  When the items sent to peer q have left:
 * 1. they leave the front of their message: the lowest indices of
 *    S_q^1, S_q^2, ... in order;
 * 2. the free space of their receive set R_j (if any) is joined at its
 *    lowest indices, up to its lowest subset with items in flight (which
 *    must stay where it is).  The paper moves the unsent subsets S_i^k with
 *    rmatch(S_i^k) = R_j, highest first, to the top of R_j (toward higher
 *    indices only, so they never reach the items already received at the
 *    bottom): every unsent item below the highest hole moves.  Here, with F
 *    free items below that limit, only the unsent items below bottom + F
 *    move, into the holes above it, lowest items into the lowest holes
 *    ("fill"): one moved item per item of room.  A subset that spans holes
 *    becomes pieces, linked in message order (a piece is a subset like the
 *    others: a grant's answer may take up to PCOLL__IP_SEND_PIECES of them,
 *    inplace_phase.c).  Pieces come from a pool of 3p + PCOLL__IP_PIECES p
 *    subsets (emptied subsets return to it); when it runs short the
 *    paper's shift runs instead.  smatch(R_j) is the lowest subset with
 *    items left;
 * 3. items of peer j waiting in an aux slot move into the freed bottom of
 *    R_j, as many as fit (also when they arrive).
 * Steps 2 and 3 wait until R_j's room is asked for: items of j wait in a
 * slot, or j is about to be granted (pcoll__ip_join).  Until then R_j only
 * notes that it has holes, so several transfers out of it cost one pass of
 * moves instead of one each.
 * The paper also recomputes |S_i|; srem holds it.
 *
 * Parking (not in the paper).  The room of a rank lies in pieces at the
 * bottoms of up to p receive sets and, once items lying in no receive set
 * have left, outside them all; a grant into R_q could take only R_q's
 * piece, so transfers stayed small (P = 64, 1 MiB per rank, 1% aux: about
 * 280 per rank of 3.6 KiB, each costing a grant and a data message at both
 * ends).  Before a grant to q whose room is under PCOLL__IP_PARK_SLOTS
 * slots' worth, R_q's lowest unsent items (not in flight) move into free
 * space elsewhere -- first the free space outside every receive set
 * (recorded as items lying there leave, at most p + 8 ranges; the rest is
 * forgotten), then the top of another set's bottom room that is neither
 * granted nor waited for by items in a slot -- until R_q's room is that
 * size; only when the free space reaches it and the moves are at most
 * PCOLL__IP_PARK_BYTES (a move of more costs more than the message it
 * saves), so no items move without a grant.  A parked subset belongs to
 * the set it now lies in (or to none), like any piece, and leaves from
 * there.  One item moved per item of room, as with fill.
 *
 * Cost: O(subsets of R_j) per join, plus the moves: with fill at most the
 * room it makes (measured at p = 16, 16 MiB random layouts: 0.3-0.6 of the
 * bytes received, against 0.6-3.0 with the shift; docs/notes.md).  A
 * park's search for free space is O(p) (the ranges outside the sets, the
 * sets' spare room); one that comes up short records what it found, and no
 * later park searches again until a change that can add free space
 * (roomgen: items sent or received, a set relinked, a slot drained) when
 * it needs more than that (at P = 256, 1 MiB per rank: 2530 searches per
 * rank and run instead of one per peer looked at with little room).
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

long long pcoll__ip_free_end(const pcoll__ip_t *ip, int j)
{
    return ip->rcur[j] >= 0 ? ip->sub[ip->rcur[j]].lo : ip->rend[j];
}

/* Step 1: the first n unsent items of the message to q are gone; returns
 * the receive set they lay in (-1: none). */
static int consume(pcoll__ip_t *ip, int q, long long n)
{
    pcoll__ip_sub_t *s = &ip->sub[ip->scur[q]];
    if (s->rset < 0 && n > 0 && ip->nout < ip->maxout) { /* free for good: parking */
        ip->olo[ip->nout] = s->lo;
        ip->olen[ip->nout++] = n;
    }
    ip->srem[q] -= n;
    ip->items_left -= n;
    ip->roomgen++;
    s->lo += n;
    s->len -= n;
    while (ip->scur[q] >= 0 && ip->sub[ip->scur[q]].len == 0)
        ip->scur[q] = ip->sub[ip->scur[q]].next;
    return s->rset;
}

/* Whether subset s has items in flight (the first sfly items of its
 * message left in one answer, from one or more subsets). */
static int flying(const pcoll__ip_t *ip, const pcoll__ip_sub_t *s)
{
    long long f = ip->sfly[s->peer];
    int x;
    for (x = ip->scur[s->peer]; x >= 0 && f > 0; x = ip->sub[x].next) {
        if (&ip->sub[x] == s)
            return 1;
        f -= ip->sub[x].len;
    }
    return 0;
}

int pcoll__ip_opening(const pcoll__ip_t *ip, int j)
{
    int x = ip->rcur[j];
    while (x >= 0 && ip->sub[x].len == 0)
        x = ip->sub[x].rnext;
    return x >= 0 && flying(ip, &ip->sub[x]);
}

/* R_j's subsets with items left into ip->scratch, lowest first (emptied
 * ones are dropped from the list and kept as spares, parked ones that now
 * lie elsewhere just dropped); their number. */
static int collect(pcoll__ip_t *ip, int j)
{
    int x, n = 0;
    for (x = ip->rcur[j]; x >= 0; x = ip->sub[x].rnext) {
        if (ip->sub[x].len == 0)
            ip->spare[ip->nspare++] = x;
        else if (ip->sub[x].rset == j)
            ip->scratch[n++] = x;
    }
    return n;
}

/* Merge each of R_j's n subsets in ip->scratch (sorted by position) that
 * directly follows its predecessor both in the buffer and in its message
 * into that predecessor (it returns to the spares); the number left.  The
 * fill leaves pieces side by side once the subsets between them have gone,
 * and the shift packs them together: without merging, the pieces of a
 * receive set that many messages cross ran out, and every later join of it
 * shifted the whole set (p = 16, power-law counts, 16 MiB: one rank moved
 * 18 times its buffer; now at most 1.6 times, docs/notes.md). */
static int merge(pcoll__ip_t *ip, int n)
{
    int a, m = 0;
    for (a = 0; a < n; a++) {
        pcoll__ip_sub_t *t = m > 0 ? &ip->sub[ip->scratch[m - 1]] : NULL;
        int x = ip->scratch[a];
        if (t && t->next == x && t->lo + t->len == ip->sub[x].lo) {
            t->len += ip->sub[x].len;
            t->next = ip->sub[x].next;
            ip->sub[x].len = 0;
            ip->spare[ip->nspare++] = x;
        } else {
            ip->scratch[m++] = x;
        }
    }
    return m;
}

/* Link R_j's n subsets in ip->scratch (sorted by position and merged
 * first). */
static void relink(pcoll__ip_t *ip, int j, int n)
{
    int a, b;
    for (a = 1; a < n; a++) /* insertion sort: few subsets, nearly sorted */
        for (b = a; b > 0 && ip->sub[ip->scratch[b - 1]].lo > ip->sub[ip->scratch[b]].lo; b--) {
            int t = ip->scratch[b];
            ip->scratch[b] = ip->scratch[b - 1];
            ip->scratch[b - 1] = t;
        }
    n = merge(ip, n);
    ip->roomgen++;
    ip->rcur[j] = n > 0 ? ip->scratch[0] : -1;
    for (a = 0; a < n; a++)
        ip->sub[ip->scratch[a]].rnext = a + 1 < n ? ip->scratch[a + 1] : -1;
}

/* Step 2 for R_j by shifting: every subset below a hole moves up. */
static int shift(pcoll__ip_t *ip, int j, int n)
{
    long long top = ip->rend[j];
    int x, rc = PCOLL_SUCCESS;
    for (x = n - 1; x >= 0 && rc == PCOLL_SUCCESS; x--) {
        pcoll__ip_sub_t *s = &ip->sub[ip->scratch[x]];
        if (s->lo + s->len < top && !flying(ip, s)) {
            rc = pcoll__ip_move(ip, s->lo, top - s->len, s->len);
            s->lo = top - s->len;
            ip->moved += s->len;
        }
        top = s->lo;
    }
    return rc;
}

/* A new subset of items [lo, lo + len), next after subset `after` in its
 * message, appended to ip->scratch[(*n)++]. */
static int piece(pcoll__ip_t *ip, int after, long long lo, long long len, int *n)
{
    int x = ip->nspare > 0 ? ip->spare[--ip->nspare] : ip->ntop++;
    pcoll__ip_sub_t *a = &ip->sub[after];
    ip->sub[x] = (pcoll__ip_sub_t){lo, len, a->peer, a->rset, a->next, -1};
    a->next = x;
    ip->scratch[(*n)++] = x;
    return x;
}

/* Step 2 for R_j by filling: with F free items between R_j's bottom and
 * its lowest subset in flight (or its end), the items below bottom + F move
 * into the holes above it, lowest items into the lowest holes, splitting
 * subsets into pieces in message order.  Each item moved frees one item of
 * room, where shifting moves every item below the highest hole.  0: not
 * enough spare subsets (nothing moved; shift instead). */
static int fill(pcoll__ip_t *ip, int j, int *np, int *rc)
{
    long long lim = ip->rend[j], used = 0, B, hole, hend;
    int n = *np, m = n, k, h, last;
    for (k = 0; k < n; k++)
        if (flying(ip, &ip->sub[ip->scratch[k]])) {
            lim = ip->sub[ip->scratch[k]].lo;
            m = k;
            break;
        }
    for (k = 0; k < m; k++)
        used += ip->sub[ip->scratch[k]].len;
    B = lim - used; /* below B: free after the fill */
    for (k = 0; k < m && ip->sub[ip->scratch[k]].lo < B; k++)
        ;
    last = k; /* scratch[0 .. last) start below B */
    /* New subsets: at most one per hole above B (one per subset above B and
     * one below lim) and one for the part above B of the highest. */
    if (m - last + 2 > ip->nspare + (ip->npool - ip->ntop))
        return 0;
    /* Holes above B, in order: between the subsets scratch[h - 1 .. m) and lim. */
    h = last;
    hole = B;
    if (h > 0) {
        const pcoll__ip_sub_t *t = &ip->sub[ip->scratch[h - 1]];
        hole = t->lo + t->len > B ? t->lo + t->len : B;
    }
    hend = h < m ? ip->sub[ip->scratch[h]].lo : lim;
    for (k = 0; k < last && *rc == PCOLL_SUCCESS; k++) {
        int x = ip->scratch[k], prev = -1;
        pcoll__ip_sub_t *s = &ip->sub[x];
        long long src = s->lo, len = s->len, below = B - src < len ? B - src : len, done = 0;
        while (done < below && *rc == PCOLL_SUCCESS) {
            long long c;
            while (hole >= hend && h < m) { /* the next hole */
                const pcoll__ip_sub_t *t = &ip->sub[ip->scratch[h]];
                hole = t->lo + t->len;
                h++;
                hend = h < m ? ip->sub[ip->scratch[h]].lo : lim;
            }
            if (hole >= hend) {
                *rc = pcoll__error(PCOLL_ERR_INTERNAL, "in-place alltoallv: no hole for %lld items",
                                   below - done);
                break;
            }
            c = below - done < hend - hole ? below - done : hend - hole;
            *rc = pcoll__ip_move(ip, src + done, hole, c);
            ip->moved += c;
            if (prev < 0) { /* the first piece keeps the subset */
                s->lo = hole;
                s->len = c;
                prev = x;
            } else {
                prev = piece(ip, prev, hole, c, np);
            }
            s = &ip->sub[x];
            hole += c;
            done += c;
        }
        if (below < len && *rc == PCOLL_SUCCESS) /* the rest, above B, stays */
            piece(ip, prev, src + below, len - below, np);
    }
    return 1;
}

/* Step 2 for R_j: its free space below its lowest subset in flight joined at
 * its bottom. */
static int compact(pcoll__ip_t *ip, int j)
{
    int n = collect(ip, j), rc = PCOLL_SUCCESS;
    if (n > 0 && !fill(ip, j, &n, &rc))
        rc = shift(ip, j, n);
    relink(ip, j, n);
    return rc;
}

int pcoll__ip_refill(pcoll__ip_t *ip, int j)
{
    long long room = pcoll__ip_free_end(ip, j) - ip->rlo[j];
    long long n = ip->auxn[j] < room ? ip->auxn[j] : room;
    if (n <= 0)
        return PCOLL_SUCCESS;
    ip->roomgen++;
    return pcoll__ip_aux_drain(ip, j, n);
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
    int js[PCOLL__IP_SEND_PIECES], k = 0, i, rc = PCOLL_SUCCESS;
    ip->sfly[q] = 0;
    while (n > 0 && k < PCOLL__IP_SEND_PIECES) { /* first every subset, then the moves */
        long long len = ip->sub[ip->scur[q]].len, c = n < len ? n : len;
        js[k++] = consume(ip, q, c);
        n -= c;
    }
    for (i = 0; i < k && rc == PCOLL_SUCCESS; i++) {
        int j = js[i];
        if (j < 0)
            continue;
        ip->holes[j] = 1;
        if (ip->auxn[j] > 0)
            rc = pcoll__ip_join(ip, j);
    }
    return rc;
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

/* R_j's list again from its subsets that still lie in R_j, plus subset
 * `add` (-1: none). */
static void relist(pcoll__ip_t *ip, int j, int add)
{
    int n = collect(ip, j);
    if (add >= 0)
        ip->scratch[n++] = add;
    relink(ip, j, n);
}

/* Room at R_y's bottom that items of another set may take: not this
 * rank's own set, joined, nothing granted into it, no items of y waiting
 * in a slot for it. */
static long long spare_room(const pcoll__ip_t *ip, int y)
{
    if (y == ip->rank || ip->holes[y] || ip->auxn[y] > 0 || (ip->gout[y] > 0 && !ip->gkind[y]))
        return 0;
    return pcoll__ip_free_end(ip, y) - ip->rlo[y];
}

/* R_q's lowest subset if it starts R_q's items and is not in flight (-1:
 * none). */
static int parkable(const pcoll__ip_t *ip, int q)
{
    int x = ip->rcur[q];
    while (x >= 0 && ip->sub[x].len == 0)
        x = ip->sub[x].rnext;
    if (x < 0 || ip->sub[x].lo != pcoll__ip_free_end(ip, q) || flying(ip, &ip->sub[x]))
        return -1;
    return x;
}

/* Park up to c items from the front of R_q's parkable subset at item `to`
 * (c items of free space), in set y (-1: none); *n: the items moved. */
static int park_front(pcoll__ip_t *ip, int q, long long c, long long to, int y, long long *n)
{
    int x = parkable(ip, q), rest = -1, rc;
    pcoll__ip_sub_t *s;
    *n = 0;
    if (x < 0)
        return PCOLL_SUCCESS;
    s = &ip->sub[x];
    if (c < s->len) { /* the rest stays in R_q, a piece after it */
        int none = 0;
        if (ip->nspare == 0 && ip->ntop == ip->npool)
            return PCOLL_SUCCESS;
        rest = piece(ip, x, s->lo + c, s->len - c, &none);
        s->len = c;
    }
    c = s->len;
    rc = pcoll__ip_move(ip, s->lo, y < 0 ? to : to - c, c);
    ip->moved += c;
    s->lo = y < 0 ? to : to - c;
    s->rset = y;
    relist(ip, q, rest);
    if (y >= 0)
        relist(ip, y, x);
    *n = c;
    return rc;
}

int pcoll__ip_park(pcoll__ip_t *ip, int q, long long want)
{
    long long need = want - (pcoll__ip_free_end(ip, q) - ip->rlo[q]), have = 0, n = 1;
    int k, y, rc = PCOLL_SUCCESS;
    if (need <= 0 || need > PCOLL__IP_PARK_BYTES / ip->size || parkable(ip, q) < 0)
        return PCOLL_SUCCESS;
    if (ip->shortgen == ip->roomgen && need > ip->shortroom)
        return PCOLL_SUCCESS; /* no free space came since a search found less */
    ip->count.scans++;
    for (k = 0; k < ip->nout; k++)
        have += ip->olen[k];
    for (y = 0; y < ip->p && have < need; y++)
        have += y != q ? spare_room(ip, y) : 0;
    if (have < need) { /* not enough: nothing moves; all of it, q's room too */
        ip->shortgen = ip->roomgen;
        ip->shortroom = have + spare_room(ip, q);
        return PCOLL_SUCCESS;
    }
    while (need > 0 && ip->nout > 0 && n > 0 && rc == PCOLL_SUCCESS) {
        k = ip->nout - 1;
        rc = park_front(ip, q, need < ip->olen[k] ? need : ip->olen[k], ip->olo[k], -1, &n);
        ip->olo[k] += n;
        if ((ip->olen[k] -= n) == 0)
            ip->nout--;
        need -= n;
    }
    for (y = 0; y < ip->p && need > 0 && n > 0 && rc == PCOLL_SUCCESS; y++) {
        long long r = y != q ? spare_room(ip, y) : 0;
        while (r > 0 && need > 0 && n > 0 && rc == PCOLL_SUCCESS) {
            rc = park_front(ip, q, need < r ? need : r, pcoll__ip_free_end(ip, y), y, &n);
            need -= n;
            r -= n;
        }
    }
    return rc;
}
