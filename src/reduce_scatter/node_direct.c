/*
 * reduce_scatter `node_direct`: every rank on one node, short vectors.  The
 * plan's shared segment holds one slot per rank, laid out like the input
 * vector, in two copies that runs take in turn.  A run: copy my input into
 * my slot; node barrier; then reduce my block from the p inputs in rank
 * order, x(0) op (x(1) op (... op x(p-1))), reading the others' blocks
 * straight from their slots and mine from my input, into recvbuf.  A rank
 * past a run's barrier knows that every rank has finished reading the
 * other copy, the one its next run writes: one barrier a run.
 *
 * Cost: one node barrier, a copy of the vector (n bytes) and p passes over
 * a block, no messages: for short vectors, where node_ring's p flag
 * hand-offs in a row and circulant's ceil(log2 p) rounds of messages cost
 * more than the barrier (docs/notes.md).  Since the order is rank
 * order, any op, commutative or not.  Scratch: the segment, twice p slots
 * of the vector; one copy up to PCOLL__NR_SEGMENT_BYTES (reduce_scatter.h), beyond
 * that node_ring (commutative ops) or circulant (which runs
 * recursive_halving for a non-commutative op); several nodes, no shared
 * window or types whose extents differ between ranks: circulant.  Every rank takes the same way (the counts are the
 * same everywhere, the segment is agreed), and the plan reports it.
 */
#include "base/status.h"
#include "datatype/size.h"
#include "reduce_scatter/reduce_scatter.h"

#define LINE 64 /* slots start on a cache line */

/* Bytes of one slot: the vector's elements, rounded up to a line. */
static size_t slot_bytes(const pcoll__rs_args_t *a, MPI_Aint true_extent)
{
    size_t b = a->total > 0 ? (size_t)((a->total - 1) * a->extent + true_extent) : 0;
    return (b + LINE - 1) / LINE * LINE;
}

/* Too large for the segment: node_ring or circulant, and the plan says so. */
static int elsewhere(pcoll_plan_t *plan, const pcoll__rs_args_t *a)
{
    if (a->commutative) {
        plan->algorithm = "node_ring";
        return pcoll__reduce_scatter_node_ring(plan, a);
    }
    plan->algorithm = "circulant";
    return pcoll__reduce_scatter_circulant(plan, a);
}

int pcoll__reduce_scatter_node_direct(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    pcoll__node_shm_t *shm = NULL;
    MPI_Aint true_lb, true_extent;
    size_t slot;
    char *base;
    int p = plan->size, i = plan->rank, k, ok, rc;
    long long mine = a->counts[i];
    void *out = a->recvbuf;
    if (p == 1)
        return pcoll__rs_copy(plan, a, pcoll__rs_at(a->sendbuf, a, a->displs[i]), out, mine);
    PCOLL_CHECK(pcoll__rs_node_layout(plan, a, &true_lb, &true_extent, &ok), rc, fail);
    slot = slot_bytes(a, true_extent);
    if (ok && (long long)slot * p > PCOLL__NR_SEGMENT_BYTES)
        return elsewhere(plan, a);
    if (ok)
        PCOLL_CHECK(pcoll__rs_node_segment(plan, 2 * slot * (size_t)p, &shm, &ok), rc, fail);
    if (!ok) {
        plan->algorithm = "circulant";
        return pcoll__reduce_scatter_circulant(plan, args);
    }
    base = shm->seg - true_lb;
    /* Every address the run's ops name in the slots lies in [base, base +
     * p slot); every other run they move to the second copy. */
    pcoll__sched_flip(&plan->sched, base, slot * (size_t)p);
    /* My slot written, then everyone's. */
    PCOLL_CHECK(pcoll__rs_copy(plan, a, a->sendbuf, base + slot * (size_t)i, a->total), rc, fail);
    PCOLL_CHECK(pcoll__sched_poll(&plan->sched, pcoll__node_barrier(shm)), rc, fail);
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, fail);
    /* x(p-1) first, then x(k) op acc down to k = 0: rank order. */
    for (k = p - 1; k >= 0; k--) {
        const void *in = pcoll__rs_at(k == i ? a->sendbuf : base + slot * (size_t)k, a,
                                      a->displs[i]);
        rc = k == p - 1 ? pcoll__rs_copy(plan, a, in, out, mine)
                        : pcoll__rs_reduce(plan, a, in, out, mine);
        PCOLL_CHECK(rc, rc, fail);
    }
fail:
    return rc;
}
