/*
 * reduce_scatter `ring`: the bucket algorithm (reduce-scatter paper section
 * 4.2, Fig. 1).  The partial of block k starts at rank k+1 and travels to the
 * right, each rank adding its own contribution, until it reaches rank k after
 * p-1 steps.  In step s rank i receives from i-1 the partial of block
 * (i-1-s) mod p, while it sends to i+1 the partial of block (i-s) mod p that it
 * received the step before, now with its own contribution added.  The last
 * step receives straight into recvbuf.  Commutative ops only (the partial of
 * a block wraps around rank p-1 to 0).
 *
 * Cost: (p-1)(alpha + n/p beta + n/p gamma) for equal blocks.  Scratch: two
 * blocks of the largest count.
 */
#include "base/status.h"
#include "reduce_scatter/reduce_scatter.h"

static long long max_count(const pcoll__rs_args_t *a, int p)
{
    long long m = 0;
    int i;
    for (i = 0; i < p; i++)
        m = a->counts[i] > m ? a->counts[i] : m;
    return m;
}

int pcoll__reduce_scatter_ring(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    int p = plan->size, i = plan->rank, s, rc = PCOLL_SUCCESS;
    void *tmp[2];

    if (p == 1)
        return pcoll__rs_copy(plan, a, a->sendbuf, a->recvbuf, a->total);
    tmp[0] = pcoll__rs_scratch(plan, a, max_count(a, p));
    tmp[1] = pcoll__rs_scratch(plan, a, max_count(a, p));
    if (!tmp[0] || !tmp[1])
        return pcoll__error(PCOLL_ERR_NOMEM, "ring: block buffers");
    for (s = 1; s < p && rc == PCOLL_SUCCESS; s++) {
        int in = ((i - 1 - s) % p + p) % p, out = ((i - s) % p + p) % p;
        void *into = s == p - 1 ? a->recvbuf : tmp[s % 2];
        const void *own = pcoll__rs_at(a->sendbuf, a, a->displs[out]);
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, done);
        /* Post the receive, add my part to last step's partial, pass it on. */
        PCOLL_CHECK(pcoll__rs_recv(plan, a, into, a->counts[in], (i - 1 + p) % p), rc, done);
        if (s > 1)
            PCOLL_CHECK(pcoll__rs_reduce(plan, a, own, tmp[(s - 1) % 2], a->counts[out]), rc, done);
        PCOLL_CHECK(pcoll__rs_send(plan, a, s > 1 ? tmp[(s - 1) % 2] : own, a->counts[out],
                                   (i + 1) % p), rc, done);
    }
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, done);
    rc = pcoll__rs_reduce(plan, a, pcoll__rs_at(a->sendbuf, a, a->displs[i]), a->recvbuf,
                          a->counts[i]);
done:
    return rc;
}
