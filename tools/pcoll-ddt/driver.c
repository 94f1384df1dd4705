/*
 * One stride: every benchmark, for the user's descriptions and for their
 * pcoll_type_normalize forms.  The datatypes of a benchmark are all made
 * first and then timed together (interleaved, see measure.c).  Before
 * timing two descriptions of one layout, rank 0 checks that they pack the
 * same bytes: a wrong datatype would make every number meaningless.
 */
#include <math.h>

#include "ddt.h"

enum { MAX_ITEMS = 64, MAX_TYPES = 16 };

/* The items of one benchmark and the datatypes they use. */
typedef struct batch {
    ddt_item_t items[MAX_ITEMS];
    int n;
    ddt_dt_t types[MAX_TYPES];
    int ntypes;
} batch_t;

static void add(batch_t *b, int kind, ddt_dt_t dt, ddt_time_t *out)
{
    b->items[b->n++] = (ddt_item_t){kind, dt, out};
}

/* Commit d and keep it until the batch is run. */
static ddt_dt_t keep(batch_t *b, ddt_dt_t d)
{
    ddt_commit(&d);
    b->types[b->ntypes++] = d;
    return d;
}

static void run(const ddt_ctx_t *c, batch_t *b)
{
    ddt_measure(c, b->items, b->n);
    for (int i = 0; i < b->ntypes; i++)
        ddt_dt_free(&b->types[i]);
    b->n = b->ntypes = 0;
}

/* 1 (on rank 0) when a and b move different data. */
static int differs(const ddt_ctx_t *c, const ddt_dt_t *a, const ddt_dt_t *b, const char *what)
{
    if (c->rank != 0 || ddt_same_data(c, a, b))
        return 0;
    fprintf(stderr, "pcoll-ddt: %s packs other data than its reference\n", what);
    return 1;
}

/* The pack, send and pack+send rows of Benchmark 1 for one description. */
static void b1_column(batch_t *b, ddt_dt_t d, ddt_time_t rows[][DDT_NDESC], int desc)
{
    for (int ph = 0; ph < DDT_NPHASE; ph++)
        add(b, ph, d, &rows[ph][desc]);
}

static int bench1(const ddt_ctx_t *c, ddt_run_t *r, batch_t *b)
{
    ddt_dt_t o, n;
    int bad = 0;
    for (int d = DDT_CONTIG; d < DDT_NDESC; d++) {
        ddt_make_b1(c, d, &o);
        if (o.type == MPI_DATATYPE_NULL)
            continue;
        o = keep(b, o);
        ddt_normalized(&o, &n);
        n = keep(b, n);
        bad |= differs(c, &o, &n, ddt_desc_name(d));
        b1_column(b, o, r->orig.b1, d);
        b1_column(b, n, r->norm.b1, d);
    }
    add(b, DDT_ITEM_USERPACK, (ddt_dt_t){c->base, c->n}, &r->orig.b1[DDT_PACK][DDT_USER]);
    if (c->stride == 1)
        add(b, DDT_SEND, (ddt_dt_t){c->base, c->n}, &r->orig.b1[DDT_SEND][DDT_USER]);
    run(c, b);
    for (int ph = 0; ph < DDT_NPHASE; ph++)
        r->norm.b1[ph][DDT_USER] = r->orig.b1[ph][DDT_USER];
    return bad;
}

static void bench2(const ddt_ctx_t *c, ddt_run_t *r, batch_t *b)
{
    for (int t = 0; t < DDT_NBASE; t++)
        for (int f = DDT_COUNT; f <= DDT_ENCAPSULATED; f++) {
            ddt_dt_t d;
            ddt_make_b2(c, t, f, &d);
            d = keep(b, d);
            add(b, DDT_PACK, d, &r->orig.b2[DDT_PACK][t][f]);
            add(b, DDT_SEND, d, &r->orig.b2[DDT_SEND][t][f]);
        }
    run(c, b);
}

/* Pack and send of d into cell (layout, form) of the results res. */
static void b3_cell(batch_t *b, ddt_dt_t d, ddt_results_t *res, int l, int f)
{
    add(b, DDT_PACK, d, &res->b3[DDT_PACK][l][f]);
    add(b, DDT_SEND, d, &res->b3[DDT_SEND][l][f]);
}

static int bench3(const ddt_ctx_t *c, ddt_run_t *r, batch_t *b)
{
    int bad = 0;
    for (int l = 0; l < DDT_N3; l++) {
        ddt_dt_t irr, reg, n;
        ddt_make_b3(c, l, DDT_IRREGULAR, &irr);
        ddt_make_b3(c, l, DDT_REGULAR, &reg);
        irr = keep(b, irr);
        reg = keep(b, reg);
        ddt_normalized(&irr, &n);
        n = keep(b, n);
        bad |= differs(c, &irr, &reg, l == DDT_3A ? "3a regular" : "3b regular");
        bad |= differs(c, &irr, &n, l == DDT_3A ? "3a normalized" : "3b normalized");
        b3_cell(b, irr, &r->orig, l, DDT_IRREGULAR);
        b3_cell(b, reg, &r->orig, l, DDT_REGULAR);
        b3_cell(b, n, &r->norm, l, DDT_IRREGULAR);
    }
    run(c, b);
    for (int ph = DDT_PACK; ph <= DDT_SEND; ph++)
        for (int l = 0; l < DDT_N3; l++)
            r->norm.b3[ph][l][DDT_REGULAR] = r->orig.b3[ph][l][DDT_REGULAR];
    return bad;
}

/* Benchmark 6 for every description there is. */
static void bench6(const ddt_ctx_t *c, ddt_run_t *r)
{
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < DDT_NDESC; d++)
            r->build[k][d] = (ddt_time_t){NAN, NAN, NAN};
    for (int d = DDT_CONTIG; d < DDT_NDESC; d++)
        if (d != DDT_CONTIG || c->stride == 1)
            ddt_time_build(c, d, &r->build[0][d], &r->build[1][d], &r->build[2][d]);
}

int ddt_run_stride(const ddt_ctx_t *c, ddt_run_t *r)
{
    static batch_t b;
    int bad;
    ddt_results_init(&r->orig, c->stride);
    ddt_results_init(&r->norm, c->stride);
    bad = bench1(c, r, &b);
    bench2(c, r, &b);
    bad |= bench3(c, r, &b);
    bench6(c, r);
    return bad;
}
