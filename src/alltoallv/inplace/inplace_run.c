/*
 * In-place alltoallv: a run (paper section 3.1, Algorithm 1) as an event
 * loop, the plan's start/test/wait/destroy operations.
 *
 * start resets the index sets to those computed at init, joins the free
 * space inside each receive set at its bottom (section 3.4), counts a grant
 * to come from every peer this rank sends to, and offers the first grants.
 * test (and wait, which blocks in MPI_Waitany instead of polling;
 * inplace_wait.c) completes what has arrived and reacts: a grant from q is
 * answered with q's next items (inplace_phase.c), or once q's last items
 * have left; items that arrived are accounted for; items that left update
 * the index sets (inplace_update.c).  Then every peer that may send
 * and has room is offered a grant, in four rounds (inplace_phase.c, "Which
 * peer gets a slot"), each over the peers in the order (s - rank) mod p for
 * s = 0, 1, ...: each s pairs the ranks up, so two ranks that exchange
 * equal blocks (MPI_IN_PLACE) grant each other first, and the room one's
 * sending frees is the room the other needs.  A rank is done when it has
 * sent and placed every item and no request is in flight.
 *
 * Cost of a run, per rank: no global synchronisation; per transfer one
 * grant (one int) and one data message, each a wait (MPI_Waitany) at the
 * end that completes it; after each completion the offer rounds look only
 * at the peers whose bit in ip->want is set (no grant in flight, items left
 * to grant), and parking's search for free space, O(p), runs again only
 * once free space can have grown (inplace_update.c).  Simulated at P = 256
 * (fat-ib, 1 MiB per rank, 1% aux, random layouts): 1.64 transfers per
 * peer, 1676 completions, 227 000 peers looked at, 2530 searches per rank
 * and run (docs/inplace-alltoallv.md, "Where the time goes").  The
 * counters are printed at the end of a run under PCOLL_VERBOSE.
 *
 * Termination: as long as items are left, some rank can grant.  In a state
 * where no request is in flight and no rank can grant, every R_j with items
 * left would be filled with unsent items up to its bottom, and every slot
 * would be held; summed over all ranks the unsent items would then cover
 * every item not yet in place, so no slot could hold anything (Siegel and
 * Siegel's argument, section 3.1, restricted to the usable free space R_j)
 * and every rank could grant into a free one.  (A small grant held back
 * waits only for a data transfer in flight, so not in such a state; a slot
 * held back in the first round is offered in the third of the same step;
 * a slot is held only with a grant into it in flight or items in it.)
 *
 * Grants are received from any peer: PCOLL__IP_LISTEN receives with
 * MPI_ANY_SOURCE stay posted while that many grants are still to come
 * (gwait counts them: one from every peer with items left to send it, one
 * for each grant to itself), not one receive per peer.  With p receives
 * posted, every MPI_Waitany looked at all of them (in SMPI it registers
 * and unregisters each: a simulation at p = 256 spent most of its time
 * there) and every arriving message was matched against a queue of p.  A
 * receive from any peer may take a grant of the next run from a peer that
 * has finished this one; this_run() tells them apart and gnext keeps such
 * a grant for the next start.  It may not take another operation's
 * message: a plan that runs has a tag of its own (made by every rank
 * together, persistent or for one call; a plan made with pcoll_no_comm,
 * whose tag is shared, never runs: src/api/entry.c).
 *
 * Nothing is allocated here: every array was sized at init.
 */
#include <string.h>

#include "alltoallv/inplace/inplace.h"
#include "base/status.h"
#include "base/pmpi.h"

/* The index sets as computed at init, all slots free. */
static void reset(pcoll__ip_t *ip)
{
    int i;
    memcpy(ip->sub, ip->sub0, (size_t)ip->nsub * sizeof *ip->sub);
    ip->ntop = ip->nsub;
    ip->nspare = 0;
    ip->items_left = 0;
    for (i = 0; i < ip->p; i++) {
        int a = ip->sfirst[i], b = ip->sfirst[i + 1], ra = ip->rfirst[i], rb = ip->rfirst[i + 1];
        ip->scur[i] = a < b ? a : -1;
        ip->srem[i] = 0;
        for (int s = a; s < b; s++) {
            ip->srem[i] += ip->sub0[s].len;
            ip->sub[s].next = s + 1 < b ? s + 1 : -1;
        }
        ip->rcur[i] = ra < rb ? ip->rorder[ra] : -1;
        for (int x = ra; x < rb; x++)
            ip->sub[ip->rorder[x]].rnext = x + 1 < rb ? ip->rorder[x + 1] : -1;
        ip->rlo[i] = ip->rbeg[i];
        ip->auxn[i] = ip->gout[i] = ip->sfly[i] = 0;
        ip->gin[i] = 0;
        ip->slot[i] = -1;
        ip->items_left += ip->srem[i] + ip->rend[i] - ip->rbeg[i];
    }
    for (i = 0; i < ip->nbuf; i++) {
        ip->aux[i] = (pcoll__ip_aux_t){-1, -1, 0, 0};
        ip->freeslot[i] = ip->nbuf - 1 - i;
    }
    ip->nfree = ip->nbuf;
    ip->freed = 0;
    ip->grants = ip->moved = 0;
    ip->count = (pcoll__ip_count_t){0};
    ip->reported = 0;
    ip->roomgen = 0;
    ip->shortgen = -1;
    ip->nact = ip->ndata = 0;
    ip->gwait = 0;
    ip->nlisten = 0;
    ip->nout = 0;
    for (i = 0; i < ip->p; i++)
        pcoll__ip_want(ip, i);
}

/* Whether a grant from q (not this rank) belongs to this run: one comes
 * only while items to q are left to send and none of q's grants waits for
 * an answer.  Else q has finished this run and started the next: the
 * grant waits for it in gnext[q].  (q cannot be two runs ahead: while it
 * grants us in run k + 1 it waits for our items of run k + 1.) */
static int this_run(const pcoll__ip_t *ip, int q)
{
    return ip->srem[q] - ip->sfly[q] > 0 && ip->gin[q] == 0;
}

/* A grant (v) arrived from q: answered at once, or once our last items to
 * q have left (their request and index sets are still busy). */
static int granted(pcoll__ip_t *ip, int q, int v)
{
    int next = q != ip->rank && !this_run(ip, q), rc;
    ip->nlisten--;
    if (next)
        ip->gnext[q] = v; /* not one this run waits for */
    else
        ip->gwait--;
    rc = pcoll__ip_listen(ip);
    if (rc != PCOLL_SUCCESS || next)
        return rc;
    ip->gin[q] = v;
    if (*pcoll__ip_req(ip, q, PCOLL__IP_DATA_OUT) == MPI_REQUEST_NULL)
        return pcoll__ip_respond(ip, q);
    return PCOLL_SUCCESS;
}

/* The index of the lowest set bit of b (b not 0). */
static int lowest_bit(unsigned long long b)
{
#if defined(__GNUC__)
    return __builtin_ctzll(b);
#else
    int i = 0;
    for (; !(b & 1ULL); b >>= 1)
        i++;
    return i;
#endif
}

/* One offer round (`pass`, inplace_phase.c) over the peers that may be
 * granted. */
static int offer_round(pcoll__ip_t *ip, int pass)
{
    int w, rc = PCOLL_SUCCESS, nw = (ip->p + 63) / 64;
    for (w = 0; w < nw && rc == PCOLL_SUCCESS; w++) {
        unsigned long long bits = ip->want[w]; /* a grant clears only its own bit */
        for (; bits != 0 && rc == PCOLL_SUCCESS; bits &= bits - 1)
            rc = pcoll__ip_grant(ip, ip->order[64 * w + lowest_bit(bits)], pass);
    }
    return rc;
}

/* Place the items to itself that fit, then offer grants to every peer that
 * may take one (the bits of ip->want, in the order of ip->order): first
 * the room that will not wait (a whole transfer, or a slot that drains
 * soon), then the rest; in each, first the peers with no items waiting in
 * a slot.  Until nothing changes: a peer passed over must not find room
 * that appeared later in the same offers (placing items to itself, a slot
 * freed by a refill), for no completion may follow to offer it again while
 * the ranks wait on each other's grants. */
static int offer_grants(pcoll__ip_t *ip)
{
    static const int round[] = {PCOLL__IP_SOON, PCOLL__IP_SOON | PCOLL__IP_MORE, 0,
                                PCOLL__IP_MORE};
    int r, rc;
    long long placed, freed;
    do {
        freed = ip->freed;
        do /* the items to itself first: the room they free is offered below */
            rc = pcoll__ip_place_self(ip, &placed);
        while (rc == PCOLL_SUCCESS && placed > 0);
        for (r = 0; r < 4 && rc == PCOLL_SUCCESS; r++) {
            if ((round[r] & PCOLL__IP_MORE) && ip->nfree == 0)
                continue; /* further slots only: none is free */
            rc = offer_round(ip, round[r]);
        }
    } while (rc == PCOLL_SUCCESS && ip->freed != freed);
    return rc;
}

/* React to completed request number r. */
static int complete(pcoll__ip_t *ip, int r, const MPI_Status *st)
{
    int q = (r - PCOLL__IP_LISTEN) / PCOLL__IP_NREQ, n = 0;
    ip->nact--;
    if (r < PCOLL__IP_LISTEN)
        return granted(ip, st->MPI_SOURCE, ip->gany[r]);
    switch ((r - PCOLL__IP_LISTEN) % PCOLL__IP_NREQ) {
    case PCOLL__IP_DATA_IN:
        ip->ndata--;
        MPI_Get_count(st, ip->gkind[q] ? ip->sig : ip->type, &n);
        return pcoll__ip_received(ip, q, n);
    case PCOLL__IP_DATA_OUT: {
        ip->ndata--;
        int rc = pcoll__ip_sent(ip, q);
        return rc == PCOLL_SUCCESS && ip->gin[q] > 0 ? pcoll__ip_respond(ip, q) : rc;
    }
    default: /* our grant left: its request is free for the next */
        pcoll__ip_want(ip, q);
        return PCOLL_SUCCESS;
    }
}

/* One round: the completed requests (one, waited for, if `block`; else
 * every one that has completed), then the new grants. */
static int step(pcoll__ip_t *ip, int block)
{
    int i, rc = PCOLL_SUCCESS, nr = PCOLL__IP_NREQ * ip->p + PCOLL__IP_LISTEN;
    MPI_Status st;
    if (ip->nact > ip->count.maxreq)
        ip->count.maxreq = ip->nact;
    do {
        rc = pcoll__ip_next(nr, ip->req, block, &i, &st);
        ip->count.steps++;
        ip->count.done += i >= 0;
        if (rc == PCOLL_SUCCESS && i >= 0)
            rc = complete(ip, i, &st);
    } while (rc == PCOLL_SUCCESS && i >= 0 && !block);
    return rc == PCOLL_SUCCESS ? offer_grants(ip) : rc;
}

/* Whether the run is over; its counters are printed once, at its end,
 * under PCOLL_VERBOSE. */
static int finished(pcoll__ip_t *ip)
{
    const pcoll__ip_count_t *c = &ip->count;
    if (ip->items_left != 0 || ip->nact != 0)
        return 0;
    if (!ip->reported)
        pcoll__note("in-place alltoallv: p %d, grants %lld, answers %lld, steps %lld, "
                    "completions %lld, peers looked at %lld, park searches %lld, items "
                    "moved %lld, requests in flight at most %d",
                    ip->p, ip->grants, c->answers, c->steps, c->done, c->looks, c->scans,
                    ip->moved, c->maxreq);
    ip->reported = 1;
    return 1;
}

static int start(pcoll_plan_t *plan)
{
    pcoll__ip_t *ip = plan->priv;
    int q, rc;
    reset(ip);
    rc = pcoll__ip_settle(ip);
    for (q = 0; q < ip->p && rc == PCOLL_SUCCESS; q++) { /* a grant from every peer sent to */
        if (ip->srem[q] == 0 || q == ip->rank)
            continue;
        if (ip->gnext[q] > 0) { /* it came during the last run */
            ip->gin[q] = ip->gnext[q];
            ip->gnext[q] = 0;
            rc = pcoll__ip_respond(ip, q);
        } else
            rc = pcoll__ip_expect_grant(ip);
    }
    return rc == PCOLL_SUCCESS ? offer_grants(ip) : rc;
}

static int test(pcoll_plan_t *plan, int *done)
{
    pcoll__ip_t *ip = plan->priv;
    int rc = finished(ip) ? PCOLL_SUCCESS : step(ip, 0);
    *done = rc == PCOLL_SUCCESS && finished(ip);
    return rc;
}

static int wait(pcoll_plan_t *plan)
{
    pcoll__ip_t *ip = plan->priv;
    int rc = PCOLL_SUCCESS;
    while (rc == PCOLL_SUCCESS && !finished(ip))
        rc = step(ip, 1);
    return rc;
}

void pcoll__ip_destroy(pcoll_plan_t *plan)
{
    pcoll__ip_free(plan->priv);
    plan->priv = NULL;
}

const pcoll__plan_ops_t pcoll__ip_ops = {
    .start = start, .test = test, .wait = wait, .destroy = pcoll__ip_destroy};
