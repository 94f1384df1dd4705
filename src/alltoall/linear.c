/*
 * alltoall `linear`: every receive is posted, then every send, in one round.
 *
 * Cost: 1 round; p-1 messages of n bytes sent and received per rank (n = one
 * block); alpha*(p-1) + beta*n*(p-1) if the network overlaps nothing better.
 * Scratch: none (in place: a packed copy of the whole buffer, p*n bytes).
 * Best for few ranks; with many ranks all messages are in flight at once,
 * which is what `scattered` throttles.
 */
#include "alltoall/alltoall.h"

int pcoll__alltoall_linear(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = args;
    int i, rc = PCOLL_SUCCESS, p = plan->size, r = plan->rank;

    /* Prepost a receive from every other rank, nearest first. */
    for (i = 1; i < p && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__a2a_recv(plan, a, (r - i + p) % p);
    /* Then send every block, in the same cyclic order. */
    for (i = 1; i < p && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__a2a_send(plan, a, (r + i) % p);
    /* The own block is copied while the messages travel. */
    return rc == PCOLL_SUCCESS ? pcoll__a2a_self_copy(plan, a) : rc;
}
