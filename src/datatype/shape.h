/* Type normalization: descriptions of a flattened type map (see shape.c). */
#ifndef PCOLL_DATATYPE_SHAPE_H
#define PCOLL_DATATYPE_SHAPE_H

#include "datatype/blocks.h"

typedef enum pcoll__shape_kind {
    PCOLL__SHAPE_BLOCK,  /* one block: the predefined type or a contiguous type */
    PCOLL__SHAPE_VECTOR, /* count blocks of equal length and type, stride bytes apart */
    PCOLL__SHAPE_REPEAT, /* count copies of parts[0], stride bytes apart (hvector) */
    PCOLL__SHAPE_STRUCT, /* the parts side by side (struct) */
    PCOLL__SHAPE_FLAT    /* every block listed: indexed_block, indexed or struct */
} pcoll__shape_kind_t;

/* A description of the blocks [a, b) of a list, displacements relative to
 * block a's.  penalty is what pcoll_type_penalty will say of the type that
 * pcoll__shape_build makes of it. */
typedef struct pcoll__shape {
    pcoll__shape_kind_t kind;
    long a, b;
    long long count;
    MPI_Aint stride;
    struct pcoll__shape **parts;
    int nparts;
    long penalty;
} pcoll__shape_t;

/* The smallest p in [1, (b-a)/2] such that blocks [a, b) are copies of
 * blocks [a, a+p), each shifted by the same distance from the one before,
 * the last copy possibly cut short; 0 when there is none (period.c).
 * Linear time (Knuth-Morris-Pratt on the blocks' differences). */
int pcoll__blocks_period(const pcoll__blocks_t *l, long a, long b, long *period);

/* The cheapest description of blocks [a, b) (b > a) that pcoll finds. */
int pcoll__shape_plan(const pcoll__blocks_t *l, long a, long b, pcoll__shape_t **out);
/* NULL-safe. */
void pcoll__shape_free(pcoll__shape_t *s);
/* Whether the type made of s holds its displacements itself (struct,
 * indexed), so that it can be placed anywhere at no cost. */
int pcoll__shape_explicit(const pcoll__shape_t *s);
/* The datatype (uncommitted; predefined for a one-item block) of s, its
 * type map shifted so that block a sits at byte shift; shift must be 0
 * unless pcoll__shape_explicit(s) (materialize.c). */
int pcoll__shape_build(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Aint shift,
                       MPI_Datatype *out);

#endif
