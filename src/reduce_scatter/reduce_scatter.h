/*
 * Reduce-scatter: the arguments every builder receives and the helpers they
 * share.  The input is a vector of `total` elements of `type`; block k
 * (counts[k] elements from element displs[k]) of the reduction ends at rank k.
 * The block form (pcoll_reduce_scatter_block) is the counts form with equal
 * counts.  Results follow MPI's definition: x(0) op x(1) op ... op x(p-1), in
 * rank order, so non-commutative ops are handled by the algorithms that keep
 * the order (mst, recursive_halving, pairwise); ring and ring_prepost answer
 * PCOLL_ERR_UNSUPPORTED for them, circulant builds recursive_halving.  MPI_Reduce_local(in, inout) computes
 * inout = in op inout, so "in" is always the lower ranks' part.
 */
#ifndef PCOLL_REDUCE_SCATTER_REDUCE_SCATTER_H
#define PCOLL_REDUCE_SCATTER_REDUCE_SCATTER_H

#include "base/algo.h"
#include "base/options.h"
#include "core/node.h"
#include "core/plan.h"

typedef struct pcoll__rs_args {
    const void *sendbuf;     /* the input vector (in place: a staged copy) */
    void *recvbuf;           /* this rank's block of the result */
    const long long *counts; /* p block sizes in elements (plan-owned copy) */
    const long long *displs; /* p+1 prefix sums of counts */
    MPI_Datatype type;       /* the plan's (a duplicate of a derived type) */
    MPI_Datatype optype;     /* the handle a user-defined op receives: the
                                caller's (core/optype.h); else type */
    MPI_Op op;
    int commutative;
    int derived;             /* the type is derived: on some rank (persistent
                                init, agreed), else on this one */
    int inplace;             /* the caller passed MPI_IN_PLACE */
    int block;               /* the block form (MPI_Reduce_scatter_block) */
    int no_reduce_local;     /* MPI_Reduce_local fails on some rank (the
                                context's, core/comm.h): only `native` serves */
    MPI_Aint extent;         /* of one element */
    long long total;         /* elements in the vector */
    pcoll__opts_t opts;
} pcoll__rs_args_t;

int pcoll__reduce_scatter_mst(pcoll_plan_t *plan, const void *args);
int pcoll__reduce_scatter_ring(pcoll_plan_t *plan, const void *args);
int pcoll__reduce_scatter_ring_prepost(pcoll_plan_t *plan, const void *args);
int pcoll__reduce_scatter_recursive_halving(pcoll_plan_t *plan, const void *args);
int pcoll__reduce_scatter_pairwise(pcoll_plan_t *plan, const void *args);
/* Träff's circulant reduce-scatter (commutative ops; others: recursive_halving). */
int pcoll__reduce_scatter_circulant(pcoll_plan_t *plan, const void *args);
/* One node: reductions into shared accumulators, a ring of flags, no
 * messages (commutative ops; else, or off one node: circulant). */
int pcoll__reduce_scatter_node_ring(pcoll_plan_t *plan, const void *args);
/* One node, short vectors: every rank's input in a shared segment, a node
 * barrier, each rank reduces its block from all of them in rank order (any
 * op; longer vectors: node_ring; off one node: circulant). */
int pcoll__reduce_scatter_node_direct(pcoll_plan_t *plan, const void *args);
/* Intercommunicators: each group's vectors reduced at the other group's
 * first rank, which scatters the result in its group's blocks (any op). */
int pcoll__reduce_scatter_inter(pcoll_plan_t *plan, const void *args);
/* The MPI's own MPI_Reduce_scatter(_block) (core/native.h). */
int pcoll__reduce_scatter_native(pcoll_plan_t *plan, const void *args);

/* node_ring's accumulators: about PCOLL__NR_SEGMENT_BYTES per node, a
 * block's chunk that / p, between PCOLL__NR_CHUNK_MIN and _MAX bytes (the
 * cost model counts its chunks the same way). */
#define PCOLL__NR_SEGMENT_BYTES (4LL << 20)
#define PCOLL__NR_CHUNK_MIN (4LL << 10)
#define PCOLL__NR_CHUNK_MAX (256LL << 10)

static inline long long pcoll__rs_node_ring_chunk(int p)
{
    long long want = PCOLL__NR_SEGMENT_BYTES / (p > 0 ? p : 1);
    return want < PCOLL__NR_CHUNK_MIN ? PCOLL__NR_CHUNK_MIN
                                      : want > PCOLL__NR_CHUNK_MAX ? PCOLL__NR_CHUNK_MAX : want;
}

/* Address of element e of a vector laid out like the input. */
static inline void *pcoll__rs_at(const void *base, const pcoll__rs_args_t *a, long long e)
{
    return (char *)base + (MPI_Aint)e * a->extent;
}

/* Elements of blocks [first, last). */
static inline long long pcoll__rs_span(const pcoll__rs_args_t *a, int first, int last)
{
    return a->displs[last] - a->displs[first];
}

/* Scratch for count elements of the type, addressed like a vector. */
void *pcoll__rs_scratch(pcoll_plan_t *plan, const pcoll__rs_args_t *a, long long count);
/* Add inout = in op inout over count elements (nothing for count 0); a
 * user-defined op gets a->optype, watched (core/optype.h). */
int pcoll__rs_reduce(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *in, void *inout,
                     long long count);
/* Add a send or receive of count elements (nothing for count 0). */
int pcoll__rs_send(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *buf,
                   long long count, int peer);
int pcoll__rs_recv(pcoll_plan_t *plan, const pcoll__rs_args_t *a, void *buf, long long count,
                   int peer);
/* The node algorithms lay out the shared segment by the type's extent and
 * true extent, which MPI lets differ between ranks (equal signatures):
 * *same = 1 where they are equal on every rank (one reduction over
 * plan->comm; collective), else the caller builds circulant on every rank. */
int pcoll__rs_node_layout(pcoll_plan_t *plan, const pcoll__rs_args_t *a, MPI_Aint *true_lb,
                          MPI_Aint *true_extent, int *same);
/* The node algorithms (node_ring, node_direct): a shared segment of bytes
 * on the node, made at init, or *ok = 0 on every rank where the ranks are
 * on several nodes or the node's MPI gives no shared window (the caller
 * then builds circulant).  Collective. */
int pcoll__rs_node_segment(pcoll_plan_t *plan, size_t bytes, pcoll__node_shm_t **shm, int *ok);
/* Add a copy of count elements. */
int pcoll__rs_copy(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *src, void *dst,
                   long long count);

#endif
