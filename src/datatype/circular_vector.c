/*
 * Circular vector (zero-copy Bruck paper, section 3.2 and Fig. 2): the
 * bounded-vector pattern laid on a ring of `total` items.  Logical index j in
 * [0, bound) is physical item (start + j) mod total and is selected when
 * (j mod stride) < blocklength; the type map lists the selected items in
 * increasing j (ring order from `start`).  Extent: total items, lower bound
 * oldtype's, so consecutive items of the type tile whole rings.  Modified
 * Bruck uses total = p*n, start = (rank+k)*n, bound = (p-k)*n,
 * blocklength = k*n, stride = 2k*n.
 *
 * Built as at most two strided runs (pcoll__pieces_pattern, each up to a head
 * block, a vector of full blocks and a tail block): the items before the wrap,
 * [start, min(start+bound, total)), with phase 0, then the items after it,
 * from physical item 0, with the pattern's phase continued across the wrap
 * (they may begin inside a block or a gap).  All pieces are joined by one
 * struct, before-wrap pieces first, and resized to total items.  Without a
 * wrap there is one run; the collapses of the bounded vector apply to each
 * run (no items -> empty type, one contiguous run at 0 -> contiguous).
 */
#include "base/status.h"
#include "datatype/build.h"

/* PCOLL_ERR_ARG unless the ring parameters make sense. */
static int check_ring(const char *fn, int total, int start, int bound, int blocklength,
                      int stride)
{
    if (total < 0 || start < 0 || bound < 0 || blocklength < 0 || stride < 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: negative argument (%d, %d, %d, %d, %d)",
                            fn, total, start, bound, blocklength, stride);
    if (total > 0 ? start >= total : start > 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: start %d outside a ring of %d items", fn,
                            start, total);
    if (bound > total)
        return pcoll__error(PCOLL_ERR_ARG, "%s: bound %d > total %d", fn, bound, total);
    return pcoll__check_pattern(fn, bound, blocklength, stride);
}

int pcoll_type_create_circular_vector(int total, int start, int bound, int blocklength,
                                      int stride, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    static const char fn[] = "pcoll_type_create_circular_vector";
    pcoll__pieces_t p = {0};
    MPI_Aint lb, extent;
    int before, rc = pcoll__type_check_args(fn, oldtype, newtype);

    if (rc == PCOLL_SUCCESS)
        rc = check_ring(fn, total, start, bound, blocklength, stride);
    if (rc != PCOLL_SUCCESS)
        return rc;
    PCOLL_CHECK_MPI(MPI_Type_get_extent(oldtype, &lb, &extent), rc, fail);
    /* The part of the ring before the wrap, then the part after it. */
    before = bound < total - start ? bound : total - start;
    PCOLL_CHECK(pcoll__pieces_pattern(&p, start * extent, before, 0, blocklength, stride,
                                      oldtype),
                rc, fail);
    PCOLL_CHECK(pcoll__pieces_pattern(&p, 0, bound - before, before, blocklength, stride,
                                      oldtype),
                rc, fail);
    return pcoll__pieces_finish(&p, oldtype, lb, total * extent, newtype);
fail:
    pcoll__pieces_free(&p);
    return rc;
}
