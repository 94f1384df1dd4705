/*
 * The table on stdout (rank 0): per size, the native baselines and then
 * every algorithm, with median, mean, confidence interval, the speed-up
 * against the MPI call measured in the same run, a * on the fastest, and the
 * peak extra memory where some row knows it.
 */
#include <math.h>
#include <string.h>

#include "bench.h"

double bench_kind_median(const bench_run_t *run, long size, bench_kind_t kind)
{
    int i;
    for (i = 0; i < run->nrows; i++)
        if (run->rows[i].size == size && run->rows[i].kind == kind)
            return run->rows[i].st.median;
    return NAN;
}

/* Index of the row with the lowest median at size, or -1. */
static int fastest(const bench_run_t *run, long size)
{
    int i, best = -1;
    for (i = 0; i < run->nrows; i++) {
        const bench_result_t *r = &run->rows[i];
        if (r->size == size && r->st.kept > 0 &&
            (best < 0 || r->st.median < run->rows[best].st.median))
            best = i;
    }
    return best;
}

/* A number, or "-" when there is none (NAN). */
static void number(FILE *out, int width, int prec, double v)
{
    if (isnan(v))
        fprintf(out, " %*s", width, "-");
    else
        fprintf(out, " %*.*f", width, prec, v);
}

/* Which optional columns the table has. */
typedef struct columns {
    int speedup; /* a native baseline exists (not nocomm) */
    int vs_init; /* an MPI-4 *_init row exists */
    int init;    /* plan creation times (persistent mode) */
    int extra;   /* some row knows its extra memory */
} columns_t;

void bench_format_bytes(char *buf, size_t len, long long bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = -1;
    if (bytes < 0) {
        snprintf(buf, len, "-");
        return;
    }
    while (v >= 1024 && u < 3)
        v /= 1024, u++;
    if (u < 0)
        snprintf(buf, len, "%lld B", bytes);
    else
        snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* " 1.5 MiB   2.3%": the extra memory and its share of the bytes sent per
 * rank; " n/a" when not known. */
static void print_extra(FILE *out, const bench_result_t *r)
{
    char b[32], pct[16] = "-";
    double share = r->bytes > 0 ? 100.0 * (double)r->extra / (double)r->bytes : NAN;
    if (r->extra < 0) {
        fprintf(out, " %16s", "n/a");
        return;
    }
    bench_format_bytes(b, sizeof b, r->extra);
    if (!isnan(share))
        snprintf(pct, sizeof pct, share >= 10 ? "%.0f%%" : share >= 1 ? "%.1f%%" : "%.2f%%",
                 share);
    fprintf(out, " %10s %5s", b, pct);
}

static void print_header(FILE *out, const bench_run_t *run, columns_t c)
{
    const char *base = run->coll->native;
    fprintf(out, "# pcoll-bench %s, mode %s, %d ranks, %s\n", run->coll->name,
            bench_mode_name(run->opts.mode), run->nprocs, run->mpi);
    if (run->oversub[0])
        fprintf(out, "# %s\n", run->oversub);
    fprintf(out, "# us per call; per repetition the maximum over ranks; after Tukey's filter: "
                 "median, mean, ci95 = half-width\n# of the 95%% confidence interval of the "
                 "mean (Student t)\n");
    if (c.speedup)
        fprintf(out, "# speedup = %s median / median (>1: faster than %s)%s\n", base, base,
                c.vs_init ? "; vs_init: the same against the *_init row" : "");
    else
        fprintf(out, "# time = plan creation + destruction with pcoll_no_comm=1 (no "
                     "communication); no native baseline\n");
    if (c.extra)
        fprintf(out, "# extra = peak extra memory per rank (maximum over ranks) and its share of "
                     "bytes per rank: pcoll\n# rows: pcoll_mem_peak growth over plan creation + "
                     "one run; native rows: the second\n# buffer the caller must hold, or the "
                     "growth of the resident peak over the call (memory\n# inside the MPI); "
                     "n/a: not known\n");
    fprintf(out, "# * = fastest at this size\n\n%10s   %-30s %10s %10s %8s", "bytes",
            "algorithm", "median", "mean", "ci95");
    if (c.speedup)
        fprintf(out, " %8s", "speedup");
    if (c.vs_init)
        fprintf(out, " %8s", "vs_init");
    fprintf(out, " %9s%s", "kept/reps", c.init ? "    init_us" : "");
    fprintf(out, "%s  %s\n", c.extra ? "            extra" : "", "result");
}

static void print_row(FILE *out, const bench_run_t *run, const bench_result_t *r, int best,
                      columns_t c)
{
    char name[2 * BENCH_NAME_LEN + 2], kept[32];
    snprintf(name, sizeof name, "%s%s%s", r->name, r->runs[0] ? "=" : "", r->runs);
    snprintf(kept, sizeof kept, "%d/%d", r->st.kept, r->st.n);
    fprintf(out, "%10ld %c %-30s", r->size, best ? '*' : ' ', name);
    number(out, 10, 2, r->st.median);
    number(out, 10, 2, r->st.mean);
    number(out, 8, 2, r->st.ci95);
    if (c.speedup)
        number(out, 8, 2, bench_kind_median(run, r->size, BENCH_ROW_NATIVE) / r->st.median);
    if (c.vs_init)
        number(out, 8, 2, bench_kind_median(run, r->size, BENCH_ROW_NATIVE_PERSISTENT) /
                              r->st.median);
    fprintf(out, " %9s", r->st.n ? kept : "-");
    if (c.init)
        number(out, 10, 1, r->init_us);
    if (c.extra)
        print_extra(out, r);
    fprintf(out, "  %s\n", r->status);
}

void bench_print_table(FILE *out, const bench_run_t *run)
{
    columns_t c = {run->opts.mode != BENCH_NOCOMM, 0, run->opts.mode == BENCH_PERSISTENT, 0};
    int i, k, j;
    for (i = 0; i < run->nrows; i++) {
        c.vs_init |= run->rows[i].kind == BENCH_ROW_NATIVE_PERSISTENT;
        c.extra |= run->rows[i].extra >= 0;
    }
    print_header(out, run, c);
    for (i = 0; i < run->opts.nsizes; i++) {
        long size = run->opts.sizes[i];
        int best = fastest(run, size);
        for (k = 0; k < BENCH_ROW_KINDS; k++)
            for (j = 0; j < run->nrows; j++)
                if (run->rows[j].size == size && run->rows[j].kind == (bench_kind_t)k)
                    print_row(out, run, &run->rows[j], j == best, c);
        fputc('\n', out);
    }
    if (run->note[0])
        fprintf(out, "%s\n", run->note);
    fflush(out);
}
