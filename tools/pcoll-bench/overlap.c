/*
 * --overlap: how much of a plan's run hides behind computation, measured
 * as OSU's overlap figure.  Per size and pcoll algorithm, on a persistent
 * plan whose output is checked first (and after an overlapped run):
 *   pure     start + wait, nothing between;
 *   compute  a compute loop lasting `pure` seconds, alone;
 *   total    start, the same compute loop, wait;
 *   overlap  100 (pure + compute - total) / pure, clamped to [0, 100].
 * Each time is the median over barrier-synchronized repetitions of the
 * maximum over ranks (timing.c).  The compute loop makes no MPI call: in the
 * default progress mode (pcoll_progress=wait) only what the plan's first
 * round started moves during it; with PCOLL_PROGRESS=thread (pcoll-bench
 * then asks MPI for MPI_THREAD_MULTIPLE) pcoll's progress thread advances
 * the plan while the loop runs.  Rank 0 prints one line per point.
 */
#include <math.h>
#include <stdlib.h>

#include "driver.h"

/* Arithmetic, no MPI, for about `seconds` (MPI_Wtime read every 256 steps). */
static void compute(double seconds)
{
    volatile double x = 1.0;
    double end = MPI_Wtime() + seconds;
    do
        for (int i = 0; i < 256; i++)
            x = x * 1.0000001 + 1e-9;
    while (MPI_Wtime() < end);
}

static int compute_run(bench_target_t *t)
{
    compute(t->compute);
    return PCOLL_SUCCESS;
}

static int overlapped_run(bench_target_t *t)
{
    int rc = pcoll_start(t->plan);
    compute(t->compute);
    return rc == PCOLL_SUCCESS ? pcoll_wait(t->plan) : rc;
}

static const bench_method_t compute_only = {.kind = BENCH_ROW_PCOLL, .timed_run = compute_run};
static const bench_method_t overlapped = {
    .kind = BENCH_ROW_PCOLL, .check_run = overlapped_run, .timed_run = overlapped_run};

/* The median of m's timed runs in seconds, on every rank; agreed status. */
static int median(const bench_method_t *m, bench_target_t *t, const bench_opts_t *o,
                  MPI_Comm comm, double *seconds)
{
    double *samples = NULL;
    bench_stats_t st;
    int reps = 0, rank, rc = bench_time_runs(m, t, o, comm, &samples, &reps);
    MPI_Comm_rank(comm, &rank);
    *seconds = NAN;
    if (rank == 0 && rc == PCOLL_SUCCESS) {
        bench_stats_compute(samples, reps, &st);
        *seconds = st.median;
    }
    free(samples);
    MPI_Bcast(seconds, 1, MPI_DOUBLE, 0, comm);
    return rc;
}

/* The three times of one plan (t->plan made and checked); status. */
static int measure_plan(bench_target_t *t, const bench_opts_t *o, MPI_Comm comm,
                        double times[3])
{
    int rc = median(&bench_method_planned, t, o, comm, &times[0]);
    t->compute = times[0];
    if (rc == PCOLL_SUCCESS)
        rc = median(&compute_only, t, o, comm, &times[1]);
    if (rc == PCOLL_SUCCESS)
        rc = median(&overlapped, t, o, comm, &times[2]);
    return rc == PCOLL_SUCCESS ? bench_check(&overlapped, t, comm) : rc;
}

/* One algorithm at one size: a line on rank 0; 1 if it failed. */
static int overlap_point(const bench_run_t *run, bench_case_t *c, const char *algorithm,
                         long size, MPI_Comm comm)
{
    bench_target_t t = {.coll = run->coll, .c = c, .algorithm = algorithm,
                        .req = MPI_REQUEST_NULL, .info = MPI_INFO_NULL};
    double times[3] = {NAN, NAN, NAN}, pct;
    int rank, rc = bench_agree(bench_method_planned.prepare(&t), comm);
    if (rc == PCOLL_SUCCESS)
        rc = bench_check(&bench_method_planned, &t, comm);
    if (rc == PCOLL_SUCCESS)
        rc = measure_plan(&t, &run->opts, comm, times);
    bench_method_planned.release(&t);
    MPI_Comm_rank(comm, &rank);
    pct = 100 * (times[0] + times[1] - times[2]) / times[0];
    pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
    if (rank == 0)
        printf("%-10ld %-18s %10.2f %10.2f %10.2f %8.1f %s\n", size, algorithm, 1e6 * times[0],
               1e6 * times[1], 1e6 * times[2], rc == PCOLL_SUCCESS ? pct : NAN,
               bench_status_name(rc));
    return bench_failed(rc);
}

int bench_overlap_sweep(bench_run_t *run, MPI_Comm comm)
{
    const char *mode = getenv("PCOLL_PROGRESS");
    int i, a, rank, any_failed = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        printf("# pcoll-bench --overlap: %s, %d ranks, %s, progress %s; times in us\n"
               "%-10s %-18s %10s %10s %10s %8s %s\n",
               run->coll->name, run->nprocs, run->mpi, mode ? mode : "wait", "size",
               "algorithm", "pure", "compute", "total", "overlap%", "status");
    for (i = 0; i < run->opts.nsizes; i++) {
        bench_case_t *c = NULL;
        int rc = bench_agree(run->coll->setup(comm, run->opts.sizes[i], run->opts.pattern, &c),
                             comm);
        for (a = 0; rc == PCOLL_SUCCESS && a < run->opts.nalgos; a++)
            any_failed |= overlap_point(run, c, run->opts.algos[a], run->opts.sizes[i], comm);
        any_failed |= rc != PCOLL_SUCCESS;
        run->coll->teardown(c);
    }
    if (rank == 0)
        fflush(stdout);
    return any_failed;
}
