/*
 * Bounded vector (zero-copy Bruck paper, section 3.1 and Fig. 2): blocks of
 * blocklength items every stride items from item 0, covering the items with
 * index < bound, the last block cut at bound; extent bound items.  Items of
 * oldtype sit at multiples of its extent, as in MPI_Type_contiguous, and the
 * new type's lower bound is oldtype's.
 *
 * Built from MPI constructors as the paper's alternative c): a vector of the
 * full blocks followed by a contiguous tail, joined by a struct and resized.
 * Degenerate cases collapse: bound == 0 or blocklength == 0 -> an empty
 * contiguous(0) resized to bound items; blocklength == stride or a single
 * block -> contiguous; no partial tail -> a plain vector resized; a vector of
 * one block -> contiguous.
 *
 * The same strided pattern with a phase (the first item sits `phase` items
 * into the pattern, possibly inside a block or a gap) is the building block
 * of the circular vector: pcoll__pieces_pattern adds it as up to three
 * pieces: a partial head block, the full blocks, a partial tail block.
 */
#include "base/status.h"
#include "datatype/build.h"

int pcoll__pieces_pattern(pcoll__pieces_t *p, MPI_Aint disp, int len, int phase,
                          int blocklength, int stride, MPI_Datatype old)
{
    MPI_Aint lb, extent;
    int ph, first = 0, rest, nfull, tail, rc;

    if (len == 0 || blocklength == 0)
        return PCOLL_SUCCESS;
    if (blocklength == stride)
        return pcoll__pieces_contig(p, disp, len, old);
    if (MPI_Type_get_extent(old, &lb, &extent) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "datatype: MPI_Type_get_extent failed");
    /* A pattern entered mid-period: the rest of the current block, if any,
     * is the head; the first whole block starts at the next period. */
    ph = phase % stride;
    if (ph != 0) {
        int head = blocklength - ph < len ? blocklength - ph : len;
        rc = ph < blocklength ? pcoll__pieces_contig(p, disp, head, old) : PCOLL_SUCCESS;
        if (rc != PCOLL_SUCCESS)
            return rc;
        first = stride - ph;
        if (first >= len)
            return PCOLL_SUCCESS;
    }
    /* Whole periods from `first`: full blocks, then a block cut by len. */
    rest = len - first;
    nfull = rest / stride + (rest % stride >= blocklength);
    tail = rest % stride < blocklength ? rest % stride : 0;
    rc = pcoll__pieces_vector(p, disp + first * extent, nfull, blocklength, stride, old);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__pieces_contig(p, disp + (first + (MPI_Aint)nfull * stride) * extent, tail,
                                  old);
    return rc;
}

int pcoll__check_pattern(const char *fn, int bound, int blocklength, int stride)
{
    if (bound < 0 || blocklength < 0 || stride < 0)
        return pcoll__error(PCOLL_ERR_ARG,
                            "%s: negative bound/blocklength/stride (%d, %d, %d)", fn, bound,
                            blocklength, stride);
    if (blocklength > stride)
        return pcoll__error(PCOLL_ERR_ARG, "%s: blocklength %d > stride %d", fn,
                            blocklength, stride);
    if (stride == 0 && bound > 0)
        return pcoll__error(PCOLL_ERR_ARG, "%s: stride 0 with bound %d", fn, bound);
    return PCOLL_SUCCESS;
}

int pcoll_type_create_bounded_vector(int bound, int blocklength, int stride,
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "pcoll_type_create_bounded_vector";
    pcoll__pieces_t p = {0};
    MPI_Aint lb, extent;
    int rc = pcoll__type_check_args(fn, oldtype, newtype);

    if (rc == PCOLL_SUCCESS)
        rc = pcoll__check_pattern(fn, bound, blocklength, stride);
    if (rc != PCOLL_SUCCESS)
        return rc;
    PCOLL_CHECK_MPI(MPI_Type_get_extent(oldtype, &lb, &extent), rc, fail);
    PCOLL_CHECK(pcoll__pieces_pattern(&p, 0, bound, 0, blocklength, stride, oldtype), rc,
                fail);
    return pcoll__pieces_finish(&p, oldtype, lb, bound * extent, newtype);
fail:
    pcoll__pieces_free(&p);
    return rc;
}
