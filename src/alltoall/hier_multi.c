/*
 * pcoll_alltoall_multi_init: the multiple all-to-all of pencil FFTs
 * (multicore paper, section II-C): an alltoall inside every row
 * communicator, all at once, with the messages of the rows that share a node
 * merged.  The union of the rows becomes one communicator, ordered row by
 * row (rows sorted by their smallest MPI_COMM_WORLD rank, ranks by their row
 * rank), and the node-aware engine (hier.c) runs on it with the pairs of one
 * row as the only non-empty ones: the bundle from node A to node D holds,
 * for every row, the blocks its ranks on A send to its ranks on D.
 *
 * Memory per node: the paper's equation (2), n c_row^2 c_col N (c_row ranks of
 * a row and c_col rows per node, N nodes spanned by a row) for W, as much for
 * R with one step.  Rows and nodes need not align: a node holding parts of
 * rows in any pattern only changes the bundles' sizes (packed tight with one
 * step, padded to the largest with several), so no per-row fallback is
 * needed.  Cost: that of alltoall `hier` on the union with bundles of the
 * merged size.
 *
 * Requirements (checked where a rank can see them): comm_column holds one
 * rank of every row (the columns of a 2-D grid, e.g. from MPI_Cart_sub), all
 * rows have the same size, and every rank is in MPI_COMM_WORLD's group (the
 * union is made with MPI_Comm_create_group on it).  comm_column may be
 * MPI_COMM_NULL: then the plan is alltoall `hier` on comm_row.
 */
#include <stdlib.h>
#include <string.h>

#include "alltoall/hier.h"
#include "core/check.h"
#include "core/mem.h"
#include "core/status.h"

#define UNION_TAG 0x6d61 /* MPI_Comm_create_group's tag for the union */

static const pcoll__algo_t algos[] = {
    {"hier", "node-aware: the blocks of every row between two nodes in one message",
     NULL},
    {"auto", "hier", NULL},
};

const pcoll__algo_table_t pcoll__alltoall_multi_table = {
    "alltoall_multi", "PCOLL_ALLTOALL_MULTI_ALGORITHM", algos,
    (int)(sizeof algos / sizeof *algos)};

/* ---- the union of the rows -------------------------------------------------- */

/* This row's MPI_COMM_WORLD ranks in row order. */
static int row_world_ranks(MPI_Comm row, int ncols, int *out)
{
    MPI_Group g, world;
    int i, rc = PCOLL_SUCCESS, *ranks = pcoll__malloc(sizeof(int) * (size_t)ncols);
    if (!ranks)
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "multi: row ranks");
    for (i = 0; i < ncols; i++)
        ranks[i] = i;
    MPI_Comm_group(row, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (MPI_Group_translate_ranks(g, ncols, ranks, world, out) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, 1, "multi: MPI_Group_translate_ranks failed");
    for (i = 0; i < ncols && rc == PCOLL_SUCCESS; i++)
        if (out[i] == MPI_UNDEFINED)
            rc = pcoll__error(PCOLL_ERR_ARG, 1, "multi: a rank is not in MPI_COMM_WORLD");
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    pcoll__free(ranks);
    return rc;
}

/* Sort rows (ncols ranks each) by their smallest rank; PCOLL_ERR_ARG if a
 * rank appears twice (comm_column held two ranks of one row). */
static int canonical_order(int *list, int nrows, int ncols)
{
    int i, j, k, n = nrows * ncols;
    int *tmp = pcoll__malloc(sizeof(int) * (size_t)ncols);
    if (!tmp)
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "multi: row order");
    for (i = 1; i < nrows; i++) /* insertion sort by each row's smallest rank */
        for (j = i; j > 0; j--) {
            int a = list[(j - 1) * ncols], b = list[j * ncols];
            for (k = 1; k < ncols; k++) {
                a = list[(j - 1) * ncols + k] < a ? list[(j - 1) * ncols + k] : a;
                b = list[j * ncols + k] < b ? list[j * ncols + k] : b;
            }
            if (a <= b)
                break;
            memcpy(tmp, list + (j - 1) * ncols, sizeof(int) * (size_t)ncols);
            memcpy(list + (j - 1) * ncols, list + j * ncols, sizeof(int) * (size_t)ncols);
            memcpy(list + j * ncols, tmp, sizeof(int) * (size_t)ncols);
        }
    pcoll__free(tmp);
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (list[i] == list[j])
                return pcoll__error(PCOLL_ERR_ARG, 1,
                                    "multi: comm_column holds two ranks of one row");
    return PCOLL_SUCCESS;
}

/* Every row's world ranks (gathered over the column) in canonical order. */
static int grid_list(MPI_Comm row, MPI_Comm col, int ncols, int nrows, int **list)
{
    int *mine = pcoll__malloc(sizeof(int) * (size_t)ncols), rc;
    *list = pcoll__malloc(sizeof(int) * (size_t)ncols * (size_t)nrows);
    if (!mine || !*list) {
        pcoll__free(mine);
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "multi: grid list");
    }
    rc = row_world_ranks(row, ncols, mine);
    if (MPI_Allgather(mine, ncols, MPI_INT, *list, ncols, MPI_INT, col) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, 1, "multi: MPI_Allgather failed");
    pcoll__free(mine);
    return rc == PCOLL_SUCCESS ? canonical_order(*list, nrows, ncols) : rc;
}

/* The verdict of every rank of the grid: over the column, then the row. */
static int grid_agree(MPI_Comm row, MPI_Comm col, int rc, long long ncols)
{
    static const char *const what[] = {"the size of comm_row"};
    rc = pcoll__agree(col, rc, &ncols, what, 1, "pcoll_alltoall_multi_init");
    return pcoll__agree(row, rc, NULL, NULL, 0, "pcoll_alltoall_multi_init");
}

/* The union communicator (comm_row itself without a column). */
static int make_union(MPI_Comm row, MPI_Comm col, int local, MPI_Comm *out)
{
    MPI_Group world, g;
    int ncols, nrows, *list = NULL, rc = local;
    *out = row;
    if (col == MPI_COMM_NULL)
        return pcoll__agree(row, local, NULL, NULL, 0, "pcoll_alltoall_multi_init");
    MPI_Comm_size(row, &ncols);
    MPI_Comm_size(col, &nrows);
    /* Equal row sizes first: the allgather below depends on them. */
    if ((rc = grid_agree(row, col, rc, ncols)) != PCOLL_SUCCESS)
        return rc;
    rc = grid_list(row, col, ncols, nrows, &list);
    if ((rc = grid_agree(row, col, rc, ncols)) == PCOLL_SUCCESS) {
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, nrows * ncols, list, &g);
        if (MPI_Comm_create_group(MPI_COMM_WORLD, g, UNION_TAG, out) != MPI_SUCCESS)
            rc = pcoll__error(PCOLL_ERR_MPI, 1, "multi: MPI_Comm_create_group failed");
        MPI_Group_free(&g);
        MPI_Group_free(&world);
    }
    pcoll__free(list);
    return rc;
}

/* ---- the plan -------------------------------------------------------------------- */

/* Ranks of the union: row-major, data[0] ranks per row. */
static long long same_row(const pcoll__hier_args_t *h, int s, int d)
{
    int ncols = *(const int *)h->data;
    return s / ncols == d / ncols ? h->a->blockbytes : 0;
}

static int row_block(const pcoll__hier_args_t *h, int x)
{
    int ncols = *(const int *)h->data;
    return x % ncols;
}

static int build(pcoll__ctx_t *ctx, pcoll__a2a_args_t *a, int ncols, pcoll_plan_t **out)
{
    pcoll__hier_args_t h = {.a = a, .bytes = same_row, .block = row_block, .data = &ncols};
    pcoll_plan_t *plan = NULL;
    int rc;
    PCOLL_CHECK(pcoll__plan_create(ctx, "alltoall_multi", pcoll__ctx_tag(ctx), &plan), rc, fail);
    plan->algorithm = "hier";
    plan->no_comm = a->opts.no_comm;
    PCOLL_CHECK(pcoll__plan_keep_type(plan, &a->recvtype), rc, fail);
    if (a->inplace)
        a->sendtype = a->recvtype;
    else
        PCOLL_CHECK(pcoll__plan_keep_type(plan, &a->sendtype), rc, fail);
    if (a->blockbytes > 0) {
        PCOLL_CHECK(pcoll__hier_nodes(ctx, &a->opts, &h.node), rc, fail);
        PCOLL_CHECK(pcoll__hier_build(plan, &h), rc, fail);
    }
    PCOLL_CHECK(pcoll__sched_commit(&plan->sched, plan->comm, plan->tag), rc, fail);
    *out = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}

/* Local checks: the plan pointer, the communicators, the arguments, the options. */
static int check_local(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm row, MPI_Comm col,
                       MPI_Info info, pcoll_plan_t **plan, pcoll__a2a_args_t *a)
{
    const char *fn = "pcoll_alltoall_multi_init";
    int rank, rc;
    if (!plan)
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: plan is NULL", fn);
    MPI_Comm_rank(row, &rank);
    PCOLL_CHECK(pcoll__alltoall_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     fn, a), rc, out);
    rc = pcoll__opts_read(info, &pcoll__alltoall_multi_table, rank == 0, &a->opts);
    if (rc == PCOLL_SUCCESS && col != MPI_COMM_NULL)
        rc = pcoll__check_comm(col, fn);
out:
    return rc;
}

int pcoll_alltoall_multi_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm_row, MPI_Comm comm_column, MPI_Info info,
                              pcoll_plan_t **plan)
{
    static const char *const what[] = {"the block size in bytes", "MPI_IN_PLACE use"};
    const char *fn = "pcoll_alltoall_multi_init";
    pcoll__a2a_args_t a;
    pcoll__ctx_t *ctx = NULL;
    MPI_Comm u = MPI_COMM_NULL;
    long long vals[2];
    int rc, ncols;

    memset(&a, 0, sizeof a);
    if (plan)
        *plan = NULL;
    if ((rc = pcoll__check_comm(comm_row, fn)) != PCOLL_SUCCESS)
        return rc;
    MPI_Comm_size(comm_row, &ncols);
    rc = check_local(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_row,
                     comm_column, info, plan, &a);
    if ((rc = make_union(comm_row, comm_column, rc, &u)) != PCOLL_SUCCESS)
        return rc;
    /* The plan keeps the context (and its duplicate) alive without the union. */
    vals[0] = a.blockbytes, vals[1] = a.inplace;
    if ((rc = pcoll__ctx_get(u, &ctx)) == PCOLL_SUCCESS &&
        (rc = pcoll__agree(ctx->dup, rc, vals, what, 2, fn)) == PCOLL_SUCCESS)
        rc = build(ctx, &a, ncols, plan);
    if (u != comm_row)
        MPI_Comm_free(&u);
    return rc;
}
