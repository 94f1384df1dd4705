/*
 * The plan object: what a *_init call builds and pcoll_start runs.
 *
 * State machine: INACTIVE --start--> ACTIVE --test(flag)/wait--> INACTIVE.
 * A plan owns its schedule, scratch buffers, committed datatypes and child
 * plans; pcoll__plan_destroy releases all of them and accepts half-built
 * plans, so every init's failure path is a single call.
 */
#ifndef PCOLL_CORE_PLAN_H
#define PCOLL_CORE_PLAN_H

#include "core/comm.h"
#include "core/schedule.h"
#include "pcoll.h"

typedef enum pcoll__plan_state { PCOLL__INACTIVE, PCOLL__ACTIVE } pcoll__plan_state_t;

struct pcoll_plan {
    pcoll__plan_state_t state;
    const char *collective;  /* "alltoall" */
    const char *algorithm;   /* concrete algorithm name */
    pcoll__ctx_t *ctx;       /* communicator context (holds a reference) */
    MPI_Comm comm;           /* the library's duplicate */
    int tag;
    int rank, size;
    int cached;              /* owned by the one-shot cache: pcoll_plan_free refuses */
    int no_comm;             /* runs complete at once without communicating */
    pcoll__sched_t sched;
    void **buffers;          /* owned scratch */
    int nbuffers;
    MPI_Datatype *types;     /* owned committed datatypes */
    int ntypes;
};

/* A new empty plan on ctx (taking a reference) with the given tag. */
int pcoll__plan_create(pcoll__ctx_t *ctx, const char *collective, int tag,
                       pcoll_plan_t **plan);
/* Scratch of bytes (zeroed) owned by the plan; NULL only on failure. */
void *pcoll__plan_alloc(pcoll_plan_t *plan, size_t bytes);
/* Commit *type and make the plan own it. */
int pcoll__plan_own_type(pcoll_plan_t *plan, MPI_Datatype *type);
/* The caller may free its datatypes once init returns: replace a derived
 * *type by a duplicate the plan owns (predefined types are kept as they are). */
int pcoll__plan_keep_type(pcoll_plan_t *plan, MPI_Datatype *type);
/* Release everything; NULL and half-built plans accepted; ignores the state. */
void pcoll__plan_destroy(pcoll_plan_t *plan);
/* Start and wait (the one-shot path). */
int pcoll__plan_run(pcoll_plan_t *plan);

#endif
