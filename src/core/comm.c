/*
 * Communicator contexts and the one-shot plan cache (see comm.h).
 *
 * Three keyvals: one on user communicators (the context), one on MPI_COMM_SELF
 * whose delete callback runs first in MPI_Finalize and tears every context
 * down, and one on derived datatypes named in cache keys, whose delete
 * callback marks the entries stale so a recycled handle never finds an old
 * plan.
 *
 * MPI sessions.  A process that never calls MPI_Init has no MPI_COMM_SELF
 * and may never call MPI_Finalize: its communicators come from
 * MPI_Comm_create_from_group and must be freed before MPI_Session_finalize.
 * There the keyvals live while a context does: when the user frees the
 * last communicator pcoll knows (its delete callback), the keyvals and the
 * library's own communicator (datatype/self.h) are freed with it, so
 * nothing of the session is left for MPI_Session_finalize; the next
 * communicator makes them again.
 *
 * Threads (include/pcoll.h "Threads"; what is per communicator: comm.h).
 * Per process, shared by every thread:
 * - the keyvals, made by the first call of any thread under keyval_lock;
 *   keyvals_ready (release/acquire) publishes them to the others.  They are
 *   freed in MPI_Finalize, which runs on one thread once the others are done
 *   with MPI, so self_delete takes no lock;
 * - the list of contexts, and in every context's cache the fields
 *   type_delete reads and writes (types, ntypes, and stale, which is atomic
 *   because the context's own thread reads it without the lock), under
 *   list_lock.
 * list_lock is a leaf: nothing else is locked and no MPI function is called
 * while it is held.  Context creation is collective (MPI_Comm_dup): holding
 * a process-wide lock there would let two threads that create contexts on
 * two communicators in opposite orders on two ranks wait for each other
 * forever; and MPI may hold locks of its own while it runs the delete
 * callbacks, which take list_lock.  keyval_lock is held across the local
 * calls that make the keyvals only, and no callback takes it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/comm.h"
#include "base/mem.h"
#include "base/pmpi.h"
#include "core/defects.h"
#include "core/node.h"
#include "core/plan.h"
#include "base/status.h"
#include "datatype/self.h"
#include "datatype/size.h"

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int keyvals_ready;
static int comm_keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static int type_keyval = MPI_KEYVAL_INVALID;

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static pcoll__ctx_t *contexts;

/* How many contexts have been detached from their communicators; and per
 * thread, the last communicator pcoll__ctx_known found a context on, valid
 * while that count has not moved (a freed communicator's handle may come
 * back for another one, whose context is not that one). */
static atomic_ulong detached;
static _Thread_local struct {
    MPI_Comm comm;
    pcoll__ctx_t *ctx;
    unsigned long detached;
} last_known;

/* Empty an entry of ctx: its fields change under the lock (type_delete may
 * be reading them from another thread), its plan is freed after (that calls
 * MPI); an entry that held a key counts as a change of ctx. */
static void cache_drop(pcoll__ctx_t *ctx, pcoll__cache_entry_t *e)
{
    pcoll_plan_t *plan = e->plan;
    void (*destroy)(pcoll_plan_t *plan) = e->destroy;
    void *key = e->key, *aux = e->aux;
    void (*aux_free)(void *aux) = e->aux_free;
    pthread_mutex_lock(&list_lock);
    memset(e, 0, sizeof *e);
    pthread_mutex_unlock(&list_lock);
    if (key)
        atomic_fetch_add_explicit(&ctx->changes, 1, memory_order_release);
    /* The record first: it may still run the plan (shapes). */
    if (aux)
        aux_free(aux);
    if (plan) {
        plan->cached = 0;
        destroy(plan);
    }
    pcoll__free(key);
}

/* Mark the entries of ctx's n naming type stale, a change of ctx
 * (list_lock held). */
static void mark_stale(pcoll__ctx_t *ctx, pcoll__cache_entry_t *entries, int n,
                       MPI_Datatype type)
{
    int i, t;
    for (i = 0; i < n; i++)
        for (t = 0; t < entries[i].ntypes; t++)
            if (entries[i].types[t] == type) {
                atomic_store_explicit(&entries[i].stale, 1, memory_order_release);
                atomic_fetch_add_explicit(&ctx->changes, 1, memory_order_release);
            }
}

static pcoll__ctx_t *first_context(void)
{
    pcoll__ctx_t *ctx;
    pthread_mutex_lock(&list_lock);
    ctx = contexts;
    pthread_mutex_unlock(&list_lock);
    return ctx;
}

void pcoll__ctx_retain(pcoll__ctx_t *ctx)
{
    ctx->refs++;
}

void pcoll__ctx_release(pcoll__ctx_t *ctx)
{
    int fini = 0;
    if (!ctx || --ctx->refs > 0)
        return;
    pcoll__node_cache_free(ctx);
    pcoll__free(ctx->topo.ranks);
    MPI_Finalized(&fini);
    if (!fini) {
        if (ctx->whole != ctx->dup)
            MPI_Comm_free(&ctx->whole);
        MPI_Comm_free(&ctx->dup);
        MPI_Comm_free(&ctx->ctl);
    }
    pcoll__free(ctx);
}

static void keyvals_free(void);

/* The user's communicator is going away: empty the cache, unlink, release;
 * under sessions alone, the last one takes the keyvals with it. */
static void ctx_detach(pcoll__ctx_t *ctx)
{
    pcoll__ctx_t **p;
    int i, init = 0, last;
    for (i = 0; i < PCOLL__CACHE_SIZE; i++)
        cache_drop(ctx, &ctx->cache[i]);
    for (i = 0; i < PCOLL__SHAPES; i++)
        cache_drop(ctx, &ctx->shape[i]);
    cache_drop(ctx, &ctx->memo);
    atomic_fetch_add_explicit(&detached, 1, memory_order_release);
    pthread_mutex_lock(&list_lock);
    for (p = &contexts; *p; p = &(*p)->next)
        if (*p == ctx) {
            *p = ctx->next;
            break;
        }
    last = contexts == NULL;
    pthread_mutex_unlock(&list_lock);
    ctx->user = MPI_COMM_NULL;
    pcoll__ctx_release(ctx);
    MPI_Initialized(&init);
    if (last && !init)
        keyvals_free();
}

static int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    ctx_detach(value);
    return MPI_SUCCESS;
}

/* Run by the thread that frees a derived datatype, while other threads may
 * use their contexts: only the locked fields are touched. */
static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    pcoll__ctx_t *ctx;
    (void)keyval, (void)value, (void)extra;
    pthread_mutex_lock(&list_lock);
    for (ctx = contexts; ctx; ctx = ctx->next) {
        mark_stale(ctx, ctx->cache, PCOLL__CACHE_SIZE, type);
        mark_stale(ctx, ctx->shape, PCOLL__SHAPES, type);
        mark_stale(ctx, &ctx->memo, 1, type);
    }
    pthread_mutex_unlock(&list_lock);
    return MPI_SUCCESS;
}

/* First thing in MPI_Finalize: free every context and the keyvals. */
static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    pcoll__ctx_t *ctx;
    (void)comm, (void)keyval, (void)value, (void)extra;
    while ((ctx = first_context()) != NULL)
        if (MPI_Comm_delete_attr(ctx->user, comm_keyval) != MPI_SUCCESS ||
            first_context() == ctx)
            ctx_detach(ctx);
    keyvals_free();
    return MPI_SUCCESS;
}

/* The keyvals and the library's own communicator, all freed (MPI_Finalize,
 * or the last context under sessions; self_keyval, made only after
 * MPI_Init, is left to MPI_Finalize, which is running its callback). */
static void keyvals_free(void)
{
    MPI_Comm_free_keyval(&comm_keyval);
    MPI_Type_free_keyval(&type_keyval);
    pcoll__self_free();
    self_keyval = comm_keyval = type_keyval = MPI_KEYVAL_INVALID;
    atomic_store_explicit(&keyvals_ready, 0, memory_order_release);
}

/* The teardown at MPI_Finalize: an attribute on MPI_COMM_SELF (after
 * MPI_Init only; under sessions the last context tears down). */
static int watch_finalize(void)
{
    int init = 0;
    MPI_Initialized(&init);
    return !init ||
           (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keyval, NULL) ==
                MPI_SUCCESS &&
            MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) == MPI_SUCCESS);
}

/* The keyvals and the library's own communicator (made from comm under
 * sessions), made once per process by whichever thread comes first (a
 * failure is reported to that thread; the next call tries again). */
static int make_keyvals(MPI_Comm comm)
{
    int ok;
    if (atomic_load_explicit(&keyvals_ready, memory_order_acquire))
        return PCOLL_SUCCESS;
    pthread_mutex_lock(&keyval_lock);
    ok = atomic_load_explicit(&keyvals_ready, memory_order_relaxed);
    if (!ok) {
        ok = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &comm_keyval, NULL) ==
                 MPI_SUCCESS &&
             MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete, &type_keyval, NULL) ==
                 MPI_SUCCESS &&
             pcoll__self_make(comm) == PCOLL_SUCCESS && watch_finalize();
        if (ok) {
            atomic_store_explicit(&keyvals_ready, 1, memory_order_release);
        } else {
            if (comm_keyval != MPI_KEYVAL_INVALID)
                MPI_Comm_free_keyval(&comm_keyval);
            if (type_keyval != MPI_KEYVAL_INVALID)
                MPI_Type_free_keyval(&type_keyval);
            if (self_keyval != MPI_KEYVAL_INVALID)
                MPI_Comm_free_keyval(&self_keyval);
            pcoll__self_free();
            self_keyval = comm_keyval = type_keyval = MPI_KEYVAL_INVALID;
        }
    }
    pthread_mutex_unlock(&keyval_lock);
    return ok ? PCOLL_SUCCESS : pcoll__error(PCOLL_ERR_MPI, "cannot create MPI keyvals");
}

/* The most ranks of comm on one shared-memory node (collective; 0 when
 * the MPI cannot tell). */
static int ranks_per_node(MPI_Comm comm)
{
    MPI_Comm shm;
    int n = 0;
    if (PCOLL__MPI(Comm_split_type)(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) !=
        MPI_SUCCESS)
        return 0;
    MPI_Comm_size(shm, &n);
    MPI_Comm_free(&shm);
    if (MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return 0;
    return n;
}

/* An intercommunicator's remote size and its two groups merged (over ctl:
 * the merge communicates); an intracommunicator's whole is dup. */
static int ctx_inter(pcoll__ctx_t *ctx)
{
    int inter = 0, rank = 0;
    ctx->whole = ctx->dup;
    MPI_Comm_test_inter(ctx->dup, &inter);
    if (!inter)
        return PCOLL_SUCCESS;
    MPI_Comm_remote_size(ctx->dup, &ctx->remote);
    if (PCOLL__MPI(Intercomm_merge)(ctx->ctl, 0, &ctx->whole) != MPI_SUCCESS) {
        ctx->whole = ctx->dup;
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Intercomm_merge failed");
    }
    MPI_Comm_set_errhandler(ctx->whole, MPI_ERRORS_RETURN);
    /* The first group of the merge keeps its ranks. */
    MPI_Comm_rank(ctx->whole, &rank);
    ctx->high = rank != ctx->rank;
    return PCOLL_SUCCESS;
}

/* Whether some rank of the context cannot call MPI_Reduce_local: an MPI
 * whose MPI_Reduce_local needs MPI_Init (core/defects.h), and a rank that
 * has not called it.  Every rank runs the same library, so either none
 * asks or all do, in one reduction over both groups (collective; should
 * the reduction fail, the rank takes the safe answer). */
static int no_reduce_local(const pcoll__ctx_t *ctx)
{
    int init = 0, no;
    if (!pcoll__mpi_defect(PCOLL__DEFECT_OMPI_SESSIONS_REDUCE_LOCAL))
        return 0;
    MPI_Initialized(&init);
    no = !init;
    if (MPI_Allreduce(MPI_IN_PLACE, &no, 1, MPI_INT, MPI_MAX, ctx->whole) != MPI_SUCCESS)
        return 1;
    return no;
}

static int ctx_create(MPI_Comm comm, pcoll__ctx_t **out)
{
    pcoll__ctx_t *ctx = pcoll__calloc(1, sizeof *ctx);
    int *ub, flag = 0, rc;
    if (!ctx)
        return pcoll__error(PCOLL_ERR_NOMEM, "communicator context");
    if (PCOLL__MPI(Comm_dup)(comm, &ctx->dup) != MPI_SUCCESS) {
        pcoll__free(ctx);
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_dup failed");
    }
    if (PCOLL__MPI(Comm_dup)(comm, &ctx->ctl) != MPI_SUCCESS) {
        MPI_Comm_free(&ctx->dup);
        pcoll__free(ctx);
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(ctx->dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ctx->ctl, MPI_ERRORS_RETURN);
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
    ctx->tag_ub = flag ? *ub : 32767;
    MPI_Comm_size(comm, &ctx->size);
    MPI_Comm_rank(comm, &ctx->rank);
    ctx->user = comm;
    ctx->refs = 1;
    if ((rc = ctx_inter(ctx)) != PCOLL_SUCCESS) {
        pcoll__ctx_release(ctx);
        return rc;
    }
    /* Node-aware algorithms serve intracommunicators only. */
    ctx->ranks_per_node = ctx->remote ? 0 : ranks_per_node(ctx->dup);
    ctx->no_reduce_local = no_reduce_local(ctx);
    ctx->next_tag = PCOLL__ONESHOT_TAG + 1;
    if (MPI_Comm_set_attr(comm, comm_keyval, ctx) != MPI_SUCCESS) {
        pcoll__ctx_release(ctx);
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_set_attr failed");
    }
    pthread_mutex_lock(&list_lock);
    ctx->next = contexts;
    contexts = ctx;
    pthread_mutex_unlock(&list_lock);
    *out = ctx;
    return PCOLL_SUCCESS;
}

/* Whether MPI may be asked about comm: after MPI_Init and before
 * MPI_Finalize any handle, else (sessions) any but the predefined ones
 * (there is no query for "a session is open": a communicator other than
 * these can only come from one), where the MPI's sessions work
 * (core/defects.h: not MPICH before 4.1). */
static int usable(MPI_Comm comm)
{
    int init = 0, fini = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    return !fini && (init || (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF &&
                              !pcoll__mpi_defect(PCOLL__DEFECT_MPICH_SESSIONS)));
}

unsigned long pcoll__ctx_detached(void)
{
    return atomic_load_explicit(&detached, memory_order_acquire);
}

int pcoll__ctx_known(MPI_Comm comm, pcoll__ctx_t **ctx)
{
    void *value;
    int flag = 0;
    unsigned long now = atomic_load_explicit(&detached, memory_order_acquire);
    /* A context lives while its communicator does (detached when the
     * communicator is freed, or by MPI_Finalize), so the thread's last
     * answer stands while none was detached. */
    if (last_known.ctx && last_known.comm == comm && last_known.detached == now) {
        *ctx = last_known.ctx;
        return 1;
    }
    if (comm == MPI_COMM_NULL || !usable(comm) || make_keyvals(comm) != PCOLL_SUCCESS ||
        MPI_Comm_get_attr(comm, comm_keyval, &value, &flag) != MPI_SUCCESS || !flag)
        return 0;
    *ctx = value;
    last_known.comm = comm, last_known.ctx = value, last_known.detached = now;
    return 1;
}

int pcoll__ctx_get(MPI_Comm comm, pcoll__ctx_t **ctx)
{
    void *value;
    int flag = 0, rc = make_keyvals(comm);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (MPI_Comm_get_attr(comm, comm_keyval, &value, &flag) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_get_attr failed");
    if (flag) {
        *ctx = value;
        return PCOLL_SUCCESS;
    }
    return ctx_create(comm, ctx);
}

int pcoll__ctx_tag(pcoll__ctx_t *ctx)
{
    int tag = ctx->next_tag;
    ctx->next_tag = tag >= ctx->tag_ub ? PCOLL__ONESHOT_TAG + 1 : tag + 1;
    return tag;
}

pcoll_plan_t *pcoll__cache_find(pcoll__ctx_t *ctx, const void *key, size_t keylen)
{
    int i;
    for (i = 0; i < PCOLL__CACHE_SIZE; i++) {
        pcoll__cache_entry_t *e = &ctx->cache[i];
        if (atomic_load_explicit(&e->stale, memory_order_acquire))
            cache_drop(ctx, e);
        else if (e->plan && e->keylen == keylen && memcmp(e->key, key, keylen) == 0) {
            e->stamp = ++ctx->clock;
            return e->plan;
        }
    }
    return NULL;
}

/* Ask to be told when a derived datatype named in a key is freed. */
static void watch_type(MPI_Datatype type)
{
    int flag = 0;
    void *value;
    if (pcoll__type_is_named(type))
        return;
    MPI_Type_get_attr(type, type_keyval, &value, &flag);
    if (!flag)
        MPI_Type_set_attr(type, type_keyval, NULL);
}

/* The entry of the n to reuse: an empty one, else the least recently used
 * (emptied), holding a copy of key; NULL when memory runs out. */
static pcoll__cache_entry_t *take_entry(pcoll__ctx_t *ctx, pcoll__cache_entry_t *entries, int n,
                                        const void *key, size_t keylen)
{
    pcoll__cache_entry_t *e = &entries[0];
    void *copy = pcoll__malloc(keylen);
    int i;
    if (!copy)
        return NULL;
    for (i = 1; i < n && e->key; i++)
        if (!entries[i].key || entries[i].stamp < e->stamp)
            e = &entries[i];
    cache_drop(ctx, e);
    memcpy(copy, key, keylen);
    e->key = copy;
    e->keylen = keylen;
    return e;
}

/* Watch types for e (any previous ones forgotten); stale cleared. */
static void watch_types(pcoll__cache_entry_t *e, const MPI_Datatype *types, int ntypes)
{
    int i;
    pthread_mutex_lock(&list_lock);
    for (i = 0; i < ntypes; i++)
        e->types[i] = types[i];
    e->ntypes = ntypes;
    atomic_store_explicit(&e->stale, 0, memory_order_release);
    pthread_mutex_unlock(&list_lock);
    for (i = 0; i < ntypes; i++)
        watch_type(types[i]);
}

int pcoll__cache_add(pcoll__ctx_t *ctx, const void *key, size_t keylen,
                     const MPI_Datatype *types, int ntypes, pcoll_plan_t *plan,
                     void (*destroy)(pcoll_plan_t *plan))
{
    pcoll__cache_entry_t *e;
    if (ntypes > PCOLL__CACHE_TYPES ||
        !(e = take_entry(ctx, ctx->cache, PCOLL__CACHE_SIZE, key, keylen)))
        return pcoll__error(PCOLL_ERR_NOMEM, "plan cache key");
    e->plan = plan;
    e->destroy = destroy;
    e->born = e->stamp = ++ctx->clock;
    plan->cached = 1;
    watch_types(e, types, ntypes);
    return PCOLL_SUCCESS;
}

pcoll__cache_ref_t pcoll__cache_ref(pcoll__ctx_t *ctx, const pcoll_plan_t *plan)
{
    int i;
    for (i = 0; i < PCOLL__CACHE_SIZE; i++)
        if (ctx->cache[i].plan == plan)
            return (pcoll__cache_ref_t){&ctx->cache[i], ctx->cache[i].born};
    return (pcoll__cache_ref_t){NULL, 0};
}

pcoll__cache_ref_t pcoll__shape_memo_ref(pcoll__ctx_t *ctx, const void *key, size_t keylen)
{
    pcoll__cache_entry_t *m = &ctx->memo;
    if (!m->key || m->keylen != keylen || memcmp(m->key, key, keylen) != 0)
        return (pcoll__cache_ref_t){NULL, 0};
    return (pcoll__cache_ref_t){m, m->born};
}

pcoll__cache_entry_t *pcoll__shape_get(pcoll__ctx_t *ctx, const void *key, size_t keylen,
                                       int add)
{
    pcoll__cache_entry_t *e = NULL;
    int i;
    for (i = 0; i < PCOLL__SHAPES && !e; i++)
        if (ctx->shape[i].key && ctx->shape[i].keylen == keylen &&
            memcmp(ctx->shape[i].key, key, keylen) == 0)
            e = &ctx->shape[i];
    if (!e) {
        if (!add || !(e = take_entry(ctx, ctx->shape, PCOLL__SHAPES, key, keylen)))
            return NULL;
        e->born = ctx->shape_clock + 1;
    }
    e->stamp = ++ctx->shape_clock;
    return e;
}

pcoll__cache_entry_t *pcoll__shape_memo(pcoll__ctx_t *ctx, const void *key, size_t keylen)
{
    pcoll__cache_entry_t *m = &ctx->memo, *e = &ctx->shape[ctx->memo_shape];
    if (!m->key || m->keylen != keylen || atomic_load_explicit(&m->stale, memory_order_acquire) ||
        !e->key || e->born != ctx->memo_born || memcmp(m->key, key, keylen) != 0)
        return NULL;
    e->stamp = ++ctx->shape_clock;
    return e;
}

void pcoll__shape_remember(pcoll__ctx_t *ctx, pcoll__cache_entry_t *e, const void *key,
                           size_t keylen, const MPI_Datatype *types, int ntypes)
{
    pcoll__cache_entry_t *m;
    if (ntypes > PCOLL__CACHE_TYPES || !(m = take_entry(ctx, &ctx->memo, 1, key, keylen)))
        return;
    ctx->memo_shape = (int)(e - ctx->shape);
    ctx->memo_born = e->born;
    m->born = ++ctx->clock;
    watch_types(m, types, ntypes);
}

int pcoll__shape_set(pcoll__cache_entry_t *e, pcoll_plan_t *plan,
                     void (*destroy)(pcoll_plan_t *plan), void *aux, void (*aux_free)(void *aux),
                     const MPI_Datatype *types, int ntypes)
{
    if (ntypes > PCOLL__CACHE_TYPES)
        return pcoll__error(PCOLL_ERR_INTERNAL, "shape: %d types", ntypes);
    e->plan = plan;
    e->destroy = destroy;
    e->aux = aux;
    e->aux_free = aux_free;
    plan->cached = 1;
    watch_types(e, types, ntypes);
    return PCOLL_SUCCESS;
}

void pcoll__shape_undecide(pcoll__ctx_t *ctx, pcoll__cache_entry_t *e)
{
    void *key = e->key;
    size_t keylen = e->keylen;
    unsigned long long stamp = e->stamp, born = e->born, calls = e->calls,
                       recheck = e->recheck;
    long long volume = e->volume;
    int share = e->steady_share;
    /* Emptied as an eviction empties it (the record drains its leases
     * first), the key kept aside, then taken back with the entry's place. */
    pthread_mutex_lock(&list_lock);
    e->key = NULL;
    pthread_mutex_unlock(&list_lock);
    cache_drop(ctx, e);
    atomic_fetch_add_explicit(&ctx->changes, 1, memory_order_release);
    pthread_mutex_lock(&list_lock);
    e->key = key;
    e->keylen = keylen;
    e->stamp = stamp;
    e->born = born;
    e->calls = calls;
    e->recheck = recheck;
    e->volume = volume;
    e->steady_share = share;
    pthread_mutex_unlock(&list_lock);
}

int pcoll__check_comm(MPI_Comm comm, int inter_ok, const char *fn)
{
    int inter = 0;
    if (!usable(comm))
        return pcoll__error(PCOLL_ERR_STATE, "%s: MPI is not initialized%s", fn,
                            pcoll__mpi_defect(PCOLL__DEFECT_MPICH_SESSIONS)
                                ? " (this MPI's sessions are not served: mpich-sessions)"
                                : "");
    if (comm == MPI_COMM_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "%s: MPI_COMM_NULL", fn);
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_ARG, "%s: invalid communicator", fn);
    if (inter && !inter_ok)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s: intercommunicators", fn);
    if (make_keyvals(comm) != PCOLL_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: cannot create MPI keyvals", fn);
    return PCOLL_SUCCESS;
}
