/*
 * pcoll-bench: check, then time pcoll's collective algorithms against the
 * native MPI collective (usage: pcoll-bench --help; docs/benchmarking.md).
 *
 * The measurement is collective; the report is made by rank 0 after
 * MPI_Finalize (see bench.h).
 */
#include "bench.h"

int main(int argc, char **argv)
{
    bench_run_t run;
    int rank, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = bench_measure(argc, argv, MPI_COMM_WORLD, &run);
    MPI_Finalize();
    if (rank == 0 && run.coll && !run.opts.choice) {
        int report = bench_report(&run);
        rc = report > rc ? report : rc;
    }
    bench_run_free(&run);
    return rc;
}
