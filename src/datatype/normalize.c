/*
 * Type normalization (datatype performance guidelines paper, section 4):
 * the same type map, lower bound and extent, described by the constructor
 * tree with the lowest penalty (penalty.c) that pcoll finds.
 *
 * 1. Flatten (flatten.c): decode the type with MPI_Type_get_envelope /
 *    MPI_Type_get_contents (every combiner) into blocks of one basic type in
 *    type map order, merging a block into the one before when it continues
 *    it.  A contiguous range is then one block however it was described.
 * 2. Plan (shape.c, period.c): find the cheapest of these descriptions,
 *    recursively:
 *    - one block: the basic type or a contiguous type;
 *    - blocks of one length at a constant distance: a vector (hvector when
 *      the distance is no multiple of the extent; negative distances too);
 *    - copies of a unit at a constant distance, the unit planned the same
 *      way: two-level (and deeper) vectors as in Benchmark 3a, arrays of
 *      structs, subarrays; the last copy may be cut short;
 *    - the same after one head block and/or before one tail block: vector
 *      runs with head and tail blocks as in Benchmark 3b;
 *    - a struct of maximal vector runs;
 *    - indexed_block (equal lengths), indexed (one basic type), struct
 *      (mixed basic types) listing every block.
 * 3. Build the MPI type (materialize.c), place it at the first block's
 *    displacement, resize it to the original lower bound and extent.  When
 *    the result is no cheaper than the original, a dup of the original is
 *    returned instead, so normalization never raises the penalty.
 *
 * Cost: linear in the number of blocks of the type map (the flattened,
 * merged list; at most PCOLL__BLOCKS_MAX), plus the MPI constructors.
 * Not found: layouts whose best description needs irregular displacements
 * of a repeated unit (indexed_block of vectors) or several nested
 * irregular levels; such types are kept as the user wrote them when that is
 * cheaper.  Finding the minimal-penalty description in general is
 * conjectured to be NP-hard (the paper, Definition 1), so pcoll does not try.
 */
#include "base/status.h"
#include "datatype/build.h"
#include "datatype/shape.h"

/* Place t (whose type map starts at 0) so that it starts at disp; a lone
 * predefined type becomes a new handle (a dup). */
static int place(MPI_Datatype *t, MPI_Aint disp)
{
    MPI_Datatype placed;
    int rc = PCOLL_SUCCESS;
    if (disp != 0)
        PCOLL_CHECK_MPI(MPI_Type_create_hindexed_block(1, 1, &disp, *t, &placed), rc, fail);
    else if (pcoll__type_predefined(*t))
        PCOLL_CHECK_MPI(MPI_Type_dup(*t, &placed), rc, fail);
    else
        return PCOLL_SUCCESS;
    pcoll__type_release(t);
    *t = placed;
    return PCOLL_SUCCESS;
fail:
    pcoll__type_release(t);
    return rc;
}

/* The planned type of a non-empty block list, at the right displacements. */
static int build_planned(const pcoll__blocks_t *l, MPI_Datatype *out)
{
    pcoll__shape_t *s = NULL;
    MPI_Aint first = l->b[0].disp;
    int rc = pcoll__shape_plan(l, 0, l->n, &s);
    if (rc == PCOLL_SUCCESS && pcoll__shape_explicit(s))
        rc = pcoll__shape_build(l, s, first, out);
    else if (rc == PCOLL_SUCCESS && (rc = pcoll__shape_build(l, s, 0, out)) == PCOLL_SUCCESS)
        rc = place(out, first);
    pcoll__shape_free(s);
    return rc;
}

/* The normalized type of type, whatever its penalty. */
static int rebuild(MPI_Datatype type, MPI_Datatype *out)
{
    pcoll__blocks_t l = {0};
    MPI_Aint lb, extent;
    int rc = PCOLL_SUCCESS;
    PCOLL_CHECK_MPI(MPI_Type_get_extent(type, &lb, &extent), rc, done);
    PCOLL_CHECK(pcoll__flatten(type, &l), rc, done);
    if (l.n == 0)
        PCOLL_CHECK_MPI(MPI_Type_contiguous(0, MPI_BYTE, out), rc, done);
    else
        PCOLL_CHECK(build_planned(&l, out), rc, done);
    rc = pcoll__type_resize(out, lb, extent);
done:
    pcoll__blocks_free(&l);
    return rc;
}

int pcoll_type_normalize(MPI_Datatype type, MPI_Datatype *newtype)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    long before, after;
    int rc = pcoll__type_check_args("pcoll_type_normalize", type, newtype);
    if (rc != PCOLL_SUCCESS)
        return rc;
    PCOLL_CHECK(pcoll_type_penalty(type, &before), rc, done);
    PCOLL_CHECK(rebuild(type, &t), rc, done);
    PCOLL_CHECK(pcoll_type_penalty(t, &after), rc, done);
    if (after < before) {
        *newtype = t;
        return PCOLL_SUCCESS;
    }
    PCOLL_CHECK_MPI(MPI_Type_dup(type, newtype), rc, done);
done:
    pcoll__type_release(&t);
    return rc;
}
