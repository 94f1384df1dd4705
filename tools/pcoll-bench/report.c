/*
 * bench_report (rank 0, after MPI_Finalize): the native sweep's rows, the
 * table on stdout, then the CSV, JSON and plot files asked for.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

/* A temporary CSV path for --plot without --csv; 0 or -1. */
static int temp_csv(char *path, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    int fd;
    snprintf(path, size, "%s/pcoll-bench-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* The output files; 0 or 1 when one of them failed. */
static int write_files(const bench_run_t *run, const char *csv)
{
    const bench_opts_t *o = &run->opts;
    int rc = 0;
    if (csv && bench_write_csv(csv, run) != 0) {
        fprintf(stderr, "pcoll-bench: cannot write %s\n", csv);
        rc = 1;
    }
    if (o->json && bench_write_json(o->json, run) != 0) {
        fprintf(stderr, "pcoll-bench: cannot write %s\n", o->json);
        rc = 1;
    }
    if (rc == 0 && o->plot && bench_plot(csv, o->plot) != 0)
        rc = 1;
    return rc;
}

int bench_report(bench_run_t *run)
{
    const bench_opts_t *o = &run->opts;
    char tmp[PATH_MAX];
    const char *csv = o->csv;
    int rc = 0;

    bench_csv_close(run); /* the measured rows; the whole file is written below */
    if (o->native_sweep && bench_native_sweep(run) != 0)
        rc = 1;
    if (!o->native_only)
        bench_print_table(stdout, run);
    if (o->plot && !csv) {
        if (temp_csv(tmp, sizeof tmp) != 0) {
            fprintf(stderr, "pcoll-bench: no temporary file for the plot's CSV\n");
            return 1;
        }
        csv = tmp;
    }
    rc |= write_files(run, csv);
    if (csv == tmp)
        unlink(tmp);
    return rc;
}
