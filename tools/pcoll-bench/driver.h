/*
 * The driver's parts.  A row of the table is a target run by a method: the
 * native call, MPI-4's persistent call, pcoll's one-shot call, a pcoll plan,
 * or plan creation alone (methods.c).  The driver (driver.c) prepares a
 * target, checks one run (checks.c), times many (timing.c), releases it.
 */
#ifndef PCOLL_BENCH_DRIVER_H
#define PCOLL_BENCH_DRIVER_H

#include "bench.h"

typedef struct bench_target {
    const bench_coll_t *coll;
    bench_case_t *c;
    const char *algorithm;  /* pcoll rows; NULL for native rows */
    pcoll_plan_t *plan;
    MPI_Request req;
    MPI_Info info;          /* nocomm: the info of the timed plans */
    double compute;         /* --overlap: seconds of computation between start and wait */
    int unchecked;          /* the checked run's output could not be checked (folded) */
    const char *ran;        /* one-shot rows: what the last timed call ran */
} bench_target_t;

typedef struct bench_method {
    bench_kind_t kind;
    int init_timed;                       /* prepare's time is the row's init_us */
    int (*prepare)(bench_target_t *t);    /* collective; pcoll status */
    int (*check_run)(bench_target_t *t);  /* the run whose output is checked */
    int (*timed_run)(bench_target_t *t);  /* one timed call */
    void (*release)(bench_target_t *t);
    /* Optional, before a target's calls, untimed: make it the one the next
     * calls run (one-shot rows: their algorithm in the environment), as
     * interleaved rows take turns. */
    int (*select)(bench_target_t *t);
    /* Optional, after each timed call or batch, untimed: note what it ran. */
    void (*after)(bench_target_t *t);
} bench_method_t;

/* The algorithm this rank's last one-shot pcoll call ran (the library's
 * src/core/plan.h, which the drop-in's log reads too; the bench links the
 * static library).  Per thread, but a plain global under SMPI, as there. */
#ifdef SMPI_H
extern const char *pcoll__last_run_algorithm;
#else
extern _Thread_local const char *pcoll__last_run_algorithm;
#endif

extern const bench_method_t bench_method_native;     /* MPI_Alltoall */
extern const bench_method_t bench_method_native_init; /* MPI_Alltoall_init + Start + Wait */
extern const bench_method_t bench_method_oneshot;    /* pcoll_alltoall, algorithm from env */
extern const bench_method_t bench_method_planned;    /* pcoll plan: start + wait */
extern const bench_method_t bench_method_nocomm;     /* plan creation + free, no comm */

/* An info with pcoll_algorithm = algorithm (and pcoll_no_comm = 1). */
MPI_Info bench_make_info(const char *algorithm, int no_comm);

/* Defaults of the automatic number of repetitions (no --reps). */
enum { BENCH_DEFAULT_REPS = 100, BENCH_MIN_REPS = 10 };
/* Interleaved rows: at most this many rows at one size; a fast row's sample
 * is the mean of a batch of calls lasting about BENCH_BATCH_SECONDS (at
 * most BENCH_MAX_BATCH calls). */
enum { BENCH_MAX_ROWS = 64, BENCH_MAX_BATCH = 256 };
#define BENCH_BATCH_SECONDS 20e-6

/* overlap.c: --overlap, instead of the sweep (rank 0 prints the table).
 * Returns 1 if a point failed, else 0. */
int bench_overlap_sweep(bench_run_t *run, MPI_Comm comm);
/* Whether an agreed status is a failure (ERR_UNSUPPORTED is not: the
 * algorithm declines these arguments). */
int bench_failed(int status);

/* checks.c: the status every rank agrees on: the lowest negative status,
 * else 1 if some rank says 1 (wrong), else 0. */
int bench_agree(int status, MPI_Comm comm);
/* Why this rank failed in the last bench_agree: its pcoll_last_error() when
 * its own status was negative (meaningful for pcoll calls only), else "". */
const char *bench_agreed_reason(void);
/* Poison the output, run m->check_run once, compare with the reference:
 * 0 (right), 1 (wrong) or a negative status, the same on every rank. */
int bench_check(const bench_method_t *m, bench_target_t *t, MPI_Comm comm);
/* The status as shown in the table: "ok", "WRONG" or the error's name. */
const char *bench_status_name(int status);
/* The same for a row: "folded" for a right status whose output was not
 * checked (folded buffers, fold.c). */
const char *bench_row_status_name(int status, const bench_target_t *t);

/* timing.c: m->prepare, timed (max over ranks, seconds, into *seconds). */
int bench_time_prepare(const bench_method_t *m, bench_target_t *t, MPI_Comm comm,
                       double *seconds);
/* Warm-up and barrier-synchronized repetitions of m->timed_run.  On rank 0
 * *samples (malloc'd, caller frees) gets the maximum over ranks of each
 * repetition in seconds, *reps their number.  Agreed status. */
int bench_time_runs(const bench_method_t *m, bench_target_t *t, const bench_opts_t *o,
                    MPI_Comm comm, double **samples, int *reps);
/* The same for n rows interleaved: warm-up calls of each, then rounds in
 * which every row runs once (barrier before each call), so that the rows
 * share the machine's noise.  The number of rounds fits --max-time for all
 * rows together.  On rank 0 samples[i] (malloc'd) gets row i's maxima over
 * ranks; status[i] row i's agreed status. */
void bench_time_interleaved(const bench_method_t *const *m, bench_target_t *const *t, int n,
                            const bench_opts_t *o, MPI_Comm comm, double **samples, int *reps,
                            int *status);

#endif
