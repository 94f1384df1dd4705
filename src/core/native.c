/*
 * Plans of the MPI's own collective (see native.h).
 */
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "core/comm.h"
#include "core/native.h"
#include "base/pmpi.h"
#include "core/progress.h"
#include "model/cost.h"

typedef struct native {
    const pcoll__native_calls_t *calls;
    MPI_Request req;
    int persistent;         /* req is MPI-4's persistent request */
    int deferred;           /* start only notes the run; wait or test calls */
    int pending;            /* started, the blocking call not yet made */
    void *args;
} native_t;

static int mpi_failed(const pcoll_plan_t *plan, const char *what, int err)
{
    return pcoll__error(PCOLL_ERR_MPI, "%s native: %s (MPI %d)", plan->collective, what, err);
}

static int native_run(pcoll_plan_t *plan)
{
    native_t *n = plan->priv;
    int err = n->calls->blocking(n->args, plan->comm);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : mpi_failed(plan, "call", err);
}

static int native_start(pcoll_plan_t *plan)
{
    native_t *n = plan->priv;
    int err;
    if (n->deferred) {
        n->pending = 1;
        return PCOLL_SUCCESS;
    }
    err = n->persistent ? PCOLL__MPI(Start)(&n->req)
                        : n->calls->nonblocking(n->args, plan->comm, &n->req);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : mpi_failed(plan, "start", err);
}

/* A deferred plan's run: the blocking call, once per start. */
static int deferred_run(pcoll_plan_t *plan)
{
    native_t *n = plan->priv;
    n->pending = 0;
    return native_run(plan);
}

static int native_test(pcoll_plan_t *plan, int *done)
{
    native_t *n = plan->priv;
    int err;
    if (n->deferred) {
        *done = 1;
        return n->pending ? deferred_run(plan) : PCOLL_SUCCESS;
    }
    err = PCOLL__MPI(Test)(&n->req, done, MPI_STATUS_IGNORE);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : mpi_failed(plan, "test", err);
}

static int native_wait(pcoll_plan_t *plan)
{
    native_t *n = plan->priv;
    int err;
    if (n->deferred)
        return n->pending ? deferred_run(plan) : PCOLL_SUCCESS;
    err = PCOLL__MPI(Wait)(&n->req, MPI_STATUS_IGNORE);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : mpi_failed(plan, "wait", err);
}

static void native_destroy(pcoll_plan_t *plan)
{
    native_t *n = plan->priv;
    if (!n)
        return;
    if (n->persistent && n->req != MPI_REQUEST_NULL)
        PCOLL__MPI(Request_free)(&n->req);
    pcoll__free(n->args);
    pcoll__free(n);
    plan->priv = NULL;
}

static const pcoll__plan_ops_t native_ops = {
    .start = native_start,
    .test = native_test,
    .destroy = native_destroy,
    .wait = native_wait,
    .run = native_run,
};

int pcoll__native_defers(const pcoll__native_calls_t *calls, int together, int size, int remote)
{
    return together && (size > 1 || remote) && pcoll__cost_params().defer &&
           !(calls->init && calls->keep_init) && pcoll__progress_serial();
}

int pcoll__native_plan(pcoll_plan_t *plan, const pcoll__native_calls_t *calls,
                       const void *args, size_t bytes)
{
    native_t *n = pcoll__calloc(1, sizeof *n);
    int err;
    if (!n || !(n->args = pcoll__malloc(bytes ? bytes : 1))) {
        pcoll__free(n);
        return pcoll__error(PCOLL_ERR_NOMEM, "%s native: plan state", plan->collective);
    }
    memcpy(n->args, args, bytes);
    n->calls = calls;
    n->req = MPI_REQUEST_NULL;
    plan->priv = n;
    plan->ops = &native_ops;
    /* Planned together, every rank defers alike: each makes the blocking
     * call, which would not match another rank's started request.  One
     * rank alone waits for nobody, and Open MPI 5's blocking MPI_Alltoallw
     * moves nothing there: its request.  An intercommunicator never holds
     * one rank alone, whatever its local group's size (a group of one
     * deciding otherwise than the other group would start a request that
     * the other's blocking calls never match).  Only where one thread at a
     * time calls pcoll: elsewhere another thread's pass over the active
     * list (or the progress thread's) could make a deferred blocking call
     * while this thread makes another on the same communicator. */
    n->deferred = pcoll__native_defers(calls, plan->together, plan->size, plan->ctx->remote);
    plan->solo = !plan->no_comm;
    if (!calls->init || !plan->together || plan->no_comm || n->deferred)
        return PCOLL_SUCCESS;
    /* Collective: every rank of a persistent init gets here together. */
    if ((err = calls->init(n->args, plan->comm, &n->req)) != MPI_SUCCESS)
        return mpi_failed(plan, "persistent init", err);
    n->persistent = 1;
    return PCOLL_SUCCESS;
}
