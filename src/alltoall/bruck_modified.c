/*
 * alltoall `bruck_modified` and `bruck_modified_ix`: Modified Bruck (zero-copy
 * Bruck paper section 3.2, Listing 2), which needs no final permutation.
 *
 * Phase 1 puts send block d at R[(2i - d) mod p] (R = the receive buffer), so
 * R[(i+j) mod p] holds the block for rank i-j.  Round k (k = 1, 2, 4, ...)
 * sends R[(i+j) mod p] for every j with bit k set to rank i-k, and receives
 * the same positions from rank i+k through an intermediate buffer, unpacked
 * before the next round.  The positions form a vector laid on the ring of p
 * blocks from block i+k: bruck_modified describes them with the circular
 * vector, bruck_modified_ix with an indexed-block type.  One type per round
 * serves both the send and the unpack.  Two intermediate buffers alternate.
 *
 * Cost (Theorem 2): ceil(log2 p) rounds; at most floor(p/2) blocks per round,
 * ceil(log2 p) floor(p/2) n bytes sent in all; local copies: p blocks
 * (phase 1) + the unpack of every round.  Scratch: 2 floor(p/2) blocks.
 * In place: a staged copy of the buffer (p blocks more).
 */
#include "alltoall/bruck.h"
#include "base/mem.h"
#include "base/status.h"
#include "patterns/bruck.h"

/* The blocks R[(i+j) mod p], j in [k, p) with bit k set, as one type. */
static int round_type(pcoll_plan_t *plan, MPI_Datatype blk, int k, int ix, MPI_Datatype *type)
{
    int p = plan->size, i = plan->rank, n = 0, j, rc = PCOLL_SUCCESS, *displs;
    if (!ix)
        rc = pcoll_type_create_circular_vector(p, (i + k) % p, p - k, k, 2 * k, blk, type);
    else if (!(displs = pcoll__malloc(sizeof(int) * (size_t)p)))
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck_modified_ix: displacements");
    else {
        for (j = k; j < p; j++)
            if (j & k)
                displs[n++] = (i + j) % p;
        if (MPI_Type_create_indexed_block(n, 1, displs, blk, type) != MPI_SUCCESS)
            rc = pcoll__error(PCOLL_ERR_MPI, "bruck_modified_ix: indexed-block type");
        pcoll__free(displs);
    }
    return rc == PCOLL_SUCCESS ? pcoll__plan_own_type(plan, type) : rc;
}

static int modified(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int ix)
{
    int p = plan->size, i = plan->rank, s, steps = pcoll__bruck_steps(p, 2), rc;
    int half = p / 2 + 1;
    pcoll__bruck_types_t t;
    MPI_Datatype perm, cur = MPI_DATATYPE_NULL, prev = MPI_DATATYPE_NULL;
    char *buf;

    PCOLL_CHECK(pcoll__bruck_types(plan, a, &t), rc, out);
    if (!(buf = pcoll__plan_alloc(plan, 2 * (size_t)half * (size_t)t.sigext)))
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck_modified: intermediate buffers");
    /* Phase 1: send block d goes to R[(2i - d) mod p]. */
    PCOLL_CHECK(pcoll__bruck_perm_type(plan, t.rblk, -1, 2 * i, &perm), rc, out);
    PCOLL_CHECK(pcoll__sched_copy(&plan->sched, a->sendbuf, p, t.sblk, a->recvbuf, 1, perm),
                rc, out);
    for (s = 0; s <= steps; s++) {
        int k = 1 << s, n = s < steps ? pcoll__bruck_digit_count(p, 2, k, 1) : 0;
        int nprev = s > 0 ? pcoll__bruck_digit_count(p, 2, k / 2, 1) : 0;
        char *in = buf + (MPI_Aint)(s % 2) * half * t.sigext;
        char *last = buf + (MPI_Aint)((s + 1) % 2) * half * t.sigext;
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        /* Receive round s from rank i+k, unpack round s-1, send round s to rank i-k. */
        if (s < steps) {
            PCOLL_CHECK(round_type(plan, t.rblk, k, ix, &cur), rc, out);
            PCOLL_CHECK(pcoll__sched_recv(&plan->sched, in, n, t.sig, (i + k) % p), rc, out);
        }
        if (s > 0)
            PCOLL_CHECK(pcoll__sched_copy(&plan->sched, last, nprev, t.sig, a->recvbuf, 1, prev),
                        rc, out);
        if (s < steps)
            PCOLL_CHECK(pcoll__sched_send(&plan->sched, a->recvbuf, 1, cur, (i - k + p) % p),
                        rc, out);
        prev = cur;
    }
out:
    return rc;
}

int pcoll__alltoall_bruck_modified(pcoll_plan_t *plan, const void *args)
{
    return modified(plan, args, 0);
}

int pcoll__alltoall_bruck_modified_ix(pcoll_plan_t *plan, const void *args)
{
    return modified(plan, args, 1);
}
