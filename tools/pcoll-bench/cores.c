/*
 * Ranks against cores (bench.h): a node that runs more ranks than it has
 * cores for them times the operating system's scheduler, not the
 * collective.  A node's cores are the union of its ranks' CPU affinity
 * masks: what the launcher, the binding and the container let them run on.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

#include "bench.h"

int bench_oversubscribed(MPI_Comm comm, char *line, size_t len)
{
#ifdef SMPI_H
    /* Simulated ranks share the host's cores by design. */
    (void)comm, (void)len;
    line[0] = '\0';
    return 0;
#else
    cpu_set_t mine, node_cpus;
    MPI_Comm node;
    int ranks, cores, worst[2], at[2];

    line[0] = '\0';
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine); /* unknown: no verdict on this node */
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks);
    MPI_Allreduce(&mine, &node_cpus, (int)sizeof mine, MPI_BYTE, MPI_BOR, node);
    MPI_Comm_free(&node);
    cores = CPU_COUNT(&node_cpus);
    /* The most crowded node: the largest excess of ranks, and where it is. */
    worst[0] = cores > 0 && ranks > cores ? ranks - cores : 0;
    MPI_Comm_rank(comm, &worst[1]);
    MPI_Allreduce(MPI_IN_PLACE, worst, 1, MPI_2INT, MPI_MAXLOC, comm);
    if (worst[0] == 0)
        return 0;
    at[0] = ranks, at[1] = cores;
    MPI_Bcast(at, 2, MPI_INT, worst[1], comm);
    snprintf(line, len, "oversubscribed: %d ranks on %d cores; times are not meaningful", at[0],
             at[1]);
    return 1;
#endif
}
