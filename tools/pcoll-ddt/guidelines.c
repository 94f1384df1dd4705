/*
 * Guidelines (1)-(6) on measured times: see guidelines.h.  No MPI.
 */
#include "guidelines.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Collected violations, and how many comparisons each guideline made. */
typedef struct sink {
    ddt_violation_t *v;
    int max, n;
    int compared[7];
} sink_t;

static const char *const desc_names[DDT_NDESC] = {"user",          "contig",  "resized", "vector",
                                                  "indexed_block", "indexed", "struct"};
static const char *const phase_names[DDT_NPHASE] = {"pack", "send", "pack+send"};
static const char *const base_names[DDT_NBASE] = {"basic",         "contig",  "vector",
                                                  "indexed_block", "indexed", "struct"};
static const char *const layout_names[DDT_N3] = {"3a", "3b"};

/* The penalty order of guideline (2): contig < resized = vector < ... */
static const int level[DDT_NDESC] = {-1, 0, 1, 1, 2, 3, 4};

const char *ddt_desc_name(int desc) { return desc_names[desc]; }
const char *ddt_phase_name(int phase) { return phase_names[phase]; }
const char *ddt_base_name(int base) { return base_names[base]; }

static void unmeasured(ddt_time_t *t, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof *t; i++)
        t[i] = (ddt_time_t){NAN, NAN, NAN};
}

void ddt_results_init(ddt_results_t *r, int stride)
{
    r->stride = stride;
    unmeasured(&r->b1[0][0], sizeof r->b1);
    unmeasured(&r->b2[0][0][0], sizeof r->b2);
    unmeasured(&r->b3[0][0][0], sizeof r->b3);
}

static int measured(const ddt_time_t *t)
{
    return !isnan(t->median) && !isnan(t->lo) && !isnan(t->hi);
}

int ddt_slower(const ddt_time_t *a, const ddt_time_t *b)
{
    return measured(a) && measured(b) && a->lo > b->hi &&
           a->median >= b->median * (1 + DDT_MIN_EXCESS);
}

/* Guideline g: a (who) should not be slower than b (than). */
static void expect(sink_t *s, int g, const ddt_time_t *a, const ddt_time_t *b, const char *who,
                   const char *than, ddt_cell_t cell)
{
    ddt_violation_t *v;
    if (!measured(a) || !measured(b))
        return;
    s->compared[g]++;
    if (!ddt_slower(a, b))
        return;
    if (s->n < s->max) {
        v = &s->v[s->n];
        v->guideline = g;
        snprintf(v->who, sizeof v->who, "%s", who);
        snprintf(v->than, sizeof v->than, "%s", than);
        v->excess = a->median / b->median - 1;
        v->cell = cell;
    }
    s->n++;
}

/* A label "<name> <phase>". */
static const char *label(char *buf, size_t n, const char *name, int phase)
{
    snprintf(buf, n, "%s %s", name, phase_names[phase]);
    return buf;
}

/* (1) count items of T_b and one contig(count, T_b) take the same time. */
static void check1(const ddt_results_t *r, sink_t *s)
{
    char a[64], b[64], name[48];
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int t = 0; t < DDT_NBASE; t++) {
            const ddt_time_t *count = &r->b2[ph][t][DDT_COUNT];
            const ddt_time_t *enc = &r->b2[ph][t][DDT_ENCAPSULATED];
            snprintf(name, sizeof name, "contig(n, %s)", base_names[t]);
            label(a, sizeof a, name, ph);
            snprintf(name, sizeof name, "n x %s", base_names[t]);
            label(b, sizeof b, name, ph);
            expect(s, 1, enc, count, a, b, (ddt_cell_t){2, ph, t, DDT_ENCAPSULATED});
            expect(s, 1, count, enc, b, a, (ddt_cell_t){2, ph, t, DDT_COUNT});
        }
}

/* Benchmark 3 in guideline g: form `slow` should not be slower than `fast`. */
static void check3_layouts(const ddt_results_t *r, sink_t *s, int g, int slow, int fast)
{
    const char *form[2] = {"irregular", "regular"};
    char a[64], b[64], name[48];
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int l = 0; l < DDT_N3; l++) {
            snprintf(name, sizeof name, "%s %s", layout_names[l], form[slow]);
            label(a, sizeof a, name, ph);
            snprintf(name, sizeof name, "%s %s", layout_names[l], form[fast]);
            label(b, sizeof b, name, ph);
            expect(s, g, &r->b3[ph][l][slow], &r->b3[ph][l][fast], a, b,
                   (ddt_cell_t){3, ph, l, slow});
        }
}

/* (2) a lower-penalty description is not slower than a higher one. */
static void check2(const ddt_results_t *r, sink_t *s)
{
    char a[64], b[64];
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int i = DDT_CONTIG; i < DDT_NDESC; i++)
            for (int j = DDT_CONTIG; j < DDT_NDESC; j++)
                if (level[i] < level[j])
                    expect(s, 2, &r->b1[ph][i], &r->b1[ph][j],
                           label(a, sizeof a, desc_names[i], ph),
                           label(b, sizeof b, desc_names[j], ph), (ddt_cell_t){1, ph, i, 0});
    check3_layouts(r, s, 2, DDT_REGULAR, DDT_IRREGULAR);
}

/* (3) no description is slower than the lowest-penalty one. */
static void check3(const ddt_results_t *r, sink_t *s)
{
    char a[64], b[64];
    int ref = measured(&r->b1[DDT_SEND][DDT_CONTIG]) || measured(&r->b1[DDT_PACK][DDT_CONTIG])
                  ? DDT_CONTIG
                  : DDT_VECTOR;
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int d = DDT_CONTIG; d < DDT_NDESC; d++)
            if (d != ref)
                expect(s, 3, &r->b1[ph][d], &r->b1[ph][ref], label(a, sizeof a, desc_names[d], ph),
                       label(b, sizeof b, desc_names[ref], ph), (ddt_cell_t){1, ph, d, 0});
    check3_layouts(r, s, 3, DDT_IRREGULAR, DDT_REGULAR);
}

/* (4), (5), (6): every description against one reference row/column. */
static void check456(const ddt_results_t *r, sink_t *s)
{
    char a[64], b[64], c[64];
    for (int d = DDT_CONTIG; d < DDT_NDESC; d++) {
        const ddt_time_t *send = &r->b1[DDT_SEND][d], *pack = &r->b1[DDT_PACK][d];
        label(a, sizeof a, desc_names[d], DDT_SEND);
        if (r->stride == 1)
            expect(s, 4, send, &r->b1[DDT_SEND][DDT_USER], a, "basic type send",
                   (ddt_cell_t){1, DDT_SEND, d, 0});
        expect(s, 5, send, &r->b1[DDT_PACKSEND][d], a,
               label(b, sizeof b, desc_names[d], DDT_PACKSEND), (ddt_cell_t){1, DDT_SEND, d, 0});
        expect(s, 6, pack, &r->b1[DDT_PACK][DDT_USER], label(c, sizeof c, desc_names[d], DDT_PACK),
               "user pack loop", (ddt_cell_t){1, DDT_PACK, d, 0});
    }
}

static void run_checks(const ddt_results_t *r, sink_t *s)
{
    check1(r, s);
    check2(r, s);
    check3(r, s);
    check456(r, s);
}

int ddt_check(const ddt_results_t *r, ddt_violation_t *v, int max)
{
    sink_t s = {v, max, 0, {0}};
    run_checks(r, &s);
    return s.n;
}

int ddt_marked(const ddt_violation_t *v, int n, ddt_cell_t cell)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&v[i].cell, &cell, sizeof cell) == 0)
            return 1;
    return 0;
}

void ddt_summary(FILE *out, const ddt_results_t *r, const ddt_violation_t *v, int n)
{
    sink_t s = {NULL, 0, 0, {0}};
    run_checks(r, &s);
    for (int g = 1; g <= 6; g++) {
        int found = 0;
        fprintf(out, "guideline (%d): ", g);
        for (int i = 0; i < n; i++)
            if (v[i].guideline == g)
                fprintf(out, "%s%s (%+.0f%% vs %s)", found++ ? ", " : "violated by ", v[i].who,
                        100 * v[i].excess, v[i].than);
        if (!found && s.compared[g] == 0)
            fprintf(out, "not checked (%s)", g == 4 ? "stride > 1" : "nothing measured");
        else if (!found)
            fprintf(out, "holds (%d comparisons)", s.compared[g]);
        fputc('\n', out);
    }
}
