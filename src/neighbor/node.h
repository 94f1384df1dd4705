/*
 * neighbor `node`'s layout of a node's segment (node.c), shared by the
 * plan of a persistent init and the plan a one-shot shape keeps
 * (node_kept.c).  The send area holds one bundle per destination node, in
 * node order (the node's own bundle: its edges within the node); each
 * bundle holds the node's members' blocks for that node, members in local
 * order, each member's blocks in send order; the receive area after it,
 * one bundle per source node.  With flag 1 every block is preceded by one
 * byte of its own (the kept plan's: whether the block is there or travels
 * alone).
 */
#ifndef PCOLL_NEIGHBOR_NODE_H
#define PCOLL_NEIGHBOR_NODE_H

#include "core/node.h"
#include "neighbor/neighbor.h"

typedef struct pcoll__nbr_layout {
    const pcoll__node_t *t;
    long long *sbase, *rbase; /* [N+1]: bundle starts in the segment */
    long long *soff, *roff;   /* per edge: block offset in the segment (-1: none) */
    long long *mine;          /* [2N]: this rank's bytes to, then from, each node */
    long long *all;           /* [nlocal * 2N]: every member's */
    long long bytes;          /* of the segment */
    int flag;                 /* bytes before each block (0 or 1) */
} pcoll__nbr_layout_t;

/* The layout of a's edges on nodes of per_node ranks (pcoll_cores_per_node;
 * agreed on first: every rank must pass the same), its segment (*ok 0, on
 * every rank, where a node has none); PCOLL_ERR_UNSUPPORTED on every rank
 * where a block or bundle is over INT_MAX bytes.  Collective over
 * plan->comm; l->flag set by the caller. */
int pcoll__nbr_node_layout(pcoll_plan_t *plan, const pcoll__nbr_args_t *a, int per_node,
                           pcoll__nbr_layout_t *l, pcoll__node_shm_t **shm, int *ok);
/* Whether the edge to / from peer crosses nodes. */
int pcoll__nbr_node_remote(const pcoll__nbr_layout_t *l, int peer);
/* The rank of node k that handles its bundle with this rank's node. */
int pcoll__nbr_node_partner(const pcoll__node_t *t, int k);

#endif
