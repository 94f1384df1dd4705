/*
 * pcoll-bench: the benchmark of pcoll's collectives against the native MPI.
 *
 * Each collective plugs in through one table of functions (bench_coll_t, in
 * its own coll_<name>.c, listed in colls.c); one driver (driver.c) does the
 * sweep over sizes and rows, checking (checks.c), timing (timing.c), and
 * output.c / native_sweep.c / plot.c make the report on rank 0.
 *
 * Flow (main.c): MPI_Init, bench_measure (collective), MPI_Finalize, then
 * bench_report on rank 0 (after MPI_Finalize, so that relaunching the MPI
 * for --native-sweep and running the plot script happen in a plain process
 * while the other ranks are gone).
 */
#ifndef PCOLL_BENCH_H
#define PCOLL_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include <mpi.h>

#include "options.h"
#include "pcoll.h"
#include "stats.h"

/* MPI-4 persistent collectives (Open MPI 5 has them while claiming MPI 3.1). */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define BENCH_HAVE_MPI_PERSISTENT 1
#else
#define BENCH_HAVE_MPI_PERSISTENT 0
#endif

/* One collective's buffers and arguments for one size (opaque to the driver). */
typedef struct bench_case bench_case_t;

/* The rows of a table, in the order they are shown for a size. */
typedef enum {
    BENCH_ROW_NATIVE,            /* the MPI call, MPI's default choice */
    BENCH_ROW_NATIVE_PERSISTENT, /* MPI-4 *_init + MPI_Start + MPI_Wait */
    BENCH_ROW_NATIVE_FORCED,     /* --native-sweep: one forced MPI algorithm */
    BENCH_ROW_PCOLL,             /* a pcoll algorithm */
    BENCH_ROW_KINDS
} bench_kind_t;

/* A collective, as the driver sees it.  Every function is collective over
 * the case's communicator except bytes, poison and check. */
typedef struct bench_coll {
    const char *name;          /* --coll and pcoll_algorithm_name's collective */
    const char *native;        /* "MPI_Alltoall" */
    const char *native_init;   /* "MPI_Alltoall_init" */
    const char *env_algorithm; /* variable read by the one-shot call */
    int patterns;              /* takes --pattern other than uniform */
    /* --native-sweep: the algorithms MPICH's MPIR_CVAR_<NATIVE>_INTRA_ALGORITHM
     * can force, and Open MPI's coll_tuned_<native>_algorithm values ("N|name",
     * as ompi_info prints them; used when ompi_info cannot be asked). */
    const char *mpich_algorithms;
    const char *ompi_algorithms;
    /* Allocate and fill the buffers for `size` (see --sizes) and compute the
     * reference result with the native call.  PCOLL_SUCCESS or an error. */
    int (*setup)(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **c);
    long long (*bytes)(const bench_case_t *c); /* bytes sent per rank per call */
    void (*poison)(bench_case_t *c);           /* overwrite the output */
    /* output == reference (this rank): 1, else 0; BENCH_UNCHECKED when the
     * output cannot be checked (folded buffers, fold.c). */
    int (*check)(const bench_case_t *c);
    /* Whether a row of this kind cannot be checked (folded buffers): its
     * checking run is then left out.  NULL: every row is checked. */
    int (*unchecked)(const bench_case_t *c, bench_kind_t kind);
    int (*run_native)(bench_case_t *c);        /* MPI error code */
    int (*native_persistent)(bench_case_t *c, MPI_Request *req); /* NULL: none */
    int (*plan_init)(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan);
    int (*run_oneshot)(bench_case_t *c);       /* pcoll status */
    void (*teardown)(bench_case_t *c);         /* NULL-safe */
    /* The bytes a native row of this kind needs beyond the buffers the
     * pcoll rows use (alltoallv_inplace: out-of-place MPI_Alltoallv's second
     * buffer); BENCH_EXTRA_MEASURE: memory inside the MPI, to be measured
     * (rss.c); -1: unknown.  NULL: unknown for every native row. */
    long long (*native_extra)(const bench_case_t *c, bench_kind_t kind);
} bench_coll_t;

enum { BENCH_EXTRA_MEASURE = -2 };
enum { BENCH_UNCHECKED = 2 };

/* fold.c: whether the data buffers of a case of this size are folded
 * (PCOLL_BENCH_FOLD=N, sizes >= N, in the simulated build: one memory under
 * every simulated rank, contents meaningless, outputs not checked); a
 * buffer of `bytes`, folded or the rank's own (malloc), and its release. */
int bench_fold(long size);
void *bench_big_alloc(int fold, size_t bytes);
void bench_big_free(int fold, void *p);

/* coll_neighbor.c: the topology communicator of a neighbour pattern
 * (stencil2d, stencil27, randomk; collective over comm; an MPI error code)
 * and its degrees. */
int bench_neighbor_comm(MPI_Comm comm, bench_pattern_t pattern, MPI_Comm *out);
void bench_neighbor_degrees(MPI_Comm comm, int *in, int *out);
/* coll_alltoallv_inplace.c: a copy of info with pcoll_aux_bytes set to
 * PCOLL_BENCH_AUX_PERCENT percent of `bytes` (a rank's data), at least one
 * int per aux buffer of p ranks' default count, where that variable is
 * set.  The caller frees it. */
MPI_Info bench_aux_info(MPI_Info info, long long bytes, int p);
/* The one-shot row of a collective without a one-shot call: a plan made
 * with plan_init (an empty info), run once and freed; a pcoll status. */
int bench_plan_once(bench_case_t *c,
                    int (*plan_init)(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan));
/* colls.c: the registry.  find: NULL when unknown or not available yet. */
const bench_coll_t *bench_coll_find(const char *name);
int bench_coll_known(const char *name);
/* --gpu: the collective on device buffers (coll_gpu.c); NULL when there is
 * none (or pcoll-bench was built without CUDA). */
const bench_coll_t *bench_coll_gpu_find(const char *name);
void bench_coll_list(char *buf, size_t len);     /* "alltoall, alltoallv, ..." */
void bench_coll_print(FILE *out);                /* one line each, with availability */


typedef struct bench_result {
    long size;                  /* as in --sizes */
    long long bytes;            /* bytes sent per rank per call */
    bench_kind_t kind;
    char name[BENCH_NAME_LEN];  /* algorithm, native call or MPI(forced) */
    char runs[BENCH_NAME_LEN];  /* what `auto` chose; "" otherwise */
    char status[24];            /* "ok", "WRONG", an error name ("ERR_UNSUPPORTED") */
    bench_stats_t st;           /* microseconds; n = 0 when not timed */
    double init_us;             /* plan or request creation; NAN when none */
    long long extra;            /* peak extra bytes per rank, the maximum over
                                   ranks (pcoll: pcoll_mem_peak growth over
                                   plan creation and one run; native: the
                                   plug-in's native_extra, or the resident
                                   peak's growth); -1 when none */
} bench_result_t;

typedef struct bench_run {
    bench_opts_t opts;
    const bench_coll_t *coll;
    int nprocs;
    char mpi[96];               /* first line of MPI_Get_library_version */
    bench_result_t *rows;       /* rank 0 only */
    int nrows, cap;
    const char *argv0;          /* this program, for relaunching it */
    char note[2048];            /* remarks printed under the table, or "" */
    char oversub[128];          /* "oversubscribed: ..." (bench_oversubscribed), or "" */
    FILE *csv_stream;           /* rank 0, while measuring: --csv, a row written
                                   (and flushed) as it is added; NULL otherwise */
} bench_run_t;

/* cores.c: whether some node of comm runs more ranks than it has cores for
 * them (the union of its ranks' CPU affinity masks); then line gets
 * "oversubscribed: N ranks on C cores; times are not meaningful" for the
 * most crowded node.  Collective; 0 under SimGrid (simulated hosts). */
int bench_oversubscribed(MPI_Comm comm, char *line, size_t len);

/* rss.c (Linux): set the peak of this process's resident memory back to
 * the current resident size, which it returns; the peak.  Bytes, or -1 where
 * that cannot be done. */
long long bench_rss_reset(void);
long long bench_rss_peak(void);

/* usage.c: the usage message. */
void bench_usage(FILE *out);

const char *bench_kind_name(bench_kind_t k);     /* "native", ... (CSV) */
int bench_run_add(bench_run_t *run, const bench_result_t *r);
/* A remark for under the table (and on stderr now). */
void bench_run_note(bench_run_t *run, const char *msg);
void bench_run_free(bench_run_t *run);

/* Parse argv and run the sweep (collective over comm; MPI initialized).
 * Returns the exit status: 0, 1 (a wrong result or an error), 2 (usage). */
int bench_measure(int argc, char **argv, MPI_Comm comm, bench_run_t *run);
/* The sweep itself (driver.c), after options are checked. */
int bench_sweep(bench_run_t *run, MPI_Comm comm);
/* Rank 0: native sweep, table on stdout, CSV, JSON, plot.  Exit status. */
int bench_report(bench_run_t *run);

/* output.c: the table; the median of the first row of a kind at size
 * (NAN when there is none). */
void bench_print_table(FILE *out, const bench_run_t *run);
double bench_kind_median(const bench_run_t *run, long size, bench_kind_t kind);
/* "1.5 MiB" (B, KiB, MiB, GiB) into buf; "-" when bytes < 0. */
void bench_format_bytes(char *buf, size_t len, long long bytes);
/* csv.c: write every row; read the rows of a relaunched run back, renamed
 * name (native rows only) and with the given kind.  0 or -1. */
int bench_write_csv(const char *path, const bench_run_t *run);
/* The CSV written row by row: the header now, then each row bench_run_add
 * adds, flushed; bench_csv_close ends it.  0 or -1. */
int bench_csv_open(bench_run_t *run, const char *path);
void bench_csv_append(bench_run_t *run, const bench_result_t *r);
void bench_csv_close(bench_run_t *run);
int bench_read_csv(const char *path, const char *name, bench_kind_t kind, bench_run_t *run);
/* json.c */
int bench_write_json(const char *path, const bench_run_t *run);
/* s as a JSON string, quoted, with quotes and control characters escaped. */
void bench_json_string(FILE *f, const char *s);

/* native_sweep.c: relaunch under each forced MPI algorithm, add the rows. */
int bench_native_sweep(bench_run_t *run);
/* launcher.c: the launcher's words (into words[size], argv[max]; their
 * number, or -1 with a note); the launcher's variables out of the
 * environment; the first executable dir/name on PATH (0 or -1). */
int bench_launcher(bench_run_t *run, char *words, size_t size, char **argv, int max);
void bench_scrub_launcher_env(void);
int bench_find_in_path(const char *name, char *out, size_t size);
/* plot.c: run tools/pcoll-plot.py on csv, writing png.  0 or -1. */
int bench_plot(const char *csv, const char *png);
/* spawn.c: run argv[0] (PATH searched) in this process's environment,
 * stdout to out_path unless NULL; its exit status (127: could not run it),
 * or -1. */
int bench_spawn(char *const argv[], const char *out_path);

#endif
