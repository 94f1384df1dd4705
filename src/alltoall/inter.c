/*
 * alltoall `inter`: the direct exchange between the two groups of an
 * intercommunicator.  Rank i of one group sends its block j to rank j of
 * the other group and receives block j from it; the blocks of the two
 * directions may differ in size (each matches the remote group's other
 * side).  Every receive is posted, then every send, in one round.  On an
 * intracommunicator (both groups the same) it is `linear` with the own
 * block sent to itself as a message.
 *
 * Cost: 1 round; q messages sent and q received per rank (q = the remote
 * group's size), of one send block and one receive block each.
 * Scratch: none.  In place: never (MPI has no MPI_IN_PLACE on an
 * intercommunicator).
 */
#include "alltoall/alltoall.h"
#include "core/comm.h"

int pcoll__alltoall_inter(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = args;
    int q = plan->ctx->remote ? plan->ctx->remote : plan->size;
    int i, rc = PCOLL_SUCCESS, r = plan->rank;

    /* Prepost a receive from every remote rank, starting at this rank's
     * index so that the remote ranks are not all addressed in one order. */
    for (i = 0; i < q && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__a2a_recv(plan, a, (r + i) % q);
    /* Then send every block, in the same order. */
    for (i = 0; i < q && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__a2a_send(plan, a, (r + i) % q);
    return rc;
}
