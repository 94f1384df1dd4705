/*
 * The penalty of a datatype's constructor tree (datatype performance
 * guidelines paper, section 2): a measure of how much a library must read
 * just to parse the type map.  Each constructor over n blocks carries
 * 0 (contiguous, vector), n (indexed_block), 2n (indexed) or 3n (struct)
 * parameters per block plus O(1); the penalty is multiplied through nesting
 * and summed over struct members.  pcoll's exact formula (P(T) of a type T):
 *
 *   predefined types (named, pair, Fortran 90)       P = 1
 *   dup(T)                                           P = P(T)
 *   contiguous, vector, hvector, resized over T      P = 1 + P(T)
 *   subarray, darray over T (d dimensions)           P = d + P(T)
 *   indexed_block, hindexed_block (n blocks) over T  P = 1 + n P(T)
 *   indexed, hindexed (n blocks) over T              P = 1 + 2n P(T)
 *   struct (n blocks) over T_0 .. T_n-1              P = 1 + 3 sum_i P(T_i)
 *
 * so a basic type costs 1, a vector of doubles 2, a two-level vector 3, an
 * indexed type of n doubles 1 + 2n.  Values saturate at LONG_MAX.  Every
 * level is decoded with MPI_Type_get_envelope / MPI_Type_get_contents, so
 * the time is linear in the size of the description (not of the type map).
 */
#include <limits.h>

#include "base/status.h"
#include "datatype/contents.h"

/* a + b and a * b, saturating at LONG_MAX (both non-negative). */
static long sat_add(long a, long b)
{
    return a > LONG_MAX - b ? LONG_MAX : a + b;
}

static long sat_mul(long a, long b)
{
    return a != 0 && b > LONG_MAX / a ? LONG_MAX : a * b;
}

static int penalty_of(MPI_Datatype type, long *pen);

/* 1 + 3 * the sum over the members of a struct (members of one type in a
 * row are decoded once). */
static int struct_penalty(const pcoll__contents_t *c, long *pen)
{
    long sum = 0, member = 0;
    int rc = PCOLL_SUCCESS;
    for (int i = 0; i < c->ints[0] && rc == PCOLL_SUCCESS; i++) {
        if (i == 0 || c->types[i] != c->types[i - 1])
            rc = penalty_of(c->types[i], &member);
        sum = sat_add(sum, member);
    }
    *pen = sat_add(1, sat_mul(3, sum));
    return rc;
}

/* The O(1) part and the per-block factor of a constructor over one type. */
static int single_weights(const pcoll__contents_t *c, long *constant, long *factor)
{
    *constant = 1;
    *factor = 1;
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
        *constant = 0;
        return PCOLL_SUCCESS;
    case MPI_COMBINER_CONTIGUOUS: case MPI_COMBINER_VECTOR: case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_RESIZED:
        return PCOLL_SUCCESS;
    case MPI_COMBINER_SUBARRAY:
        *constant = c->ints[0];
        return PCOLL_SUCCESS;
    case MPI_COMBINER_DARRAY:
        *constant = c->ints[2];
        return PCOLL_SUCCESS;
    case MPI_COMBINER_INDEXED_BLOCK: case MPI_COMBINER_HINDEXED_BLOCK:
        *factor = c->ints[0];
        return PCOLL_SUCCESS;
    case MPI_COMBINER_INDEXED: case MPI_COMBINER_HINDEXED:
        *factor = 2L * c->ints[0];
        return PCOLL_SUCCESS;
    default:
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "pcoll_type_penalty: combiner %d",
                            c->combiner);
    }
}

/* constant + factor * P(oldtype) for a constructor over one type. */
static int single_penalty(const pcoll__contents_t *c, long *pen)
{
    long constant, factor, inner;
    int rc = single_weights(c, &constant, &factor);
    if (rc == PCOLL_SUCCESS)
        rc = penalty_of(c->types[0], &inner);
    if (rc == PCOLL_SUCCESS)
        *pen = sat_add(constant, sat_mul(factor, inner));
    return rc;
}

static int penalty_of(MPI_Datatype type, long *pen)
{
    pcoll__contents_t c = {0};
    int rc = pcoll__contents_get(type, "pcoll_type_penalty", &c);
    *pen = 1;
    if (rc == PCOLL_SUCCESS && !pcoll__combiner_predefined(c.combiner))
        rc = c.combiner == MPI_COMBINER_STRUCT ? struct_penalty(&c, pen)
                                               : single_penalty(&c, pen);
    pcoll__contents_free(&c);
    return rc;
}

int pcoll_type_penalty(MPI_Datatype type, long *penalty)
{
    if (!penalty)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_type_penalty: penalty is NULL");
    *penalty = 0;
    if (type == MPI_DATATYPE_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_type_penalty: MPI_DATATYPE_NULL");
    return penalty_of(type, penalty);
}
