/*
 * Nodes: which ranks of a communicator share memory (multicore all-to-all
 * paper, sections II-A and IV-A), and the node-level shared segment and
 * barrier that node-aware algorithms use.
 *
 * Topology (node.c).  MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) finds the
 * physical nodes; with pcoll_cores_per_node = c each of them is cut into
 * virtual nodes of c ranks in communicator order (the last one possibly
 * smaller), so one machine can stand for many nodes.  Nodes are numbered by
 * their smallest rank; the members of a node are listed in communicator order
 * and a rank's local index is its position there.  Topologies are cached per
 * communicator context and value of c (collective to make, free to look up;
 * like the rest of a context, used by one thread at a time: no lock).
 *
 * Segment and barrier (node_shm.c).  One zero-filled MPI_Win_allocate_shared
 * segment per plan and node, made at init and reused by every run.  The node
 * barrier is a poll op (pcoll__sched_poll): a counter at the head of the
 * window that only grows (each rank's k-th arrival waits for k * nlocal arrivals), C11
 * atomics with MPI_Win_sync around them; pcoll_wait yields between polls after its first PCOLL__LOOKS (64), so
 * it is correct on oversubscribed cores (under SimGrid SMPI a waiting rank
 * lets simulated time pass instead).  Where C11 atomics are not lock-free,
 * or with PCOLL_HIER_BARRIER=mpi, the barrier is an MPI_Ibarrier on a node
 * communicator of the plan's own.
 */
#ifndef PCOLL_CORE_NODE_H
#define PCOLL_CORE_NODE_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/plan.h"
#include "core/schedule.h"

typedef struct pcoll__node {
    int cores;            /* the pcoll_cores_per_node it was made for (0: physical) */
    int p;                /* ranks in the communicator */
    int nnodes;           /* N */
    int node, local;      /* this rank's node and its index there */
    int *node_of;         /* [p] node of every rank */
    int *local_of;        /* [p] local index of every rank */
    int *first;           /* [N+1] members of node k: members[first[k] .. first[k+1]) */
    int *members;         /* [p] ranks grouped by node, in communicator order */
    int maxlocal;         /* ranks of the largest node */
    MPI_Comm comm;        /* this rank's node, ranked by local index */
    struct pcoll__node *next; /* the context's cache */
} pcoll__node_t;

/* Ranks of node k. */
static inline int pcoll__node_size(const pcoll__node_t *t, int k)
{
    return t->first[k + 1] - t->first[k];
}

/* The topology of ctx's communicator for cores ranks per node (0: physical
 * nodes).  Collective over ctx->dup the first time for a value of cores;
 * cached.  Every rank must pass the same cores (callers agree on it first:
 * a rank that finds it cached must not skip a collective the others make). */
int pcoll__node_get(pcoll__ctx_t *ctx, int cores, const pcoll__node_t **node);

/* A plan kept for any sizes on one node (alltoallv `hier`'s, neighbour
 * `node`'s) gives every block it bundles a slot of its own in each of two
 * copies: it bundles blocks of up to PCOLL__NODE_PIECE_MAX bytes while one
 * copy of `blocks` slots stays within PCOLL__NODE_SLOTS_MAX bytes.  The
 * largest such block, a multiple of 64 bytes (0: none). */
#define PCOLL__NODE_PIECE_MAX 16384
#define PCOLL__NODE_SLOTS_MAX ((long long)2 << 20)
long long pcoll__node_piece(long long blocks);
/* Free ctx's cached topologies (from pcoll__ctx_release). */
void pcoll__node_cache_free(pcoll__ctx_t *ctx);

/* A plan's node-level resources; freed with the plan. */
typedef struct pcoll__node_shm {
    int nlocal;
    int shared;           /* 1: a shared window; 0: private memory (one-rank node) */
    int mpi_barrier;      /* barrier by MPI_Ibarrier on comm */
    MPI_Comm comm;        /* mpi_barrier: the plan's own duplicate of the node */
    MPI_Win win;
    void *ctl;            /* the shared arrival counter (the window's first bytes) */
    char *seg;            /* the segment (after the counter), zero-filled */
    size_t bytes;         /* of the segment */
    long long arrivals;   /* this rank's arrivals so far */
    long long runs;       /* runs begun (pcoll__node_run_begin) */
    MPI_Request req;      /* the MPI barrier in flight */
    atomic_llong own_signal[2]; /* the signal on a node of one rank */
} pcoll__node_shm_t;

/* The plan's segment of bytes on t's node and its barrier, freed with the
 * plan (or by pcoll__node_shm_drop).  Collective over the node.  *ok = 0 (and
 * PCOLL_SUCCESS) when the node's MPI cannot allocate the shared window, or
 * the environment variable PCOLL_HIER_SHM=0 says not to (tests use it).  The
 * local rank 0 zeroes the segment and counts it in pcoll_mem_current: a
 * collective over the node (pcoll__node_shm_ready) must follow before use. */
int pcoll__node_shm_create(pcoll_plan_t *plan, const pcoll__node_t *t, size_t bytes,
                           pcoll__node_shm_t **shm, int *ok);
/* Whether every rank of comm (a superset of the node) got a segment: one MIN
 * reduction over comm, which also publishes the zeroed segment. */
int pcoll__node_shm_ready(MPI_Comm comm, pcoll__node_shm_t *shm, int *all_ok);
/* Free the window now (collective over the node). */
void pcoll__node_shm_drop(pcoll__node_shm_t *shm);

/* Poll ops for the node barrier: arrive and wait; arrive only (a split
 * barrier whose wait comes later); wait for the last arrival only. */
pcoll__poll_t pcoll__node_barrier(pcoll__node_shm_t *shm);
pcoll__poll_t pcoll__node_barrier_arrive(pcoll__node_shm_t *shm);
pcoll__poll_t pcoll__node_barrier_wait(pcoll__node_shm_t *shm);
/* The node barrier for an engine that polls it itself: arrive once
 * (*waiting set until passed), then poll; 1 when passed (at once on a node
 * of one rank, and with arrive_only, after arriving). */
int pcoll__node_barrier_step(pcoll__node_shm_t *shm, int *waiting, int arrive_only);

/* The node's signal, for engines that meet at one node barrier a run: a
 * rank raises it in a run before that run's barrier, and after the barrier
 * every rank reads whether some rank raised it in this run, the same answer
 * everywhere.  Runs take two counters in turn (run & 1, in the barrier's
 * cache line): a counter is raised again two runs later, after the raiser
 * passed the barrier in between, so after every rank read it.  seen: this
 * rank's last values; every run reads.  Not carried with the MPI's barrier
 * (PCOLL_HIER_BARRIER=mpi): no rank ever reads it raised. */
void pcoll__node_raise(pcoll__node_shm_t *shm, long long run);
int pcoll__node_raised(pcoll__node_shm_t *shm, long long run, long long seen[2]);

/* Flags: counters in the segment (at seg + off, a cache line each, zero at
 * first) that only grow, for hand-offs between two ranks of the node
 * without a barrier (reduce_scatter node_ring).  A flag's value in the
 * current run is at plus per_run for every earlier run of the plan: the
 * shm's runs counts them.  pcoll__node_flag's poll ops: RUN_BEGIN advances
 * runs (first in a schedule; only flag->shm is read, and kept), SET stores
 * the flag's value (release, after MPI_Win_sync), WAIT polls until the
 * counter has reached it (acquire, then MPI_Win_sync).  For SET and WAIT
 * the structure must live as long as the plan (pcoll__plan_alloc). */
typedef struct pcoll__node_flag {
    pcoll__node_shm_t *shm;
    size_t off;
    long long per_run, at;
} pcoll__node_flag_t;

typedef enum pcoll__node_flag_op {
    PCOLL__FLAG_RUN_BEGIN,
    PCOLL__FLAG_SET,
    PCOLL__FLAG_WAIT
} pcoll__node_flag_op_t;

pcoll__poll_t pcoll__node_flag(pcoll__node_flag_t *flag, pcoll__node_flag_op_t op);

#endif
