/*
 * Flattening subarray and darray types: both select, in every dimension, a
 * set of index ranges of a global array of oldtype items, and their type map
 * is the cartesian product of those sets in array order (row-major for
 * MPI_ORDER_C, column-major for MPI_ORDER_FORTRAN).  A subarray has one
 * range per dimension.  A darray's process coordinates are row-major in the
 * process grid whatever the order (MPI standard, section 4.1.4); per
 * dimension, BLOCK owns one range of ceil(g/p) (or darg) indices, CYCLIC(k)
 * every range of k indices whose number is congruent to the coordinate
 * modulo p, NONE the whole dimension.  The innermost dimension's ranges are
 * placed as runs of items; the outer dimensions are walked index by index.
 */
#include "base/mem.h"
#include "base/status.h"
#include "datatype/blocks.h"

/* One dimension in memory order (slowest first): owned index ranges
 * [lo[r], lo[r] + len[r]), the distance of consecutive indices in items,
 * and the walk's position (range r, offset j). */
typedef struct dim {
    long long *lo, *len;
    long n;
    long long stride;
    long r;
    long long j;
} dim_t;

static int dim_alloc(dim_t *d, long n)
{
    d->n = 0;
    d->lo = pcoll__malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *d->lo);
    d->len = d->lo ? d->lo + (n > 0 ? n : 1) : NULL;
    return d->lo ? PCOLL_SUCCESS : pcoll__error(PCOLL_ERR_NOMEM, "flatten: %ld ranges", n);
}

static void dim_add(dim_t *d, long long lo, long long len)
{
    if (len > 0) {
        d->lo[d->n] = lo;
        d->len[d->n++] = len;
    }
}

/* The ranges of a darray dimension of g indices on p processes, coordinate c. */
static int darray_dim(dim_t *d, int distrib, int darg, long long g, int p, int c)
{
    long long k = darg;
    long n;
    int rc;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        k = g;
        p = 1;
        c = 0;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK && darg == MPI_DISTRIBUTE_DFLT_DARG)
        k = (g + p - 1) / p;
    else if (darg == MPI_DISTRIBUTE_DFLT_DARG)
        k = 1;
    n = distrib == MPI_DISTRIBUTE_CYCLIC && k > 0 ? (long)((g + (long long)p * k - 1) / (p * k))
                                                  : 1;
    if ((rc = dim_alloc(d, n)) != PCOLL_SUCCESS)
        return rc;
    for (long long lo = c * k; lo < g; lo += distrib == MPI_DISTRIBUTE_CYCLIC ? p * k : g)
        dim_add(d, lo, (lo + k < g ? k : g - lo));
    return PCOLL_SUCCESS;
}

/* Dimension m's coordinate of this darray's process: row-major in the grid
 * psizes[0..nd) of procs processes. */
static int darray_coord(const int *psizes, int m, int procs, int rank)
{
    for (int e = 0; e <= m; e++)
        procs /= psizes[e];
    return rank / procs % psizes[m];
}

/* Fill dims[] (memory order) from a subarray's or darray's arguments. */
static int dims_fill(const pcoll__contents_t *c, dim_t *dims, int nd)
{
    int darray = c->combiner == MPI_COMBINER_DARRAY, rc = PCOLL_SUCCESS;
    const int *v = c->ints + (darray ? 3 : 1); /* sizes (gsizes) first */
    int order = v[(darray ? 4 : 3) * nd];
    long long stride = 1;
    for (int i = 0; i < nd && rc == PCOLL_SUCCESS; i++) {
        int m = order == MPI_ORDER_C ? nd - 1 - i : i; /* the i-th fastest dimension */
        dim_t *d = &dims[nd - 1 - i];
        d->stride = stride;
        stride *= v[m];
        if (darray)
            rc = darray_dim(d, v[nd + m], v[2 * nd + m], v[m], v[3 * nd + m],
                            darray_coord(v + 3 * nd, m, c->ints[0], c->ints[1]));
        else if ((rc = dim_alloc(d, 1)) == PCOLL_SUCCESS)
            dim_add(d, v[2 * nd + m], v[nd + m]);
    }
    return rc;
}

/* Advance the walk over the outer dimensions; 0 when it is done. */
static int walk_next(dim_t *dims, int nd)
{
    for (int d = nd - 2; d >= 0; d--) {
        if (++dims[d].j < dims[d].len[dims[d].r])
            return 1;
        dims[d].j = 0;
        if (++dims[d].r < dims[d].n)
            return 1;
        dims[d].r = 0;
    }
    return 0;
}

static int walk(dim_t *dims, int nd, const pcoll__blocks_t *child, MPI_Aint ext,
                pcoll__blocks_t *out)
{
    const dim_t *in = &dims[nd - 1];
    int rc = PCOLL_SUCCESS;
    for (int d = 0; d < nd; d++)
        if (dims[d].n == 0)
            return PCOLL_SUCCESS;
    do {
        long long base = 0;
        for (int d = 0; d < nd - 1; d++)
            base += (dims[d].lo[dims[d].r] + dims[d].j) * dims[d].stride;
        for (long r = 0; r < in->n && rc == PCOLL_SUCCESS; r++)
            rc = pcoll__blocks_place(out, child, ext, (MPI_Aint)(base + in->lo[r]) * ext,
                                     in->len[r]);
    } while (rc == PCOLL_SUCCESS && walk_next(dims, nd));
    return rc;
}

int pcoll__flatten_array(const pcoll__contents_t *c, const pcoll__blocks_t *child,
                         MPI_Aint ext, pcoll__blocks_t *out)
{
    int nd = c->combiner == MPI_COMBINER_DARRAY ? c->ints[2] : c->ints[0], rc;
    dim_t *dims = pcoll__calloc((size_t)(nd > 0 ? nd : 1), sizeof *dims);
    if (!dims)
        return pcoll__error(PCOLL_ERR_NOMEM, "flatten: %d dimensions", nd);
    rc = nd > 0 ? dims_fill(c, dims, nd) : PCOLL_SUCCESS;
    if (rc == PCOLL_SUCCESS && nd > 0)
        rc = walk(dims, nd, child, ext, out);
    for (int d = 0; d < nd; d++)
        pcoll__free(dims[d].lo);
    pcoll__free(dims);
    return rc;
}
