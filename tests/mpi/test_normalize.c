/*
 * test_normalize.c -- pcoll_type_normalize, pcoll_type_penalty and the
 * pcoll_normalize plan option.
 *
 * Type maps are kept: a seeded pool of random nested types (every combiner:
 * contiguous, vector, hvector, (h)indexed, (h)indexed_block, struct,
 * subarray, darray, resized, dup, over basic and pair types; displacements
 * regular half of the time so that the patterns are met, negative strides,
 * overlaps and zero counts included) is normalized, and the result must have
 * the same size, lb, extent, true lb and true extent, pack 1 and 3 items of
 * a buffer of distinct bytes to the same bytes, and a penalty no higher.
 * The expected cheaper forms are checked by the shape of the constructor
 * tree ("hvector(vector(double))") for the guidelines paper's Benchmark
 * 3a/3b layouts and for indexed/struct types that are really vectors or
 * contiguous; penalties of known types; bad arguments; the option reaching
 * plans (PCOLL_NORMALIZE) and a malformed pcoll_normalize value.
 *
 * Every rank works on MPI_COMM_SELF alone and checks its share of the pool
 * (type i on rank i mod size), so the test stays fast at np 16.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "datatype/contents.h"
#include "harness.h"

enum { POOL = 360, MAX_SIZE = 4096 };

/* ---- seeded random numbers (splitmix64) -------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int rnd(int lo, int hi)
{
    return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* ---- describing and comparing types -------------------------------------- */

static const char *combiner_name(int combiner)
{
    switch (combiner) {
    case MPI_COMBINER_DUP: return "dup";
    case MPI_COMBINER_CONTIGUOUS: return "contiguous";
    case MPI_COMBINER_VECTOR: return "vector";
    case MPI_COMBINER_HVECTOR: return "hvector";
    case MPI_COMBINER_INDEXED: return "indexed";
    case MPI_COMBINER_HINDEXED: return "hindexed";
    case MPI_COMBINER_INDEXED_BLOCK: return "indexed_block";
    case MPI_COMBINER_HINDEXED_BLOCK: return "hindexed_block";
    case MPI_COMBINER_STRUCT: return "struct";
    case MPI_COMBINER_SUBARRAY: return "subarray";
    case MPI_COMBINER_DARRAY: return "darray";
    case MPI_COMBINER_RESIZED: return "resized";
    default: return "?";
    }
}

/* The constructor tree of t as text: "hvector(vector(double))". */
static void describe(MPI_Datatype t, char *buf, size_t n)
{
    pcoll__contents_t c = {0};
    PT_OK(pcoll__contents_get(t, "test", &c));
    if (pcoll__combiner_predefined(c.combiner)) {
        snprintf(buf, n, "%s", t == MPI_DOUBLE ? "double" : t == MPI_INT ? "int" : "named");
        return;
    }
    snprintf(buf, n, "%s(", combiner_name(c.combiner));
    for (int i = 0; i < c.ntypes; i++) {
        size_t at = strlen(buf);
        if (i > 0 && at + 1 < n)
            buf[at++] = ',';
        describe(c.types[i], buf + at, n - at);
    }
    if (strlen(buf) + 1 < n)
        strcat(buf, ")");
    pcoll__contents_free(&c);
}

/* A byte of the fill pattern: distinct-looking at every address. */
static unsigned char fill_byte(long i)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
    return (unsigned char)((z ^ (z >> 29)) >> 24);
}

/* Pack count items of t from a buffer filled with the pattern; *len bytes. */
static char *pack_items(MPI_Datatype t, int count, int *len)
{
    MPI_Aint lb, ext, tlb, text, lo, hi;
    int size, pos = 0;
    char *buf, *out;
    PT_MPI(MPI_Type_get_extent(t, &lb, &ext));
    PT_MPI(MPI_Type_get_true_extent(t, &tlb, &text));
    lo = tlb + (ext < 0 ? (count - 1) * ext : 0);
    hi = tlb + text + (ext > 0 ? (count - 1) * ext : 0);
    PT_MPI(MPI_Pack_size(count, t, MPI_COMM_SELF, &size));
    buf = malloc((size_t)(hi - lo) + 1);
    out = malloc((size_t)size + 1);
    for (MPI_Aint i = 0; i < hi - lo; i++)
        buf[i] = (char)fill_byte(lo + i);
    PT_MPI(MPI_Pack(buf - lo, count, t, out, size, &pos, MPI_COMM_SELF));
    free(buf);
    *len = pos;
    return out;
}

/* n and t have the same size, bounds and type map (packed bytes); the
 * same true bounds when exact_true is set. */
static void check_same_map(MPI_Datatype t, MPI_Datatype n, int exact_true)
{
    MPI_Aint lb[2], ext[2], tlb[2], text[2];
    int size[2], inside, same;
    MPI_Datatype ts[2] = {t, n};
    for (int k = 0; k < 2; k++) {
        PT_MPI(MPI_Type_size(ts[k], &size[k]));
        PT_MPI(MPI_Type_get_extent(ts[k], &lb[k], &ext[k]));
        PT_MPI(MPI_Type_get_true_extent(ts[k], &tlb[k], &text[k]));
    }
    PT_CHECK(size[0] == size[1], "size %d, normalized %d", size[0], size[1]);
    PT_CHECK(lb[0] == lb[1] && ext[0] == ext[1], "lb/extent %ld/%ld, normalized %ld/%ld",
             (long)lb[0], (long)ext[0], (long)lb[1], (long)ext[1]);
    /* MPI counts the bounds of empty parts (a struct member of no items) in
     * the true extent; the normalized type has no empty parts, so its true
     * range may be tighter than the original's, never wider. */
    inside = tlb[0] <= tlb[1] && tlb[1] + text[1] <= tlb[0] + text[0];
    same = tlb[0] == tlb[1] && text[0] == text[1];
    PT_CHECK(size[0] == 0 || (exact_true ? same : inside),
             "true lb/extent %ld/%ld, normalized %ld/%ld", (long)tlb[0], (long)text[0],
             (long)tlb[1], (long)text[1]);
    for (int count = 1; size[0] > 0 && count <= 3; count += 2) {
        int la, lb2;
        char *a = pack_items(t, count, &la), *b = pack_items(n, count, &lb2);
        PT_CHECK(la == lb2 && memcmp(a, b, (size_t)la) == 0,
                 "MPI_Pack of %d items differs (%d and %d bytes)", count, la, lb2);
        free(a);
        free(b);
    }
}

/* Normalize t (committing both), check the type map and the penalty, and
 * return the normalized type (the caller frees both). */
static MPI_Datatype normalize_checked(MPI_Datatype *t, int exact_true)
{
    MPI_Datatype n = MPI_DATATYPE_NULL;
    long before = 0, after = 0;
    PT_MPI(MPI_Type_commit(t));
    if (!PT_OK(pcoll_type_normalize(*t, &n)))
        return MPI_DATATYPE_NULL;
    PT_MPI(MPI_Type_commit(&n));
    check_same_map(*t, n, exact_true);
    PT_OK(pcoll_type_penalty(*t, &before));
    PT_OK(pcoll_type_penalty(n, &after));
    PT_CHECK(after <= before, "penalty %ld after normalization, %ld before", after, before);
    return n;
}

/* ---- the random pool ---------------------------------------------------- */

static MPI_Datatype gen(int depth);

static MPI_Datatype leaf(void)
{
    const MPI_Datatype leaves[] = {MPI_INT,   MPI_DOUBLE,     MPI_SHORT, MPI_CHAR,
                                   MPI_FLOAT, MPI_DOUBLE_INT, MPI_2INT,  MPI_DOUBLE};
    return leaves[rnd(0, 7)];
}

/* n displacements in units of scale: regular (i * step + start) half of the
 * time, random in [-4, 12] otherwise. */
static void displacements(int n, int scale, int *ints, MPI_Aint *addrs)
{
    int regular = rnd(0, 1), step = rnd(0, 5), start = rnd(-2, 3);
    for (int i = 0; i < n; i++) {
        int d = regular ? start + i * step : rnd(-4, 12);
        if (ints)
            ints[i] = d;
        if (addrs)
            addrs[i] = (MPI_Aint)d * scale;
    }
}

/* n block lengths: all equal half of the time, 0..3 otherwise. */
static void lengths(int n, int *lens)
{
    int same = rnd(0, 1), len = rnd(1, 3);
    for (int i = 0; i < n; i++)
        lens[i] = same ? len : rnd(0, 3);
}

static MPI_Datatype gen_struct(int depth)
{
    int n = rnd(1, 3), lens[3];
    MPI_Aint disps[3];
    MPI_Datatype types[3], t;
    lengths(n, lens);
    displacements(n, 4 * rnd(1, 4), NULL, disps);
    for (int i = 0; i < n; i++)
        types[i] = gen(depth - 1);
    PT_MPI(MPI_Type_create_struct(n, lens, disps, types, &t));
    for (int i = 0; i < n; i++)
        pcoll__type_release(&types[i]);
    return t;
}

static MPI_Datatype gen_indexed(int kind, MPI_Datatype old)
{
    int n = rnd(1, 4), lens[4], idx[4];
    MPI_Aint disps[4];
    MPI_Datatype t;
    lengths(n, lens);
    displacements(n, rnd(1, 3) * 4, idx, disps);
    if (kind == 0)
        PT_MPI(MPI_Type_indexed(n, lens, idx, old, &t));
    else if (kind == 1)
        PT_MPI(MPI_Type_create_hindexed(n, lens, disps, old, &t));
    else if (kind == 2)
        PT_MPI(MPI_Type_create_indexed_block(n, lens[0], idx, old, &t));
    else
        PT_MPI(MPI_Type_create_hindexed_block(n, lens[0], disps, old, &t));
    return t;
}

static MPI_Datatype gen_subarray(MPI_Datatype old)
{
    int nd = rnd(1, 3), sizes[3], subs[3], starts[3];
    MPI_Datatype t;
    for (int i = 0; i < nd; i++) {
        sizes[i] = rnd(1, 4);
        subs[i] = rnd(1, sizes[i]);
        starts[i] = rnd(0, sizes[i] - subs[i]);
    }
    PT_MPI(MPI_Type_create_subarray(nd, sizes, subs, starts,
                                    rnd(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t));
    return t;
}

/* A darray on a grid of 2 x 3 or 1 x 2 processes, any of them (over MPI_INT
 * when old has no extent: Open MPI refuses that). */
static MPI_Datatype gen_darray(MPI_Datatype old)
{
    int grid = rnd(0, 1), ps[2] = {grid ? 2 : 1, grid ? 3 : 2}, gs[2], dist[2], darg[2];
    MPI_Aint lb, ext;
    MPI_Datatype t;
    PT_MPI(MPI_Type_get_extent(old, &lb, &ext));
    old = ext > 0 ? old : MPI_INT;
    for (int i = 0; i < 2; i++) {
        gs[i] = rnd(1, 7);
        dist[i] = ps[i] == 1 && rnd(0, 1) ? MPI_DISTRIBUTE_NONE
                  : rnd(0, 1)             ? MPI_DISTRIBUTE_BLOCK
                                          : MPI_DISTRIBUTE_CYCLIC;
        darg[i] = dist[i] == MPI_DISTRIBUTE_CYCLIC && rnd(0, 1) ? rnd(1, 2)
                                                                 : MPI_DISTRIBUTE_DFLT_DARG;
    }
    PT_MPI(MPI_Type_create_darray(ps[0] * ps[1], rnd(0, ps[0] * ps[1] - 1), 2, gs, dist, darg,
                                  ps, rnd(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t));
    return t;
}

/* One constructor (kind 0..11) over old. */
static MPI_Datatype gen_single(int kind, MPI_Datatype old)
{
    MPI_Datatype t;
    MPI_Aint lb, ext;
    if (kind == 0)
        PT_MPI(MPI_Type_contiguous(rnd(0, 4), old, &t));
    else if (kind == 1)
        PT_MPI(MPI_Type_vector(rnd(0, 4), rnd(0, 3), rnd(-4, 6), old, &t));
    else if (kind == 2)
        PT_MPI(MPI_Type_create_hvector(rnd(0, 4), rnd(0, 3), 4 * rnd(-8, 16), old, &t));
    else if (kind <= 6)
        t = gen_indexed(kind - 3, old);
    else if (kind == 7)
        t = gen_subarray(old);
    else if (kind == 8)
        t = gen_darray(old);
    else if (kind == 9) {
        PT_MPI(MPI_Type_get_extent(old, &lb, &ext));
        PT_MPI(MPI_Type_create_resized(old, lb + rnd(-8, 8), ext + rnd(0, 16), &t));
    } else
        PT_MPI(MPI_Type_dup(old, &t));
    return t;
}

static MPI_Datatype gen(int depth)
{
    int kind = depth <= 0 ? -1 : rnd(0, 11);
    MPI_Datatype old, t;
    if (kind < 0 || (depth < 2 && rnd(0, 3) == 0))
        return leaf();
    if (kind == 11)
        return gen_struct(depth);
    old = gen(depth - 1);
    t = gen_single(kind, old);
    pcoll__type_release(&old);
    return t;
}

/* Type i of the pool: the same on every rank for the same i. */
static MPI_Datatype pool_type(int i)
{
    rng_state = 0x5eed0000ULL + (uint64_t)i;
    for (;;) {
        MPI_Datatype t = gen(rnd(1, 4));
        int size;
        MPI_Aint lb, ext, tlb, text;
        PT_MPI(MPI_Type_size(t, &size));
        PT_MPI(MPI_Type_get_extent(t, &lb, &ext));
        PT_MPI(MPI_Type_get_true_extent(t, &tlb, &text));
        if (size <= MAX_SIZE && ext >= 0 && text <= 64 * MAX_SIZE && ext <= 64 * MAX_SIZE)
            return t;
        pcoll__type_release(&t);
    }
}

static void test_pool(void)
{
    for (int i = pt_rank; i < POOL; i += pt_size) {
        MPI_Datatype t = pool_type(i), n;
        char desc[512];
        describe(t, desc, sizeof desc);
        pt_case("pool type %d: %s", i, desc);
        n = normalize_checked(&t, 0);
        pcoll__type_release(&n);
        pcoll__type_release(&t);
    }
    pt_case_end();
}

/* ---- expected forms ----------------------------------------------------- */

/* Normalize t (freed here) and check the shape of the result and its
 * penalty. */
static void expect_form(MPI_Datatype t, const char *shape, long penalty)
{
    MPI_Datatype n = normalize_checked(&t, 1);
    char got[256] = "";
    long pen = -1;
    if (n != MPI_DATATYPE_NULL) {
        describe(n, got, sizeof got);
        PT_OK(pcoll_type_penalty(n, &pen));
    }
    PT_CHECK(strcmp(got, shape) == 0, "normalized to %s, expected %s", got, shape);
    PT_CHECK(pen == penalty, "penalty %ld, expected %ld", pen, penalty);
    pcoll__type_release(&n);
    pcoll__type_release(&t);
}

/* Benchmark 3a: element i at i*s + (i mod 2), as an indexed_block. */
static MPI_Datatype bench3a(int n, int s)
{
    int disps[64];
    MPI_Datatype t;
    for (int i = 0; i < n; i++)
        disps[i] = i * s + i % 2;
    PT_MPI(MPI_Type_create_indexed_block(n, 1, disps, MPI_DOUBLE, &t));
    return t;
}

/* Benchmark 3b: 2 elements, a gap, 3 elements, a gap, 1 element, repeated
 * units times (unit extent 6s, the 1 element adjoining the next unit's 2),
 * as an indexed type. */
static MPI_Datatype bench3b(int units, int s)
{
    int lens[48], disps[48];
    MPI_Datatype t;
    for (int u = 0; u < units; u++) {
        const int l[3] = {2, 3, 1}, d[3] = {0, 3 * s - 1, 6 * s - 1};
        for (int k = 0; k < 3; k++) {
            lens[3 * u + k] = l[k];
            disps[3 * u + k] = 6 * s * u + d[k];
        }
    }
    PT_MPI(MPI_Type_indexed(3 * units, lens, disps, MPI_DOUBLE, &t));
    return t;
}

/* n blocks of len items of old, every stride bytes from start, as a struct. */
static MPI_Datatype struct_run(int n, int len, MPI_Aint start, MPI_Aint stride,
                               MPI_Datatype old)
{
    int lens[32];
    MPI_Aint disps[32];
    MPI_Datatype types[32], t;
    for (int i = 0; i < n; i++) {
        lens[i] = len;
        disps[i] = start + i * stride;
        types[i] = old;
    }
    PT_MPI(MPI_Type_create_struct(n, lens, disps, types, &t));
    return t;
}

/* An array of n structs {int @0; double @8} written out as 2n members. */
static MPI_Datatype struct_array(int n)
{
    int lens[32];
    MPI_Aint disps[32];
    MPI_Datatype types[32], t;
    for (int i = 0; i < 2 * n; i++) {
        lens[i] = 1;
        disps[i] = 16 * (i / 2) + 8 * (i % 2);
        types[i] = i % 2 ? MPI_DOUBLE : MPI_INT;
    }
    PT_MPI(MPI_Type_create_struct(2 * n, lens, disps, types, &t));
    return t;
}

static void test_forms(void)
{
    int lens[16], disps[16];
    MPI_Datatype t;
    pt_case("Benchmark 3a (indexed_block, s = 4) -> two-level vector");
    expect_form(bench3a(64, 4), "hvector(vector(double))", 3);
    pt_case("Benchmark 3a (indexed_block, s = 1) -> two-level vector");
    expect_form(bench3a(64, 1), "hvector(vector(double))", 3);
    pt_case("Benchmark 3b (indexed, s = 16) -> head, vector, tail");
    expect_form(bench3b(16, 16), "struct(double,vector(double),double)", 13);
    pt_case("Benchmark 3b (indexed, s = 1) -> contiguous");
    expect_form(bench3b(16, 1), "contiguous(double)", 2);
    pt_case("indexed with regular displacements -> vector");
    for (int i = 0; i < 16; i++) {
        lens[i] = 2;
        disps[i] = 5 * i;
    }
    PT_MPI(MPI_Type_indexed(16, lens, disps, MPI_INT, &t));
    expect_form(t, "vector(int)", 2);
    pt_case("struct of doubles every 24 bytes -> vector");
    expect_form(struct_run(8, 1, 0, 24, MPI_DOUBLE), "vector(double)", 2);
    pt_case("struct of adjacent doubles -> contiguous");
    expect_form(struct_run(8, 2, 0, 16, MPI_DOUBLE), "contiguous(double)", 2);
    pt_case("hindexed from byte 16 every 32 bytes -> placed vector");
    expect_form(struct_run(8, 1, 16, 32, MPI_DOUBLE), "hindexed_block(vector(double))", 3);
    pt_case("struct of 2n members {int, double} -> hvector of a struct");
    expect_form(struct_array(8), "hvector(struct(int,double))", 8);
    pt_case("indexed with equal lengths, irregular displacements -> indexed_block");
    for (int i = 0; i < 6; i++)
        disps[i] = i * i * 3;
    for (int i = 0; i < 6; i++)
        lens[i] = 2;
    PT_MPI(MPI_Type_indexed(6, lens, disps, MPI_DOUBLE, &t));
    expect_form(t, "indexed_block(double)", 7);
    pt_case("a vector is kept (no cheaper form)");
    PT_MPI(MPI_Type_vector(4, 2, 3, MPI_DOUBLE, &t));
    expect_form(t, "dup(vector(double))", 2);
    pt_case("MPI_DOUBLE is kept (a dup)");
    expect_form(MPI_DOUBLE, "dup(double)", 1);
}

/* ---- penalties ------------------------------------------------------------ */

static void expect_penalty(MPI_Datatype t, long expected, const char *what)
{
    long pen = -1;
    pt_case("penalty of %s", what);
    PT_OK(pcoll_type_penalty(t, &pen));
    PT_CHECK(pen == expected, "penalty %ld, expected %ld", pen, expected);
    pcoll__type_release(&t);
}

static void test_penalties(void)
{
    int lens[5] = {1, 2, 1, 2, 1}, disps[5] = {0, 3, 7, 9, 20}, sizes[2] = {4, 6},
        subs[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Aint adisps[5] = {0, 8, 40, 64, 96};
    MPI_Datatype t, u, types[5] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, MPI_INT, MPI_INT};
    expect_penalty(MPI_DOUBLE, 1, "MPI_DOUBLE");
    PT_MPI(MPI_Type_contiguous(4, MPI_DOUBLE, &t));
    expect_penalty(t, 2, "contiguous");
    PT_MPI(MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &t));
    expect_penalty(t, 2, "vector");
    PT_MPI(MPI_Type_create_hvector(4, 1, 24, MPI_DOUBLE, &t));
    expect_penalty(t, 2, "hvector");
    PT_MPI(MPI_Type_create_indexed_block(5, 1, disps, MPI_DOUBLE, &t));
    expect_penalty(t, 6, "indexed_block of 5");
    PT_MPI(MPI_Type_create_hindexed_block(5, 1, adisps, MPI_DOUBLE, &t));
    expect_penalty(t, 6, "hindexed_block of 5");
    PT_MPI(MPI_Type_indexed(5, lens, disps, MPI_DOUBLE, &t));
    expect_penalty(t, 11, "indexed of 5");
    PT_MPI(MPI_Type_create_hindexed(5, lens, adisps, MPI_DOUBLE, &t));
    expect_penalty(t, 11, "hindexed of 5");
    PT_MPI(MPI_Type_create_struct(5, lens, adisps, types, &t));
    expect_penalty(t, 16, "struct of 5 basic types");
    PT_MPI(MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &u));
    PT_MPI(MPI_Type_create_resized(u, 0, 64, &t));
    expect_penalty(t, 3, "resized vector");
    PT_MPI(MPI_Type_dup(u, &t));
    expect_penalty(t, 2, "dup of a vector");
    PT_MPI(MPI_Type_create_indexed_block(2, 1, disps, u, &t));
    expect_penalty(t, 5, "indexed_block of 2 vectors: 1 + 2 * 2");
    types[0] = u;
    PT_MPI(MPI_Type_create_struct(2, lens, adisps, types, &t));
    expect_penalty(t, 10, "struct {vector, double}: 1 + 3 * (2 + 1)");
    pcoll__type_release(&u);
    PT_MPI(MPI_Type_create_indexed_block(4, 1, disps, MPI_DOUBLE, &t));
    PT_MPI(MPI_Type_vector(3, 1, 2, t, &u));
    pcoll__type_release(&t);
    expect_penalty(u, 6, "vector of indexed_block of 4: 1 + 5");
    PT_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t));
    expect_penalty(t, 3, "2-d subarray");
    PT_MPI(MPI_Type_create_darray(1, 0, 2, sizes, (int[]){MPI_DISTRIBUTE_BLOCK,
                                  MPI_DISTRIBUTE_CYCLIC}, (int[]){MPI_DISTRIBUTE_DFLT_DARG, 2},
                                  (int[]){1, 1}, MPI_ORDER_C, MPI_DOUBLE, &t));
    expect_penalty(t, 3, "2-d darray");
}

/* ---- bad arguments and the plan option ------------------------------------ */

static void test_bad_args(void)
{
    MPI_Datatype t;
    long pen;
    pt_case("bad arguments");
    PT_RC(pcoll_type_normalize(MPI_DATATYPE_NULL, &t), PCOLL_ERR_ARG);
    PT_CHECK(t == MPI_DATATYPE_NULL, "newtype not reset on error");
    PT_RC(pcoll_type_normalize(MPI_DOUBLE, NULL), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_penalty(MPI_DATATYPE_NULL, &pen), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_penalty(MPI_DOUBLE, NULL), PCOLL_ERR_ARG);
}

/* An alltoall on MPI_COMM_SELF with an indexed type that is a vector of ints:
 * with PCOLL_NORMALIZE=1 the plan keeps a vector, and the result is right. */
static void test_plan_option(void)
{
    int lens[8], disps[8], send[32], recv[32];
    MPI_Datatype t;
    MPI_Info info;
    pcoll_plan_t *plan = NULL;
    for (int i = 0; i < 8; i++) {
        lens[i] = 1;
        disps[i] = 4 * i;
    }
    PT_MPI(MPI_Type_indexed(8, lens, disps, MPI_INT, &t));
    PT_MPI(MPI_Type_commit(&t));
    pt_case("PCOLL_NORMALIZE=1: the plan keeps the normalized type");
    setenv("PCOLL_NORMALIZE", "1", 1);
    PT_REQUIRE(pcoll_alltoall_init(send, 1, t, recv, 1, t, MPI_COMM_SELF, MPI_INFO_NULL, &plan));
    unsetenv("PCOLL_NORMALIZE");
    PT_CHECK(plan->ntypes > 0 && plan->types[0] != t, "no type kept");
    if (plan->ntypes > 0) {
        char shape[128];
        describe(plan->types[0], shape, sizeof shape);
        PT_CHECK(strcmp(shape, "vector(int)") == 0, "the plan keeps %s", shape);
    }
    for (int i = 0; i < 32; i++) {
        send[i] = i + 1;
        recv[i] = -1;
    }
    PT_REQUIRE(pcoll__plan_run(plan));
    for (int i = 0; i < 32; i++)
        pt_check_elem("alltoall with a normalized type", 0, i, i % 4 ? -1 : i + 1, recv[i]);
    PT_OK(pcoll_plan_free(&plan));
    pt_case("pcoll_normalize=maybe is refused");
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_normalize", "maybe"));
    PT_RC(pcoll_alltoall_init(send, 1, t, recv, 1, t, MPI_COMM_SELF, info, &plan),
          PCOLL_ERR_ARG);
    PT_MPI(MPI_Info_free(&info));
    PT_MPI(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    long long baseline;
    pt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_plan_option(); /* first: MPI_COMM_SELF's context stays allocated */
    baseline = pcoll_mem_current();
    test_bad_args();
    test_penalties();
    test_forms();
    test_pool();
    pt_case("pcoll's memory back to where it started");
    PT_CHECK(pcoll_mem_current() == baseline, "%lld bytes still allocated",
             pcoll_mem_current() - baseline);
    pt_case_end();
    return pt_finish();
}
