/*
 * pcoll-bench: check, then time pcoll's collective algorithms against the
 * native MPI collective (usage: pcoll-bench --help; docs/benchmarking.md).
 *
 * The measurement is collective; the report is made by rank 0 after
 * MPI_Finalize (see bench.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int main(int argc, char **argv)
{
    bench_run_t run;
    int rank, rc;

    const char *progress = getenv("PCOLL_PROGRESS");
    int provided;

    /* pcoll's progress thread calls MPI: it needs MPI_THREAD_MULTIPLE. */
    if (progress && strcmp(progress, "thread") == 0)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = bench_measure(argc, argv, MPI_COMM_WORLD, &run);
    MPI_Finalize();
    if (rank == 0 && run.coll && !run.opts.choice && !run.opts.overlap) {
        int report = bench_report(&run);
        rc = report > rc ? report : rc;
    }
    bench_run_free(&run);
    /* The exit status is rank 0's, which knows the whole run: a launcher
     * that aborts the job when one process exits with an error (Open MPI's
     * mpiexec) would otherwise cut rank 0's report short. */
    return rank == 0 ? rc : 0;
}
