/*
 * pcoll-bench's command line (no MPI calls): every rank parses the same argv.
 * Numbers are read with strtol/strtod and fully validated; a bad option is an
 * error message, never a crash.  Usage text: usage.c.
 */
#ifndef PCOLL_BENCH_OPTIONS_H
#define PCOLL_BENCH_OPTIONS_H

#include <stddef.h>

enum { BENCH_MAX_SIZES = 64, BENCH_MAX_ALGOS = 32, BENCH_NAME_LEN = 48 };
#define BENCH_MAX_BYTES (1L << 30) /* largest size accepted (1 GiB per block) */

typedef enum { BENCH_BLOCKING, BENCH_PERSISTENT, BENCH_NOCOMM } bench_mode_t;
/* Sizes of the irregular collectives (random ... shifting: random counts
 * that change every call, alltoallv), and the neighbourhoods of
 * neighbor_alltoallv and neighbor_alltoallv_inplace (stencil2d ... randomk). */
typedef enum {
    BENCH_UNIFORM,
    BENCH_RANDOM,
    BENCH_SPARSE,
    BENCH_POWERLAW,
    BENCH_NORMAL,
    BENCH_SHIFTING,
    BENCH_STENCIL2D,
    BENCH_STENCIL27,
    BENCH_RANDOMK,
    BENCH_SPMV,
    BENCH_NPATTERNS
} bench_pattern_t;
/* bench_coll_t.patterns: which patterns a collective takes besides uniform. */
enum { BENCH_PATTERNS_NONE, BENCH_PATTERNS_SIZES, BENCH_PATTERNS_NEIGHBORS };

typedef struct bench_opts {
    char coll[BENCH_NAME_LEN];     /* --coll (default alltoall) */
    const char *algorithms;        /* --algorithms as given (default "all") */
    char algos[BENCH_MAX_ALGOS][BENCH_NAME_LEN]; /* expanded by bench_options_algorithms */
    int nalgos;
    const char *sizes_arg;         /* --sizes as given (passed on to relaunched runs) */
    long sizes[BENCH_MAX_SIZES];   /* bytes per block (alltoall) */
    int nsizes;
    int reps;                      /* --reps; 0: automatic (see max_time) */
    int warmup;                    /* --warmup */
    double max_time;               /* --max-time: seconds per point when reps is automatic */
    bench_mode_t mode;
    bench_pattern_t pattern;
    const char *csv, *json, *plot; /* output files or NULL */
    int native_sweep;              /* --native-sweep */
    int native_only;               /* hidden --native-only: a relaunched native run */
    int progress;                  /* --progress (also on when stderr is a terminal) */
    int sequential;                /* --sequential: each row's repetitions in a block,
                                      instead of every row once per round */
    int gpu;                       /* --gpu: buffers in device memory (alltoall) */
    int choice;                    /* --choice: print auto's choice per size, time nothing */
    int overlap;                   /* --overlap: overlap of plans with computation (overlap.c) */
    int help;                      /* --help */
} bench_opts_t;

/* Defaults for every field (what pcoll-bench does without options). */
void bench_options_default(bench_opts_t *o);

/* Parse argv[1..argc).  Returns 0 or -1 with a message in err. */
int bench_options_parse(int argc, char **argv, bench_opts_t *o, char *err, size_t errlen);

/* Expand o->algorithms ("all" or a comma list) against pcoll's table for
 * o->coll into o->algos.  Returns 0 or -1 with a message in err. */
int bench_options_algorithms(bench_opts_t *o, char *err, size_t errlen);

/* Parse a --sizes list: N, N:M (factor 2), N:M:xF or N:M:+D, comma-separated;
 * numbers may end in k or m (x1024).  Returns 0 or -1 with a message. */
int bench_parse_sizes(const char *arg, long *sizes, int *nsizes, char *err, size_t errlen);

/* Write the message to err[errlen]; returns -1. */
int bench_fail(char *err, size_t errlen, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Copy the next item of the comma-separated list at *p into item[size] and
 * advance *p.  Returns 1 for an item, 0 after the last, -1 for an empty or
 * overlong item. */
int bench_next_item(const char **p, char *item, size_t size);

/* Append sep and word to the string buf[len] (cut at len). */
void bench_append(char *buf, size_t len, const char *sep, const char *word);

/* The algorithms of pcoll's table for coll: "linear, pairwise, ...". */
void bench_algorithm_list(const char *coll, char *buf, size_t len);

/* The names of the option values, for messages and output. */
const char *bench_mode_name(bench_mode_t m);
const char *bench_pattern_name(bench_pattern_t p);

#endif
