/*
 * alltoall `pairwise`: p-1 rounds of one exchange each.  In round k rank r
 * sends to r+k and receives from r-k; when p is a power of two the partner is
 * r XOR k, so both directions use the same pair of ranks.
 *
 * Cost: p-1 rounds; p-1 messages of n bytes sent and received per rank;
 * (p-1)(alpha + beta*n).  Scratch: none.
 *
 * In place (MPI_IN_PLACE) the rounds follow a pairing (patterns/pairing.h) in
 * which both directions of every round use the same partner: the block for
 * the partner is packed into a scratch block, sent from there, and the
 * partner's block is received in its place (as MPI_PACKED bytes, or as its
 * signature type when a block is over 2 GiB).  Scratch: one block (n
 * bytes); p rounds when p is odd (one idle), p-1 otherwise.  On an MPI with
 * the defect UCX_SPLIT_UNPACK (core/defects.h) the scratch block keeps the
 * block's layout and is sent with the block's type (scratch: the bytes the
 * largest block spans).
 */
#include <limits.h>

#include "alltoall/alltoall.h"
#include "base/status.h"
#include "core/defects.h"
#include "patterns/pairing.h"

/* The bytes of the scratch block: the largest block packed, or, with
 * layout, the most bytes a block's type map spans. */
static int scratch_bytes(const pcoll__a2a_args_t *a, int p, int layout, long long *bytes)
{
    MPI_Aint lo, span;
    int rc = PCOLL_SUCCESS;
    *bytes = layout ? 0 : a->blockbytes;
    for (int peer = 0; layout && peer < p && rc == PCOLL_SUCCESS; peer++) {
        rc = pcoll__type_span(pcoll__a2a_rtype(a, peer), pcoll__a2a_rcount(a, peer), &lo, &span);
        if ((long long)span > *bytes)
            *bytes = span;
    }
    return rc;
}

/* The scratch block as the block packed into bytes (at most INT_MAX of
 * them) or, when a block's byte count does not fit in an int, as items of
 * its signature type (one per receive type, *sig_of remembers whose). */
static int packed_as(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, MPI_Datatype type,
                     MPI_Count items, MPI_Datatype *sig, MPI_Datatype *sig_of, int *n,
                     MPI_Datatype *t)
{
    MPI_Count size;
    int rc = pcoll__type_size(type, &size);
    *t = MPI_PACKED;
    if (rc != PCOLL_SUCCESS || a->blockbytes <= INT_MAX) {
        *n = (int)(items * size);
        return rc;
    }
    if (*sig_of != type) {
        if ((rc = pcoll_type_signature(type, sig)) != PCOLL_SUCCESS ||
            (rc = pcoll__plan_own_type(plan, sig)) != PCOLL_SUCCESS)
            return rc;
        *sig_of = type;
    }
    return pcoll__a2a_items(plan, items, *sig, n, t);
}

static int build_inplace(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    int p = plan->size, r = plan->rank, k, rc;
    int layout = pcoll__mpi_defect(PCOLL__DEFECT_UCX_SPLIT_UNPACK);
    MPI_Datatype sig = MPI_DATATYPE_NULL, sig_of = MPI_DATATYPE_NULL;
    long long bytes;
    void *tmp;

    if (p == 1)
        return PCOLL_SUCCESS; /* the own block stays where it is */
    if ((rc = scratch_bytes(a, p, layout, &bytes)) != PCOLL_SUCCESS)
        return rc;
    if (!(tmp = pcoll__plan_alloc(plan, (size_t)bytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "pairwise in place: scratch block of %lld bytes",
                            bytes);
    for (k = 0; k < pcoll__pairing_rounds(p) && rc == PCOLL_SUCCESS; k++) {
        int peer = pcoll__pairing_partner(r, p, k), count, n;
        MPI_Count items = pcoll__a2a_rcount(a, peer);
        MPI_Datatype type = pcoll__a2a_rtype(a, peer), t, bt;
        MPI_Aint lo, span;
        void *block = pcoll__a2a_rbuf(a, peer), *from = tmp;
        if (peer == r)
            continue;
        /* The block's items, and the scratch block: packed, or (layout)
         * in the block's own layout, sent with its own type. */
        PCOLL_CHECK(pcoll__a2a_items(plan, items, type, &count, &bt), rc, out);
        if (layout) {
            PCOLL_CHECK(pcoll__type_span(bt, count, &lo, &span), rc, out);
            from = pcoll__addr(tmp, -lo), n = count, t = bt;
        } else {
            PCOLL_CHECK(packed_as(plan, a, type, items, &sig, &sig_of, &n, &t), rc, out);
        }
        /* Copy the outgoing block aside, then exchange it for the incoming one. */
        rc = pcoll__sched_round(&plan->sched);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_copy(&plan->sched, block, count, bt, from, n, t);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__a2a_recv(plan, a, peer);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_send(&plan->sched, from, n, t, peer);
    }
out:
    return rc;
}

int pcoll__alltoall_pairwise(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = args;
    int p = plan->size, r = plan->rank, k, rc;

    if (a->inplace)
        return build_inplace(plan, a);
    /* The own block first: round 0 has no message. */
    rc = pcoll__a2a_self_copy(plan, a);
    for (k = 1; k < p && rc == PCOLL_SUCCESS; k++) {
        int to = pcoll__is_pow2(p) ? r ^ k : (r + k) % p;
        int from = pcoll__is_pow2(p) ? r ^ k : (r - k + p) % p;
        rc = pcoll__sched_round(&plan->sched);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__a2a_exchange(plan, a, to, from);
    }
    return rc;
}
