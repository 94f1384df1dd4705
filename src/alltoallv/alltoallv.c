/*
 * alltoallv entry points: the algorithm table, argument checks, the choice,
 * pcoll_alltoallv_init and the one-shot pcoll_alltoallv.
 *
 * Persistent init does all the analysis once: one reduction gives every
 * rank's verdict and the smallest and largest element size over all ranks
 * (zero-copy Bruck's regularity test, section 3.5 of the zero-copy Bruck
 * paper), an alltoall of the byte counts checks that every pair of ranks
 * agrees, and the builders exchange whatever counts they need and make every
 * datatype; a run only communicates.
 *
 * The one-shot path must not communicate to plan (ranks may hit and miss the
 * plan cache differently), so its automatic choice is a direct algorithm by
 * a rule every rank evaluates alike (scattered; pairwise in place, which
 * needs one block of scratch).  Algorithms whose planning communicates
 * (bruck_zerocopy, padded_bruck) are planned collectively on every one-shot
 * call instead of being cached.
 */
#include <stdlib.h>
#include <string.h>

#include "alltoall/hier.h"
#include "alltoallv/alltoallv.h"
#include "alltoallv/inplace.h"
#include "core/check.h"
#include "core/mem.h"
#include "core/status.h"
#include "datatype/signature.h"
#include "select/cost.h"

enum {
    V_LINEAR,
    V_PAIRWISE,
    V_SCATTERED,
    V_BRUCK_ZEROCOPY,
    V_PADDED_BRUCK,
    V_HIER,
    V_INPLACE,
    V_AUTO
};

/* MPI_IN_PLACE through the limited-memory in-place algorithm (inplace.c),
 * with the receive layout for both directions. */
static int build_inplace(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    if (!v->a.inplace)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, 1,
                            "alltoallv inplace: only with MPI_IN_PLACE (layouts that differ: "
                            "pcoll_alltoallv_inplace_init)");
    return pcoll__alltoallv_inplace_setup(plan, v->a.recvbuf, v->a.rcounts, v->a.rdispls,
                                          v->a.rcounts, v->a.rdispls, v->a.recvtype, &v->a.opts);
}

static const pcoll__algo_t algos[] = {
    [V_LINEAR] = {"linear", "all receives preposted, then all sends; zero-size messages skipped",
                  pcoll__alltoall_linear},
    [V_PAIRWISE] = {"pairwise", "p-1 exchange rounds; in place with one block of scratch",
                    pcoll__alltoall_pairwise},
    [V_SCATTERED] = {"scattered", "cyclic order, at most pcoll_throttle exchanges in flight",
                     pcoll__alltoall_scattered},
    [V_BRUCK_ZEROCOPY] = {"bruck_zerocopy",
                          "zero-copy Bruck with per-round count exchange at init and "
                          "bucket-typed intermediate buffers (nearly regular sizes)",
                          pcoll__alltoallv_bruck_zerocopy},
    [V_PADDED_BRUCK] = {"padded_bruck",
                        "every element padded to the largest, then the best alltoall Bruck",
                        pcoll__alltoallv_padded_bruck},
    [V_HIER] = {"hier",
                "node-aware: messages bundled per node pair in shared memory (sizes gathered "
                "on the node at init), radix-r Bruck between nodes",
                pcoll__alltoallv_hier},
    [V_INPLACE] = {"inplace",
                   "MPI_IN_PLACE with memory independent of the block sizes (aux buffers "
                   "pcoll_aux_bytes in pcoll_aux_buffers)",
                   build_inplace},
    [V_AUTO] = {"auto", "by p, sizes and regularity with the cost model", NULL},
};

const pcoll__algo_table_t pcoll__alltoallv_table = {
    "alltoallv", "PCOLL_ALLTOALLV_ALGORITHM", algos, (int)(sizeof algos / sizeof *algos)};

/* Algorithms whose planning needs collective communication. */
static int plans_collectively(int algo)
{
    return algo == V_BRUCK_ZEROCOPY || algo == V_PADDED_BRUCK || algo == V_HIER;
}

/* ---- checks ---------------------------------------------------------------- */

static int check_counts(const int *counts, const int *displs, int p, const char *what,
                        const char *fn)
{
    int i;
    if (!counts || !displs)
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: %s counts or displacements are NULL", fn,
                            what);
    for (i = 0; i < p; i++)
        if (counts[i] < 0 || displs[i] < 0)
            return pcoll__error(PCOLL_ERR_ARG, 1, "%s: %s count or displacement %d is negative",
                                fn, what, i);
    return PCOLL_SUCCESS;
}

typedef struct region {
    MPI_Aint lo, hi;
} region_t;

static int by_start(const void *x, const void *y)
{
    MPI_Aint a = ((const region_t *)x)->lo, b = ((const region_t *)y)->lo;
    return (a > b) - (a < b);
}

/* Receive blocks must not overlap.  Exact for dense receive types (blocks
 * are then intervals); a type with holes may interleave legally with
 * another block, and a test that could refuse such a layout on one rank
 * alone would leave the others waiting, so those are not checked. */
static int check_overlap(const pcoll__a2a_args_t *a, int p, const char *fn)
{
    region_t *r;
    MPI_Aint tlb, text, lb, ext;
    int i, n = 0, size, rc = PCOLL_SUCCESS;
    MPI_Type_size(a->recvtype, &size);
    MPI_Type_get_true_extent(a->recvtype, &tlb, &text);
    MPI_Type_get_extent(a->recvtype, &lb, &ext);
    if (text != size || ext != size)
        return PCOLL_SUCCESS;
    if (!(r = pcoll__malloc(sizeof *r * (size_t)(p ? p : 1))))
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: overlap check", fn);
    for (i = 0; i < p; i++)
        if (a->rcounts[i] > 0) {
            r[n].lo = (MPI_Aint)a->rdispls[i] * a->rext + tlb;
            r[n++].hi = (MPI_Aint)(a->rdispls[i] + a->rcounts[i] - 1) * a->rext + tlb + text;
        }
    qsort(r, (size_t)n, sizeof *r, by_start);
    for (i = 1; i < n && rc == PCOLL_SUCCESS; i++)
        if (r[i].lo < r[i - 1].hi)
            rc = pcoll__error(PCOLL_ERR_ARG, 1, "%s: receive blocks overlap", fn);
    pcoll__free(r);
    return rc;
}

/* The basic type both signatures are made of, if any. */
static void find_basic(pcoll__a2av_args_t *v)
{
    pcoll__sig_t s = {0}, r = {0};
    v->basic = MPI_DATATYPE_NULL;
    if (pcoll__sig_of(v->a.sendtype, 1, &s) == PCOLL_SUCCESS &&
        pcoll__sig_of(v->a.recvtype, 1, &r) == PCOLL_SUCCESS && s.nruns == 1 && r.nruns == 1 &&
        s.types[0] == r.types[0]) {
        v->basic = s.types[0];
        v->sunit = (int)s.counts[0];
        v->runit = (int)r.counts[0];
    }
    pcoll__sig_free(&s);
    pcoll__sig_free(&r);
}

/* The largest block in bytes, send or receive. */
static long long largest(const pcoll__a2a_args_t *a, int p)
{
    int i, ss, rs;
    long long m = 0;
    MPI_Type_size(a->sendtype, &ss);
    MPI_Type_size(a->recvtype, &rs);
    for (i = 0; i < p; i++) {
        long long b = (long long)a->scounts[i] * ss > (long long)a->rcounts[i] * rs
                          ? (long long)a->scounts[i] * ss
                          : (long long)a->rcounts[i] * rs;
        m = b > m ? b : m;
    }
    return m;
}

/* Local checks; fill *v (nothing allocated that outlives the call). */
static int fill_args(const void *sendbuf, const int *scounts, const int *sdispls,
                     MPI_Datatype sendtype, void *recvbuf, const int *rcounts,
                     const int *rdispls, MPI_Datatype recvtype, int p, const char *fn,
                     pcoll__a2av_args_t *v)
{
    pcoll__a2a_args_t *a = &v->a;
    MPI_Aint lb;
    int rc;
    a->inplace = sendbuf == MPI_IN_PLACE;
    if (a->inplace) {
        sendbuf = recvbuf, scounts = rcounts, sdispls = rdispls, sendtype = recvtype;
    }
    PCOLL_CHECK(check_counts(rcounts, rdispls, p, "receive", fn), rc, out);
    PCOLL_CHECK(check_counts(scounts, sdispls, p, "send", fn), rc, out);
    PCOLL_CHECK(pcoll__check_type(recvtype, "recvtype", fn), rc, out);
    PCOLL_CHECK(pcoll__check_type(sendtype, "sendtype", fn), rc, out);
    a->sendbuf = sendbuf, a->scounts = scounts, a->sdispls = sdispls, a->sendtype = sendtype;
    a->recvbuf = recvbuf, a->rcounts = rcounts, a->rdispls = rdispls, a->recvtype = recvtype;
    MPI_Type_get_extent(sendtype, &lb, &a->sext);
    MPI_Type_get_extent(recvtype, &lb, &a->rext);
    a->blockbytes = largest(a, p);
    v->minbytes = v->maxbytes = -1;
    PCOLL_CHECK(check_overlap(a, p, fn), rc, out);
    find_basic(v);
out:
    return rc;
}

/* ---- choice and building ---------------------------------------------------- */

int pcoll__alltoallv_regular(const pcoll__a2av_args_t *v)
{
    int ratio = v->a.opts.regular_ratio > 0 ? v->a.opts.regular_ratio : PCOLL__A2AV_REGULAR_RATIO;
    return v->basic != MPI_DATATYPE_NULL && v->maxbytes >= 0 &&
           v->maxbytes <= (long long)ratio * v->minbytes;
}

/* Persistent auto: the cost model over the global sizes. */
static int choose_global(const pcoll__a2av_args_t *v, int p)
{
    pcoll__cost_t c = pcoll__cost_params();
    double direct = pcoll__cost_direct(&c, p, v->maxbytes);
    double padded = pcoll__cost_bruck_zerocopy(&c, p, v->maxbytes) + 2.0 * p * v->maxbytes * c.gamma;
    if (v->a.inplace)
        return pcoll__alltoallv_inplace_preferred(&c, p, v->maxpeers, v->maxbytes, v->maxtotal,
                                                  &v->a.opts)
                   ? V_INPLACE
                   : V_PAIRWISE;
    if (pcoll__alltoallv_regular(v) && pcoll__cost_bruck_zerocopy(&c, p, v->maxbytes) < direct)
        return V_BRUCK_ZEROCOPY;
    if (v->basic != MPI_DATATYPE_NULL && padded < direct)
        return V_PADDED_BRUCK;
    return v->maxbytes > PCOLL__A2A_SCATTERED_MAX ? V_PAIRWISE : V_SCATTERED;
}

static int choose(const pcoll__a2av_args_t *v, int p)
{
    if (v->a.opts.algorithm >= 0 && v->a.opts.algorithm != V_AUTO)
        return v->a.opts.algorithm;
    if (v->maxbytes >= 0)
        return choose_global(v, p);
    return v->a.inplace ? V_PAIRWISE : V_SCATTERED;
}

/* Copy the counts and displacements into the plan (the caller's arrays may
 * be freed after init). */
static int keep_arrays(pcoll_plan_t *plan, pcoll__a2a_args_t *a)
{
    size_t bytes = sizeof(int) * (size_t)plan->size;
    int *copy = pcoll__plan_alloc(plan, 4 * bytes);
    if (!copy)
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "alltoallv: counts");
    memcpy(copy, a->scounts, bytes);
    memcpy(copy + plan->size, a->sdispls, bytes);
    memcpy(copy + 2 * plan->size, a->rcounts, bytes);
    memcpy(copy + 3 * plan->size, a->rdispls, bytes);
    a->scounts = copy, a->sdispls = copy + plan->size;
    a->rcounts = copy + 2 * plan->size, a->rdispls = copy + 3 * plan->size;
    return PCOLL_SUCCESS;
}

/* Persistent auto (collective): hier when there are several nodes of
 * several ranks and the cost model prefers it to the flat choice. */
static int consider_hier(pcoll__ctx_t *ctx, const pcoll__a2av_args_t *v, int p, int algo)
{
    pcoll__cost_t c = pcoll__cost_params();
    int requested = v->a.opts.algorithm >= 0 && v->a.opts.algorithm != V_AUTO;
    if (v->maxbytes <= 0 || v->a.inplace || requested)
        return algo;
    return pcoll__hier_pays(ctx, &v->a.opts, v->maxbytes, pcoll__cost_direct(&c, p, v->maxbytes))
               ? V_HIER
               : algo;
}

static int build(pcoll__ctx_t *ctx, const pcoll__a2av_args_t *args, int tag, pcoll_plan_t **out)
{
    pcoll__a2av_args_t v = *args;
    pcoll_plan_t *plan = NULL;
    int algo, rc;

    PCOLL_CHECK(pcoll__plan_create(ctx, "alltoallv", tag, &plan), rc, fail);
    algo = choose(&v, plan->size);
    if (v.maxbytes >= 0 && !v.a.opts.no_comm)
        algo = consider_hier(ctx, &v, plan->size, algo);
    plan->algorithm = algos[algo].name;
    plan->no_comm = v.a.opts.no_comm;
    plan->normalize = plan->normalize || v.a.opts.normalize;
    PCOLL_CHECK(keep_arrays(plan, &v.a), rc, fail);
    PCOLL_CHECK(pcoll__plan_keep_type(plan, &v.a.recvtype), rc, fail);
    if (v.a.inplace)
        v.a.sendtype = v.a.recvtype;
    else
        PCOLL_CHECK(pcoll__plan_keep_type(plan, &v.a.sendtype), rc, fail);
    /* hier copies every block in before any is copied out. */
    if (v.a.inplace && algo != V_PAIRWISE && algo != V_HIER && algo != V_INPLACE) {
        rc = pcoll__error(PCOLL_ERR_UNSUPPORTED, 1, "alltoallv %s: MPI_IN_PLACE (use pairwise)",
                          algos[algo].name);
        goto fail;
    }
    PCOLL_CHECK(algos[algo].build(plan, &v), rc, fail);
    PCOLL_CHECK(pcoll__sched_commit(&plan->sched, plan->comm, plan->tag), rc, fail);
    *out = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}

/* ---- persistent init ---------------------------------------------------------- */

/* Every pair must agree on the bytes it exchanges: one alltoall of counts. */
static int check_pairs(MPI_Comm comm, const pcoll__a2a_args_t *a, int p, int *ok)
{
    int *out = pcoll__malloc(sizeof(int) * 2 * (size_t)p), i, ss, rs;
    if (!out)
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "alltoallv: count check");
    MPI_Type_size(a->sendtype, &ss);
    MPI_Type_size(a->recvtype, &rs);
    for (i = 0; i < p; i++)
        out[i] = a->scounts[i] * ss;
    *ok = MPI_Alltoall(out, 1, MPI_INT, out + p, 1, MPI_INT, comm) == MPI_SUCCESS;
    for (i = 0; i < p && *ok; i++)
        *ok = out[p + i] == a->rcounts[i] * rs;
    pcoll__free(out);
    return PCOLL_SUCCESS;
}

/* Smallest element in bytes (over both directions, all peers). */
static long long smallest(const pcoll__a2a_args_t *a, int p)
{
    int i, rs;
    long long m = -1;
    MPI_Type_size(a->recvtype, &rs);
    for (i = 0; i < p; i++)
        if (m < 0 || (long long)a->rcounts[i] * rs < m)
            m = (long long)a->rcounts[i] * rs;
    return m < 0 ? 0 : m;
}

/* Bytes this rank receives in all, and from how many peers. */
static void received(const pcoll__a2a_args_t *a, int p, long long *total, long long *peers)
{
    int i, rs;
    MPI_Type_size(a->recvtype, &rs);
    for (i = 0, *total = *peers = 0; i < p; i++) {
        *total += (long long)a->rcounts[i] * rs;
        *peers += a->rcounts[i] > 0;
    }
}

/* The reduction: verdicts, algorithm and in-place use (must be equal), the
 * global smallest and largest element, the basic type's size. */
static int agree(pcoll__ctx_t *ctx, int local, pcoll__a2av_args_t *v, int p, const char *fn)
{
    long long vals[7] = {0}, mins[7], maxs[7];
    int bsize = 0, rc, ok = 1;
    /* The arguments are known to be valid only when the local checks passed. */
    if (local == PCOLL_SUCCESS) {
        if (v->basic != MPI_DATATYPE_NULL)
            MPI_Type_size(v->basic, &bsize);
        vals[0] = v->a.opts.algorithm, vals[1] = v->a.inplace, vals[2] = smallest(&v->a, p);
        vals[3] = v->a.blockbytes, vals[4] = bsize;
        received(&v->a, p, &vals[5], &vals[6]);
    }
    rc = pcoll__agree_range(ctx->dup, local, vals, 7, mins, maxs, fn);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (mins[0] != maxs[0] || mins[1] != maxs[1])
        return pcoll__error(PCOLL_ERR_MISMATCH, 1, "%s: algorithm or MPI_IN_PLACE use differs", fn);
    v->minbytes = mins[2], v->maxbytes = maxs[3];
    v->maxtotal = maxs[5], v->maxpeers = (int)maxs[6];
    if (mins[4] != maxs[4] || mins[4] == 0)
        v->basic = MPI_DATATYPE_NULL;
    rc = check_pairs(ctx->dup, &v->a, p, &ok);
    vals[0] = rc == PCOLL_SUCCESS && !ok ? PCOLL_ERR_MISMATCH : rc;
    rc = pcoll__agree_range(ctx->dup, (int)vals[0], vals, 0, mins, maxs, fn);
    if (rc == PCOLL_ERR_MISMATCH && !ok)
        pcoll__error(rc, 1, "%s: send and receive counts disagree between ranks", fn);
    return rc;
}

int pcoll_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, pcoll_plan_t **plan)
{
    const char *fn = "pcoll_alltoallv_init";
    pcoll__a2av_args_t v;
    pcoll__ctx_t *ctx;
    int rc, local, p, rank;

    memset(&v, 0, sizeof v);
    if (plan)
        *plan = NULL;
    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    local = plan ? PCOLL_SUCCESS : pcoll__error(PCOLL_ERR_ARG, 1, "%s: plan is NULL", fn);
    if (local == PCOLL_SUCCESS)
        local = fill_args(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, p, fn, &v);
    if (local == PCOLL_SUCCESS)
        local = pcoll__opts_read(info, &pcoll__alltoallv_table, rank == 0, &v.a.opts);
    if ((rc = pcoll__ctx_get(comm, &ctx)) != PCOLL_SUCCESS)
        return rc;
    if (v.a.opts.no_comm && local != PCOLL_SUCCESS)
        return local;
    if (!v.a.opts.no_comm && (rc = agree(ctx, local, &v, p, fn)) != PCOLL_SUCCESS)
        return rc;
    return build(ctx, &v, v.a.opts.no_comm ? PCOLL__ONESHOT_TAG : pcoll__ctx_tag(ctx), plan);
}

/* ---- one-shot ------------------------------------------------------------------- */

/* A plan whose planning communicates: made collectively, run once, freed. */
static int run_uncached(const void *sendbuf, const int *scounts, const int *sdispls,
                        MPI_Datatype sendtype, void *recvbuf, const int *rcounts,
                        const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
    pcoll_plan_t *plan = NULL;
    int rc = pcoll_alltoallv_init(sendbuf, scounts, sdispls, sendtype, recvbuf, rcounts,
                                  rdispls, recvtype, comm, MPI_INFO_NULL, &plan);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__plan_run(plan);
    pcoll_plan_free(&plan);
    return rc;
}

typedef struct oneshot_key {
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype sendtype, recvtype;
    pcoll__opts_t opts;
} oneshot_key_t;

/* The key: fixed part, then the four arrays (send ones zero in place). */
static oneshot_key_t *make_key(const void *sendbuf, const int *sc, const int *sd,
                               MPI_Datatype st, void *recvbuf, const int *rc, const int *rd,
                               MPI_Datatype rt, const pcoll__opts_t *opts, int p, size_t *len)
{
    size_t bytes = sizeof(int) * (size_t)p;
    oneshot_key_t *k;
    *len = sizeof *k + 4 * bytes;
    if (!(k = pcoll__calloc(1, *len)))
        return NULL;
    k->sendbuf = sendbuf, k->recvbuf = recvbuf, k->recvtype = rt, k->opts = *opts;
    memcpy((char *)(k + 1) + 2 * bytes, rc, bytes);
    memcpy((char *)(k + 1) + 3 * bytes, rd, bytes);
    if (sendbuf != MPI_IN_PLACE) {
        k->sendtype = st;
        memcpy(k + 1, sc, bytes);
        memcpy((char *)(k + 1) + bytes, sd, bytes);
    }
    return k;
}

int pcoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "pcoll_alltoallv";
    pcoll__a2av_args_t v;
    pcoll__opts_t opts;
    oneshot_key_t *key = NULL;
    pcoll__ctx_t *ctx;
    pcoll_plan_t *plan;
    size_t keylen;
    int rc, p, rank;

    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    memset(&v, 0, sizeof v);
    PCOLL_CHECK(pcoll__opts_read(MPI_INFO_NULL, &pcoll__alltoallv_table, rank == 0, &opts), rc,
                out);
    PCOLL_CHECK(fill_args(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, p, fn, &v), rc, out);
    if (opts.algorithm >= 0 && plans_collectively(opts.algorithm))
        return run_uncached(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm);
    PCOLL_CHECK(pcoll__ctx_get(comm, &ctx), rc, out);
    key = make_key(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, &opts, p, &keylen);
    if (!key) {
        rc = pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: key", fn);
        goto out;
    }
    if (!(plan = pcoll__cache_find(ctx, key, keylen))) {
        MPI_Datatype types[2] = {key->recvtype, key->sendtype};
        v.a.opts = opts;
        PCOLL_CHECK(build(ctx, &v, PCOLL__ONESHOT_TAG, &plan), rc, out);
        rc = pcoll__cache_add(ctx, key, keylen, types, v.a.inplace ? 1 : 2, plan);
        if (rc != PCOLL_SUCCESS) {
            pcoll__plan_destroy(plan);
            goto out;
        }
    }
    rc = pcoll__plan_run(plan);
out:
    pcoll__free(key);
    return rc;
}

/* The drop-in layer's MPI_Ialltoallv: a plan from local checks only (no
 * agreement, no cache; the one-shot path's choice) on a fresh tag, which
 * every rank takes in the same order.  Algorithms that plan collectively
 * are refused (PCOLL_ERR_UNSUPPORTED). */
int pcoll__alltoallv_plan_local(const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, pcoll_plan_t **plan)
{
    const char *fn = "pcoll__alltoallv_plan_local";
    pcoll__a2av_args_t v;
    pcoll__ctx_t *ctx;
    int rc, p, rank;

    memset(&v, 0, sizeof v);
    *plan = NULL;
    PCOLL_CHECK(pcoll__check_comm(comm, fn), rc, out);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    PCOLL_CHECK(pcoll__opts_read(MPI_INFO_NULL, &pcoll__alltoallv_table, rank == 0, &v.a.opts),
                rc, out);
    if (v.a.opts.algorithm >= 0 && plans_collectively(v.a.opts.algorithm))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, 1, "%s: %s plans collectively", fn,
                            algos[v.a.opts.algorithm].name);
    PCOLL_CHECK(fill_args(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, p, fn, &v), rc, out);
    PCOLL_CHECK(pcoll__ctx_get(comm, &ctx), rc, out);
    rc = build(ctx, &v, pcoll__ctx_tag(ctx), plan);
out:
    return rc;
}
