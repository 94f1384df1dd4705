/*
 * Communicator contexts and the one-shot plan cache (see comm.h).
 *
 * Three keyvals: one on user communicators (the context), one on MPI_COMM_SELF
 * whose delete callback runs first in MPI_Finalize and tears every context
 * down, and one on derived datatypes named in cache keys, whose delete
 * callback marks the entries stale so a recycled handle never finds an old
 * plan.
 */
#include <string.h>

#include "core/comm.h"
#include "base/mem.h"
#include "core/node.h"
#include "core/plan.h"
#include "base/status.h"

static int comm_keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static int type_keyval = MPI_KEYVAL_INVALID;
static pcoll__ctx_t *contexts;

static void cache_drop(pcoll__cache_entry_t *e)
{
    if (e->plan) {
        e->plan->cached = 0;
        e->destroy(e->plan);
    }
    pcoll__free(e->key);
    memset(e, 0, sizeof *e);
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
    MPI_Finalized(&fini);
    if (!fini) {
        MPI_Comm_free(&ctx->dup);
        MPI_Comm_free(&ctx->ctl);
    }
    pcoll__free(ctx);
}

/* The user's communicator is going away: empty the cache, unlink, release. */
static void ctx_detach(pcoll__ctx_t *ctx)
{
    pcoll__ctx_t **p;
    int i;
    for (i = 0; i < PCOLL__CACHE_SIZE; i++)
        cache_drop(&ctx->cache[i]);
    for (p = &contexts; *p; p = &(*p)->next)
        if (*p == ctx) {
            *p = ctx->next;
            break;
        }
    ctx->user = MPI_COMM_NULL;
    pcoll__ctx_release(ctx);
}

static int comm_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    ctx_detach(value);
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    pcoll__ctx_t *ctx;
    int i, t;
    (void)keyval, (void)value, (void)extra;
    for (ctx = contexts; ctx; ctx = ctx->next)
        for (i = 0; i < PCOLL__CACHE_SIZE; i++)
            for (t = 0; t < ctx->cache[i].ntypes; t++)
                if (ctx->cache[i].types[t] == type)
                    ctx->cache[i].stale = 1;
    return MPI_SUCCESS;
}

/* First thing in MPI_Finalize: free every context and the keyvals. */
static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    while (contexts) {
        pcoll__ctx_t *ctx = contexts;
        if (MPI_Comm_delete_attr(ctx->user, comm_keyval) != MPI_SUCCESS || contexts == ctx)
            ctx_detach(ctx);
    }
    MPI_Comm_free_keyval(&comm_keyval);
    MPI_Type_free_keyval(&type_keyval);
    self_keyval = comm_keyval = type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int make_keyvals(void)
{
    int err = MPI_SUCCESS;
    if (comm_keyval != MPI_KEYVAL_INVALID)
        return PCOLL_SUCCESS;
    err |= MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &comm_keyval, NULL);
    err |= MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete, &type_keyval, NULL);
    err |= MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keyval, NULL);
    err |= MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS
                              : pcoll__error(PCOLL_ERR_MPI, "cannot create MPI keyvals");
}

static int ctx_create(MPI_Comm comm, pcoll__ctx_t **out)
{
    pcoll__ctx_t *ctx = pcoll__calloc(1, sizeof *ctx);
    int *ub, flag = 0;
    if (!ctx)
        return pcoll__error(PCOLL_ERR_NOMEM, "communicator context");
    if (MPI_Comm_dup(comm, &ctx->dup) != MPI_SUCCESS) {
        pcoll__free(ctx);
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_dup failed");
    }
    if (MPI_Comm_dup(comm, &ctx->ctl) != MPI_SUCCESS) {
        MPI_Comm_free(&ctx->dup);
        pcoll__free(ctx);
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(ctx->dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ctx->ctl, MPI_ERRORS_RETURN);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    ctx->tag_ub = flag ? *ub : 32767;
    MPI_Comm_size(comm, &ctx->size);
    MPI_Comm_rank(comm, &ctx->rank);
    ctx->user = comm;
    ctx->refs = 1;
    ctx->next_tag = PCOLL__ONESHOT_TAG + 1;
    if (MPI_Comm_set_attr(comm, comm_keyval, ctx) != MPI_SUCCESS) {
        pcoll__ctx_release(ctx);
        return pcoll__error(PCOLL_ERR_MPI, "MPI_Comm_set_attr failed");
    }
    ctx->next = contexts;
    contexts = ctx;
    *out = ctx;
    return PCOLL_SUCCESS;
}

int pcoll__ctx_get(MPI_Comm comm, pcoll__ctx_t **ctx)
{
    void *value;
    int flag = 0, rc = make_keyvals();
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
        if (e->stale)
            cache_drop(e);
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
    int ni, na, nd, combiner, flag = 0;
    void *value;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return;
    MPI_Type_get_attr(type, type_keyval, &value, &flag);
    if (!flag)
        MPI_Type_set_attr(type, type_keyval, NULL);
}

int pcoll__cache_add(pcoll__ctx_t *ctx, const void *key, size_t keylen,
                     const MPI_Datatype *types, int ntypes, pcoll_plan_t *plan,
                     void (*destroy)(pcoll_plan_t *plan))
{
    pcoll__cache_entry_t *e = &ctx->cache[0];
    int i;
    void *copy = pcoll__malloc(keylen);
    if (!copy || ntypes > PCOLL__CACHE_TYPES) {
        pcoll__free(copy);
        return pcoll__error(PCOLL_ERR_NOMEM, "plan cache key");
    }
    for (i = 1; i < PCOLL__CACHE_SIZE && e->plan; i++)
        if (!ctx->cache[i].plan || ctx->cache[i].stamp < e->stamp)
            e = &ctx->cache[i];
    cache_drop(e);
    memcpy(copy, key, keylen);
    e->key = copy;
    e->keylen = keylen;
    e->plan = plan;
    e->destroy = destroy;
    e->stamp = ++ctx->clock;
    plan->cached = 1;
    for (i = 0; i < ntypes; i++) {
        e->types[i] = types[i];
        watch_type(types[i]);
    }
    e->ntypes = ntypes;
    return PCOLL_SUCCESS;
}

int pcoll__check_comm(MPI_Comm comm, const char *fn)
{
    int init = 0, fini = 0, inter = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini)
        return pcoll__error(PCOLL_ERR_STATE, "%s: MPI is not initialized", fn);
    if (comm == MPI_COMM_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "%s: MPI_COMM_NULL", fn);
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_ARG, "%s: invalid communicator", fn);
    if (inter)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s: intercommunicators", fn);
    return PCOLL_SUCCESS;
}
