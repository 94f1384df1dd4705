/*
 * Progress across plans: the process's list of active plans, which every
 * pcoll_test and pcoll_wait (and the drop-in's MPI_Wait and MPI_Test
 * families) advances, so that no order of waits can hang; and the optional
 * progress thread (pcoll_progress=thread).  See docs/design.md "Progress".
 *
 * A run is advanced through its plan's operations (pcoll__plan_ops_t,
 * core/plan.h), by whichever thread gets the plan's try-lock (`busy`); a
 * thread that finds a plan busy skips it.  The plan stays on the list until
 * its run ends; the thread that ends it records how (over, rc) and unlinks
 * it.  Only the holder of busy may unlink a plan, so a plan held by a pass
 * stays listed while the pass has the list unlocked.
 *
 * The list lock is a leaf: no MPI call is made and no other lock taken while
 * it is held.  Nothing here allocates (the list is intrusive).
 */
#ifndef PCOLL_CORE_PROGRESS_H
#define PCOLL_CORE_PROGRESS_H

#include <stdatomic.h>

#include "pcoll.h"

/* A plan's place in progress, inside the plan. */
typedef struct pcoll__active {
    pcoll_plan_t *prev, *next; /* on the active list (under its lock) */
    int listed;                /* on the list (changed under its lock and busy) */
    atomic_int busy;           /* the try-lock of whoever advances the run */
    int over;                  /* the run has ended (under busy) */
    int rc;                    /* how it ended (under busy) */
} pcoll__active_t;

/* A started run: the caller, the plan's owner, holds no lock.  over: the run
 * has already ended (nothing to advance; not listed). */
void pcoll__progress_add(pcoll_plan_t *plan, int over);
/* One pass over the active list: advance every plan no other thread holds
 * (its operations' test), unlinking those whose run ends. */
void pcoll__progress_pass(void);
/* How many plans are on the list (a snapshot). */
int pcoll__progress_active(void);
/* Whether plan's run has ended (*flag), without advancing anything; its rc
 * when it has.  *flag is 0 while another thread holds the plan. */
int pcoll__progress_collect(pcoll_plan_t *plan, int *flag);
/* Take plan's try-lock when it is the only plan on the list (so blocking in
 * it cannot keep any other plan of this process from its progress): 1 with
 * the lock held, else 0.  pcoll__progress_release ends such a run. */
int pcoll__progress_claim_alone(pcoll_plan_t *plan);
void pcoll__progress_release(pcoll_plan_t *plan, int rc);

/* 1 when one thread at a time calls pcoll (MPI initialized below
 * MPI_THREAD_MULTIPLE; asked of MPI once), else 0. */
int pcoll__progress_serial(void);

/* A solo plan (core/plan.h) just begun while no plan is listed and one
 * thread at a time calls pcoll: 1 when it is set aside, unlisted (its wait
 * or test then ends the run with its own operations: it advances no other
 * plan and needs no pass of pcoll's); 0 when it must be listed as others
 * are.  A plan that starts while one is aside lists the aside one first, as
 * it would have been.  is_aside: whether plan is; take_aside: 1 when plan
 * was aside (no longer). */
int pcoll__progress_set_aside(pcoll_plan_t *plan);
int pcoll__progress_is_aside(const pcoll_plan_t *plan);
int pcoll__progress_take_aside(pcoll_plan_t *plan);

/* pcoll_progress=thread: start the progress thread (once per process; MPI
 * must provide MPI_THREAD_MULTIPLE, else PCOLL_ERR_UNSUPPORTED).  It advances
 * the active list a pass at a time, yielding the processor between passes,
 * and sleeps while the list is empty; MPI_Finalize stops it (the delete
 * callback of an attribute on MPI_COMM_SELF). */
int pcoll__progress_thread_start(void);

#endif
