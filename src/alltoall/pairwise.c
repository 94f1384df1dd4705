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
 * partner's block is received in its place.  Scratch: one block (n bytes);
 * p rounds when p is odd (one idle), p-1 otherwise.
 */
#include "alltoall/alltoall.h"
#include "base/status.h"
#include "patterns/pairing.h"

static int build_inplace(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    int p = plan->size, r = plan->rank, k, size, rc = PCOLL_SUCCESS;
    void *tmp;

    if (a->blockbytes > 0x7fffffff)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "pairwise in place: block over 2 GiB");
    if (!(tmp = pcoll__plan_alloc(plan, (size_t)a->blockbytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "pairwise in place: scratch block");
    MPI_Type_size(a->recvtype, &size);
    for (k = 0; k < pcoll__pairing_rounds(p) && rc == PCOLL_SUCCESS; k++) {
        int peer = pcoll__pairing_partner(r, p, k), count = pcoll__a2a_rcount(a, peer);
        void *block = pcoll__a2a_rbuf(a, peer);
        if (peer == r)
            continue;
        /* Pack the outgoing block aside, then exchange it for the incoming one. */
        rc = pcoll__sched_round(&plan->sched);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_copy(&plan->sched, block, count, a->recvtype, tmp, count * size,
                                   MPI_PACKED);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__a2a_recv(plan, a, peer);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_send(&plan->sched, tmp, count * size, MPI_PACKED, peer);
    }
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
