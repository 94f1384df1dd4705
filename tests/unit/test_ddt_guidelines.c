/*
 * test_ddt_guidelines.c -- pcoll-ddt's guideline logic on synthetic timings
 * (tools/pcoll-ddt/guidelines.c, no MPI).
 *
 * Each case starts from a result set in which every description takes the
 * same time (100 us +- 1), changes a few cells, and checks which guidelines
 * are violated, by whom, by how much, which cells are marked and what the
 * summary says.  Overlapping intervals never make a violation, even with
 * different medians, nor do differences under 5%; unmeasured cells are
 * skipped.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "guidelines.h"

enum { MAXV = 64 };

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: %s\n", what);
}

/* A time of median us microseconds with a 95% interval of +- half us. */
static ddt_time_t us(double median, double half)
{
    return (ddt_time_t){median * 1e-6, (median - half) * 1e-6, (median + half) * 1e-6};
}

/* Every measured cell of a stride at 100 +- 1 us. */
static void uniform(ddt_results_t *r, int stride)
{
    ddt_results_init(r, stride);
    for (int ph = 0; ph < DDT_NPHASE; ph++)
        for (int d = 0; d < DDT_NDESC; d++)
            if (stride == 1 || (d != DDT_CONTIG && (d != DDT_USER || ph == DDT_PACK)))
                r->b1[ph][d] = us(100, 1);
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int i = 0; i < DDT_NBASE; i++)
            for (int f = 0; f < 2; f++)
                r->b2[ph][i][f] = us(100, 1);
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int l = 0; l < DDT_N3; l++)
            for (int f = 0; f < 2; f++)
                r->b3[ph][l][f] = us(100, 1);
}

/* How many of the n violations are of guideline g. */
static int count(const ddt_violation_t *v, int n, int g)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += v[i].guideline == g;
    return k;
}

/* The summary as text. */
static void summary(const ddt_results_t *r, const ddt_violation_t *v, int n, char *buf,
                    size_t len)
{
    FILE *f = tmpfile();
    size_t got;
    ddt_summary(f, r, v, n);
    rewind(f);
    got = fread(buf, 1, len - 1, f);
    buf[got] = '\0';
    fclose(f);
}

static void test_slower(void)
{
    ddt_time_t a = us(110, 5), b = us(100, 5), c = us(120, 4), none = {NAN, NAN, NAN};
    check(!ddt_slower(&a, &b), "touching intervals (105 vs 105) are no violation");
    check(ddt_slower(&c, &b), "116..124 is slower than 95..105");
    check(!ddt_slower(&b, &c), "the faster one is not slower");
    check(!ddt_slower(&none, &b) && !ddt_slower(&c, &none), "unmeasured times compare as equal");
    a = us(103, 0.1);
    b = us(100, 0.1);
    check(!ddt_slower(&a, &b), "+3% with disjoint intervals is negligible");
    a = us(106, 0.1);
    check(ddt_slower(&a, &b), "+6% with disjoint intervals is slower");
}

static void test_uniform(void)
{
    ddt_results_t r;
    ddt_violation_t v[MAXV];
    char text[2048];
    uniform(&r, 16);
    r.b1[DDT_SEND][DDT_STRUCT] = us(150, 60); /* overlapping, different median */
    check(ddt_check(&r, v, MAXV) == 0, "equal times: no violation");
    summary(&r, v, 0, text, sizeof text);
    check(strstr(text, "guideline (3): holds") != NULL, "summary: (3) holds");
    check(strstr(text, "guideline (4): not checked (stride > 1)") != NULL,
          "summary: (4) is not checked at stride 16");
}

/* The first violation of guideline g, or NULL. */
static const ddt_violation_t *find(const ddt_violation_t *v, int n, int g)
{
    for (int i = 0; i < n; i++)
        if (v[i].guideline == g)
            return &v[i];
    return NULL;
}

/* indexed_block send 37% slower than the others: (3) against vector, and
 * (2) against indexed and struct (higher penalties, faster). */
static void test_guideline3(void)
{
    ddt_results_t r;
    ddt_violation_t v[MAXV];
    const ddt_violation_t *g3;
    char text[2048];
    int n;
    uniform(&r, 16);
    r.b1[DDT_SEND][DDT_BIDX] = us(137, 1);
    r.b1[DDT_PACKSEND][DDT_BIDX] = us(137, 1);
    n = ddt_check(&r, v, MAXV);
    g3 = find(v, n, 3);
    check(n == 3 && count(v, n, 3) == 1 && count(v, n, 2) == 2, "one (3), two (2)");
    check(g3 && strcmp(g3->who, "indexed_block send") == 0 && strcmp(g3->than, "vector send") == 0,
          "indexed_block send is slower than vector send");
    check(g3 && fabs(g3->excess - 0.37) < 1e-9, "by 37%");
    check(ddt_marked(v, n, (ddt_cell_t){1, DDT_SEND, DDT_BIDX, 0}), "its cell is marked");
    check(!ddt_marked(v, n, (ddt_cell_t){1, DDT_SEND, DDT_VECTOR, 0}), "vector's is not");
    summary(&r, v, n, text, sizeof text);
    check(strstr(text, "guideline (3): violated by indexed_block send (+37% vs vector send)") !=
              NULL,
          "summary line of (3)");
    uniform(&r, 16);
    r.b1[DDT_SEND][DDT_STRUCT] = us(137, 1);
    r.b1[DDT_PACKSEND][DDT_STRUCT] = us(137, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 1 && v[0].guideline == 3, "struct slower than vector: (3) alone");
}

/* struct faster than everything else: (2) for each lower-penalty one. */
static void test_guideline2(void)
{
    ddt_results_t r;
    ddt_violation_t v[MAXV];
    int n;
    uniform(&r, 16);
    r.b1[DDT_PACK][DDT_STRUCT] = us(50, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 4 && count(v, n, 2) == 4, "resized, vector, indexed_block, indexed pack: (2)");
    check(ddt_marked(v, n, (ddt_cell_t){1, DDT_PACK, DDT_VECTOR, 0}), "vector pack is marked");
    check(!ddt_marked(v, n, (ddt_cell_t){1, DDT_PACK, DDT_STRUCT, 0}), "struct pack is not");
}

/* Stride 1: sending any description slower than the basic type: (4). */
static void test_guideline4(void)
{
    ddt_results_t r;
    ddt_violation_t v[MAXV];
    int n;
    uniform(&r, 1);
    r.b1[DDT_SEND][DDT_USER] = us(50, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 6 && count(v, n, 4) == 6, "six descriptions slower than the basic type: (4)");
    r.stride = 16;
    check(ddt_check(&r, v, MAXV) == 0, "(4) only at stride 1");
}

/* Send slower than pack + send of packed data: (5); pack slower than the
 * user loop: (6), with the (2)/(3) consequences. */
static void test_guidelines56(void)
{
    ddt_results_t r;
    ddt_violation_t v[MAXV];
    int n;
    uniform(&r, 16);
    r.b1[DDT_SEND][DDT_VECTOR] = us(300, 1);
    r.b1[DDT_PACKSEND][DDT_VECTOR] = us(100, 1);
    n = ddt_check(&r, v, MAXV);
    check(count(v, n, 5) == 1 && count(v, n, 2) == 3 && count(v, n, 3) == 0,
          "vector send: (5) once, (2) against indexed_block, indexed, struct");
    uniform(&r, 16);
    r.b1[DDT_PACK][DDT_USER] = us(50, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 5 && count(v, n, 6) == 5, "every pack slower than the user loop: (6)");
}

/* Benchmarks 2 and 3. */
static void test_benchmarks23(void)
{
    ddt_results_t r;
    ddt_violation_t v[MAXV];
    int n;
    uniform(&r, 16);
    r.b2[DDT_SEND][DDT_B_VECTOR][DDT_ENCAPSULATED] = us(200, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 1 && v[0].guideline == 1 && strcmp(v[0].who, "contig(n, vector) send") == 0,
          "contig(n, vector) send slower than n x vector: (1)");
    check(ddt_marked(v, n, (ddt_cell_t){2, DDT_SEND, DDT_B_VECTOR, DDT_ENCAPSULATED}),
          "the encapsulated cell is marked");
    uniform(&r, 16);
    r.b2[DDT_PACK][DDT_B_IDX][DDT_COUNT] = us(200, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 1 && v[0].guideline == 1, "(1) holds both ways: n x indexed slower");
    uniform(&r, 16);
    r.b3[DDT_SEND][DDT_3A][DDT_IRREGULAR] = us(300, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 1 && v[0].guideline == 3 && strcmp(v[0].who, "3a irregular send") == 0,
          "3a as indexed_block slower than the two-level vector: (3)");
    r.b3[DDT_SEND][DDT_3A][DDT_IRREGULAR] = us(100, 1);
    r.b3[DDT_PACK][DDT_3B][DDT_REGULAR] = us(300, 1);
    n = ddt_check(&r, v, MAXV);
    check(n == 1 && v[0].guideline == 2, "3b regular slower than indexed: (2)");
}

static void test_limits(void)
{
    ddt_results_t r;
    ddt_violation_t v[2];
    uniform(&r, 16);
    r.b1[DDT_PACK][DDT_USER] = us(50, 1);
    check(ddt_check(&r, v, 2) == 5, "the count goes past max");
    ddt_results_init(&r, 16);
    check(ddt_check(&r, v, 2) == 0, "nothing measured, nothing violated");
    check(strcmp(ddt_desc_name(DDT_BIDX), "indexed_block") == 0 &&
              strcmp(ddt_phase_name(DDT_PACKSEND), "pack+send") == 0 &&
              strcmp(ddt_base_name(DDT_B_STRUCT), "struct") == 0,
          "names");
}

int main(void)
{
    test_slower();
    test_uniform();
    test_guideline3();
    test_guideline2();
    test_guideline4();
    test_guidelines56();
    test_benchmarks23();
    test_limits();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
