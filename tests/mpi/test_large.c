/*
 * test_large.c -- the size and address edge cases: blocks past 2 GiB and
 * MPI_BOTTOM.  Every case must either work, checked against the source or
 * against MPI's own collective, or return a negative code on every rank;
 * never PCOLL_SUCCESS with the data not moved.
 *
 * Big cases (alltoall on MPI_COMM_SELF, where it is a local copy; world rank
 * 0 only, and only at np <= 2, as they repeat nothing that depends on np;
 * at most about 4 GiB touched: the receive buffer and a scratch copy):
 *   item2g   count 1 of contiguous(2050, contiguous(2^20, MPI_BYTE)): one
 *            item of 2 GiB + 2 MiB, which MPI_Type_size cannot express
 *            (MPI_UNDEFINED)
 *   blk1g    count 2 of contiguous(1025, ...): 2 GiB + 2 MiB, int count 2
 *   gap1g    the same resized 4 KiB longer: the items have gaps, so the
 *            copy packs (send side), unpacks (receive side) or stages
 *            through scratch in pieces (both)
 *   short    count 2^30 + 8 of MPI_SHORT: 2 GiB + 16 bytes, whose byte
 *            count overflows an int product
 *   gap700m, gap1050m   3 items of 700 MiB and 2 of 1050 MiB, with gaps:
 *            whole items of both line up only at 2100 MiB, more than one
 *            int-sized MPI_Pack takes (MPI-3: packed all, then unpacked)
 * in pairs (send layout -> receive layout), with the algorithms linear,
 * pairwise, bruck_zerocopy and auto (all four for item2g and blk1g, one or
 * two for the others), persistent (info pcoll_algorithm) and one-shot
 * (PCOLL_ALLTOALL_ALGORITHM).  These must all work: the counts fit in an
 * int, so MPI's own alltoall serves them.  Also gap1g in place (MPI_IN_PLACE:
 * linear stages a copy of the block, pairwise plans its scratch block; on
 * one rank the block stays where it is, so its sampled bytes must be
 * unchanged).  The buffers are calloc'd once for all pairs (untouched pages
 * cost nothing); the send side gets non-zero
 * values at sampled bytes (both ends of every item, both sides of 2^31 and
 * 2^32, a spread between), the receive side poison at the same bytes and in
 * the gaps, before every run; the sampled bytes must arrive, the gaps stay
 * poisoned.  The cases are skipped (with a note) when /proc/meminfo's
 * MemAvailable is under 3 x 2 GiB.  Under AddressSanitizer they run at np 1
 * only (about 25 s).
 *
 * MPI_BOTTOM cases (every np, every rank, every algorithm of alltoall and
 * alltoallv, persistent and one-shot): struct types of absolute addresses
 * (MPI_Get_address of the user's arrays) used with MPI_BOTTOM as the send
 * buffer, the receive buffer, both, or the receive buffer in place; the
 * receive arrays (poisoned first, gaps included) must equal byte for byte
 * those that MPI_Alltoall / MPI_Alltoallv fill from the same arguments.
 *
 * Opt-in (test_large pairs, on 2 ranks, about 10 GiB in all): blocks of
 * 2 GiB + 2 MiB exchanged between the ranks, linear and pairwise in place.
 *
 * Usage: test_large [bottom|big|pairs]   (default: bottom and big)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/defects.h"
#include "harness.h"
#include "../memavail.h"

#if defined(__SANITIZE_ADDRESS__)
#define PT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_ASAN 1
#endif
#endif
#ifndef PT_ASAN
#define PT_ASAN 0
#endif

/* ---- helpers --------------------------------------------------------------- */

/* Set (or with NULL clear) the one-shot algorithm of a collective. */
static void set_env_alg(const char *var, const char *alg)
{
    if (alg)
        setenv(var, alg, 1);
    else
        unsetenv(var);
}

static MPI_Info info_alg(const char *alg)
{
    MPI_Info info;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
    return info;
}

/* A failed call: a negative code with a message.  Persistent calls must fail
 * alike on every rank of comm (checked by the caller with agree_rc). */
static void check_failure(int rc, const char *what)
{
    PT_CHECK(rc < 0, "%s returned %d, not a negative code", what, rc);
    PT_CHECK(pcoll_last_error()[0] != '\0', "%s: %s without a message", what,
             pcoll_err_name(rc));
}

/* The codes of every rank of comm must be equal; returns the code. */
static int agree_rc(int rc, MPI_Comm comm, const char *what)
{
    int lo, hi;
    PT_MPI(MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, comm));
    PT_MPI(MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, comm));
    PT_CHECK(lo == hi, "%s: codes differ across ranks (%s on this rank, %d..%d)", what,
             pcoll_err_name(rc), lo, hi);
    return rc;
}

/* ---- big blocks on MPI_COMM_SELF --------------------------------------------- */

/* One block of a big layout: count items, each item_bytes contiguous data
 * bytes, item i at byte i * item_ext. */
typedef struct big_layout {
    const char *name;
    MPI_Datatype type;
    int count;
    long long item_bytes;
    MPI_Aint item_ext;
} big_layout;

static long long big_bytes(const big_layout *l)
{
    return (long long)l->count * l->item_bytes;
}

static size_t big_span(const big_layout *l)
{
    return (size_t)(l->count - 1) * (size_t)l->item_ext + (size_t)l->item_bytes;
}

/* Where data byte k of the block sits in the buffer. */
static size_t big_off(const big_layout *l, long long k)
{
    return (size_t)(k / l->item_bytes) * (size_t)l->item_ext + (size_t)(k % l->item_bytes);
}

#define MAX_SAMPLES 1024

/* The data bytes checked of a block of `bytes` bytes whose items hold
 * item_bytes each: both ends of every item, both sides of 2^31 and 2^32,
 * and a spread of others (fixed pseudo-random). */
static int samples(long long bytes, long long item_bytes, long long *k)
{
    int n = 0;
    unsigned long long x = 12345;
    long long marks[] = {0, 1LL << 31, 1LL << 32, bytes};
    long long step = item_bytes > 4096 ? item_bytes : bytes;
    for (long long it = 0; it < bytes && n < MAX_SAMPLES / 2; it += step)
        for (long long d = -16; d < 16; d++)
            if (it + d >= 0 && it + d < bytes)
                k[n++] = it + d;
    for (int m = 0; m < 4; m++)
        for (long long d = -32; d < 32; d++)
            if (marks[m] + d >= 0 && marks[m] + d < bytes && n < MAX_SAMPLES - 64)
                k[n++] = marks[m] + d;
    while (n < MAX_SAMPLES) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        k[n++] = (long long)((x >> 11) % (unsigned long long)bytes);
    }
    return n;
}

static unsigned char big_val(long long k, int run)
{
    unsigned char v = (unsigned char)((k * 131 + run * 29 + 7) % 251 + 1);
    return v == PT_POISON ? 0x5A : v;
}

typedef struct big_bufs {
    char *s, *r;
    const big_layout *sl, *rl;
    long long k[MAX_SAMPLES];
    int n;
} big_bufs;

/* Values at the sampled send bytes, poison at the sampled receive bytes and
 * in the receive gaps; in place (no send layout) the values go to the
 * receive bytes, which must hold them again afterwards. */
static void big_prepare(big_bufs *b, int run)
{
    const big_layout *rl = b->rl;
    for (int i = 0; i < b->n; i++) {
        if (b->sl)
            b->s[big_off(b->sl, b->k[i])] = (char)big_val(b->k[i], run);
        b->r[big_off(rl, b->k[i])] = b->sl ? (char)PT_POISON : (char)big_val(b->k[i], run);
    }
    for (int it = 0; it + 1 < rl->count && rl->item_ext > rl->item_bytes; it++) {
        char *gap = b->r + (size_t)it * (size_t)rl->item_ext + (size_t)rl->item_bytes;
        size_t len = (size_t)(rl->item_ext - rl->item_bytes);
        memset(gap, PT_POISON, len);
    }
}

static void big_check(const big_bufs *b, int run)
{
    const big_layout *rl = b->rl;
    int bad = 0;
    for (int i = 0; i < b->n; i++) {
        unsigned char got = (unsigned char)b->r[big_off(rl, b->k[i])], want = big_val(b->k[i], run);
        if (got != want && bad++ < 5)
            pt_fail("byte %lld of the block: expected %u got %u%s", b->k[i], want, got,
                    got == PT_POISON ? " (poison: not moved)" : "");
    }
    for (int it = 0; it + 1 < rl->count && rl->item_ext > rl->item_bytes; it++) {
        const unsigned char *gap = (const unsigned char *)b->r +
                                   (size_t)it * (size_t)rl->item_ext + (size_t)rl->item_bytes;
        for (MPI_Aint g = 0; g < rl->item_ext - rl->item_bytes; g++)
            if (gap[g] != PT_POISON) {
                pt_fail("gap after item %d byte %ld changed", it, (long)g);
                break;
            }
    }
}

static const char *const big_algs[] = {"linear", "pairwise", "bruck_zerocopy", "auto"};

/* The buffers all pairs share (sized for the largest span): calloc'd, so
 * only the pages a copy writes cost memory. */
static big_bufs *big;
static size_t big_len;
static int big_v; /* alltoallv (one peer: MPI_COMM_SELF) instead of alltoall */

/* One send/receive layout pair (sl NULL: MPI_IN_PLACE): the algorithms
 * big_algs[first..last], persistent then (unless once) one-shot. */
static void big_pair(const big_layout *sl, const big_layout *rl, int first, int last, int once)
{
    long long bytes = big_bytes(rl), item = sl && sl->item_bytes < rl->item_bytes
                                               ? sl->item_bytes
                                               : rl->item_bytes;
    const void *sbuf = sl ? big->s : MPI_IN_PLACE;
    MPI_Datatype stype = sl ? sl->type : MPI_DATATYPE_NULL;
    int scount = sl ? sl->count : 0, run = 0, zero = 0;
    const char *env = big_v ? "PCOLL_ALLTOALLV_ALGORITHM" : "PCOLL_ALLTOALL_ALGORITHM";

    big->sl = sl, big->rl = rl;
    big->n = samples(bytes, item, big->k);
    for (int a = first; a <= last; a++) {
        for (int persistent = 1; persistent >= once; persistent--) {
            const char *alg = big_algs[a];
            int rc;
            pt_case("large %s %s -> %s alg=%s %s", big_v ? "alltoallv" : "alltoall",
                    sl ? sl->name : "in place", rl->name, alg,
                    persistent ? "persistent" : "oneshot");
            big_prepare(big, ++run);
            if (persistent) {
                MPI_Info info = info_alg(alg);
                pcoll_plan_t *plan = NULL;
                set_env_alg(env, NULL);
                rc = big_v ? pcoll_alltoallv_init(sbuf, &scount, &zero, stype, big->r, &rl->count,
                                                  &zero, rl->type, MPI_COMM_SELF, info, &plan)
                           : pcoll_alltoall_init(sbuf, scount, stype, big->r, rl->count,
                                                 rl->type, MPI_COMM_SELF, info, &plan);
                MPI_Info_free(&info);
                if (rc == PCOLL_SUCCESS) {
                    PT_REQUIRE(pcoll_start(plan));
                    PT_REQUIRE(pcoll_wait(plan));
                    pcoll_plan_free(&plan);
                }
            } else {
                set_env_alg(env, alg);
                rc = big_v ? pcoll_alltoallv(sbuf, &scount, &zero, stype, big->r, &rl->count,
                                             &zero, rl->type, MPI_COMM_SELF)
                           : pcoll_alltoall(sbuf, scount, stype, big->r, rl->count, rl->type,
                                            MPI_COMM_SELF);
                set_env_alg(env, NULL);
            }
            /* The counts fit in an int: MPI's own alltoall serves this. */
            if (PT_CHECK(rc == PCOLL_SUCCESS, "%s%s: %s (%s)",
                         big_v ? "pcoll_alltoallv" : "pcoll_alltoall", persistent ? "_init" : "",
                         pcoll_err_name(rc), pcoll_last_error()))
                big_check(big, run);
            else
                check_failure(rc, "large");
        }
    }
}

#define MIB (1LL << 20)

/* reduce_scatter_block on MPI_COMM_SELF of 2^29 + 8 ints (2 GiB + 32
 * bytes: the element count fits in an int, the bytes do not), MPI_SUM of
 * one rank: the input itself, sampled. */
static void big_reduce_scatter(void)
{
    static const char *const algs[] = {"ring", "pairwise", "auto"};
    const int n = (1 << 29) + 8;
    int *s = (int *)(void *)big->s, *r = (int *)(void *)big->r;
    const long at[] = {0, 1, (1L << 29) - 1, 1L << 29, (long)n - 1};
    for (int a = 0; a < 3; a++) {
        pcoll_plan_t *plan = NULL;
        MPI_Info info = info_alg(algs[a]);
        pt_case("large reduce_scatter_block 2^29+8 ints alg=%s", algs[a]);
        for (int k = 0; k < 5; k++)
            s[at[k]] = (int)(at[k] % 1000) + 3 * a + 1, r[at[k]] = -1;
        int rc = pcoll_reduce_scatter_block_init(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_SELF, info,
                                                 &plan);
        MPI_Info_free(&info);
        if (rc == PCOLL_SUCCESS && (rc = pcoll_start(plan)) == PCOLL_SUCCESS)
            rc = pcoll_wait(plan);
        pcoll_plan_free(&plan);
        if (PT_CHECK(rc == PCOLL_SUCCESS, "%s (%s)", pcoll_err_name(rc), pcoll_last_error()))
            for (int k = 0; k < 5; k++)
                PT_CHECK(r[at[k]] == s[at[k]], "element %ld: %d, want %d", at[k], r[at[k]],
                         s[at[k]]);
        pt_case_end();
    }
}

static void big_cases(void)
{
    MPI_Datatype t1m, item, blk, gap, b700, g700, b1050, g1050;
    big_layout item2g, blk1g, gap1g, shrt, gap700, gap1050;
    const big_layout *all[6] = {&item2g, &blk1g, &gap1g, &shrt, &gap700, &gap1050};
    long long avail = mem_available(), most = 0;

    /* item2g: one item of 2 GiB + 2 MiB; blk1g: 2 items of 1 GiB + 1 MiB;
     * gap1g: the same 4 KiB apart; short: 2^30 + 8 shorts (2 GiB + 16). */
    PT_MPI(MPI_Type_contiguous(1 << 20, MPI_BYTE, &t1m));
    PT_MPI(MPI_Type_contiguous(2050, t1m, &item));
    PT_MPI(MPI_Type_contiguous(1025, t1m, &blk));
    PT_MPI(MPI_Type_create_resized(blk, 0, 1025 * MIB + 4096, &gap));
    PT_MPI(MPI_Type_contiguous(700, t1m, &b700));
    PT_MPI(MPI_Type_create_resized(b700, 0, 700 * MIB + 4096, &g700));
    PT_MPI(MPI_Type_contiguous(1050, t1m, &b1050));
    PT_MPI(MPI_Type_create_resized(b1050, 0, 1050 * MIB + 4096, &g1050));
    PT_MPI(MPI_Type_commit(&item));
    PT_MPI(MPI_Type_commit(&blk));
    PT_MPI(MPI_Type_commit(&gap));
    PT_MPI(MPI_Type_commit(&g700));
    PT_MPI(MPI_Type_commit(&g1050));
    item2g = (big_layout){"item2g", item, 1, 2050 * MIB, 2050 * MIB};
    blk1g = (big_layout){"blk1g", blk, 2, 1025 * MIB, 1025 * MIB};
    gap1g = (big_layout){"gap1g", gap, 2, 1025 * MIB, 1025 * MIB + 4096};
    shrt = (big_layout){"short", MPI_SHORT, (1 << 30) + 8, 2, 2};
    gap700 = (big_layout){"gap700m", g700, 3, 700 * MIB, 700 * MIB + 4096};
    gap1050 = (big_layout){"gap1050m", g1050, 2, 1050 * MIB, 1050 * MIB + 4096};

    for (int i = 0; i < 6; i++) {
        big_len = big_span(all[i]) > big_len ? big_span(all[i]) : big_len;
        most = big_bytes(all[i]) > most ? big_bytes(all[i]) : most;
    }
    pt_case("large: blocks over 2 GiB");
    if (avail >= 0 && avail < 3 * most) {
        pt_note("large: MemAvailable %lld MiB < 3 x %lld MiB: big cases skipped", avail >> 20,
                most >> 20);
        pt_skip("not enough memory (MemAvailable under 3 x 2 GiB)");
    } else if (!(big = calloc(1, sizeof *big)) || !(big->s = calloc(1, big_len)) ||
               !(big->r = calloc(1, big_len))) {
        pt_skip("calloc of 2 x 2 GiB failed");
    } else {
        pt_case_end();
        big_pair(&item2g, &item2g, 0, 3, 0);    /* one item over 2 GiB, contiguous */
        big_pair(&blk1g, &blk1g, 0, 3, 0);      /* int count 2, over 2 GiB, contiguous */
        big_pair(&shrt, &shrt, 0, 0, 0);        /* a count whose bytes overflow an int */
        big_pair(&shrt, &shrt, 3, 3, 0);
        big_pair(&gap1g, &blk1g, 0, 0, 0);      /* pack */
        big_pair(&blk1g, &gap1g, 3, 3, 0);      /* unpack */
        big_pair(&gap1g, &gap1g, 1, 1, 0);      /* staged, in pieces */
        big_pair(&item2g, &gap1g, 2, 2, 0);     /* one item over 2 GiB into two */
        big_pair(&gap700, &gap1050, 0, 0, 1);   /* staged, items line up at 2100 MiB only */
        big_pair(NULL, &gap1g, 1, 1, 0);        /* in place: pairwise (scratch) */
        big_pair(NULL, &gap1g, 0, 0, 1);        /* in place: linear (staged copy) */
        big_v = 1;                              /* the same through alltoallv */
        big_pair(&item2g, &item2g, 0, 1, 0);    /* (bruck_zerocopy: items of over */
        big_pair(&item2g, &item2g, 3, 3, 0);    /* INT_MAX basic elements refused) */
        big_pair(&shrt, &shrt, 0, 1, 0);
        big_pair(&gap1g, &blk1g, 0, 0, 0);
        big_pair(NULL, &gap1g, 1, 1, 0);
        big_v = 0;
        big_reduce_scatter();
    }
    if (big) {
        free(big->s);
        free(big->r);
        free(big);
        big = NULL;
    }
    MPI_Type_free(&t1m);
    MPI_Type_free(&item);
    MPI_Type_free(&blk);
    MPI_Type_free(&gap);
    MPI_Type_free(&b700);
    MPI_Type_free(&g700);
    MPI_Type_free(&b1050);
    MPI_Type_free(&g1050);
}

/* ---- MPI_BOTTOM --------------------------------------------------------------- */

/* Item j of an absolute side: a first element (an int, or a double in the
 * `dbl` variant) at a + 16 j and a double at b + 16 j; the type is the
 * struct of those two absolute addresses, resized to extent 16. */
#define ITEM_EXT 16

typedef struct abs_side {
    char *a, *b;
    long nitems;
    int dbl;
    MPI_Datatype type; /* absolute (use with MPI_BOTTOM) */
} abs_side;

/* The same signatures relative to a buffer: {int or double @0, double @8},
 * extent 16. */
static MPI_Datatype rel_types[2];

static MPI_Datatype first_type(int dbl)
{
    return dbl ? MPI_DOUBLE : MPI_INT;
}

static void *xmalloc(size_t len)
{
    void *p = malloc(len);
    if (!p) {
        fprintf(stderr, "test_large: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static size_t side_len(long nitems)
{
    return (size_t)(nitems > 0 ? nitems : 1) * ITEM_EXT;
}

static void abs_make(abs_side *s, long nitems, int dbl)
{
    size_t len = side_len(nitems);
    int lens[2] = {1, 1};
    MPI_Aint disps[2], lb, ext;
    MPI_Datatype types[2] = {first_type(dbl), MPI_DOUBLE}, t;
    s->nitems = nitems;
    s->dbl = dbl;
    s->a = xmalloc(len);
    s->b = xmalloc(len);
    memset(s->a, PT_POISON, len);
    memset(s->b, PT_POISON, len);
    PT_MPI(MPI_Get_address(s->a, &disps[0]));
    PT_MPI(MPI_Get_address(s->b, &disps[1]));
    PT_MPI(MPI_Type_create_struct(2, lens, disps, types, &t));
    PT_MPI(MPI_Type_get_extent(t, &lb, &ext));
    PT_MPI(MPI_Type_create_resized(t, lb, ITEM_EXT, &s->type));
    PT_MPI(MPI_Type_commit(&s->type));
    MPI_Type_free(&t);
}

static void abs_free(abs_side *s)
{
    free(s->a);
    free(s->b);
    if (s->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&s->type);
}

/* Item j of rank me's data. */
static void abs_fill(abs_side *s, int me, int run)
{
    for (long j = 0; j < s->nitems; j++) {
        int iv = me * 100000 + (int)j * 10 + run;
        double fv = iv + 0.125;
        double dv = 0.5 + me * 1000.0 + (double)j + run * 0.25;
        if (s->dbl)
            memcpy(s->a + j * ITEM_EXT, &fv, sizeof fv);
        else
            memcpy(s->a + j * ITEM_EXT, &iv, sizeof iv);
        memcpy(s->b + j * ITEM_EXT, &dv, sizeof dv);
    }
}

/* The relative form of the same items: {first @0, double @8} per 16 bytes. */
static void rel_from_abs(char *buf, const abs_side *s)
{
    for (long j = 0; j < s->nitems; j++) {
        memcpy(buf + j * ITEM_EXT, s->a + j * ITEM_EXT, s->dbl ? sizeof(double) : sizeof(int));
        memcpy(buf + j * ITEM_EXT + 8, s->b + j * ITEM_EXT, sizeof(double));
    }
}

static void compare_bytes(const char *got, const char *want, size_t len, const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (got[i] != want[i]) {
            pt_fail("%s: byte %zu differs from MPI's (got 0x%02x, MPI 0x%02x)", what, i,
                    (unsigned char)got[i], (unsigned char)want[i]);
            return;
        }
}

/* Where each side's data lives for one MPI_BOTTOM case. */
enum bottom_kind { B_BOTH, B_SEND, B_RECV, B_INPLACE, B_COUNT };
static const char *const bottom_name[B_COUNT] = {"both", "send", "recv", "inplace"};

/* One side of a run: absolute (MPI_BOTTOM) or a relative buffer. */
typedef struct side {
    int absolute;
    abs_side abs;
    char *rel;
} side;

static void side_make(side *s, int absolute, long nitems, int dbl)
{
    memset(s, 0, sizeof *s);
    s->absolute = absolute;
    if (absolute) {
        abs_make(&s->abs, nitems, dbl);
        return;
    }
    s->abs.nitems = nitems;
    s->abs.dbl = dbl;
    s->abs.type = MPI_DATATYPE_NULL;
    s->rel = xmalloc(side_len(nitems));
    memset(s->rel, PT_POISON, side_len(nitems));
}

static void side_free(side *s)
{
    if (s->absolute)
        abs_free(&s->abs);
    else
        free(s->rel);
}

static void *side_buf(const side *s)
{
    return s->absolute ? MPI_BOTTOM : s->rel;
}

static MPI_Datatype side_type(const side *s)
{
    return s->absolute ? s->abs.type : rel_types[s->abs.dbl];
}

static void side_fill(side *s, int me, int run)
{
    abs_side tmp = s->abs;
    if (s->absolute) {
        abs_fill(&s->abs, me, run);
        return;
    }
    tmp.a = xmalloc(side_len(tmp.nitems));
    tmp.b = xmalloc(side_len(tmp.nitems));
    abs_fill(&tmp, me, run);
    memset(s->rel, PT_POISON, side_len(tmp.nitems));
    rel_from_abs(s->rel, &tmp);
    free(tmp.a);
    free(tmp.b);
}

static void side_compare(const side *got, const side *want, const char *what)
{
    size_t len = side_len(got->abs.nitems);
    char w[160];
    if (got->absolute) {
        snprintf(w, sizeof w, "%s first-element array", what);
        compare_bytes(got->abs.a, want->abs.a, len, w);
        snprintf(w, sizeof w, "%s double array", what);
        compare_bytes(got->abs.b, want->abs.b, len, w);
    } else {
        compare_bytes(got->rel, want->rel, len, what);
    }
}

/* Counts and displacements (in items) of one MPI_BOTTOM case: alltoall uses
 * count c to every peer; alltoallv sends (me + j + c) % 3 items to j when c
 * is 1 (zeros among them), 1 + (me + j) % 2 when c is 2 (regular sizes, for
 * bruck_zerocopy), its blocks in order with a hole of one item after each,
 * and receives them in reverse block order, with holes too.  The items are
 * {int, double} when c is 1, {double, double} when c is 2 (one basic type,
 * for padded_bruck and bruck_zerocopy). */
typedef struct shape {
    int v, c, np, me, dbl;
    int *sc, *sd, *rc, *rd;
    long sitems, ritems;
} shape;

static int v_count(int c, int from, int to)
{
    return c == 1 ? (from + to + c) % 3 : 1 + (from + to) % 2;
}

static void shape_make(shape *s, int v, int c, int np, int me)
{
    s->v = v, s->c = c, s->np = np, s->me = me, s->dbl = c == 2;
    s->sc = xmalloc(4 * sizeof(int) * (size_t)np);
    s->sd = s->sc + np, s->rc = s->sd + np, s->rd = s->rc + np;
    s->sitems = s->ritems = 0;
    for (int j = 0; j < np; j++) {
        s->sc[j] = v ? v_count(c, me, j) : c;
        s->rc[j] = v ? v_count(c, j, me) : c;
        s->sd[j] = (int)s->sitems;
        s->sitems += s->sc[j] + v;
    }
    for (int j = np - 1; j >= 0; j--) {
        s->rd[j] = (int)s->ritems;
        s->ritems += s->rc[j] + v;
    }
}

static void shape_free(shape *s)
{
    free(s->sc);
}

/* In place, the receive layout serves both directions. */
static int run_mpi(const shape *s, int inplace, side *snd, side *rcv, MPI_Comm comm)
{
    const void *sb = inplace ? MPI_IN_PLACE : side_buf(snd);
    MPI_Datatype st = inplace ? MPI_DATATYPE_NULL : side_type(snd);
    if (s->v)
        return MPI_Alltoallv(sb, s->sc, s->sd, st, side_buf(rcv), s->rc, s->rd, side_type(rcv),
                             comm);
    return MPI_Alltoall(sb, s->c, st, side_buf(rcv), s->c, side_type(rcv), comm);
}

static int run_pcoll(const shape *s, int inplace, side *snd, side *rcv, MPI_Comm comm,
                     const char *alg, int persistent)
{
    const void *sb = inplace ? MPI_IN_PLACE : side_buf(snd);
    MPI_Datatype st = inplace ? MPI_DATATYPE_NULL : side_type(snd);
    const char *var = s->v ? "PCOLL_ALLTOALLV_ALGORITHM" : "PCOLL_ALLTOALL_ALGORITHM";
    int rc;
    if (persistent) {
        MPI_Info info = info_alg(alg);
        pcoll_plan_t *plan = NULL;
        if (s->v)
            rc = pcoll_alltoallv_init(sb, s->sc, s->sd, st, side_buf(rcv), s->rc, s->rd,
                                      side_type(rcv), comm, info, &plan);
        else
            rc = pcoll_alltoall_init(sb, s->c, st, side_buf(rcv), s->c, side_type(rcv), comm,
                                     info, &plan);
        MPI_Info_free(&info);
        if (agree_rc(rc, comm, "init") == PCOLL_SUCCESS) {
            PT_REQUIRE(pcoll_start(plan));
            PT_REQUIRE(pcoll_wait(plan));
        }
        pcoll_plan_free(&plan);
        return rc;
    }
    set_env_alg(var, alg);
    if (s->v)
        rc = pcoll_alltoallv(sb, s->sc, s->sd, st, side_buf(rcv), s->rc, s->rd, side_type(rcv),
                             comm);
    else
        rc = pcoll_alltoall(sb, s->c, st, side_buf(rcv), s->c, side_type(rcv), comm);
    set_env_alg(var, NULL);
    agree_rc(rc, comm, "one-shot");
    return rc;
}

/* The cases an algorithm documents it cannot serve, whatever the buffers:
 * alltoallv in place with an algorithm that neither serves MPI_IN_PLACE
 * nor gets a staged copy; alltoallv bruck_zerocopy and padded_bruck one-shot
 * or with types mixing basic types (or, bruck_zerocopy, irregular sizes);
 * alltoallv bruck_radix with types mixing basic types. */
static int may_refuse(const shape *s, enum bottom_kind kind, const char *alg, int persistent)
{
    int zc = strcmp(alg, "bruck_zerocopy") == 0, pb = strcmp(alg, "padded_bruck") == 0;
    int br = strcmp(alg, "bruck_radix") == 0;
    /* The MPI's own in place, where it is known to fail packed messages
     * received non-contiguously (core/defects.h). */
    if (kind == B_INPLACE && strcmp(alg, "native") == 0 &&
        pcoll__mpi_defect(PCOLL__DEFECT_UCX_SPLIT_UNPACK))
        return 1;
    if (!s->v)
        return 0;
    if (kind == B_INPLACE && strcmp(alg, "pairwise") && strcmp(alg, "hier") &&
        strcmp(alg, "inplace") && strcmp(alg, "auto"))
        return 1;
    return ((zc || pb) && (!persistent || !s->dbl)) || (br && !s->dbl);
}

static int bottom_run = 0;

static void bottom_case(const shape *s, enum bottom_kind kind, const char *alg, int persistent,
                        MPI_Comm comm)
{
    int inplace = kind == B_INPLACE, rc;
    side snd, rcv, ref;
    const char *coll = s->v ? "alltoallv" : "alltoall";

    pt_case("bottom %s %s count=%d alg=%s %s np=%d", coll, bottom_name[kind], s->c, alg,
            persistent ? "persistent" : "oneshot", s->np);
    /* The reference is MPI_Alltoall's answer, known to be wrong here. */
    if (!s->v && s->np > 12 && pcoll__mpi_defect(PCOLL__DEFECT_OMPI_ALLTOALL_BRUCK)) {
        pt_skip("MPI_Alltoall is wrong on this MPI (core/defects.h)");
        return;
    }
    bottom_run++;
    side_make(&snd, kind == B_BOTH || kind == B_SEND, s->sitems, s->dbl);
    side_make(&rcv, kind != B_SEND, s->ritems, s->dbl);
    side_make(&ref, kind != B_SEND, s->ritems, s->dbl);
    side_fill(&snd, s->me, bottom_run);
    if (inplace) {
        side_fill(&rcv, s->me, bottom_run);
        side_fill(&ref, s->me, bottom_run);
    }
    PT_MPI(run_mpi(s, inplace, &snd, &ref, comm));
    rc = run_pcoll(s, inplace, &snd, &rcv, comm, alg, persistent);
    if (rc == PCOLL_SUCCESS) {
        side_compare(&rcv, &ref, "receive");
    } else {
        check_failure(rc, coll);
        PT_CHECK(rc == PCOLL_ERR_UNSUPPORTED && may_refuse(s, kind, alg, persistent),
                 "%s: %s (%s): MPI_Alltoall%s serves it", coll, pcoll_err_name(rc),
                 pcoll_last_error(), s->v ? "v" : "");
    }
    side_free(&snd);
    side_free(&rcv);
    side_free(&ref);
}

static int algo_count(const char *coll)
{
    int n = 0;
    while (pcoll_algorithm_name(coll, n))
        n++;
    return n;
}

static void bottom_cases(void)
{
    static const char *const colls[2] = {"alltoall", "alltoallv"};

    for (int dbl = 0; dbl < 2; dbl++) {
        int lens[2] = {1, 1};
        MPI_Aint disps[2] = {0, 8};
        MPI_Datatype types[2] = {first_type(dbl), MPI_DOUBLE}, t;
        PT_MPI(MPI_Type_create_struct(2, lens, disps, types, &t));
        PT_MPI(MPI_Type_create_resized(t, 0, ITEM_EXT, &rel_types[dbl]));
        PT_MPI(MPI_Type_commit(&rel_types[dbl]));
        MPI_Type_free(&t);
    }
    for (int v = 0; v < 2; v++) {
        int nalg = algo_count(colls[v]);
        for (int c = 1; c <= 2; c++) {
            shape s;
            shape_make(&s, v, c, pt_size, pt_rank);
            for (int a = 0; a < nalg; a++) {
                const char *alg = pcoll_algorithm_name(colls[v], a);
                for (int kind = 0; kind < B_COUNT; kind++)
                    for (int persistent = 1; persistent >= 0; persistent--) {
                        /* The alltoallv algorithm `inplace` serves MPI_IN_PLACE only. */
                        if (v && strcmp(alg, "inplace") == 0 && kind != B_INPLACE)
                            continue;
                        bottom_case(&s, (enum bottom_kind)kind, alg, persistent,
                                    MPI_COMM_WORLD);
                    }
            }
            shape_free(&s);
        }
    }
    pt_case_end();
    MPI_Type_free(&rel_types[0]);
    MPI_Type_free(&rel_types[1]);
}

/* Opt-in (test_large pairs, np 2, about 10 GiB in all): blocks of 2 GiB +
 * 2 MiB (one item each) exchanged between two ranks: linear, and pairwise
 * in place, which sends a block over 2 GiB as its signature type. */
static unsigned char pair_val(long long k, int src, int dst)
{
    unsigned char v = (unsigned char)((k * 7 + src * 101 + dst * 37 + 3) % 251 + 1);
    return v == PT_POISON ? 0x5A : v;
}

static void big_exchange(void)
{
    MPI_Datatype t1m, item;
    const long long bytes = 2050 * MIB;
    long long k[MAX_SAMPLES];
    int n = samples(bytes, bytes, k);
    char *s = calloc(2, (size_t)bytes), *r = calloc(2, (size_t)bytes);
    PT_MPI(MPI_Type_contiguous(1 << 20, MPI_BYTE, &t1m));
    PT_MPI(MPI_Type_contiguous(2050, t1m, &item));
    PT_MPI(MPI_Type_commit(&item));
    for (int inplace = 0; inplace < 2 && s && r; inplace++) {
        const char *alg = inplace ? "pairwise" : "linear";
        MPI_Info info = info_alg(alg);
        pcoll_plan_t *plan = NULL;
        int rc;
        pt_case("large exchange np 2 alg=%s%s", alg, inplace ? " in place" : "");
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < n; i++) {
                char *buf = inplace ? r : s;
                buf[(size_t)b * (size_t)bytes + (size_t)k[i]] = (char)pair_val(k[i], pt_rank, b);
                if (!inplace)
                    r[(size_t)b * (size_t)bytes + (size_t)k[i]] = (char)PT_POISON;
            }
        rc = pcoll_alltoall_init(inplace ? MPI_IN_PLACE : s, 1, item, r, 1, item, MPI_COMM_WORLD,
                                 info, &plan);
        MPI_Info_free(&info);
        if (PT_CHECK(agree_rc(rc, MPI_COMM_WORLD, "init") == PCOLL_SUCCESS, "init: %s (%s)",
                     pcoll_err_name(rc), pcoll_last_error())) {
            PT_REQUIRE(pcoll_start(plan));
            PT_REQUIRE(pcoll_wait(plan));
            for (int b = 0, bad = 0; b < 2; b++)
                for (int i = 0; i < n; i++) {
                    unsigned char got = (unsigned char)r[(size_t)b * (size_t)bytes + (size_t)k[i]];
                    unsigned char want = pair_val(k[i], b, pt_rank);
                    if (got != want && bad++ < 5)
                        pt_fail("block %d byte %lld: expected %u got %u", b, k[i], want, got);
                }
        }
        pcoll_plan_free(&plan);
    }
    if (!s || !r) {
        pt_case("large exchange np 2");
        pt_skip("calloc of 2 x 4 GiB failed");
    }
    free(s);
    free(r);
    MPI_Type_free(&t1m);
    MPI_Type_free(&item);
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    pt_init(&argc, &argv);
    if (argc > 1)
        only = argv[1];

    if (!only || strcmp(only, "bottom") == 0)
        bottom_cases();
    /* The big cases (MPI_COMM_SELF) do not depend on np: world rank 0 of the
     * runs on 1 and 2 ranks does them (only on 1 under AddressSanitizer,
     * where they take twice as long). */
    if ((!only || strcmp(only, "big") == 0) && pt_rank == 0 && pt_size <= (PT_ASAN ? 1 : 2))
        big_cases();
    if (only && strcmp(only, "pairs") == 0 && pt_size == 2)
        big_exchange();
    pt_case_end();
    return pt_finish();
}
