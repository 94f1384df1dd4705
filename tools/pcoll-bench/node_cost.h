/*
 * The node's terms of pcoll's cost model (src/model/cost.h), measured on
 * this machine and MPI for pcoll-probe and pcoll-tune: PCOLL_COST_BARRIER
 * and PCOLL_COST_SHM, which price the one-node plans (alltoall and
 * alltoallv `hier` on one node, reduce_scatter node_direct and node_ring).
 */
#ifndef PCOLL_BENCH_NODE_COST_H
#define PCOLL_BENCH_NODE_COST_H

#include <mpi.h>

/* On every shared-memory node of comm, from a persistent `hier` alltoall
 * on the node's m ranks (median times after Tukey's filter): *barrier, s
 * per rank of one node barrier as pcoll's one-node plans pay it (at 1 byte
 * per peer hier's run is its one barrier: its time over m), and *shm, s per byte of
 * its typed copies through the shared segment (what its time grows by from
 * 1 byte to 1 KiB per peer, over the 2 m bytes copied per byte of a block;
 * 0 when it does not grow).  The largest over the nodes; 0 and 0 when no
 * node has two ranks or hier cannot be planned.  Collective over comm;
 * reps: timed repetitions of each size. */
void bench_node_cost(MPI_Comm comm, int reps, double *barrier, double *shm);

#endif
