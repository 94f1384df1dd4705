/*
 * reduce_scatter `node_ring`: every rank on one node; the ranks add their
 * contributions into accumulators in a shared segment, with no messages.
 *
 * The segment holds one accumulator per block (block k's, a chunk of its
 * elements at a time) and two flags per block (core/node.h: counters that
 * only grow).  In step s = 1 .. p-1 rank i adds its contribution to block
 * k = i+s (mod p) into k's accumulator: step 1 copies it there (rank k-1
 * starts the accumulator), later steps reduce it in (x op acc).  Each step
 * of block k waits for k's step flag to show the step before it, and
 * raises the flag when done; as every rank works on a different block in
 * each step, the p accumulators fill side by side and a rank waits only for
 * its left neighbour's previous step (the ring of the bucket algorithm,
 * optimizing-reduce-scatter section 4, with the message replaced by the
 * neighbour's finished accumulator).  Rank i first copies its own
 * contribution to recvbuf (while the others fill its accumulator); after
 * its p-1 steps it waits for its own block's last step, reduces the
 * accumulator into recvbuf and raises its read flag; the next chunk's
 * step 1 on block k waits for that read, so one accumulator per block
 * serves every chunk and every run.
 *
 * What it saves against a message exchange on one node: the MPI moves
 * every message through memory once or twice (a copy into shared cells and
 * out, or one copy by the kernel) before it is reduced; here each
 * contribution is read once, from the owner's input, by the reduction that
 * uses it.  Per rank: p-1 reductions (or the first copy) of a block
 * reading the input and the shared accumulator, a copy of its own
 * contribution and one reduction of the accumulator into it, and p flag
 * hand-offs per chunk.
 *
 * The contributions meet in the order k-1, k-2, ..., k+1, then k: commutative
 * ops only.  A non-commutative op, several nodes, a node whose MPI gives no
 * shared window, types whose extents differ between ranks, or C11 atomics
 * that are not lock-free: `circulant` (which
 * runs recursive_halving for a non-commutative op) on every rank, decided
 * together; the plan then reports that name.  Scratch: the segment, about
 * PCOLL__NR_SEGMENT_BYTES of accumulators per node (reduce_scatter.h;
 * larger blocks go in chunks) plus two cache lines per rank.
 */
#include <stdatomic.h>

#include "base/status.h"
#include "datatype/size.h"
#include "reduce_scatter/reduce_scatter.h"

#define LINE 64 /* a flag's cache line; accumulators start on one */

typedef struct nr {
    const pcoll__rs_args_t *a;
    pcoll__node_shm_t *shm;
    int p, i;
    long long chunk;    /* elements of a block per chunk */
    int nchunks;
    size_t *acc;        /* [p] offset of block k's accumulator in the segment */
    size_t flags;       /* offset of the flags: step flag of k, then read flag of k */
    MPI_Aint true_lb, true_extent;
} nr_t;

static long long min_ll(long long x, long long y)
{
    return x < y ? x : y;
}

/* Elements of block k in chunk c. */
static long long piece(const nr_t *g, int k, int c)
{
    long long left = g->a->counts[k] - (long long)c * g->chunk;
    return left <= 0 ? 0 : min_ll(left, g->chunk);
}

/* Block k's accumulator, addressed like the vector's elements. */
static void *acc_of(const nr_t *g, int k)
{
    return g->shm->seg + g->acc[k] - g->true_lb;
}

/* Block k's contribution in chunk c, in this rank's input. */
static const void *input_of(const nr_t *g, int k, int c)
{
    return pcoll__rs_at(g->a->sendbuf, g->a, g->a->displs[k] + (long long)c * g->chunk);
}

/* Sizes: the chunk, the accumulators' offsets, the flags after them. */
static size_t layout(nr_t *g)
{
    long long most = 0, want = pcoll__rs_node_ring_chunk(g->p);
    size_t off = 0;
    int k;
    for (k = 0; k < g->p; k++)
        most = g->a->counts[k] > most ? g->a->counts[k] : most;
    g->chunk = want / g->a->extent > 0 ? want / g->a->extent : 1;
    g->chunk = min_ll(g->chunk, most > 0 ? most : 1);
    g->nchunks = most > 0 ? (int)((most + g->chunk - 1) / g->chunk) : 0;
    for (k = 0; k < g->p; k++) {
        long long m = min_ll(g->a->counts[k], g->chunk);
        g->acc[k] = off;
        if (m > 0)
            off += ((size_t)((m - 1) * g->a->extent + g->true_extent) + LINE - 1) / LINE * LINE;
    }
    g->flags = off;
    return off + (size_t)(2 * g->p) * LINE;
}

/* A flag of block k (read: its read flag, else its step flag) at value at
 * in the run, per_run per run. */
static int flag(pcoll_plan_t *plan, const nr_t *g, int k, int read, long long per_run,
                long long at, int set)
{
    pcoll__node_flag_t *f = pcoll__plan_alloc(plan, sizeof *f);
    if (!f)
        return pcoll__error(PCOLL_ERR_NOMEM, "node_ring: flags");
    *f = (pcoll__node_flag_t){g->shm, g->flags + (size_t)(2 * k + read) * LINE, per_run, at};
    return pcoll__sched_poll(&plan->sched,
                             pcoll__node_flag(f, set ? PCOLL__FLAG_SET : PCOLL__FLAG_WAIT));
}

/* Chunk c: the p-1 steps into the others' accumulators, then my own block. */
static int chunk(pcoll_plan_t *plan, const nr_t *g, int c)
{
    const pcoll__rs_args_t *a = g->a;
    long long steps = (long long)g->nchunks * (g->p - 1), base = (long long)c * (g->p - 1);
    void *mine = pcoll__rs_at(a->recvbuf, a, (long long)c * g->chunk);
    int s, k, rc;
    /* My own contribution first, while the others fill my accumulator. */
    PCOLL_CHECK(pcoll__rs_copy(plan, a, input_of(g, g->i, c), mine, piece(g, g->i, c)), rc, out);
    for (s = 1; s < g->p && rc == PCOLL_SUCCESS; s++) {
        k = (g->i + s) % g->p;
        /* Step 1 writes over the accumulator: its owner has read chunk c-1. */
        if (s == 1)
            PCOLL_CHECK(flag(plan, g, k, 1, g->nchunks, c, 0), rc, out);
        else
            PCOLL_CHECK(flag(plan, g, k, 0, steps, base + s - 1, 0), rc, out);
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        if (s == 1)
            rc = pcoll__rs_copy(plan, a, input_of(g, k, c), acc_of(g, k), piece(g, k, c));
        else
            rc = pcoll__rs_reduce(plan, a, input_of(g, k, c), acc_of(g, k), piece(g, k, c));
        PCOLL_CHECK(rc, rc, out);
        PCOLL_CHECK(flag(plan, g, k, 0, steps, base + s, 1), rc, out);
    }
    PCOLL_CHECK(flag(plan, g, g->i, 0, steps, base + g->p - 1, 0), rc, out);
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    PCOLL_CHECK(pcoll__rs_reduce(plan, a, acc_of(g, g->i), mine, piece(g, g->i, c)), rc, out);
    rc = flag(plan, g, g->i, 1, g->nchunks, c + 1, 1);
out:
    return rc;
}

/* The segment on one node, or *ok = 0 on every rank. */
static int segment(pcoll_plan_t *plan, nr_t *g, int *ok)
{
    int rc;
    *ok = 0;
    if (ATOMIC_LLONG_LOCK_FREE != 2 || !g->a->commutative)
        return PCOLL_SUCCESS;
    if ((rc = pcoll__rs_node_layout(plan, g->a, &g->true_lb, &g->true_extent, ok)) !=
            PCOLL_SUCCESS || !*ok)
        return rc;
    g->acc = pcoll__plan_alloc(plan, sizeof *g->acc * (size_t)g->p);
    if (!g->acc)
        return pcoll__error(PCOLL_ERR_NOMEM, "node_ring: offsets");
    return pcoll__rs_node_segment(plan, layout(g), &g->shm, ok);
}

int pcoll__reduce_scatter_node_ring(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    nr_t g = {a, NULL, plan->size, plan->rank, 0, 0, NULL, 0, 0, 0};
    pcoll__node_flag_t begin = {NULL, 0, 0, 0};
    int c, ok, rc;
    if (g.p == 1 && a->commutative)
        return pcoll__rs_copy(plan, a, input_of(&g, 0, 0), a->recvbuf, a->counts[0]);
    PCOLL_CHECK(segment(plan, &g, &ok), rc, out);
    if (!ok) {
        plan->algorithm = "circulant";
        return pcoll__reduce_scatter_circulant(plan, args);
    }
    begin.shm = g.shm;
    PCOLL_CHECK(pcoll__sched_poll(&plan->sched, pcoll__node_flag(&begin, PCOLL__FLAG_RUN_BEGIN)),
                rc, out);
    for (c = 0; c < g.nchunks && rc == PCOLL_SUCCESS; c++)
        rc = chunk(plan, &g, c);
out:
    return rc;
}
