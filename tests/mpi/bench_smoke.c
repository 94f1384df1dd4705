/*
 * bench_smoke.c -- pcoll-bench's driver end to end on tiny sizes (registered
 * for np 1, 2, 3 only; see tests/CMakeLists.txt): every mode with every
 * alltoall algorithm and --reps 3 must succeed, flag no WRONG result and give
 * one timed row per size and row; the CSV written must read back and have
 * the peak_extra_bytes column; alltoallv_inplace with 10% aux memory must
 * report a positive peak extra memory for pcoll's row and the second buffer
 * (the receive layout's bytes) for out-of-place MPI_Alltoallv; --overlap
 * succeeds for every alltoall algorithm; an unknown
 * collective and a bad option give exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "core/defects.h"

static int passed, failed, rank;

static void is(int ok, const char *what)
{
    passed += ok != 0;
    failed += !ok;
    if (!ok)
        printf("FAIL (rank %d): %s\n", rank, what);
}

/* Run the driver on the words (NULL-terminated) after the program name. */
static int measure(bench_run_t *run, const char *const *words)
{
    char *argv[32] = {"pcoll-bench"};
    int argc = 1;
    while (words[argc - 1] && argc < 31) {
        argv[argc] = (char *)words[argc - 1];
        argc++;
    }
    return bench_measure(argc, argv, MPI_COMM_WORLD, run);
}

/* Rank 0: every row ran, none is wrong, ok rows are timed. */
static void check_rows(const bench_run_t *run, int rows_per_size, const char *mode)
{
    char what[128];
    int i, bad = 0;
    for (i = 0; i < run->nrows; i++) {
        const bench_result_t *r = &run->rows[i];
        int ok = strcmp(r->status, "ok") == 0;
        if (!ok && strcmp(r->status, "ERR_UNSUPPORTED") != 0)
            bad++, printf("%s: %s at %ld B: %s\n", mode, r->name, r->size, r->status);
        if (ok && (r->st.n != 3 || r->st.kept < 1 || !(r->st.median >= 0)))
            bad++, printf("%s: %s at %ld B: not timed\n", mode, r->name, r->size);
    }
    snprintf(what, sizeof what, "%s: every row ok and timed", mode);
    is(bad == 0, what);
    snprintf(what, sizeof what, "%s: one row per size and algorithm", mode);
    is(run->nrows == rows_per_size * run->opts.nsizes, what);
}

/* Whether the first line of the file at path has the column `name`. */
static int has_column(const char *path, const char *name)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    int found = f && fgets(line, sizeof line, f) && strstr(line, name) != NULL;
    if (f)
        fclose(f);
    return found;
}

/* The CSV of a run reads back with its native rows. */
static void check_csv(bench_run_t *run)
{
    char path[] = "/tmp/pcoll-bench-smoke-XXXXXX";
    int fd = mkstemp(path), before = run->nrows;
    is(fd >= 0, "temporary file");
    if (fd < 0)
        return;
    close(fd);
    is(bench_write_csv(path, run) == 0, "CSV written");
    is(has_column(path, ",peak_extra_bytes"), "CSV has the peak_extra_bytes column");
    is(bench_read_csv(path, "MPI(x)", BENCH_ROW_NATIVE_FORCED, run) == 0, "CSV read back");
    is(run->nrows == before + run->opts.nsizes, "one native row per size read back");
    is(bench_write_json(path, run) == 0, "JSON written");
    unlink(path);
}

static void test_mode(const char *mode, int with_native, int with_init)
{
    int nalgos = 0, i;
    const char *name;
    bench_run_t run;
    int rc = measure(&run, (const char *const[]){"--sizes", "0,1,8:64:x8", "--reps", "3",
                                                 "--warmup", "1", "--mode", mode, NULL});
    /* --algorithms all: the table but the device-buffer ones (--gpu only) */
    for (i = 0; (name = pcoll_algorithm_name("alltoall", i)) != NULL; i++)
        nalgos += strncmp(name, "gpu_", 4) != 0;
    is(rc == 0, mode);
    if (rank == 0) {
        check_rows(&run, nalgos + with_native + with_init, mode);
        is(bench_report(&run) == 0, "report");
        if (with_native)
            check_csv(&run);
    }
    bench_run_free(&run);
}

/* Rank 0: pcoll's row uses at least the aux memory, the native row needs
 * its second buffer (uniform layouts: bytes per rank). */
static void check_extra(const bench_run_t *run)
{
    int i, pcoll = 0, native = 0;
    for (i = 0; i < run->nrows; i++) {
        const bench_result_t *r = &run->rows[i];
        if (r->kind == BENCH_ROW_PCOLL && strcmp(r->status, "ok") == 0)
            pcoll += r->extra >= 400;
        if (r->kind == BENCH_ROW_NATIVE)
            native += r->extra == r->bytes;
    }
    is(pcoll == 1, "alltoallv_inplace: pcoll row's peak extra >= the aux memory (10%)");
    is(native == 1, "alltoallv_inplace: MPI_Alltoallv's extra = its second buffer");
}

static void test_extra(void)
{
    bench_run_t run;
    int rc;
    setenv("PCOLL_BENCH_AUX_PERCENT", "10", 1);
    rc = measure(&run, (const char *const[]){"--coll", "alltoallv_inplace", "--sizes", "4096",
                                             "--reps", "3", "--warmup", "1", "--mode",
                                             "persistent", NULL});
    unsetenv("PCOLL_BENCH_AUX_PERCENT");
    is(rc == 0, "alltoallv_inplace with 10% aux");
    if (rank == 0) {
        check_extra(&run);
        is(bench_report(&run) == 0, "report");
        check_csv(&run);
    }
    bench_run_free(&run);
}

/* --choice: one untimed row per size naming what auto's plan takes, a
 * name of the collective's table or native. */
static void test_choice(void)
{
    bench_run_t run;
    int rc = measure(&run, (const char *const[]){"--coll", "alltoallv", "--pattern", "normal",
                                                  "--sizes", "8,65536", "--choice", NULL});
    is(rc == 0, "--choice: exit status 0");
    if (rank == 0) {
        int bad = run.nrows != 2;
        for (int i = 0; i < run.nrows && !bad; i++) {
            const char *t;
            int known = strcmp(run.rows[i].runs, "native") == 0;
            for (int k = 0; (t = pcoll_algorithm_name("alltoallv", k)) != NULL; k++)
                known |= strcmp(run.rows[i].runs, t) == 0;
            bad = !known || strcmp(run.rows[i].status, "ok") != 0 || run.rows[i].st.n != 0;
        }
        is(!bad, "--choice: a row per size, each an algorithm of the table, untimed");
    }
    bench_run_free(&run);
}

/* --overlap: every algorithm's plan checked and timed with computation,
 * exit status 0 (its table is printed, not kept as rows). */
static void test_overlap(void)
{
    bench_run_t run;
    int rc = measure(&run, (const char *const[]){"--sizes", "8,512", "--reps", "3",
                                                  "--overlap", NULL});
    is(rc == 0, "--overlap: exit status 0");
    bench_run_free(&run);
}

/* neighbor_alltoallv: every neighbourhood pattern (spmv's blocks of many
 * sizes too) runs and checks every of pcoll's rows (native may refuse a folded grid alike on every rank,
 * where the MPI's started calls are known to be wrong: the MPI's own
 * persistent row is WRONG there); a pattern of the other family is a usage
 * error.  Where the MPI's blocking calls, the reference, are wrong on
 * repeated neighbours (core/defects.h, mpich-neighbor-order) the patterns
 * are not run. */
static void test_neighbor(void)
{
    static const char *const patterns[] = {"stencil2d", "stencil27", "randomk", "spmv"};
    bench_run_t run;
    for (int i = 0; i < 4 && !pcoll__mpi_defect(PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER); i++) {
        int rc = measure(&run, (const char *const[]){"--coll", "neighbor_alltoallv", "--pattern",
                                                      patterns[i], "--sizes", "8,64", "--reps",
                                                      "2", "--warmup", "1", NULL});
        int bad = rank == 0 && run.nrows < 4;
        /* pcoll's rows (the MPI's own persistent call may be WRONG there). */
        for (int k = 0; rank == 0 && k < run.nrows; k++)
            bad |= run.rows[k].kind == BENCH_ROW_PCOLL &&
                   strcmp(run.rows[k].status, "ok") != 0 &&
                   strcmp(run.rows[k].status, "ERR_UNSUPPORTED") != 0;
        /* Exit status 1 where only the MPI's own row was wrong. */
        is((rc == 0 || rc == 1) && !bad, "neighbor_alltoallv: every row of pcoll ok");
        bench_run_free(&run);
    }
    is(measure(&run, (const char *const[]){"--coll", "neighbor_alltoallv", "--pattern", "normal",
                                          NULL}) == 2,
       "neighbor_alltoallv --pattern normal: exit status 2");
    is(measure(&run, (const char *const[]){"--coll", "alltoallv", "--pattern", "randomk",
                                          NULL}) == 2,
       "alltoallv --pattern randomk: exit status 2");
    is(measure(&run, (const char *const[]){"--coll", "neighbor_alltoallv_inplace", "--pattern",
                                          "spmv", NULL}) == 2,
       "neighbor_alltoallv_inplace --pattern spmv: exit status 2");
}

int main(int argc, char **argv)
{
    bench_run_t run;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    test_mode("blocking", 1, 0);
    test_mode("persistent", 1, BENCH_HAVE_MPI_PERSISTENT);
    test_mode("nocomm", 0, 0);
    test_extra();
    test_choice();
    test_overlap();
    test_neighbor();
    is(measure(&run, (const char *const[]){"--coll", "nonsense", NULL}) == 2,
       "an unknown collective: exit status 2");
    is(measure(&run, (const char *const[]){"--reps", "x", NULL}) == 2, "bad option: 2");
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
