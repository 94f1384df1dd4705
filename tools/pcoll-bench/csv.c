/*
 * CSV output, one line per row (the input of tools/pcoll-plot.py), and the
 * reader that merges the rows of a relaunched native run (--native-sweep).
 * Empty fields are "no value" (not timed, no plan, no baseline, extra memory
 * not known).  New columns go at the end, so readers that take columns by
 * position or by name keep reading older files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum {
    C_COLL, C_MODE, C_NPROCS, C_SIZE, C_BYTES, C_ALGORITHM, C_KIND, C_RUNS, C_RESULT,
    C_MEDIAN, C_MEAN, C_CI95, C_MIN, C_MAX, C_REPS, C_KEPT, C_INIT, C_SPEEDUP, C_EXTRA, NCOLUMNS
};

static const char header[] = "coll,mode,nprocs,size,bytes_per_rank,algorithm,kind,runs,"
                             "result,median_us,mean_us,ci95_us,min_us,max_us,reps,kept,"
                             "init_us,speedup,peak_extra_bytes";

/* ",value" or "," when v is NAN. */
static void field(FILE *f, double v)
{
    if (isnan(v))
        fputc(',', f);
    else
        fprintf(f, ",%.4f", v);
}

static void write_row(FILE *f, const bench_run_t *run, const bench_result_t *r)
{
    fprintf(f, "%s,%s,%d,%ld,%lld,%s,%s,%s,%s", run->coll->name,
            bench_mode_name(run->opts.mode), run->nprocs, r->size, r->bytes, r->name,
            bench_kind_name(r->kind), r->runs, r->status);
    field(f, r->st.median);
    field(f, r->st.mean);
    field(f, r->st.ci95);
    field(f, r->st.min);
    field(f, r->st.max);
    fprintf(f, ",%d,%d", r->st.n, r->st.kept);
    field(f, r->init_us);
    field(f, bench_kind_median(run, r->size, BENCH_ROW_NATIVE) / r->st.median);
    if (r->extra >= 0)
        fprintf(f, ",%lld", r->extra);
    else
        fputc(',', f);
    fputc('\n', f);
}

int bench_write_csv(const char *path, const bench_run_t *run)
{
    FILE *f = fopen(path, "w");
    int i;
    if (!f)
        return -1;
    fprintf(f, "%s\n", header);
    for (i = 0; i < run->nrows; i++)
        write_row(f, run, &run->rows[i]);
    return fclose(f) == 0 ? 0 : -1;
}

int bench_csv_open(bench_run_t *run, const char *path)
{
    run->csv_stream = fopen(path, "w");
    if (!run->csv_stream)
        return -1;
    fprintf(run->csv_stream, "%s\n", header);
    fflush(run->csv_stream);
    return 0;
}

void bench_csv_append(bench_run_t *run, const bench_result_t *r)
{
    if (!run->csv_stream)
        return;
    write_row(run->csv_stream, run, r);
    fflush(run->csv_stream);
}

void bench_csv_close(bench_run_t *run)
{
    if (run->csv_stream)
        fclose(run->csv_stream);
    run->csv_stream = NULL;
}

/* Split line at commas in place; the number of fields, or -1 if not n. */
static int split(char *line, char *fields[], int n)
{
    int k = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = '\0';
    while (k < n) {
        fields[k++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = '\0';
    }
    return k == n && !p ? k : -1;
}

static double value(const char *s) { return s[0] ? strtod(s, NULL) : NAN; }

/* A result from the fields of a native row of a relaunched run. */
static void parse_row(char *const fld[], const char *name, bench_kind_t kind,
                      bench_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->size = strtol(fld[C_SIZE], NULL, 10);
    r->bytes = strtoll(fld[C_BYTES], NULL, 10);
    r->kind = kind;
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->status, sizeof r->status, "%s", fld[C_RESULT]);
    r->st.median = value(fld[C_MEDIAN]);
    r->st.mean = value(fld[C_MEAN]);
    r->st.ci95 = value(fld[C_CI95]);
    r->st.min = value(fld[C_MIN]);
    r->st.max = value(fld[C_MAX]);
    r->st.sd = r->st.q1 = r->st.q3 = NAN;
    r->st.n = (int)strtol(fld[C_REPS], NULL, 10);
    r->st.kept = (int)strtol(fld[C_KEPT], NULL, 10);
    r->init_us = NAN;
    r->extra = fld[C_EXTRA][0] ? strtoll(fld[C_EXTRA], NULL, 10) : -1;
}

int bench_read_csv(const char *path, const char *name, bench_kind_t kind, bench_run_t *run)
{
    char line[1024], *fld[NCOLUMNS];
    FILE *f = fopen(path, "r");
    int rc = 0;
    if (!f)
        return -1;
    if (!fgets(line, sizeof line, f) || strncmp(line, header, sizeof header - 1) != 0)
        rc = -1;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        bench_result_t r;
        if (split(line, fld, NCOLUMNS) < 0)
            rc = -1;
        else if (strcmp(fld[C_KIND], bench_kind_name(BENCH_ROW_NATIVE)) == 0) {
            parse_row(fld, name, kind, &r);
            rc = bench_run_add(run, &r);
        }
    }
    fclose(f);
    return rc;
}
