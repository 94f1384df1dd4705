/*
 * reduce_scatter `mst` (reduce-scatter paper section 4.1): a binomial-tree
 * reduce of the whole vector to rank 0, then a binomial scatter of the blocks.
 *
 * Reduce: in step m = 1, 2, 4, ... a rank with bit m set sends its partial
 * (ranks [r, r+m)) to r-m and leaves; the others receive the partial of
 * ranks [r+m, r+2m) and, the next round, combine mine op theirs -- rank order,
 * so non-commutative ops are fine.  Two buffers alternate as accumulator and
 * receive buffer, so nothing is copied.  Scatter: rank r receives the blocks
 * of ranks [r, r+lowbit(r)) from its parent and forwards each child's range;
 * a rank without children receives its block straight into recvbuf.
 *
 * Cost: ceil(log2 p)(alpha + n beta + n gamma) + ceil(log2 p) alpha +
 * (p-1)/p n beta.  Scratch: two vectors of n on ranks with two or more
 * children in the tree (one with one child, none on leaves).
 */
#include "base/status.h"
#include "reduce_scatter/reduce_scatter.h"

typedef struct mst {
    const pcoll__rs_args_t *a;
    int p, r;
    char *buf[2];
} mst_t;

/* Number of children of r in the reduce tree. */
static int children(int r, int p)
{
    int m, n = 0;
    for (m = 1; m < p && !(r & m); m <<= 1)
        n += r + m < p;
    return n;
}

/* The reduce phase; returns the partial at the root in *acc. */
static int reduce_up(pcoll_plan_t *plan, mst_t *t, const void **acc)
{
    const pcoll__rs_args_t *a = t->a;
    void *pending = NULL;
    int m, nb = 0, rc = PCOLL_SUCCESS;
    *acc = a->sendbuf;
    for (m = 1; m < t->p && rc == PCOLL_SUCCESS; m <<= 1) {
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        /* Last round's partial came from higher ranks: mine op theirs. */
        if (pending) {
            PCOLL_CHECK(pcoll__rs_reduce(plan, a, *acc, pending, a->total), rc, out);
            *acc = pending;
            pending = NULL;
        }
        if (t->r & m)
            return pcoll__rs_send(plan, a, *acc, a->total, t->r - m);
        if (t->r + m < t->p) {
            pending = t->buf[nb++ % 2];
            rc = pcoll__rs_recv(plan, a, pending, a->total, t->r + m);
        }
    }
    if (pending && rc == PCOLL_SUCCESS) {
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        rc = pcoll__rs_reduce(plan, a, *acc, pending, a->total);
        *acc = pending;
    }
out:
    return rc;
}

/* The scatter phase: range holds the blocks of ranks [r, hi). */
static int scatter_down(pcoll_plan_t *plan, mst_t *t, const void *acc)
{
    const pcoll__rs_args_t *a = t->a;
    int r = t->r, p = t->p, low = 1, m, rc;
    const char *range = acc;
    while (low < p && !(r & low))
        low <<= 1;
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    if (r != 0) {
        int hi = r + low < p ? r + low : p;
        /* A leaf's range is its own block: receive it in place. */
        range = hi == r + 1 ? a->recvbuf : (const char *)t->buf[0];
        PCOLL_CHECK(pcoll__rs_recv(plan, a, (void *)range, pcoll__rs_span(a, r, hi), r - low), rc,
                    out);
        if (hi == r + 1)
            return PCOLL_SUCCESS;
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    }
    for (m = low / 2; m >= 1; m /= 2)
        if (r + m < p) {
            int hi = r + 2 * m < p ? r + 2 * m : p;
            PCOLL_CHECK(pcoll__rs_send(plan, a, pcoll__rs_at(range, a, pcoll__rs_span(a, r, r + m)),
                                       pcoll__rs_span(a, r + m, hi), r + m), rc, out);
        }
    rc = pcoll__rs_copy(plan, a, range, a->recvbuf, a->counts[r]);
out:
    return rc;
}

int pcoll__reduce_scatter_mst(pcoll_plan_t *plan, const void *args)
{
    mst_t t = {.a = args, .p = plan->size, .r = plan->rank};
    const void *acc;
    int k, n = children(t.r, t.p), rc;
    for (k = 0; k < (n < 2 ? n : 2); k++)
        if (!(t.buf[k] = pcoll__rs_scratch(plan, t.a, t.a->total)))
            return pcoll__error(PCOLL_ERR_NOMEM, "mst: vector buffers");
    rc = reduce_up(plan, &t, &acc);
    return rc == PCOLL_SUCCESS ? scatter_down(plan, &t, acc) : rc;
}
