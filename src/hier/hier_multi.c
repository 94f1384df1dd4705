/*
 * The multiple all-to-all of pencil FFTs (multicore paper, section II-C): an
 * alltoall inside every row communicator, all at once, with the messages of
 * the rows that share a node merged.  The entry (src/api/alltoall_multi.c)
 * makes the union of the rows one communicator, ordered row by row; the
 * engine (hier.c) runs on it with the pairs of one row as the only non-empty
 * ones: the bundle from node A to node D holds, for every row, the blocks
 * its ranks on A send to its ranks on D.
 *
 * Memory per node: the paper's equation (2), n c_row^2 c_col N (c_row ranks of
 * a row and c_col rows per node, N nodes spanned by a row) for W, as much for
 * R with one step.  Rows and nodes need not align: a node holding parts of
 * rows in any pattern only changes the bundles' sizes (packed tight with one
 * step, padded to the largest with several), so no per-row fallback is
 * needed.  Cost: that of alltoall `hier` on the union with bundles of the
 * merged size.  In place: as alltoall `hier`.
 */
#include "hier/hier.h"

/* Ranks of the union: row-major, ncols ranks per row. */
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

int pcoll__alltoall_multi_hier(pcoll_plan_t *plan, const void *args)
{
    const pcoll__multi_args_t *m = args;
    pcoll__hier_args_t h = {
        .a = &m->a, .bytes = same_row, .block = row_block, .data = &m->ncols};
    int rc = pcoll__hier_nodes(plan->ctx, &m->a.opts, &h.node);
    return rc == PCOLL_SUCCESS ? pcoll__hier_build(plan, &h) : rc;
}
