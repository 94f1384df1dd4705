/*
 * The guidelines of "Performance Expectations and Guidelines for MPI Derived
 * Datatypes" (Gropp, Hoefler, Thakur, Traeff) checked on measured times, with
 * no MPI calls (so that the unit tests can feed it synthetic timings).
 *
 * One time is a median with the 95% confidence interval of the mean; a is
 * "slower" than b only when a's interval lies entirely above b's (so noise
 * alone makes no violation) and a's median exceeds b's by at least
 * DDT_MIN_EXCESS (so a real but negligible difference makes none either:
 * "small differences are not significant", the paper says).  The checks,
 * for the same layout:
 *   (1) count x T vs one contig(count, T): equal (Benchmark 2, both ways);
 *   (2) a description of lower penalty is not slower than one of higher
 *       penalty: contig <= resized, vector <= indexed_block <= indexed <=
 *       struct (Benchmark 1); the regular form of Benchmark 3 <= the
 *       irregular one;
 *   (3) no description is slower than the lowest-penalty one (contig at
 *       stride 1, vector otherwise): what normalization would give; the
 *       irregular forms of Benchmark 3 not slower than the regular ones;
 *   (4) at stride 1, sending any description is not slower than sending
 *       the basic type (the User column);
 *   (5) sending a description is not slower than MPI_Pack + sending the
 *       packed bytes + MPI_Unpack;
 *   (6) MPI_Pack is not slower than a simple user pack loop.
 */
#ifndef PCOLL_DDT_GUIDELINES_H
#define PCOLL_DDT_GUIDELINES_H

#include <stdio.h>

/* The smallest difference of medians that counts: 5%. */
#define DDT_MIN_EXCESS 0.05

/* A time in seconds: median and 95% CI [lo, hi]; median NAN = not measured. */
typedef struct ddt_time {
    double median, lo, hi;
} ddt_time_t;

/* Columns of Tables 1 and 2 (Benchmark 1): the same layout described by ... */
enum ddt_desc { DDT_USER, DDT_CONTIG, DDT_RESIZED, DDT_VECTOR, DDT_BIDX, DDT_IDX, DDT_STRUCT,
                DDT_NDESC };
/* Rows: MPI_Pack (User: the loop), ping-pong send (User: the basic type at
 * stride 1), MPI_Pack + send of the packed bytes + MPI_Unpack. */
enum ddt_phase { DDT_PACK, DDT_SEND, DDT_PACKSEND, DDT_NPHASE };
/* Benchmark 2's base types T_0 .. T_5 and its two forms. */
enum ddt_base { DDT_B_BASIC, DDT_B_CONTIG, DDT_B_VECTOR, DDT_B_BIDX, DDT_B_IDX, DDT_B_STRUCT,
                DDT_NBASE };
enum ddt_form2 { DDT_COUNT, DDT_ENCAPSULATED };
/* Benchmark 3's layouts and forms (irregular: indexed_block / indexed). */
enum ddt_layout3 { DDT_3A, DDT_3B, DDT_N3 };
enum ddt_form3 { DDT_IRREGULAR, DDT_REGULAR };

/* Everything measured for one stride (one column set: the user's types or
 * their normalized forms).  Benchmarks 2 and 3 use the pack and send rows. */
typedef struct ddt_results {
    int stride;
    ddt_time_t b1[DDT_NPHASE][DDT_NDESC];
    ddt_time_t b2[2][DDT_NBASE][2];
    ddt_time_t b3[2][DDT_N3][2];
} ddt_results_t;

/* Which cell a violation marks: benchmark 1, 2 or 3 and the indices. */
typedef struct ddt_cell {
    int bench, phase, i, j;
} ddt_cell_t;

typedef struct ddt_violation {
    int guideline;   /* 1 .. 6 */
    char who[64];    /* the slower one: "indexed_block send" */
    char than[64];   /* the one it should match: "vector send" */
    double excess;   /* median ratio - 1: 0.37 for +37% */
    ddt_cell_t cell; /* the slower one's cell */
} ddt_violation_t;

/* An empty result set (every time NAN). */
void ddt_results_init(ddt_results_t *r, int stride);
/* 1 when a's interval lies entirely above b's and a's median is at least
 * DDT_MIN_EXCESS above b's (both measured). */
int ddt_slower(const ddt_time_t *a, const ddt_time_t *b);
/* Check guidelines (1)-(6); stores at most max violations in v and returns
 * how many there are. */
int ddt_check(const ddt_results_t *r, ddt_violation_t *v, int max);
/* Whether a cell is marked by one of the n violations. */
int ddt_marked(const ddt_violation_t *v, int n, ddt_cell_t cell);
/* One line per guideline: "guideline (3): violated by indexed_block send
 * (+37% vs vector send)" or "... holds" / "... not checked (why)". */
void ddt_summary(FILE *out, const ddt_results_t *r, const ddt_violation_t *v, int n);

/* Names: "indexed_block", "send", "vector", ... */
const char *ddt_desc_name(int desc);
const char *ddt_phase_name(int phase);
const char *ddt_base_name(int base);

#endif
