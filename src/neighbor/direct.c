/*
 * neighbor `direct`: one persistent receive per in-edge and one persistent
 * send per out-edge, made at init and started together in one round:
 * receives first (in edge order), then sends (in edge order; Cartesian:
 * above before below in each dimension, neighbor.h).  MPI_PROC_NULL edges
 * and empty messages are left out (both ends agree on the sizes).  Self
 * edges are messages to oneself, which keeps repeated self edges in MPI's
 * order.
 *
 * Cost: 1 round; outdegree messages sent and indegree received per rank,
 * each edge's block once: alpha*max(in, out) + beta*(bytes sent) where the
 * network overlaps them.  Scratch: none.  The same messages as MPICH's and
 * Open MPI's own neighbourhood calls, without their per-call request
 * creation: a persistent plan only starts its requests.
 */
#include "neighbor/neighbor.h"

/* The message of in-edge e (send 0) or out-edge e (send 1). */
static int edge(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, int e, int send)
{
    MPI_Datatype t;
    int n, rc, peer = send ? a->dests[e] : a->sources[e];
    if (peer == MPI_PROC_NULL)
        return PCOLL_SUCCESS;
    rc = send ? pcoll__a2a_items(plan, a->scounts[e], pcoll__nbr_stype(a, e), &n, &t)
              : pcoll__a2a_items(plan, a->rcounts[e], pcoll__nbr_rtype(a, e), &n, &t);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (send)
        return pcoll__sched_send(&plan->sched, pcoll__addr(a->sendbuf, a->sdispls[e] * a->sext),
                                 n, t, peer);
    return pcoll__sched_recv(&plan->sched, pcoll__addr(a->recvbuf, a->rdispls[e] * a->rext), n,
                             t, peer);
}

int pcoll__nbr_direct(pcoll_plan_t *plan, const void *args)
{
    const pcoll__nbr_args_t *a = args;
    int k, rc = pcoll__sched_round(&plan->sched);

    /* Post a receive on every in-edge. */
    for (k = 0; k < a->indegree && rc == PCOLL_SUCCESS; k++)
        rc = edge(plan, a, k, 0);
    /* Then send along every out-edge. */
    for (k = 0; k < a->outdegree && rc == PCOLL_SUCCESS; k++)
        rc = edge(plan, a, pcoll__nbr_send_edge(a, k), 1);
    return rc;
}
