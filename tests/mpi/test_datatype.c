/*
 * test_datatype.c -- pcoll's datatype constructors, signature types and the
 * signature check of pcoll_typed_copy.
 *
 * Bounded vector, circular vector and bucket types are built over sweeps of
 * all small parameter values (zeros and degenerate cases included) and over
 * five oldtypes: MPI_INT, MPI_DOUBLE, a vector of 2 ints with stride 3, an
 * int resized to lb -4 and extent 12, and a struct {int, gap, double}.  For
 * each new type: it comes back uncommitted (a zero-count MPI_Pack refuses
 * it), its lb, extent and size are as defined, and MPI_Pack of 1 and of 2
 * items equals a reference gather that packs the oldtype items one by one at
 * the indices computed from the definition (item 2 of a type sits one
 * extent -- bound, total or count*bucketsize items -- after item 1).
 *
 * pcoll_type_signature is checked on the same oldtypes and on nested types
 * (vector of struct, hindexed, indexed_block, subarray, darray, resized,
 * dup, pair types, empty): equal size, lb 0, extent == size, and a typed copy
 * into the signature type packs to the same bytes as the original; the run
 * lists of pcoll__sig_of are checked directly on a few types.  Typed copies
 * between layouts of equal bytes but different signatures are refused.
 * Copies between blocks of bytes at fixed strides (hvector and vector of
 * MPI_BYTE, contiguous) go block by block where both sides cut the bytes
 * alike and match MPI_Pack + MPI_Unpack either way.
 *
 * Every rank runs the same cases and does its share (combination number
 * modulo the number of ranks) of the sweeps, so the test stays fast at np 16.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/copy.h"
#include "datatype/signature.h"
#include "harness.h"

enum {
    MAX_ITEMS = 64,            /* items of an oldtype a check may touch */
    MARGIN = 64,               /* bytes before and after the source items */
    MAX_BYTES = 4096,          /* packed bytes of one check, at most */
    NOLD = 5
};

typedef struct oldtype {
    const char *name;
    MPI_Datatype type;
    MPI_Aint lb, extent;
    int size;
} oldtype_t;

static oldtype_t olds[NOLD];
static _Alignas(16) char src_alloc[2 * MARGIN + MAX_ITEMS * 16];
static char *const src = src_alloc + MARGIN; /* int words: word w of src_alloc is w+1 */
static _Alignas(16) char ref[MAX_BYTES], got[MAX_BYTES];
static long combo; /* sweep combination counter, the same on every rank */

/* Whether this rank checks the next combination of a sweep. */
static int mine(void)
{
    return combo++ % pt_size == pt_rank;
}

static void old_set(oldtype_t *o, const char *name, MPI_Datatype type)
{
    o->name = name;
    o->type = type;
    PT_MPI(MPI_Type_commit(&o->type));
    PT_MPI(MPI_Type_get_extent(o->type, &o->lb, &o->extent));
    PT_MPI(MPI_Type_size(o->type, &o->size));
}

/* A struct {int @0; double @8}, extent 16. */
static MPI_Datatype int_gap_double(void)
{
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
    PT_MPI(MPI_Type_create_struct(2, lens, disps, types, &t));
    return t;
}

static void olds_make(void)
{
    MPI_Datatype vec, neg;
    PT_MPI(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
    PT_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &neg));
    old_set(&olds[0], "MPI_INT", MPI_INT);
    old_set(&olds[1], "MPI_DOUBLE", MPI_DOUBLE);
    old_set(&olds[2], "vector(2,1,3,int)", vec);
    old_set(&olds[3], "int resized lb -4 extent 12", neg);
    old_set(&olds[4], "struct{int,gap,double}", int_gap_double());
    for (int i = 0; i < (int)(sizeof src_alloc / sizeof(int)); i++)
        memcpy(src_alloc + i * sizeof(int), &(int){i + 1}, sizeof(int));
}

static void olds_free(void)
{
    for (int i = 2; i < NOLD; i++)
        MPI_Type_free(&olds[i].type);
}

/* ---- layout checks ------------------------------------------------------------ */

/* A zero-count MPI_Pack refuses an uncommitted type (MPI_ERRORS_RETURN is set
 * on MPI_COMM_SELF). */
static int uncommitted(MPI_Datatype t)
{
    int pos = 0;
    char out[1];
    return MPI_Pack(src, 0, t, out, (int)sizeof out, &pos, MPI_COMM_SELF) != MPI_SUCCESS;
}

/* Report where two packed byte strings first differ. */
static void compare_packed(int rpos, int gpos, const char *what, int count)
{
    int i = 0;
    if (rpos == gpos && memcmp(ref, got, (size_t)rpos) == 0)
        return;
    while (i < rpos && i < gpos && ref[i] == got[i])
        i++;
    pt_fail("%s count %d: packed %d bytes, reference %d; first difference at byte %d",
            what, count, gpos, rpos, i);
}

/* MPI_Pack of count items of t against a gather of the oldtype items idx[]
 * (plus span items per further item of t), packed one by one. */
static void check_pack(MPI_Datatype t, const oldtype_t *o, const int *idx, int m, int span,
                       int count, const char *what)
{
    int rpos = 0, gpos = 0;
    for (int c = 0; c < count; c++)
        for (int i = 0; i < m; i++)
            PT_MPI(MPI_Pack(src + ((MPI_Aint)c * span + idx[i]) * o->extent, 1, o->type, ref,
                            MAX_BYTES, &rpos, MPI_COMM_SELF));
    PT_MPI(MPI_Pack(src, count, t, got, MAX_BYTES, &gpos, MPI_COMM_SELF));
    compare_packed(rpos, gpos, what, count);
}

/* Check a new type that should select oldtype items idx[0..m) and span
 * `span` items; frees it. */
static void check_layout(MPI_Datatype t, const oldtype_t *o, const int *idx, int m, int span,
                         const char *what)
{
    MPI_Aint lb, extent;
    int size;
    PT_CHECK(uncommitted(t), "%s: the new type is committed", what);
    PT_MPI(MPI_Type_commit(&t));
    PT_CHECK(!uncommitted(t), "%s: zero-count pack of the committed type fails", what);
    PT_MPI(MPI_Type_get_extent(t, &lb, &extent));
    PT_MPI(MPI_Type_size(t, &size));
    PT_CHECK(lb == o->lb && extent == span * o->extent,
             "%s: lb %ld extent %ld, expected %ld %ld", what, (long)lb, (long)extent,
             (long)o->lb, (long)(span * o->extent));
    PT_CHECK(size == m * o->size, "%s: size %d, expected %d", what, size, m * o->size);
    check_pack(t, o, idx, m, span, 1, what);
    check_pack(t, o, idx, m, span, 2, what);
    MPI_Type_free(&t);
}

/* ---- bounded vector ------------------------------------------------------------ */

static void bounded_one(const oldtype_t *o, int bound, int bl, int stride)
{
    int idx[MAX_ITEMS], m = 0;
    char what[160];
    MPI_Datatype t;
    for (int i = 0; i < bound; i++)
        if (i % stride < bl)
            idx[m++] = i;
    snprintf(what, sizeof what, "bounded_vector(bound %d, blocklength %d, stride %d, %s)",
             bound, bl, stride, o->name);
    if (PT_OK(pcoll_type_create_bounded_vector(bound, bl, stride, o->type, &t)))
        check_layout(t, o, idx, m, bound, what);
}

static void sweep_bounded(const oldtype_t *o)
{
    for (int bound = 0; bound <= 13; bound++) {
        pt_case("bounded vector over %s, bound %d", o->name, bound);
        for (int stride = 0; stride <= 6; stride++)
            for (int bl = 0; bl <= stride; bl++)
                if ((stride > 0 || bound == 0) && mine())
                    bounded_one(o, bound, bl, stride);
    }
}

/* ---- circular vector ----------------------------------------------------------- */

static void circular_one(const oldtype_t *o, int total, int start, int bound, int bl,
                         int stride)
{
    int idx[MAX_ITEMS], m = 0;
    char what[200];
    MPI_Datatype t;
    for (int j = 0; j < bound; j++)
        if (j % stride < bl)
            idx[m++] = (start + j) % total;
    snprintf(what, sizeof what,
             "circular_vector(total %d, start %d, bound %d, blocklength %d, stride %d, %s)",
             total, start, bound, bl, stride, o->name);
    if (PT_OK(pcoll_type_create_circular_vector(total, start, bound, bl, stride, o->type, &t)))
        check_layout(t, o, idx, m, total, what);
}

static void sweep_circular(const oldtype_t *o)
{
    for (int total = 0; total <= 8; total++) {
        pt_case("circular vector over %s, total %d", o->name, total);
        for (int start = 0; start < total || start == 0; start++)
            for (int bound = 0; bound <= total; bound++)
                for (int stride = 0; stride <= 5; stride++)
                    for (int bl = 0; bl <= stride; bl++)
                        if ((stride > 0 || bound == 0) && mine())
                            circular_one(o, total, start, bound, bl, stride);
    }
}

/* The circular vectors of Modified Bruck (paper, Listing 2) up to p = 16. */
static void sweep_bruck(const oldtype_t *o)
{
    pt_case("circular vector over %s, Modified Bruck rounds", o->name);
    for (int p = 1; p <= 16; p++)
        for (int n = 1; n <= 2; n++)
            for (int k = 1; k < p; k <<= 1)
                for (int rank = 0; rank < p; rank++)
                    if (mine())
                        circular_one(o, p * n, (rank + k) % p * n, (p - k) * n, k * n,
                                     2 * k * n);
}

/* ---- bucket -------------------------------------------------------------------- */

static void bucket_one(const oldtype_t *o, int count, int bucketsize, const int *counts)
{
    int idx[MAX_ITEMS], m = 0, at = 0;
    char what[160];
    MPI_Datatype t;
    at = snprintf(what, sizeof what, "bucket(count %d, bucketsize %d, %s, counts", count,
                  bucketsize, o->name);
    for (int i = 0; i < count; i++) {
        for (int k = 0; k < counts[i]; k++)
            idx[m++] = i * bucketsize + k;
        at += snprintf(what + at, sizeof what - (size_t)at, " %d", counts[i]);
    }
    snprintf(what + at, sizeof what - (size_t)at, ")");
    if (PT_OK(pcoll_type_create_bucket(count, bucketsize, count ? counts : NULL, o->type, &t)))
        check_layout(t, o, idx, m, count * bucketsize, what);
}

static void sweep_bucket(const oldtype_t *o)
{
    for (int count = 0; count <= 4; count++) {
        pt_case("bucket over %s, count %d", o->name, count);
        for (int bs = 0; bs <= 3; bs++) {
            long ncombos = 1;
            for (int i = 0; i < count; i++)
                ncombos *= bs + 1;
            /* Every counts[] in [0, bs]^count, as the digits of c in base bs+1. */
            for (long c = 0; c < ncombos; c++) {
                int counts[4];
                for (long i = 0, v = c; i < count; i++, v /= bs + 1)
                    counts[i] = (int)(v % (bs + 1));
                if (mine())
                    bucket_one(o, count, bs, counts);
            }
        }
    }
}

/* ---- bad arguments ------------------------------------------------------------- */

static void test_bad_args(void)
{
    MPI_Datatype t;
    int counts[3] = {1, 2, 3}, negative[2] = {1, -1};
    pt_case("constructors refuse bad arguments with PCOLL_ERR_ARG");
    PT_RC(pcoll_type_create_bounded_vector(-1, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bounded_vector(4, -1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bounded_vector(4, 1, -2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bounded_vector(4, 3, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bounded_vector(4, 0, 0, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bounded_vector(4, 1, 2, MPI_DATATYPE_NULL, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bounded_vector(4, 1, 2, MPI_INT, NULL), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(-1, 0, 0, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, -1, 2, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 4, 2, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(0, 1, 0, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, 5, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, -1, 1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, 3, -1, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, 3, 3, 2, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, 3, 0, 0, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, 3, 1, 2, MPI_DATATYPE_NULL, &t),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_circular_vector(4, 1, 3, 1, 2, MPI_INT, NULL), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(-1, 2, counts, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(3, -1, counts, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(3, 2, counts, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(2, 2, negative, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(2, 2, NULL, MPI_INT, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(2, 2, counts, MPI_DATATYPE_NULL, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_create_bucket(2, 2, counts, MPI_INT, NULL), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_signature(MPI_DATATYPE_NULL, &t), PCOLL_ERR_ARG);
    PT_RC(pcoll_type_signature(MPI_INT, NULL), PCOLL_ERR_ARG);
}

/* ---- signatures ---------------------------------------------------------------- */

/* Nested types whose signature types are checked (uncommitted). */
enum { NNESTED = 9 };
static MPI_Datatype nested_make(int which, const char **name)
{
    static const char *names[NNESTED] = {
        "vector(3,2,4,struct{int,gap,double})", "hindexed doubles {2,1,3}",
        "indexed_block shorts", "subarray 2x3 of 4x5 ints", "darray cyclic(2) doubles",
        "struct resized lb -8 extent 32", "dup of vector(2,1,3,int)",
        "struct{2 x MPI_DOUBLE_INT, MPI_2INT, float}", "contiguous(0, int)"};
    int lens[3] = {2, 1, 3}, gs[2] = {4, 5}, ss[2] = {2, 3}, st[2] = {1, 1};
    int g1 = 10, d1 = MPI_DISTRIBUTE_CYCLIC, a1 = 2, p1 = 4, blk[2] = {0, 5};
    MPI_Aint hd[3] = {0, 40, 64}, sd[3] = {0, 32, 40};
    MPI_Datatype t = MPI_DATATYPE_NULL, pair[3] = {MPI_DOUBLE_INT, MPI_2INT, MPI_FLOAT};
    *name = names[which];
    switch (which) {
    case 0: PT_MPI(MPI_Type_vector(3, 2, 4, olds[4].type, &t)); break;
    case 1: PT_MPI(MPI_Type_create_hindexed(3, lens, hd, MPI_DOUBLE, &t)); break;
    case 2: PT_MPI(MPI_Type_create_indexed_block(2, 2, blk, MPI_SHORT, &t)); break;
    case 3:
        PT_MPI(MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_C, MPI_INT, &t));
        break;
    case 4:
        PT_MPI(MPI_Type_create_darray(4, 1, 1, &g1, &d1, &a1, &p1, MPI_ORDER_C, MPI_DOUBLE,
                                      &t));
        break;
    case 5: PT_MPI(MPI_Type_create_resized(olds[4].type, -8, 32, &t)); break;
    case 6: PT_MPI(MPI_Type_dup(olds[2].type, &t)); break;
    case 7: PT_MPI(MPI_Type_create_struct(3, (int[]){2, 1, 1}, sd, pair, &t)); break;
    default: PT_MPI(MPI_Type_contiguous(0, MPI_INT, &t)); break;
    }
    PT_MPI(MPI_Type_commit(&t));
    return t;
}

/* Copy count items of t into its signature type s and back; pack compare. */
static void check_sig_copy(MPI_Datatype t, MPI_Datatype s, int count, const char *name)
{
    static _Alignas(16) char dst[MAX_BYTES], back_alloc[MAX_BYTES];
    char *back = back_alloc + MARGIN;
    int rpos = 0, gpos = 0;
    memset(dst, 0, sizeof dst);
    memset(back_alloc, 0, sizeof back_alloc);
    PT_OK(pcoll_typed_copy(src, count, t, dst, count, s));
    PT_OK(pcoll_typed_copy(dst, count, s, back, count, t));
    PT_MPI(MPI_Pack(src, count, t, ref, MAX_BYTES, &rpos, MPI_COMM_SELF));
    PT_MPI(MPI_Pack(dst, count, s, got, MAX_BYTES, &gpos, MPI_COMM_SELF));
    compare_packed(rpos, gpos, name, count);
    gpos = 0;
    PT_MPI(MPI_Pack(back, count, t, got, MAX_BYTES, &gpos, MPI_COMM_SELF));
    compare_packed(rpos, gpos, name, count);
}

static void check_signature(MPI_Datatype t, const char *name)
{
    MPI_Datatype s;
    MPI_Aint lb, extent, tlb, textent;
    int tsize, ssize;
    pcoll__sig_t a, b;
    pt_case("signature type of %s", name);
    if (!PT_OK(pcoll_type_signature(t, &s)))
        return;
    PT_CHECK(uncommitted(s), "the signature type is committed");
    PT_MPI(MPI_Type_commit(&s));
    PT_MPI(MPI_Type_size(t, &tsize));
    PT_MPI(MPI_Type_size(s, &ssize));
    PT_MPI(MPI_Type_get_extent(s, &lb, &extent));
    PT_MPI(MPI_Type_get_true_extent(s, &tlb, &textent));
    PT_CHECK(ssize == tsize, "size %d, expected %d", ssize, tsize);
    PT_CHECK(lb == 0 && extent == ssize && tlb == 0 && textent == ssize,
             "lb %ld extent %ld true lb %ld true extent %ld, size %d", (long)lb, (long)extent,
             (long)tlb, (long)textent, ssize);
    PT_OK(pcoll__sig_of(t, 3, &a));
    PT_OK(pcoll__sig_of(s, 3, &b));
    PT_CHECK(pcoll__sig_equal(&a, &b), "signature of the signature type differs");
    pcoll__sig_free(&a);
    pcoll__sig_free(&b);
    check_sig_copy(t, s, 1, name);
    check_sig_copy(t, s, 3, name);
    MPI_Type_free(&s);
}

static void test_signatures(void)
{
    for (int i = 0; i < NOLD; i++)
        check_signature(olds[i].type, olds[i].name);
    for (int i = 0; i < NNESTED; i++) {
        const char *name;
        MPI_Datatype t = nested_make(i, &name);
        check_signature(t, name);
        MPI_Type_free(&t);
    }
}

/* The run list of count items of t is (types[i], counts[i]), i < n. */
static void check_runs(MPI_Datatype t, int count, int n, const MPI_Datatype *types,
                       const long long *counts, const char *name)
{
    pcoll__sig_t s;
    int same;
    if (!PT_OK(pcoll__sig_of(t, count, &s)))
        return;
    same = s.nruns == n;
    for (int i = 0; same && i < n; i++)
        same = s.types[i] == types[i] && s.counts[i] == counts[i];
    PT_CHECK(same, "%s: %d runs (first count %lld), expected %d (first count %lld)", name,
             s.nruns, s.nruns ? s.counts[0] : 0, n, counts[0]);
    pcoll__sig_free(&s);
}

static void test_runs(void)
{
    MPI_Datatype big, st, ii = olds[4].type;
    MPI_Datatype ints[1] = {MPI_INT}, alt[6] = {MPI_INT, MPI_DOUBLE, MPI_INT,
                                                MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
    MPI_Datatype pairs[3] = {MPI_INT, MPI_2INT, MPI_INT};
    long long ones[6] = {1, 1, 1, 1, 1, 1};
    pt_case("run lists of pcoll__sig_of");
    check_runs(MPI_INT, 5, 1, ints, (long long[]){5}, "5 MPI_INT");
    check_runs(olds[2].type, 7, 1, ints, (long long[]){14}, "7 vector(2,1,3,int)");
    check_runs(ii, 3, 6, alt, ones, "3 struct{int,gap,double}");
    check_runs(MPI_INT, 0, 0, ints, (long long[]){0}, "0 MPI_INT");
    PT_MPI(MPI_Type_create_struct(3, (int[]){2, 1, 1}, (MPI_Aint[]){0, 8, 16}, pairs, &st));
    check_runs(st, 2, 1, ints, (long long[]){10}, "2 struct{2 int, MPI_2INT, int}");
    MPI_Type_free(&st);
    check_runs(MPI_DOUBLE_INT, 3, 6, (MPI_Datatype[]){MPI_DOUBLE, MPI_INT, MPI_DOUBLE,
                                                      MPI_INT, MPI_DOUBLE, MPI_INT},
               ones, "3 MPI_DOUBLE_INT");
    /* A billion ints in one run: the count is multiplied, not expanded. */
    PT_MPI(MPI_Type_contiguous(1000000, MPI_INT, &big));
    check_runs(big, 1000, 1, ints, (long long[]){1000000000LL}, "1000 x contiguous(10^6)");
    MPI_Type_free(&big);
}

/* A struct of blocks of ints and doubles at packed displacements: kinds[i]
 * is 'i' or 'd', lens[i] its blocklength. */
static MPI_Datatype ints_doubles(int n, const char *kinds, const int *lens)
{
    MPI_Datatype types[8], t;
    MPI_Aint disps[8], at = 0;
    for (int i = 0; i < n; i++) {
        types[i] = kinds[i] == 'i' ? MPI_INT : MPI_DOUBLE;
        disps[i] = at;
        at += lens[i] * (kinds[i] == 'i' ? 4 : 8);
    }
    PT_MPI(MPI_Type_create_struct(n, lens, disps, types, &t));
    return t;
}

static void test_match(void)
{
    MPI_Datatype t[4] = {
        ints_doubles(2, "id", (int[]){1, 1}), ints_doubles(4, "idid", (int[]){1, 1, 1, 1}),
        ints_doubles(3, "idi", (int[]){1, 1, 1}),
        ints_doubles(5, "ididi", (int[]){1, 1, 2, 1, 1})};
    pcoll__sig_t sigs[7] = {{0}};
    pcoll__sig_t *a = &sigs[0], *b = &sigs[1], *c = &sigs[2], *d = &sigs[3], *e = &sigs[4],
                 *i1 = &sigs[5], *v2 = &sigs[6];
    pt_case("pcoll__sig_match compares repeated run lists without expanding them");
    for (int i = 0; i < 4; i++)
        PT_OK(pcoll__sig_of(t[i], 1, &sigs[i]));
    PT_OK(pcoll__sig_of(MPI_INT, 0, e));
    PT_OK(pcoll__sig_of(MPI_INT, 1, i1));
    PT_OK(pcoll__sig_of(olds[2].type, 1, v2));
    PT_CHECK(pcoll__sig_match(a, 4, b, 2) && !pcoll__sig_match(a, 4, b, 1) &&
                 !pcoll__sig_match(a, 3, b, 2), "{int,double} x4 vs {int,double} x2 x2");
    PT_CHECK(pcoll__sig_match(c, 2, d, 1) && !pcoll__sig_match(c, 2, d, 2),
             "{int,double,int} x2 vs {int,double,2 int,double,int}");
    PT_CHECK(pcoll__sig_match(i1, 6, v2, 3) && !pcoll__sig_match(i1, 5, v2, 3) &&
                 !pcoll__sig_match(i1, 2, a, 1), "int x6 vs 2 ints x3");
    PT_CHECK(pcoll__sig_match(e, 5, a, 0) && pcoll__sig_match(i1, 0, e, 3) &&
                 !pcoll__sig_match(e, 1, a, 1), "empty signatures");
    PT_CHECK(pcoll__sig_match(i1, 1LL << 40, v2, 1LL << 39), "2^40 ints");
    for (pcoll__sig_t *p = sigs; p < sigs + 7; p++)
        pcoll__sig_free(p);
    for (int i = 0; i < 4; i++)
        MPI_Type_free(&t[i]);
}

/* ---- typed copy with signatures ----------------------------------------------- */

/* The int word w of the source (w counted from src). */
static int src_word(long w)
{
    int v;
    memcpy(&v, src + w * (long)sizeof(int), sizeof v);
    return v;
}

static void test_typed_copy(void)
{
    int ints[6] = {1, 2, 3, 4, 5, 6}, out[6], pos = 0;
    float floats[6];
    char packed[64];
    pt_case("pcoll_typed_copy checks signatures, not just bytes");
    PT_RC(pcoll_typed_copy(ints, 6, MPI_INT, floats, 6, MPI_FLOAT), PCOLL_ERR_MISMATCH);
    PT_RC(pcoll_typed_copy(src, 1, olds[4].type, out, 3, MPI_INT), PCOLL_ERR_MISMATCH);
    PT_RC(pcoll_typed_copy(src, 2, MPI_DOUBLE_INT, out, 6, MPI_INT), PCOLL_ERR_MISMATCH);
    memset(out, 0, sizeof out);
    PT_OK(pcoll_typed_copy(ints, 3, MPI_2INT, out, 6, MPI_INT));
    for (int i = 0; i < 6; i++)
        pt_check_elem("MPI_2INT -> MPI_INT", 0, i, ints[i], out[i]);
    memset(out, 0, sizeof out);
    PT_OK(pcoll_typed_copy(src + 3 * sizeof(int), 3, olds[2].type, out, 6, MPI_INT));
    for (int i = 0; i < 6; i++)
        pt_check_elem("vector(2,1,3,int) -> MPI_INT", 0, i,
                      src_word(3 + 4 * (i / 2) + 3 * (i % 2)), out[i]);
    PT_MPI(MPI_Pack(ints, 6, MPI_INT, packed, (int)sizeof packed, &pos, MPI_COMM_SELF));
    memset(out, 0, sizeof out);
    PT_OK(pcoll_typed_copy(packed, pos, MPI_PACKED, out, 6, MPI_INT));
    for (int i = 0; i < 6; i++)
        pt_check_elem("MPI_PACKED -> MPI_INT", 0, i, ints[i], out[i]);
}

/* ---- strided copies ------------------------------------------------------------- */

/* Blocks of bytes at fixed strides on both sides are copied block by block
 * (PCOLL__COPY_STRIDED) where the two sides cut the bytes alike; elsewhere
 * the MPI's packing.  Either way the bytes land where MPI_Pack + MPI_Unpack
 * put them, and the gaps of the destination keep their poison. */
static void strided_one(const char *what, MPI_Datatype st, MPI_Datatype dt, int count,
                        int want_strided)
{
    static unsigned char from[512], to[512], expect[512], packed[512];
    pcoll__copy_t c;
    int pos = 0, rc;
    for (int i = 0; i < (int)sizeof from; i++)
        from[i] = (unsigned char)(i * 7 + 3);
    memset(to, 0xA5, sizeof to);
    memset(expect, 0xA5, sizeof expect);
    PT_MPI(MPI_Pack(from, count, st, packed, (int)sizeof packed, &pos, MPI_COMM_SELF));
    pos = 0;
    PT_MPI(MPI_Unpack(packed, (int)sizeof packed, &pos, expect, count, dt, MPI_COMM_SELF));
    rc = pcoll__copy_prepare(count, st, count, dt, &c);
    PT_OK(rc);
    if (rc == PCOLL_SUCCESS) {
        PT_CHECK((c.mode == PCOLL__COPY_STRIDED) == want_strided, "%s: mode %d, strided %s",
                 what, (int)c.mode, want_strided ? "wanted" : "not wanted");
        pcoll__copy_free(&c);
    }
    PT_OK(pcoll_typed_copy(from, count, st, to, count, dt));
    PT_CHECK(memcmp(to, expect, sizeof to) == 0, "%s: bytes differ from MPI_Pack + MPI_Unpack",
             what);
}

static void test_strided_copy(void)
{
    MPI_Datatype hv5_9, hv5_13, v4_6, hv4_10, hv10_12, over, down, contig20;
    pt_case("strided byte copies: block by block where both sides cut alike");
    PT_MPI(MPI_Type_create_hvector(4, 5, 9, MPI_BYTE, &hv5_9));
    PT_MPI(MPI_Type_create_hvector(4, 5, 13, MPI_BYTE, &hv5_13));
    PT_MPI(MPI_Type_vector(3, 4, 6, MPI_BYTE, &v4_6));
    PT_MPI(MPI_Type_create_hvector(3, 4, 10, MPI_BYTE, &hv4_10));
    PT_MPI(MPI_Type_create_hvector(2, 10, 12, MPI_BYTE, &hv10_12));
    PT_MPI(MPI_Type_create_hvector(3, 4, 2, MPI_BYTE, &over));   /* blocks overlap */
    PT_MPI(MPI_Type_create_hvector(3, 4, -8, MPI_BYTE, &down));  /* downwards */
    PT_MPI(MPI_Type_contiguous(20, MPI_BYTE, &contig20));
    MPI_Datatype all[] = {hv5_9, hv5_13, v4_6, hv4_10, hv10_12, over, down, contig20};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        PT_MPI(MPI_Type_commit(&all[i]));
    strided_one("hvector(4,5,9) -> contiguous", hv5_9, contig20, 1, 1);
    strided_one("contiguous -> hvector(4,5,9)", contig20, hv5_9, 1, 1);
    strided_one("hvector(4,5,9) -> hvector(4,5,13)", hv5_9, hv5_13, 1, 1);
    strided_one("vector(3,4,6) -> hvector(3,4,10)", v4_6, hv4_10, 1, 1);
    strided_one("hvector(4,5,9) -> hvector(2,10,12): blocks differ", hv5_9, hv10_12, 1, 0);
    strided_one("hvector(2,10,12) -> contiguous", hv10_12, contig20, 1, 1);
    strided_one("overlapping blocks -> hvector(3,4,10)", over, hv4_10, 1, 0);
    strided_one("downward blocks -> hvector(3,4,10)", down, hv4_10, 1, 0);
    strided_one("2 x hvector(3,4,10) -> 2 x vector(3,4,6)", hv4_10, v4_6, 2, 0);
    strided_one("MPI_BYTE -> MPI_BYTE", MPI_BYTE, MPI_BYTE, 20, 0);
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        PT_MPI(MPI_Type_free(&all[i]));
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    long long baseline;
    pt_init(&argc, &argv);
    baseline = pcoll_mem_current();
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    olds_make();
    test_bad_args();
    for (int i = 0; i < NOLD; i++) {
        sweep_bounded(&olds[i]);
        sweep_circular(&olds[i]);
        sweep_bruck(&olds[i]);
        sweep_bucket(&olds[i]);
    }
    test_runs();
    test_match();
    test_signatures();
    test_typed_copy();
    test_strided_copy();
    pt_case("pcoll's memory back to where it started");
    PT_CHECK(pcoll_mem_current() == baseline, "%lld bytes still allocated",
             pcoll_mem_current() - baseline);
    pt_case_end();
    olds_free();
    return pt_finish();
}
