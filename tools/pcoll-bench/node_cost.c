/*
 * The node's terms of the cost model (node_cost.h), from a persistent
 * `hier` alltoall on the node's ranks, the one-node plan they price: at
 * 1 byte per peer its time is its node barrier (one a run: its segment in
 * two copies that runs take in turn), and what it grows by
 * up to LONG bytes per peer is its typed copies into the shared segment
 * and out of it (2 m bytes per byte of a block).
 */
#include <stdlib.h>

#include "node_cost.h"
#include "pcoll.h"
#include "stats.h"

#define LONG 1024 /* bytes per peer: near hier's crossings with the flat algorithms */
#define BATCH 10  /* runs per timed repetition */

/* The median of t[0..n) after Tukey's filter, n >= 1 (sorted in place). */
static double median(double *t, int n)
{
    bench_stats_t st;
    bench_stats_compute(t, n, &st);
    return st.median;
}

/* Median s of a persistent hier alltoall of n bytes per peer on node (m
 * ranks); -1 when it cannot be planned. */
static double hier_time(MPI_Comm node, int m, int n, int reps, double *t)
{
    char *s = calloc((size_t)m * n, 2), *r = s ? s + (size_t)m * n : NULL;
    pcoll_plan_t *plan = NULL;
    MPI_Info info;
    double v = -1;
    int i, k, ok;
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", "hier");
    ok = pcoll_alltoall_init(s, s ? n : -1, MPI_BYTE, r, n, MPI_BYTE, node, info, &plan) ==
         PCOLL_SUCCESS;
    MPI_Info_free(&info);
    for (i = 0; ok && i < reps + 1; i++) {
        double t0;
        MPI_Barrier(node);
        t0 = MPI_Wtime();
        for (k = 0; k < BATCH; k++)
            if (pcoll_start(plan) == PCOLL_SUCCESS)
                pcoll_wait(plan);
        if (i > 0) /* the first batch warms up */
            t[i - 1] = (MPI_Wtime() - t0) / BATCH;
    }
    if (ok)
        v = median(t, reps);
    pcoll_plan_free(&plan);
    free(s);
    return v;
}

void bench_node_cost(MPI_Comm comm, int reps, double *barrier, double *shm)
{
    double *t = malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1)), v[2] = {0, 0};
    MPI_Comm node;
    int m;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &m);
    if (t && reps > 0 && m > 1) {
        double one = hier_time(node, m, 1, reps, t), cut = hier_time(node, m, LONG, reps, t);
        if (one > 0 && cut > 0) {
            v[0] = one / m;
            v[1] = cut > one ? (cut - one) / (2.0 * m * (LONG - 1)) : 0.0;
        }
    }
    MPI_Comm_free(&node);
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm);
    *barrier = v[0], *shm = v[1];
    free(t);
}
