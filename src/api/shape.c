/*
 * Running a shape's plan for one call after another (see shape.h).
 *
 * The record holds the layouts the plan was built for, with handles of its
 * own for the temporary buffers, and the queue of leases: the runner (whose
 * run the plan is doing) and those waiting, oldest first.  A lease's
 * temporary buffers are made with the lease, so its start allocates
 * nothing.  The leases are on the active list (core/progress.h); the
 * shape's plan is driven by them as a child plan (never listed), under the
 * record's lock, which a pass that finds it taken skips: whoever holds it
 * moves the queue on.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "api/shape.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/progress.h"
#include "datatype/copy.h"
#include "datatype/size.h"
#include "gpu/gpu.h"

typedef struct lease lease_t;

struct pcoll__shape_rec {
    pcoll__view_t view[2];   /* as the call that made the plan gave them */
    MPI_Datatype own[2];     /* the same layouts, alive as long as the record */
    pcoll_plan_t *plan;
    const pcoll__shape_binder_t *binder; /* NULL: bound to views */
    pthread_mutex_t lock;    /* runner, head, tail and the plan's runs */
    int held_alone;          /* the lock where one thread at a time calls pcoll */
    lease_t *runner;         /* NULL: the plan is idle */
    lease_t *head, *tail;    /* waiting to run */
    void *held;              /* a binder's: the arguments of repeated calls */
    unsigned long held_gen;  /* ... their generation (0: none yet) */
    unsigned long bound_gen; /* the held arguments the plan is bound to now (0: others) */
};

/* One run of the plan for one call's buffers. */
struct lease {
    pcoll__shape_rec_t *rec; /* until the run is done: the record may go first */
    const pcoll__shape_binder_t *binder; /* the record's (releases held) */
    pcoll__view_t v[2];      /* the call's buffers (host mirrors of device ones) */
    void *dev[2];            /* a device buffer that v[k] mirrors (NULL: none) */
    MPI_Aint dlo[2];         /* ... the mirror's first byte relative to it */
    size_t dlen[2];          /* ... and the bytes its items span */
    char *mirror[2];
    int same;                /* the plan's copies serve v as they are */
    char *tmp[2];            /* otherwise: the temporary buffers */
    void *at[2];             /* ... where their items start */
    const void *args;        /* a binder's record: the arguments to bind */
    void *base[2];           /* ... host mirrors standing for their buffers */
    void *held;              /* ... a lease's own copy of them */
    int rc;                  /* how the run ended, once done */
    atomic_int done;         /* read without the record's lock (lease_test) */
    lease_t *next;
};

int pcoll__shape_rec_make(pcoll_plan_t *plan, const pcoll__view_t v[2],
                          const pcoll__shape_binder_t *binder, pcoll__shape_rec_t **out)
{
    pcoll__shape_rec_t *r = pcoll__calloc(1, sizeof *r);
    int k;
    if (!r)
        return pcoll__error(PCOLL_ERR_NOMEM, "shape record");
    r->plan = plan;
    r->binder = binder;
    pthread_mutex_init(&r->lock, NULL);
    for (k = 0; k < 2 && !binder; k++) {
        r->view[k] = v[k];
        r->own[k] = r->view[k].type = v[k].present ? v[k].type : MPI_DATATYPE_NULL;
        if (v[k].present && !pcoll__type_is_named(v[k].type) &&
            MPI_Type_dup(v[k].type, &r->own[k]) != MPI_SUCCESS) {
            r->own[k] = r->view[k].type;
            pcoll__shape_rec_free(r);
            return pcoll__error(PCOLL_ERR_MPI, "shape record: MPI_Type_dup");
        }
    }
    *out = r;
    return PCOLL_SUCCESS;
}

/* Whether view v lies as the record's view k: the same handle and count,
 * or both one contiguous byte range from the same offset (the shape's
 * signature makes their sizes equal). */
static int same_view(const pcoll__shape_rec_t *r, int k, int stale, const pcoll__view_t *v)
{
    const pcoll__view_t *rv = &r->view[k];
    MPI_Aint a, b;
    if (v->present != rv->present || !v->present)
        return v->present == rv->present;
    if (v->buf == MPI_BOTTOM)
        return 0;
    if (!stale && v->count == rv->count && v->type == rv->type)
        return 1;
    return v->count <= INT_MAX && rv->count <= INT_MAX &&
           pcoll__type_is_contiguous(v->type, (int)v->count, &a) &&
           pcoll__type_is_contiguous(r->own[k], (int)rv->count, &b) && a == b;
}

int pcoll__shape_same(const pcoll__shape_rec_t *r, int stale, const pcoll__view_t v[2])
{
    return same_view(r, 0, stale, &v[0]) && same_view(r, 1, stale, &v[1]);
}

/* count items of type at src to dcount items of dtype at dst (equal
 * signatures), counts of any size. */
static int copy_items(const void *src, MPI_Count count, MPI_Datatype type, void *dst,
                      MPI_Count dcount, MPI_Datatype dtype)
{
    MPI_Datatype big[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    int k, rc = PCOLL_SUCCESS;
    if (count > INT_MAX && (rc = pcoll__type_items(count, type, &big[0])) == PCOLL_SUCCESS)
        count = 1, type = big[0];
    if (rc == PCOLL_SUCCESS && dcount > INT_MAX &&
        (rc = pcoll__type_items(dcount, dtype, &big[1])) == PCOLL_SUCCESS)
        dcount = 1, dtype = big[1];
    if (rc == PCOLL_SUCCESS)
        rc = pcoll_typed_copy(src, (int)count, type, dst, (int)dcount, dtype);
    for (k = 0; k < 2; k++)
        if (big[k] != MPI_DATATYPE_NULL)
            MPI_Type_free(&big[k]);
    return rc;
}

/* Host mirrors of the call's device buffers (gpu/gpu.h): the plan's copies
 * read and write host memory; the bytes the items span move across before
 * and after the run. */
static int lease_mirror(lease_t *l)
{
    int k, rc = PCOLL_SUCCESS;
    for (k = 0; k < 2 && rc == PCOLL_SUCCESS; k++) {
        if (!l->v[k].present || !pcoll__gpu_is_device(l->v[k].buf) ||
            (rc = pcoll__view_span(&l->v[k], &l->dlo[k], &l->dlen[k])) != PCOLL_SUCCESS)
            continue;
        if (!(l->mirror[k] = pcoll__malloc(l->dlen[k] ? l->dlen[k] : 1)))
            return pcoll__error(PCOLL_ERR_NOMEM, "one-shot: %zu bytes of host mirror",
                                l->dlen[k]);
        l->dev[k] = l->v[k].buf;
        l->v[k].buf = pcoll__addr(l->mirror[k], -l->dlo[k]);
    }
    return rc;
}

/* The same for a binder's record: the bytes of the arguments' buffers that
 * the call's blocks touch. */
static int lease_mirror_args(const pcoll__shape_rec_t *r, lease_t *l)
{
    int k, rc = PCOLL_SUCCESS;
    void *buf;
    for (k = 0; k < 2 && rc == PCOLL_SUCCESS; k++) {
        if ((rc = r->binder->span(l->args, r->plan->size, k, &buf, &l->dlo[k], &l->dlen[k])) !=
                PCOLL_SUCCESS ||
            !buf || !pcoll__gpu_is_device(buf))
            continue;
        if (!(l->mirror[k] = pcoll__malloc(l->dlen[k] ? l->dlen[k] : 1)))
            return pcoll__error(PCOLL_ERR_NOMEM, "one-shot: %zu bytes of host mirror",
                                l->dlen[k]);
        l->dev[k] = buf;
        l->base[k] = pcoll__addr(l->mirror[k], -l->dlo[k]);
    }
    return rc;
}

/* Device to mirror (to: 0) or back (1, the receive buffer only). */
static int mirror_move(const lease_t *l, int to)
{
    int k, rc = PCOLL_SUCCESS;
    for (k = to; k < 2 && rc == PCOLL_SUCCESS; k++)
        if (l->dev[k] && l->dlen[k])
            rc = to ? pcoll__gpu_copy(pcoll__addr(l->dev[k], l->dlo[k]), l->mirror[k], l->dlen[k])
                    : pcoll__gpu_copy(l->mirror[k], pcoll__addr(l->dev[k], l->dlo[k]),
                                      l->dlen[k]);
    return rc;
}

/* The lease's temporary buffers: host mirrors of device ones, and (not
 * same) buffers laid out as the plan's. */
static int lease_alloc(const pcoll__shape_rec_t *r, lease_t *l)
{
    int k, rc = !pcoll__gpu_maybe() ? PCOLL_SUCCESS
                : r->binder         ? lease_mirror_args(r, l)
                                    : lease_mirror(l);
    for (k = 0; k < 2 && !l->same && rc == PCOLL_SUCCESS; k++) {
        pcoll__view_t own = {r->view[k].present, NULL, r->view[k].count, r->own[k]};
        MPI_Aint lo;
        size_t len;
        if (!own.present || (rc = pcoll__view_span(&own, &lo, &len)) != PCOLL_SUCCESS)
            continue;
        if (!(l->tmp[k] = pcoll__malloc(len ? len : 1)))
            rc = pcoll__error(PCOLL_ERR_NOMEM, "one-shot: %zu bytes of staging", len);
        l->at[k] = pcoll__addr(l->tmp[k], -lo);
    }
    return rc;
}

static void lease_release(lease_t *l)
{
    for (int k = 0; k < 2; k++) {
        pcoll__free(l->tmp[k]);
        pcoll__free(l->mirror[k]);
    }
    if (l->held)
        l->binder->release(l->held);
}

/* Bind the plan to the lease's buffers and copy its input in. */
static int bind(pcoll__shape_rec_t *r, const lease_t *l)
{
    int k, in = l->v[0].present ? 0 : 1, rc;
    r->bound_gen = 0;
    if ((rc = mirror_move(l, 0)) != PCOLL_SUCCESS)
        return rc;
    if (r->binder)
        return r->binder->bind(r->plan, l->args, l->base);
    for (k = 0; k < 2; k++)
        if (r->view[k].present)
            pcoll__sched_rebind(&r->plan->sched, k, l->same ? l->v[k].buf : l->at[k]);
    if (l->same)
        return PCOLL_SUCCESS;
    return copy_items(l->v[in].buf, l->v[in].count, l->v[in].type, l->at[in],
                      r->view[in].count, r->own[in]);
}

/* After the run: the output copied out. */
static int unbind(const pcoll__shape_rec_t *r, const lease_t *l)
{
    int rc = l->same || r->binder ? PCOLL_SUCCESS
                     : copy_items(l->at[1], r->view[1].count, r->own[1], l->v[1].buf,
                                  l->v[1].count, l->v[1].type);
    return rc == PCOLL_SUCCESS ? mirror_move(l, 1) : rc;
}

static void begin(pcoll__shape_rec_t *r, lease_t *l);

/* l's run is over (rc: how): hand the plan to the next lease. */
static void finish(pcoll__shape_rec_t *r, lease_t *l, int rc)
{
    lease_t *next = r->head;
    if (rc == PCOLL_SUCCESS)
        rc = unbind(r, l);
    l->rc = rc;
    atomic_store_explicit(&l->done, 1, memory_order_release);
    r->runner = NULL;
    if (next) {
        r->head = next->next;
        if (!r->head)
            r->tail = NULL;
        begin(r, next);
    }
}

/* The record's lock.  Where one thread at a time calls pcoll (MPI below
 * MPI_THREAD_MULTIPLE: pcoll__progress_serial) a flag serves: it keeps a
 * pass of the progress engine from stepping the record in the middle of
 * the record's own run, as the taken mutex does, without the mutex's two
 * calls and atomic read-modify-writes on every one-shot repeat (about 50
 * instructions, as core/progress.c "One thread at a time" saves its list's
 * lock). */
static void rec_lock(pcoll__shape_rec_t *r)
{
    if (pcoll__progress_serial())
        r->held_alone = 1;
    else
        pthread_mutex_lock(&r->lock);
}

static int rec_try_lock(pcoll__shape_rec_t *r)
{
    if (!pcoll__progress_serial())
        return pthread_mutex_trylock(&r->lock) == 0;
    if (r->held_alone)
        return 0;
    r->held_alone = 1;
    return 1;
}

static void rec_unlock(pcoll__shape_rec_t *r)
{
    if (pcoll__progress_serial())
        r->held_alone = 0;
    else
        pthread_mutex_unlock(&r->lock);
}

/* With the lock held. */
static void begin(pcoll__shape_rec_t *r, lease_t *l)
{
    int rc = bind(r, l);
    r->runner = l;
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__plan_begin(r->plan);
    if (rc != PCOLL_SUCCESS)
        finish(r, l, rc);
}

/* Advance the runner once, unless another thread holds the record. */
static void step(pcoll__shape_rec_t *r)
{
    int done = 0, rc;
    if (!rec_try_lock(r))
        return;
    if (r->runner && ((rc = pcoll__plan_step(r->plan, &done)) != PCOLL_SUCCESS || done))
        finish(r, r->runner, rc);
    rec_unlock(r);
}

/* Every queued run to its end (the other plans of the process advance
 * meanwhile: a peer may need one of them first); returns with the lock
 * held and the plan idle. */
static void drain_locked(pcoll__shape_rec_t *r)
{
    rec_lock(r);
    while (r->runner) {
        rec_unlock(r);
        step(r);
        pcoll__progress_pass();
        pcoll__yield();
        rec_lock(r);
    }
}

void pcoll__shape_rec_free(void *rec)
{
    pcoll__shape_rec_t *r = rec;
    int k;
    if (!r)
        return;
    drain_locked(r);
    rec_unlock(r);
    for (k = 0; k < 2 && !r->binder; k++)
        if (r->own[k] != r->view[k].type)
            MPI_Type_free(&r->own[k]);
    if (r->held)
        r->binder->release(r->held);
    pthread_mutex_destroy(&r->lock);
    pcoll__free(r);
}

/* The run of a call whose buffers the plan's copies serve as they are, in
 * a process without device memory: no lease, no temporaries (a repeated
 * call's whole cost beyond the plan's own is here).  With the lock held. */
static int run_on_views(pcoll__shape_rec_t *r, const pcoll__view_t v[2])
{
    int k;
    for (k = 0; k < 2; k++)
        if (r->view[k].present)
            pcoll__sched_rebind(&r->plan->sched, k, v[k].buf);
    return pcoll__plan_run(r->plan);
}

/* Any other run: through a lease of the call's own (mirrors, temporaries
 * in the record's layouts, a binder's arguments).  With the lock held. */
static int run_leased(pcoll__shape_rec_t *r, int same, const pcoll__view_t v[2],
                      const void *args)
{
    lease_t l = {.rec = r, .v = {v[0], v[1]}, .same = same || r->binder, .args = args};
    int rc;
    if ((rc = lease_alloc(r, &l)) == PCOLL_SUCCESS && (rc = bind(r, &l)) == PCOLL_SUCCESS &&
        (rc = pcoll__plan_run(r->plan)) == PCOLL_SUCCESS)
        rc = unbind(r, &l);
    lease_release(&l);
    return rc;
}

/* The node signal around a blocking run (the lock held): raise it where
 * *signal is set, and after the run *signal says whether some rank raised
 * it; NULL: the run does not listen. */
static void listen_begin(pcoll__shape_rec_t *r, const int *signal)
{
    if (signal) {
        r->plan->listen = 1;
        r->plan->raise = *signal;
        r->plan->raised = 0;
    }
}

static void listen_end(pcoll__shape_rec_t *r, int *signal)
{
    if (signal) {
        *signal = r->plan->raised;
        r->plan->listen = r->plan->raise = r->plan->raised = 0;
    }
}

int pcoll__shape_run(pcoll__shape_rec_t *r, int same, const pcoll__view_t v[2],
                     const void *args, int *signal)
{
    int rc;
    drain_locked(r);
    listen_begin(r, signal);
    rc = same && !r->binder && !pcoll__gpu_maybe() ? run_on_views(r, v)
                                                   : run_leased(r, same, v, args);
    listen_end(r, signal);
    rec_unlock(r);
    return rc;
}

int pcoll__shape_hold(pcoll__shape_rec_t *r, const void *args, unsigned long *gen)
{
    void *copy;
    int rc = r->binder->hold(args, r->plan->size, &copy);
    *gen = 0;
    if (rc != PCOLL_SUCCESS)
        return rc;
    rec_lock(r);
    if (r->held)
        r->binder->release(r->held);
    r->held = copy;
    *gen = ++r->held_gen;
    rec_unlock(r);
    return PCOLL_SUCCESS;
}

int pcoll__shape_run_held(pcoll__shape_rec_t *r, unsigned long gen, const pcoll__view_t v[2],
                          int *rc, int *signal)
{
    drain_locked(r);
    if (r->held_gen != gen) {
        rec_unlock(r);
        return 0;
    }
    listen_begin(r, signal);
    /* Still bound to them (no other call ran since): the plan alone. */
    if (r->bound_gen == gen) {
        *rc = pcoll__plan_run(r->plan);
    } else {
        *rc = run_leased(r, 1, v, r->held);
        r->bound_gen = *rc == PCOLL_SUCCESS ? gen : 0;
    }
    listen_end(r, signal);
    rec_unlock(r);
    return 1;
}

/* ---- leases: plans of their own for the non-blocking calls ---------------- */

static int lease_start(pcoll_plan_t *plan)
{
    lease_t *l = plan->priv;
    pcoll__shape_rec_t *r = l->rec;
    int rc = PCOLL_SUCCESS;
    atomic_store_explicit(&l->done, 0, memory_order_relaxed);
    l->rc = PCOLL_SUCCESS;
    l->next = NULL;
    rec_lock(r);
    if (!r->runner) {
        begin(r, l);
        rc = atomic_load_explicit(&l->done, memory_order_relaxed) ? l->rc : PCOLL_SUCCESS;
    } else {
        if (r->tail)
            r->tail->next = l;
        else
            r->head = l;
        r->tail = l;
    }
    rec_unlock(r);
    return rc;
}

static int lease_test(pcoll_plan_t *plan, int *done)
{
    lease_t *l = plan->priv;
    if (!atomic_load_explicit(&l->done, memory_order_acquire))
        step(l->rec);
    *done = atomic_load_explicit(&l->done, memory_order_acquire);
    return *done ? l->rc : PCOLL_SUCCESS;
}

static void lease_destroy(pcoll_plan_t *plan)
{
    lease_t *l = plan->priv;
    if (l)
        lease_release(l);
    pcoll__free(l);
    plan->priv = NULL;
}

static const pcoll__plan_ops_t lease_ops = {
    .start = lease_start,
    .test = lease_test,
    .destroy = lease_destroy,
};

int pcoll__shape_lease(pcoll__shape_rec_t *r, int same, const pcoll__view_t v[2],
                       const void *args, pcoll__ctx_t *ctx, const char *collective,
                       pcoll_plan_t **lease)
{
    pcoll_plan_t *plan = NULL;
    lease_t *l;
    int rc;
    PCOLL_CHECK(pcoll__plan_create(ctx, collective, PCOLL__ONESHOT_TAG, &plan), rc, fail);
    plan->ops = &lease_ops;
    if (!(l = plan->priv = pcoll__calloc(1, sizeof *l))) {
        rc = pcoll__error(PCOLL_ERR_NOMEM, "%s: lease", collective);
        goto fail;
    }
    plan->algorithm = r->plan->algorithm;
    *l = (lease_t){.rec = r, .binder = r->binder, .v = {v[0], v[1]}, .same = same || r->binder,
                   .done = 1};
    if (r->binder) {
        PCOLL_CHECK(r->binder->hold(args, plan->size, &l->held), rc, fail);
        l->args = l->held;
    }
    PCOLL_CHECK(lease_alloc(r, l), rc, fail);
    *lease = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}
