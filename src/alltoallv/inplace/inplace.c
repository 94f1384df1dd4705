/*
 * In-place alltoallv with limited memory: the setup of a plan and the two
 * builders (pcoll_alltoallv_inplace_init's, and alltoallv `inplace` for
 * MPI_IN_PLACE).  The algorithm is the paper's section 3; see
 * inplace.h for the files that implement its parts.
 *
 * Two engines, chosen at init: where the send and receive layouts are
 * equal on every rank (the MPI_IN_PLACE case; agreed in one allreduce),
 * the grant-free pairwise swap of inplace_swap.c; else the grant engine
 * below.
 *
 * Cost: transfers of one grant (one int) and one data message each, pair
 * by pair with no global phase (inplace_phase.c); every item is sent once,
 * received once (into place, or into an aux slot and then copied into
 * place once), and may be moved toward higher indices in the update after
 * a transfer (section 3.4).  The number of transfers depends on the layouts
 * and on the aux memory: one per message when every receive set is free or
 * a slot holds a whole message (equal layouts run the swap instead, see
 * inplace_swap.c for its cost).  Memory: O(p) integers plus the aux slots
 * (a bytes at most), plus a bounded staging buffer for non-contiguous
 * types (inplace_state.c).
 * In place by construction; sendcounts/recvcounts may differ per peer and
 * the blocks may lie in any order.
 *
 * The entry (src/api/alltoallv_inplace.c) checks the arguments locally,
 * agrees on the verdict and on the type's size over all ranks, and exchanges
 * the counts once to return PCOLL_ERR_MISMATCH on every rank when
 * sendcounts[j] at rank i differs from recvcounts[i] at rank j.
 */
#include <limits.h>
#include <string.h>

#include "alltoallv/inplace/inplace.h"
#include "core/check.h"
#include "base/mem.h"
#include "base/status.h"
#include "datatype/copy.h"

/* A valid, committed type whose items do not lie on top of each other;
 * *size is the bytes of one item. */
int pcoll__ip_check_type(MPI_Datatype type, int *size, const char *fn)
{
    MPI_Aint lb, extent;
    MPI_Count bytes;
    int rc = pcoll__check_type(type, "type", fn);
    *size = 0;
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__type_size(type, &bytes);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__type_extent(type, &lb, &extent);
    if (rc != PCOLL_SUCCESS)
        return rc;
    /* Items are counted, staged and held in aux buffers by their int size. */
    if (bytes > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "%s: items of %lld bytes (more than INT_MAX)", fn, (long long)bytes);
    *size = (int)bytes;
    if (*size > 0 && extent <= 0)
        return pcoll__error(PCOLL_ERR_ARG,
                            "%s: the type's extent (%ld) would put all items in one place", fn,
                            (long)extent);
    return PCOLL_SUCCESS;
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
    PCOLL_CHECK(pcoll__type_extent(type, &lb, &ip->extent), rc, out);
    PCOLL_CHECK(pcoll__ip_check_type(type, &ip->size, "in-place alltoallv"), rc, out);
    if (ip->size == 0)
        return PCOLL_SUCCESS;
    PCOLL_CHECK(pcoll_type_signature(type, &ip->sig), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &ip->sig), rc, out);
    PCOLL_CHECK(pcoll__copy_prepare(2, type, 2, type, &c), rc, out);
    pcoll__copy_free(&c);
    ip->contiguous = c.mode != PCOLL__COPY_STAGED;
out:
    return rc;
}

/* MPI_BOTTOM: items are counted from the data's first byte instead, with
 * the type shifted to it (MPI may refuse a NULL buffer to pack into, and
 * offsets from NULL are no pointers); same addresses, same extent. */
static int bottom(pcoll_plan_t *plan, pcoll__ip_t *ip)
{
    const void *base;
    MPI_Datatype rel;
    int rc;
    if (ip->buf)
        return PCOLL_SUCCESS;
    PCOLL_CHECK(pcoll__type_rebase(ip->type, &base, &rel), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &rel), rc, out);
    ip->buf = (char *)(uintptr_t)base;
    ip->type = rel;
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

/* The choice of the engine: whether the layouts are equal on every rank,
 * the smallest aux memory a and the largest block (items, to a peer other
 * than itself) of all ranks, agreed with the local verdict rc in one
 * allreduce when every rank plans together (else no fast path). */
typedef struct fast {
    int equal;
    long long aux, maxblock;
} fast_t;

static int agree_fast(const pcoll_plan_t *plan, int rc, const int *scounts, const int *sdispls,
                      const int *rcounts, const int *rdispls, const pcoll__opts_t *opts,
                      fast_t *f)
{
    long long vals[3] = {0, 0, 0}, mins[3], maxs[3];
    *f = (fast_t){0, 0, 0};
    if (!plan->together)
        return rc;
    if (rc == PCOLL_SUCCESS) {
        vals[0] = pcoll__ip_layouts_equal(plan->size, scounts, sdispls, rcounts, rdispls);
        vals[1] = opts->aux_bytes ? opts->aux_bytes : PCOLL__IP_AUX_BYTES;
        for (int j = 0; j < plan->size; j++)
            if (j != plan->rank && rcounts[j] > vals[2])
                vals[2] = rcounts[j];
    }
    rc = pcoll__agree_range(plan->comm, rc, vals, 3, mins, maxs, "in-place alltoallv");
    *f = (fast_t){rc == PCOLL_SUCCESS && mins[0] == 1, mins[1], maxs[2]};
    return rc;
}

int pcoll__alltoallv_inplace_setup(pcoll_plan_t *plan, void *buf, const int *scounts,
                                   const int *sdispls, const int *rcounts, const int *rdispls,
                                   MPI_Datatype type, const pcoll__opts_t *opts)
{
    const char *fn = "in-place alltoallv";
    pcoll__ip_t *ip;
    fast_t fast;
    int rc, size, nbuf;
    long long cap;
    rc = pcoll__ip_check_type(type, &size, fn);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__ip_check(plan->size, scounts, sdispls, rcounts, rdispls, fn);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__ip_aux_config(plan->size, size, opts, fn, &nbuf, &cap);
    PCOLL_CHECK(agree_fast(plan, rc, scounts, sdispls, rcounts, rdispls, opts, &fast), rc, out);
    if (!(ip = pcoll__calloc(1, sizeof *ip)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: plan state", fn);
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
    PCOLL_CHECK(bottom(plan, ip), rc, out);
    ip->stage_items = stage_items(ip, opts);
    if (fast.equal) {
        plan->ops = &pcoll__ip_swap_ops;
        return pcoll__ip_swap_plan(ip, rcounts, rdispls, fast.aux, fast.maxblock);
    }
    ip->nbuf = nbuf, ip->cap = cap;
    pcoll__ip_aux_fit(ip->p, rcounts, &ip->nbuf, &ip->cap);
    PCOLL_CHECK(pcoll__ip_alloc(ip), rc, out);
    rc = pcoll__ip_split(ip, scounts, sdispls, rcounts, rdispls);
out:
    return rc;
}

int pcoll__alltoallv_inplace_layouts(pcoll_plan_t *plan, const void *args)
{
    const pcoll__ip_args_t *a = args;
    return pcoll__alltoallv_inplace_setup(plan, a->buf, a->scounts, a->sdispls, a->rcounts,
                                          a->rdispls, a->type, &a->opts);
}

int pcoll__alltoallv_inplace(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    if (!v->a.inplace)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "alltoallv inplace: only with MPI_IN_PLACE (layouts that differ: "
                            "pcoll_alltoallv_inplace_init)");
    /* The phases count items from buf: every rank's item must have the same
     * size and no block may lie below buf (the agreement found out, so every
     * rank refuses alike). */
    if (!v->inplace_ok)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "alltoallv inplace: the ranks' receive types differ in size, or a "
                            "displacement is negative");
    /* The engine counts in ints: every count and block end fits (agreed). */
    int *counts = pcoll__plan_alloc(plan, 2 * sizeof(int) * (size_t)plan->size);
    if (!counts)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv inplace: counts");
    for (int i = 0; i < plan->size; i++) {
        counts[i] = (int)v->a.rcounts[i];
        counts[plan->size + i] = (int)v->a.rdispls[i];
    }
    return pcoll__alltoallv_inplace_setup(plan, v->a.recvbuf, counts, counts + plan->size, counts,
                                          counts + plan->size, v->a.recvtype, &v->a.opts);
}
