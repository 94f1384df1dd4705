/*
 * Stand-in buffers: a plan that the one-shot calls keep for a shape (every
 * call of the same sizes, whatever its buffers) is built on reserved
 * address space that stands for the call's buffers; its copies and
 * reductions into that space follow each call's buffers
 * (pcoll__sched_rebind), and its messages never touch it (the engines that
 * qualify move user data only by local copies).
 *
 * A view is one buffer of a call as count items of type.  A region reserves
 * address space (no memory: every access faults) around where the items of
 * a view would lie, so that no other allocation can take those addresses
 * while the plan lives.
 */
#ifndef PCOLL_CORE_REGION_H
#define PCOLL_CORE_REGION_H

#include <stddef.h>

#include "core/plan.h"

typedef struct pcoll__view {
    int present;          /* 0: no such buffer (in place) */
    void *buf;            /* may be MPI_BOTTOM */
    MPI_Count count;
    MPI_Datatype type;
} pcoll__view_t;

typedef struct pcoll__region {
    void *addr;           /* the reservation */
    size_t len;
    void *base;           /* what stands for the view's buffer */
} pcoll__region_t;

/* Reserve a region for view v (present): PCOLL_ERR_NOMEM when the
 * address space cannot be had. */
int pcoll__region_reserve(const pcoll__view_t *v, pcoll__region_t *r);
/* Bind region r as buffer k of plan's schedule (before building) and hand
 * the reservation to the plan (released when it is destroyed); r is left
 * empty, also on failure (then released). */
int pcoll__region_bind(pcoll_plan_t *plan, int k, pcoll__region_t *r);
/* Release a reservation that no plan took (NULL-safe on an empty one). */
void pcoll__region_release(pcoll__region_t *r);

/* The bytes count items of type cover, from their lowest true byte: *lo is
 * that byte's offset from the buffer (may be negative), *len the span. */
int pcoll__view_span(const pcoll__view_t *v, MPI_Aint *lo, size_t *len);

/* n blocks of one buffer: block i is counts[i] items of types[i] (of type
 * where types is NULL) at displs[i] * ext bytes from the buffer; a block
 * to or from peers[i] = MPI_PROC_NULL is never touched (peers NULL: all
 * are). */
typedef struct pcoll__blocks_view {
    int n;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    MPI_Aint ext;
    MPI_Datatype type;
    const MPI_Datatype *types;
    const int *peers;
} pcoll__blocks_view_t;

/* The bytes the blocks touch, as pcoll__view_span (zeros for none). */
int pcoll__blocks_span(const pcoll__blocks_view_t *b, MPI_Aint *lo, size_t *len);

#endif
