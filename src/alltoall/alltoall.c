/*
 * All-to-all entry points: the algorithm table, argument checks, the
 * automatic choice, pcoll_alltoall_init and the one-shot pcoll_alltoall.
 *
 * In place: builders that do not handle MPI_IN_PLACE themselves (all but
 * `pairwise`) get a copy of the receive buffer, made at the start of every
 * run as signature-typed blocks, as their send buffer (p*n bytes of scratch).
 */
#include <string.h>

#include "alltoall/bruck.h"
#include "alltoall/hier.h"
#include "core/check.h"
#include "core/mem.h"
#include "core/status.h"
#include "select/cost.h"

enum {
    ALGO_LINEAR,
    ALGO_PAIRWISE,
    ALGO_SCATTERED,
    ALGO_BRUCK_BASIC,
    ALGO_BRUCK_BASIC_IX,
    ALGO_BRUCK_MODIFIED,
    ALGO_BRUCK_MODIFIED_IX,
    ALGO_BRUCK_ZEROCOPY,
    ALGO_BRUCK_ZEROCOPY_BLOCKS,
    ALGO_BRUCK_RADIX,
    ALGO_HIER,
    ALGO_AUTO
};

static const pcoll__algo_t algos[] = {
    [ALGO_LINEAR] = {"linear", "all receives preposted, then all sends; 1 round",
                     pcoll__alltoall_linear},
    [ALGO_PAIRWISE] = {"pairwise",
                       "p-1 exchange rounds (XOR partners for powers of two); "
                       "in place with one block of scratch",
                       pcoll__alltoall_pairwise},
    [ALGO_SCATTERED] = {"scattered",
                        "cyclic order, at most pcoll_throttle exchanges in flight",
                        pcoll__alltoall_scattered},
    [ALGO_BRUCK_BASIC] = {"bruck_basic",
                          "Basic Bruck: rotate, log2 p rounds with bounded vectors, "
                          "reverse-rotate",
                          pcoll__alltoall_bruck_basic},
    [ALGO_BRUCK_BASIC_IX] = {"bruck_basic_ix", "Basic Bruck with MPI indexed types",
                             pcoll__alltoall_bruck_basic_ix},
    [ALGO_BRUCK_MODIFIED] = {"bruck_modified",
                             "Modified Bruck: no final permutation, circular vectors",
                             pcoll__alltoall_bruck_modified},
    [ALGO_BRUCK_MODIFIED_IX] = {"bruck_modified_ix",
                                "Modified Bruck with MPI indexed-block types",
                                pcoll__alltoall_bruck_modified_ix},
    [ALGO_BRUCK_ZEROCOPY] = {"bruck_zerocopy",
                             "Zero-copy Bruck: per-round struct types, no local copies",
                             pcoll__alltoall_bruck_zerocopy},
    [ALGO_BRUCK_ZEROCOPY_BLOCKS] = {"bruck_zerocopy_blocks",
                                    "Zero-copy Bruck with runs collapsed into blocks",
                                    pcoll__alltoall_bruck_zerocopy_blocks},
    [ALGO_BRUCK_RADIX] = {"bruck_radix",
                          "radix-r Bruck, r-1 ports per step (pcoll_radix or cost model)",
                          pcoll__alltoall_bruck_radix},
    [ALGO_HIER] = {"hier",
                   "node-aware: blocks bundled per node pair in shared memory, radix-r Bruck "
                   "between nodes on pcoll_ports ranks per node (pcoll_cores_per_node)",
                   pcoll__alltoall_hier},
    [ALGO_AUTO] = {"auto", "the cost model over every algorithm (docs/algorithms.md)", NULL},
};

const pcoll__algo_table_t pcoll__alltoall_table = {
    "alltoall", "PCOLL_ALLTOALL_ALGORITHM", algos, (int)(sizeof algos / sizeof *algos)};

int pcoll__a2a_recv(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer)
{
    return pcoll__sched_recv(&plan->sched, pcoll__a2a_rbuf(a, peer), pcoll__a2a_rcount(a, peer),
                             a->recvtype, peer);
}

int pcoll__a2a_send(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer)
{
    return pcoll__sched_send(&plan->sched, pcoll__a2a_sbuf(a, peer), pcoll__a2a_scount(a, peer),
                             a->sendtype, peer);
}

int pcoll__a2a_exchange(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int sendto,
                        int recvfrom)
{
    int rc = pcoll__a2a_recv(plan, a, recvfrom);
    return rc == PCOLL_SUCCESS ? pcoll__a2a_send(plan, a, sendto) : rc;
}

int pcoll__a2a_self_copy(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    int me = plan->rank;
    if (a->inplace)
        return PCOLL_SUCCESS;
    return pcoll__sched_copy(&plan->sched, pcoll__a2a_sbuf(a, me), pcoll__a2a_scount(a, me),
                             a->sendtype, pcoll__a2a_rbuf(a, me), pcoll__a2a_rcount(a, me),
                             a->recvtype);
}

/* Local checks; fill *a.  Nothing is allocated. */
static int fill_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, const char *fn,
                     pcoll__a2a_args_t *a)
{
    MPI_Aint lb, rext, sext;
    long long sbytes;
    int rc;

    a->inplace = sendbuf == MPI_IN_PLACE;
    if (a->inplace) {
        sendbuf = recvbuf;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    PCOLL_CHECK(pcoll__check_count(recvcount, "recvcount", fn), rc, out);
    PCOLL_CHECK(pcoll__check_count(sendcount, "sendcount", fn), rc, out);
    PCOLL_CHECK(pcoll__check_type(recvtype, "recvtype", fn), rc, out);
    PCOLL_CHECK(pcoll__check_type(sendtype, "sendtype", fn), rc, out);
    a->blockbytes = pcoll__type_bytes(recvtype, recvcount);
    sbytes = pcoll__type_bytes(sendtype, sendcount);
    if (sbytes != a->blockbytes)
        return pcoll__error(PCOLL_ERR_MISMATCH, 1,
                            "%s: a send block has %lld bytes, a receive block %lld", fn, sbytes,
                            a->blockbytes);
    MPI_Type_get_extent(sendtype, &lb, &sext);
    MPI_Type_get_extent(recvtype, &lb, &rext);
    a->sendbuf = sendbuf;
    a->sendcount = sendcount;
    a->sendtype = sendtype;
    a->recvbuf = recvbuf;
    a->recvcount = recvcount;
    a->recvtype = recvtype;
    a->sblock = sext * sendcount;
    a->rblock = rext * recvcount;
out:
    return rc;
}

int pcoll__alltoall_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, const char *fn,
                         pcoll__a2a_args_t *a)
{
    return fill_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, fn, a);
}

/* Predicted times of the candidates of the automatic choice (-1: none). */
static void predict(const pcoll__a2a_args_t *a, int p, double *t)
{
    pcoll__cost_t c = pcoll__cost_params();
    long long n = a->blockbytes;
    int r = pcoll__cost_best_radix(&c, p, n), i;
    for (i = 0; i < ALGO_AUTO; i++)
        t[i] = -1.0;
    t[ALGO_SCATTERED] = pcoll__cost_direct(&c, p, n);
    t[ALGO_BRUCK_BASIC] = pcoll__cost_bruck(&c, p, n, 2);
    t[ALGO_BRUCK_MODIFIED] = pcoll__cost_bruck_modified(&c, p, n);
    t[ALGO_BRUCK_ZEROCOPY] = pcoll__cost_bruck_zerocopy(&c, p, n);
    if (r > 2)
        t[ALGO_BRUCK_RADIX] = pcoll__cost_bruck(&c, p, n, r);
}

static int choose_by_cost(const pcoll__a2a_args_t *a, int p)
{
    long long n = a->blockbytes;
    int i, best = ALGO_SCATTERED;
    double t[ALGO_AUTO];
    predict(a, p, t);
    for (i = 0; i < ALGO_AUTO; i++)
        if (t[i] >= 0 && t[i] < t[best])
            best = i;
    /* Among direct exchanges, long blocks go one partner at a time. */
    if (best == ALGO_SCATTERED && n > PCOLL__A2A_SCATTERED_MAX)
        best = ALGO_PAIRWISE;
    return best;
}

int (*pcoll__alltoall_best_bruck(int p, long long n))(pcoll_plan_t *, const void *)
{
    pcoll__cost_t c = pcoll__cost_params();
    double t[4];
    int ids[4] = {ALGO_BRUCK_BASIC, ALGO_BRUCK_MODIFIED, ALGO_BRUCK_ZEROCOPY, ALGO_BRUCK_RADIX};
    int i, best = 0;
    t[0] = pcoll__cost_bruck(&c, p, n, 2);
    t[1] = pcoll__cost_bruck_modified(&c, p, n);
    t[2] = pcoll__cost_bruck_zerocopy(&c, p, n);
    t[3] = pcoll__cost_bruck(&c, p, n, pcoll__cost_best_radix(&c, p, n));
    for (i = 1; i < 4; i++)
        if (t[i] < t[best])
            best = i;
    return algos[ids[best]].build;
}

/* The algorithm to run: the requested one, or the automatic choice.  In
 * place, large buffers use pairwise, which needs one block of scratch. */
static int choose(const pcoll__a2a_args_t *a, int p)
{
    if (a->opts.algorithm >= 0 && a->opts.algorithm != ALGO_AUTO)
        return a->opts.algorithm;
    if (a->inplace && a->blockbytes * p > PCOLL__A2A_INPLACE_STAGE_MAX)
        return ALGO_PAIRWISE;
    return choose_by_cost(a, p);
}

static int is_auto(const pcoll__a2a_args_t *a)
{
    return a->opts.algorithm < 0 || a->opts.algorithm == ALGO_AUTO;
}

/* Persistent auto, after the agreement: `hier` when there are several nodes
 * of several ranks and the cost model prefers it to the flat choice (finding
 * the nodes is collective; the one-shot path never considers it). */
static int consider_hier(pcoll__ctx_t *ctx, const pcoll__a2a_args_t *a, int p, int chosen)
{
    double t[ALGO_AUTO], flat = -1.0;
    int i;
    if (a->blockbytes == 0 || (a->inplace && chosen == ALGO_PAIRWISE))
        return chosen;
    predict(a, p, t);
    for (i = 0; i < ALGO_AUTO; i++)
        if (t[i] >= 0 && (flat < 0 || t[i] < flat))
            flat = t[i];
    return pcoll__hier_pays(ctx, &a->opts, a->blockbytes, flat) ? ALGO_HIER : chosen;
}

/* In place, for builders that need a separate send buffer: copy the receive
 * buffer into scratch as signature-typed blocks at the start of each run, and
 * send from there. */
static int stage_inplace(pcoll_plan_t *plan, pcoll__a2a_args_t *a)
{
    MPI_Datatype blk, sig;
    MPI_Aint lb, ext;
    char *copy;
    int i, rc;

    if (MPI_Type_contiguous(a->recvcount, a->recvtype, &blk) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, 1, "in place: block type");
    PCOLL_CHECK(pcoll__plan_own_type(plan, &blk), rc, out);
    PCOLL_CHECK(pcoll_type_signature(blk, &sig), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &sig), rc, out);
    MPI_Type_get_extent(sig, &lb, &ext);
    if (!(copy = pcoll__plan_alloc(plan, (size_t)ext * (size_t)plan->size)))
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "in place: %lld bytes of scratch",
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

/* Build and commit a plan for *a on ctx with the given tag. */
static int build(pcoll__ctx_t *ctx, const pcoll__a2a_args_t *args, int tag,
                 pcoll_plan_t **out)
{
    pcoll__a2a_args_t a = *args;
    pcoll_plan_t *plan = NULL;
    int algo, rc;

    PCOLL_CHECK(pcoll__plan_create(ctx, "alltoall", tag, &plan), rc, fail);
    algo = choose(&a, plan->size);
    plan->algorithm = algos[algo].name;
    plan->no_comm = a.opts.no_comm;
    plan->normalize = plan->normalize || a.opts.normalize;
    PCOLL_CHECK(pcoll__plan_keep_type(plan, &a.recvtype), rc, fail);
    if (a.inplace)
        a.sendtype = a.recvtype;
    else
        PCOLL_CHECK(pcoll__plan_keep_type(plan, &a.sendtype), rc, fail);
    /* Blocks of zero bytes: nothing to do, an empty schedule. */
    if (a.blockbytes > 0) {
        /* hier copies every block in before any is copied out. */
        if (a.inplace && algo != ALGO_PAIRWISE && algo != ALGO_HIER)
            PCOLL_CHECK(stage_inplace(plan, &a), rc, fail);
        PCOLL_CHECK(algos[algo].build(plan, &a), rc, fail);
    }
    PCOLL_CHECK(pcoll__sched_commit(&plan->sched, plan->comm, plan->tag), rc, fail);
    *out = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}

static int comm_rank(MPI_Comm comm)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int pcoll_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, pcoll_plan_t **plan)
{
    static const char *const what[] = {"the block size in bytes", "the algorithm",
                                       "MPI_IN_PLACE use", "pcoll_radix",
                                       "the use of the automatic choice"};
    const char *fn = "pcoll_alltoall_init";
    pcoll__a2a_args_t a;
    pcoll__ctx_t *ctx;
    long long vals[5];
    int rc, local, size;

    memset(&a, 0, sizeof a);
    if (plan)
        *plan = NULL;
    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    /* Check locally, then agree with every rank before building anything. */
    local = plan ? PCOLL_SUCCESS : pcoll__error(PCOLL_ERR_ARG, 1, "%s: plan is NULL", fn);
    if (local == PCOLL_SUCCESS)
        local = fill_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, fn, &a);
    if (local == PCOLL_SUCCESS)
        local = pcoll__opts_read(info, &pcoll__alltoall_table, comm_rank(comm) == 0, &a.opts);
    if ((rc = pcoll__ctx_get(comm, &ctx)) != PCOLL_SUCCESS)
        return rc;
    MPI_Comm_size(comm, &size);
    vals[0] = a.blockbytes;
    vals[1] = choose(&a, size);
    vals[2] = a.inplace;
    vals[3] = a.opts.radix;
    vals[4] = is_auto(&a);
    /* The no-communication mode (plan creation cost alone) skips the agreement. */
    if (local != PCOLL_SUCCESS && a.opts.no_comm)
        return local;
    if (!a.opts.no_comm && (rc = pcoll__agree(ctx->dup, local, vals, what, 5, fn)))
        return rc;
    if (!a.opts.no_comm && is_auto(&a))
        a.opts.algorithm = consider_hier(ctx, &a, size, (int)vals[1]);
    return build(ctx, &a, a.opts.no_comm ? PCOLL__ONESHOT_TAG : pcoll__ctx_tag(ctx), plan);
}

/* The one-shot cache key: every argument and option that shapes the plan. */
typedef struct oneshot_key {
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype sendtype, recvtype;
    int sendcount, recvcount;
    pcoll__opts_t opts;
} oneshot_key_t;

int pcoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "pcoll_alltoall";
    pcoll__a2a_args_t a;
    oneshot_key_t key;
    pcoll__ctx_t *ctx;
    pcoll_plan_t *plan;
    int rc;

    memset(&a, 0, sizeof a);
    memset(&key, 0, sizeof key);
    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    if ((rc = pcoll__opts_read(MPI_INFO_NULL, &pcoll__alltoall_table, comm_rank(comm) == 0,
                               &key.opts)) != PCOLL_SUCCESS)
        return rc;
    if ((rc = pcoll__ctx_get(comm, &ctx)) != PCOLL_SUCCESS)
        return rc;
    key.sendbuf = sendbuf;
    key.recvbuf = recvbuf;
    key.recvtype = recvtype;
    key.recvcount = recvcount;
    if (sendbuf != MPI_IN_PLACE) {
        key.sendtype = sendtype;
        key.sendcount = sendcount;
    }
    /* hier's planning is collective (nodes, shared segment): planned on
     * every call, never cached, since ranks may hit the cache differently. */
    if (key.opts.algorithm == ALGO_HIER) {
        rc = pcoll_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, MPI_INFO_NULL, &plan);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__plan_run(plan);
        pcoll_plan_free(&plan);
        return rc;
    }
    plan = pcoll__cache_find(ctx, &key, sizeof key);
    if (!plan) {
        MPI_Datatype types[2] = {key.recvtype, key.sendtype};
        a.opts = key.opts;
        PCOLL_CHECK(fill_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, fn,
                              &a), rc, out);
        PCOLL_CHECK(build(ctx, &a, PCOLL__ONESHOT_TAG, &plan), rc, out);
        rc = pcoll__cache_add(ctx, &key, sizeof key, types, a.inplace ? 1 : 2, plan);
        if (rc != PCOLL_SUCCESS) {
            pcoll__plan_destroy(plan);
            return rc;
        }
    }
    rc = pcoll__plan_run(plan);
out:
    return rc;
}

/* The drop-in layer's MPI_Ialltoall: a plan from local checks only (no
 * agreement, no cache) on a fresh tag, which every rank takes in the same
 * order because MPI orders non-blocking collectives alike on all ranks.
 * hier plans collectively, so it is refused (PCOLL_ERR_UNSUPPORTED). */
int pcoll__alltoall_plan_local(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, pcoll_plan_t **plan)
{
    const char *fn = "pcoll__alltoall_plan_local";
    pcoll__a2a_args_t a;
    pcoll__ctx_t *ctx;
    int rc;

    memset(&a, 0, sizeof a);
    *plan = NULL;
    PCOLL_CHECK(pcoll__check_comm(comm, fn), rc, out);
    PCOLL_CHECK(pcoll__opts_read(MPI_INFO_NULL, &pcoll__alltoall_table, comm_rank(comm) == 0,
                                 &a.opts), rc, out);
    if (a.opts.algorithm == ALGO_HIER)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, 1, "%s: hier plans collectively", fn);
    PCOLL_CHECK(fill_args(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, fn, &a),
                rc, out);
    PCOLL_CHECK(pcoll__ctx_get(comm, &ctx), rc, out);
    rc = build(ctx, &a, pcoll__ctx_tag(ctx), plan);
out:
    return rc;
}
