/*
 * alltoall_multi for pcoll-bench: the multiple all-to-all of pencil FFTs
 * (pcoll_alltoall_multi_init) on an R x C grid of the ranks, R and C from
 * MPI_Dims_create, one alltoall inside every row at once.  A size is the
 * bytes of one block (MPI_BYTE); every rank sends C blocks.  The native row is
 * MPI_Alltoall on every row communicator at the same time.
 *
 * Placement: rows are contiguous runs of ranks (row = rank / C), unless
 * PCOLL_BENCH_TILE="TRxTC" says that every TR*TC consecutive ranks (a node)
 * hold a tile of TR rows and TC columns, as in the multicore paper's 3x4
 * tiles on 12-core nodes (ignored when the tiles do not divide the grid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_case {
    MPI_Comm row, col;
    int c, me;         /* row size, rank in the row */
    int count;         /* bytes per block */
    size_t total;      /* bytes of each buffer: c * count */
    unsigned char *send, *recv, *ref;
};

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    if (c->row != MPI_COMM_NULL)
        MPI_Comm_free(&c->row);
    if (c->col != MPI_COMM_NULL)
        MPI_Comm_free(&c->col);
    free(c->send);
    free(c->recv);
    free(c->ref);
    free(c);
}

/* This rank's (row, column) on the R x C grid. */
static void place(int rank, int R, int C, int *row, int *col)
{
    const char *tile = getenv("PCOLL_BENCH_TILE");
    int tr = 0, tc = 0;
    *row = rank / C, *col = rank % C;
    if (!tile || sscanf(tile, "%dx%d", &tr, &tc) != 2 || tr < 1 || tc < 1 || R % tr || C % tc)
        return;
    {
        int node = rank / (tr * tc), in = rank % (tr * tc), across = C / tc;
        *row = node / across * tr + in / tc;
        *col = node % across * tc + in % tc;
    }
}

static int make_grid(MPI_Comm comm, bench_case_t *c)
{
    int p, rank, dims[2] = {0, 0}, row, col;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    MPI_Dims_create(p, 2, dims);
    place(rank, dims[0], dims[1], &row, &col);
    if (MPI_Comm_split(comm, row, col, &c->row) != MPI_SUCCESS ||
        MPI_Comm_split(comm, col, row, &c->col) != MPI_SUCCESS)
        return PCOLL_ERR_MPI;
    MPI_Comm_size(c->row, &c->c);
    MPI_Comm_rank(c->row, &c->me);
    return PCOLL_SUCCESS;
}

static void fill(bench_case_t *c)
{
    size_t j, i;
    for (j = 0; j < (size_t)c->c; j++)
        for (i = 0; i < (size_t)c->count; i++)
            c->send[j * c->count + i] = (unsigned char)(c->me * 29 + j * 7 + i * 13 + 3);
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
    (void)pattern; /* regular: uniform only */
    *out = c;
    if (c) {
        c->row = c->col = MPI_COMM_NULL;
        rc = make_grid(comm, c);
    }
    if (rc == PCOLL_SUCCESS) {
        c->count = (int)size;
        c->total = (size_t)c->c * (size_t)size;
        c->send = malloc(c->total + 1);
        c->recv = malloc(c->total + 1);
        c->ref = malloc(c->total + 1);
        rc = c->send && c->recv && c->ref ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
    }
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS)
        return rc;
    fill(c);
    return MPI_Alltoall(c->send, c->count, MPI_BYTE, c->ref, c->count, MPI_BYTE, c->row) ==
                   MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

static long long bytes(const bench_case_t *c) { return (long long)c->total; }

static void poison(bench_case_t *c) { memset(c->recv, 0xA5, c->total); }

static int check(const bench_case_t *c) { return memcmp(c->recv, c->ref, c->total) == 0; }

static int run_native(bench_case_t *c)
{
    return MPI_Alltoall(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->row);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    return MPI_Alltoall_init(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->row,
                             MPI_INFO_NULL, req);
}
#endif

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoall_multi_init(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE,
                                     c->row, c->col, info, plan);
}

/* There is no one-shot multiple all-to-all. */
static int run_oneshot(bench_case_t *c)
{
    (void)c;
    return PCOLL_ERR_UNSUPPORTED;
}

const bench_coll_t bench_coll_alltoall_multi = {
    .name = "alltoall_multi",
    .native = "MPI_Alltoall(rows)",
    .native_init = "MPI_Alltoall_init(rows)",
    .env_algorithm = "PCOLL_ALLTOALL_MULTI_ALGORITHM",
    .patterns = 0,
    .mpich_algorithms = "brucks,k_brucks,pairwise,scattered",
    .ompi_algorithms = "1|linear, 2|pairwise, 3|modified_bruck, 4|linear_sync, 5|two_proc",
    .setup = setup,
    .bytes = bytes,
    .poison = poison,
    .check = check,
    .run_native = run_native,
#if BENCH_HAVE_MPI_PERSISTENT
    .native_persistent = native_persistent,
#endif
    .plan_init = plan_init,
    .run_oneshot = run_oneshot,
    .teardown = teardown,
};
