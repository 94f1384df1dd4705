/*
 * neighbor `node`: every block travels through the node's shared memory
 * (core/node.h; virtual nodes of pcoll_cores_per_node ranks): the blocks
 * between two nodes bundled into one message per pair of nodes with data,
 * the blocks within a node copied from the sender's place in the segment
 * straight into the receiver's buffer, with no message at all.
 *
 * Steps of a run:
 *   0. every rank copies each of its blocks into the node's send area,
 *      bundled by destination node (members in local order, each member's
 *      blocks in send order; the node's own bundle holds its edges within
 *      the node); node barrier;
 *   1. local rank B mod n_A of node A sends the bundle for node B to local
 *      rank A mod n_B of node B, which receives it into B's receive area;
 *      meanwhile every rank copies its blocks from its own node out of the
 *      node's own bundle;
 *   2. node barrier;
 *   3. every rank copies its blocks from other nodes out of the receive area.
 * The own bundle is read before step 2's barrier, so that the next run's
 * step 0 cannot overwrite a block a slower rank of the node still copies.
 *
 * On one node (every rank of the communicator on it) the plan is the one
 * a one-shot shape keeps (node_kept.c), bound to the init's arguments: one
 * barrier a run, no schedule.
 *
 * Cost: 4 rounds; per node, one message per destination node with data
 * (instead of one per edge between the nodes), spread over its ranks, and
 * none within the node; every byte is copied twice (into the segment and
 * out of it); two node barriers (model/cost.h, pcoll__cost_nbr_node).
 * Scratch: a shared segment per node of the bytes its ranks send, and of
 * those they receive from other nodes.  Planning communicates (node
 * topology, one gather of bundle sizes per node, one neighbourhood exchange
 * of offsets): persistent plans; one-shot calls run the plan their shape
 * keeps (node_kept.c: the same bundles, laid out for any sizes).  Refused (every rank alike) where a block or bundle exceeds INT_MAX
 * bytes or a node cannot get a shared window.
 */
#include <limits.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "core/node.h"
#include "base/pmpi.h"
#include "neighbor/neighbor.h"

typedef struct layout {
    const pcoll__node_t *t;
    long long *sbase, *rbase; /* [N+1]: bundle starts in the segment */
    long long *soff, *roff;   /* per edge: block offset in the segment (-1: none) */
    long long *mine;          /* [2N]: this rank's bytes to, then from, each node */
    long long *all;           /* [nlocal * 2N]: every member's */
    long long bytes;          /* of the segment */
} layout_t;

/* Whether the edge to / from peer crosses nodes. */
static int remote(const layout_t *l, int peer)
{
    return peer != MPI_PROC_NULL && l->t->node_of[peer] != l->t->node;
}

/* Whether the edge carries a block (every edge but MPI_PROC_NULL's goes
 * through the segment). */
static int used(int peer)
{
    return peer != MPI_PROC_NULL;
}

static int alloc_layout(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, layout_t *l)
{
    size_t N = (size_t)l->t->nnodes, n = (size_t)pcoll__node_size(l->t, l->t->node);
    long long *m = pcoll__plan_alloc(plan, sizeof *m * (2 * (N + 1) + (size_t)a->outdegree +
                                                        (size_t)a->indegree + 2 * N + n * 2 * N));
    if (!m)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor node: layout");
    l->sbase = m, l->rbase = m + N + 1;
    l->soff = l->rbase + N + 1, l->roff = l->soff + a->outdegree;
    l->mine = l->roff + a->indegree, l->all = l->mine + 2 * N;
    return PCOLL_SUCCESS;
}

/* Bundle starts: the send area holds the bundles for every node in node
 * order, the receive area after it those from every node. */
static void bundles(layout_t *l)
{
    int N = l->t->nnodes, n = pcoll__node_size(l->t, l->t->node), k, m;
    l->sbase[0] = 0;
    for (k = 0; k < N; k++) {
        long long to = 0;
        for (m = 0; m < n; m++)
            to += l->all[(size_t)m * 2 * (size_t)N + (size_t)k];
        l->sbase[k + 1] = l->sbase[k] + to;
    }
    l->rbase[0] = l->sbase[N];
    for (k = 0; k < N; k++) {
        long long from = 0;
        for (m = 0; m < n; m++)
            from += l->all[(size_t)m * 2 * (size_t)N + (size_t)(N + k)];
        l->rbase[k + 1] = l->rbase[k] + from;
    }
    l->bytes = l->rbase[N];
}

/* This rank's bytes per node, gathered over the node (sent: to every node,
 * its own too; received: from other nodes); the bundles; the offset of
 * every block this rank sends. */
static int send_offsets(const pcoll__nbr_args_t *a, layout_t *l)
{
    int N = l->t->nnodes, k, e, m;
    long long *at;
    for (e = 0; e < a->outdegree; e++)
        if (used(a->dests[e]))
            l->mine[l->t->node_of[a->dests[e]]] +=
                pcoll__nbr_bytes(a->scounts[e], pcoll__nbr_stype(a, e));
    for (e = 0; e < a->indegree; e++)
        if (remote(l, a->sources[e]))
            l->mine[N + l->t->node_of[a->sources[e]]] +=
                pcoll__nbr_bytes(a->rcounts[e], pcoll__nbr_rtype(a, e));
    if (MPI_Allgather(l->mine, 2 * N, MPI_LONG_LONG, l->all, 2 * N, MPI_LONG_LONG, l->t->comm) !=
        MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "neighbor node: bundle sizes");
    bundles(l);
    /* Where this rank's part of each bundle starts: after the lower members'. */
    at = l->mine;
    for (k = 0; k < N; k++) {
        at[k] = l->sbase[k];
        for (m = 0; m < l->t->local; m++)
            at[k] += l->all[(size_t)m * 2 * (size_t)N + (size_t)k];
    }
    for (k = 0; k < a->outdegree; k++) {
        int s = pcoll__nbr_send_edge(a, k);
        l->soff[s] = -1;
        if (used(a->dests[s])) {
            long long *next = &at[l->t->node_of[a->dests[s]]];
            l->soff[s] = *next;
            *next += pcoll__nbr_bytes(a->scounts[s], pcoll__nbr_stype(a, s));
        }
    }
    return PCOLL_SUCCESS;
}

/* The receivers learn where in the bundle each of their blocks lies: one
 * neighbourhood exchange of the offset within the bundle (a block from the
 * own node is read where its sender wrote it, in the own bundle). */
static int recv_offsets(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, layout_t *l)
{
    long long *within = pcoll__malloc(sizeof *within * ((size_t)a->outdegree + 1));
    int e, err;
    if (!within)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor node: offsets");
    for (e = 0; e < a->outdegree; e++)
        within[e] = l->soff[e] < 0 ? -1 : l->soff[e] - l->sbase[l->t->node_of[a->dests[e]]];
    for (e = 0; e < a->indegree; e++)
        l->roff[e] = -1;
    err = pcoll__nbr_exchange(plan->comm, plan->tag, a, within, l->roff);
    pcoll__free(within);
    for (e = 0; e < a->indegree; e++) {
        int peer = a->sources[e];
        long long base = remote(l, peer) ? l->rbase[l->t->node_of[peer]] : l->sbase[l->t->node];
        l->roff[e] = used(peer) ? base + l->roff[e] : -1;
    }
    return err == MPI_SUCCESS ? PCOLL_SUCCESS
                              : pcoll__error(PCOLL_ERR_MPI, "neighbor node: offsets");
}

/* Whether every block and bundle fits an int count of bytes. */
static int fits(const pcoll__nbr_args_t *a, const layout_t *l)
{
    int k, e;
    for (k = 0; k < 2 * l->t->nnodes; k++)
        if (l->mine[k] > INT_MAX)
            return 0;
    for (k = 0; k < l->t->nnodes; k++)
        if (l->sbase[k + 1] - l->sbase[k] > INT_MAX || l->rbase[k + 1] - l->rbase[k] > INT_MAX)
            return 0;
    for (e = 0; e < a->outdegree; e++)
        if (pcoll__nbr_bytes(a->scounts[e], pcoll__nbr_stype(a, e)) > INT_MAX)
            return 0;
    return 1;
}

/* The node topology (pcoll_cores_per_node agreed on), the layout, the
 * segment (*ok 0, on every rank, where a node has none);
 * PCOLL_ERR_UNSUPPORTED on every rank where a block or bundle is too big. */
static int plan_layout(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, layout_t *l,
                       pcoll__node_shm_t **shm, int *ok)
{
    static const char *const what[] = {"pcoll_cores_per_node"};
    long long cores = a->opts.cores_per_node;
    int rc, big;
    PCOLL_CHECK(pcoll__agree(plan->comm, PCOLL_SUCCESS, &cores, what, 1, "neighbor node"), rc,
                out);
    PCOLL_CHECK(pcoll__node_get(plan->ctx, a->opts.cores_per_node, &l->t), rc, out);
    PCOLL_CHECK(alloc_layout(plan, a, l), rc, out);
    PCOLL_CHECK(send_offsets(a, l), rc, out);
    PCOLL_CHECK(recv_offsets(plan, a, l), rc, out);
    big = !fits(a, l);
    if (MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_INT, MPI_MAX, plan->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "neighbor node: agreement");
    if (big)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "neighbor node: a block or bundle over INT_MAX bytes");
    /* One byte more: a segment is never empty. */
    PCOLL_CHECK(pcoll__node_shm_create(plan, l->t, (size_t)l->bytes + 1, shm, ok), rc, out);
    rc = pcoll__node_shm_ready(plan->comm, *shm, ok);
out:
    return rc;
}

/* Step 0's copy of out-edge e into the segment (out 1), or step 3's of
 * in-edge e out of it (out 0). */
static int copy(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, char *seg, const layout_t *l,
                int e, int out)
{
    MPI_Datatype type = out ? pcoll__nbr_stype(a, e) : pcoll__nbr_rtype(a, e), t;
    MPI_Count count = out ? a->scounts[e] : a->rcounts[e];
    int n, bytes = (int)pcoll__nbr_bytes(count, type);
    int rc = pcoll__a2a_items(plan, count, type, &n, &t);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (out)
        return pcoll__sched_copy(&plan->sched, pcoll__addr(a->sendbuf, a->sdispls[e] * a->sext),
                                 n, t, seg + l->soff[e], bytes, MPI_PACKED);
    return pcoll__sched_copy(&plan->sched, seg + l->roff[e], bytes, MPI_PACKED,
                             pcoll__addr(a->recvbuf, a->rdispls[e] * a->rext), n, t);
}

/* The node barrier (none on a node of one rank). */
static int barrier(pcoll_plan_t *plan, pcoll__node_shm_t *shm)
{
    return shm->nlocal > 1 ? pcoll__sched_poll(&plan->sched, pcoll__node_barrier(shm))
                           : PCOLL_SUCCESS;
}

/* Step 0: every block into the segment, the barrier. */
static int step_pack(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, const layout_t *l,
                     pcoll__node_shm_t *shm)
{
    int e, rc = PCOLL_SUCCESS;
    for (e = 0; e < a->outdegree && rc == PCOLL_SUCCESS; e++)
        if (l->soff[e] >= 0)
            rc = copy(plan, a, shm->seg, l, e, 1);
    return rc == PCOLL_SUCCESS ? barrier(plan, shm) : rc;
}

/* The blocks of in-edges from the own node (local 1) or from other nodes
 * (local 0) out of the segment. */
static int unpack(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, const layout_t *l, char *seg,
                  int local)
{
    int e, rc = PCOLL_SUCCESS;
    for (e = 0; e < a->indegree && rc == PCOLL_SUCCESS; e++)
        if (l->roff[e] >= 0 && remote(l, a->sources[e]) != local)
            rc = copy(plan, a, seg, l, e, 0);
    return rc;
}

/* Step 1: the bundles between nodes, receives first.  This rank handles the
 * bundles of the nodes k with k mod (its node's size) = its local index. */
static int step_bundles(pcoll_plan_t *plan, const layout_t *l, char *seg)
{
    const pcoll__node_t *t = l->t;
    int N = t->nnodes, n = pcoll__node_size(t, t->node), k, d;
    int rc = pcoll__sched_round(&plan->sched);
    for (d = 0; d < 2; d++)
        for (k = 0; k < N && rc == PCOLL_SUCCESS; k++) {
            const long long *base = d ? l->sbase : l->rbase;
            int bytes = (int)(base[k + 1] - base[k]);
            if (k == t->node || k % n != t->local || bytes == 0)
                continue;
            rc = d ? pcoll__sched_send(&plan->sched, seg + base[k], bytes, MPI_BYTE,
                                       pcoll__nbr_node_partner(t, k))
                   : pcoll__sched_recv(&plan->sched, seg + base[k], bytes, MPI_BYTE,
                                       pcoll__nbr_node_partner(t, k));
        }
    return rc;
}

int pcoll__nbr_node(pcoll_plan_t *plan, const void *args)
{
    const pcoll__nbr_args_t *a = args;
    pcoll__node_shm_t *shm = NULL;
    layout_t l;
    int rc, ok = 0;
    memset(&l, 0, sizeof l);
    PCOLL_CHECK(plan_layout(plan, a, &l, &shm, &ok), rc, out);
    if (ok && l.t->nnodes == 1) {
        /* One node: the kept plan, bound to these arguments for good (its
         * runs skip the second barrier and the rounds of a schedule). */
        pcoll__node_shm_drop(shm);
        return pcoll__nbr_node_one(plan, a);
    }
    if (!ok && a->node_fallback) {
        /* auto's choice: the same messages as the MPI's, made at init, and
         * the plan says so. */
        if (shm)
            pcoll__node_shm_drop(shm);
        plan->algorithm = "direct";
        return pcoll__nbr_direct(plan, a);
    }
    if (!ok)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "neighbor node: no shared segment on a node");
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    PCOLL_CHECK(step_pack(plan, a, &l, shm), rc, out);
    /* Step 1: the bundles, and the node's own blocks out of the segment
     * while they travel. */
    PCOLL_CHECK(step_bundles(plan, &l, shm->seg), rc, out);
    PCOLL_CHECK(unpack(plan, a, &l, shm->seg, 1), rc, out);
    /* Step 2: every bundle of the node has arrived. */
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    PCOLL_CHECK(barrier(plan, shm), rc, out);
    /* Step 3: the blocks from other nodes out of the segment. */
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    rc = unpack(plan, a, &l, shm->seg, 0);
out:
    return rc;
}
