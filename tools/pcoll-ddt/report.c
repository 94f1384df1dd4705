/*
 * Output on rank 0: tables shaped like the guidelines paper's Tables 1 and 2
 * (rows pack, send, pack+send; columns User, Contig, Resized, Vector, BIdx,
 * Idx, Struct), once for the user's descriptions and once after
 * pcoll_type_normalize, then Benchmarks 2, 3 and 6 and one summary line per
 * guideline for each column set.  Times are medians in microseconds; '*'
 * marks the slower side of a violation; '-' is not measured.  CSV: one row
 * per measured cell.
 */
#include <math.h>
#include <string.h>

#include "ddt.h"

enum { MAXV = 256 };

static const char *const short_desc[DDT_NDESC] = {"User", "Contig", "Resized", "Vector",
                                                  "BIdx", "Idx",    "Struct"};

/* A cell: the median in us (one decimal below 100), '*' when marked. */
static void cell(FILE *out, const ddt_time_t *t, int marked)
{
    char buf[32];
    double us = t->median * 1e6;
    if (isnan(us))
        snprintf(buf, sizeof buf, "-");
    else
        snprintf(buf, sizeof buf, us < 100 ? "%.1f%s" : "%.0f%s", us, marked ? "*" : "");
    fprintf(out, " %8s", buf);
}

/* The violations of one column set. */
typedef struct checked {
    const ddt_results_t *r;
    ddt_violation_t v[MAXV];
    int n;
} checked_t;

static void check(checked_t *k, const ddt_results_t *r)
{
    k->r = r;
    k->n = ddt_check(r, k->v, MAXV);
    k->n = k->n < MAXV ? k->n : MAXV;
}

static void table1(FILE *out, const checked_t *k)
{
    const ddt_results_t *set[2] = {k[0].r, k[1].r};
    fprintf(out, "%-10s", "phase");
    for (int s = 0; s < 2; s++)
        for (int d = s; d < DDT_NDESC; d++)
            fprintf(out, "%s %8s", s && d == 1 ? " |" : "", short_desc[d]);
    fprintf(out, "\n");
    for (int ph = 0; ph < DDT_NPHASE; ph++) {
        fprintf(out, "%-10s", ddt_phase_name(ph));
        for (int s = 0; s < 2; s++)
            for (int d = s; d < DDT_NDESC; d++) {
                fprintf(out, "%s", s && d == 1 ? " |" : "");
                cell(out, &set[s]->b1[ph][d],
                     ddt_marked(k[s].v, k[s].n, (ddt_cell_t){1, ph, d, 0}));
            }
        fprintf(out, "\n");
    }
}

static void table2(FILE *out, const checked_t *k)
{
    fprintf(out, "%-14s %8s %8s %8s %8s\n", "base type", "pack n*T", "contig", "send n*T",
            "contig");
    for (int b = 0; b < DDT_NBASE; b++) {
        fprintf(out, "%-14s", ddt_base_name(b));
        for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
            for (int f = 0; f < 2; f++)
                cell(out, &k->r->b2[ph][b][f], ddt_marked(k->v, k->n, (ddt_cell_t){2, ph, b, f}));
        fprintf(out, "\n");
    }
}

static void table3(FILE *out, const checked_t *k)
{
    fprintf(out, "%-8s %8s %8s %8s %8s %8s %8s\n", "layout", "pack irr", "regular", "normal.",
            "send irr", "regular", "normal.");
    for (int l = 0; l < DDT_N3; l++) {
        fprintf(out, "%-8s", l == DDT_3A ? "3a" : "3b");
        for (int ph = DDT_PACK; ph <= DDT_SEND; ph++) {
            cell(out, &k[0].r->b3[ph][l][DDT_IRREGULAR],
                 ddt_marked(k[0].v, k[0].n, (ddt_cell_t){3, ph, l, DDT_IRREGULAR}));
            cell(out, &k[0].r->b3[ph][l][DDT_REGULAR],
                 ddt_marked(k[0].v, k[0].n, (ddt_cell_t){3, ph, l, DDT_REGULAR}));
            cell(out, &k[1].r->b3[ph][l][DDT_IRREGULAR],
                 ddt_marked(k[1].v, k[1].n, (ddt_cell_t){3, ph, l, DDT_IRREGULAR}));
        }
        fprintf(out, "\n");
    }
}

static void table6(FILE *out, const ddt_run_t *run)
{
    const char *rows[3] = {"construct", "commit", "normalize"};
    fprintf(out, "%-10s", "");
    for (int d = DDT_CONTIG; d < DDT_NDESC; d++)
        fprintf(out, " %8s", short_desc[d]);
    fprintf(out, "\n");
    for (int k = 0; k < 3; k++) {
        fprintf(out, "%-10s", rows[k]);
        for (int d = DDT_CONTIG; d < DDT_NDESC; d++)
            cell(out, &run->build[k][d], 0);
        fprintf(out, "\n");
    }
}

void ddt_report(FILE *out, const ddt_opts_t *o, const ddt_run_t *run)
{
    static checked_t k[2];
    check(&k[0], &run->orig);
    check(&k[1], &run->norm);
    fprintf(out, "\n== stride %d, n = %d, type %s; medians in us of %d runs; * = violation\n",
            run->orig.stride, o->n, o->type_name, o->reps);
    fprintf(out, "\nBenchmarks 1, 4, 5 (Table %d shape): the user's descriptions | after "
                 "pcoll_type_normalize\n", run->orig.stride == 1 ? 1 : 2);
    table1(out, k);
    fprintf(out, "\nBenchmark 2 (guideline 1): n items of T vs one contig(n, T)\n");
    table2(out, &k[0]);
    fprintf(out, "\nBenchmark 3: irregular (3a indexed_block, 3b indexed), regular "
                 "(two-level vector; head+vector+tail), normalized irregular\n");
    table3(out, k);
    fprintf(out, "\nBenchmark 6: construction, commit, pcoll_type_normalize + commit\n");
    table6(out, run);
    fprintf(out, "\nthe user's descriptions:\n");
    ddt_summary(out, k[0].r, k[0].v, k[0].n);
    fprintf(out, "after pcoll_type_normalize (the irregular forms of 3a/3b normalized):\n");
    ddt_summary(out, k[1].r, k[1].v, k[1].n);
}
