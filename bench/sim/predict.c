/*
 * pcoll's cost model's predictions next to the simulated times of make
 * sim-scale (bench/sim/growth_plot.py draws both): for each P and size, the
 * predicted time of every alltoall and reduce_scatter_block algorithm the
 * model prices, as src/select prices them for `auto`, with the parameters
 * `auto` uses in the simulation (pcoll__cost_params: the defaults, or
 * PCOLL_COST_* from the environment).  Built with smpicc against the library's
 * internals (bench/sim/build.mk, SIM_PROGRAM=bench/sim/predict.c), run on one
 * simulated rank:
 *
 *   smpirun -np 1 ... build/sim-predict/pcoll-bench P[,P...] SIZE[,SIZE...]
 *
 * prints CSV: coll,algorithm,nprocs,size,predicted_us (size as pcoll-bench's:
 * alltoall bytes per block; reduce_scatter_block bytes of one rank's block).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "model/cost.h"

static void row(const char *coll, const char *algo, int p, long long n, double s)
{
    printf("%s,%s,%d,%lld,%.4f\n", coll, algo, p, n, s * 1e6);
}

static void predict(int p, long long n)
{
    pcoll__cost_t c = pcoll__cost_for(1, 1, 1); /* a persistent plan made together */
    double total = (double)n * p;                /* reduce_scatter_block: the whole vector */
    row("alltoall", "bruck_basic", p, n, pcoll__cost_bruck(&c, p, n, 2));
    row("alltoall", "bruck_modified", p, n, pcoll__cost_bruck_modified(&c, p, n));
    row("alltoall", "bruck_zerocopy", p, n, pcoll__cost_bruck_zerocopy(&c, p, n));
    row("alltoall", "bruck_radix", p, n, pcoll__cost_bruck(&c, p, n, pcoll__cost_best_radix(&c, p, n)));
    row("alltoall", "scattered", p, n, pcoll__cost_direct(&c, p, n));
    row("alltoall", "native", p, n, pcoll__cost_native_alltoall(&c, p, n));
    row("reduce_scatter_block", "recursive_halving", p, n, pcoll__cost_rs_halving(&c, p, total));
    row("reduce_scatter_block", "circulant", p, n,
        pcoll__cost_rs_circulant(&c, p, total, pcoll__cost_rs_circulant_radix(&c, p, total)));
    row("reduce_scatter_block", "native", p, n, pcoll__cost_native_rs(&c, p, total));
}

int main(int argc, char **argv)
{
    char *ps, *ns, *p, *n, *save1, *save2;
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: %s P[,P...] SIZE[,SIZE...]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    printf("coll,algorithm,nprocs,size,predicted_us\n");
    ps = strdup(argv[1]);
    for (p = strtok_r(ps, ",", &save1); p; p = strtok_r(NULL, ",", &save1)) {
        ns = strdup(argv[2]);
        for (n = strtok_r(ns, ",", &save2); n; n = strtok_r(NULL, ",", &save2))
            predict(atoi(p), atoll(n));
        free(ns);
    }
    free(ps);
    MPI_Finalize();
    return 0;
}
