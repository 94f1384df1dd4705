/*
 * Running a shape's plan (entry.c "Shapes") for one call after another.
 *
 * A shape keeps one plan that every rank made together.  Each call binds
 * it to its own buffers: directly when the call's datatypes and counts are
 * the ones the plan was built for, else through temporary buffers in those
 * layouts (the input copied in before the run, the output copied out after
 * it).  The plan runs one call at a time, in the calls' order, which MPI
 * makes the same on every rank: a non-blocking call (the drop-in's
 * MPI_Ialltoall ...) gets a small plan of its own, a lease, whose start
 * queues its run behind the earlier ones and returns at once; the queue
 * moves on whenever a lease or the shape is tested, so starting never waits
 * for another rank.  A blocking call and the end of the shape first finish
 * the runs queued before them (which the other ranks, at the same call,
 * finish too).
 *
 * Threads: a shape belongs to its communicator's context, which one thread
 * uses at a time (include/pcoll.h "Threads"); so do its leases.
 */
#ifndef PCOLL_API_SHAPE_H
#define PCOLL_API_SHAPE_H

#include "core/region.h"

typedef struct pcoll__shape_rec pcoll__shape_rec_t;

/* A plan that serves any sizes (alltoallv's, entry.c "Shapes") takes each
 * call's checked arguments (the collective's builder arguments) instead of
 * views: span says which bytes of buffer k (0: send, 1: receive; *buf NULL:
 * none, as the send buffer in place) the call's p blocks touch, from *lo
 * past *buf, so that device buffers run through host mirrors of them; bind
 * sets the arguments on the plan before a run, with base[k] (not NULL) in
 * place of buffer k; hold makes a copy that outlives the call (a
 * non-blocking call's run starts later), freed by release. */
typedef struct pcoll__shape_binder {
    int (*span)(const void *args, int p, int k, void **buf, MPI_Aint *lo, size_t *len);
    int (*bind)(pcoll_plan_t *plan, const void *args, void *const base[2]);
    int (*hold)(const void *args, int p, void **copy);
    void (*release)(void *copy);
} pcoll__shape_binder_t;

/* The record of plan (not owned: the shape entry owns it, and frees it
 * after the record) built for the buffers v, or (binder not NULL) bound to
 * each call's arguments by binder (v unused). */
int pcoll__shape_rec_make(pcoll_plan_t *plan, const pcoll__view_t v[2],
                          const pcoll__shape_binder_t *binder, pcoll__shape_rec_t **out);
/* Finish every queued run, then free the record (NULL-safe). */
void pcoll__shape_rec_free(void *rec);

/* Whether a call with buffers v can use the plan's copies as they are: the
 * same handles and counts (stale: a handle of the record was freed), or
 * buffers that are one contiguous byte range each, as the plan's were. */
int pcoll__shape_same(const pcoll__shape_rec_t *r, int stale, const pcoll__view_t v[2]);

/* Blocking: run the plan for the buffers v (a binder's record: for the
 * checked arguments args) once the earlier runs are over.  signal (NULL:
 * none): the node signal of the plans that carry it (core/node.h, the kept
 * plans on one node): raised in the run where *signal is set; after it,
 * *signal = whether some rank of the node raised it in that run (every
 * rank alike; 0 from plans that do not carry it). */
int pcoll__shape_run(pcoll__shape_rec_t *r, int same, const pcoll__view_t v[2],
                     const void *args, int *signal);

/* A binder's record: a copy of the checked arguments args (the binder's
 * hold) kept by the record for the calls that repeat them, replacing the
 * copy before; *gen names it (0 where it could not be made).  Freed with the
 * record. */
int pcoll__shape_hold(pcoll__shape_rec_t *r, const void *args, unsigned long *gen);
/* Blocking: pcoll__shape_run for the arguments the record holds as gen; 0
 * (nothing run) where it holds others now, else 1 and *rc the run's code. */
int pcoll__shape_run_held(pcoll__shape_rec_t *r, unsigned long gen, const pcoll__view_t v[2],
                          int *rc, int *signal);

/* Non-blocking: *lease, a plan on ctx (the caller's to free) whose start
 * queues one run of the shape's plan for the buffers v (a binder's record:
 * for a held copy of args). */
int pcoll__shape_lease(pcoll__shape_rec_t *r, int same, const pcoll__view_t v[2],
                       const void *args, pcoll__ctx_t *ctx, const char *collective,
                       pcoll_plan_t **lease);

#endif
