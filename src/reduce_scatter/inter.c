/*
 * reduce_scatter `inter`: reduce-scatter on an intercommunicator (MPI's
 * definition): the input vectors of one group's ranks (n elements each, n
 * the same in both groups) are reduced in that group's rank order and the
 * result is scattered among the other group's ranks in the other group's
 * blocks (its own counts), and the other way round.
 *
 * Reduce at the remote leader, then scatter: every rank sends its whole
 * vector to the remote group's first rank (its leader).  A leader receives
 * the remote group's q vectors, reduces them x(0) op (x(1) op (... op
 * x(q-1))) -- rank order, so non-commutative ops are fine -- keeps its own
 * block and sends every other rank of its group its block.  A group needs
 * only its own counts, which each of its ranks knows, so a plan is made
 * without communicating.  The messages go over the two groups merged into
 * one intracommunicator (the context's), where a leader reaches the ranks
 * of its own group; the first group of the merge has ranks 0..a-1, the
 * second a..a+b-1.  On an intracommunicator (both groups the same) it is a
 * linear reduce to rank 0, which sends its own vector to itself, and a
 * linear scatter.
 *
 * Cost: 2 rounds (the leader's receives, then its sends); a rank sends n
 * elements, a leader receives q*n and sends n minus its block; q-1
 * reductions of n elements on each leader.  Scratch: q*n elements on each
 * leader, none elsewhere.  In place: never (MPI has no MPI_IN_PLACE on an
 * intercommunicator).
 */
#include "core/comm.h"
#include "reduce_scatter/reduce_scatter.h"

int pcoll__reduce_scatter_inter(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    const pcoll__ctx_t *x = plan->ctx;
    int q = x->remote ? x->remote : plan->size, mine = x->high ? q : 0;
    int theirs = x->high || !x->remote ? 0 : plan->size, i, rc = PCOLL_SUCCESS;
    char *slots, *acc;
    plan->comm = x->whole;
    if (plan->rank != 0) {
        /* Its block from its leader (posted first), its vector to theirs. */
        PCOLL_CHECK(pcoll__rs_recv(plan, a, a->recvbuf, a->counts[plan->rank], mine), rc, out);
        return pcoll__rs_send(plan, a, a->sendbuf, a->total, theirs);
    }
    /* The leader: a slot for every remote rank's vector, then its own
     * vector to the remote leader. */
    if (!(slots = pcoll__rs_scratch(plan, a, (long long)q * a->total)))
        return pcoll__error(PCOLL_ERR_NOMEM, "reduce_scatter inter: %d vectors of scratch", q);
    for (i = 0; i < q && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__rs_recv(plan, a, pcoll__rs_at(slots, a, (long long)i * a->total), a->total,
                            theirs + i);
    if (rc != PCOLL_SUCCESS)
        return rc;
    PCOLL_CHECK(pcoll__rs_send(plan, a, a->sendbuf, a->total, theirs), rc, out);
    /* Once they are in: fold them into the last slot from the last one
     * down, then keep its own block and send everyone else theirs. */
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    acc = pcoll__rs_at(slots, a, (long long)(q - 1) * a->total);
    for (i = q - 2; i >= 0 && rc == PCOLL_SUCCESS; i--)
        rc = pcoll__rs_reduce(plan, a, pcoll__rs_at(slots, a, (long long)i * a->total), acc,
                              a->total);
    if (rc != PCOLL_SUCCESS)
        return rc;
    PCOLL_CHECK(pcoll__rs_copy(plan, a, acc, a->recvbuf, a->counts[0]), rc, out);
    for (i = 1; i < plan->size && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__rs_send(plan, a, pcoll__rs_at(acc, a, a->displs[i]), a->counts[i], mine + i);
out:
    return rc;
}
