/*
 * neighbor `multi`: the neighbourhood all-to-all of a Cartesian communicator
 * as a set of row all-to-alls handed to the multiple all-to-all engine
 * (multicore paper, section II-C; hier_multi.c).  The ranks along dimension k
 * form the rows of that dimension; the exchange along k is a sparse
 * all-to-all inside every row, each rank sending to its neighbour below (edge
 * 2k) and above (edge 2k+1).  One run of the engine per dimension, on the
 * whole communicator with only the pairs of dimension-k neighbours non-empty:
 * the node bundles the blocks its ranks send to the ranks of every other
 * node through its shared segment, one message per pair of nodes with data
 * (one Bruck step, forced: r >= N, and empty bundles skipped, hier.c).
 *
 * Sizes.  The engine asks the bytes of pairs with one end on this rank's
 * node: at init every rank's neighbour, send and receive bytes of each edge
 * are gathered on its node (one allgather of 6 ndims long longs per rank on
 * the node communicator), so the send side reads its sender's out-edge and
 * the receive side its receiver's in-edge (both ends agree: the persistent
 * init checks it).
 *
 * Cost, per dimension: that of alltoall `hier` with one step on the sparse
 * pattern: every block copied into the segment and out of it (shm per byte),
 * per node one message to each node holding a neighbour in that dimension,
 * and three node barriers (a split one, and one each after the copy in and
 * the exchange); model/cost.h, pcoll__cost_nbr_multi.  Against `node`, which
 * bundles every dimension's blocks for a pair of nodes into one message
 * behind two barriers, `multi` sends at least as many messages, the same
 * bytes and meets at more barriers: the model never prefers it, and auto
 * never takes it (select/neighbor.c).  Memory: a segment per dimension (W of
 * the node's blocks sent along that dimension, R of those received from
 * other nodes), plus 6 ndims long longs per member of the node.
 *
 * Refused alike on every rank (the topology is the same everywhere) on
 * communicators that are not Cartesian, and on Cartesian ones with a periodic
 * dimension of 1 or 2 ranks, whose two neighbours of that dimension are one
 * rank (its blocks would meet in one pair of the engine).
 */
#include <limits.h>
#include <string.h>

#include "hier/hier.h"
#include "base/mem.h"
#include "base/status.h"
#include "neighbor/neighbor.h"

/* Per member x of the node and edge e (e < n = 2 ndims): the neighbour, the
 * bytes x sends along out-edge e and receives along in-edge e
 * (all[(x n + e) 3 + 0..2]). */
typedef struct edges {
    const pcoll__node_t *t;
    const pcoll__nbr_args_t *a;
    int n;          /* edges per rank */
    int k;          /* the dimension of this run */
    long long *all; /* [m][n][3] */
} edges_t;

/* The bytes s sends to d along dimension k (s or d on this node). */
static long long edge_bytes(const pcoll__hier_args_t *h, int s, int d)
{
    const edges_t *z = h->data;
    const pcoll__node_t *t = z->t;
    int sender = t->node_of[s] == t->node, x = t->local_of[sender ? s : d], e;
    for (e = 2 * z->k; e < 2 * z->k + 2; e++) {
        const long long *v = z->all + ((size_t)x * (size_t)z->n + (size_t)e) * 3;
        if (v[0] == (sender ? d : s))
            return v[sender ? 1 : 2];
    }
    return 0;
}

/* The edge (the block of the buffers) of neighbour x in dimension k. */
static int edge_block(const pcoll__hier_args_t *h, int x)
{
    const edges_t *z = h->data;
    int e;
    for (e = 2 * z->k; e < 2 * z->k + 2; e++)
        if (z->a->dests[e] == x)
            return e;
    return -1;
}

/* Every member's neighbours and edge sizes, gathered on the node. */
static int gather_edges(edges_t *z)
{
    const pcoll__nbr_args_t *a = z->a;
    size_t n = 3 * (size_t)z->n;
    long long *mine = pcoll__malloc(n * sizeof *mine + 1);
    int e, rc = PCOLL_SUCCESS;
    z->all = pcoll__malloc(n * (size_t)pcoll__node_size(z->t, z->t->node) * sizeof *z->all + 1);
    if (!mine || !z->all) {
        pcoll__free(mine);
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor multi: edge tables");
    }
    for (e = 0; e < z->n; e++) {
        mine[3 * e] = a->dests[e];
        mine[3 * e + 1] = a->dests[e] == MPI_PROC_NULL
                              ? 0
                              : pcoll__nbr_bytes(a->scounts[e], pcoll__nbr_stype(a, e));
        mine[3 * e + 2] = a->sources[e] == MPI_PROC_NULL
                              ? 0
                              : pcoll__nbr_bytes(a->rcounts[e], pcoll__nbr_rtype(a, e));
    }
    if (MPI_Allgather(mine, (int)n, MPI_LONG_LONG, z->all, (int)n, MPI_LONG_LONG, z->t->comm) !=
        MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "neighbor multi: MPI_Allgather failed");
    pcoll__free(mine);
    return rc;
}

/* The neighbourhood's edges as the engine's blocks: block e is edge e; the
 * options with one Bruck step forced. */
static void engine_view(const pcoll__nbr_args_t *a, pcoll__a2a_args_t *v)
{
    memset(v, 0, sizeof *v);
    v->sendbuf = a->sendbuf, v->recvbuf = a->recvbuf;
    v->sendtype = a->sendtype, v->recvtype = a->recvtype;
    v->scounts = a->scounts, v->rcounts = a->rcounts;
    v->sdispls = a->sdispls, v->rdispls = a->rdispls;
    v->sext = a->sext, v->rext = a->rext;
    v->stypes = a->stypes, v->rtypes = a->rtypes;
    v->opts = a->opts;
    v->opts.radix = INT_MAX;
}

int pcoll__nbr_multi(pcoll_plan_t *plan, const void *args)
{
    const pcoll__nbr_args_t *a = args;
    pcoll__a2a_args_t v;
    edges_t z = {.a = a, .n = a->outdegree};
    pcoll__hier_args_t h = {.a = &v, .bytes = edge_bytes, .block = edge_block, .data = &z};
    int rc;
    if (!a->cart || a->folded)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "neighbor multi: Cartesian communicators only, without a periodic "
                            "dimension of 1 or 2 ranks");
    engine_view(a, &v);
    PCOLL_CHECK(pcoll__hier_nodes(plan->ctx, &v.opts, &h.node), rc, out);
    z.t = h.node;
    PCOLL_CHECK(gather_edges(&z), rc, out);
    /* One engine run per dimension, in dimension order. */
    for (z.k = 0; 2 * z.k < a->outdegree; z.k++)
        PCOLL_CHECK(pcoll__hier_build(plan, &h), rc, out);
out:
    pcoll__free(z.all);
    return rc;
}
