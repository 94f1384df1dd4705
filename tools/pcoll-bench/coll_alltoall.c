/*
 * alltoall for pcoll-bench: a size is the bytes of one block (per
 * destination), sent as MPI_BYTE; every rank sends p blocks.  Block j of
 * rank r holds bytes that depend on r, j and the position, so a misplaced
 * block or byte shows.  The reference is MPI_Alltoall's result.  Folded
 * (fold.c), the buffers are shared by every simulated rank: no content, no
 * reference, no check.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_case {
    MPI_Comm comm;
    int p, rank;
    int count;         /* bytes per block */
    int fold;          /* buffers folded (fold.c) */
    size_t total;      /* bytes of each buffer: p * count */
    unsigned char *send, *recv, *ref;
};

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    bench_big_free(c->fold, c->send);
    bench_big_free(c->fold, c->recv);
    bench_big_free(c->fold, c->ref);
    free(c);
}

static void fill(bench_case_t *c)
{
    size_t j, i;
    for (j = 0; j < (size_t)c->p; j++)
        for (i = 0; i < (size_t)c->count; i++)
            c->send[j * c->count + i] = (unsigned char)(c->rank * 29 + j * 7 + i * 13 + 1);
}

/* This rank's buffers; a local status. */
static int allocate(MPI_Comm comm, long size, bench_case_t *c)
{
    c->comm = comm;
    MPI_Comm_size(comm, &c->p);
    MPI_Comm_rank(comm, &c->rank);
    c->count = (int)size;
    c->total = (size_t)c->p * (size_t)size;
    c->fold = bench_fold(size);
    c->send = bench_big_alloc(c->fold, c->total);
    c->recv = bench_big_alloc(c->fold, c->total);
    c->ref = c->fold ? NULL : malloc(c->total + 1); /* + 1: malloc(0) may return NULL */
    return c->send && c->recv && (c->ref || c->fold) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? allocate(comm, size, c) : PCOLL_ERR_NOMEM;
    (void)pattern; /* regular: uniform only */
    *out = c;
    /* Agree before communicating: a rank without memory must not leave the
     * others waiting in MPI_Alltoall. */
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS || c->fold)
        return rc;
    fill(c);
    return MPI_Alltoall(c->send, c->count, MPI_BYTE, c->ref, c->count, MPI_BYTE, comm) ==
                   MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

static long long bytes(const bench_case_t *c) { return (long long)c->total; }

static void poison(bench_case_t *c)
{
    if (!c->fold)
        memset(c->recv, 0xA5, c->total);
}

static int check(const bench_case_t *c)
{
    return c->fold ? BENCH_UNCHECKED : memcmp(c->recv, c->ref, c->total) == 0;
}

static int unchecked(const bench_case_t *c, bench_kind_t kind)
{
    (void)kind;
    return c->fold;
}

static int run_native(bench_case_t *c)
{
    return MPI_Alltoall(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->comm);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    return MPI_Alltoall_init(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->comm,
                             MPI_INFO_NULL, req);
}
#endif

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoall_init(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE,
                               c->comm, info, plan);
}

static int run_oneshot(bench_case_t *c)
{
    return pcoll_alltoall(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->comm);
}

const bench_coll_t bench_coll_alltoall = {
    .name = "alltoall",
    .native = "MPI_Alltoall",
    .native_init = "MPI_Alltoall_init",
    .env_algorithm = "PCOLL_ALLTOALL_ALGORITHM",
    .patterns = 0,
    .mpich_algorithms = "brucks,k_brucks,pairwise,scattered",
    .ompi_algorithms = "1|linear, 2|pairwise, 3|modified_bruck, 4|linear_sync, 5|two_proc",
    .setup = setup,
    .bytes = bytes,
    .poison = poison,
    .check = check,
    .unchecked = unchecked,
    .run_native = run_native,
#if BENCH_HAVE_MPI_PERSISTENT
    .native_persistent = native_persistent,
#endif
    .plan_init = plan_init,
    .run_oneshot = run_oneshot,
    .teardown = teardown,
};
