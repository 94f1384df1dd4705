/*
 * In-place alltoallv with limited memory: the entry points
 * (pcoll_alltoallv_inplace_init and the setup the alltoallv collective
 * calls for MPI_IN_PLACE).  The algorithm is the paper's section 3; see
 * inplace.h for the files that implement its parts.
 *
 * Cost: phases of one request exchange (2 messages of PCOLL__IP_CTL ints per
 * active peer) and one data exchange (at most PCOLL__IP_PIECES + 1 messages
 * per active peer and direction); every item is sent once, received once
 * (into place or into an aux buffer, then copied into place once), and may
 * be moved toward higher indices in the update of a phase (section 3.4).
 * The number of phases depends on the layouts and on the aux memory: 1 when
 * every receive set is free or the aux buffers hold everything; with the
 * send and receive layouts equal every item passes an aux buffer, so at
 * least total / a and largest block / (a/b) (inplace_cost.c).
 * Memory: O(p) integers plus the aux buffers (a bytes at most), plus a
 * bounded staging buffer for non-contiguous types (inplace_state.c).
 * In place by construction; sendcounts/recvcounts may differ per peer and
 * the blocks may lie in any order.
 *
 * Init checks the arguments locally, agrees on the verdict and on the
 * type's size over all ranks, and exchanges the counts once (MPI_Alltoall)
 * to return PCOLL_ERR_MISMATCH on every rank when sendcounts[j] at rank i
 * differs from recvcounts[i] at rank j.
 */
#include <string.h>

#include "alltoallv/inplace.h"
#include "core/check.h"
#include "core/mem.h"
#include "core/status.h"
#include "datatype/copy.h"

/* The table of pcoll_alltoallv_inplace_init (one algorithm), under the
 * collective name "alltoallv_inplace"; its entry also serves `inplace` in
 * the alltoallv table. */
static const pcoll__algo_t algos[] = {
    {"inplace",
     "limited memory (Hofmann and Ruenger): phases of requests and transfers into free "
     "space and b aux buffers of a/b bytes",
     NULL},
};

const pcoll__algo_table_t pcoll__alltoallv_inplace_table = {
    "alltoallv_inplace", "PCOLL_ALLTOALLV_INPLACE_ALGORITHM", algos, 1};

/* The four arrays that describe one rank's layout. */
typedef struct layout {
    const int *scounts, *sdispls, *rcounts, *rdispls;
} layout_t;

/* A valid, committed type whose items do not lie on top of each other;
 * *size is the bytes of one item. */
static int check_type(MPI_Datatype type, int *size, const char *fn)
{
    MPI_Aint lb, extent;
    int rc = pcoll__check_type(type, "type", fn);
    if (rc != PCOLL_SUCCESS)
        return rc;
    MPI_Type_size(type, size);
    MPI_Type_get_extent(type, &lb, &extent);
    if (*size > 0 && extent <= 0)
        return pcoll__error(PCOLL_ERR_ARG, 1,
                            "%s: the type's extent (%ld) would put all items in one place", fn,
                            (long)extent);
    return PCOLL_SUCCESS;
}

/* Whether the layout has any item at all. */
static int has_items(const layout_t *l, int p)
{
    int i;
    for (i = 0; i < p; i++)
        if (l->scounts[i] > 0 || l->rcounts[i] > 0)
            return 1;
    return 0;
}

/* The type (kept by the plan), its signature type, extent, size and
 * whether its items are dense bytes. */
static int describe_type(pcoll_plan_t *plan, pcoll__ip_t *ip, MPI_Datatype type)
{
    MPI_Aint lb;
    pcoll__copy_t c;
    int rc;
    PCOLL_CHECK(pcoll__plan_keep_type(plan, &type), rc, out);
    ip->type = type;
    MPI_Type_get_extent(type, &lb, &ip->extent);
    MPI_Type_size(type, &ip->size);
    if (ip->size == 0)
        return PCOLL_SUCCESS;
    PCOLL_CHECK(pcoll_type_signature(type, &ip->sig), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &ip->sig), rc, out);
    PCOLL_CHECK(pcoll__copy_prepare(2, type, 2, type, &c), rc, out);
    ip->contiguous = c.mode != PCOLL__COPY_STAGED;
out:
    return rc;
}

/* Items per staging chunk: min(a, PCOLL__IP_STAGE_BYTES) bytes, >= 1 item. */
static int stage_items(const pcoll__ip_t *ip, const pcoll__opts_t *opts)
{
    long long a = opts->aux_bytes ? opts->aux_bytes : PCOLL__IP_AUX_BYTES;
    long long bytes = a < PCOLL__IP_STAGE_BYTES ? a : PCOLL__IP_STAGE_BYTES;
    return bytes / ip->size > 1 ? (int)(bytes / ip->size) : 1;
}

int pcoll__alltoallv_inplace_setup(pcoll_plan_t *plan, void *buf, const int *scounts,
                                   const int *sdispls, const int *rcounts, const int *rdispls,
                                   MPI_Datatype type, const pcoll__opts_t *opts)
{
    const char *fn = "in-place alltoallv";
    pcoll__ip_t *ip;
    int rc, size;
    PCOLL_CHECK(check_type(type, &size, fn), rc, out);
    PCOLL_CHECK(pcoll__ip_check(plan->size, scounts, sdispls, rcounts, rdispls, fn), rc, out);
    if (!(ip = pcoll__calloc(1, sizeof *ip)))
        return pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: plan state", fn);
    plan->priv = ip;
    plan->ops = &pcoll__ip_ops;
    plan->algorithm = "inplace";
    *ip = (pcoll__ip_t){.buf = buf,
                        .p = plan->size,
                        .rank = plan->rank,
                        .tag = plan->tag,
                        .comm = plan->comm,
                        .ctl = plan->ctx->ctl,
                        .contiguous = 1};
    PCOLL_CHECK(describe_type(plan, ip, type), rc, out);
    if (ip->size == 0) {
        plan->no_comm = 1; /* zero bytes to move: every run is complete at once */
        return PCOLL_SUCCESS;
    }
    PCOLL_CHECK(pcoll__ip_aux_config(ip->p, ip->size, opts, fn, &ip->nbuf, &ip->cap), rc, out);
    ip->stage_items = stage_items(ip, opts);
    PCOLL_CHECK(pcoll__ip_alloc(ip), rc, out);
    rc = pcoll__ip_split(ip, scounts, sdispls, rcounts, rdispls);
out:
    return rc;
}

/* Everything init can check on this rank alone; fills *opts and *size. */
static int check_local(void *buf, const layout_t *l, MPI_Datatype type, MPI_Comm comm,
                       MPI_Info info, pcoll__opts_t *opts, int *size, const char *fn)
{
    int rc, p, rank, nbuf;
    long long cap;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    PCOLL_CHECK(check_type(type, size, fn), rc, out);
    PCOLL_CHECK(pcoll__ip_check(p, l->scounts, l->sdispls, l->rcounts, l->rdispls, fn), rc, out);
    if (buf == MPI_IN_PLACE || (!buf && has_items(l, p)))
        return pcoll__error(PCOLL_ERR_ARG, 1, "%s: buf is %s", fn, buf ? "MPI_IN_PLACE" : "NULL");
    PCOLL_CHECK(pcoll__opts_read(info, &pcoll__alltoallv_inplace_table, rank == 0, opts), rc, out);
    rc = pcoll__ip_aux_config(p, *size, opts, fn, &nbuf, &cap);
out:
    return rc;
}

/* Collective: PCOLL_ERR_MISMATCH on every rank when some rank's
 * recvcounts[j] differs from what rank j sends it.  theirs holds p ints. */
static int match_counts(MPI_Comm comm, const layout_t *l, int *theirs, const char *fn)
{
    int j, p, rc = PCOLL_SUCCESS;
    MPI_Comm_size(comm, &p);
    if (MPI_Alltoall(l->scounts, 1, MPI_INT, theirs, 1, MPI_INT, comm) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, 1, "%s: MPI_Alltoall of the counts failed", fn);
    for (j = 0; j < p && rc == PCOLL_SUCCESS; j++)
        if (theirs[j] != l->rcounts[j])
            rc = pcoll__error(PCOLL_ERR_MISMATCH, 1,
                              "%s: rank %d sends %d items to this rank but recvcounts[%d] = %d", fn,
                              j, theirs[j], j, l->rcounts[j]);
    return pcoll__agree(comm, rc, NULL, NULL, 0, fn);
}

/* Agree on the local verdict and the type's size, then on the counts. */
static int agree(pcoll__ctx_t *ctx, int local, int size, const layout_t *l, const char *fn)
{
    static const char *const what[] = {"the type's size"};
    long long vals[1] = {size};
    int p, rc, *theirs;
    MPI_Comm_size(ctx->dup, &p);
    theirs = pcoll__malloc((size_t)p * sizeof *theirs);
    if (!theirs && local == PCOLL_SUCCESS)
        local = pcoll__error(PCOLL_ERR_NOMEM, 1, "%s: %d counts", fn, p);
    rc = pcoll__agree(ctx->dup, local, vals, what, 1, fn);
    if (rc == PCOLL_SUCCESS)
        rc = match_counts(ctx->dup, l, theirs, fn);
    pcoll__free(theirs);
    return rc;
}

static int build(pcoll__ctx_t *ctx, void *buf, const layout_t *l, MPI_Datatype type,
                 const pcoll__opts_t *opts, pcoll_plan_t **out)
{
    pcoll_plan_t *plan = NULL;
    int tag = opts->no_comm ? PCOLL__ONESHOT_TAG : pcoll__ctx_tag(ctx), rc;
    PCOLL_CHECK(pcoll__plan_create(ctx, "alltoallv", tag, &plan), rc, fail);
    plan->no_comm = opts->no_comm;
    PCOLL_CHECK(pcoll__alltoallv_inplace_setup(plan, buf, l->scounts, l->sdispls, l->rcounts,
                                               l->rdispls, type, opts),
                rc, fail);
    *out = plan;
    return PCOLL_SUCCESS;
fail:
    pcoll__plan_destroy(plan);
    return rc;
}

int pcoll_alltoallv_inplace_init(void *buf, const int sendcounts[], const int sdispls[],
                                 const int recvcounts[], const int rdispls[], MPI_Datatype type,
                                 MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    const char *fn = "pcoll_alltoallv_inplace_init";
    layout_t l = {sendcounts, sdispls, recvcounts, rdispls};
    pcoll__opts_t opts;
    pcoll__ctx_t *ctx;
    int rc, local, size = 0;

    memset(&opts, 0, sizeof opts);
    if (plan)
        *plan = NULL;
    if ((rc = pcoll__check_comm(comm, fn)) != PCOLL_SUCCESS)
        return rc;
    local = plan ? PCOLL_SUCCESS : pcoll__error(PCOLL_ERR_ARG, 1, "%s: plan is NULL", fn);
    if (local == PCOLL_SUCCESS)
        local = check_local(buf, &l, type, comm, info, &opts, &size, fn);
    if ((rc = pcoll__ctx_get(comm, &ctx)) != PCOLL_SUCCESS)
        return rc;
    /* The no-communication mode (plan creation cost alone) skips the agreement. */
    if (opts.no_comm && local != PCOLL_SUCCESS)
        return local;
    if (!opts.no_comm && (rc = agree(ctx, local, size, &l, fn)) != PCOLL_SUCCESS)
        return rc;
    return build(ctx, buf, &l, type, &opts, plan);
}
