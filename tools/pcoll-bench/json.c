/*
 * JSON output: the run's description and one object per row, with the same
 * fields as the CSV (no value: null).
 */
#include <math.h>

#include "bench.h"

void bench_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* "name": value, with null for NAN. */
static void number(FILE *f, const char *name, double v, const char *sep)
{
    fprintf(f, "\"%s\": ", name);
    if (isnan(v))
        fprintf(f, "null%s", sep);
    else
        fprintf(f, "%.4f%s", v, sep);
}

static void write_row(FILE *f, const bench_run_t *run, const bench_result_t *r, int last)
{
    fprintf(f, "    {\"size\": %ld, \"bytes_per_rank\": %lld, \"algorithm\": ", r->size,
            r->bytes);
    bench_json_string(f, r->name);
    fprintf(f, ", \"kind\": \"%s\", \"runs\": ", bench_kind_name(r->kind));
    bench_json_string(f, r->runs);
    fprintf(f, ", \"result\": ");
    bench_json_string(f, r->status);
    fprintf(f, ",\n     ");
    number(f, "median_us", r->st.median, ", ");
    number(f, "mean_us", r->st.mean, ", ");
    number(f, "ci95_us", r->st.ci95, ", ");
    number(f, "min_us", r->st.min, ", ");
    number(f, "max_us", r->st.max, ", ");
    fprintf(f, "\"reps\": %d, \"kept\": %d, ", r->st.n, r->st.kept);
    number(f, "init_us", r->init_us, ", ");
    number(f, "speedup", bench_kind_median(run, r->size, BENCH_ROW_NATIVE) / r->st.median, ", ");
    if (r->extra >= 0)
        fprintf(f, "\"peak_extra_bytes\": %lld", r->extra);
    else
        fprintf(f, "\"peak_extra_bytes\": null");
    fprintf(f, "}%s\n", last ? "" : ",");
}

int bench_write_json(const char *path, const bench_run_t *run)
{
    FILE *f = fopen(path, "w");
    int i;
    if (!f)
        return -1;
    fprintf(f, "{\n  \"coll\": \"%s\", \"mode\": \"%s\", \"nprocs\": %d, \"mpi\": ",
            run->coll->name, bench_mode_name(run->opts.mode), run->nprocs);
    bench_json_string(f, run->mpi);
    fprintf(f, ",\n  \"warmup\": %d, \"reps\": %d, \"max_time_s\": %g,\n  \"results\": [\n",
            run->opts.warmup, run->opts.reps, run->opts.max_time);
    for (i = 0; i < run->nrows; i++)
        write_row(f, run, &run->rows[i], i == run->nrows - 1);
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}
