/*
 * reduce_scatter `pairwise`: p-1 exchange rounds; in round s rank i sends its
 * contribution to block i+s to that rank and receives rank (i-s)'s
 * contribution to its own block.  Commutative ops add each contribution the
 * round after it arrives, into recvbuf (which starts as a copy of my own
 * part).  Non-commutative ops keep every contribution and combine them at the
 * end in rank order: x(0) op (x(1) op (... op x(p-1))).
 *
 * Cost: (p-1)(alpha + n/p beta + n/p gamma).  Scratch: two blocks of my count
 * (commutative) or p-1 of them (non-commutative).
 */
#include "base/status.h"
#include "reduce_scatter/reduce_scatter.h"

/* Round s's exchange; the contribution of rank (i-s) goes to into. */
static int exchange(pcoll_plan_t *plan, const pcoll__rs_args_t *a, int s, void *into)
{
    int p = plan->size, i = plan->rank, to = (i + s) % p, from = (i - s + p) % p;
    int rc = pcoll__rs_recv(plan, a, into, a->counts[i], from);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__rs_send(plan, a, pcoll__rs_at(a->sendbuf, a, a->displs[to]), a->counts[to],
                            to);
    return rc;
}

static int commutative(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *own)
{
    int p = plan->size, i = plan->rank, s, rc;
    void *tmp[2] = {pcoll__rs_scratch(plan, a, a->counts[i]), pcoll__rs_scratch(plan, a, a->counts[i])};
    if (!tmp[0] || !tmp[1])
        return pcoll__error(PCOLL_ERR_NOMEM, "pairwise: block buffers");
    PCOLL_CHECK(pcoll__rs_copy(plan, a, own, a->recvbuf, a->counts[i]), rc, out);
    for (s = 1; s <= p; s++) {
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        if (s < p)
            PCOLL_CHECK(exchange(plan, a, s, tmp[s % 2]), rc, out);
        if (s > 1)
            PCOLL_CHECK(pcoll__rs_reduce(plan, a, tmp[(s - 1) % 2], a->recvbuf, a->counts[i]), rc,
                        out);
    }
out:
    return rc;
}

static int ordered(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *own)
{
    int p = plan->size, i = plan->rank, s, k, rc;
    char *slots = pcoll__rs_scratch(plan, a, (long long)a->counts[i] * p);
    const void *part;
    if (!slots)
        return pcoll__error(PCOLL_ERR_NOMEM, "pairwise: contribution buffers");
    /* Slot k holds rank k's contribution. */
    for (s = 1; s < p; s++) {
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        PCOLL_CHECK(exchange(plan, a, s, pcoll__rs_at(slots, a, (long long)a->counts[i] *
                                                                   ((i - s + p) % p))), rc, out);
    }
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    part = p - 1 == i ? own : pcoll__rs_at(slots, a, (long long)a->counts[i] * (p - 1));
    PCOLL_CHECK(pcoll__rs_copy(plan, a, part, a->recvbuf, a->counts[i]), rc, out);
    for (k = p - 2; k >= 0; k--) {
        part = k == i ? own : pcoll__rs_at(slots, a, (long long)a->counts[i] * k);
        PCOLL_CHECK(pcoll__rs_reduce(plan, a, part, a->recvbuf, a->counts[i]), rc, out);
    }
out:
    return rc;
}

int pcoll__reduce_scatter_pairwise(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    const void *own = pcoll__rs_at(a->sendbuf, a, a->displs[plan->rank]);
    return a->commutative ? commutative(plan, a, own) : ordered(plan, a, own);
}
