/*
 * Argument checks shared by the collectives, and the agreement step that
 * makes *_init calls fail on every rank when any rank has bad input.
 */
#ifndef PCOLL_CORE_CHECK_H
#define PCOLL_CORE_CHECK_H

#include <limits.h>

#include "pcoll.h"

/* PCOLL_ERR_ARG for MPI_DATATYPE_NULL, an invalid or an uncommitted type. */
int pcoll__check_type(MPI_Datatype type, const char *what, const char *fn);
/* Whether op is one of MPI's predefined reduction operations. */
int pcoll__op_predefined(MPI_Op op);
/* PCOLL_ERR_ARG for a negative count. */
int pcoll__check_count(int count, const char *what, const char *fn);

/* PCOLL_ERR_ARG for a buffer that is MPI_IN_PLACE (where the caller may not
 * pass it), or NULL with bytes to move and a type of relative addresses (NULL
 * is MPI_BOTTOM, valid only with absolute addresses). */
int pcoll__check_buffer(const void *buf, long long bytes, MPI_Datatype type, const char *what,
                        const char *fn);

/* pcoll__agree compares at most this many values. */
#define PCOLL__AGREE_MAX 8

/* Collective over comm: combine every rank's local verdict rc and check that
 * the n values in vals are equal on all ranks.  Returns rc if non-zero, else
 * the most severe code of another rank, else PCOLL_ERR_MISMATCH if some value
 * differs (what[i] names it), else PCOLL_SUCCESS. */
int pcoll__agree(MPI_Comm comm, int rc, const long long *vals, const char *const *what, int n,
                 const char *fn);
/* The same single reduction, returning each value's minimum and maximum over
 * all ranks instead of requiring them equal (mins, maxs: n entries each, or
 * NULL; vals NULL: n zeros; any n: one reduction per 128 values).  A value
 * PCOLL__AGREE_ANY takes no part (a rank that does not know it); a value
 * that no rank knows comes back as PCOLL__AGREE_ANY in both. */
#define PCOLL__AGREE_ANY LLONG_MIN
int pcoll__agree_range(MPI_Comm comm, int rc, const long long *vals, int n, long long *mins,
                       long long *maxs, const char *fn);

#endif
