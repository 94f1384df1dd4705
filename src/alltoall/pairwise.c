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
 * bytes); p rounds when p is odd (one idle), p-1 otherwise.
 */
#include <limits.h>

#include "alltoall/alltoall.h"
#include "base/status.h"
#include "patterns/pairing.h"

static int build_inplace(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    int p = plan->size, r = plan->rank, k, rc = PCOLL_SUCCESS;
    MPI_Datatype sig = MPI_DATATYPE_NULL, sig_of = MPI_DATATYPE_NULL;
    void *tmp;

    if (p == 1)
        return PCOLL_SUCCESS; /* the own block stays where it is */
    if (!(tmp = pcoll__plan_alloc(plan, (size_t)a->blockbytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "pairwise in place: scratch block of %lld bytes",
                            a->blockbytes);
    for (k = 0; k < pcoll__pairing_rounds(p) && rc == PCOLL_SUCCESS; k++) {
        int peer = pcoll__pairing_partner(r, p, k), count, n;
        MPI_Count items = pcoll__a2a_rcount(a, peer), size;
        MPI_Datatype type = pcoll__a2a_rtype(a, peer), t = MPI_PACKED, bt;
        void *block = pcoll__a2a_rbuf(a, peer);
        if (peer == r)
            continue;
        /* The block's items, and the scratch block as packed bytes (at most
         * INT_MAX of them) or, when a block's byte count does not fit in an
         * int, as items of its signature type (one per receive type). */
        PCOLL_CHECK(pcoll__type_size(type, &size), rc, out);
        PCOLL_CHECK(pcoll__a2a_items(plan, items, type, &count, &bt), rc, out);
        if (a->blockbytes > INT_MAX) {
            if (sig_of != type) {
                PCOLL_CHECK(pcoll_type_signature(type, &sig), rc, out);
                PCOLL_CHECK(pcoll__plan_own_type(plan, &sig), rc, out);
                sig_of = type;
            }
            PCOLL_CHECK(pcoll__a2a_items(plan, items, sig, &n, &t), rc, out);
        } else {
            n = (int)(items * size);
        }
        /* Pack the outgoing block aside, then exchange it for the incoming one. */
        rc = pcoll__sched_round(&plan->sched);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_copy(&plan->sched, block, count, bt, tmp, n, t);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__a2a_recv(plan, a, peer);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_send(&plan->sched, tmp, n, t, peer);
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
