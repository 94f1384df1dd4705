/*
 * bench_measure: options, environment and MPI description, then the sweep
 * (driver.c), whose rows run.c keeps for the report.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* Options, the collective and its algorithms; 0 or -1 with a message. */
static int resolve_options(int argc, char **argv, bench_run_t *run, char *err, size_t len)
{
    bench_opts_t *o = &run->opts;
    if (bench_options_parse(argc, argv, o, err, len) || o->help)
        return o->help ? 0 : -1;
    run->coll = o->gpu ? bench_coll_gpu_find(o->coll) : bench_coll_find(o->coll);
    if (!run->coll && o->gpu) {
        snprintf(err, len, "--gpu --coll %s: %s", o->coll,
                 bench_coll_gpu_find("alltoall") ? "alltoall and reduce_scatter_block only"
                                                 : "this pcoll-bench was built without CUDA");
        return -1;
    }
    if (!run->coll) {
        snprintf(err, len, "--coll %s: not available yet in this pcoll", o->coll);
        return -1;
    }
    if (o->pattern != BENCH_UNIFORM &&
        run->coll->patterns != (o->pattern >= BENCH_STENCIL2D ? BENCH_PATTERNS_NEIGHBORS
                                                              : BENCH_PATTERNS_SIZES)) {
        snprintf(err, len,
                 "--pattern %s: not a pattern of %s (random ... shifting: alltoallv; stencil2d, "
                 "stencil27, randomk: neighbor_alltoallv and neighbor_alltoallv_inplace; "
                 "spmv: neighbor_alltoallv)",
                 bench_pattern_name(o->pattern), o->coll);
        return -1;
    }
    if (o->pattern == BENCH_SPMV && strcmp(o->coll, "neighbor_alltoallv") != 0) {
        snprintf(err, len, "--pattern spmv: neighbor_alltoallv only");
        return -1;
    }
    if (o->pattern == BENCH_SHIFTING && strcmp(o->coll, "alltoallv") != 0) {
        snprintf(err, len, "--pattern shifting: alltoallv only");
        return -1;
    }
    return bench_options_algorithms(o, err, len);
}

/* The row decides the algorithm: variables that would override it go. */
static void clean_environment(const bench_run_t *run, int rank)
{
    const char *vars[] = {run->coll->env_algorithm, "PCOLL_ALGORITHM", "PCOLL_NO_COMM"};
    size_t i;
    for (i = 0; i < sizeof vars / sizeof *vars; i++) {
        if (getenv(vars[i]) && rank == 0)
            fprintf(stderr, "pcoll-bench: ignoring %s (each row sets the algorithm)\n", vars[i]);
        unsetenv(vars[i]);
    }
}

/* MPI_Get_library_version up to its first line end or comma ("MPICH
 * Version: 5.0.2", "Open MPI v5.0.11"), spaces squeezed. */
static void describe_mpi(bench_run_t *run)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, i, n = 0;
    MPI_Get_library_version(version, &len);
    for (i = 0; i < len && version[i] != '\0' && !strchr("\n,", version[i]); i++) {
        char ch = isspace((unsigned char)version[i]) ? ' ' : version[i];
        if (ch == ' ' && (n == 0 || run->mpi[n - 1] == ' '))
            continue;
        if (n + 1 >= (int)sizeof run->mpi)
            break;
        run->mpi[n++] = ch;
    }
    run->mpi[n > 0 && run->mpi[n - 1] == ' ' ? n - 1 : n] = '\0';
}

int bench_measure(int argc, char **argv, MPI_Comm comm, bench_run_t *run)
{
    char err[1024];
    MPI_Comm dup;
    int rank, rc;

    memset(run, 0, sizeof *run);
    MPI_Comm_rank(comm, &rank);
    if (resolve_options(argc, argv, run, err, sizeof err)) {
        if (rank == 0) {
            fprintf(stderr, "pcoll-bench: %s\n\n", err);
            bench_usage(stderr);
        }
        run->coll = NULL;
        return 2;
    }
    if (run->opts.help) {
        if (rank == 0)
            bench_usage(stdout);
        run->coll = NULL;
        return 0;
    }
    run->argv0 = argv[0];
    clean_environment(run, rank);
    describe_mpi(run);
    MPI_Comm_size(comm, &run->nprocs);
    /* Said once, by the run that prints the table (not by --choice, which
     * times nothing, nor by --native-sweep's relaunches). */
    if (!run->opts.choice && !run->opts.native_only &&
        bench_oversubscribed(comm, run->oversub, sizeof run->oversub) && rank == 0)
        fprintf(stderr, "pcoll-bench: %s\n", run->oversub);
    /* Rows go to the CSV as they are measured, so that a run cut short
     * keeps them; bench_report writes the whole file again at the end. */
    if (rank == 0 && run->opts.csv && !run->opts.choice && !run->opts.overlap &&
        bench_csv_open(run, run->opts.csv) != 0)
        fprintf(stderr, "pcoll-bench: cannot write %s\n", run->opts.csv);
    /* The one-shot plan cache of a private communicator is freed with it. */
    MPI_Comm_dup(comm, &dup);
    rc = bench_sweep(run, dup);
    MPI_Comm_free(&dup);
    return rc;
}
