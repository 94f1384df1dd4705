/*
 * Requests that stand for pcoll plans, and their progress.
 *
 * A non-blocking call returns a generalized request (MPI_Grequest_start),
 * which the drop-in completes when the plan's run is over; MPI then
 * completes and frees it in MPI_Wait, MPI_Test ... like any other request,
 * asking query_fn for the status and calling free_fn when it is freed.
 *
 * A persistent call returns an inactive persistent receive of zero bytes
 * from this process on a private duplicate of the library's communicator of
 * this process alone (datatype/self.h: MPI_COMM_SELF's, or under MPI
 * sessions one of the session's), paired with a
 * persistent send (the "signal") that the drop-in keeps.  MPI_Start starts
 * the plan only; when the run is over the drop-in starts both, so the
 * receive completes at once and MPI's own MPI_Wait, MPI_Test ... find it
 * complete and leave it inactive, as MPI defines.  (A persistent send to
 * MPI_PROC_NULL would be simpler, but MPICH treats a started one as
 * inactive: MPI_Waitany and MPI_Testsome skip it.)
 *
 * So MPI sees one of these requests complete exactly when its plan's run is
 * over.  Until then the completion calls (complete.c) hide it from MPI and
 * advance every active plan of the process (core/progress.h), those of the
 * API's callers too.  A table maps handles to entries (hashed on the
 * handle's bits); running plans are also on a list.  Plans whose requests
 * MPI freed inside one of its calls are freed later, outside it (reap).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "datatype/self.h"
#include "pmpi/dropin.h"

typedef struct entry {
    MPI_Request handle;        /* the request the user holds (or held) */
    MPI_Request signal;        /* persistent: the send that completes it */
    pcoll_plan_t *plan;
    MPI_Comm comm;             /* the user's communicator: errors go to its handler */
    int persistent;
    int mapped;                /* in the table (until the user frees the request) */
    int running;               /* the plan's run is not over */
    int orphan;                /* persistent, freed while running */
    struct entry *next;        /* in a hash bucket, or in the reap list */
    struct entry *next_running;
} entry_t;

#define NBUCKETS 256

static entry_t *buckets[NBUCKETS];
static entry_t *running_list;
static entry_t *reap_list;
static atomic_int tracked;     /* entries alive */
static MPI_Comm self_comm = MPI_COMM_NULL; /* the persistent requests' pairs */

/* ---- the table ------------------------------------------------------------------ */

static unsigned bucket_of(MPI_Request request)
{
    unsigned long long x = 0;
    memcpy(&x, &request, sizeof request < sizeof x ? sizeof request : sizeof x);
    return (unsigned)((x * 0x9E3779B97F4A7C15ULL) >> 56) % NBUCKETS;
}

static entry_t *find(MPI_Request request)
{
    entry_t *e;
    if (request == MPI_REQUEST_NULL)
        return NULL;
    for (e = buckets[bucket_of(request)]; e; e = e->next)
        if (e->handle == request)
            return e;
    return NULL;
}

static void map(entry_t *e)
{
    unsigned b = bucket_of(e->handle);
    e->next = buckets[b];
    buckets[b] = e;
    e->mapped = 1;
}

static void unmap(entry_t *e)
{
    entry_t **p = &buckets[bucket_of(e->handle)];
    while (*p && *p != e)
        p = &(*p)->next;
    if (*p)
        *p = e->next;
    e->next = NULL;
    e->mapped = 0;
}

static void run(entry_t *e)
{
    e->running = 1;
    e->next_running = running_list;
    running_list = e;
}

/* Free the plan (which does not run) and the entry. */
static void destroy(entry_t *e)
{
    pcoll_plan_free(&e->plan);
    free(e);
    atomic_fetch_sub(&tracked, 1);
}

static entry_t *new_entry(pcoll_plan_t *plan, MPI_Comm comm, int persistent)
{
    entry_t *e = calloc(1, sizeof *e);
    if (!e) {
        pcoll_plan_free(&plan);
        pcoll__dropin_error(comm, MPI_ERR_NO_MEM, "out of memory");
        return NULL;
    }
    e->plan = plan;
    e->comm = comm;
    e->persistent = persistent;
    atomic_fetch_add(&tracked, 1);
    return e;
}

int pcoll__dropin_tracking(void)
{
    return atomic_load(&tracked) > 0 || pcoll__progress_active() > 0;
}

/* ---- generalized requests ------------------------------------------------------------ */

/* The empty status MPI gives a completed collective. */
static void empty_status(MPI_Status *status)
{
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
}

static int query_fn(void *extra, MPI_Status *status)
{
    (void)extra;
    empty_status(status);
    status->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

/* MPI calls free_fn once the request is both complete and freed, so the
 * plan no longer runs.  Freeing it calls MPI, which is put off (reap). */
static int free_fn(void *extra)
{
    entry_t *e = extra;
    pcoll__dropin_lock();
    if (e->mapped)
        unmap(e);
    e->next = reap_list;
    reap_list = e;
    pcoll__dropin_unlock();
    return MPI_SUCCESS;
}

/* A collective cannot be cancelled (MPI makes it erroneous): nothing. */
static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* ---- tracking ------------------------------------------------------------------------ */

int pcoll__dropin_track_nonblocking(pcoll_plan_t *plan, MPI_Comm comm, MPI_Request *request)
{
    entry_t *e = new_entry(plan, comm, 0);
    int rc;
    if (!e)
        return MPI_ERR_NO_MEM;
    rc = pcoll_start(plan);
    if (rc != PCOLL_SUCCESS) {
        rc = pcoll__dropin_raise(comm, rc);
        destroy(e);
        return rc;
    }
    if ((rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, e, &e->handle)) != MPI_SUCCESS) {
        pcoll_wait(plan);
        destroy(e);
        return rc;
    }
    pcoll__dropin_lock();
    map(e);
    run(e);
    pcoll__dropin_unlock();
    *request = e->handle;
    return MPI_SUCCESS;
}

int pcoll__dropin_track_persistent(pcoll_plan_t *plan, MPI_Comm comm, MPI_Request *request)
{
    entry_t *e = new_entry(plan, comm, 1);
    int rc = MPI_SUCCESS;
    if (!e)
        return MPI_ERR_NO_MEM;
    pcoll__dropin_lock();
    if (self_comm == MPI_COMM_NULL)
        rc = PMPI_Comm_dup(pcoll__self(), &self_comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, 0, self_comm, &e->handle);
    if (rc == MPI_SUCCESS && (rc = PMPI_Send_init(NULL, 0, MPI_BYTE, 0, 0, self_comm,
                                                  &e->signal)) != MPI_SUCCESS)
        PMPI_Request_free(&e->handle);
    if (rc == MPI_SUCCESS)
        map(e);
    else
        destroy(e);
    pcoll__dropin_unlock();
    if (rc == MPI_SUCCESS)
        *request = e->handle;
    return rc;
}

/* Complete the persistent receive: start it and its send, which match at
 * once (zero bytes to this process); the send is completed here. */
static void signal_persistent(entry_t *e)
{
    PMPI_Start(&e->handle);
    PMPI_Start(&e->signal);
    PMPI_Wait(&e->signal, MPI_STATUS_IGNORE);
}

/* ---- progress (lock held) ---------------------------------------------------------------- */

/* The run of e is over (rc: how it ended): let MPI see its request complete. */
static void finished(entry_t *e, int rc)
{
    e->running = 0;
    if (rc != PCOLL_SUCCESS)
        pcoll__dropin_raise(e->comm, rc);
    if (e->orphan)
        destroy(e);
    else if (e->persistent)
        signal_persistent(e);
    else
        PMPI_Grequest_complete(e->handle);
}

void pcoll__dropin_progress(void)
{
    entry_t **p = &running_list;
    pcoll__progress_pass();
    while (*p) {
        entry_t *e = *p;
        int flag = 0, rc = pcoll__plan_poll(e->plan, &flag);
        if (rc == PCOLL_SUCCESS && !flag) {
            p = &e->next_running;
            continue;
        }
        *p = e->next_running;
        finished(e, rc);
    }
}

int pcoll__dropin_running(void)
{
    return running_list != NULL || pcoll__progress_active() > 0;
}

int pcoll__dropin_pending(int n, const MPI_Request *reqs, MPI_Request *hidden)
{
    int i, count = 0;
    for (i = 0; i < n; i++) {
        entry_t *e = find(reqs[i]);
        int hide = e && e->running;
        count += hide;
        if (hidden)
            hidden[i] = hide ? MPI_REQUEST_NULL : reqs[i];
    }
    return count;
}

void pcoll__dropin_reap(void)
{
    while (reap_list) {
        entry_t *e = reap_list;
        reap_list = e->next;
        destroy(e);
    }
}

/* ---- MPI_Start, MPI_Request_free, statuses -------------------------------------------------- */

int pcoll__dropin_start(MPI_Request *request, int *handled)
{
    entry_t *e;
    int rc = MPI_SUCCESS;
    pcoll__dropin_lock();
    e = find(*request);
    *handled = e && e->persistent;
    if (*handled && e->running) {
        rc = pcoll__dropin_error(e->comm, MPI_ERR_REQUEST, "MPI_Start on an active request");
    } else if (*handled) {
        rc = pcoll_start(e->plan);
        if (rc == PCOLL_SUCCESS)
            run(e);
        else
            rc = pcoll__dropin_raise(e->comm, rc);
    }
    pcoll__dropin_unlock();
    return rc;
}

int pcoll__dropin_free(MPI_Request *request, int *handled)
{
    entry_t *e;
    int rc = MPI_SUCCESS;
    pcoll__dropin_lock();
    e = find(*request);
    *handled = e != NULL;
    if (e) {
        /* A copy: a generalized request's handle stays needed to complete it. */
        MPI_Request h = e->handle;
        unmap(e);
        rc = PMPI_Request_free(&h);
        if (e->persistent)
            PMPI_Request_free(&e->signal);
        if (e->persistent && e->running)
            e->orphan = 1;
        else if (e->persistent)
            destroy(e);
        *request = MPI_REQUEST_NULL;
    }
    pcoll__dropin_reap();
    pcoll__dropin_unlock();
    return rc;
}

void pcoll__dropin_fix_status(MPI_Request request, MPI_Status *status)
{
    entry_t *e;
    if (status == MPI_STATUS_IGNORE)
        return;
    pcoll__dropin_lock();
    e = find(request);
    if (e && e->persistent)
        empty_status(status);
    pcoll__dropin_unlock();
}

/* Persistent requests the user did not free: their dummies and plans.
 * Running plans and generalized requests are left to MPI_Finalize. */
void pcoll__dropin_release_all(void)
{
    int b;
    pcoll__dropin_lock();
    pcoll__dropin_reap();
    for (b = 0; b < NBUCKETS; b++) {
        entry_t **p = &buckets[b];
        while (*p) {
            entry_t *e = *p;
            if (!e->persistent || e->running) {
                p = &e->next;
                continue;
            }
            *p = e->next;
            PMPI_Request_free(&e->handle);
            PMPI_Request_free(&e->signal);
            destroy(e);
        }
    }
    if (self_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&self_comm);
    pcoll__dropin_unlock();
}
