/*
 * pcoll_alltoall_multi_init: the multiple all-to-all of pencil FFTs (an
 * alltoall inside every row communicator, all at once; the engine is
 * src/hier/hier_multi.c), through the entry path.  Its descriptor opens the
 * communicator to plan on: the union of the rows, ordered row by row (rows
 * sorted by their smallest MPI_COMM_WORLD rank, ranks by their row rank).
 *
 * Requirements (checked where a rank can see them): comm_column holds one
 * rank of every row (the columns of a 2-D grid, e.g. from MPI_Cart_sub), all
 * rows have the same size, and every rank is in MPI_COMM_WORLD's group (the
 * union is made with MPI_Comm_create_group on it).  comm_column may be
 * MPI_COMM_NULL: then the plan is alltoall `hier` on comm_row.
 */
#include <stddef.h>
#include <string.h>

#include "api/api.h"
#include "api/entry.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "base/pmpi.h"
#include "hier/hier.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__multi_args_t) <= PCOLL__ARGS_MAX, "multi arguments");

#define UNION_TAG 0x6d61 /* MPI_Comm_create_group's tag for the union */

/* The public call's arguments. */
typedef struct raw {
    pcoll__a2a_raw_t blocks;
    MPI_Comm row, col;
} raw_t;

/* ---- the union of the rows -------------------------------------------------- */

/* This row's MPI_COMM_WORLD ranks in row order. */
static int row_world_ranks(MPI_Comm row, int ncols, int *out)
{
    MPI_Group g, world;
    int i, rc = PCOLL_SUCCESS, *ranks = pcoll__malloc(sizeof(int) * (size_t)ncols);
    if (!ranks)
        return pcoll__error(PCOLL_ERR_NOMEM, "multi: row ranks");
    for (i = 0; i < ncols; i++)
        ranks[i] = i;
    MPI_Comm_group(row, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (MPI_Group_translate_ranks(g, ncols, ranks, world, out) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "multi: MPI_Group_translate_ranks failed");
    for (i = 0; i < ncols && rc == PCOLL_SUCCESS; i++)
        if (out[i] == MPI_UNDEFINED)
            rc = pcoll__error(PCOLL_ERR_ARG, "multi: a rank is not in MPI_COMM_WORLD");
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
        return pcoll__error(PCOLL_ERR_NOMEM, "multi: row order");
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
                return pcoll__error(PCOLL_ERR_ARG,
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
        return pcoll__error(PCOLL_ERR_NOMEM, "multi: grid list");
    }
    rc = row_world_ranks(row, ncols, mine);
    if (PCOLL__MPI(Allgather)(mine, ncols, MPI_INT, *list, ncols, MPI_INT, col) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "multi: MPI_Allgather failed");
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
        if (PCOLL__MPI(Comm_create_group)(MPI_COMM_WORLD, g, UNION_TAG, out) != MPI_SUCCESS)
            rc = pcoll__error(PCOLL_ERR_MPI, "multi: MPI_Comm_create_group failed");
        MPI_Group_free(&g);
        MPI_Group_free(&world);
    }
    pcoll__free(list);
    return rc;
}

/* ---- the descriptor ------------------------------------------------------------ */

static pcoll__multi_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__multi_args_t *)(void *)c->args;
}

/* Local checks: the blocks and the column communicator. */
static int multi_check(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    pcoll__multi_args_t *m = args_of(c);
    int rc = pcoll__alltoall_check(&r->blocks, 0, c->fn, &m->a);
    MPI_Comm_size(r->row, &m->ncols);
    c->inplace = m->a.inplace;
    c->empty = m->a.blockbytes == 0;
    if (rc == PCOLL_SUCCESS && r->col != MPI_COMM_NULL)
        rc = pcoll__check_comm(r->col, 0, c->fn);
    return rc;
}

/* Plan on the union of the rows (every rank's verdict combined). */
static int multi_open_union(pcoll__call_t *c, int local)
{
    const raw_t *r = c->raw;
    return make_union(r->row, r->col, local, &c->comm);
}

static void multi_close_union(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    if (c->comm != r->row)
        MPI_Comm_free(&c->comm);
}

static int multi_agree(pcoll__call_t *c, int local)
{
    static const char *const what[] = {"the block size in bytes", "MPI_IN_PLACE use"};
    const pcoll__multi_args_t *m = args_of(c);
    long long vals[2] = {m->a.blockbytes, m->a.inplace};
    return pcoll__agree(c->ctx->dup, local, vals, what, 2, c->fn);
}

static int multi_choose(pcoll__call_t *c)
{
    (void)c;
    return pcoll__select_alltoall_multi();
}

static int multi_prepare(pcoll__call_t *c, pcoll_plan_t *plan)
{
    return pcoll__alltoall_keep_types(plan, &args_of(c)->a);
}

static const pcoll__coll_t alltoall_multi = {
    .name = "alltoall_multi",
    .table = &pcoll__alltoall_multi_table,
    .opts_offset = offsetof(pcoll__multi_args_t, a.opts),
    .check = multi_check,
    .open = multi_open_union,
    .close = multi_close_union,
    .agree = multi_agree,
    .choose = multi_choose,
    .prepare = multi_prepare,
};

int pcoll_alltoall_multi_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm_row, MPI_Comm comm_column, MPI_Info info,
                              pcoll_plan_t **plan)
{
    raw_t r = {.blocks = {.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                          .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype},
               .row = comm_row,
               .col = comm_column};
    return pcoll__entry(&alltoall_multi, PCOLL__PERSISTENT, "pcoll_alltoall_multi_init", &r,
                        comm_row, info, plan);
}
