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

#include "base/status.h"
#include "core/comm.h"
#include "core/progress.h"
#include "core/schedule.h"
#include "pcoll.h"

typedef enum pcoll__plan_state { PCOLL__INACTIVE, PCOLL__ACTIVE } pcoll__plan_state_t;

/* The progress interface: what every kind of plan implements, and all that
 * pcoll_start, pcoll_test, pcoll_wait and the active list (core/progress.h)
 * call.  start begins a run, test makes progress without blocking and sets
 * *done, destroy frees plan->priv.  The schedule's executor is one
 * implementation (pcoll__sched_ops, the default of every plan); engines whose
 * work depends on the data at run time (the in-place alltoallv, the GPU
 * engines, native) are the others. */
typedef struct pcoll__plan_ops {
    int (*start)(pcoll_plan_t *plan);
    int (*test)(pcoll_plan_t *plan, int *done);
    void (*destroy)(pcoll_plan_t *plan);
    /* Optional: block until the run is done (instead of test and yield),
     * used when no other plan of the process is active; and one whole run
     * for the one-shot path (instead of start and wait), which advances no
     * other plan (every rank must make the same choice: native's blocking
     * call does not match its non-blocking one). */
    int (*wait)(pcoll_plan_t *plan);
    int (*run)(pcoll_plan_t *plan);
} pcoll__plan_ops_t;

/* The schedule's executor as plan operations (on plan->sched). */
extern const pcoll__plan_ops_t pcoll__sched_ops;

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
    int together;            /* planned by every rank together (persistent init):
                                building may call collective MPI functions */
    int solo;                /* its run needs no pass over the active list: the
                                MPI advances it (a `native` plan's request), or
                                its start begins nothing and its wait or test
                                makes the whole run (a deferred one) */
    int normalize;           /* keep user types normalized (pcoll_normalize); the
                                default comes from PCOLL_NORMALIZE */
    pcoll__sched_t sched;
    const pcoll__plan_ops_t *ops; /* how it runs (pcoll__sched_ops by default) */
    void *priv;              /* the algorithm's own state (engines' ops) */
    pcoll__active_t active;  /* its run on the process's active list */
    void **buffers;          /* owned scratch */
    int nbuffers;
    MPI_Datatype *types;     /* owned committed datatypes */
    int ntypes;
    struct pcoll__on_free *on_free; /* resources released by callbacks */
    int non_free;
    /* The algorithm's own lines for pcoll_plan_print, after the first (NULL:
     * none): what the schedule does not show, such as a shared segment's
     * size.  describe_arg lives as long as the plan (its scratch). */
    void (*describe)(const void *arg, FILE *out);
    const void *describe_arg;
    /* A one-shot shape's node signal (api/shape.h pcoll__shape_run), for
     * the engines that carry it (the kept plans on one node): a run begun
     * with listen set raises it where raise is set, and sets raised to
     * whether some rank of the node raised it in that run. */
    int listen, raise, raised;
};

/* A resource a plan releases through a callback (windows, communicators). */
typedef struct pcoll__on_free {
    void (*fn)(void *arg);
    void *arg;
} pcoll__on_free_t;

/* A new empty plan on ctx (taking a reference) with the given tag. */
int pcoll__plan_create(pcoll__ctx_t *ctx, const char *collective, int tag,
                       pcoll_plan_t **plan);
/* Scratch of bytes (zeroed) owned by the plan; NULL only on failure. */
void *pcoll__plan_alloc(pcoll_plan_t *plan, size_t bytes);
/* Commit *type and make the plan own it. */
int pcoll__plan_own_type(pcoll_plan_t *plan, MPI_Datatype *type);
/* The caller may free its datatypes once init returns: replace a derived
 * *type by a duplicate the plan owns (predefined types are kept as they are),
 * or, when plan->normalize is set, by its normalized form
 * (pcoll_type_normalize: the same type map, lower bound and extent). */
int pcoll__plan_keep_type(pcoll_plan_t *plan, MPI_Datatype *type);
/* Call fn(arg) when the plan is destroyed (after its requests are freed, in
 * the reverse order of registration).  On failure fn(arg) is called at once. */
int pcoll__plan_on_free(pcoll_plan_t *plan, void (*fn)(void *arg), void *arg);

/* Engines that run in phases (the kept node-aware plans): plan->priv
 * starts with a pcoll__phased_t and plan->ops is &pcoll__phased_ops.  A
 * run starts at phase 0 (begin first resets what a run counts); advance
 * goes one phase further where it can (*moved 1; leaving phase last - 1
 * ends the run) and is called until it cannot, the run ends or a phase
 * fails (its code: the run ends there).  drop lets go of what a run holds
 * (after a failed phase, and before the plan frees own and the state, both
 * from pcoll__malloc).  The
 * plan's wait (no other plan active) and its one-shot run (ops->run, from
 * phase 0) set blocking, so that a phase that waits for messages blocks in
 * the MPI instead of testing (an MPI may charge every test its time, as
 * SMPI does). */
typedef struct pcoll__phases_def {
    int last;
    void (*begin)(void *state);
    int (*advance)(void *state, int *moved);
    void (*drop)(void *state);
} pcoll__phases_def_t;

typedef struct pcoll__phased {
    const pcoll__phases_def_t *def;
    int phase;
    int blocking; /* in the plan's wait: phases waiting on requests block */
    void *own;    /* the engine's private memory (pcoll__malloc), freed with it */
} pcoll__phased_t;

extern const pcoll__plan_ops_t pcoll__phased_ops;

/* Whether the *n requests at reqs are done (MPI_Testall, or MPI_Waitall
 * where block; then *n is 0); what names the engine in errors. */
int pcoll__requests_done(MPI_Request *reqs, int *n, int block, int *flag, const char *what);
/* Release everything; NULL and half-built plans accepted; ignores the state. */
void pcoll__plan_destroy(pcoll_plan_t *plan);

/* A run driven by its parent (a child plan, which is never on the active
 * list: its parent is): begin, one non-blocking step, to the end. */
int pcoll__plan_begin(pcoll_plan_t *plan);
int pcoll__plan_step(pcoll_plan_t *plan, int *done);
int pcoll__plan_block(pcoll_plan_t *plan);
/* pcoll_test of an active plan without the pass over the active list (the
 * drop-in makes one pass, then polls each of its plans). */
int pcoll__plan_poll(pcoll_plan_t *plan, int *flag);

/* The algorithm of the plan pcoll__plan_run completed last on this thread
 * ("" before any): the one-shot calls' choice, which the drop-in layer's log
 * reports.  One per thread (PCOLL__THREAD_LOCAL, base/status.h), so that a
 * thread reads the choice of its own last call. */
extern PCOLL__THREAD_LOCAL const char *pcoll__last_run_algorithm;

/* Start and wait (the one-shot path): one whole run (ops->run) where the
 * plan has one and is not active, the algorithm's name recorded last (an
 * outer plan's name wins over its children's).  Not on the active list:
 * every rank must choose run alike (MPI's blocking and non-blocking
 * collectives do not match each other). */
static inline int pcoll__plan_run(pcoll_plan_t *plan)
{
    int rc;
    if (plan && plan->ops->run && !plan->no_comm && plan->state == PCOLL__INACTIVE)
        rc = plan->ops->run(plan);
    else if ((rc = pcoll_start(plan)) == PCOLL_SUCCESS)
        rc = pcoll_wait(plan);
    if (plan)
        pcoll__last_run_algorithm = plan->algorithm;
    return rc;
}

#endif
