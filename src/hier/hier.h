/*
 * The node-aware all-to-all engine (multicore all-to-all paper, sections
 * II-A, II-B, II-C and III-A) behind alltoall `hier`, alltoallv `hier`,
 * pcoll_alltoall_multi_init and the neighbourhood all-to-all `multi`.  They
 * differ only in who sends how many bytes to whom and where those bytes sit
 * in the user's buffers (a type per block where a's stypes / rtypes are
 * set); the engine (hier.c, hier_layout.c) bundles them per pair of nodes in
 * a shared segment and exchanges the bundles between nodes with radix-r
 * Bruck (hier_copy.c merges its copies into runs).
 */
#ifndef PCOLL_HIER_HIER_H
#define PCOLL_HIER_HIER_H

#include "alltoall/alltoall.h"
#include "core/node.h"

typedef struct pcoll__hier_args pcoll__hier_args_t;

struct pcoll__hier_args {
    const pcoll__a2a_args_t *a;    /* buffers, types, counts, options */
    const pcoll__node_t *node;     /* the plan communicator's nodes */
    /* Bytes rank s sends to rank d (ranks of the plan's communicator); asked
     * only about pairs with s or d on this rank's node (or on a part of it:
     * without shared memory the engine makes every rank its own node). */
    long long (*bytes)(const pcoll__hier_args_t *h, int s, int d);
    /* The block of the user's buffers that holds peer x's data (-1: none);
     * NULL: block x. */
    int (*block)(const pcoll__hier_args_t *h, int x);
    const void *data;              /* what bytes and block read */
};

/* The topology for opts->cores_per_node.  Every rank must pass the same
 * pcoll_cores_per_node, pcoll_ports and pcoll_radix (PCOLL_ERR_MISMATCH
 * otherwise: one reduction).  Collective over ctx->dup. */
int pcoll__hier_nodes(pcoll__ctx_t *ctx, const pcoll__opts_t *opts, const pcoll__node_t **node);

/* Add the whole run to the plan's schedule (hier.c).  Collective over
 * plan->comm: two reductions and the node's shared window.  When some node
 * cannot share memory, every rank becomes its own node (cores per node 1) --
 * the inter-node protocol must be the same everywhere -- and the bundles
 * are made and exchanged by each rank itself. */
int pcoll__hier_build(pcoll_plan_t *plan, const pcoll__hier_args_t *h);

/* ---- engine internals (hier.c, hier_layout.c) ---------------------------
 *
 * W: N slots, slot j holding what this node sends to node A+j (A = this
 * node): within a slot, the data of every pair (s, d) of a source s on the
 * sending node and a destination d on the receiving node, s-major, both in
 * local order.  Bruck moves whole slots; after the last step slot j holds the
 * bundle from node A-j.  R: where a step's messages arrive.  One step (the
 * basic variant): slots are packed tight (woff, roff); several steps: every
 * slot is zmax bytes (the largest bundle anywhere) so that digit sets are
 * bounded vectors of slots. */
typedef struct pcoll__hier {
    const pcoll__hier_args_t *h;
    const pcoll__node_t *t;   /* h->node, or every rank its own node */
    pcoll__node_shm_t *shm;   /* the segment and the barrier */
    int p, N, A, m, l, me;  /* ranks, nodes, this node, its size, local index, rank */
    int ports;              /* active ranks on this node */
    int throttle;           /* sends in flight per rank */
    int r, steps;           /* radix and Bruck steps between nodes */
    long long zmax;
    MPI_Aint *woff;         /* [N+1] slot j of W at woff[j] */
    MPI_Aint *roff;         /* [N+1] one step: the bundle from node A-j at roff[j] of R */
    char *W, *R;
    int flip;               /* one node: W twice, runs take the copies in turn */
    MPI_Datatype slot;      /* several steps: one slot of zmax bytes */
    MPI_Datatype *set;      /* set[s*r+d]: the slots of digit d in step s, from slot d*w */
} pcoll__hier_t;

/* Copies merged into runs (hier_copy.c): pieces at fixed strides on both
 * sides, each a plain byte range, become one copy. */
typedef struct pcoll__hier_run {
    const char *src;
    char *dst;
    long long bytes;        /* of each piece */
    MPI_Aint sstride, dstride;
    int count;              /* pieces so far (0: none) */
} pcoll__hier_run_t;

/* Add a copy (as for pcoll__sched_copy) to the run or, if it cannot join,
 * flush the run and start another (or add the copy as it is). */
int pcoll__hier_copy(pcoll_plan_t *plan, pcoll__hier_run_t *run, const void *src, int scount,
                     MPI_Datatype stype, void *dst, int dcount, MPI_Datatype dtype);
/* Add the run's copy to the schedule and empty it. */
int pcoll__hier_flush(pcoll_plan_t *plan, pcoll__hier_run_t *run);

/* On one node a run needs one node barrier where W exists twice (runs take
 * the copies in turn, so a run's copies in never meet the previous run's
 * copies out); W has two copies where one is at most this many bytes. */
#define PCOLL__HIER_FLIP_MAX ((long long)8 << 20)
static inline int pcoll__hier_flips(long long wbytes)
{
    return wbytes <= PCOLL__HIER_FLIP_MAX;
}

/* Sizes, radix, offsets, datatypes and the segment, with the fallback
 * (collective over plan->comm). */
int pcoll__hier_layout(pcoll_plan_t *plan, const pcoll__hier_args_t *h, pcoll__hier_t *g);
/* Active ranks (ports) on node k. */
int pcoll__hier_ports(const pcoll__hier_t *g, int k);
/* Offset in R of digit d's slots in step s. */
MPI_Aint pcoll__hier_region(const pcoll__hier_t *g, int s, int d);
/* Where slot j is after the last step. */
char *pcoll__hier_final(const pcoll__hier_t *g, int j);
long long pcoll__hier_weight(int r, int s);

/* The radix of the inter-node exchange: pcoll_radix, or the cost model's
 * best for N nodes of which the largest has m ranks, ports active, slots of
 * z bytes; r >= N is the one-step basic variant. */
int pcoll__hier_radix(const pcoll__opts_t *opts, int N, int m, long long z);

/* Auto: whether hier beats `flat` seconds (the best flat algorithm's
 * predicted time) for blocks of n bytes on ctx's nodes (one node:
 * pcoll__cost_hier_node's copies and barriers).  Collective over ctx->dup
 * (pcoll__hier_nodes). */
int pcoll__hier_pays(pcoll__ctx_t *ctx, const pcoll__opts_t *opts, long long n, double flat);

/* Builders: alltoall `hier` (hier.c), alltoallv `hier` (hier_alltoallv.c),
 * the multiple all-to-all (hier_multi.c) and the neighbourhood all-to-all
 * `multi` of Cartesian communicators (hier_neighbor.c; its args are a
 * pcoll__nbr_args_t of neighbor/neighbor.h). */
int pcoll__alltoall_hier(pcoll_plan_t *plan, const void *args);
int pcoll__alltoallv_hier(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_multi_hier(pcoll_plan_t *plan, const void *args);
int pcoll__nbr_multi(pcoll_plan_t *plan, const void *args);

/* alltoallv `hier` kept by a one-shot shape (hier_alltoallv_kept.c): a
 * plan (made by pcoll__plan_create on the shape's communicator, with its
 * tag) that serves any counts, displacements, types and buffers, set
 * before each run by bind.  keep: collective over plan->comm (the node
 * topology for opts, the node's shared segment made once, one more tag);
 * every rank passes the same options and MPI_IN_PLACE use.  bind: no
 * communication; a's arrays and types must stay valid until the run ends. */
int pcoll__alltoallv_hier_keep(pcoll_plan_t *plan, const pcoll__opts_t *opts, int inplace);
/* The kept plan bundles pieces of up to PCOLL__HIER_PIECE_MAX bytes on
 * several nodes (fewer on very large nodes); on one node, where every piece
 * has a slot of its own in each of two copies, pcoll__node_piece of its
 * p p slots (np 2 and 8: 16 KiB, np 16: 8 KiB, np 64: 1 KiB), never less.
 * A larger piece travels alone, a message of its own.  The piece of a plan
 * on p ranks, nnodes nodes of up to maxlocal ranks: the same on every
 * rank. */
#define PCOLL__HIER_PIECE_MAX 1024
long long pcoll__alltoallv_hier_piece(int p, int nnodes, int maxlocal);
int pcoll__alltoallv_hier_bind(pcoll_plan_t *plan, const pcoll__a2a_args_t *a);

/* The multiple all-to-all's arguments: the union of the rows, ordered row by
 * row, ncols ranks each; a's blocks are those of one row. */
typedef struct pcoll__multi_args {
    pcoll__a2a_args_t a;
    int ncols;
} pcoll__multi_args_t;

#endif
