/*
 * The drop-in layer (libpcoll_mpi): definitions of MPI's own functions that
 * hand MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw, MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block and MPI_Neighbor_alltoall(v/w) -- blocking, non-blocking, persistent and
 * large-count forms -- to pcoll, and pass everything pcoll does not serve to
 * the MPI library through the profiling interface (PMPI_*).  See
 * docs/dropin.md for the mechanism and its limits.
 *
 * Files: state.c (switch, lock, errors, conversions), outcome.c (what a
 * wrapper does with pcoll's answer), log.c
 * (PCOLL_DROPIN_LOG, MPI_Finalize), requests.c (the requests that stand for
 * pcoll plans and their progress), complete.c (MPI_Start, the Wait and Test
 * families, MPI_Request_free), made.c (MPI_Init and the calls that make
 * communicators: their shapes prepared for non-blocking calls), fortran.c
 * (the Fortran names the MPI's Fortran library does not route to the C
 * ones), and one file per collective.
 */
#ifndef PCOLL_PMPI_DROPIN_H
#define PCOLL_PMPI_DROPIN_H

#include <stdatomic.h>

#include "api/entry.h"
#include "pcoll.h"

/* Non-blocking collectives behind generalized requests: not under SimGrid
 * SMPI 3.32, whose MPI_Waitall leaves completed generalized requests
 * allocated (SMPI's own MPI_Ialltoall ... serve them there). */
#ifndef SMPI_H
#define PCOLL__DROPIN_HAVE_NONBLOCKING 1
#endif
/* Persistent collectives: MPI-4, and Open MPI 5 (which says MPI 3.1). */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define PCOLL__DROPIN_HAVE_PERSISTENT 1
#endif
/* MPI sessions (MPI_Session_finalize): as persistent collectives. */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define PCOLL__DROPIN_HAVE_SESSIONS 1
#endif
/* Large-count (_c) functions: MPI-4. */
#if MPI_VERSION >= 4
#define PCOLL__DROPIN_HAVE_LARGE_COUNT 1
#endif
/* MPI_Request_get_status_all/any/some: MPI-4.1. */
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define PCOLL__DROPIN_HAVE_GET_STATUS_MANY 1
#endif

/* The collectives and forms, one row of the log each. */
enum { PCOLL__DROPIN_ALLTOALL, PCOLL__DROPIN_ALLTOALLV, PCOLL__DROPIN_REDUCE_SCATTER,
       PCOLL__DROPIN_REDUCE_SCATTER_BLOCK, PCOLL__DROPIN_ALLTOALLW,
       PCOLL__DROPIN_NEIGHBOR_ALLTOALL, PCOLL__DROPIN_NEIGHBOR_ALLTOALLV,
       PCOLL__DROPIN_NEIGHBOR_ALLTOALLW, PCOLL__DROPIN_NCOLL };
enum { PCOLL__DROPIN_BLOCKING, PCOLL__DROPIN_NONBLOCKING, PCOLL__DROPIN_PERSISTENT,
       PCOLL__DROPIN_NFORMS };
/* Why a call went to the MPI library. */
enum { PCOLL__DROPIN_FELL_ARG,
       PCOLL__DROPIN_FELL_UNSUPPORTED, PCOLL__DROPIN_FELL_MISMATCH, PCOLL__DROPIN_FELL_STATE,
       PCOLL__DROPIN_NREASONS };

/* ---- state.c ---------------------------------------------------------------- */

/* Whether the wrappers serve calls: PCOLL_DROPIN is not "off".  pcoll's own
 * MPI calls never reach them (it calls PMPI_*, src/base/pmpi.h). */
int pcoll__dropin_enabled(void);
/* Whether environment variable name says off ("off", "0", "false", "no"). */
int pcoll__dropin_env_off(const char *name);
/* The lock of the request table (recursive; never held while blocking). */
void pcoll__dropin_lock(void);
void pcoll__dropin_unlock(void);

/* Raise code on comm's error handler; the message (printf-style) goes to
 * stderr only with PCOLL_VERBOSE=1 (the drop-in is as quiet as the library:
 * MPI's handler reports the error).  Returns code. */
int pcoll__dropin_error(MPI_Comm comm, int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Raise an error on comm's handler for a failed pcoll call; the MPI code. */
int pcoll__dropin_raise(MPI_Comm comm, int rc);

/* ---- outcome.c ------------------------------------------------------------- */

/* 1 once a wrapped call found the drop-in on and its log off (each read
 * once per process): a call then asks neither again (the two inline
 * functions below). */
extern atomic_int pcoll__dropin_plain;

/* Whether a collective on comm may go to pcoll: the drop-in is on and comm
 * is a communicator (an intracommunicator or an intercommunicator). */
int pcoll__dropin_serves_slow(MPI_Comm comm);
static inline int pcoll__dropin_serves(MPI_Comm comm)
{
    return atomic_load_explicit(&pcoll__dropin_plain, memory_order_relaxed)
               ? comm != MPI_COMM_NULL
               : pcoll__dropin_serves_slow(comm);
}

/* After pcoll's call for one collective returned rc (plan: the plan made
 * for the non-blocking and persistent forms, else NULL).  Returns 1 when the
 * caller must make the MPI call instead: pcoll refused the arguments for a
 * reason every rank shares (logged; a refusal that a PCOLL_ variable or the
 * tuning file causes is also said once per job on stderr).  Otherwise returns 0 with *err the MPI
 * return code: MPI_SUCCESS once the call is served -- for the non-blocking
 * and persistent forms *request then stands for the plan -- or an error
 * raised on comm's error handler. */
int pcoll__dropin_finish_slow(int rc, pcoll_plan_t *plan, MPI_Comm comm, int coll, int form,
                              MPI_Request *request, int *err);
static inline int pcoll__dropin_finish(int rc, pcoll_plan_t *plan, MPI_Comm comm, int coll,
                                       int form, MPI_Request *request, int *err)
{
    /* A blocking call served, or the MPI's own call to make: nothing to
     * count. */
    if (atomic_load_explicit(&pcoll__dropin_plain, memory_order_relaxed)) {
        if (rc == PCOLL_SUCCESS && form == PCOLL__DROPIN_BLOCKING) {
            *err = MPI_SUCCESS;
            return 0;
        }
        if (rc == PCOLL__LOCAL_NATIVE) {
            *err = MPI_SUCCESS;
            return 1;
        }
    }
    return pcoll__dropin_finish_slow(rc, plan, comm, coll, form, request, err);
}
/* pcoll's mode for the form of an MPI call (blocking: one-shot;
 * non-blocking: a local plan; persistent: an init). */
static inline pcoll__mode_t pcoll__dropin_mode(int form)
{
    return form == PCOLL__DROPIN_BLOCKING      ? PCOLL__ONESHOT
           : form == PCOLL__DROPIN_NONBLOCKING ? PCOLL__LOCAL
                                               : PCOLL__PERSISTENT;
}

/* ---- log.c -------------------------------------------------------------------- */

/* A call served (plan: the plan it made; NULL: a one-shot call, named by
 * the last run's algorithm); counted only when PCOLL_DROPIN_LOG is set. */
void pcoll__dropin_log_served(int coll, int form, const pcoll_plan_t *plan);
/* Whether calls are counted (PCOLL_DROPIN_LOG, read once). */
int pcoll__dropin_logging(void);
void pcoll__dropin_log_fell(int coll, int form, int reason);

/* ---- requests.c ---------------------------------------------------------------- */

/* Start plan and make *request stand for the run (a generalized request,
 * completed when the plan completes). */
int pcoll__dropin_track_nonblocking(pcoll_plan_t *plan, MPI_Comm comm, MPI_Request *request);
/* Make *request stand for the persistent plan (an inactive persistent
 * request that MPI_Start, MPI_Wait, ... reach through the table). */
int pcoll__dropin_track_persistent(pcoll_plan_t *plan, MPI_Comm comm, MPI_Request *request);
/* Whether any request stands for a plan, or any plan of the process is
 * active (the fast path of the wrappers). */
int pcoll__dropin_tracking(void);

/* With the lock held: */
/* One pass over the process's active plans; complete the requests of
 * plans whose run is over. */
void pcoll__dropin_progress(void);
/* Whether any plan runs (a request's, or any other of the process). */
int pcoll__dropin_running(void);
/* How many of reqs[0..n) stand for running plans; with hidden non-NULL,
 * reqs copied there with those replaced by MPI_REQUEST_NULL. */
int pcoll__dropin_pending(int n, const MPI_Request *reqs, MPI_Request *hidden);
/* Free the plans of requests that MPI has freed. */
void pcoll__dropin_reap(void);

/* MPI_Start and MPI_Request_free of one of ours (*handled = 0: not ours). */
int pcoll__dropin_start(MPI_Request *request, int *handled);
int pcoll__dropin_free(MPI_Request *request, int *handled);
/* After MPI completed request (still valid only if persistent): give a
 * request of ours the empty status MPI defines for collectives. */
void pcoll__dropin_fix_status(MPI_Request request, MPI_Status *status);
/* At MPI_Finalize: free every plan that does not run. */
void pcoll__dropin_release_all(void);

/* ---- made.c -------------------------------------------------------------------- */

/* Communicators whose alltoallv a process prepares, at most (made.c). */
#define PCOLL__DROPIN_DENSE_MAX 8

/* Around a Fortran binding's own call that makes a communicator (fortran.c):
 * begin before it; end after it with the new communicator (MPI_COMM_NULL:
 * none) prepares it as the C names do, once, whatever C names the call
 * reached. */
void pcoll__dropin_made_begin(void);
void pcoll__dropin_made_end(MPI_Comm comm);

#endif
