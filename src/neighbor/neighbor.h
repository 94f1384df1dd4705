/*
 * Neighbourhood all-to-all (MPI_Neighbor_alltoall, _alltoallv, _alltoallw):
 * every rank sends one block along each of its out-edges and receives one
 * block along each of its in-edges, on a communicator with a topology.  The
 * three forms share one argument struct and one table: a count, a
 * displacement and (alltoallw) a type per edge.
 *
 * Edges, as MPI orders them:
 * - Cartesian: for every dimension d, the neighbour below (slot 2d) then the
 *   one above (slot 2d+1), for sends and receives alike; a neighbour past a
 *   non-periodic border is MPI_PROC_NULL (nothing sent, its receive block
 *   untouched).  The block sent to the neighbour above arrives in that
 *   neighbour's slot of the one below, even where both are the same rank
 *   (a periodic dimension of size 1 or 2): builders start the sends in the
 *   order pcoll__nbr_send_edge gives, on such grids above first in each
 *   dimension, so that MPI's in-order matching puts it there.
 * - graph (MPI_Graph_create): the neighbours of MPI_Graph_neighbors, the same
 *   list in both directions.
 * - distributed graph: the sources and destinations of
 *   MPI_Dist_graph_neighbors; an edge repeated k times carries k messages,
 *   matched in list order (the k-th send to a rank meets that rank's k-th
 *   receive from this one); self edges are messages to oneself; weights are
 *   ignored.
 */
#ifndef PCOLL_NEIGHBOR_NEIGHBOR_H
#define PCOLL_NEIGHBOR_NEIGHBOR_H

#include "alltoall/alltoall.h"
#include "core/node.h"

/* A kept `node` plan (node_kept.c) bundles blocks of up to this many bytes;
 * a larger block travels alone, a message of its own, as per edge. */
#define PCOLL__NBR_PIECE_MAX 1024
/* The largest block a kept plan on N nodes bundles where a node holds
 * `blocks` blocks in its segment (the same on every rank for the same
 * arguments): PCOLL__NBR_PIECE_MAX, less where the segment would pass
 * 32 MiB; on one node (every rank of the communicator on it: no bundle
 * crosses a network) pcoll__node_piece of them, never less: a copy through
 * the node's memory and one barrier against a message per block (MPICH at
 * np 2, 26 blocks of 2-16 KiB, a lease's run: the blocks sent alone were
 * 1.2-1.4x slower than the same blocks copied). */
long long pcoll__nbr_piece(int N, long long blocks);

/* The public form a call came in (the MPI call `native` makes). */
enum { PCOLL__NBR_ALLTOALL, PCOLL__NBR_ALLTOALLV, PCOLL__NBR_ALLTOALLW };

typedef struct pcoll__nbr_args {
    const void *sendbuf;
    void *recvbuf;
    int form;                 /* PCOLL__NBR_* */
    int wide;                 /* a large-count (_c) form */
    int cart;                 /* Cartesian: sends in pcoll__nbr_send_edge's order */
    int folded;               /* Cartesian, a periodic dimension of 1 or 2 ranks */
    int started;              /* the plan will start the MPI's call (persistent
                                 without deferral, non-blocking), not only make
                                 the blocking call */
    int oneshot;              /* a one-shot call's shape: its `node` plan is the
                                 kept one (node_kept.c), as a persistent plan's
                                 on one node is */
    int indegree, outdegree;
    const int *sources, *dests; /* ranks (or MPI_PROC_NULL), one per edge */
    /* Per edge: count, displacement in units of sext / rext bytes (items of
     * the type; bytes for alltoallw), and (alltoallw) type. */
    const MPI_Count *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls;
    MPI_Aint sext, rext;
    MPI_Datatype sendtype, recvtype;      /* alltoall, alltoallv */
    const MPI_Datatype *stypes, *rtypes;  /* alltoallw (NULL otherwise) */
    MPI_Count sendcount, recvcount;       /* alltoall: the one count */
    /* Filled by the agreement of a persistent init (-1 / 0 before): the
     * largest message of any edge over all ranks in bytes, and whether
     * `native` may serve (every count and displacement an int where the MPI
     * lacks the large-count calls). */
    long long maxbytes;
    int native_ok;
    /* Filled by the same agreement for auto's choice of `node` (-1 before):
     * the largest in- or out-degree of any rank, the most bytes any rank
     * sends or receives in a call, and pcoll_cores_per_node where every
     * rank gave the same (-1 where they differ). */
    int maxdegree;
    long long maxtotal;
    int cores;
    /* auto chose `node`: where a node gets no shared segment, the plan runs
     * `direct` instead of being refused. */
    int node_fallback;
    pcoll__opts_t opts;
} pcoll__nbr_args_t;

/* Builders (one file each). */
int pcoll__nbr_direct(pcoll_plan_t *plan, const void *args);
int pcoll__nbr_native(pcoll_plan_t *plan, const void *args);
int pcoll__nbr_node(pcoll_plan_t *plan, const void *args);
/* `node` kept by a one-shot shape (node_kept.c): laid out for the deciding
 * call's arguments a (collective), then bound to each call's checked
 * arguments before its run. */
int pcoll__nbr_node_keep(pcoll_plan_t *plan, const pcoll__nbr_args_t *a);
int pcoll__nbr_node_bind(pcoll_plan_t *plan, const pcoll__nbr_args_t *a);
/* A persistent `node` plan on one node: the kept plan bound to a (whose
 * arrays live as long as the plan). */
int pcoll__nbr_node_one(pcoll_plan_t *plan, const pcoll__nbr_args_t *a);
/* `node`'s handler of the bundles between this rank's node and node k of
 * t (core/node.h): node k's local rank (this node) mod (its size). */
static inline int pcoll__nbr_node_partner(const pcoll__node_t *t, int k)
{
    return t->members[t->first[k] + t->node % pcoll__node_size(t, k)];
}
/* Whether `native` may run on these arguments (the same answer on every
 * rank: the topology, the form and the agreed sizes decide). */
int pcoll__nbr_native_usable(const pcoll__nbr_args_t *a);
/* Whether a `native` plan made together (or not) on p ranks makes the
 * MPI's blocking call in its wait (core/native.h, deferred plans): such a
 * plan is not started in the MPI's sense. */
int pcoll__nbr_native_defers(int together, int p);

/* The topology of comm: MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH in *topo and
 * the degrees; PCOLL_ERR_ARG naming fn for a communicator without one (MPI
 * requires one: MPI_ERR_TOPOLOGY), the same on every rank. */
int pcoll__nbr_degrees(MPI_Comm comm, const char *fn, int *topo, int *indegree,
                       int *outdegree);
/* The neighbours of comm (pcoll__nbr_degrees's degrees): sources[indegree],
 * dests[outdegree]. */
int pcoll__nbr_neighbors(MPI_Comm comm, int topo, int indegree, int outdegree, int *sources,
                         int *dests);
/* Whether comm is Cartesian with a periodic dimension of 1 or 2 ranks (the
 * same neighbour below and above). */
int pcoll__nbr_cart_folded(MPI_Comm comm);

/* comm's topology into *t: its context ctx's, read from MPI at the first
 * call and kept in the context (ranks owned by it); where ctx is NULL (a
 * communicator without a context yet), read from MPI with t->ranks
 * allocated for the caller to free.  The errors of pcoll__nbr_degrees,
 * nothing kept. */
int pcoll__nbr_topo(pcoll__ctx_t *ctx, MPI_Comm comm, const char *fn, pcoll__ctx_topo_t *t);
/* The same where ctx may be NULL before the call has its context: the
 * context comm already has, if any (a persistent init's checks come before
 * it takes one); *owned: t->ranks where the caller must free them (no
 * context), else NULL. */
int pcoll__nbr_topo_of(pcoll__ctx_t *ctx, MPI_Comm comm, const char *fn, pcoll__ctx_topo_t *t,
                       int **owned);

/* One neighbourhood exchange of a long long per edge (send[e] along
 * out-edge e, recv[e] from in-edge e; MPI_PROC_NULL slots untouched), made
 * of messages with tag on comm and paired as the algorithms pair the edges
 * (above): not the MPI's own MPI_Neighbor_alltoall, which some MPIs pair
 * wrongly (core/defects.h, mpich-neighbor-order).  An MPI error code. */
int pcoll__nbr_exchange(MPI_Comm comm, int tag, const pcoll__nbr_args_t *a, long long *send,
                        long long *recv);

/* The out-edge the k-th send goes along: edge order, but above before below
 * on a Cartesian grid with a periodic dimension of 1 or 2 ranks, where the
 * two are one rank and MPI's in-order matching must put the block sent up
 * into the receiver's slot of the one below.  Elsewhere the neighbours of a
 * Cartesian grid are distinct ranks and the order changes no result. */
static inline int pcoll__nbr_send_edge(const pcoll__nbr_args_t *a, int k)
{
    return a->folded ? k ^ 1 : k;
}

/* The bytes of count items of type. */
static inline long long pcoll__nbr_bytes(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    pcoll__type_size(type, &size);
    return (long long)count * size;
}

static inline MPI_Datatype pcoll__nbr_stype(const pcoll__nbr_args_t *a, int e)
{
    return a->stypes ? a->stypes[e] : a->sendtype;
}

static inline MPI_Datatype pcoll__nbr_rtype(const pcoll__nbr_args_t *a, int e)
{
    return a->rtypes ? a->rtypes[e] : a->recvtype;
}

#endif
