/*
 * The one driver shared by every collective: for each size, set the
 * collective up, then for each row (native baselines first, then the pcoll
 * algorithms) prepare it, check one run against the native result and, only
 * if it is right, time it.  Rank 0 collects the rows.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

typedef struct row {
    const bench_method_t *m;
    const char *algorithm; /* NULL for native rows */
} row_t;

/* The rows measured at every size, in table order; returns their number. */
static int list_rows(const bench_run_t *run, row_t *rows)
{
    static const bench_method_t *const pcoll_method[] = {
        [BENCH_BLOCKING] = &bench_method_oneshot,
        [BENCH_PERSISTENT] = &bench_method_planned,
        [BENCH_NOCOMM] = &bench_method_nocomm};
    const bench_opts_t *o = &run->opts;
    int n = 0, i;
    if (o->mode != BENCH_NOCOMM)
        rows[n++] = (row_t){&bench_method_native, NULL};
    if (o->native_only)
        return n;
    if (o->mode == BENCH_PERSISTENT && run->coll->native_persistent)
        rows[n++] = (row_t){&bench_method_native_init, NULL};
    for (i = 0; i < o->nalgos; i++)
        rows[n++] = (row_t){pcoll_method[o->mode], o->algos[i]};
    return n;
}

/* "[k/total] alltoall bruck_basic 4096 B" on stderr: one updated line on a
 * terminal, one line each with --progress otherwise; k > total ends it. */
static void progress(const bench_run_t *run, int k, int total, const char *name, long size)
{
    int tty = isatty(STDERR_FILENO);
    if (!tty && !run->opts.progress)
        return;
    if (k > total) /* the end: the terminal's line is cleared */
        fprintf(stderr, "%s", tty ? "\r\033[K" : "");
    else
        fprintf(stderr, "%s[%d/%d] %s %s %ld B%s", tty ? "\r" : "", k, total, run->coll->name,
                name, size, tty ? "\033[K" : "\n");
    fflush(stderr);
}

/* What `auto` runs: the timed plan's choice (persistent and nocomm modes);
 * for one-shot rows, what the second checked call ran; else the choice of a plan
 * made without communicating. */
static void resolve_auto(const row_t *row, bench_target_t *t, char *runs, size_t len)
{
    MPI_Info info;
    pcoll_plan_t *plan = NULL;
    if (t->plan) {
        snprintf(runs, len, "%s", pcoll_plan_algorithm(t->plan));
        return;
    }
    if (row->m == &bench_method_oneshot) {
        snprintf(runs, len, "%s", pcoll__last_run_algorithm);
        return;
    }
    info = bench_make_info(t->algorithm, 1);
    if (t->coll->plan_init(t->c, info, &plan) == PCOLL_SUCCESS)
        snprintf(runs, len, "%s", pcoll_plan_algorithm(plan));
    pcoll_plan_free(&plan);
    MPI_Info_free(&info);
}

/* Rank 0: the timing statistics in microseconds. */
static void summarize(double *samples, int reps, bench_result_t *r)
{
    int i;
    for (i = 0; i < reps; i++)
        samples[i] *= 1e6;
    bench_stats_compute(samples, reps, &r->st);
}

/* Where a row's extra memory is measured from: pcoll's allocations, and the
 * resident size when the peak was reset (-1: not measured). */
typedef struct mark {
    long long pcoll, rss;
} mark_t;

/* The plug-in's word on a native row's extra memory; -1 for pcoll rows. */
static long long native_says(const row_t *row, const bench_target_t *t)
{
    if (row->algorithm || !t->coll->native_extra)
        return -1;
    return t->coll->native_extra(t->c, row->m->kind);
}

static mark_t extra_begin(const row_t *row, const bench_target_t *t)
{
    mark_t m = {pcoll_mem_current(), -1};
    pcoll_mem_reset_peak();
    if (native_says(row, t) == BENCH_EXTRA_MEASURE)
        m.rss = bench_rss_reset();
    return m;
}

/* Rank 0: the row's extra memory per rank, the maximum over ranks.  A pcoll
 * row's is how far pcoll's allocations rose above the mark; a native row's
 * is the plug-in's word, or how far the resident peak rose above it. */
static void extra_end(const row_t *row, const bench_target_t *t, mark_t m, int ok, MPI_Comm comm,
                      bench_result_t *r)
{
    long long extra = row->algorithm ? pcoll_mem_peak() - m.pcoll : native_says(row, t);
    if (extra == BENCH_EXTRA_MEASURE)
        extra = m.rss >= 0 && bench_rss_peak() >= m.rss ? bench_rss_peak() - m.rss : -1;
    if (!ok)
        extra = -1;
    MPI_Reduce(&extra, &r->extra, 1, MPI_LONG_LONG, MPI_MAX, 0, comm);
}

/* Prepare and check one row (*t kept for timing); its status.  The extra
 * memory is measured over the preparation (plan creation) and the checked
 * run. */
static int prepare_row(bench_run_t *run, MPI_Comm comm, const row_t *row, bench_case_t *c,
                       bench_result_t *r, bench_target_t *t)
{
    double init_s;
    mark_t mark;
    int rc;

    *t = (bench_target_t){run->coll, c, row->algorithm, NULL, MPI_REQUEST_NULL, MPI_INFO_NULL,
                          0, 0, NULL};
    mark = extra_begin(row, t);
    rc = bench_time_prepare(row->m, t, comm, &init_s);
    if (rc == PCOLL_SUCCESS && row->m->init_timed)
        r->init_us = init_s * 1e6;
    if (rc == PCOLL_SUCCESS)
        rc = bench_check(row->m, t, comm);
    /* One-shot calls: a call's shape is decided at its second call (the
     * library's src/api/entry.c "Shapes"), which is checked too and runs
     * what the timed calls run. */
    if (rc == PCOLL_SUCCESS && row->m == &bench_method_oneshot)
        rc = bench_check(row->m, t, comm);
    extra_end(row, t, mark, rc == PCOLL_SUCCESS, comm, r);
    if (rc == PCOLL_SUCCESS && strcmp(row->algorithm ? row->algorithm : "", "auto") == 0)
        resolve_auto(row, t, r->runs, sizeof r->runs);
    return rc;
}

/* A one-shot `auto` row whose calls changed plan as they went on (a shape
 * decided again, docs/design.md "Shapes"): the first choice and the last
 * timed call's, "native>hier". */
static void note_ran(const bench_target_t *t, bench_result_t *r)
{
    char first[BENCH_NAME_LEN];
    if (!r->runs[0] || !t->ran || strcmp(t->ran, r->runs) == 0)
        return;
    snprintf(first, sizeof first, "%s", r->runs);
    snprintf(r->runs, sizeof r->runs, "%.*s>%.*s", (int)sizeof first / 2 - 1, first,
             (int)sizeof first / 2 - 1, t->ran);
}

/* Time the rows whose status is PCOLL_SUCCESS: interleaved (default) or
 * one after the other (--sequential); statuses updated, statistics into r. */
static void time_rows(bench_run_t *run, MPI_Comm comm, const row_t *rows, bench_target_t *t,
                      int nrows, int *status, bench_result_t *r)
{
    const bench_method_t *m[BENCH_MAX_ALGOS + 2];
    bench_target_t *tt[BENCH_MAX_ALGOS + 2];
    double *samples[BENCH_MAX_ALGOS + 2];
    int idx[BENCH_MAX_ALGOS + 2], st[BENCH_MAX_ALGOS + 2], n = 0, i, reps = 0, rank;

    MPI_Comm_rank(comm, &rank);
    for (i = 0; i < nrows; i++)
        if (status[i] == PCOLL_SUCCESS) {
            m[n] = rows[i].m;
            tt[n] = &t[i];
            idx[n++] = i;
        }
    if (run->opts.sequential) {
        for (i = 0; i < n; i++) {
            st[i] = bench_time_runs(m[i], tt[i], &run->opts, comm, &samples[i], &reps);
            if (st[i] == PCOLL_SUCCESS && rank == 0)
                summarize(samples[i], reps, &r[idx[i]]);
            note_ran(tt[i], &r[idx[i]]);
            free(samples[i]);
            status[idx[i]] = st[i];
        }
        return;
    }
    bench_time_interleaved(m, tt, n, &run->opts, comm, samples, &reps, st);
    for (i = 0; i < n; i++) {
        if (st[i] == PCOLL_SUCCESS && rank == 0)
            summarize(samples[i], reps, &r[idx[i]]);
        note_ran(tt[i], &r[idx[i]]);
        free(samples[i]);
        status[idx[i]] = st[i];
    }
}

/* A row's result before it is measured: names, sizes, nothing timed. */
static void start_result(const bench_run_t *run, const row_t *row, long size, long long bytes,
                         bench_result_t *r)
{
    const char *name = row->algorithm;
    if (!name)
        name = row->m == &bench_method_native ? run->coll->native : run->coll->native_init;
    memset(r, 0, sizeof *r);
    r->size = size;
    r->bytes = bytes;
    r->kind = row->m->kind;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->init_us = NAN;
    r->extra = -1;
    bench_stats_compute(NULL, 0, &r->st);
}

/* A status that makes the exit status 1: a wrong result or an error other
 * than an algorithm declining the arguments. */
int bench_failed(int status) { return status > 0 || (status < 0 && status != PCOLL_ERR_UNSUPPORTED); }

/* Rank 0, after a pcoll row failed to prepare: why, once per reason (a bad
 * tuning file fails every auto row alike), on stderr and under the table.
 * The library prints nothing itself; the row's result names only the code. */
static void explain(bench_run_t *run, const row_t *row, long size, int status)
{
    char msg[1024], other[64];
    const char *why = bench_agreed_reason();
    if (!row->algorithm || status >= 0 || status == PCOLL_ERR_UNSUPPORTED)
        return;
    if (!why[0]) {
        snprintf(other, sizeof other, "%s on another rank", pcoll_err_name(status));
        why = other;
    }
    if (strstr(run->note, why))
        return;
    snprintf(msg, sizeof msg, "%s at size %ld: %s", row->algorithm, size, why);
    bench_run_note(run, msg);
}

/* After timing: release row i, name its status, keep it (rank 0); 1 if it
 * failed. */
static int finish_row(bench_run_t *run, const row_t *row, bench_target_t *t, int prepared,
                      int status, bench_result_t *r, int rank)
{
    /* The MPI's own row with a wrong result is the MPI's defect, not a
     * failure of pcoll's: said under the table, the exit status untouched. */
    int failed = bench_failed(status) && (row->algorithm || status <= 0);
    if (!row->algorithm && status > 0 && rank == 0) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%s returned a wrong result: a defect of this MPI (docs/troubleshooting.md, "
                 "\"Known MPI defects\"); pcoll's rows do not depend on it",
                 r->name);
        if (!strstr(run->note, msg))
            bench_run_note(run, msg);
    }
    if (prepared)
        row->m->release(t);
    snprintf(r->status, sizeof r->status, "%s",
             prepared ? bench_row_status_name(status, t) : bench_status_name(status));
    /* Every row is kept, failed ones too: the table shows their status. */
    if (rank == 0 && bench_run_add(run, r) != 0)
        failed = 1;
    return failed;
}

/* Every row at one size; 1 if one of them failed.  Interleaved, every row
 * is prepared before the rows are timed together; --sequential, each row
 * is prepared, timed, released and kept before the next (one plan at a
 * time, and each row in the CSV as soon as it is measured). */
static int measure_size(bench_run_t *run, MPI_Comm comm, long size, const row_t *rows,
                        int nrows, int *k, int total)
{
    bench_case_t *c = NULL;
    int rc = bench_agree(run->coll->setup(comm, size, run->opts.pattern, &c), comm);
    long long bytes = rc == PCOLL_SUCCESS ? run->coll->bytes(c) : 0;
    bench_result_t r[BENCH_MAX_ALGOS + 2];
    bench_target_t t[BENCH_MAX_ALGOS + 2];
    int status[BENCH_MAX_ALGOS + 2], prepared[BENCH_MAX_ALGOS + 2];
    int rank, i, any_failed = 0, one_by_one = run->opts.sequential;

    MPI_Comm_rank(comm, &rank);
    for (i = 0; i < nrows; i++) {
        start_result(run, &rows[i], size, bytes, &r[i]);
        if (rank == 0)
            progress(run, ++*k, total, r[i].name, size);
        status[i] = rc;
        prepared[i] = 0;
        if (status[i] == PCOLL_SUCCESS) {
            status[i] = prepare_row(run, comm, &rows[i], c, &r[i], &t[i]);
            prepared[i] = 1;
            if (rank == 0)
                explain(run, &rows[i], size, status[i]);
        }
        if (one_by_one) {
            time_rows(run, comm, &rows[i], &t[i], 1, &status[i], &r[i]);
            any_failed |= finish_row(run, &rows[i], &t[i], prepared[i], status[i], &r[i], rank);
        }
    }
    if (!one_by_one) {
        time_rows(run, comm, rows, t, nrows, status, r);
        for (i = 0; i < nrows; i++)
            any_failed |= finish_row(run, &rows[i], &t[i], prepared[i], status[i], &r[i], rank);
    }
    run->coll->teardown(c);
    return any_failed;
}

/* --choice at one size: the algorithm auto's plan takes (made and freed,
 * never started): a row named auto with the choice as its `runs`, nothing
 * timed, and one line on rank 0; 1 if the case or the plan failed. */
static int choose_size(bench_run_t *run, MPI_Comm comm, long size, int rank)
{
    const bench_method_t *m =
        run->opts.mode == BENCH_NOCOMM ? &bench_method_nocomm : &bench_method_planned;
    const row_t row = {m, "auto"};
    bench_case_t *c = NULL;
    pcoll_plan_t *plan = NULL;
    bench_result_t r;
    MPI_Info info;
    int rc = bench_agree(run->coll->setup(comm, size, run->opts.pattern, &c), comm);
    start_result(run, &row, size, rc == PCOLL_SUCCESS ? run->coll->bytes(c) : 0, &r);
    if (rc == PCOLL_SUCCESS) {
        info = bench_make_info("auto", run->opts.mode == BENCH_NOCOMM);
        rc = bench_agree(run->coll->plan_init(c, info, &plan), comm);
        MPI_Info_free(&info);
    }
    if (rc == PCOLL_SUCCESS)
        snprintf(r.runs, sizeof r.runs, "%s", pcoll_plan_algorithm(plan));
    snprintf(r.status, sizeof r.status, "%s", bench_status_name(rc));
    pcoll_plan_free(&plan);
    run->coll->teardown(c);
    if (rank != 0)
        return bench_failed(rc);
    explain(run, &row, size, rc);
    printf("%-10ld %-16lld %s\n", size, r.bytes, rc == PCOLL_SUCCESS ? r.runs : r.status);
    return bench_failed(rc) || bench_run_add(run, &r) != 0;
}

static int choice_sweep(bench_run_t *run, MPI_Comm comm)
{
    int i, rank, nprocs, any_failed = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    if (rank == 0)
        printf("# pcoll-bench --choice: %s, %d ranks, what auto takes (nothing timed)\n"
               "%-10s %-16s %s\n",
               run->coll->name, nprocs, "size", "bytes/rank", "auto");
    for (i = 0; i < run->opts.nsizes; i++)
        any_failed |= choose_size(run, comm, run->opts.sizes[i], rank);
    if (rank == 0)
        fflush(stdout);
    return any_failed;
}

int bench_sweep(bench_run_t *run, MPI_Comm comm)
{
    row_t rows[BENCH_MAX_ALGOS + 2];
    int nrows, total, i, k = 0, any_failed = 0, rank;
    if (run->opts.choice)
        return choice_sweep(run, comm);
    if (run->opts.overlap)
        return bench_overlap_sweep(run, comm);
    nrows = list_rows(run, rows);
    total = nrows * run->opts.nsizes;
    for (i = 0; i < run->opts.nsizes; i++)
        any_failed |= measure_size(run, comm, run->opts.sizes[i], rows, nrows, &k, total);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        progress(run, total + 1, total, "", 0);
    return any_failed;
}
