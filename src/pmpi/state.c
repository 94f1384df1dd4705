/*
 * The drop-in's switches and the outcome of one pcoll call.
 *
 * Re-entrancy: pcoll calls MPI itself (MPI_Waitall, MPI_Alltoall while
 * planning, MPI_Comm_dup ...), and with the drop-in loaded those calls reach
 * the wrappers again.  A per-thread depth counter, raised around every call
 * into pcoll, sends them straight to PMPI.  Under SimGrid every simulated
 * rank has its own copy of the globals but ranks share threads, so the
 * counter is a plain global there.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "pmpi/dropin.h"

#ifdef SMPI_H
#define THREAD_LOCAL
#else
#define THREAD_LOCAL _Thread_local
#endif

enum { UNKNOWN, ON, OFF };

static int state = UNKNOWN;
static THREAD_LOCAL int depth;
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

/* Read PCOLL_DROPIN once.  pcoll's own messages for arguments it refuses
 * are silenced (PCOLL_QUIET): such calls go to MPI, which reports real
 * errors itself; the drop-in prints pcoll's message for any other error. */
static void read_switch(void)
{
    const char *v = getenv("PCOLL_DROPIN");
    int off = v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "false") ||
                    !strcmp(v, "no"));
    if (!off)
        setenv("PCOLL_QUIET", "1", 0);
    state = off ? OFF : ON;
}

int pcoll__dropin_enabled(void)
{
    if (state == UNKNOWN)
        read_switch();
    return state == ON;
}

int pcoll__dropin_on(void)
{
    return depth == 0 && pcoll__dropin_enabled();
}

void pcoll__dropin_enter(void)
{
    depth++;
}

void pcoll__dropin_leave(void)
{
    depth--;
}

static void make_lock(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

void pcoll__dropin_lock(void)
{
    pthread_once(&lock_once, make_lock);
    pthread_mutex_lock(&lock);
}

void pcoll__dropin_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

int pcoll__dropin_serves(MPI_Comm comm, int coll, int form)
{
    int inter = 1;
    if (!pcoll__dropin_on())
        return 0;
    /* MPI_COMM_NULL or an invalid handle: MPI reports the error. */
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
        pcoll__dropin_log_fell(coll, form, PCOLL__DROPIN_FELL_INTER);
        return 0;
    }
    return 1;
}

int pcoll__dropin_raise(MPI_Comm comm, int rc)
{
    int code = rc == PCOLL_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    fprintf(stderr, "pcoll-dropin: %s\n", pcoll_last_error());
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

/* Refusals that depend only on arguments every rank shares (or that every
 * rank learns through pcoll's agreement): the MPI call is safe then. */
static int refusal(int rc)
{
    switch (rc) {
    case PCOLL_ERR_ARG: return PCOLL__DROPIN_FELL_ARG;
    case PCOLL_ERR_UNSUPPORTED: return PCOLL__DROPIN_FELL_UNSUPPORTED;
    case PCOLL_ERR_MISMATCH: return PCOLL__DROPIN_FELL_MISMATCH;
    case PCOLL_ERR_STATE: return PCOLL__DROPIN_FELL_STATE;
    default: return -1;
    }
}

int pcoll__dropin_finish(int rc, pcoll_plan_t *plan, MPI_Comm comm, int coll, int form,
                         MPI_Request *request, int *err)
{
    int reason = refusal(rc);
    *err = MPI_SUCCESS;
    if (reason >= 0) {
        pcoll__dropin_log_fell(coll, form, reason);
        return 1;
    }
    if (rc != PCOLL_SUCCESS) {
        *err = pcoll__dropin_raise(comm, rc);
        return 0;
    }
    pcoll__dropin_log_served(coll, form, plan ? pcoll_plan_algorithm(plan)
                                              : pcoll__last_run_algorithm);
    if (form == PCOLL__DROPIN_NONBLOCKING)
        *err = pcoll__dropin_track_nonblocking(plan, comm, request);
    else if (form == PCOLL__DROPIN_PERSISTENT)
        *err = pcoll__dropin_track_persistent(plan, comm, request);
    return 0;
}

int *pcoll__dropin_block_counts(MPI_Comm comm, int count)
{
    int p, i, *counts;
    PMPI_Comm_size(comm, &p);
    if (!(counts = malloc(sizeof(int) * (size_t)(p > 0 ? p : 1))))
        return NULL;
    for (i = 0; i < p; i++)
        counts[i] = count;
    return counts;
}

int pcoll__dropin_fits(long long n)
{
    return n >= 0 && n <= INT_MAX;
}

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
int pcoll__dropin_small(MPI_Count count, MPI_Datatype type, int *out)
{
    MPI_Count size = 0;
    if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size_c(type, &size) != MPI_SUCCESS)
        return 0;
    if (size > 0 && count > INT_MAX / size)
        return 0;
    *out = count <= INT_MAX ? (int)count : 0;
    return 1;
}
#endif
