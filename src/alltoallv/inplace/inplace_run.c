/*
 * In-place alltoallv: a run (paper section 3.1, Algorithm 1) as an event
 * loop, the plan's start/test/wait/destroy operations.
 *
 * start resets the index sets to those computed at init, joins the free
 * space inside each receive set at its bottom (section 3.4), posts the receive
 * of a grant from every peer this rank sends to, and offers the first
 * grants.  test (and wait, which blocks in MPI_Waitany instead of polling;
 * inplace_wait.c) completes what has arrived and reacts: a grant from q is
 * answered with q's next items (inplace_phase.c); items that arrived are accounted for;
 * items that left update the index sets (inplace_update.c), and a new grant
 * receive is posted while q still has items.  Then every peer that may send
 * and has room is offered a grant, peers in the order (s - rank) mod p for
 * s = 0, 1, ...: each s pairs the ranks up, so two ranks that exchange
 * equal blocks (MPI_IN_PLACE) grant each other first, and the room one's
 * sending frees is the room the other needs.  A rank is done when it has
 * sent and placed every item and no request is in flight.
 *
 * Termination: as long as items are left, some rank can grant.  In a state
 * where no request is in flight and no rank can grant, every R_j with items
 * left would be filled with unsent items up to its bottom, and every slot
 * would be held; summed over all ranks the unsent items would then cover
 * every item not yet in place, so no slot could hold anything (Siegel and
 * Siegel's argument, section 3.1, restricted to the usable free space R_j)
 * and every rank could grant into a free one.  (A small grant held back
 * waits only for a data transfer in flight, so not in such a state.)
 *
 * Nothing is allocated here: every array was sized at init.
 */
#include <string.h>

#include "alltoallv/inplace/inplace.h"
#include "base/status.h"
#include "core/pmpi.h"

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
        ip->slot[i] = -1;
        ip->items_left += ip->srem[i] + ip->rend[i] - ip->rbeg[i];
    }
    for (i = 0; i < ip->nbuf; i++) {
        ip->aux[i] = (pcoll__ip_aux_t){-1, 0, 0};
        ip->freeslot[i] = ip->nbuf - 1 - i;
    }
    ip->nfree = ip->nbuf;
    ip->grants = ip->moved = 0;
    ip->nact = ip->ndata = 0;
}

/* Wait for q's next grant while items to q are left. */
static int expect_grant(pcoll__ip_t *ip, int q)
{
    int err;
    if (ip->srem[q] == 0)
        return PCOLL_SUCCESS;
    ip->nact++;
    err = MPI_Irecv(&ip->gin[q], 1, MPI_INT, q, ip->tag, ip->ctl,
                    &ip->req[PCOLL__IP_NREQ * q + PCOLL__IP_GRANT_IN]);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: grant from rank %d (%d)", q, err);
    return PCOLL_SUCCESS;
}

/* Offer grants to every peer that may take one. */
static int offer_grants(pcoll__ip_t *ip)
{
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < ip->p && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__ip_grant(ip, ip->order[i]);
    return rc;
}

/* React to completed request number r. */
static int complete(pcoll__ip_t *ip, int r, const MPI_Status *st)
{
    int q = r / PCOLL__IP_NREQ, n = 0;
    ip->nact--;
    switch (r % PCOLL__IP_NREQ) {
    case PCOLL__IP_DATA_IN:
        ip->ndata--;
        MPI_Get_count(st, ip->gkind[q] ? ip->sig : ip->type, &n);
        return pcoll__ip_received(ip, q, n);
    case PCOLL__IP_GRANT_IN:
        return pcoll__ip_respond(ip, q);
    case PCOLL__IP_DATA_OUT: {
        ip->ndata--;
        int rc = pcoll__ip_sent(ip, q);
        return rc == PCOLL_SUCCESS ? expect_grant(ip, q) : rc;
    }
    default: /* our grant left: its request is free for the next */
        return PCOLL_SUCCESS;
    }
}

/* One round: the completed requests (one, waited for, if `block`; else
 * every one that has completed), then the new grants. */
static int step(pcoll__ip_t *ip, int block)
{
    int i, rc = PCOLL_SUCCESS, nr = PCOLL__IP_NREQ * ip->p;
    MPI_Status st;
    do {
        rc = pcoll__ip_next(nr, ip->req, block, &i, &st);
        if (rc == PCOLL_SUCCESS && i >= 0)
            rc = complete(ip, i, &st);
    } while (rc == PCOLL_SUCCESS && i >= 0 && !block);
    return rc == PCOLL_SUCCESS ? offer_grants(ip) : rc;
}

static int finished(const pcoll__ip_t *ip)
{
    return ip->items_left == 0 && ip->nact == 0;
}

static int start(pcoll_plan_t *plan)
{
    pcoll__ip_t *ip = plan->priv;
    int q, rc;
    reset(ip);
    rc = pcoll__ip_settle(ip);
    for (q = 0; q < ip->p && rc == PCOLL_SUCCESS; q++)
        rc = expect_grant(ip, q);
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
