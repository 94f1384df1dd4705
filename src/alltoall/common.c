/*
 * The per-block steps every all-to-all builder shares (alltoall and the
 * per-peer alltoallv and alltoallw alike): receive a peer's block, send
 * ours, exchange with one peer, copy our own block.
 */
#include <limits.h>

#include "alltoall/alltoall.h"

int pcoll__a2a_items(pcoll_plan_t *plan, MPI_Count count, MPI_Datatype type, int *n,
                     MPI_Datatype *t)
{
    int rc;
    *n = (int)count, *t = type;
    if (count <= INT_MAX)
        return PCOLL_SUCCESS;
    *n = 1;
    if ((rc = pcoll__type_items(count, type, t)) != PCOLL_SUCCESS)
        return rc;
    return pcoll__plan_own_type(plan, t);
}

/* Peer's block of the send (send = 1) or receive side, for the schedule. */
static int block(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer, int send, void **buf,
                 int *n, MPI_Datatype *t)
{
    *buf = send ? (void *)pcoll__a2a_sbuf(a, peer) : pcoll__a2a_rbuf(a, peer);
    return send ? pcoll__a2a_items(plan, pcoll__a2a_scount(a, peer), pcoll__a2a_stype(a, peer),
                                   n, t)
                : pcoll__a2a_items(plan, pcoll__a2a_rcount(a, peer), pcoll__a2a_rtype(a, peer),
                                   n, t);
}

int pcoll__a2a_recv(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer)
{
    MPI_Datatype t;
    void *buf;
    int n, rc = block(plan, a, peer, 0, &buf, &n, &t);
    return rc == PCOLL_SUCCESS ? pcoll__sched_recv(&plan->sched, buf, n, t, peer) : rc;
}

int pcoll__a2a_send(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer)
{
    MPI_Datatype t;
    void *buf;
    int n, rc = block(plan, a, peer, 1, &buf, &n, &t);
    return rc == PCOLL_SUCCESS ? pcoll__sched_send(&plan->sched, buf, n, t, peer) : rc;
}

int pcoll__a2a_exchange(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int sendto,
                        int recvfrom)
{
    int rc = pcoll__a2a_recv(plan, a, recvfrom);
    return rc == PCOLL_SUCCESS ? pcoll__a2a_send(plan, a, sendto) : rc;
}

int pcoll__a2a_self_copy(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    MPI_Datatype st, rt;
    void *sbuf, *rbuf;
    int me = plan->rank, sn, rn, rc;
    if (a->inplace)
        return PCOLL_SUCCESS;
    if ((rc = block(plan, a, me, 1, &sbuf, &sn, &st)) != PCOLL_SUCCESS ||
        (rc = block(plan, a, me, 0, &rbuf, &rn, &rt)) != PCOLL_SUCCESS)
        return rc;
    return pcoll__sched_copy(&plan->sched, sbuf, sn, st, rbuf, rn, rt);
}
