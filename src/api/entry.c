/*
 * The one entry path (see entry.h): every public collective call, whatever
 * the collective, is checked, agreed on, looked up, chosen, built and
 * committed here.
 *
 * Persistent init: local checks on every rank, then one agreement (the
 * descriptor's) before anything is built, so bad input on one rank makes
 * every rank fail with the same code instead of hanging.  The
 * no-communication mode (pcoll_no_comm, plan creation cost alone) skips the
 * agreement.  One-shot: first by shape (below), where the collective has
 * shapes; else the plan is looked up in the communicator's cache by every
 * argument and option; a miss builds it from local checks alone (ranks may
 * hit and miss differently, so nothing may communicate), and algorithms
 * whose planning communicates are planned collectively on every call
 * instead.  Local (the drop-in's non-blocking calls): a lease on the shape's
 * plan where the shape holds one (shape.h), or on the plan a kin
 * collective's shape holds for the call (the descriptor's lease_kin: an
 * alltoall on alltoallv's), else as a one-shot miss, on a fresh tag, never
 * cached.
 *
 * Shapes.  A one-shot call's shape is what every rank of the communicator
 * knows alike: the options and the sizes in bytes (the descriptor's shape
 * hook), never a buffer or a local datatype handle.  Every rank finds or
 * misses a shape in the context's table together, so a shape may hold a
 * plan that the ranks made together -- the node-aware engines, which the
 * cache by arguments can never hold.  The first PCOLL__SHAPE_CALLS - 1 calls
 * of a shape take the cache by arguments (no communication: a shape seen
 * once costs nothing more); the next one decides for every rank at once, as
 * a persistent init does (the agreement, the choice with every rank
 * planning together): when the choice plans collectively, its plan is built
 * on stand-in buffers (core/region.h) and kept, else the shape takes the
 * cache by arguments from then on.  A kept plan serves every later call of
 * the shape: with the layouts it was built for (the same datatype handles
 * and counts) its copies move to the call's buffers; otherwise the call's
 * data passes through temporary buffers in those layouts, so a rank whose
 * handles differ from the others', or change from call to call, still runs
 * the plan its peers run.  A requested algorithm that plans collectively is
 * decided on its first call.
 *
 * Prepared shapes (PCOLL__PREPARE: the drop-in, where a call that every
 * rank makes together creates a communicator, src/pmpi/made.c).  A
 * non-blocking call never makes a shape (that would communicate), so a
 * program whose calls of a shape are all non-blocking would never get a
 * plan made together.  Preparing decides the shape of a call like the
 * given one (its sizes a stand-in: the plans kept for shapes without
 * sizes serve every size) as the deciding call does; the shape's
 * non-blocking calls lease its plan from their first, and its first
 * blocking call decides it again on its own sizes (its look is due, and
 * the volume of the stand-in is not known, so it counts as moved).  Where
 * the choice keeps no plan the shape stays undecided, as if never seen.
 *
 * Shapes without sizes (alltoallv: the descriptor's keep and binder).
 * Counts differ between ranks and calls, so the shape is the options and
 * MPI_IN_PLACE use alone; its deciding call makes, when the choice is an
 * algorithm with PCOLL__ALGO_KEPT, a plan whose every run takes the call's
 * checked arguments (counts, displacements, types, buffers) and exchanges
 * whatever sizes it needs itself, on the node (hier/hier.h).  Each later
 * call is checked (every rank alone) and bound to that plan; nothing is
 * agreed again.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "api/entry.h"
#include "api/shape.h"
#include "base/mem.h"
#include "base/status.h"
#include "datatype/size.h"
#include "gpu/gpu.h"
#include "model/cost.h"

/* The path's part of a key, rounded up so the collective's part is aligned
 * for any type. */
#define KEY_HEAD \
    ((sizeof(pcoll__opts_t) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * \
     _Alignof(max_align_t))

void *pcoll__key_put(pcoll__key_t *k, size_t len)
{
    size_t total = KEY_HEAD + len;
    k->bytes = total <= PCOLL__KEY_INLINE ? k->inline_bytes : pcoll__malloc(total);
    if (!k->bytes)
        return NULL;
    memset(k->bytes, 0, total);
    k->len = total;
    return k->bytes + KEY_HEAD;
}

/* A key with nothing in it yet (its inline bytes left as they are: a
 * cleared key costs more than some calls). */
static void key_empty(pcoll__key_t *k)
{
    k->bytes = NULL;
    k->len = 0;
    k->ntypes = 0;
}

void pcoll__key_watch(pcoll__key_t *k, MPI_Datatype type)
{
    int i;
    if (k->ntypes > PCOLL__CACHE_TYPES || type == MPI_DATATYPE_NULL ||
        pcoll__type_is_named(type))
        return;
    for (i = 0; i < k->ntypes; i++)
        if (k->types[i] == type)
            return;
    if (k->ntypes == PCOLL__CACHE_TYPES)
        k->ntypes = PCOLL__KEY_UNCACHED;
    else
        k->types[k->ntypes++] = type;
}

/* Whether every type the key names is a predefined one. */
static int key_named(const pcoll__key_t *k)
{
    int i;
    if (k->ntypes == PCOLL__KEY_UNCACHED)
        return 0;
    for (i = 0; i < k->ntypes; i++)
        if (k->types[i] != MPI_DATATYPE_NULL && !pcoll__type_is_named(k->types[i]))
            return 0;
    return 1;
}

static void key_free(pcoll__key_t *k)
{
    if (k->bytes != k->inline_bytes)
        pcoll__free(k->bytes);
}

/* The options (info, then the environment) into c->opts; the progress
 * thread started when they ask for it. */
static int read_options(pcoll__call_t *c)
{
    int rc = pcoll__opts_read(c->info, c->coll->table, &c->opts);
    if (rc == PCOLL_SUCCESS && c->opts.progress_thread)
        rc = pcoll__progress_thread_start();
    return rc;
}

/* Empty builder arguments holding the options, before the check fills them
 * (not on the one-shot path's cache hits). */
static void fresh_args(pcoll__call_t *c)
{
    /* A check made again drops the temporaries of the one before (none
     * on a call's first check: no call into the allocator then). */
    for (int k = 0; k < 2; k++)
        if (c->tmp[k]) {
            pcoll__free(c->tmp[k]);
            c->tmp[k] = NULL;
        }
    memset(c->args, 0, sizeof c->args);
    memcpy(c->args + c->coll->opts_offset, &c->opts, sizeof c->opts);
}

void *pcoll__call_scratch(pcoll__call_t *c, int k, size_t n)
{
    if (c->tmp[k]) {
        pcoll__free(c->tmp[k]);
        c->tmp[k] = NULL;
    }
    if (n <= sizeof c->room[k])
        return c->room[k];
    return c->tmp[k] = pcoll__malloc(n);
}

/* Whether the options request an algorithm whose planning communicates. */
static int requests_collective(const pcoll__call_t *c)
{
    const pcoll__algo_table_t *t = c->coll->table;
    return !pcoll__algo_is_auto(t, c->opts.algorithm) &&
           (t->algos[c->opts.algorithm].flags & PCOLL__ALGO_COLLECTIVE);
}

/* MPI_IN_PLACE for an algorithm that does not serve it itself. */
static int stage(pcoll__call_t *c, pcoll_plan_t *plan)
{
    const pcoll__coll_t *d = c->coll;
    char list[256] = "";
    int i;
    if (d->stage)
        return d->stage(c, plan);
    for (i = 0; i < d->table->count; i++)
        if (d->table->algos[i].flags & PCOLL__ALGO_INPLACE) {
            strncat(list, *list ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, d->table->algos[i].name, sizeof list - strlen(list) - 1);
        }
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s %s: MPI_IN_PLACE (algorithms that serve it: %s)",
                        d->name, d->table->algos[c->algo].name, list);
}

static int run_call(pcoll__call_t *c);

/* What a shape's decision returns when the choice does not plan
 * collectively (every rank alike): the shape takes the cache by arguments. */
#define SHAPE_FLAT 1
/* ... and when a shape decided again chose the algorithm of the plan it
 * holds: the plan stays. */
#define SHAPE_SAME 2

/* Build and commit a plan for c's algorithm on c->ctx with the given tag. */
static int build(pcoll__call_t *c, int tag, pcoll_plan_t **out)
{
    const pcoll__coll_t *d = c->coll;
    const pcoll__algo_t *algo = &d->table->algos[c->algo];
    pcoll_plan_t *plan = NULL;
    int rc;

    if (c->ctx->remote && (c->inplace || !(algo->flags & PCOLL__ALGO_INTER)))
        return c->inplace ? pcoll__error(PCOLL_ERR_ARG, "%s: MPI_IN_PLACE on an "
                                                        "intercommunicator", c->fn)
                          : pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s %s: intercommunicators",
                                         d->name, algo->name);
    PCOLL_CHECK(pcoll__plan_create(c->ctx, d->name, tag, &plan), rc, fail);
    plan->algorithm = algo->name;
    plan->no_comm = c->opts.no_comm;
    plan->together = c->mode == PCOLL__PERSISTENT && !c->opts.no_comm;
    plan->normalize = plan->normalize || c->opts.normalize;
    for (int k = 0; c->regions && k < 2; k++)
        if (c->regions[k].addr)
            PCOLL_CHECK(pcoll__region_bind(plan, k, &c->regions[k]), rc, fail);
    if (d->prepare)
        PCOLL_CHECK(d->prepare(c, plan), rc, fail);
    if (!c->empty) {
        if (c->inplace && !(algo->flags & PCOLL__ALGO_INPLACE))
            PCOLL_CHECK(stage(c, plan), rc, fail);
        PCOLL_CHECK(algo->build(plan, c->args), rc, fail);
    }
    PCOLL_CHECK(pcoll__sched_commit(&plan->sched, plan->comm, plan->tag), rc, fail);
    *out = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}

/* A shape's plan that serves any sizes: made on a tag of the context's,
 * named for the chosen algorithm, filled by the descriptor's keep. */
static int keep(pcoll__call_t *c)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    PCOLL_CHECK(pcoll__plan_create(c->ctx, c->coll->name, pcoll__ctx_tag(c->ctx), &plan), rc,
                fail);
    plan->algorithm = c->coll->table->algos[c->algo].name;
    PCOLL_CHECK(c->coll->keep(c, plan), rc, fail);
    *c->plan = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}

/* Persistent init after the local checks (local: their verdict), on the
 * communicator to plan on. */
static int persistent_on(pcoll__call_t *c, int local)
{
    int rc;
    if ((rc = pcoll__ctx_get(c->comm, &c->ctx)) != PCOLL_SUCCESS)
        return rc;
    if (c->opts.no_comm && local != PCOLL_SUCCESS)
        return local;
    if (!c->opts.no_comm && (rc = c->coll->agree(c, local)) != PCOLL_SUCCESS)
        return rc;
    c->algo = c->coll->choose(c);
    if (c->shaping && c->coll->keep)
        return !(c->coll->table->algos[c->algo].flags & PCOLL__ALGO_KEPT) ? SHAPE_FLAT
               : c->kept && strcmp(c->kept, c->coll->table->algos[c->algo].name) == 0
                   ? SHAPE_SAME
                   : keep(c);
    if (c->shaping && (c->coll->table->algos[c->algo].flags &
                       (PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_REBIND)) !=
                          (PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_REBIND))
        return SHAPE_FLAT;
    return build(c, c->opts.no_comm ? PCOLL__ONESHOT_TAG : pcoll__ctx_tag(c->ctx), c->plan);
}

static int persistent(pcoll__call_t *c)
{
    const pcoll__coll_t *d = c->coll;
    int local, rc;
    local = c->plan ? PCOLL_SUCCESS : pcoll__error(PCOLL_ERR_ARG, "%s: plan is NULL", c->fn);
    if (local == PCOLL_SUCCESS)
        local = read_options(c);
    fresh_args(c);
    if (local == PCOLL_SUCCESS)
        local = d->check(c);
    if (d->open) {
        if ((rc = d->open(c, local)) != PCOLL_SUCCESS)
            return rc;
        MPI_Comm_size(c->comm, &c->p);
        MPI_Comm_rank(c->comm, &c->rank);
    }
    rc = persistent_on(c, local);
    if (d->close)
        d->close(c);
    return rc;
}

/* A one-shot call whose algorithm plans collectively: planned by every
 * rank together, run once, freed. */
static int oneshot_uncached(const pcoll__call_t *c)
{
    pcoll_plan_t *plan = NULL;
    int rc = pcoll__entry(c->coll, PCOLL__PERSISTENT, c->fn, c->raw, c->comm, MPI_INFO_NULL,
                          &plan);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__plan_run(plan);
    pcoll_plan_free(&plan);
    return rc;
}

/* The cache key of the call's arguments and options. */
static int args_key(pcoll__call_t *c, pcoll__key_t *k)
{
    int rc = c->coll->key(c, k);
    if (rc == PCOLL_SUCCESS)
        memcpy(k->bytes, &c->opts, sizeof c->opts);
    return rc;
}

/* Look the call (key k: args_key) up in the cache, else build its plan (no
 * communication) and hand it to the cache; *plan is owned by the cache,
 * unless the key names too many types to be cached (k->ntypes
 * PCOLL__KEY_UNCACHED: the caller frees it). */
static int cached_plan(pcoll__call_t *c, pcoll__key_t *k, pcoll_plan_t **plan)
{
    int rc, uncached = k->ntypes == PCOLL__KEY_UNCACHED;
    if (!uncached && (*plan = pcoll__cache_find(c->ctx, k->bytes, k->len)))
        return PCOLL_SUCCESS;
    fresh_args(c);
    PCOLL_CHECK(c->coll->check(c), rc, out);
    c->algo = c->coll->choose(c);
    PCOLL_CHECK(build(c, PCOLL__ONESHOT_TAG, plan), rc, out);
    if (uncached)
        return PCOLL_SUCCESS;
    rc = pcoll__cache_add(c->ctx, k->bytes, k->len, k->types, k->ntypes, *plan,
                          pcoll__plan_destroy);
    if (rc != PCOLL_SUCCESS)
        pcoll__plan_destroy(*plan);
out:
    return rc;
}

/* ---- Shapes (see the top of this file) ---------------------------------- */

/* A shape is decided at its PCOLL__SHAPE_CALLS-th call. */
#define PCOLL__SHAPE_CALLS 2

enum { SHAPE_UNDECIDED, SHAPE_ARGS, SHAPE_PLAN };

/* Whether every rank says no (flag 0) -- one reduction over ctx->dup. */
static int all_clear(pcoll__call_t *c, int flag)
{
    if (MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, c->ctx->dup) != MPI_SUCCESS)
        return -1;
    return !flag;
}

/* Plan the shape collectively (as a persistent init, on stand-in buffers)
 * and keep the plan in e when the choice plans collectively; SHAPE_FLAT
 * when it does not, or when a rank cannot bind the plan to its buffers. */
static int shape_plan(pcoll__call_t *c, pcoll__cache_entry_t *e, const pcoll__view_t v[2])
{
    _Alignas(max_align_t) unsigned char raw[PCOLL__RAW_MAX];
    pcoll__region_t reg[2] = {{0}, {0}};
    pcoll__call_t d;
    pcoll_plan_t *plan = NULL;
    pcoll__shape_rec_t *rec = NULL;
    void *bufs[2];
    int k, bad = 0, clear, rc;
    for (k = 0; k < 2; k++) {
        bufs[k] = v[k].buf;
        if (v[k].present && !bad && !c->coll->keep)
            bad = pcoll__region_reserve(&v[k], &reg[k]) != PCOLL_SUCCESS;
        if (reg[k].addr)
            bufs[k] = reg[k].base;
    }
    bad = bad || pcoll__gpu_key_kinds(v[0].present ? v[0].buf : NULL, v[1].buf) != 0;
    if ((clear = all_clear(c, bad)) <= 0) {
        for (k = 0; k < 2; k++)
            pcoll__region_release(&reg[k]);
        if (clear == 0 && e->plan)
            pcoll__shape_undecide(c->ctx, e);
        return clear < 0 ? pcoll__error(PCOLL_ERR_MPI, "%s: shape agreement", c->fn)
                         : SHAPE_FLAT;
    }
    if (!c->coll->keep)
        c->coll->rebase(c->raw, raw, bufs);
    memset(&d, 0, offsetof(pcoll__call_t, args));
    d.coll = c->coll, d.mode = PCOLL__PERSISTENT, d.fn = c->fn;
    d.raw = c->coll->keep ? c->raw : raw;
    d.comm = c->comm, d.info = MPI_INFO_NULL, d.plan = &plan;
    d.regions = c->coll->keep ? NULL : reg, d.shaping = 1;
    d.kept = e->plan ? e->plan->algorithm : NULL;
    d.steady = c->steady;
    rc = run_call(&d);
    for (k = 0; k < 2; k++)
        pcoll__region_release(&reg[k]);
    if (rc == SHAPE_SAME)
        return PCOLL_SUCCESS;
    /* Decided again otherwise: the plan held so far goes. */
    if (e->plan && (rc == PCOLL_SUCCESS || rc == SHAPE_FLAT))
        pcoll__shape_undecide(c->ctx, e);
    if (rc == PCOLL_SUCCESS && !c->coll->keep &&
        (clear = all_clear(c, plan->sched.unbound || plan->ops != &pcoll__sched_ops)) <= 0)
        rc = clear < 0 ? pcoll__error(PCOLL_ERR_MPI, "%s: shape agreement", c->fn) : SHAPE_FLAT;
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__shape_rec_make(plan, v, c->coll->binder, &rec);
    if (rc == PCOLL_SUCCESS) {
        MPI_Datatype watch[2];
        int n = 0;
        for (k = 0; k < 2 && !c->coll->keep; k++)
            if (v[k].present && !pcoll__type_is_named(v[k].type))
                watch[n++] = v[k].type;
        return pcoll__shape_set(e, plan, pcoll__plan_destroy, rec, pcoll__shape_rec_free, watch,
                                n);
    }
    pcoll__plan_destroy(plan);
    return rc;
}

/* The shape entry of the call (added: made when missing); NULL with *rc
 * SHAPE_FLAT when the call has no shape or is not looked up by shape, or an
 * error. */
static pcoll__cache_entry_t *shape_of(pcoll__call_t *c, const pcoll__key_t *a, int add, int *rc)
{
    const pcoll__algo_table_t *t = c->coll->table;
    pcoll__cache_entry_t *e = NULL;
    pcoll__key_t k;
    /* A call with the arguments of the last one has its shape (a shape
     * without sizes is cheaper to compute than the memo to keep). */
    int memo = a->bytes && a->ntypes != PCOLL__KEY_UNCACHED && !c->coll->keep;
    key_empty(&k);
    *rc = SHAPE_FLAT;
    if (!c->coll->shape || c->opts.no_comm || c->ctx->remote ||
        (!pcoll__algo_is_auto(t, c->opts.algorithm) && !requests_collective(c)))
        return NULL;
    if (memo)
        e = pcoll__shape_memo(c->ctx, a->bytes, a->len);
    if (!e && (*rc = c->coll->shape(c, &k)) == PCOLL_SUCCESS) {
        memcpy(k.bytes, &c->opts, sizeof c->opts);
        e = pcoll__shape_get(c->ctx, k.bytes, k.len, add);
        *rc = e ? PCOLL_SUCCESS
                : add ? pcoll__error(PCOLL_ERR_NOMEM, "%s: shape table", c->fn) : SHAPE_FLAT;
        if (e && memo)
            pcoll__shape_remember(c->ctx, e, a->bytes, a->len, a->types, a->ntypes);
    }
    key_free(&k);
    if (*rc == PCOLL_ERR_UNSUPPORTED)
        *rc = SHAPE_FLAT;
    if (e)
        e->calls++;
    return e;
}

/* The call's buffers (none for a shape whose plan takes the checked
 * arguments instead). */
static void call_views(const pcoll__call_t *c, pcoll__view_t v[2])
{
    memset(v, 0, 2 * sizeof *v);
    if (c->coll->views)
        c->coll->views(c, c->raw, v);
}

static void remember(const pcoll__call_t *c, const pcoll_plan_t *plan, pcoll__cache_entry_t *e,
                     const pcoll__view_t v[2], const pcoll__key_t *k);

static int same_layouts(pcoll__cache_entry_t *e, const pcoll__view_t v[2])
{
    return pcoll__shape_same(e->aux, atomic_load_explicit(&e->stale, memory_order_acquire), v);
}

/* Shapes decided again.  Shapes without sizes (the descriptor's keep and
 * volume) under auto may be decided again as their calls go on, since the
 * counts of the call that decided may not be the program's: at call 64,
 * then every time the count of calls has grown 8 times (512, 4096), but
 * never more than PCOLL__SHAPE_LOOKS_APART calls apart (20480, 36864, ...:
 * a program whose sizes change after many calls is seen within that many
 * more; a look is one reduction, 1-21 us at np 2), one reduction asks
 * whether some rank's volume left half to twice what it
 * was at the last decision, or whether the calls became steady or stopped
 * being so (below), and only then is the shape decided again (the
 * agreement and the choice; a choice that stands keeps the plan).  Every
 * rank counts a shape's calls alike (repeats too), so every rank asks at
 * the same call.  A kept plan on one node carries a signal besides
 * (core/node.h): a rank whose volume moved so, or whose calls became far
 * less steady, raises it in its call's run, and every rank of the node,
 * which is every rank of the communicator, then asks at the next call.
 *
 * Steady calls.  A call that repeats the one before it, arrays and all,
 * runs the shape's plan without pcoll's checks of its arguments (a
 * repeat); one whose counts changed pays them, where the MPI's own call
 * pays nothing of the kind.  So the choice weighs the checks by the share
 * of calls that change (pcoll__call_t's steady), which every rank notes
 * (entry's recent): every call of a kept plan, and of the MPI's call the
 * last PCOLL__SHAPE_SAMPLE - 1 before each look (a forwarded repeat
 * compares its arrays then, and only then); a look agrees on the least
 * share over the ranks, each rank's over its last 64 noted calls where it
 * noted PCOLL__STEADY_CALLS or more, else the share the last decision
 * weighed.  A share that moved by more than PCOLL__STEADY_MOVE per mille
 * from the last decision's, the way that may change the verdict (steadier
 * where the shape holds no plan, less steady where it holds one), decides
 * again; a rank of a kept plan whose last PCOLL__STEADY_CALLS calls were
 * steady less often than that by twice as much raises the signal. */
#define PCOLL__SHAPE_SAMPLE 32
#define PCOLL__SHAPE_LOOKS_APART 16384
#define PCOLL__STEADY_MOVE 125
#define PCOLL__STEADY_CALLS 16

/* Note one call of e (steady: it repeated the call before it). */
static void note_call(pcoll__cache_entry_t *e, int steady)
{
    e->recent = e->recent << 1 | (unsigned long long)(steady != 0);
    e->noted += e->noted < 64;
}

/* The share of steady calls among the last n noted, per mille. */
static int steady_of(const pcoll__cache_entry_t *e, int n)
{
    unsigned long long bits = n < 64 ? e->recent & ((1ULL << n) - 1) : e->recent;
    return n > 0 ? (int)(__builtin_popcountll(bits) * 1000 / n) : 0;
}

/* Whether this rank's last PCOLL__STEADY_CALLS calls of e were far less
 * steady than the last decision found the calls (a kept plan's calls:
 * every one noted). */
static int unsteady_now(const pcoll__cache_entry_t *e)
{
    return e->noted >= PCOLL__STEADY_CALLS &&
           steady_of(e, PCOLL__STEADY_CALLS) + 2 * PCOLL__STEADY_MOVE < e->steady_share;
}

static unsigned long long next_recheck(unsigned long long calls)
{
    if (calls < 8)
        return 64;
    return calls * 7 < PCOLL__SHAPE_LOOKS_APART ? calls * 8 : calls + PCOLL__SHAPE_LOOKS_APART;
}

static int recheck_due(const pcoll__cache_entry_t *e)
{
    return e->verdict != SHAPE_UNDECIDED && e->recheck && e->calls >= e->recheck;
}

/* This rank's volume of the call (the descriptor's, from its checked
 * arguments), -1 where the check refuses the call. */
static long long volume_of(pcoll__call_t *c)
{
    fresh_args(c);
    return c->coll->check(c) == PCOLL_SUCCESS ? c->coll->volume(c) : -1;
}

/* At a shape's recheck: 1 where some rank's volume left half to twice
 * what it was at the last decision (or its call is refused: the decision
 * then fails alike everywhere) or the calls' steadiness changed where it
 * may change the verdict, 0 where neither did, an error; one reduction.
 * *volume: this rank's; c->steady: the agreed share of steady calls. */
static int moved(pcoll__call_t *c, pcoll__cache_entry_t *e, long long *volume)
{
    long long v = *volume = volume_of(c), w = e->volume;
    int mine = e->noted >= PCOLL__STEADY_CALLS ? steady_of(e, e->noted) : e->steady_share;
    int flags[2] = {v < 0 || w < 0 || v / 2 > w || w / 2 > v, 1000 - mine};
    int steadier, unsteadier;
    e->recent = 0, e->noted = 0;
    if (MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, c->ctx->dup) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: shape agreement", c->fn);
    c->steady = 1000 - flags[1];
    /* Steadier calls can only favour a kept plan, less steady ones the
     * MPI's call: decided again only where the verdict may change. */
    steadier = c->steady > e->steady_share + PCOLL__STEADY_MOVE;
    unsteadier = c->steady + PCOLL__STEADY_MOVE < e->steady_share;
    e->steady_share = c->steady;
    return flags[0] || (steadier && e->verdict != SHAPE_PLAN) ||
           (unsteadier && e->verdict == SHAPE_PLAN);
}

/* Serve a one-shot call (key a: args_key) by its shape; SHAPE_FLAT when
 * the shape takes the cache by arguments. */
static int by_shape(pcoll__call_t *c, const pcoll__key_t *a)
{
    pcoll__view_t v[2];
    int rc, decide, wanted = requests_collective(c), signal = 0, *listen = NULL;
    long long volume = -1;
    pcoll__cache_entry_t *e = shape_of(c, a, 1, &rc);
    if (!e) {
        c->repeatable = rc == SHAPE_FLAT;
        return rc;
    }
    if (recheck_due(e) && (rc = moved(c, e, &volume)) <= 0) {
        if (rc < 0)
            return rc;
        e->recheck = next_recheck(e->calls);
    }
    /* Decided again: a shape that took the cache by arguments forgets it
     * (its repeats stop: they would forward to the plan found before). */
    if (recheck_due(e) && e->verdict == SHAPE_ARGS)
        pcoll__shape_undecide(c->ctx, e);
    /* The call's buffers: only where the shape's plan may take them. */
    decide = (e->verdict == SHAPE_UNDECIDED && (wanted || e->calls >= PCOLL__SHAPE_CALLS)) ||
             recheck_due(e);
    if (e->verdict == SHAPE_PLAN || decide)
        call_views(c, v);
    if (decide) {
        rc = shape_plan(c, e, v);
        if (rc != PCOLL_SUCCESS && rc != SHAPE_FLAT)
            return rc;
        if (rc != SHAPE_FLAT && e->verdict != SHAPE_PLAN)
            pcoll__ctx_change(c->ctx);
        e->verdict = rc == SHAPE_FLAT ? SHAPE_ARGS : SHAPE_PLAN;
        c->decided = 1;
        e->recheck = c->coll->volume && !wanted ? next_recheck(e->calls) : 0;
        e->volume = e->recheck ? (volume >= 0 ? volume : volume_of(c)) : -1;
        e->steady_share = c->steady;
    }
    if (e->verdict != SHAPE_PLAN) {
        /* The MPI's call: noted only just before a look, as its repeats. */
        if (!c->decided && e->recheck && e->calls + PCOLL__SHAPE_SAMPLE > e->recheck)
            note_call(e, 0);
        if (wanted && e->verdict == SHAPE_ARGS)
            return oneshot_uncached(c);
        c->repeatable = e->verdict == SHAPE_ARGS;
        c->flat = e;
        return SHAPE_FLAT;
    }
    /* A plan that serves any sizes takes the call's checked arguments; a
     * rank whose volume left half to twice what it was at the last decision,
     * or whose calls became far less steady, raises the node signal, and
     * where some rank of the node raised it, every rank looks at the next
     * call ("Shapes decided again"). */
    if (c->coll->binder) {
        fresh_args(c);
        if ((rc = c->coll->check(c)) != PCOLL_SUCCESS)
            return rc;
        if (e->recheck) {
            long long w = e->volume, now = c->coll->volume(c);
            if (!c->decided)
                note_call(e, 0);
            signal = (w >= 0 && (now / 2 > w || w / 2 > now)) || unsteady_now(e);
            listen = &signal;
        }
    }
    rc = pcoll__shape_run(e->aux, same_layouts(e, v), v, c->args, listen);
    if (rc == PCOLL_SUCCESS && signal)
        e->recheck = e->calls + 1;
    pcoll__last_run_algorithm = e->plan->algorithm;
    if (rc == PCOLL_SUCCESS && a->bytes && a->ntypes != PCOLL__KEY_UNCACHED)
        remember(c, NULL, e, v, a);
    return rc;
}

/* A non-blocking call (the drop-in's) of a shape that holds a plan: a
 * lease on it in *c->plan; SHAPE_FLAT otherwise.  Shapes are only looked
 * up here, never made: that would communicate. */
static int lease_by_shape(pcoll__call_t *c)
{
    pcoll__view_t v[2];
    pcoll__key_t a;
    pcoll__cache_entry_t *e;
    int rc;
    key_empty(&a);
    if (c->coll->shape && args_key(c, &a) != PCOLL_SUCCESS)
        key_free(&a), a.bytes = NULL;
    e = shape_of(c, &a, 0, &rc);
    /* The choice stands for the same arguments (local_remember) where the
     * key names no derived type and no shape holds a plan. */
    c->repeatable = a.bytes && key_named(&a) && (!e || e->verdict != SHAPE_PLAN);
    key_free(&a);
    if (!e || e->verdict != SHAPE_PLAN)
        return e ? SHAPE_FLAT : rc;
    call_views(c, v);
    return pcoll__shape_lease(e->aux, same_layouts(e, v), v, c->args, c->ctx, c->coll->name,
                              c->plan);
}

/* ---- Repeats -------------------------------------------------------------
 * A one-shot call with, word for word, the arguments of the thread's last
 * one (the descriptor's words hook), on the same communicator, with the
 * environment as it was, runs that call's plan again: no key, no lookup, no
 * options read.  It is the plan the path would find, and the call counts
 * as the path would count it (the cache's and the shape's uses, which decide
 * evictions: the shape table must change alike on every rank, whichever
 * ranks repeat).  Two kinds of calls are remembered, where the path's
 * answer cannot change while the arguments do not: a plan from the cache by
 * arguments, the call having no shape or one decided for that cache; and a
 * shape's plan made together (no binder), run on the call's buffers as the
 * path runs it, the layouts compared again each time.  A plan from the
 * cache that is the table's `native`, for a collective whose one-shot
 * choice reads none of its arrays (the descriptor's forward hook), is
 * forwarded: the MPI's call on the call's arrays as they are, checked but
 * not compared (but in the calls that note whether they are steady: "Steady
 * calls"), so counts that change every call repeat too.  Checked again on
 * every repeat: the communicator's context (freed communicators detach
 * theirs), the cache entry (evicted, or a datatype of its key freed), the
 * shape entry (evicted) and, for a shape's plan, the memo of the call's
 * arguments (a datatype of the call freed: its handle may come back for a
 * type of another size): every such event counts as a change of the
 * context (core/comm.h), so a repeat compares one count.  Not with verbose
 * output (the path prints) nor where buffers may be device memory (a freed
 * host buffer's address may come back as device memory: the path asks). */
typedef struct repeat {
    const pcoll__coll_t *coll; /* NULL: nothing remembered */
    MPI_Comm comm;
    pcoll__ctx_t *ctx;
    unsigned long detached, changes, env;
    int nwords;
    int forward; /* the plan is `native`, run by the descriptor's forward */
    int kept;    /* the arrays are in array (same_arrays can compare) */
    uintptr_t words[PCOLL__CALL_WORDS];
    /* The cache's plan (plan.e), else a shape's (shape, memo, views). */
    pcoll__cache_ref_t plan, shape, memo;
    unsigned long count; /* calls served as repeats */
    unsigned long held;  /* a binder's shape: its record's copy of the checked
                            arguments (pcoll__shape_hold; 0: none yet) */
    int same; /* same_layouts of v */
    pcoll__view_t v[2];
    size_t nbytes; /* of array: the descriptor's arrays, end to end */
    unsigned char array[PCOLL__CALL_ARRAY];
} repeat_t;

/* Taken by address once per call: in a shared library each access to a
 * thread-local variable may cost a call into the dynamic linker. */
static PCOLL__THREAD_LOCAL repeat_t repeat;

unsigned long pcoll__repeats(void)
{
    return repeat.count;
}

/* The number of blocks a call of coll on ctx's communicator holds. */
static int blocks_of(const pcoll__coll_t *coll, const pcoll__ctx_t *ctx)
{
    return ctx->remote && coll->inter == PCOLL__INTER_REMOTE ? ctx->remote : ctx->size;
}

/* Whether raw's arrays (the descriptor's arrays hook) are the ones r
 * keeps; keep: make them so (0 where they are too long to keep). */
static int arrays_match(repeat_t *r, const pcoll__coll_t *coll, const void *raw, int keep)
{
    const void *at[PCOLL__CALL_ARRAYS] = {NULL};
    size_t bytes[PCOLL__CALL_ARRAYS] = {0}, off = 0;
    int i, n;
    n = coll->arrays(raw, r->ctx, blocks_of(coll, r->ctx), at, bytes);
    for (i = 0; i < n; off += bytes[i++]) {
        if (!bytes[i])
            continue;
        if (!at[i] || bytes[i] > sizeof r->array - off)
            return 0;
        if (keep)
            memcpy(r->array + off, at[i], bytes[i]);
        else if (memcmp(r->array + off, at[i], bytes[i]) != 0)
            return 0;
    }
    if (keep)
        r->nbytes = off;
    return off == r->nbytes;
}

/* The collectives without arrays (alltoall, reduce_scatter_block) return
 * here without the arrays' scratch being set up: the repeats' hot path. */
static inline int same_arrays(repeat_t *r, const pcoll__coll_t *coll, const void *raw, int keep)
{
    return !coll->arrays || arrays_match(r, coll, raw, keep);
}

/* Whether c, served by shape e, is the call r remembers, word for word
 * and array for array. */
static int repeats_last(repeat_t *r, const pcoll__call_t *c, const pcoll__cache_entry_t *e)
{
    uintptr_t w[PCOLL__CALL_WORDS] = {0};
    if (r->coll != c->coll || r->comm != c->comm || r->ctx != c->ctx || r->shape.e != e ||
        !r->kept || c->coll->words(c->raw, w) != r->nwords ||
        memcmp(w, r->words, sizeof w) != 0)
        return 0;
    return same_arrays(r, c->coll, c->raw, 0);
}

/* Remember c (plan: its plan from the cache by arguments; or NULL and its
 * shape's entry e run on the views v). */
static PCOLL__NOINLINE void remember_in(repeat_t *r, const pcoll__call_t *c,
                                        const pcoll_plan_t *plan, pcoll__cache_entry_t *e,
                                        const pcoll__view_t v[2], const pcoll__key_t *k)
{
    int again = !plan && c->coll->binder && (c->decided || repeats_last(r, c, e));
    r->coll = NULL;
    r->held = 0;
    if (!c->coll->words || c->opts.verbose || pcoll__gpu_maybe())
        return;
    r->plan = plan ? pcoll__cache_ref(c->ctx, plan) : (pcoll__cache_ref_t){NULL, 0};
    /* The memo watches the call's datatypes (a freed one is a change of
     * the context).  A binder's shape is found without it: its memo is
     * made here, for the calls that repeat, and a first call is only
     * noted (what the next one compares). */
    if (again)
        pcoll__shape_remember(c->ctx, e, k->bytes, k->len, k->types, k->ntypes);
    r->memo = plan ? (pcoll__cache_ref_t){NULL, 0}
                   : pcoll__shape_memo_ref(c->ctx, k->bytes, k->len);
    if (plan ? !r->plan.e : !r->memo.e && (again || !c->coll->binder))
        return;
    e = plan ? c->flat : e;
    r->shape = e ? (pcoll__cache_ref_t){e, e->born} : (pcoll__cache_ref_t){NULL, 0};
    if (!plan) {
        r->v[0] = v[0], r->v[1] = v[1];
        r->same = same_layouts(e, v);
    }
    r->ctx = c->ctx;
    r->forward = plan && c->coll->forward && strcmp(plan->algorithm, "native") == 0;
    memset(r->words, 0, sizeof r->words);
    if ((r->nwords = c->coll->words(c->raw, r->words)) == 0)
        return;
    r->kept = same_arrays(r, c->coll, c->raw, 1);
    if (!r->kept && !r->forward)
        return;
    /* A binder's shape: its checked arguments kept by the deciding call
     * (once a shape) and by the second of two equal calls (calls that change
     * every time never pay for a copy). */
    if (again)
        (void)pcoll__shape_hold(e->aux, c->args, &r->held);
    r->comm = c->comm;
    /* The context's changes from the entries' last change: a later one
     * (another call's eviction, a type freed) is seen. */
    r->detached = pcoll__ctx_detached();
    r->changes = pcoll__ctx_changes(c->ctx);
    r->env = pcoll__opts_epoch();
    r->coll = c->coll;
}

static void remember(const pcoll__call_t *c, const pcoll_plan_t *plan, pcoll__cache_entry_t *e,
                     const pcoll__view_t v[2], const pcoll__key_t *k)
{
    remember_in(&repeat, c, plan, e, v, k);
}

/* Whether raw's arrays are the last call's (steady), those kept for the
 * next call to compare.  Only after a forward: arrays the forward took pass
 * its checks, so a later call with the same words and these arrays is
 * forwarded too, never run on the plan found by arguments (whose arrays
 * they may not be) when a forward declines. */
static int steady_arrays(repeat_t *r, const pcoll__coll_t *coll, const void *raw)
{
    if (r->kept && arrays_match(r, coll, raw, 0))
        return 1;
    r->kept = arrays_match(r, coll, raw, 1);
    return 0;
}

/* A repeat of a `native` plan: the MPI's call on the call's own arrays
 * (the descriptor's forward); 0 where it declines.  sample: the call notes
 * whether it is steady. */
static int forwarded(repeat_t *r, const pcoll__coll_t *coll, const void *raw, int sample,
                     int *rc)
{
    const pcoll_plan_t *plan = r->plan.e->plan;
    int err = coll->forward(raw, r->ctx, plan->comm);
    if (err == PCOLL__FORWARD_DECLINED)
        return 0;
    /* Counted as every repeat is: the shape table's order must stay the
     * same on every rank, forwarded here or not. */
    if (r->shape.e) {
        pcoll__shape_ref_use(r->ctx, r->shape);
        if (sample && coll->arrays)
            note_call(r->shape.e, steady_arrays(r, coll, raw));
    }
    pcoll__cache_ref_use(r->ctx, r->plan);
    r->count++;
    pcoll__set_verbose(0);
    pcoll__last_run_algorithm = plan->algorithm;
    *rc = err == MPI_SUCCESS ? PCOLL_SUCCESS
                             : pcoll__error(PCOLL_ERR_MPI, "%s native: call (MPI %d)",
                                            plan->collective, err);
    return 1;
}

/* Run a repeat of the thread's last remembered call, its use counted: 1
 * with *rc its code, 0 when this call is not one. */
static inline int repeated(repeat_t *r, const pcoll__coll_t *coll, const void *raw, MPI_Comm comm,
                           int *rc)
{
    uintptr_t w[PCOLL__CALL_WORDS] = {0}, diff = 0;
    pcoll__ctx_t *ctx = r->ctx;
    pcoll__cache_entry_t *e = r->shape.e;
    int i, sample = 0, signal = 0;
    if (r->comm != comm || coll->words(raw, w) != r->nwords)
        return 0;
    /* Every word, the unused ones zero on both sides: no loop bound to test. */
    for (i = 0; i < PCOLL__CALL_WORDS; i++)
        diff |= w[i] ^ r->words[i];
    /* The context's changes only while it lives (nothing detached). */
    if (diff || pcoll__ctx_detached() != r->detached || pcoll__ctx_changes(ctx) != r->changes ||
        pcoll__opts_epoch() != r->env || pcoll__gpu_maybe())
        return 0;
    /* The call at which the shape is decided again takes the full path;
     * the calls before it note whether they are steady. */
    if (e && e->recheck && e->calls + PCOLL__SHAPE_SAMPLE >= e->recheck) {
        if (e->calls + 1 >= e->recheck)
            return 0;
        sample = 1;
    }
    if (r->forward && forwarded(r, coll, raw, sample, rc))
        return 1;
    if (!r->kept || !same_arrays(r, coll, raw, 0))
        return 0;
    pcoll__set_verbose(0);
    if (r->plan.e) {
        pcoll__cache_ref_use(ctx, r->plan);
        *rc = pcoll__plan_run(r->plan.e->plan);
    } else if (!coll->binder) {
        *rc = pcoll__shape_run(e->aux, r->same, r->v, NULL, NULL);
    } else if (!r->held ||
               !pcoll__shape_run_held(e->aux, r->held, r->v, rc, e->recheck ? &signal : NULL)) {
        return 0;
    }
    /* The node signal (by_shape): this call's arrays are the last call's,
     * which raised it already where they moved; another rank may have. */
    if (e) {
        pcoll__shape_ref_use(ctx, r->shape);
        if (e->recheck && (sample || !r->plan.e))
            note_call(e, 1);
        if (*rc == PCOLL_SUCCESS && signal)
            e->recheck = e->calls + 1;
    }
    r->count++;
    if (!r->plan.e)
        pcoll__last_run_algorithm = e->plan->algorithm;
    return 1;
}

static int oneshot(pcoll__call_t *c)
{
    pcoll_plan_t *plan = NULL;
    pcoll__key_t k;
    int rc;
    if ((rc = read_options(c)) != PCOLL_SUCCESS)
        return rc;
    if (requests_collective(c) && !c->coll->shape)
        return oneshot_uncached(c);
    if (!c->ctx && (rc = pcoll__ctx_get(c->comm, &c->ctx)) != PCOLL_SUCCESS)
        return rc;
    c->p = blocks_of(c->coll, c->ctx);
    c->rank = c->ctx->rank;
    c->inter = c->ctx->remote > 0;
    key_empty(&k);
    c->repeatable = !c->coll->shape || c->opts.no_comm;
    if ((rc = args_key(c, &k)) == PCOLL_SUCCESS && !c->repeatable)
        rc = by_shape(c, &k);
    else if (rc == PCOLL_SUCCESS)
        rc = SHAPE_FLAT;
    if (rc == SHAPE_FLAT && (rc = cached_plan(c, &k, &plan)) == PCOLL_SUCCESS) {
        rc = pcoll__plan_run(plan);
        if (rc == PCOLL_SUCCESS && c->repeatable && k.ntypes != PCOLL__KEY_UNCACHED)
            remember(c, plan, NULL, NULL, NULL);
    }
    if (k.ntypes == PCOLL__KEY_UNCACHED)
        pcoll__plan_destroy(plan);
    key_free(&k);
    return rc;
}

/* ---- Local repeats -------------------------------------------------------
 * A non-blocking call of the drop-in answered PCOLL__LOCAL_NATIVE is
 * remembered as a one-shot repeat is ("Repeats"), in a record of its own:
 * the thread's next non-blocking call with, word for word and array for
 * array, its arguments, on the same communicator, with the environment as
 * it was and no change of the context (a shape given a plan is one), gets
 * the same answer without checks or choice.  The buffers are compared by
 * kind alone (MPI_IN_PLACE, none, or an address: where no device memory
 * can be, the choice reads nothing else of them, so a program that swaps
 * buffers from call to call repeats too); a collective whose choice reads
 * none of its arrays (the descriptor's forward hook) compares none of
 * them: counts that change every call repeat too.  Only calls whose datatypes
 * are all predefined (a derived one freed could come back as a type of
 * other sizes, for which the other ranks would choose anew) and that found
 * no shape holding a plan (c->repeatable, lease_by_shape).  The answer
 * makes the MPI's call on the call's arguments, so checks skipped change no
 * result: an erroneous call gets the MPI's error. */
static PCOLL__THREAD_LOCAL repeat_t local_repeat;

/* The call's words with its buffers (w[0], w[1]) by kind; their count. */
static int local_words(const pcoll__coll_t *coll, const void *raw, uintptr_t w[])
{
    int n = coll->words(raw, w), k;
    for (k = 0; k < 2 && n >= 2; k++)
        w[k] = w[k] == (uintptr_t)MPI_IN_PLACE ? 1 : w[k] == 0 ? 2 : 0;
    return n;
}

static void local_remember(repeat_t *r, const pcoll__call_t *c)
{
    r->coll = NULL;
    if (!c->repeatable || !c->coll->words || c->info != MPI_INFO_NULL || c->opts.verbose ||
        pcoll__gpu_maybe())
        return;
    memset(r->words, 0, sizeof r->words);
    if ((r->nwords = local_words(c->coll, c->raw, r->words)) == 0)
        return;
    r->ctx = c->ctx;
    if (!c->coll->forward && !same_arrays(r, c->coll, c->raw, 1))
        return;
    r->comm = c->comm;
    r->detached = pcoll__ctx_detached();
    r->changes = pcoll__ctx_changes(c->ctx);
    r->env = pcoll__opts_epoch();
    r->coll = c->coll;
}

/* Whether a local call is the one r remembers (its answer then stands). */
static int local_repeated(repeat_t *r, const pcoll__coll_t *coll, const void *raw, MPI_Comm comm)
{
    uintptr_t w[PCOLL__CALL_WORDS] = {0}, diff = 0;
    int i;
    if (r->comm != comm || local_words(coll, raw, w) != r->nwords)
        return 0;
    for (i = 0; i < PCOLL__CALL_WORDS; i++)
        diff |= w[i] ^ r->words[i];
    if (diff || pcoll__ctx_detached() != r->detached ||
        pcoll__ctx_changes(r->ctx) != r->changes || pcoll__opts_epoch() != r->env ||
        pcoll__gpu_maybe() || (!coll->forward && !same_arrays(r, coll, raw, 0)))
        return 0;
    r->count++;
    pcoll__last_run_algorithm = "native";
    return 1;
}

/* A local call's options, checks and context, then its lease where its
 * shape holds a plan (else SHAPE_FLAT). */
static int local_lease(pcoll__call_t *c)
{
    int rc;
    if ((rc = read_options(c)) != PCOLL_SUCCESS)
        return rc;
    fresh_args(c);
    if ((rc = c->coll->check(c)) != PCOLL_SUCCESS)
        return rc;
    if ((rc = pcoll__ctx_get(c->comm, &c->ctx)) != PCOLL_SUCCESS)
        return rc;
    /* The shape's hooks leave the checked arguments as they are. */
    return lease_by_shape(c);
}

static int local(pcoll__call_t *c)
{
    const pcoll__algo_table_t *t = c->coll->table;
    int rc;
    if ((rc = local_lease(c)) != SHAPE_FLAT)
        return rc;
    if (c->coll->lease_kin && pcoll__algo_is_auto(t, c->opts.algorithm) &&
        (rc = c->coll->lease_kin(c)) != PCOLL__LEASE_NONE)
        return rc;
    if (requests_collective(c))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s: %s plans collectively", c->fn,
                            t->algos[c->opts.algorithm].name);
    c->algo = c->coll->choose(c);
    /* The MPI's own call: the caller makes it on the call's arguments (a
     * plan around it would add its building, tracking and freeing to every
     * call: Open MPI's MPI_Ialltoall at np 2 took 0.29 us alone, 1.1 us
     * inside a plan), unless the MPI's calls complete sooner inside one
     * (model/cost.h tested). */
    if (c->coll->native_as_given && strcmp(t->algos[c->algo].name, "native") == 0 &&
        !pcoll__cost_params().tested) {
        pcoll__last_run_algorithm = t->algos[c->algo].name;
        local_remember(&local_repeat, c);
        return PCOLL__LOCAL_NATIVE;
    }
    return build(c, pcoll__ctx_tag(c->ctx), c->plan);
}

/* PCOLL__LEASE: the shape's plan leased, as a local call does, or
 * PCOLL__LEASE_NONE. */
static int lease_only(pcoll__call_t *c)
{
    int rc = local_lease(c);
    return rc == SHAPE_FLAT ? PCOLL__LEASE_NONE : rc;
}

/* PCOLL__PREPARE ("Prepared shapes"): every rank of the communicator. */
static int prepare(pcoll__call_t *c)
{
    pcoll__view_t v[2];
    pcoll__key_t none;
    pcoll__cache_entry_t *e;
    int rc;
    if ((rc = read_options(c)) != PCOLL_SUCCESS)
        return rc;
    if ((rc = pcoll__ctx_get(c->comm, &c->ctx)) != PCOLL_SUCCESS)
        return rc;
    key_empty(&none);
    if (!c->coll->keep || !(e = shape_of(c, &none, 1, &rc)))
        return c->coll->keep && rc != SHAPE_FLAT ? rc : PCOLL_SUCCESS;
    e->calls--; /* no call of the program's */
    if (e->verdict != SHAPE_UNDECIDED)
        return PCOLL_SUCCESS;
    call_views(c, v);
    if ((rc = shape_plan(c, e, v)) != PCOLL_SUCCESS)
        return rc == SHAPE_FLAT ? PCOLL_SUCCESS : rc;
    e->verdict = SHAPE_PLAN;
    pcoll__ctx_change(c->ctx);
    e->recheck = e->calls + 1;
    e->volume = -1;
    e->steady_share = 1000;
    return PCOLL_SUCCESS;
}

static int run_call(pcoll__call_t *c)
{
    int rc, i;
    pcoll__set_verbose(0);
    if (c->plan)
        *c->plan = NULL;
    /* One-shot calls on a communicator pcoll knows (checked when its context
     * was made, for a collective that serves it) skip the communicator's
     * checks. */
    if (!(c->mode == PCOLL__ONESHOT && pcoll__ctx_known(c->comm, &c->ctx) &&
          (!c->ctx->remote || c->coll->inter)) &&
        (rc = pcoll__check_comm(c->comm, c->coll->inter, c->fn)) != PCOLL_SUCCESS)
        return rc;
    /* One-shot: size and rank from the context, after the options. */
    if (c->mode != PCOLL__ONESHOT) {
        MPI_Comm_test_inter(c->comm, &c->inter);
        if (c->inter && c->coll->inter == PCOLL__INTER_REMOTE)
            MPI_Comm_remote_size(c->comm, &c->p);
        else
            MPI_Comm_size(c->comm, &c->p);
        MPI_Comm_rank(c->comm, &c->rank);
    }
    if (c->mode == PCOLL__PERSISTENT)
        rc = persistent(c);
    else if (c->mode == PCOLL__ONESHOT)
        rc = oneshot(c);
    else if (c->mode == PCOLL__PREPARE)
        rc = prepare(c);
    else if (c->mode == PCOLL__LEASE)
        rc = lease_only(c);
    else
        rc = local(c);
    for (i = 0; i < 2; i++)
        pcoll__free(c->tmp[i]);
    return rc;
}

/* Every call that is not a repeat (out of line: the repeats' path then
 * sets up no frame for the call's record). */
static PCOLL__NOINLINE int entry_call(const pcoll__coll_t *coll, pcoll__mode_t mode,
                                      const char *fn, const void *raw, MPI_Comm comm,
                                      MPI_Info info, pcoll_plan_t **plan)
{
    pcoll__call_t c;
    /* The argument space is cleared only where a plan is built. */
    memset(&c, 0, offsetof(pcoll__call_t, args));
    c.coll = coll, c.mode = mode, c.fn = fn, c.raw = raw;
    c.comm = comm, c.info = info, c.plan = plan;
    return run_call(&c);
}

/* A one-shot call of the remembered collective: a repeat, or the full path
 * (out of line, as entry_call: pcoll__entry then calls either in its tail,
 * with no frame of its own). */
static PCOLL__NOINLINE int entry_repeat(const pcoll__coll_t *coll, pcoll__mode_t mode,
                                        const char *fn, const void *raw, MPI_Comm comm,
                                        MPI_Info info, pcoll_plan_t **plan)
{
    int rc;
    if (repeated(&repeat, coll, raw, comm, &rc))
        return rc;
    return entry_call(coll, mode, fn, raw, comm, info, plan);
}

int pcoll__entry(const pcoll__coll_t *coll, pcoll__mode_t mode, const char *fn, const void *raw,
                 MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    if (mode == PCOLL__ONESHOT && repeat.coll == coll)
        return entry_repeat(coll, mode, fn, raw, comm, info, plan);
    if (mode == PCOLL__LOCAL && local_repeat.coll == coll && info == MPI_INFO_NULL &&
        local_repeated(&local_repeat, coll, raw, comm)) {
        *plan = NULL;
        return PCOLL__LOCAL_NATIVE;
    }
    return entry_call(coll, mode, fn, raw, comm, info, plan);
}
