/*
 * The per-block steps every all-to-all builder shares (alltoall and the
 * per-peer alltoallv alike): receive a peer's block, send ours, exchange
 * with one peer, copy our own block.
 */
#include "alltoall/alltoall.h"

int pcoll__a2a_recv(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer)
{
    return pcoll__sched_recv(&plan->sched, pcoll__a2a_rbuf(a, peer), pcoll__a2a_rcount(a, peer),
                             a->recvtype, peer);
}

int pcoll__a2a_send(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer)
{
    return pcoll__sched_send(&plan->sched, pcoll__a2a_sbuf(a, peer), pcoll__a2a_scount(a, peer),
                             a->sendtype, peer);
}

int pcoll__a2a_exchange(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int sendto,
                        int recvfrom)
{
    int rc = pcoll__a2a_recv(plan, a, recvfrom);
    return rc == PCOLL_SUCCESS ? pcoll__a2a_send(plan, a, sendto) : rc;
}

int pcoll__a2a_self_copy(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    int me = plan->rank;
    if (a->inplace)
        return PCOLL_SUCCESS;
    return pcoll__sched_copy(&plan->sched, pcoll__a2a_sbuf(a, me), pcoll__a2a_scount(a, me),
                             a->sendtype, pcoll__a2a_rbuf(a, me), pcoll__a2a_rcount(a, me),
                             a->recvtype);
}
