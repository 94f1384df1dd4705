/*
 * The bench_run_t that holds a run's rows for the report (bench.h): rows
 * appended by the sweep and by a CSV read back, notes, the kind names.
 */
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"

static const char *const kind_names[BENCH_ROW_KINDS] = {
    [BENCH_ROW_NATIVE] = "native",
    [BENCH_ROW_NATIVE_PERSISTENT] = "native_persistent",
    [BENCH_ROW_NATIVE_FORCED] = "native_forced",
    [BENCH_ROW_PCOLL] = "pcoll"};

const char *bench_kind_name(bench_kind_t k) { return kind_names[k]; }

int bench_run_add(bench_run_t *run, const bench_result_t *r)
{
    if (run->nrows == run->cap) {
        int cap = run->cap ? 2 * run->cap : 64;
        bench_result_t *rows = realloc(run->rows, sizeof *rows * (size_t)cap);
        if (!rows)
            return -1;
        run->rows = rows;
        run->cap = cap;
    }
    run->rows[run->nrows++] = *r;
    bench_csv_append(run, r);
    return 0;
}

void bench_run_note(bench_run_t *run, const char *msg)
{
    bench_append(run->note, sizeof run->note, run->note[0] ? "\n" : "", msg);
    fprintf(stderr, "pcoll-bench: %s\n", msg);
}

void bench_run_free(bench_run_t *run)
{
    bench_csv_close(run);
    free(run->rows);
    run->rows = NULL;
    run->nrows = run->cap = 0;
}
