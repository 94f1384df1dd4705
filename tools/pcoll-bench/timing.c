/*
 * Timing (DESIGN.md section 5): warm-up calls, then barrier-synchronized
 * repetitions; each rank times each call with MPI_Wtime, and the time of a
 * repetition is the maximum over ranks (one MPI_Reduce after the loop, so
 * that no reduction runs between repetitions).  Without --reps the number
 * of repetitions is what fits in --max-time seconds, estimated from the
 * warm-up, between BENCH_MIN_REPS and BENCH_DEFAULT_REPS.
 */
#include <stdlib.h>

#include "driver.h"

int bench_time_prepare(const bench_method_t *m, bench_target_t *t, MPI_Comm comm,
                       double *seconds)
{
    double t0;
    int rc;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    rc = m->prepare(t);
    *seconds = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    return bench_agree(rc, comm);
}

/* n barrier-synchronized calls; times[i] (if not NULL) the local time of
 * call i; *total their sum.  Status of the first failing call, or 0. */
static int timed_calls(const bench_method_t *m, bench_target_t *t, int n, MPI_Comm comm,
                       double *times, double *total)
{
    int i, rc = m->select ? m->select(t) : PCOLL_SUCCESS, r;
    *total = 0;
    for (i = 0; i < n; i++) {
        double t0;
        MPI_Barrier(comm);
        t0 = MPI_Wtime();
        r = m->timed_run(t);
        t0 = MPI_Wtime() - t0;
        if (m->after)
            m->after(t);
        *total += t0;
        if (times)
            times[i] = t0;
        if (rc == PCOLL_SUCCESS)
            rc = r;
    }
    return rc;
}

/* Repetitions to run after a warm-up whose calls took `estimate` seconds
 * each (the maximum over ranks of the mean; 0 without warm-up). */
static int repetitions(const bench_opts_t *o, double estimate)
{
    double fit;
    if (o->reps > 0)
        return o->reps;
    if (estimate <= 0)
        return BENCH_DEFAULT_REPS;
    fit = o->max_time / estimate;
    return fit < BENCH_MIN_REPS ? BENCH_MIN_REPS
                                : fit > BENCH_DEFAULT_REPS ? BENCH_DEFAULT_REPS : (int)fit;
}

/* One sample of an interleaved row: a barrier, then `batch` calls back to
 * back; *seconds the mean per call. */
static int timed_batch(const bench_method_t *m, bench_target_t *t, int batch, MPI_Comm comm,
                       double *seconds)
{
    int i, rc = m->select ? m->select(t) : PCOLL_SUCCESS, r;
    double t0;
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    for (i = 0; i < batch; i++)
        if ((r = m->timed_run(t)) != PCOLL_SUCCESS && rc == PCOLL_SUCCESS)
            rc = r;
    *seconds = (MPI_Wtime() - t0) / batch;
    if (m->after)
        m->after(t);
    return rc;
}

void bench_time_interleaved(const bench_method_t *const *m, bench_target_t *const *t, int n,
                            const bench_opts_t *o, MPI_Comm comm, double **samples, int *reps,
                            int *status)
{
    double total = 0, one, *local = NULL, *warm, est[BENCH_MAX_ROWS];
    size_t nrep;
    int rank, i, k, rc = PCOLL_SUCCESS, batch[BENCH_MAX_ROWS];

    MPI_Comm_rank(comm, &rank);
    /* A row's estimate is its fastest warm-up call: its first calls may
     * make a context, plan or decide a shape (tens of microseconds or
     * more), which would size its batches at one call, each then timed
     * with the barrier before it. */
    warm = malloc(sizeof *warm * (size_t)(o->warmup > 0 ? o->warmup : 1));
    for (i = 0; i < n; i++) {
        samples[i] = NULL;
        status[i] = timed_calls(m[i], t[i], o->warmup, comm, warm, &one);
        est[i] = 0;
        for (k = 0; warm && k < o->warmup; k++)
            est[i] = k == 0 || warm[k] < est[i] ? warm[k] : est[i];
        if (!warm)
            est[i] = o->warmup > 0 ? one / o->warmup : 0;
    }
    free(warm);
    MPI_Allreduce(MPI_IN_PLACE, est, n, MPI_DOUBLE, MPI_MAX, comm);
    /* A sample of a fast row is the mean of a batch of calls lasting about
     * BENCH_BATCH_SECONDS (the barrier before it, and a row that changes the
     * environment before its turn, then weigh little). */
    for (i = 0; i < n; i++) {
        batch[i] = est[i] > 0 && est[i] < BENCH_BATCH_SECONDS
                       ? (int)(BENCH_BATCH_SECONDS / est[i]) : 1;
        batch[i] = batch[i] > BENCH_MAX_BATCH ? BENCH_MAX_BATCH : batch[i];
        total += est[i] * batch[i];
    }
    *reps = repetitions(o, total);
    nrep = *reps > 0 ? (size_t)*reps : 1;
    local = malloc(sizeof *local * nrep * (size_t)(n > 0 ? n : 1));
    for (i = 0; rank == 0 && i < n; i++)
        if (!(samples[i] = malloc(sizeof **samples * nrep)))
            rc = PCOLL_ERR_NOMEM;
    if (!local)
        rc = PCOLL_ERR_NOMEM;
    if ((rc = bench_agree(rc, comm)) != PCOLL_SUCCESS) {
        for (i = 0; i < n; i++)
            status[i] = rc;
        free(local);
        return;
    }
    for (k = 0; k < *reps; k++)
        for (i = 0; i < n; i++) {
            int r = timed_batch(m[i], t[i], batch[i], comm, &local[(size_t)i * *reps + k]);
            if (status[i] == PCOLL_SUCCESS)
                status[i] = r;
        }
    for (i = 0; i < n; i++) {
        MPI_Reduce(&local[(size_t)i * *reps], samples[i], *reps, MPI_DOUBLE, MPI_MAX, 0, comm);
        status[i] = bench_agree(status[i], comm);
    }
    free(local);
}

int bench_time_runs(const bench_method_t *m, bench_target_t *t, const bench_opts_t *o,
                    MPI_Comm comm, double **samples, int *reps)
{
    double total, *local;
    int rank, rc;

    MPI_Comm_rank(comm, &rank);
    *samples = NULL;
    rc = timed_calls(m, t, o->warmup, comm, NULL, &total);
    total = o->warmup > 0 ? total / o->warmup : 0;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_MAX, comm);
    *reps = repetitions(o, total);
    local = malloc(sizeof *local * (size_t)*reps);
    if (rank == 0)
        *samples = malloc(sizeof **samples * (size_t)*reps);
    if (rc == PCOLL_SUCCESS && (!local || (rank == 0 && !*samples)))
        rc = PCOLL_ERR_NOMEM;
    rc = bench_agree(rc, comm);
    if (rc == PCOLL_SUCCESS) {
        rc = timed_calls(m, t, *reps, comm, local, &total);
        MPI_Reduce(local, *samples, *reps, MPI_DOUBLE, MPI_MAX, 0, comm);
        rc = bench_agree(rc, comm);
    }
    free(local);
    return rc;
}
