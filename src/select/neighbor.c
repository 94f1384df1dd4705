/*
 * The neighbourhood all-to-alls (MPI_Neighbor_alltoall, _alltoallv,
 * _alltoallw: one table, PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM) and their
 * automatic choice.
 *
 * MPICH and Open MPI run these calls as one Isend and one Irecv per edge,
 * the messages `direct` sends, so between those two the choice is about the
 * per-call work around the messages.  A plan made together (persistent
 * init, the drop-in's MPI_Neighbor_*_init) takes `direct`: its requests are
 * made once at init and a run only starts them, where the MPI's own makes
 * its requests, or walks its schedule, on every run -- except on an MPI
 * whose blocking call a started plan makes instead (the cost model's defer:
 * Open MPI, whose blocking neighbourhood call at np 2 took 2.64 us against
 * direct's 3.91 for a 27-point stencil at 8 B): there `native` costs the
 * MPI's blocking call.  A one-shot call and the drop-in's non-blocking
 * calls take `native`: a plan for one call makes as many requests as the
 * MPI does, and the blocking call has nothing around the messages at all.
 * Where `native` cannot run (large counts on an MPI without the large-count
 * calls, a known MPI defect) `direct` serves.
 *
 * `node` changes the messages: one per pair of nodes instead of one per
 * edge, none within a node, for two copies of every byte through the
 * node's shared memory and two node barriers; on one node (every rank of
 * the communicator on it) no message at all, the copies and one barrier.  A plan made together takes
 * it instead of the choice above where the cost model
 * (pcoll__cost_nbr_node against pcoll__cost_nbr_direct or _native) predicts
 * it faster by the model's margin: many edges, short blocks, nodes of
 * several ranks (virtual nodes of pcoll_cores_per_node count as nodes; one
 * node too, where the MPI's messages between its ranks cost more than a
 * copy and a barrier: the cost model's local share of alpha per message,
 * 1 for MPICH, whose calls `node` beat 2-17x at np 2 up to 1 KiB a block,
 * 0.2 for Open MPI, whose calls `node` beat at np 2 from one edge up to
 * 1 KiB a block, docs/algorithms.md).  A kept plan (a one-shot shape's, and a persistent
 * plan's on one node) sends a block over its piece (pcoll__nbr_piece:
 * 1 KiB between nodes, up to 16 KiB on one node) alone, a message as per
 * edge: `node` is weighed there only for blocks up to that.
 * Every input is the same on every rank: p and the ranks per node of the
 * communicator, and what the init agreed on (the largest degree, the
 * largest block, pcoll_cores_per_node), so every rank takes the same
 * algorithm.  Simulated at 768 ranks, 64 nodes of 12 (docs/simulation.md),
 * `node` took a 27-point stencil from 26.1 us per call to 8.2 at 8 B per
 * edge and to 16.9 from 27.3 at 256 B, and lost from 1 KiB on, where the
 * model's copies keep auto on the per-edge exchange.  One-shot calls
 * (the drop-in's blocking MPI_Neighbor_alltoall*) take it through their
 * shape (api/entry.c "Shapes"): the shape's deciding call agrees as an init
 * does and chooses as above; where that is `node` the shape keeps a plan
 * that serves any later call (neighbor/node_kept.c), and the drop-in's
 * non-blocking calls run leases on it; elsewhere they stay on the flat
 * choice.  A non-blocking call alone never takes it: nothing is agreed
 * there, and planning `node` communicates.
 *
 * `multi` (Cartesian communicators without a periodic dimension of 1 or 2
 * ranks) is the multiple all-to-all of the multicore paper (II-C): the
 * exchange along each dimension as an all-to-all inside every row of that
 * dimension, handed to the node-aware engine, one run per dimension.  auto
 * weighs it like `node`, with the same agreed inputs and the dimensions of
 * the grid, and would take it only where pcoll__cost_nbr_multi predicts it
 * faster than both the flat choice and `node` by the margin; the model never
 * does (its messages are `node`'s split by dimension, with more node
 * barriers), so it runs where it is named.
 */
#include <limits.h>
#include <math.h>

#include "alltoallv/inplace/inplace.h"
#include "hier/hier.h"
#include "model/cost.h"
#include "select/select.h"

enum { N_DIRECT, N_NODE, N_MULTI, N_NATIVE, N_AUTO };

static const pcoll__algo_t algos[] = {
    [N_DIRECT] = {"direct",
                  "a persistent send per out-edge and receive per in-edge, made at init and "
                  "started together",
                  pcoll__nbr_direct, 0},
    [N_NODE] = {"node",
                "the blocks between two nodes bundled through the node's shared memory into "
                "one message per pair of nodes (pcoll_cores_per_node: virtual nodes)",
                pcoll__nbr_node, PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_KEPT},
    [N_MULTI] = {"multi",
                 "Cartesian: the exchange along each dimension as an all-to-all inside every "
                 "row, bundled per pair of nodes by the node-aware engine (one run per "
                 "dimension)",
                 pcoll__nbr_multi, PCOLL__ALGO_COLLECTIVE},
    [N_NATIVE] = {"native",
                  "the MPI's own MPI_Neighbor_alltoall(v/w): auto's choice for one-shot and "
                  "non-blocking calls",
                  pcoll__nbr_native, 0},
    [N_AUTO] = {"auto",
                "persistent, and one-shot calls by shape: node where the cost model predicts "
                "it faster (many edges, short blocks, nodes of several ranks), else direct (native "
                "where the MPI's blocking call is cheaper: cost model's defer); other one-shot "
                "and non-blocking calls: native (direct where native cannot run)",
                NULL, 0},
};

const pcoll__algo_table_t pcoll__neighbor_table = {
    "neighbor_alltoall", "PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", algos,
    (int)(sizeof algos / sizeof *algos)};

/* pcoll_neighbor_alltoallv_inplace_init (one algorithm), under the
 * collective name "neighbor_alltoallv_inplace": the in-place alltoallv
 * engine on the neighbourhood's blocks. */
static const pcoll__algo_t inplace_algos[] = {
    {"inplace",
     "limited memory (Hofmann and Ruenger) on the edges' blocks, merged into one message per "
     "neighbour rank: transfers into free space and aux slots of pcoll_aux_bytes in all",
     pcoll__alltoallv_inplace_neighbor, PCOLL__ALGO_INPLACE | PCOLL__ALGO_COLLECTIVE},
};

const pcoll__algo_table_t pcoll__neighbor_inplace_table = {
    "neighbor_alltoallv_inplace", "PCOLL_NEIGHBOR_ALLTOALLV_INPLACE_ALGORITHM", inplace_algos, 1};

/* The nodes of the shape for `node`: *m ranks each (the ranks per node, or
 * pcoll_cores_per_node where it is smaller), *N of them; 0 where nodes have
 * one rank.  One node of several ranks counts: there `node` is a copy
 * through the node's memory and one barrier, no message at all. */
static int node_shape(const pcoll__nbr_args_t *a, const pcoll__shape_t *s, int *N, int *m)
{
    *m = s->rpn;
    if (a->cores > 0 && (*m <= 0 || a->cores < *m))
        *m = a->cores;
    *N = *m > 0 ? (s->p + *m - 1) / *m : 0;
    return *m >= 2 && *N >= 1;
}

/* Whether the node-aware algorithms may be weighed: a plan made together
 * (the inputs agreed), several nodes of several ranks, bundles that fit an
 * int. */
static int agreed(const pcoll__nbr_args_t *a, const pcoll__shape_t *s, int *N, int *m)
{
    int d = a->maxdegree;
    return s->together && d > 0 && a->maxbytes >= 0 && a->cores >= 0 && node_shape(a, s, N, m) &&
           (double)*m * d * (double)a->maxbytes <= INT_MAX;
}

/* The bytes the slowest rank moves: the agreed most of any rank, else its
 * degree times the largest block. */
static long long moved(const pcoll__nbr_args_t *a)
{
    return a->maxtotal >= 0 ? a->maxtotal : (long long)a->maxdegree * a->maxbytes;
}

/* The predicted time of flat (the choice without the node-aware ones) on
 * N nodes: on one node the MPI's messages cost its local share of alpha. */
static double flat_time(const pcoll__nbr_args_t *a, const pcoll__cost_t *c, int flat, int N)
{
    pcoll__cost_t l = *c;
    if (N == 1)
        l.alpha *= c->local;
    return flat == N_NATIVE ? pcoll__cost_nbr_native(&l, a->maxdegree, moved(a))
                            : pcoll__cost_nbr_direct(&l, a->maxdegree, moved(a));
}

/* `node`, `multi` or flat: a node-aware algorithm where predicted faster
 * than the others by the model's margin. */
static int node_aware(const pcoll__nbr_args_t *a, const pcoll__shape_t *s, int flat)
{
    pcoll__cost_t c = pcoll__select_cost(s);
    int N, m;
    long long piece;
    double t, tn, tm;
    if (!agreed(a, s, &N, &m))
        return flat;
    t = flat_time(a, &c, flat, N);
    /* A kept plan sends a block over its piece alone: per edge again (on
     * one node its piece for m ranks of the largest degree, which holds
     * for the node's own blocks, as many or fewer). */
    piece = N == 1 ? pcoll__nbr_piece(1, (long long)m * a->maxdegree + 1) : PCOLL__NBR_PIECE_MAX;
    tn = a->maxbytes > piece && (N == 1 || a->oneshot)
             ? HUGE_VAL
             : pcoll__cost_nbr_node(&c, N, m, a->maxdegree, moved(a));
    if (a->cart && !a->folded) {
        tm = pcoll__cost_nbr_multi(&c, N, m, a->outdegree / 2, a->maxbytes);
        if (tm * (1.0 + c.margin) < (t < tn ? t : tn))
            return N_MULTI;
    }
    return tn * (1.0 + c.margin) < t ? N_NODE : flat;
}

int pcoll__select_neighbor(const pcoll__nbr_args_t *a, const pcoll__shape_t *s)
{
    int flat;
    if (!pcoll__algo_is_auto(&pcoll__neighbor_table, a->opts.algorithm))
        return a->opts.algorithm;
    flat = (!s->together || pcoll__cost_params().defer) && pcoll__nbr_native_usable(a)
               ? N_NATIVE
               : N_DIRECT;
    return node_aware(a, s, flat);
}
