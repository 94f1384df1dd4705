/*
 * CSV output: one row per measured cell, with its 95% interval and whether
 * it is the slower side of a guideline violation.
 *   stride,set,benchmark,row,column,median_us,ci_lo_us,ci_hi_us,violation
 * set is "user" or "normalized"; benchmark 1, 2, 3 or 6.
 */
#include <math.h>

#include "ddt.h"

enum { MAXV = 256 };

typedef struct sheet {
    FILE *out;
    int stride;
    const char *set;
    ddt_violation_t v[MAXV];
    int n;
} sheet_t;

static void row(sheet_t *s, ddt_cell_t at, const char *r, const char *c, const ddt_time_t *t)
{
    if (isnan(t->median))
        return;
    fprintf(s->out, "%d,%s,%d,%s,%s,%.3f,%.3f,%.3f,%d\n", s->stride, s->set, at.bench, r, c,
            t->median * 1e6, t->lo * 1e6, t->hi * 1e6, ddt_marked(s->v, s->n, at));
}

static void set_rows(sheet_t *s, const ddt_results_t *r)
{
    static const char *const form2[2] = {"count", "contig"};
    static const char *const form3[2] = {"irregular", "regular"};
    char col[48];
    s->n = ddt_check(r, s->v, MAXV);
    s->n = s->n < MAXV ? s->n : MAXV;
    for (int ph = 0; ph < DDT_NPHASE; ph++)
        for (int d = 0; d < DDT_NDESC; d++)
            row(s, (ddt_cell_t){1, ph, d, 0}, ddt_phase_name(ph), ddt_desc_name(d), &r->b1[ph][d]);
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int f = 0; f < 2; f++) {
            for (int i = 0; i < DDT_NBASE; i++) {
                snprintf(col, sizeof col, "%s %s", ddt_base_name(i), form2[f]);
                row(s, (ddt_cell_t){2, ph, i, f}, ddt_phase_name(ph), col, &r->b2[ph][i][f]);
            }
            for (int l = 0; l < DDT_N3; l++) {
                snprintf(col, sizeof col, "%s %s", l == DDT_3A ? "3a" : "3b", form3[f]);
                row(s, (ddt_cell_t){3, ph, l, f}, ddt_phase_name(ph), col, &r->b3[ph][l][f]);
            }
        }
}

int ddt_csv(FILE *out, const ddt_opts_t *o, const ddt_run_t *run, int header)
{
    static sheet_t s;
    const char *rows[3] = {"construct", "commit", "normalize"};
    (void)o;
    if (header)
        fprintf(out, "stride,set,benchmark,row,column,median_us,ci_lo_us,ci_hi_us,violation\n");
    s = (sheet_t){out, run->orig.stride, "user", {{0}}, 0};
    set_rows(&s, &run->orig);
    s.set = "normalized";
    set_rows(&s, &run->norm);
    s.set = "user";
    s.n = 0;
    for (int k = 0; k < 3; k++)
        for (int d = DDT_CONTIG; d < DDT_NDESC; d++)
            row(&s, (ddt_cell_t){6, k, d, 0}, rows[k], ddt_desc_name(d), &run->build[k][d]);
    return ferror(out) ? -1 : 0;
}
