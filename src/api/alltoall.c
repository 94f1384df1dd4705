/*
 * alltoall: the descriptor and the public calls pcoll_alltoall_init and
 * pcoll_alltoall (and the drop-in's local plans), all through the entry
 * path (entry.c).
 *
 * In place: builders that do not handle MPI_IN_PLACE themselves (all but
 * `pairwise` and `hier`) get a copy of the receive buffer, made at the start
 * of every run as signature-typed blocks, as their send buffer (p*n bytes of
 * scratch); on an MPI with the defect UCX_SPLIT_UNPACK (core/defects.h) the
 * copy keeps the receive layout and is sent with the receive type.
 */
#include <limits.h>
#include <stddef.h>

#include "api/api.h"
#include "api/entry.h"
#include "base/status.h"
#include "core/check.h"
#include "core/defects.h"
#include "datatype/copy.h"
#include "datatype/signature.h"
#include "datatype/size.h"
#include "gpu/gpu.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__a2a_args_t) <= PCOLL__ARGS_MAX, "alltoall arguments");

int pcoll__alltoall_check(const pcoll__a2a_raw_t *r, int inter, const char *fn,
                          pcoll__a2a_args_t *a)
{
    const void *sendbuf = r->sendbuf;
    MPI_Datatype sendtype = r->sendtype;
    int sendcount = r->sendcount, rc;
    MPI_Aint lb, rext, sext;
    long long sbytes;

    if (r->refuse != PCOLL_SUCCESS)
        return r->refuse;
    a->inplace = sendbuf == MPI_IN_PLACE;
    if (a->inplace) {
        sendbuf = r->recvbuf;
        sendcount = r->recvcount;
        sendtype = r->recvtype;
    }
    PCOLL_CHECK(pcoll__check_count(r->recvcount, "recvcount", fn), rc, out);
    PCOLL_CHECK(pcoll__check_count(sendcount, "sendcount", fn), rc, out);
    PCOLL_CHECK(pcoll__check_type(r->recvtype, "recvtype", fn), rc, out);
    PCOLL_CHECK(pcoll__check_type(sendtype, "sendtype", fn), rc, out);
    a->blockbytes = pcoll__type_bytes(r->recvtype, r->recvcount);
    a->sendbytes = sbytes = pcoll__type_bytes(sendtype, sendcount);
    /* On an intercommunicator a send block matches the remote group's
     * receive blocks (the agreement compares them), not this rank's. */
    if (sbytes != a->blockbytes && !inter)
        return pcoll__error(PCOLL_ERR_MISMATCH,
                            "%s: a send block has %lld bytes, a receive block %lld", fn, sbytes,
                            a->blockbytes);
    MPI_Type_get_extent(sendtype, &lb, &sext);
    MPI_Type_get_extent(r->recvtype, &lb, &rext);
    /* recvbuf may not be MPI_IN_PLACE; no buffer NULL with data (but MPI_BOTTOM). */
    PCOLL_CHECK(pcoll__check_buffer(r->recvbuf, a->blockbytes, r->recvtype, "recvbuf", fn), rc,
                out);
    if (!a->inplace)
        PCOLL_CHECK(pcoll__check_buffer(sendbuf, sbytes, sendtype, "sendbuf", fn), rc, out);
    a->sendbuf = sendbuf;
    a->sendcount = sendcount;
    a->sendtype = sendtype;
    a->recvbuf = r->recvbuf;
    a->recvcount = r->recvcount;
    a->recvtype = r->recvtype;
    a->sblock = sext * sendcount;
    a->rblock = rext * r->recvcount;
out:
    return rc;
}

static int a2a_check(pcoll__call_t *c)
{
    pcoll__a2a_args_t *a = (pcoll__a2a_args_t *)(void *)c->args;
    int rc = pcoll__alltoall_check(c->raw, c->inter, c->fn, a);
    c->inplace = a->inplace;
    c->empty = a->blockbytes == 0 && a->sendbytes == 0;
    return rc;
}

/* Block size, algorithm, MPI_IN_PLACE use, radix and the use of the
 * automatic choice must be the same on every rank.  On an
 * intercommunicator (agreed over both groups merged) one group's send
 * blocks are the other's receive blocks: the second group of the merge
 * gives its two block sizes the other way round. */
static int a2a_agree(pcoll__call_t *c, int local)
{
    static const char *const what[] = {"the block size in bytes", "the algorithm",
                                       "MPI_IN_PLACE use", "pcoll_radix",
                                       "the use of the automatic choice",
                                       "the block size in bytes of the other direction"};
    const pcoll__a2a_args_t *a = (const pcoll__a2a_args_t *)(const void *)c->args;
    pcoll__shape_t shape = pcoll__call_shape(c);
    const long long sizes[2] = {a->blockbytes, a->sendbytes};
    long long vals[6];
    vals[0] = sizes[c->ctx->high];
    vals[1] = c->ctx->remote ? pcoll__select_inter(&pcoll__alltoall_table, a->opts.algorithm)
                             : pcoll__select_alltoall(a, &shape, NULL);
    vals[2] = a->inplace;
    vals[3] = a->opts.radix;
    vals[4] = pcoll__algo_is_auto(&pcoll__alltoall_table, a->opts.algorithm);
    vals[5] = sizes[!c->ctx->high];
    return pcoll__agree(c->ctx->whole, local, vals, what, 6, c->fn);
}

/* Every argument that shapes the plan (the send side is zero in place), and
 * the memory kinds of the buffers. */
static int a2a_key(pcoll__call_t *c, pcoll__key_t *k)
{
    const pcoll__a2a_raw_t *r = c->raw;
    struct {
        const void *sbuf;
        void *rbuf;
        MPI_Datatype stype, rtype;
        int scount, rcount;
        int kinds; /* device memory (gpu/gpu.h) */
    } *kr = pcoll__key_put(k, sizeof *kr);
    if (!kr)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: cache key", c->fn);
    kr->kinds = pcoll__gpu_key_kinds(r->sendbuf == MPI_IN_PLACE ? NULL : r->sendbuf, r->recvbuf);
    kr->sbuf = r->sendbuf, kr->rbuf = r->recvbuf;
    kr->rtype = r->recvtype, kr->rcount = r->recvcount;
    k->types[k->ntypes++] = r->recvtype;
    if (r->sendbuf != MPI_IN_PLACE) {
        kr->stype = r->sendtype, kr->scount = r->sendcount;
        k->types[k->ntypes++] = r->sendtype;
    }
    return PCOLL_SUCCESS;
}

/* Device buffers (docs/gpu.md): the host choice, then gpu_staged around it
 * when this rank's buffers (one-shot and local) or any rank's (persistent:
 * one reduction of the memory kinds) are device memory. */
static int a2a_choose(pcoll__call_t *c)
{
    pcoll__a2a_args_t *a = (pcoll__a2a_args_t *)(void *)c->args;
    pcoll__shape_t shape = pcoll__call_shape(c);
    int together = c->mode == PCOLL__PERSISTENT && !c->opts.no_comm;
    int requested = a->opts.algorithm, algo, device;
    if (c->ctx->remote)
        return pcoll__select_inter(&pcoll__alltoall_table, requested);
    device = pcoll__gpu_kinds_alltoall(a, c->p);
    if (together && pcoll__gpu_agree(c->ctx->dup, device, &device) != PCOLL_SUCCESS)
        device = 1; /* host copies are right whatever the others do */
    a->opts.algorithm = pcoll__select_gpu_host(&pcoll__alltoall_table, &a->opts);
    algo = pcoll__select_alltoall(a, &shape, &a->opts);
    if (together)
        algo = pcoll__select_alltoall_hier(c->ctx, a, algo);
    a->opts.algorithm = requested;
    algo = pcoll__select_gpu(&pcoll__alltoall_table, requested, algo, device, &a->opts);
    return together ? pcoll__select_gpu_ipc(c->ctx, &pcoll__alltoall_table, &a->opts,
                                            a->inplace, a->blockbytes, requested, algo, device)
                    : algo;
}

static int a2a_prepare(pcoll__call_t *c, pcoll_plan_t *plan)
{
    return pcoll__alltoall_keep_types(plan, (pcoll__a2a_args_t *)(void *)c->args);
}

/* A run's copy of the receive buffer as signature-typed blocks, sent from
 * there (p*n bytes of scratch). */
static int stage_packed(pcoll__a2a_args_t *a, pcoll_plan_t *plan)
{
    MPI_Datatype blk, sig;
    MPI_Aint lb, ext;
    char *copy;
    int i, rc;

    if (MPI_Type_contiguous(a->recvcount, a->recvtype, &blk) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in place: block type");
    PCOLL_CHECK(pcoll__plan_own_type(plan, &blk), rc, out);
    PCOLL_CHECK(pcoll_type_signature(blk, &sig), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &sig), rc, out);
    MPI_Type_get_extent(sig, &lb, &ext);
    if (!(copy = pcoll__plan_alloc(plan, (size_t)ext * (size_t)plan->size)))
        return pcoll__error(PCOLL_ERR_NOMEM, "in place: %lld bytes of scratch",
                            (long long)ext * plan->size);
    for (i = 0; i < plan->size && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__sched_copy(&plan->sched, pcoll__a2a_rbuf(a, i), 1, blk,
                               copy + (MPI_Aint)i * ext, 1, sig);
    a->sendbuf = copy;
    a->sendcount = 1;
    a->sendtype = sig;
    a->sblock = ext;
out:
    return rc;
}

/* The shape: the bytes and the signature of a block and MPI_IN_PLACE use,
 * the same on every rank (not the memory kinds, which may differ between
 * ranks and calls: a shape's plan reaches device buffers through host
 * mirrors, api/shape.c). */
static int a2a_shape(pcoll__call_t *c, pcoll__key_t *k)
{
    const pcoll__a2a_raw_t *r = c->raw;
    struct {
        long long bytes;
        unsigned long long sig;
        int inplace;
    } *kr;
    pcoll__a2a_args_t a;
    unsigned long long sig;
    /* Arguments the checks refuse take the cache by arguments, which says
     * why (no rank may wait for the others here). */
    if (pcoll__alltoall_check(r, 0, c->fn, &a) != PCOLL_SUCCESS ||
        pcoll__sig_hash(r->recvtype, r->recvcount, &sig) != PCOLL_SUCCESS)
        return PCOLL_ERR_UNSUPPORTED;
    if (!(kr = pcoll__key_put(k, sizeof *kr)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: shape key", c->fn);
    kr->bytes = a.blockbytes;
    kr->sig = sig;
    kr->inplace = r->sendbuf == MPI_IN_PLACE;
    return PCOLL_SUCCESS;
}

/* p blocks on each side. */
static void a2a_views(const pcoll__call_t *c, const void *raw, pcoll__view_t v[2])
{
    const pcoll__a2a_raw_t *r = raw;
    v[0] = (pcoll__view_t){r->sendbuf != MPI_IN_PLACE, (void *)r->sendbuf,
                           (MPI_Count)c->p * r->sendcount, r->sendtype};
    v[1] = (pcoll__view_t){1, r->recvbuf, (MPI_Count)c->p * r->recvcount, r->recvtype};
}

static void a2a_rebase(const void *raw, void *out, void *const bufs[2])
{
    pcoll__a2a_raw_t *o = out;
    *o = *(const pcoll__a2a_raw_t *)raw;
    if (o->sendbuf != MPI_IN_PLACE)
        o->sendbuf = bufs[0];
    o->recvbuf = bufs[1];
}

_Static_assert(sizeof(pcoll__a2a_raw_t) <= PCOLL__RAW_MAX, "alltoall raw arguments");


/* A run's copy of the receive buffer in its own layout (the bytes its type
 * map spans), sent from there with the receive type: both ends of every
 * message non-contiguous alike (core/defects.h, UCX_SPLIT_UNPACK). */
static int stage_layout(pcoll__a2a_args_t *a, pcoll_plan_t *plan)
{
    MPI_Datatype blk, all;
    MPI_Aint lo, bytes;
    char *copy;
    int rc;

    if (MPI_Type_contiguous(a->recvcount, a->recvtype, &blk) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in place: block type");
    PCOLL_CHECK(pcoll__plan_own_type(plan, &blk), rc, out);
    if (MPI_Type_contiguous(plan->size, blk, &all) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in place: buffer type");
    PCOLL_CHECK(pcoll__plan_own_type(plan, &all), rc, out);
    PCOLL_CHECK(pcoll__type_span(all, 1, &lo, &bytes), rc, out);
    if (!(copy = pcoll__plan_alloc(plan, (size_t)bytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "in place: %lld bytes of scratch",
                            (long long)bytes);
    a->sendbuf = pcoll__addr(copy, -lo);
    rc = pcoll__sched_copy(&plan->sched, a->recvbuf, 1, all, (void *)a->sendbuf, 1, all);
out:
    return rc;
}

/* MPI_IN_PLACE for the builders that need a send buffer: a copy of the
 * receive buffer made at the start of every run. */
static int a2a_stage(pcoll__call_t *c, pcoll_plan_t *plan)
{
    pcoll__a2a_args_t *a = (pcoll__a2a_args_t *)(void *)c->args;
    return pcoll__mpi_defect(PCOLL__DEFECT_UCX_SPLIT_UNPACK) ? stage_layout(a, plan)
                                                             : stage_packed(a, plan);
}

static int a2a_words(const void *raw, uintptr_t w[])
{
    const pcoll__a2a_raw_t *r = raw;
    w[0] = (uintptr_t)r->sendbuf, w[1] = (uintptr_t)r->recvbuf;
    w[2] = (uintptr_t)r->sendtype, w[3] = (uintptr_t)r->recvtype;
    w[4] = (uintptr_t)(unsigned)r->sendcount, w[5] = (uintptr_t)(unsigned)r->recvcount;
    w[6] = (uintptr_t)(unsigned)r->refuse;
    return 7;
}

/* A local call whose shape holds no plan: the plan alltoallv's shape keeps
 * on the communicator (prepared when it was made: the drop-in's
 * MPI_Ialltoall then gets `hier` from its first call), whatever the block
 * size, as MPI_Ialltoallv's calls lease it.  Not in place (the shape
 * prepared is not), nor on an intercommunicator. */
static int a2a_lease_kin(pcoll__call_t *c)
{
    const pcoll__a2a_args_t *a = (const pcoll__a2a_args_t *)(const void *)c->args;
    void *room;
    if (a->inplace || c->inter || c->empty || !pcoll__ctx_planned(c->ctx))
        return PCOLL__LEASE_NONE;
    /* The call's own room up to 128 ranks (the lease copies the arrays). */
    if (!(room = pcoll__call_scratch(c, 0, 2 * (size_t)c->p * (sizeof(MPI_Count) +
                                                               sizeof(MPI_Aint)))))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: %d blocks", c->fn, c->p);
    return pcoll__alltoallv_lease_uniform(a, c->p, c->comm, room, c->plan);
}

static const pcoll__coll_t alltoall = {
    .name = "alltoall",
    .native_as_given = 1,
    .table = &pcoll__alltoall_table,
    .opts_offset = offsetof(pcoll__a2a_args_t, opts),
    .check = a2a_check,
    .agree = a2a_agree,
    .key = a2a_key,
    .choose = a2a_choose,
    .prepare = a2a_prepare,
    .stage = a2a_stage,
    .shape = a2a_shape,
    .views = a2a_views,
    .rebase = a2a_rebase,
    .raw_size = sizeof(pcoll__a2a_raw_t),
    .inter = PCOLL__INTER_REMOTE,
    .words = a2a_words,
    .lease_kin = a2a_lease_kin,
};

/* Every alltoall call: its six arguments, then the path's. */
static int run(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, pcoll__mode_t mode, const char *fn,
               MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    pcoll__a2a_raw_t r = {.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype,
                          .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype};
    return pcoll__entry(&alltoall, mode, fn, &r, comm, info, plan);
}

int pcoll_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, pcoll_plan_t **plan)
{
    return run(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, PCOLL__PERSISTENT,
               "pcoll_alltoall_init", comm, info, plan);
}

int pcoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return run(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, PCOLL__ONESHOT,
               "pcoll_alltoall", comm, MPI_INFO_NULL, NULL);
}

/* The large-count forms: a count over INT_MAX becomes one item of a type of
 * that many items (pcoll__type_items; the plan keeps its own copy, so it is
 * freed on return).  Any rank may hold such a count: each converts its own,
 * and the block sizes in bytes still agree. */
static int count_c(MPI_Count count, MPI_Datatype *type, int *out, MPI_Datatype *own,
                   int *refuse)
{
    *own = MPI_DATATYPE_NULL;
    if (count <= INT_MAX) {
        *out = count < 0 ? -1 : (int)count;
        return PCOLL_SUCCESS;
    }
    *out = 1;
    if (*refuse == PCOLL_SUCCESS && (*refuse = pcoll__type_items(count, *type, own)) ==
                                        PCOLL_SUCCESS)
        *type = *own;
    return *refuse;
}

static int run_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, pcoll__mode_t mode, const char *fn,
                 MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    pcoll__a2a_raw_t r = {.sendbuf = sendbuf, .sendtype = sendtype, .recvbuf = recvbuf,
                          .recvtype = recvtype};
    MPI_Datatype own[2];
    int rc;
    count_c(recvcount, &r.recvtype, &r.recvcount, &own[0], &r.refuse);
    own[1] = MPI_DATATYPE_NULL;
    if (sendbuf != MPI_IN_PLACE)
        count_c(sendcount, &r.sendtype, &r.sendcount, &own[1], &r.refuse);
    rc = pcoll__entry(&alltoall, mode, fn, &r, comm, info, plan);
    for (int i = 0; i < 2; i++)
        if (own[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&own[i]);
    return rc;
}

int pcoll_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    return run_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, PCOLL__PERSISTENT,
                 "pcoll_alltoall_init_c", comm, info, plan);
}

int pcoll_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return run_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, PCOLL__ONESHOT,
                 "pcoll_alltoall_c", comm, MPI_INFO_NULL, NULL);
}

int pcoll__alltoall_dropin(pcoll__mode_t mode, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          pcoll_plan_t **plan)
{
    /* Counts an int holds (every int form's) take the int forms' path: no
     * conversion, nothing to free. */
    if (sendcount >= INT_MIN && sendcount <= INT_MAX && recvcount >= INT_MIN &&
        recvcount <= INT_MAX)
        return run(sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, mode,
                   "pcoll__alltoall_dropin", comm, info, plan);
    return run_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, mode,
                 "pcoll__alltoall_dropin", comm, info, plan);
}
