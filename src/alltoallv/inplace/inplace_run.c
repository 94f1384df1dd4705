/*
 * In-place alltoallv: a run, phase by phase (paper section 3.1, Algorithm
 * 1), as the plan's start/test/destroy operations.
 *
 * start resets the index sets to those computed at init and begins phase 1;
 * test completes what it can without blocking: the request exchange of the
 * phase (then it posts the data exchange), the data exchange (then it
 * updates the index sets and begins the next phase).  A rank stops when it
 * has nothing left to send or receive (the loop condition of Algorithm 1);
 * its peers see the same from their side, so nobody waits for it.
 *
 * Termination: as long as a rank has items left, some rank can receive at
 * least one item in a phase.  If every remaining item of R_j were blocked,
 * R_j would be filled with unsent items; summed over all ranks, the unsent
 * items would then cover every item not yet received, so every aux buffer
 * would be empty and every rank could receive into one (Siegel and Siegel's
 * argument, section 3.1, restricted to the usable free space R_j).  Each
 * phase thus moves at least one item, and the number of phases is finite.
 *
 * Nothing is allocated here: every array was sized at init.
 */
#include <string.h>

#include "alltoallv/inplace/inplace.h"
#include "base/status.h"
#include "core/pmpi.h"

/* The index sets as computed at init, empty aux buffers. */
static void reset(pcoll__ip_t *ip)
{
    int i, s;
    memcpy(ip->sub, ip->sub0, (size_t)ip->nsub * sizeof *ip->sub);
    for (i = 0; i < ip->p; i++) {
        ip->scur[i] = ip->sfirst[i];
        ip->srem[i] = 0;
        for (s = ip->sfirst[i]; s < ip->sfirst[i + 1]; s++)
            ip->srem[i] += ip->sub0[s].len;
        ip->rcur[i] = ip->rfirst[i];
        ip->rlo[i] = ip->rbeg[i];
        ip->auxn[i] = 0;
    }
    for (i = 0; i < ip->nbuf; i++)
        ip->aux[i] = (pcoll__ip_aux_t){-1, 0, 0};
    ip->phases = ip->moved = 0;
}

static int begin_phase(pcoll__ip_t *ip)
{
    int rc = pcoll__ip_post_requests(ip);
    ip->step = ip->npeers > 0 ? PCOLL__IP_REQUESTS : PCOLL__IP_DONE;
    return rc;
}

static int start(pcoll_plan_t *plan)
{
    pcoll__ip_t *ip = plan->priv;
    reset(ip);
    return begin_phase(ip);
}

/* Whether all requests of the step are complete. */
static int step_done(pcoll__ip_t *ip, int *rc)
{
    int flag = 0, err = PCOLL__MPI(Testall)(ip->nreq, ip->req, &flag, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
        *rc = pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: MPI_Testall (%d)", err);
    return flag && err == MPI_SUCCESS;
}

static int test(pcoll_plan_t *plan, int *done)
{
    pcoll__ip_t *ip = plan->priv;
    int rc = PCOLL_SUCCESS;
    while (ip->step != PCOLL__IP_DONE && rc == PCOLL_SUCCESS && step_done(ip, &rc)) {
        if (ip->step == PCOLL__IP_REQUESTS) {
            rc = pcoll__ip_post_data(ip);
            ip->step = PCOLL__IP_DATA;
        } else {
            rc = pcoll__ip_update(ip);
            ip->phases++;
            if (rc == PCOLL_SUCCESS)
                rc = begin_phase(ip);
        }
    }
    *done = rc == PCOLL_SUCCESS && ip->step == PCOLL__IP_DONE;
    return rc;
}

static void destroy(pcoll_plan_t *plan)
{
    pcoll__ip_free(plan->priv);
    plan->priv = NULL;
}

const pcoll__plan_ops_t pcoll__ip_ops = {.start = start, .test = test, .destroy = destroy};
