/*
 * Reduce-scatter entry points (block and counts forms): the algorithm table,
 * argument checks, the automatic choice, in-place staging, the *_init calls
 * and the one-shot calls; plus the helpers the builders share.
 *
 * In place (MPI_IN_PLACE): the input vector is taken from recvbuf and the
 * result block left at its start.  The plan copies the input into scratch at
 * the start of each run (total elements) and runs the algorithm from there.
 */
#include <limits.h>
#include <string.h>

#include "core/check.h"
#include "core/mem.h"
#include "core/status.h"
#include "datatype/contents.h"
#include "reduce_scatter/reduce_scatter.h"
#include "select/cost.h"

enum { ALGO_MST, ALGO_RING, ALGO_RING_PREPOST, ALGO_RECURSIVE_HALVING, ALGO_PAIRWISE, ALGO_AUTO };

static const pcoll__algo_t algos[] = {
    [ALGO_MST] = {"mst", "binomial-tree reduce to rank 0, then binomial scatter (short vectors)",
                  pcoll__reduce_scatter_mst},
    [ALGO_RING] = {"ring", "bucket algorithm: p-1 steps of n/p around a ring (long vectors)",
                   pcoll__reduce_scatter_ring},
    [ALGO_RING_PREPOST] = {"ring_prepost",
                           "ring with every receive preposted, a handshake, ready-mode sends",
                           pcoll__reduce_scatter_ring_prepost},
    [ALGO_RECURSIVE_HALVING] = {"recursive_halving",
                                "log2 p halving steps (fold-in for other p), order kept",
                                pcoll__reduce_scatter_recursive_halving},
    [ALGO_PAIRWISE] = {"pairwise", "p-1 exchange rounds of one block each",
                       pcoll__reduce_scatter_pairwise},
    [ALGO_AUTO] = {"auto", "the cost model and the op's commutativity", NULL},
};

const pcoll__algo_table_t pcoll__reduce_scatter_table = {
    "reduce_scatter", "PCOLL_REDUCE_SCATTER_ALGORITHM", algos,
    (int)(sizeof algos / sizeof *algos)};

/* ---- helpers shared by the builders -------------------------------------- */

void *pcoll__rs_scratch(pcoll_plan_t *plan, const pcoll__rs_args_t *a, long long count)
{
    MPI_Aint true_lb, true_extent;
    char *mem;
    MPI_Type_get_true_extent(a->type, &true_lb, &true_extent);
    if (count <= 0)
        count = 1;
    mem = pcoll__plan_alloc(plan, (size_t)((count - 1) * a->extent + true_extent));
    return mem ? mem - true_lb : NULL;
}

int pcoll__rs_reduce(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *in, void *inout,
                     long long count)
{
    return pcoll__sched_reduce(&plan->sched, in, inout, (int)count, a->type, a->op);
}

int pcoll__rs_send(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *buf,
                   long long count, int peer)
{
    return pcoll__sched_send(&plan->sched, buf, (int)count, a->type, peer);
}

int pcoll__rs_recv(pcoll_plan_t *plan, const pcoll__rs_args_t *a, void *buf, long long count,
                   int peer)
{
    return pcoll__sched_recv(&plan->sched, buf, (int)count, a->type, peer);
}

int pcoll__rs_copy(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *src, void *dst,
                   long long count)
{
    return pcoll__sched_copy(&plan->sched, src, (int)count, a->type, dst, (int)count, a->type);
}

/* ---- checks ---------------------------------------------------------------- */

/* Whether every leaf of type's constructor tree is the same predefined type
 * (*leaf, set by the first leaf found).  Pair types such as MPI_DOUBLE_INT
 * are leaves of their own. */
static int one_leaf(MPI_Datatype type, MPI_Datatype *leaf)
{
    pcoll__contents_t c = {0};
    int i, ok;
    if (pcoll__type_predefined(type)) {
        if (*leaf == MPI_DATATYPE_NULL)
            *leaf = type;
        return *leaf == type;
    }
    if (pcoll__contents_get(type, "reduce_scatter", &c) != PCOLL_SUCCESS)
        return 0;
    for (i = 0, ok = 1; i < c.ntypes && ok; i++)
        ok = one_leaf(c.types[i], leaf);
    pcoll__contents_free(&c);
    return ok;
}

/* A predefined op needs a type map of one predefined type. */
static int check_op_type(MPI_Datatype type, MPI_Op op, const char *fn)
{
    MPI_Datatype leaf = MPI_DATATYPE_NULL;
    if (!pcoll__op_predefined(op) || one_leaf(type, &leaf))
        return PCOLL_SUCCESS;
    return pcoll__error(PCOLL_ERR_ARG, 1,
                        "%s: a predefined op needs a type made of one predefined type", fn);
}

/* Local checks of everything but the counts; fill *a. */
static int fill_args(const void *sendbuf, void *recvbuf, MPI_Datatype type, MPI_Op op,
                     const char *fn, pcoll__rs_args_t *a)
{
    MPI_Aint lb;
    int rc;
    PCOLL_CHECK(pcoll__check_type(type, "type", fn), rc, out);
    if (op == MPI_OP_NULL)
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: MPI_OP_NULL", fn);
    PCOLL_CHECK(check_op_type(type, op, fn), rc, out);
    MPI_Op_commutative(op, &a->commutative);
    MPI_Type_get_extent(type, &lb, &a->extent);
    a->inplace = sendbuf == MPI_IN_PLACE;
    a->sendbuf = a->inplace ? recvbuf : sendbuf;
    a->recvbuf = recvbuf;
    a->type = type;
    a->op = op;
out:
    return rc;
}

/* Check the counts and compute their prefix sums into displs (p+1). */
static int fill_counts(const int *counts, int p, const char *fn, long long *displs,
                       pcoll__rs_args_t *a)
{
    int i;
    if (!counts)
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: recvcounts is NULL", fn);
    displs[0] = 0;
    for (i = 0; i < p; i++) {
        if (counts[i] < 0)
            return pcoll__error(PCOLL_ERR_ARG, 1, "%s: recvcounts[%d] is negative (%d)", fn, i,
                                counts[i]);
        displs[i + 1] = displs[i] + counts[i];
    }
    if (displs[p] > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, 1, "%s: more than INT_MAX elements", fn);
    a->counts = counts;
    a->displs = displs;
    a->total = displs[p];
    return PCOLL_SUCCESS;
}

/* ---- choice, staging, building --------------------------------------------- */

static int supports(int algo, const pcoll__rs_args_t *a)
{
    return a->commutative || (algo != ALGO_RING && algo != ALGO_RING_PREPOST);
}

static int choose(const pcoll__rs_args_t *a, int p)
{
    pcoll__cost_t c = pcoll__cost_params();
    int size, i, best = ALGO_MST;
    double t[ALGO_AUTO], n;
    if (a->opts.algorithm >= 0 && a->opts.algorithm != ALGO_AUTO)
        return a->opts.algorithm;
    MPI_Type_size(a->type, &size);
    n = (double)a->total * size;
    t[ALGO_MST] = pcoll__cost_rs_mst(&c, p, n);
    t[ALGO_RING] = pcoll__cost_rs_ring(&c, p, n, 0);
    t[ALGO_RING_PREPOST] = pcoll__cost_rs_ring(&c, p, n, 1);
    t[ALGO_RECURSIVE_HALVING] = pcoll__cost_rs_halving(&c, p, n);
    t[ALGO_PAIRWISE] = pcoll__cost_rs_ring(&c, p, n, 0) + c.alpha;
    for (i = 0; i < ALGO_AUTO; i++)
        if (supports(i, a) && t[i] < t[best])
            best = i;
    return best;
}

/* In place: copy the input vector into scratch at the start of each run. */
static int stage_inplace(pcoll_plan_t *plan, pcoll__rs_args_t *a)
{
    void *copy = pcoll__rs_scratch(plan, a, a->total);
    if (!copy)
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "reduce_scatter in place: scratch");
    a->sendbuf = copy;
    return pcoll__rs_copy(plan, a, a->recvbuf, copy, a->total);
}

/* Build and commit a plan; the counts and displacements are copied in. */
static int build(pcoll__ctx_t *ctx, const pcoll__rs_args_t *args, int tag, pcoll_plan_t **out)
{
    pcoll__rs_args_t a = *args;
    pcoll_plan_t *plan = NULL;
    int algo, rc, p;
    int *counts;
    long long *displs;

    PCOLL_CHECK(pcoll__plan_create(ctx, "reduce_scatter", tag, &plan), rc, fail);
    p = plan->size;
    algo = choose(&a, p);
    plan->algorithm = algos[algo].name;
    plan->no_comm = a.opts.no_comm;
    plan->normalize = plan->normalize || a.opts.normalize;
    if (!supports(algo, &a)) {
        rc = pcoll__error(PCOLL_ERR_UNSUPPORTED, 1,
                          "reduce_scatter %s: the op is not commutative", algos[algo].name);
        goto fail;
    }
    counts = pcoll__plan_alloc(plan, sizeof(int) * (size_t)p);
    displs = pcoll__plan_alloc(plan, sizeof(long long) * (size_t)(p + 1));
    if (!counts || !displs) {
        rc = pcoll__error(PCOLL_ERR_NOMEM, 1, "reduce_scatter: counts");
        goto fail;
    }
    memcpy(counts, a.counts, sizeof(int) * (size_t)p);
    memcpy(displs, a.displs, sizeof(long long) * (size_t)(p + 1));
    a.counts = counts;
    a.displs = displs;
    PCOLL_CHECK(pcoll__plan_keep_type(plan, &a.type), rc, fail);
    if (a.total > 0) {
        if (a.inplace)
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

/* ---- entry points ------------------------------------------------------------ */

/* Shared by both init forms: local checks, agreement, build. */
static int init(const void *sendbuf, void *recvbuf, const int *counts, MPI_Datatype type,
                MPI_Op op, MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan, const char *fn)
{
    static const char *const what[] = {"the vector length", "the algorithm", "MPI_IN_PLACE use"};
    pcoll__rs_args_t a;
    pcoll__ctx_t *ctx;
    long long vals[3], *displs = NULL;
    int rc, local = PCOLL_SUCCESS, p, rank;

    memset(&a, 0, sizeof a);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    if (!plan)
        local = pcoll__error(PCOLL_ERR_ARG, 1, "%s: plan is NULL", fn);
    else if (!(displs = pcoll__malloc(sizeof(long long) * (size_t)(p + 1))))
        local = pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: displacements", fn);
    if (local == PCOLL_SUCCESS)
        local = fill_args(sendbuf, recvbuf, type, op, fn, &a);
    if (local == PCOLL_SUCCESS)
        local = fill_counts(counts, p, fn, displs, &a);
    if (local == PCOLL_SUCCESS)
        local = pcoll__opts_read(info, &pcoll__reduce_scatter_table, rank == 0, &a.opts);
    rc = pcoll__ctx_get(comm, &ctx);
    vals[0] = a.total;
    vals[1] = local == PCOLL_SUCCESS ? choose(&a, p) : 0;
    vals[2] = a.inplace;
    if (rc == PCOLL_SUCCESS && !a.opts.no_comm)
        rc = pcoll__agree(ctx->dup, local, vals, what, 3, fn);
    if (rc == PCOLL_SUCCESS)
        rc = local != PCOLL_SUCCESS ? local
                                    : build(ctx, &a, a.opts.no_comm ? PCOLL__ONESHOT_TAG
                                                                    : pcoll__ctx_tag(ctx),
                                            plan);
    pcoll__free(displs);
    return rc;
}

int pcoll_reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              pcoll_plan_t **plan)
{
    const char *fn = "pcoll_reduce_scatter_init";
    int rc;
    if (plan)
        *plan = NULL;
    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    return init(sendbuf, recvbuf, recvcounts, type, op, comm, info, plan, fn);
}

/* The counts array of the block form: p copies of recvcount (NULL on error). */
static int *block_counts(MPI_Comm comm, int recvcount)
{
    int p, i, *counts;
    MPI_Comm_size(comm, &p);
    if (!(counts = pcoll__malloc(sizeof(int) * (size_t)p)))
        return NULL;
    for (i = 0; i < p; i++)
        counts[i] = recvcount;
    return counts;
}

int pcoll_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    pcoll_plan_t **plan)
{
    const char *fn = "pcoll_reduce_scatter_block_init";
    int rc, *counts;
    if (plan)
        *plan = NULL;
    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    if (!(counts = block_counts(comm, recvcount)))
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: counts", fn);
    rc = init(sendbuf, recvbuf, counts, type, op, comm, info, plan, fn);
    pcoll__free(counts);
    return rc;
}

/* One-shot: look the arguments up in the communicator's cache, else build.
 * Key: buffers, type, op, options, then the counts. */
typedef struct oneshot_key {
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype type;
    MPI_Op op;
    pcoll__opts_t opts;
} oneshot_key_t;

static int oneshot(const void *sendbuf, void *recvbuf, const int *counts, MPI_Datatype type,
                   MPI_Op op, MPI_Comm comm, const char *fn)
{
    pcoll__ctx_t *ctx;
    pcoll_plan_t *plan;
    oneshot_key_t *key;
    pcoll__rs_args_t a;
    long long *displs;
    size_t keylen;
    int rc, p, rank;

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    if (!counts)
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: recvcounts is NULL", fn);
    keylen = sizeof *key + sizeof(int) * (size_t)p;
    displs = pcoll__malloc(sizeof(long long) * (size_t)(p + 1));
    key = pcoll__calloc(1, keylen);
    if (!displs || !key) {
        rc = pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: key", fn);
        goto out;
    }
    memset(&a, 0, sizeof a);
    PCOLL_CHECK(pcoll__opts_read(MPI_INFO_NULL, &pcoll__reduce_scatter_table, rank == 0,
                                 &key->opts), rc, out);
    PCOLL_CHECK(pcoll__ctx_get(comm, &ctx), rc, out);
    key->sendbuf = sendbuf;
    key->recvbuf = recvbuf;
    key->type = type;
    key->op = op;
    memcpy(key + 1, counts, sizeof(int) * (size_t)p);
    if (!(plan = pcoll__cache_find(ctx, key, keylen))) {
        a.opts = key->opts;
        PCOLL_CHECK(fill_args(sendbuf, recvbuf, type, op, fn, &a), rc, out);
        PCOLL_CHECK(fill_counts(counts, p, fn, displs, &a), rc, out);
        PCOLL_CHECK(build(ctx, &a, PCOLL__ONESHOT_TAG, &plan), rc, out);
        if ((rc = pcoll__cache_add(ctx, key, keylen, &type, 1, plan)) != PCOLL_SUCCESS) {
            pcoll__plan_destroy(plan);
            goto out;
        }
    }
    rc = pcoll__plan_run(plan);
out:
    pcoll__free(key);
    pcoll__free(displs);
    return rc;
}

int pcoll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    const char *fn = "pcoll_reduce_scatter";
    int rc = pcoll__check_comm(comm, fn);
    return rc != PCOLL_SUCCESS ? rc : oneshot(sendbuf, recvbuf, recvcounts, type, op, comm, fn);
}

int pcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    const char *fn = "pcoll_reduce_scatter_block";
    int rc = pcoll__check_comm(comm, fn), *counts;
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (recvcount < 0)
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: recvcount is negative (%d)", fn, recvcount);
    if (!(counts = block_counts(comm, recvcount)))
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: counts", fn);
    rc = oneshot(sendbuf, recvbuf, counts, type, op, comm, fn);
    pcoll__free(counts);
    return rc;
}

/* The drop-in layer's MPI_Ireduce_scatter(_block): a plan from local checks
 * only (no agreement, no cache) on a fresh tag, which every rank takes in
 * the same order. */
int pcoll__reduce_scatter_plan_local(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                     pcoll_plan_t **plan)
{
    const char *fn = "pcoll__reduce_scatter_plan_local";
    long long *displs = NULL;
    pcoll__rs_args_t a;
    pcoll__ctx_t *ctx;
    int rc, p, rank;

    memset(&a, 0, sizeof a);
    *plan = NULL;
    PCOLL_CHECK(pcoll__check_comm(comm, fn), rc, out);
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    if (!(displs = pcoll__malloc(sizeof(long long) * (size_t)(p + 1)))) {
        rc = pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: displacements", fn);
        goto out;
    }
    PCOLL_CHECK(pcoll__opts_read(MPI_INFO_NULL, &pcoll__reduce_scatter_table, rank == 0,
                                 &a.opts), rc, out);
    PCOLL_CHECK(fill_args(sendbuf, recvbuf, type, op, fn, &a), rc, out);
    PCOLL_CHECK(fill_counts(recvcounts, p, fn, displs, &a), rc, out);
    PCOLL_CHECK(pcoll__ctx_get(comm, &ctx), rc, out);
    rc = build(ctx, &a, pcoll__ctx_tag(ctx), plan);
out:
    pcoll__free(displs);
    return rc;
}
