/*
 * alltoall `scattered`: cyclic order with throttling (multicore paper, section
 * III-A).  Rank r sends to r+1, r+2, ... and receives from r-1, r-2, ...; at
 * most `throttle` (info pcoll_throttle, default 32) sends and as many receives
 * are in flight: each group of that many exchanges is one round.
 *
 * Cost: ceil((p-1)/t) rounds; p-1 messages of n bytes sent and received per
 * rank.  Scratch: none (in place: a packed copy of the buffer, p*n bytes).
 * The cyclic order spreads the load so that no rank is the target of every
 * sender at once; the throttle bounds the messages in flight.
 */
#include "alltoall/alltoall.h"

int pcoll__alltoall_scattered(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = args;
    int p = plan->size, r = plan->rank, first, i, rc = PCOLL_SUCCESS;
    int t = a->opts.throttle > 0 ? a->opts.throttle : PCOLL__A2A_THROTTLE;

    for (first = 1; first < p && rc == PCOLL_SUCCESS; first += t) {
        int last = first + t < p ? first + t : p;
        rc = pcoll__sched_round(&plan->sched);
        /* Receives of the group first, so the matching sends find them posted. */
        for (i = first; i < last && rc == PCOLL_SUCCESS; i++)
            rc = pcoll__a2a_recv(plan, a, (r - i + p) % p);
        for (i = first; i < last && rc == PCOLL_SUCCESS; i++)
            rc = pcoll__a2a_send(plan, a, (r + i) % p);
        /* The own block is copied while the first group travels. */
        if (first == 1 && rc == PCOLL_SUCCESS)
            rc = pcoll__a2a_self_copy(plan, a);
    }
    if (p == 1)
        rc = pcoll__a2a_self_copy(plan, a);
    return rc;
}
