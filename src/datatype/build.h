/* Helpers shared by the datatype constructor families (see build.c). */
#ifndef PCOLL_DATATYPE_BUILD_H
#define PCOLL_DATATYPE_BUILD_H

#include "pcoll.h"

/* At most this many pieces: a circular vector is two strided runs of up to
 * three pieces each (head block, full blocks, tail block). */
#define PCOLL__MAX_PIECES 6

/* A type under construction: pieces placed at byte displacements, in type
 * map order.  Zero-initialise; pcoll__pieces_finish or _free releases it. */
typedef struct pcoll__pieces {
    int n;
    MPI_Datatype types[PCOLL__MAX_PIECES];
    MPI_Aint disps[PCOLL__MAX_PIECES];
} pcoll__pieces_t;

/* Append a piece (ownership passes to p; freed on failure). */
int pcoll__pieces_add(pcoll__pieces_t *p, MPI_Aint disp, MPI_Datatype piece);
/* Append count contiguous items of old at byte displacement disp (nothing
 * when count is 0). */
int pcoll__pieces_contig(pcoll__pieces_t *p, MPI_Aint disp, int count, MPI_Datatype old);
/* Append count blocks of blocklength items every stride items of old at disp
 * (one block becomes a contiguous piece; nothing when count is 0). */
int pcoll__pieces_vector(pcoll__pieces_t *p, MPI_Aint disp, int count, int blocklength,
                         int stride, MPI_Datatype old);
/* Append the items i in [0, len) of old, item i at disp + i * extent(old),
 * that a strided pattern selects: (phase + i) mod stride < blocklength.
 * Requires 0 <= blocklength <= stride, stride > 0 when len > 0 (in
 * bounded_vector.c: this is the bounded vector with a phase). */
int pcoll__pieces_pattern(pcoll__pieces_t *p, MPI_Aint disp, int len, int phase,
                          int blocklength, int stride, MPI_Datatype old);
/* Join the pieces (none: an empty type; one at displacement 0: that piece;
 * otherwise a struct), give the result lower bound lb and the extent, and
 * release the pieces.  *newtype is uncommitted. */
int pcoll__pieces_finish(pcoll__pieces_t *p, MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                         MPI_Datatype *newtype);
/* Free the pieces (on an error path). */
void pcoll__pieces_free(pcoll__pieces_t *p);

/* Replace *type by a resized copy with this lb and extent, unless it already
 * has them; the original is freed. */
int pcoll__type_resize(MPI_Datatype *type, MPI_Aint lb, MPI_Aint extent);

/* PCOLL_ERR_ARG unless a block pattern (bound, blocklength, stride) makes
 * sense: no negative value, blocklength <= stride, stride > 0 when bound > 0. */
int pcoll__check_pattern(const char *fn, int bound, int blocklength, int stride);

/* Common argument checks of the constructors: newtype not NULL (and set to
 * MPI_DATATYPE_NULL), oldtype not MPI_DATATYPE_NULL.  fn names the caller. */
int pcoll__type_check_args(const char *fn, MPI_Datatype oldtype, MPI_Datatype *newtype);

#endif
