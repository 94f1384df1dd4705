/*
 * reduce_scatter and reduce_scatter_block for pcoll-bench: a size is the
 * bytes of one rank's result block, as MPI_INT with MPI_SUM (integer data,
 * so results compare exactly); the input vector is p blocks.  With --pattern
 * the counts form gets irregular blocks: random (+-50% around the size),
 * sparse (a quarter of the ranks get nothing, the rest twice), powerlaw
 * (rank r gets size * 2 / (r + 1)).  The reference is the native call.
 * Folded (fold.c): shared buffers of zeros, no reference, no check.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_case {
    MPI_Comm comm;
    int p, rank, block;        /* block: the block form (equal counts) */
    int fold;                  /* buffers folded (fold.c) */
    int *counts;
    long long total;           /* ints in the input vector */
    int *send, *recv, *ref;
};

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    free(c->counts);
    bench_big_free(c->fold, c->send);
    bench_big_free(c->fold, c->recv);
    bench_big_free(c->fold, c->ref);
    free(c);
}

/* Count of rank r's block: same on every rank (depends on r and size only). */
static int count_of(int r, int p, long ints, bench_pattern_t pattern)
{
    unsigned h = (unsigned)r * 2654435761u;
    switch (pattern) {
    case BENCH_RANDOM:
        return (int)(ints / 2 + (long)(h % (unsigned)(ints + 1)));
    case BENCH_SPARSE:
        return (h % 4u == 0 && p > 1) ? 0 : (int)(2 * ints);
    case BENCH_POWERLAW:
        return (int)(2 * ints / (r + 1));
    default:
        return (int)ints;
    }
}

static int allocate(MPI_Comm comm, long size, bench_pattern_t pattern, int block, bench_case_t *c)
{
    int r, mine;
    c->comm = comm, c->block = block;
    MPI_Comm_size(comm, &c->p);
    MPI_Comm_rank(comm, &c->rank);
    if (!(c->counts = malloc(sizeof(int) * (size_t)c->p)))
        return PCOLL_ERR_NOMEM;
    for (r = 0, c->total = 0; r < c->p; r++)
        c->total += c->counts[r] = count_of(r, c->p, size / (long)sizeof(int), block ? BENCH_UNIFORM : pattern);
    mine = c->counts[c->rank];
    c->fold = bench_fold(size);
    c->send = bench_big_alloc(c->fold, sizeof(int) * (size_t)c->total);
    c->recv = bench_big_alloc(c->fold, sizeof(int) * (size_t)mine);
    c->ref = c->fold ? NULL : malloc(sizeof(int) * (size_t)(mine + 1));
    return c->send && c->recv && (c->ref || c->fold) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

static int native(bench_case_t *c, int *out)
{
    if (c->block)
        return MPI_Reduce_scatter_block(c->send, out, c->counts[0], MPI_INT, MPI_SUM, c->comm);
    return MPI_Reduce_scatter(c->send, out, c->counts, MPI_INT, MPI_SUM, c->comm);
}

static int setup_form(MPI_Comm comm, long size, bench_pattern_t pattern, int block,
                      bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? allocate(comm, size, pattern, block, c) : PCOLL_ERR_NOMEM;
    long long i;
    *out = c;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (c->fold) { /* zeros, so that the sums stay in range */
        memset(c->send, 0, sizeof(int) * (size_t)c->total);
        return PCOLL_SUCCESS;
    }
    for (i = 0; i < c->total; i++)
        c->send[i] = (int)((c->rank * 31 + i * 7) % 1000);
    return native(c, c->ref) == MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    return setup_form(comm, size, pattern, 0, out);
}

static int setup_block(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    return setup_form(comm, size, pattern, 1, out);
}

static long long bytes(const bench_case_t *c) { return c->total * (long long)sizeof(int); }

static void poison(bench_case_t *c)
{
    if (!c->fold)
        memset(c->recv, 0xA5, sizeof(int) * (size_t)c->counts[c->rank]);
}

static int check(const bench_case_t *c)
{
    if (c->fold)
        return BENCH_UNCHECKED;
    return memcmp(c->recv, c->ref, sizeof(int) * (size_t)c->counts[c->rank]) == 0;
}

static int unchecked(const bench_case_t *c, bench_kind_t kind)
{
    (void)kind;
    return c->fold;
}

static int run_native(bench_case_t *c) { return native(c, c->recv); }

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    if (c->block)
        return MPI_Reduce_scatter_block_init(c->send, c->recv, c->counts[0], MPI_INT, MPI_SUM,
                                             c->comm, MPI_INFO_NULL, req);
    return MPI_Reduce_scatter_init(c->send, c->recv, c->counts, MPI_INT, MPI_SUM, c->comm,
                                   MPI_INFO_NULL, req);
}
#endif

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    if (c->block)
        return pcoll_reduce_scatter_block_init(c->send, c->recv, c->counts[0], MPI_INT, MPI_SUM,
                                               c->comm, info, plan);
    return pcoll_reduce_scatter_init(c->send, c->recv, c->counts, MPI_INT, MPI_SUM, c->comm,
                                     info, plan);
}

static int run_oneshot(bench_case_t *c)
{
    if (c->block)
        return pcoll_reduce_scatter_block(c->send, c->recv, c->counts[0], MPI_INT, MPI_SUM,
                                          c->comm);
    return pcoll_reduce_scatter(c->send, c->recv, c->counts, MPI_INT, MPI_SUM, c->comm);
}

#define RS_TABLE(var, nm, setupfn, nat, natinit, pats, mpich)                                   \
    const bench_coll_t var = {                                                                  \
        .name = nm, .native = nat, .native_init = natinit,                                      \
        .env_algorithm = "PCOLL_REDUCE_SCATTER_ALGORITHM", .patterns = pats,                    \
        .mpich_algorithms = mpich,                                                              \
        .ompi_algorithms = "1|non-overlapping, 2|recursive_halving, 3|ring, 4|butterfly",       \
        .setup = setupfn, .bytes = bytes, .poison = poison, .check = check,                     \
        .unchecked = unchecked,                                                                 \
        .run_native = run_native, NATIVE_PERSISTENT_ .plan_init = plan_init,                    \
        .run_oneshot = run_oneshot, .teardown = teardown}

#if BENCH_HAVE_MPI_PERSISTENT
#define NATIVE_PERSISTENT_ .native_persistent = native_persistent,
#else
#define NATIVE_PERSISTENT_
#endif

RS_TABLE(bench_coll_reduce_scatter, "reduce_scatter", setup, "MPI_Reduce_scatter",
         "MPI_Reduce_scatter_init", BENCH_PATTERNS_SIZES, "noncommutative,pairwise,recursive_doubling,recursive_halving");
RS_TABLE(bench_coll_reduce_scatter_block, "reduce_scatter_block", setup_block,
         "MPI_Reduce_scatter_block", "MPI_Reduce_scatter_block_init", BENCH_PATTERNS_NONE,
         "noncommutative,pairwise,recursive_doubling,recursive_halving");
