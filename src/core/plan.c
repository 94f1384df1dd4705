/*
 * Plans: creation, owned resources, the start/test/wait state machine and
 * freeing.  See plan.h.
 */
#include <string.h>

#include "base/mem.h"
#include "base/options.h"
#include "core/plan.h"
#include "base/pmpi.h"
#include "core/schedule.h"
#include "base/status.h"
#include "datatype/size.h"

int pcoll__plan_create(pcoll__ctx_t *ctx, const char *collective, int tag,
                       pcoll_plan_t **plan)
{
    pcoll_plan_t *p = pcoll__calloc(1, sizeof *p);
    if (!p)
        return pcoll__error(PCOLL_ERR_NOMEM, "plan: cannot allocate");
    p->collective = collective;
    p->algorithm = "";
    p->ops = &pcoll__sched_ops;
    p->ctx = ctx;
    pcoll__ctx_retain(ctx);
    p->comm = ctx->dup;
    p->sched.ctl = ctx->ctl;
    p->tag = tag;
    /* A malformed value was refused when the options were read. */
    pcoll__opts_flag(MPI_INFO_NULL, "pcoll_normalize", "PCOLL_NORMALIZE", &p->normalize);
    MPI_Comm_rank(p->comm, &p->rank);
    MPI_Comm_size(p->comm, &p->size);
    *plan = p;
    return PCOLL_SUCCESS;
}

void *pcoll__plan_alloc(pcoll_plan_t *plan, size_t bytes)
{
    void **list = pcoll__realloc(plan->buffers, (size_t)(plan->nbuffers + 1) * sizeof *list);
    void *buf;
    if (!list)
        return NULL;
    plan->buffers = list;
    buf = pcoll__calloc(1, bytes ? bytes : 1);
    if (buf)
        plan->buffers[plan->nbuffers++] = buf;
    return buf;
}

int pcoll__plan_own_type(pcoll_plan_t *plan, MPI_Datatype *type)
{
    MPI_Datatype *list = pcoll__realloc(plan->types, (size_t)(plan->ntypes + 1) * sizeof *list);
    if (!list) {
        MPI_Type_free(type);
        return pcoll__error(PCOLL_ERR_NOMEM, "plan: datatype list");
    }
    plan->types = list;
    plan->types[plan->ntypes++] = *type;
    if (MPI_Type_commit(&plan->types[plan->ntypes - 1]) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "plan: MPI_Type_commit failed");
    *type = plan->types[plan->ntypes - 1];
    return PCOLL_SUCCESS;
}

int pcoll__plan_keep_type(pcoll_plan_t *plan, MPI_Datatype *type)
{
    MPI_Datatype copy;
    if (pcoll__type_is_named(*type))
        return PCOLL_SUCCESS;
    /* A type normalization cannot handle (too large) is kept as it is. */
    if (!(plan->normalize && pcoll_type_normalize(*type, &copy) == PCOLL_SUCCESS) &&
        MPI_Type_dup(*type, &copy) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "plan: MPI_Type_dup failed");
    *type = copy;
    return pcoll__plan_own_type(plan, type);
}

static int phased_test(pcoll_plan_t *plan, int *done)
{
    pcoll__phased_t *e = plan->priv;
    int moved = 1, rc = PCOLL_SUCCESS;
    while (e->phase != e->def->last && moved && rc == PCOLL_SUCCESS)
        rc = e->def->advance(e, &moved);
    if (rc != PCOLL_SUCCESS) {
        e->def->drop(e);
        e->phase = e->def->last;
    }
    *done = e->phase == e->def->last;
    return rc;
}

static void phased_begin(pcoll__phased_t *e)
{
    e->phase = 0;
    if (e->def->begin)
        e->def->begin(e);
}

static int phased_start(pcoll_plan_t *plan)
{
    int done;
    phased_begin(plan->priv);
    return phased_test(plan, &done);
}

static int phased_wait(pcoll_plan_t *plan)
{
    pcoll__phased_t *e = plan->priv;
    unsigned looks = 0;
    int done = 0, rc;
    e->blocking = 1;
    while ((rc = phased_test(plan, &done)) == PCOLL_SUCCESS && !done)
        pcoll__yield_after(&looks);
    e->blocking = 0;
    return rc;
}

/* A one-shot run blocks from its first phase: no test of its messages
 * before the wait (an MPI may charge each test, and a simulated one slows
 * the messages a failed test looked at). */
static int phased_run(pcoll_plan_t *plan)
{
    phased_begin(plan->priv);
    return phased_wait(plan);
}

static void phased_destroy(pcoll_plan_t *plan)
{
    pcoll__phased_t *e = plan->priv;
    if (!e)
        return;
    e->def->drop(e);
    pcoll__free(e->own);
    pcoll__free(e);
    plan->priv = NULL;
}

const pcoll__plan_ops_t pcoll__phased_ops = {
    .start = phased_start,
    .test = phased_test,
    .destroy = phased_destroy,
    .wait = phased_wait,
    .run = phased_run,
};

int pcoll__requests_done(MPI_Request *reqs, int *n, int block, int *flag, const char *what)
{
    int err = MPI_SUCCESS;
    *flag = 1;
    if (*n > 0)
        err = block ? PCOLL__MPI(Waitall)(*n, reqs, MPI_STATUSES_IGNORE)
                    : PCOLL__MPI(Testall)(*n, reqs, flag, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: a message failed", what);
    if (*flag)
        *n = 0;
    return PCOLL_SUCCESS;
}

int pcoll__plan_on_free(pcoll_plan_t *plan, void (*fn)(void *arg), void *arg)
{
    pcoll__on_free_t *list =
        pcoll__realloc(plan->on_free, (size_t)(plan->non_free + 1) * sizeof *list);
    if (!list) {
        fn(arg);
        return pcoll__error(PCOLL_ERR_NOMEM, "plan: release list");
    }
    plan->on_free = list;
    plan->on_free[plan->non_free++] = (pcoll__on_free_t){fn, arg};
    return PCOLL_SUCCESS;
}

void pcoll__plan_destroy(pcoll_plan_t *plan)
{
    int i;
    if (!plan)
        return;
    if (plan->ops->destroy)
        plan->ops->destroy(plan);
    pcoll__sched_free(&plan->sched);
    for (i = plan->non_free - 1; i >= 0; i--)
        plan->on_free[i].fn(plan->on_free[i].arg);
    pcoll__free(plan->on_free);
    for (i = 0; i < plan->nbuffers; i++)
        pcoll__free(plan->buffers[i]);
    for (i = 0; i < plan->ntypes; i++)
        MPI_Type_free(&plan->types[i]);
    pcoll__free(plan->buffers);
    pcoll__free(plan->types);
    pcoll__ctx_release(plan->ctx);
    pcoll__free(plan);
}

/* The schedule's executor as plan operations. */
static int sched_start(pcoll_plan_t *plan)
{
    return pcoll__sched_start(&plan->sched);
}

static int sched_test(pcoll_plan_t *plan, int *done)
{
    return pcoll__sched_test(&plan->sched, done);
}

static int sched_wait(pcoll_plan_t *plan)
{
    return pcoll__sched_wait(&plan->sched);
}

const pcoll__plan_ops_t pcoll__sched_ops = {
    .start = sched_start, .test = sched_test, .wait = sched_wait};

/* A run that failed leaves the plan inactive and freeable. */
static int finish(pcoll_plan_t *plan, int rc, int done)
{
    if (rc != PCOLL_SUCCESS || done)
        plan->state = PCOLL__INACTIVE;
    return rc;
}

int pcoll__plan_begin(pcoll_plan_t *plan)
{
    return plan->no_comm ? PCOLL_SUCCESS : plan->ops->start(plan);
}

int pcoll__plan_step(pcoll_plan_t *plan, int *done)
{
    *done = plan->no_comm;
    return plan->no_comm ? PCOLL_SUCCESS : plan->ops->test(plan, done);
}

int pcoll__plan_block(pcoll_plan_t *plan)
{
    if (plan->no_comm)
        return PCOLL_SUCCESS;
    if (plan->ops->wait)
        return plan->ops->wait(plan);
    for (;;) {
        int done = 0, rc = plan->ops->test(plan, &done);
        if (rc != PCOLL_SUCCESS || done)
            return rc;
        pcoll__yield(); /* oversubscribed peers must get the processor */
    }
}

int pcoll_start(pcoll_plan_t *plan)
{
    int rc;
    if (!plan)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_start: NULL plan");
    if (plan->state == PCOLL__ACTIVE)
        return pcoll__error(PCOLL_ERR_STATE, "pcoll_start: plan is already active");
    plan->state = PCOLL__ACTIVE;
    if ((rc = pcoll__plan_begin(plan)) == PCOLL_SUCCESS && !pcoll__progress_set_aside(plan))
        pcoll__progress_add(plan, plan->no_comm);
    return finish(plan, rc, 0);
}

/* The rest of the run of a plan set aside at its start (progress.h). */
static int run_aside(pcoll_plan_t *plan)
{
    return finish(plan, pcoll__plan_block(plan), 1);
}

int pcoll__plan_poll(pcoll_plan_t *plan, int *flag)
{
    int rc;
    if (pcoll__progress_is_aside(plan)) {
        rc = plan->ops->test(plan, flag);
        if (rc != PCOLL_SUCCESS || *flag)
            pcoll__progress_take_aside(plan);
        return finish(plan, rc, *flag);
    }
    rc = pcoll__progress_collect(plan, flag);
    return finish(plan, rc, *flag);
}

int pcoll_test(pcoll_plan_t *plan, int *flag)
{
    int rc;
    if (!plan || !flag)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_test: NULL plan or flag");
    *flag = 0;
    if (plan->state != PCOLL__ACTIVE)
        return pcoll__error(PCOLL_ERR_STATE, "pcoll_test: plan is not active");
    pcoll__progress_pass();
    rc = pcoll__plan_poll(plan, flag);
    *flag = *flag && rc == PCOLL_SUCCESS;
    return rc;
}

/* Every active plan advances while this one is waited for, so that peers
 * waiting in another order get what they need from this process; alone on
 * the list, the plan blocks in its own wait. */
int pcoll_wait(pcoll_plan_t *plan)
{
    if (!plan)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_wait: NULL plan");
    if (plan->state != PCOLL__ACTIVE)
        return pcoll__error(PCOLL_ERR_STATE, "pcoll_wait: plan is not active");
    if (pcoll__progress_take_aside(plan))
        return run_aside(plan);
    for (;;) {
        int flag = 0, rc;
        if (pcoll__progress_claim_alone(plan)) {
            rc = pcoll__plan_block(plan);
            pcoll__progress_release(plan, rc);
            return finish(plan, rc, 1);
        }
        pcoll__progress_pass();
        if ((rc = pcoll__plan_poll(plan, &flag)) != PCOLL_SUCCESS || flag)
            return rc;
        pcoll__yield();
    }
}

PCOLL__THREAD_LOCAL const char *pcoll__last_run_algorithm = "";

int pcoll_plan_free(pcoll_plan_t **plan)
{
    if (!plan || !*plan)
        return PCOLL_SUCCESS;
    if ((*plan)->state == PCOLL__ACTIVE)
        return pcoll__error(PCOLL_ERR_STATE, "pcoll_plan_free: plan is active");
    if ((*plan)->cached)
        return pcoll__error(PCOLL_ERR_STATE, "pcoll_plan_free: plan belongs to the cache");
    pcoll__plan_destroy(*plan);
    *plan = NULL;
    return PCOLL_SUCCESS;
}

const char *pcoll_plan_algorithm(const pcoll_plan_t *plan)
{
    return plan ? plan->algorithm : "";
}

int pcoll_plan_print(const pcoll_plan_t *plan, FILE *out)
{
    if (!plan || !out)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_plan_print: NULL plan or stream");
    fprintf(out, "plan %s/%s: rank %d of %d, tag %d\n", plan->collective, plan->algorithm,
            plan->rank, plan->size, plan->tag);
    if (plan->describe)
        plan->describe(plan->describe_arg, out);
    return pcoll__sched_print(&plan->sched, out);
}
