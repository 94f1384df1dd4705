/* Flattened type maps: lists of blocks of one basic type (see blocks.c). */
#ifndef PCOLL_DATATYPE_BLOCKS_H
#define PCOLL_DATATYPE_BLOCKS_H

#include "datatype/contents.h"
#include "pcoll.h"

/* At most this many blocks in one flattened type map (32 bytes each): a type
 * map with more is refused with PCOLL_ERR_UNSUPPORTED. */
#define PCOLL__BLOCKS_MAX (1L << 22)

/* len items of the predefined type, item k at byte disp + k * ext. */
typedef struct pcoll__block {
    MPI_Aint disp;
    MPI_Aint ext;
    long long len;
    MPI_Datatype type;
} pcoll__block_t;

/* A type map as blocks in type map order; a block that continues the
 * previous one (same type, next address) is merged into it.  Zero-initialise;
 * pcoll__blocks_free releases it. */
typedef struct pcoll__blocks {
    pcoll__block_t *b;
    long n, cap;
} pcoll__blocks_t;

/* Whether two blocks have the same basic type and length. */
static inline int pcoll__block_like(const pcoll__block_t *x, const pcoll__block_t *y)
{
    return x->type == y->type && x->len == y->len;
}

/* Append one block (merged into the last one when it continues it). */
int pcoll__blocks_push(pcoll__blocks_t *l, MPI_Aint disp, MPI_Aint ext, long long len,
                       MPI_Datatype type);
/* Append reps consecutive items of a type whose type map is unit and whose
 * extent is unit_ext, the first at byte disp. */
int pcoll__blocks_place(pcoll__blocks_t *out, const pcoll__blocks_t *unit, MPI_Aint unit_ext,
                        MPI_Aint disp, long long reps);
void pcoll__blocks_free(pcoll__blocks_t *l);

/* The type map of one item of type, flattened (flatten.c).  Every combiner is
 * decoded; time and memory are linear in the type map's size. */
int pcoll__flatten(MPI_Datatype type, pcoll__blocks_t *out);
/* The items of the oldtype (type map child, extent ext) that a subarray or
 * darray with contents c selects, appended to out (flatten_array.c). */
int pcoll__flatten_array(const pcoll__contents_t *c, const pcoll__blocks_t *child,
                         MPI_Aint ext, pcoll__blocks_t *out);

#endif
