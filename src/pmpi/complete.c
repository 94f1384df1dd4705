/*
 * MPI_Start, MPI_Startall, MPI_Request_free and the completion calls (Wait,
 * Test and Request_get_status families) for requests that stand for pcoll
 * plans (requests.c); all other requests pass to PMPI untouched when no
 * plan of the process is active.
 *
 * Each call first advances every active plan of the process once (the
 * active list, core/progress.h: the drop-in's plans and those of the API's
 * callers), so that MPI_Wait on any request cannot keep a peer that waits
 * for one of those plans from its progress.  A request whose plan
 * still runs is hidden from MPI (MPI_REQUEST_NULL in a copy of the array);
 * once the run is over MPI sees the request complete and finishes it as it
 * defines (status, MPI_REQUEST_NULL, inactive persistent request).
 * - Test*: one pass; MPI_Testall completes nothing unless every request of
 *   the array can complete.
 * - Wait*: while any plan runs anywhere, a loop of passes that yields the
 *   processor after PCOLL__LOOKS fruitless ones, as pcoll's own waits do
 *   (core/schedule.h; ranks may outnumber cores).  A yield on every pass
 *   hands the core to any other runnable thread for its time slice: with
 *   another process busy on the machine, back-to-back
 *   MPI_Ineighbor_alltoallv calls of 8 B at np 2 took 4 ms every other
 *   call, each a sched_yield.  A plan waited for may need peers that wait
 *   on another plan, so every plan is driven.
 *   When no plan runs, MPI's own blocking call.
 */
#include <stdlib.h>

#include "core/schedule.h"
#include "pmpi/dropin.h"

/* Arrays up to this size are copied on the stack. */
#define SMALL 32

/* Whether the call has requests of ours to care about. */
static int involved(void)
{
    return pcoll__dropin_enabled() && pcoll__dropin_tracking();
}

/* One pass: test every running plan; how many of reqs[0..n) stand for plans
 * that still run (hidden: the copy, or NULL). */
static int pass(int n, const MPI_Request *reqs, MPI_Request *hidden, int *running)
{
    int pending;
    pcoll__dropin_lock();
    pcoll__dropin_progress();
    pending = pcoll__dropin_pending(n, reqs, hidden);
    if (running)
        *running = pcoll__dropin_running();
    pcoll__dropin_unlock();
    return pending;
}

/* Free the plans of requests that MPI freed in the last call. */
static void reap(void)
{
    pcoll__dropin_lock();
    pcoll__dropin_reap();
    pcoll__dropin_unlock();
}

/* statuses[k] belongs to reqs[k] (or reqs[indices[k]]) after completion. */
static void fix_statuses(int n, const MPI_Request *reqs, const int *indices, MPI_Status *st)
{
    int k;
    if (st == MPI_STATUSES_IGNORE)
        return;
    for (k = 0; k < n; k++)
        pcoll__dropin_fix_status(reqs[indices ? indices[k] : k], &st[k]);
}

/* A copy buffer of n requests: small ones on the caller's stack. */
static MPI_Request *copy_buffer(int n, MPI_Request *small)
{
    return n <= SMALL ? small : malloc(sizeof(MPI_Request) * (size_t)n);
}

static void copy_release(MPI_Request *copy, MPI_Request *small)
{
    if (copy != small)
        free(copy);
}

/* ---- start and free ------------------------------------------------------------------- */

/* MPI_Start of a request that may be ours (involved() holds). */
static int start_one(MPI_Request *request)
{
    int handled = 0, rc = pcoll__dropin_start(request, &handled);
    return handled ? rc : PMPI_Start(request);
}

int MPI_Start(MPI_Request *request)
{
    if (!involved())
        return PMPI_Start(request);
    return start_one(request);
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    int i, rc = MPI_SUCCESS;
    if (!involved())
        return PMPI_Startall(count, array_of_requests);
    /* In array order, as MPI starts persistent collectives; not through
     * MPI_Start, which another library may interpose too. */
    for (i = 0; i < count && rc == MPI_SUCCESS; i++)
        rc = start_one(&array_of_requests[i]);
    return rc;
}

int MPI_Request_free(MPI_Request *request)
{
    int handled = 0, rc;
    if (!involved())
        return PMPI_Request_free(request);
    rc = pcoll__dropin_free(request, &handled);
    return handled ? rc : PMPI_Request_free(request);
}

/* ---- wait ----------------------------------------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Request req = *request;
    int rc, flag = 0, running;
    if (!involved())
        return PMPI_Wait(request, status);
    unsigned looks = 0;
    for (;;) {
        int pending = pass(1, request, NULL, &running);
        if (!running) {
            rc = PMPI_Wait(request, status);
            break;
        }
        if (!pending && ((rc = PMPI_Test(request, &flag, status)) != MPI_SUCCESS || flag))
            break;
        pcoll__yield_after(&looks);
    }
    pcoll__dropin_fix_status(req, status);
    reap();
    return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int rc, flag = 0, running;
    if (!involved())
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    unsigned looks = 0;
    for (;;) {
        int pending = pass(count, array_of_requests, NULL, &running);
        if (!running) {
            rc = PMPI_Waitall(count, array_of_requests, array_of_statuses);
            break;
        }
        if (!pending && ((rc = PMPI_Testall(count, array_of_requests, &flag,
                                            array_of_statuses)) != MPI_SUCCESS || flag))
            break;
        pcoll__yield_after(&looks);
    }
    fix_statuses(count, array_of_requests, NULL, array_of_statuses);
    reap();
    return rc;
}

/* One pass of Waitany/Testany on the array with running plans hidden:
 * returns 1 when the call is over (*index, *flag set), 0 to try again. */
static int any_pass(int count, MPI_Request *reqs, MPI_Request *copy, int *index, int *flag,
                    MPI_Status *status, int *rc)
{
    int pending = pass(count, reqs, copy, NULL);
    *rc = PMPI_Testany(count, copy, index, flag, status);
    if (*rc != MPI_SUCCESS)
        return 1;
    if (*flag && *index != MPI_UNDEFINED) {
        reqs[*index] = copy[*index];
        pcoll__dropin_fix_status(reqs[*index], status);
        return 1;
    }
    /* Nothing active but plans of ours: not done yet. */
    if (*flag && pending)
        *flag = 0;
    return *flag;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    MPI_Request small[SMALL], *copy;
    int rc, flag = 0, running;
    if (!involved())
        return PMPI_Waitany(count, array_of_requests, index, status);
    if (!(copy = copy_buffer(count, small)))
        return PMPI_Waitany(count, array_of_requests, index, status);
    unsigned looks = 0;
    for (;;) {
        pass(0, NULL, NULL, &running);
        if (!running) {
            rc = PMPI_Waitany(count, array_of_requests, index, status);
            if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
                pcoll__dropin_fix_status(array_of_requests[*index], status);
            break;
        }
        if (any_pass(count, array_of_requests, copy, index, &flag, status, &rc))
            break;
        pcoll__yield_after(&looks);
    }
    copy_release(copy, small);
    reap();
    return rc;
}

/* One pass of Waitsome/Testsome (see any_pass); *outcount 0 to try again. */
static void some_pass(int count, MPI_Request *reqs, MPI_Request *copy, int *outcount,
                      int *indices, MPI_Status *statuses, int *rc)
{
    int pending = pass(count, reqs, copy, NULL), k;
    *rc = PMPI_Testsome(count, copy, outcount, indices, statuses);
    if (*rc != MPI_SUCCESS)
        return;
    if (*outcount == MPI_UNDEFINED) {
        if (pending)
            *outcount = 0;
        return;
    }
    for (k = 0; k < *outcount; k++)
        reqs[indices[k]] = copy[indices[k]];
    fix_statuses(*outcount, reqs, indices, statuses);
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_Request small[SMALL], *copy;
    int rc, running;
    if (!involved() || !(copy = copy_buffer(incount, small)))
        return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses);
    unsigned looks = 0;
    for (;;) {
        pass(0, NULL, NULL, &running);
        if (!running) {
            rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                               array_of_statuses);
            if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
                fix_statuses(*outcount, array_of_requests, array_of_indices,
                             array_of_statuses);
            break;
        }
        some_pass(incount, array_of_requests, copy, outcount, array_of_indices,
                  array_of_statuses, &rc);
        if (rc != MPI_SUCCESS || *outcount != 0)
            break;
        pcoll__yield_after(&looks);
    }
    copy_release(copy, small);
    reap();
    return rc;
}

/* ---- test ----------------------------------------------------------------------------- */

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Request req = *request;
    int rc = MPI_SUCCESS;
    if (!involved())
        return PMPI_Test(request, flag, status);
    *flag = 0;
    if (!pass(1, request, NULL, NULL)) {
        rc = PMPI_Test(request, flag, status);
        if (rc == MPI_SUCCESS && *flag)
            pcoll__dropin_fix_status(req, status);
    }
    reap();
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[])
{
    int rc = MPI_SUCCESS;
    if (!involved())
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    *flag = 0;
    if (!pass(count, array_of_requests, NULL, NULL)) {
        rc = PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
        if (rc == MPI_SUCCESS && *flag)
            fix_statuses(count, array_of_requests, NULL, array_of_statuses);
    }
    reap();
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status)
{
    MPI_Request small[SMALL], *copy;
    int rc;
    if (!involved() || !(copy = copy_buffer(count, small)))
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    any_pass(count, array_of_requests, copy, index, flag, status, &rc);
    copy_release(copy, small);
    reap();
    return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_Request small[SMALL], *copy;
    int rc;
    if (!involved() || !(copy = copy_buffer(incount, small)))
        return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses);
    some_pass(incount, array_of_requests, copy, outcount, array_of_indices, array_of_statuses,
              &rc);
    copy_release(copy, small);
    reap();
    return rc;
}

/* ---- request status (does not free) ----------------------------------------------------- */

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    int rc = MPI_SUCCESS;
    if (!involved())
        return PMPI_Request_get_status(request, flag, status);
    *flag = 0;
    if (!pass(1, &request, NULL, NULL)) {
        rc = PMPI_Request_get_status(request, flag, status);
        if (rc == MPI_SUCCESS && *flag)
            pcoll__dropin_fix_status(request, status);
    }
    return rc;
}

#ifdef PCOLL__DROPIN_HAVE_GET_STATUS_MANY
int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                               MPI_Status array_of_statuses[])
{
    int rc = MPI_SUCCESS;
    if (!involved())
        return PMPI_Request_get_status_all(count, array_of_requests, flag, array_of_statuses);
    *flag = 0;
    if (!pass(count, array_of_requests, NULL, NULL)) {
        rc = PMPI_Request_get_status_all(count, array_of_requests, flag, array_of_statuses);
        if (rc == MPI_SUCCESS && *flag)
            fix_statuses(count, array_of_requests, NULL, array_of_statuses);
    }
    return rc;
}

int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                               int *flag, MPI_Status *status)
{
    MPI_Request small[SMALL], *copy;
    int rc, pending;
    if (!involved() || !(copy = copy_buffer(count, small)))
        return PMPI_Request_get_status_any(count, array_of_requests, index, flag, status);
    pending = pass(count, array_of_requests, copy, NULL);
    rc = PMPI_Request_get_status_any(count, copy, index, flag, status);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        pcoll__dropin_fix_status(array_of_requests[*index], status);
    else if (rc == MPI_SUCCESS && *flag && pending)
        *flag = 0;
    copy_release(copy, small);
    return rc;
}

int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                int *outcount, int array_of_indices[],
                                MPI_Status array_of_statuses[])
{
    MPI_Request small[SMALL], *copy;
    int rc, pending;
    if (!involved() || !(copy = copy_buffer(incount, small)))
        return PMPI_Request_get_status_some(incount, array_of_requests, outcount,
                                            array_of_indices, array_of_statuses);
    pending = pass(incount, array_of_requests, copy, NULL);
    rc = PMPI_Request_get_status_some(incount, copy, outcount, array_of_indices,
                                      array_of_statuses);
    if (rc == MPI_SUCCESS && *outcount == MPI_UNDEFINED && pending)
        *outcount = 0;
    else if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        fix_statuses(*outcount, array_of_requests, array_of_indices, array_of_statuses);
    copy_release(copy, small);
    return rc;
}
#endif
