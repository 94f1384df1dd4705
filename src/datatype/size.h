/* Sizes and addresses that never overflow (see size.c). */
#ifndef PCOLL_DATATYPE_SIZE_H
#define PCOLL_DATATYPE_SIZE_H

#include <stdint.h>

#include "pcoll.h"

/* Whether the MPI has MPI-4's large-count calls (MPI_Pack_c, ...). */
#if MPI_VERSION >= 4
#define PCOLL__MPI_BIGCOUNT 1
#else
#define PCOLL__MPI_BIGCOUNT 0
#endif

/* The bytes of one item of type, its lower bound and extent, and its true
 * lower bound and extent, from MPI-4's _c queries where the MPI has them,
 * else MPI-3's _x: never MPI_UNDEFINED, whatever the size.  PCOLL_ERR_MPI
 * (and zeros) if MPI refuses the type. */
int pcoll__type_size(MPI_Datatype type, MPI_Count *size);
int pcoll__type_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent);
int pcoll__type_true_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent);

/* Where the data of count items of type begins relative to the buffer
 * (*lo, the true lower bound) and how many bytes it spans up to its end:
 * what a copy in the same layout needs.  Zeros for count <= 0. */
int pcoll__type_span(MPI_Datatype type, MPI_Count count, MPI_Aint *lo, MPI_Aint *bytes);

/* The payload bytes of count items of type: the true count however large,
 * or -1 for a type MPI refuses, a negative count, or more than LLONG_MAX. */
long long pcoll__type_bytes(MPI_Datatype type, MPI_Count count);

/* MPI_Type_get_envelope that never aborts on MPI-4's large-count types
 * (MPICH's int form refuses every type made by a _c constructor): 0 and the
 * envelope in the int form's layout (a large-count type whose values all fit
 * in an int is told as its int constructor would be); 1 for a type that
 * holds a value over INT_MAX (only *combiner set: it cannot be decoded with
 * int counts); -1 if MPI refuses.  Records no error (callers say what it
 * means to them). */
int pcoll__type_envelope(MPI_Datatype type, int *ni, int *na, int *nd, int *combiner);

/* MPI_Type_get_contents for any type pcoll__type_envelope said 0 for, in the
 * int form's layout (ni, na, nd from there): 0, or -1 if MPI refuses.  The
 * derived datatypes in types are the caller's to free. */
int pcoll__type_contents(MPI_Datatype type, int ni, int na, int nd, int *ints, MPI_Aint *addrs,
                         MPI_Datatype *types);

/* Whether type is a named (predefined) type; 0 for what MPI refuses.  The
 * answer is kept per thread (as the sizes of named types are), so a call
 * on a type seen before asks the MPI nothing. */
int pcoll__type_is_named(MPI_Datatype type);

/* count items of type as one item of a new committed type (the caller's to
 * free) with contiguous(count, type)'s type map, lower bound and extent,
 * made with MPI-3's int constructors whatever count is.  PCOLL_ERR_UNSUPPORTED
 * for a count no address range can hold. */
int pcoll__type_items(MPI_Count count, MPI_Datatype type, MPI_Datatype *out);

/* base + off as an address, computed on integers: base may be MPI_BOTTOM
 * (NULL), where pointer arithmetic would be undefined. */
static inline void *pcoll__addr(const void *base, MPI_Aint off)
{
    return (void *)((uintptr_t)base + (uintptr_t)off);
}

#endif
