/*
 * reduce_scatter `ring_prepost`: the bucket algorithm with every receive
 * preposted and the sends in ready mode (reduce-scatter paper sections 3.2,
 * 3.4 and 4.4).
 *
 * Round 0 posts all p-1 receives of the run (each into its own buffer; the
 * last straight into recvbuf), then tells the left neighbour, the only rank
 * that sends to us, that they are posted: a one-byte synchronous send on the
 * plan's control communicator (the paper's "Ssend first"; a separate
 * communicator so it can never match data, even at p = 2 where both
 * neighbours are one rank).  It waits for the same word from the right
 * neighbour; from then on every send is a ready send (MPI_Rsend_init), whose
 * receive is known to be posted.  Steps then run as in `ring`: step s adds my
 * part to the partial received in step s-1 and sends it on.  The persistent
 * plan keeps all receives and ready sends as persistent requests.
 * Commutative ops only.
 *
 * Cost: (p-1)(alpha_light + n/p beta + n/p gamma) + the handshake.  Scratch:
 * n - (my block + my left neighbour's block) elements: one buffer per step.
 */
#include <limits.h>

#include "base/status.h"
#include "reduce_scatter/reduce_scatter.h"

/* Block whose partial arrives in step s (1 <= s < p). */
static int arriving(int i, int s, int p)
{
    return ((i - 1 - s) % p + p) % p;
}

/* Round 0: every receive, then the handshake. */
static int prepost(pcoll_plan_t *plan, const pcoll__rs_args_t *a, void **into)
{
    int p = plan->size, i = plan->rank, s, rc, base;
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    /* Step s runs s rounds after this one (rounds before it, e.g. in-place
     * staging, shift everything). */
    base = pcoll__sched_current(&plan->sched);
    PCOLL_CHECK(pcoll__sched_token_recv(&plan->sched, (i + 1) % p), rc, out);
    for (s = 1; s < p; s++)
        PCOLL_CHECK(pcoll__sched_recv_until(&plan->sched, into[s],
                                            (int)a->counts[arriving(i, s, p)],
                                            a->type, (i - 1 + p) % p, base + s), rc, out);
    rc = pcoll__sched_token_send(&plan->sched, (i - 1 + p) % p);
out:
    return rc;
}

/* Buffers: into[s] receives step s (into[p-1] is recvbuf). */
static int buffers(pcoll_plan_t *plan, const pcoll__rs_args_t *a, void **into)
{
    int p = plan->size, i = plan->rank, s;
    long long off = 0, need = a->total - a->counts[i] - a->counts[(i - 1 + p) % p];
    char *mem = pcoll__rs_scratch(plan, a, need);
    if (!mem)
        return pcoll__error(PCOLL_ERR_NOMEM, "ring_prepost: step buffers");
    for (s = 1; s < p - 1; s++) {
        into[s] = pcoll__rs_at(mem, a, off);
        off += a->counts[arriving(i, s, p)];
    }
    into[p - 1] = a->recvbuf;
    return PCOLL_SUCCESS;
}

int pcoll__reduce_scatter_ring_prepost(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    int p = plan->size, i = plan->rank, s, rc;
    void **into;

    if (p == 1)
        return pcoll__rs_copy(plan, a, a->sendbuf, a->recvbuf, a->total);
    /* Each block is one preposted message: its count must fit in an int
     * (counts are the same on every rank: all refuse alike). */
    for (s = 0; s < p; s++)
        if (a->counts[s] > INT_MAX)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                "ring_prepost: a block of %lld elements (at most INT_MAX)",
                                a->counts[s]);
    if (!(into = pcoll__plan_alloc(plan, sizeof(void *) * (size_t)p)))
        return pcoll__error(PCOLL_ERR_NOMEM, "ring_prepost: buffer table");
    PCOLL_CHECK(buffers(plan, a, into), rc, out);
    PCOLL_CHECK(prepost(plan, a, into), rc, out);
    for (s = 1; s < p; s++) {
        int block = ((i - s) % p + p) % p;
        const void *own = pcoll__rs_at(a->sendbuf, a, a->displs[block]);
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        if (s > 1)
            PCOLL_CHECK(pcoll__rs_reduce(plan, a, own, into[s - 1], a->counts[block]), rc, out);
        PCOLL_CHECK(pcoll__sched_send_mode(&plan->sched, s > 1 ? into[s - 1] : own,
                                           (int)a->counts[block], a->type, (i + 1) % p,
                                           PCOLL__SEND_READY), rc, out);
    }
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    rc = pcoll__rs_reduce(plan, a, pcoll__rs_at(a->sendbuf, a, a->displs[i]), a->recvbuf,
                          a->counts[i]);
out:
    return rc;
}
