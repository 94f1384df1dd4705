/*
 * pcoll-ddt: the datatype performance guidelines checker (the guidelines
 * paper's Benchmarks 1-6 against the linked MPI, and the same after
 * pcoll_type_normalize).  Files: options.c (command line), layouts.c (the
 * datatypes of each benchmark), measure.c (timing), driver.c (one stride),
 * report.c (tables), csv.c (CSV), guidelines.c (the checks, no MPI),
 * main.c.
 */
#ifndef PCOLL_DDT_H
#define PCOLL_DDT_H

#include <stddef.h>
#include <stdio.h>

#include <mpi.h>

#include "guidelines.h"

enum { DDT_MAX_STRIDES = 8, DDT_WARMUP = 3, DDT_UNIT2 = 8 /* Benchmark 2's k */ };

typedef struct ddt_opts {
    int n;                           /* --n: elements */
    int strides[DDT_MAX_STRIDES];    /* --stride */
    int nstrides;
    const char *type_name;           /* --type */
    MPI_Datatype type;
    int reps;                        /* --reps */
    const char *csv;                 /* --csv or NULL */
    int help;
} ddt_opts_t;

/* Parse argv (no communication).  Returns 0, or -1 with a message in err. */
int ddt_options_parse(int argc, char **argv, ddt_opts_t *o, char *err, size_t errlen);
void ddt_usage(FILE *out);

/* One stride's experiment: ranks 0 and 1 of comm, n elements of base at
 * stride `stride` elements in src (and, for receives, dst). */
typedef struct ddt_ctx {
    MPI_Comm comm;
    int rank, n, stride, reps;
    MPI_Datatype base;
    MPI_Aint ext;
    int size;
    char *src, *dst, *packed;
    size_t span, packed_bytes;
} ddt_ctx_t;

/* A description of a layout: count items of type (committed). */
typedef struct ddt_dt {
    MPI_Datatype type;
    int count;
} ddt_dt_t;

/* Benchmark 1 (desc), 2 (base, form) and 3 (layout, form) datatypes,
 * uncommitted; DDT_USER and the contig description at stride > 1 have none
 * (type MPI_DATATYPE_NULL).  Returns 0 or an MPI error code. */
int ddt_make_b1(const ddt_ctx_t *c, int desc, ddt_dt_t *out);
int ddt_make_b2(const ddt_ctx_t *c, int base, int form, ddt_dt_t *out);
int ddt_make_b3(const ddt_ctx_t *c, int layout, int form, ddt_dt_t *out);
/* Commit; the normalized form of a committed description (committed). */
int ddt_commit(ddt_dt_t *d);
int ddt_normalized(const ddt_dt_t *in, ddt_dt_t *out);
void ddt_dt_free(ddt_dt_t *d);
/* Whether two descriptions pack src to the same bytes (rank 0 only). */
int ddt_same_data(const ddt_ctx_t *c, const ddt_dt_t *a, const ddt_dt_t *b);

/* One thing to time: MPI_Pack, ping-pong send or pack+send+unpack of dt
 * (kind DDT_PACK, DDT_SEND, DDT_PACKSEND), or the user pack loop. */
enum { DDT_ITEM_USERPACK = DDT_NPHASE };
typedef struct ddt_item {
    int kind;
    ddt_dt_t dt;
    ddt_time_t *out;
} ddt_item_t;

/* Time the items, interleaved (collective over c->comm; the times are
 * stored on rank 0, NAN elsewhere). */
void ddt_measure(const ddt_ctx_t *c, const ddt_item_t *items, int n);
/* Benchmark 6: construction, commit and pcoll_type_normalize + commit. */
void ddt_time_build(const ddt_ctx_t *c, int desc, ddt_time_t *construct, ddt_time_t *commit,
                    ddt_time_t *normalize);

/* Everything for one stride: the user's types and their normalized forms. */
typedef struct ddt_run {
    ddt_results_t orig, norm;
    ddt_time_t build[3][DDT_NDESC]; /* construct, commit, normalize */
} ddt_run_t;

/* Measure one stride (collective); 0, or 1 when a check of the data failed. */
int ddt_run_stride(const ddt_ctx_t *c, ddt_run_t *run);

/* Output on rank 0. */
void ddt_report(FILE *out, const ddt_opts_t *o, const ddt_run_t *run);
int ddt_csv(FILE *out, const ddt_opts_t *o, const ddt_run_t *run, int header);

#endif
