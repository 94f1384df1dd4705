/*
 * test_alltoallv.c -- every alltoallv algorithm against closed-form values and
 * MPI_Alltoallv, and the bad-input verdicts.
 *
 * Sweep: algorithms (the library's table; those this test does not know, such
 * as hier, only on the entries marked `wide`) x entries of
 * (communicator: world, reversed, split by rank % 3, odd/even, halves; type
 * pair: MPI_INT both sides, strided doubles sent into doubles with a negative
 * lower bound, two int+double structs with different layouts; count pattern;
 * displacement order; modes):
 *   count patterns (items rank s sends to rank d, ranks in the communicator)
 *     equal     3
 *     mod4      (s + d) % 4                        many zeros
 *     random    seeded hash of (s, d) in 0..7      same seed on every rank
 *     randpos   seeded hash of (s, d) in 1..8      (with a pcoll_regular_ratio)
 *     huge      20000 to the one peer d with (s + d) % p == p - 1, else 2
 *     zero      0
 *     near      10 + (7 s + 3 d) % 5               nearly regular
 *   so that recvcounts[s] at rank r equals sendcounts[r] at rank s (times
 *   the items per item of the two layouts); in place the pattern is made
 *   symmetric, count(s, d) = count(min, max).
 *   displacements: blocks in peer order, in reverse peer order, or in order
 *   with gaps before, between and after them (the gaps must stay untouched).
 *   modes:
 *     oneshot     pcoll_alltoallv, algorithm from PCOLL_ALLTOALLV_ALGORITHM
 *                 (and PCOLL_REGULAR_RATIO where the entry sets a ratio)
 *     persistent  pcoll_alltoallv_init with info pcoll_algorithm (and
 *                 pcoll_regular_ratio); three starts with new input, the
 *                 last completed by a pcoll_test loop; no run may allocate
 *     inplace     MPI_IN_PLACE one-shot (receive layout both ways)
 *     inplace_p   MPI_IN_PLACE persistent, one pcoll_wait and one pcoll_test run
 *
 * Each entry computes MPI_Alltoallv once (checked against the closed form);
 * the one-shot result and the first persistent run are compared with it.
 *
 * Values: the element at byte offset `off` of rank s's send buffer holds
 * pt_val(s, off, run), so the receiver knows which sender, block, item,
 * element and run must land in every element.  Receive buffers are poisoned
 * before every run; gaps and bytes outside the receive type map must stay
 * poisoned (in place: keep their own values); send buffers stay unchanged.
 *
 * Refusals: bruck_zerocopy answers PCOLL_ERR_UNSUPPORTED when the sizes are
 * too irregular (max element > ratio x min element over all ranks) or a
 * signature mixes basic types; padded_bruck when a signature mixes basic
 * types; everything but pairwise and auto in place.  Such an answer must come
 * from every rank and counts as a skip; any other UNSUPPORTED is a failure
 * (bruck_zerocopy must run on all-equal, nearly regular and all-zero sizes).
 * A refusal costs a collective init, so it is tried only in the entries
 * marked `refusals`; elsewhere the case is left out (on every rank alike).
 *
 * bruck_radix refuses like padded_bruck; radix_sweep runs it at
 * every pcoll_radix from 2 to np + 1 and at 2 np + 3 (radix > p), with
 * zeros, a huge block and derived layouts, persistent restarts and some
 * one-shot calls.
 *
 * Bad input: negative counts or displacements, NULL counts, overlapping
 * receive blocks (PCOLL_ERR_ARG) and send/receive counts that disagree
 * between two ranks (PCOLL_ERR_MISMATCH), each on one rank: every rank must
 * get the code from pcoll_alltoallv_init, with no info and with each
 * algorithm.  The one-shot call gets the bad value on every rank.
 *
 * Runtime: every persistent init costs about 0.3 s at np 16 on two
 * oversubscribed cores (its reductions); the sweep is sized for about 20 s
 * there with MPICH.
 *
 * Usage: test_alltoallv [algorithm]   (default: every algorithm in the table)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum mode { M_ONESHOT = 1, M_PERSIST = 2, M_INPLACE = 4, M_INPLACE_P = 8 };

enum pattern { P_EQUAL, P_MOD4, P_RANDOM, P_RANDPOS, P_HUGE, P_ZERO, P_NEAR };
static const char *const pattern_names[] = {"equal", "mod4",  "random", "randpos",
                                            "huge",  "zero",  "near"};
enum { HUGE_COUNT = 20000 };

enum dmode { D_ORDER, D_REVERSE, D_GAPS };
static const char *const dmode_names[] = {"order", "reverse", "gaps"};

typedef struct type_pair {
    const char *name;
    enum pt_layout_kind send, recv;
    int single_basic; /* both signatures made of one predefined type */
} type_pair;

enum { T_INT, T_VEC, T_STRUCT, T_COUNT };
static const type_pair pairs[T_COUNT] = {
    [T_INT] = {"int/int", PT_L_INT, PT_L_INT, 1},
    [T_VEC] = {"vec2x2d/neglb_d", PT_L_VEC, PT_L_NEGLB, 1},
    [T_STRUCT] = {"structA/structB", PT_L_STRUCT_A, PT_L_STRUCT_B, 0},
};

/* One entry of the sweep: every algorithm runs `modes` on it. */
typedef struct entry {
    enum pt_comm_kind comm;
    int pair;
    enum pattern pattern;
    unsigned seed;
    enum dmode dmode;
    int modes;
    int ratio;    /* pcoll_regular_ratio to set (0: the library's default, 2) */
    int refusals; /* also try the algorithms that must refuse (each try costs
                     a collective init, so only some entries do) */
    int wide;     /* run every algorithm of the table, not only those this
                     test knows (see is_known) */
    int radix;    /* pcoll_radix to set (0: the library's choice) */
} entry;

static pt_layout layouts[PT_L_COUNT];

/* Everything one run needs to know. */
typedef struct setup {
    const entry *e;
    const char *alg;
    MPI_Comm comm;
    int me, np;
    int inplace;            /* the receive layout both ways, symmetric counts */
    const pt_layout *s, *r; /* send and receive layouts */
    int mult;               /* receive items per send item */
    int *sc, *sd, *rc, *rd; /* this rank's arguments */
    long sitems, ritems;    /* items the send and receive buffers span */
    int *from;              /* from[s]: where rank s's block for me starts */
    int *owner;             /* per receive item: the peer, or -1 in a gap */
    long *index;            /* per receive item: its index in the block */
} setup;

/* ---- the closed-form problem ---------------------------------------------- */

static unsigned mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Items rank s sends to rank d (in send items). */
static int count_of(const entry *e, int s, int d, int np, int symmetric)
{
    unsigned h;
    if (symmetric && s > d) {
        int t = s;
        s = d, d = t;
    }
    h = mix(e->seed * 0x9E3779B9U + (unsigned)(s * np + d));
    switch (e->pattern) {
    case P_EQUAL: return 3;
    case P_MOD4: return (s + d) % 4;
    case P_RANDOM: return (int)(h % 8);
    case P_RANDPOS: return 1 + (int)(h % 8);
    case P_HUGE: return (s + d) % np == np - 1 ? HUGE_COUNT : 2;
    case P_ZERO: return 0;
    default: return 10 + (7 * s + 3 * d) % 5;
    }
}

/* Displacements for the counts c (in items); returns the items spanned. */
static long place(const int *c, int *d, int np, enum dmode dm, int x)
{
    long pos = dm == D_GAPS ? 1 + x % 2 : 0;
    for (int k = 0; k < np; k++) {
        int i = dm == D_REVERSE ? np - 1 - k : k;
        d[i] = (int)pos;
        pos += c[i] + (dm == D_GAPS ? 1 + i % 3 : 0);
    }
    return pos + (dm == D_GAPS ? 2 : 0);
}

/* Rank x's send (recv = 0) or receive (recv = 1) counts and displacements. */
static long side(const setup *u, int x, int recv, int *c, int *d)
{
    for (int i = 0; i < u->np; i++)
        c[i] = recv ? count_of(u->e, i, x, u->np, u->inplace) * u->mult
                    : count_of(u->e, x, i, u->np, u->inplace);
    return place(c, d, u->np, u->e->dmode, x);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        MPI_Abort(MPI_COMM_WORLD, 4);
    return p;
}

/* Fill u's arguments, the senders' block positions and the receive map. */
static void setup_make(setup *u)
{
    int np = u->np, *tc = xmalloc(sizeof(int) * (size_t)np);
    int *td = xmalloc(sizeof(int) * (size_t)np);
    u->mult = u->inplace ? 1 : u->s->nelem / u->r->nelem;
    u->sc = xmalloc(sizeof(int) * (size_t)np), u->sd = xmalloc(sizeof(int) * (size_t)np);
    u->rc = xmalloc(sizeof(int) * (size_t)np), u->rd = xmalloc(sizeof(int) * (size_t)np);
    u->from = xmalloc(sizeof(int) * (size_t)np);
    u->sitems = side(u, u->me, 0, u->sc, u->sd);
    u->ritems = side(u, u->me, 1, u->rc, u->rd);
    for (int s = 0; s < np; s++) {
        side(u, s, u->inplace, tc, td);
        u->from[s] = td[u->me];
    }
    u->owner = xmalloc(sizeof(int) * (size_t)u->ritems);
    u->index = xmalloc(sizeof(long) * (size_t)u->ritems);
    for (long t = 0; t < u->ritems; t++)
        u->owner[t] = -1;
    for (int s = 0; s < np; s++)
        for (long q = 0; q < u->rc[s]; q++) {
            u->owner[u->rd[s] + q] = s;
            u->index[u->rd[s] + q] = q;
        }
    free(tc);
    free(td);
}

static void setup_free(setup *u)
{
    free(u->sc), free(u->sd), free(u->rc), free(u->rd);
    free(u->from), free(u->owner), free(u->index);
}

/* Whether zero-copy Bruck's regularity test passes over a communicator of
 * np ranks. */
static int is_regular(const setup *u, int np)
{
    const pt_layout *sl = u->inplace ? u->r : u->s;
    long long lo = -1, hi = 0;
    int size, ratio = u->e->ratio ? u->e->ratio : 2;
    MPI_Type_size(sl->type, &size);
    for (int s = 0; s < np; s++)
        for (int d = 0; d < np; d++) {
            long long b = (long long)count_of(u->e, s, d, np, u->inplace) * size;
            lo = lo < 0 || b < lo ? b : lo;
            hi = b > hi ? b : hi;
        }
    return hi <= ratio * lo;
}

/* ---- expectations -------------------------------------------------------- */

enum expect { E_RUN, E_REFUSE, E_EITHER };

static int is_alg(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* The algorithms whose answers this test knows.  The table may hold others
 * (hier, ...): they may refuse anything, and run only on the `wide` entries
 * unless named on the command line. */
static int is_known(const char *a)
{
    return is_alg(a, "linear") || is_alg(a, "pairwise") || is_alg(a, "scattered") ||
           is_alg(a, "bruck_zerocopy") || is_alg(a, "padded_bruck") ||
           is_alg(a, "bruck_radix") || is_alg(a, "auto");
}

/* What the algorithm must answer on u over np ranks. */
static enum expect expectation(const setup *u, int np)
{
    const char *a = u->alg;
    int single = pairs[u->e->pair].single_basic;
    if (!is_known(a))
        return E_EITHER;
    if (u->inplace)
        return is_alg(a, "pairwise") || is_alg(a, "auto") ? E_RUN : E_REFUSE;
    if (is_alg(a, "bruck_zerocopy"))
        return single && is_regular(u, np) ? E_RUN : E_REFUSE;
    if (is_alg(a, "padded_bruck") || is_alg(a, "bruck_radix"))
        return single ? E_RUN : E_REFUSE;
    return E_RUN;
}

/* Whether every rank of comm returned rc (an allgather: far cheaper than an
 * allreduce on oversubscribed cores); *other is a code that differs. */
static int same_everywhere(MPI_Comm comm, int rc, int np, int *other)
{
    int *all = xmalloc(sizeof(int) * (size_t)np), same = 1;
    PT_MPI(MPI_Allgather(&rc, 1, MPI_INT, all, 1, MPI_INT, comm));
    for (int i = 0; i < np; i++)
        if (all[i] != rc)
            same = 0, *other = all[i];
    free(all);
    return same;
}

/* Every rank's code must be the same; then UNSUPPORTED is a skip where the
 * algorithm may refuse.  Returns 1 when the case goes on to check data. */
static int judge_rc(const setup *u, int rc, const char *what)
{
    enum expect ex = expectation(u, u->np);
    int other = rc;
    if (!same_everywhere(u->comm, rc, u->np, &other))
        return pt_fail("%s: ranks disagree: %s here, %s elsewhere (\"%s\")", what,
                       pcoll_err_name(rc), pcoll_err_name(other), pcoll_last_error());
    if (rc == PCOLL_ERR_UNSUPPORTED && ex != E_RUN) {
        pt_skip("algorithm answered PCOLL_ERR_UNSUPPORTED on every rank");
        return 0;
    }
    if (rc != PCOLL_SUCCESS)
        return pt_fail("%s returned %s: \"%s\"", what, pcoll_err_name(rc), pcoll_last_error());
    PT_CHECK(ex != E_REFUSE, "%s succeeded where PCOLL_ERR_UNSUPPORTED was expected", what);
    return 1;
}

static int is_concrete(const char *name)
{
    const char *n;
    if (is_alg(name, "auto"))
        return 0;
    for (int i = 0; (n = pcoll_algorithm_name("alltoallv", i)) != NULL; i++)
        if (is_alg(n, name))
            return 1;
    return 0;
}

/* ---- buffers and checks ----------------------------------------------------- */

static void fill(const pt_buf *b, int me, int run)
{
    long nk = b->nitems * b->lay->nelem;
    for (long k = 0; k < nk; k++)
        pt_put(b, k, pt_val(me, (long)pt_off(b, k), run));
}

static int still_poison(const pt_buf *b, long k)
{
    const unsigned char *p = (const unsigned char *)b->base + pt_off(b, k);
    size_t n = b->lay->kind[k % b->lay->nelem] == 'i' ? sizeof(int) : sizeof(double);
    for (size_t i = 0; i < n; i++)
        if (p[i] != PT_POISON)
            return 0;
    return 1;
}

/* A gap element: poison, or in place the value it was filled with. */
static void check_gap(const setup *u, const pt_buf *rb, long k, int run, const char *what)
{
    if (!u->inplace) {
        if (!still_poison(rb, k))
            pt_fail("%s: gap element %ld overwritten (got %g)", what, k, pt_get(rb, k));
        return;
    }
    pt_check_elem(what, u->me, k, pt_val(u->me, (long)pt_off(rb, k), run), pt_get(rb, k));
}

/* The receive buffer after a run: element q of block s came from element q
 * of the block that rank s keeps for me at item from[s] of its send layout. */
static void check_recv(const setup *u, const pt_buf *rb, int run, const char *what)
{
    const pt_layout *r = u->r, *sl = u->inplace ? u->r : u->s;
    for (long t = 0; t < u->ritems; t++) {
        int s = u->owner[t];
        for (int e = 0; e < r->nelem; e++) {
            long k = t * r->nelem + e, q = u->index[t] * r->nelem + e;
            MPI_Aint off;
            double want, got;
            if (s < 0) {
                check_gap(u, rb, k, run, what);
                continue;
            }
            off = pt_elem_off(sl, u->from[s] + q / sl->nelem, (int)(q % sl->nelem));
            want = pt_val(s, (long)off, run);
            got = pt_get(rb, k);
            if (want != got)
                pt_check_elem(what, s, q, want, got);
        }
    }
    pt_check_untouched(rb, what);
}

static void check_send_intact(const pt_buf *sb, int me, int run)
{
    long nk = sb->nitems * sb->lay->nelem;
    for (long k = 0; k < nk; k++) {
        double want = pt_val(me, (long)pt_off(sb, k), run), got = pt_get(sb, k);
        if (want != got)
            pt_check_elem("send buffer modified", me, k, want, got);
    }
    pt_check_untouched(sb, "send buffer gaps modified");
}

/* A derived type is duplicated so that the plan's copy can be checked to
 * survive the caller freeing its own right after init. */
static MPI_Datatype dup_type(const pt_layout *lay)
{
    MPI_Datatype t = lay->type;
    if (lay->owned)
        PT_MPI(MPI_Type_dup(lay->type, &t));
    return t;
}

static void free_dup(const pt_layout *lay, MPI_Datatype *t)
{
    if (lay->owned)
        MPI_Type_free(t);
}

/* ---- runs ------------------------------------------------------------------- */

static void set_env(const setup *u)
{
    char ratio[16];
    setenv("PCOLL_ALLTOALLV_ALGORITHM", u->alg, 1);
    if (u->e->ratio) {
        snprintf(ratio, sizeof ratio, "%d", u->e->ratio);
        setenv("PCOLL_REGULAR_RATIO", ratio, 1);
    }
    if (u->e->radix) {
        snprintf(ratio, sizeof ratio, "%d", u->e->radix);
        setenv("PCOLL_RADIX", ratio, 1);
    }
}

static void unset_env(void)
{
    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
    unsetenv("PCOLL_REGULAR_RATIO");
    unsetenv("PCOLL_RADIX");
}

static void run_oneshot(const setup *u, const pt_buf *ref)
{
    pt_buf sb = {0}, rb;
    int rc, run = u->inplace ? 5 : 1;
    pt_buf_alloc(&rb, u->r, u->ritems);
    if (u->inplace) {
        fill(&rb, u->me, run);
    } else {
        pt_buf_alloc(&sb, u->s, u->sitems);
        fill(&sb, u->me, run);
    }
    set_env(u);
    if (u->inplace) /* MPI ignores the send arguments in place: pass nonsense. */
        rc = pcoll_alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb.base, u->rc, u->rd,
                             u->r->type, u->comm);
    else
        rc = pcoll_alltoallv(sb.base, u->sc, u->sd, u->s->type, rb.base, u->rc, u->rd,
                             u->r->type, u->comm);
    unset_env();
    if (judge_rc(u, rc, "pcoll_alltoallv")) {
        check_recv(u, &rb, run, u->inplace ? "in-place one-shot" : "one-shot");
        if (!u->inplace) {
            check_send_intact(&sb, u->me, run);
            if (ref)
                pt_compare(&rb, ref, "one-shot vs MPI_Alltoallv");
        }
    }
    pt_buf_free(&rb);
    if (!u->inplace)
        pt_buf_free(&sb);
}

/* Init a plan with info pcoll_algorithm (and pcoll_regular_ratio) and freshly
 * duplicated types freed at once; NULL if the algorithm declined. */
static pcoll_plan_t *make_plan(const setup *u, const pt_buf *sb, const pt_buf *rb)
{
    pcoll_plan_t *plan = NULL;
    MPI_Info info;
    MPI_Datatype st = MPI_DATATYPE_NULL, rt = dup_type(u->r);
    char ratio[16];
    int rc;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", u->alg));
    snprintf(ratio, sizeof ratio, "%d", u->e->ratio);
    if (u->e->ratio)
        PT_MPI(MPI_Info_set(info, "pcoll_regular_ratio", ratio));
    snprintf(ratio, sizeof ratio, "%d", u->e->radix);
    if (u->e->radix)
        PT_MPI(MPI_Info_set(info, "pcoll_radix", ratio));
    if (sb) {
        st = dup_type(u->s);
        rc = pcoll_alltoallv_init(sb->base, u->sc, u->sd, st, rb->base, u->rc, u->rd, rt,
                                  u->comm, info, &plan);
        free_dup(u->s, &st);
    } else {
        rc = pcoll_alltoallv_init(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb->base, u->rc,
                                  u->rd, rt, u->comm, info, &plan);
    }
    free_dup(u->r, &rt);
    MPI_Info_free(&info);
    if (!judge_rc(u, rc, "pcoll_alltoallv_init")) {
        PT_CHECK(rc == PCOLL_SUCCESS || plan == NULL, "plan not NULL after a failed init");
        if (plan) /* this rank succeeded where another did not: never started */
            PT_OK(pcoll_plan_free(&plan));
        return NULL;
    }
    if (is_alg(u->alg, "auto"))
        PT_CHECK(is_concrete(pcoll_plan_algorithm(plan)),
                 "auto plan runs \"%s\", not a concrete algorithm", pcoll_plan_algorithm(plan));
    else
        PT_CHECK(is_alg(pcoll_plan_algorithm(plan), u->alg), "plan runs \"%s\", requested \"%s\"",
                 pcoll_plan_algorithm(plan), u->alg);
    return plan;
}

/* One run: pcoll_wait, or pcoll_test until done; nothing may be allocated. */
static void run_plan(pcoll_plan_t *plan, int use_test)
{
    long long before = pcoll_mem_current();
    pcoll_mem_reset_peak();
    PT_REQUIRE(pcoll_start(plan));
    if (use_test)
        pt_test_loop(plan);
    else
        PT_REQUIRE(pcoll_wait(plan));
    PT_CHECK(pcoll_mem_current() == before && pcoll_mem_peak() == before,
             "the run allocated: %lld bytes before, %lld after, peak %lld", before,
             pcoll_mem_current(), pcoll_mem_peak());
}

static void free_plan(pcoll_plan_t **plan)
{
    PT_OK(pcoll_plan_free(plan));
    PT_CHECK(*plan == NULL, "pcoll_plan_free did not set the plan to NULL");
}

static void run_persistent(const setup *u, const pt_buf *ref)
{
    pt_buf sb, rb;
    pcoll_plan_t *plan;
    char what[64];
    pt_buf_alloc(&sb, u->s, u->sitems);
    pt_buf_alloc(&rb, u->r, u->ritems);
    plan = make_plan(u, &sb, &rb);
    for (int run = 1; plan && run <= 3; run++) {
        fill(&sb, u->me, run);
        pt_buf_poison(&rb);
        run_plan(plan, run == 3);
        snprintf(what, sizeof what, "persistent run %d (%s)", run, run == 3 ? "test" : "wait");
        check_recv(u, &rb, run, what);
        check_send_intact(&sb, u->me, run);
        if (run == 1 && ref)
            pt_compare(&rb, ref, "persistent run 1 vs MPI_Alltoallv");
    }
    if (plan)
        free_plan(&plan);
    pt_buf_free(&sb);
    pt_buf_free(&rb);
}

static void run_inplace_persistent(const setup *u)
{
    pt_buf rb;
    pcoll_plan_t *plan;
    char what[64];
    pt_buf_alloc(&rb, u->r, u->ritems);
    plan = make_plan(u, NULL, &rb);
    for (int run = 6; plan && run <= 7; run++) {
        pt_buf_poison(&rb);
        fill(&rb, u->me, run);
        run_plan(plan, run == 7);
        snprintf(what, sizeof what, "in-place persistent run %d (%s)", run - 5,
                 run == 7 ? "test" : "wait");
        check_recv(u, &rb, run, what);
    }
    if (plan)
        free_plan(&plan);
    pt_buf_free(&rb);
}

/* MPI_Alltoallv's answer for run 1 (checked against the closed form too,
 * which validates the test's own arithmetic). */
static void make_reference(const setup *u, pt_buf *ref)
{
    pt_buf sb;
    pt_buf_alloc(&sb, u->s, u->sitems);
    pt_buf_alloc(ref, u->r, u->ritems);
    fill(&sb, u->me, 1);
    PT_MPI(MPI_Alltoallv(sb.base, u->sc, u->sd, u->s->type, ref->base, u->rc, u->rd,
                         u->r->type, u->comm));
    check_recv(u, ref, 1, "MPI_Alltoallv (test self-check)");
    pt_buf_free(&sb);
}

static const char *mode_name(int m)
{
    switch (m) {
    case M_ONESHOT: return "oneshot";
    case M_PERSIST: return "persistent";
    case M_INPLACE: return "inplace";
    default: return "inplace_persistent";
    }
}

static void run_mode(setup *u, int m, const pt_buf *ref)
{
    if (m == M_ONESHOT)
        run_oneshot(u, ref);
    else if (m == M_PERSIST)
        run_persistent(u, ref);
    else if (m == M_INPLACE)
        run_oneshot(u, NULL);
    else
        run_inplace_persistent(u);
}

/* The sizes of the parts of world that kind splits it into (0 for none). */
static void part_sizes(enum pt_comm_kind kind, int sizes[3])
{
    sizes[0] = sizes[1] = sizes[2] = 0;
    for (int r = 0; r < pt_size; r++)
        sizes[kind == PT_C_MOD3     ? r % 3
              : kind == PT_C_PARITY ? r % 2
              : kind == PT_C_HALVES ? r < pt_size / 2
                                    : 0]++;
}

/* Whether the algorithm must refuse in every part of the split: only then
 * is the case left out, so that every rank opens the same cases. */
static int must_refuse_everywhere(const setup *u)
{
    int sizes[3];
    part_sizes(u->e->comm, sizes);
    for (int i = 0; i < 3; i++)
        if (sizes[i] > 0 && expectation(u, sizes[i]) != E_REFUSE)
            return 0;
    return 1;
}

static void run_entry(const entry *e, const char *only)
{
    const type_pair *tp = &pairs[e->pair];
    MPI_Comm comm = pt_comm_make(e->comm);
    setup u[2] = {{.e = e, .comm = comm, .s = &layouts[tp->send], .r = &layouts[tp->recv]}};
    pt_buf ref = {0};
    const char *alg;
    MPI_Comm_rank(comm, &u[0].me);
    MPI_Comm_size(comm, &u[0].np);
    u[1] = u[0];
    u[1].inplace = 1;
    setup_make(&u[0]);
    setup_make(&u[1]);
    pt_case("alltoallv reference comm=%s(np %d) types=%s counts=%s/%u displs=%s",
            pt_comm_name(e->comm), u[0].np, tp->name, pattern_names[e->pattern], e->seed,
            dmode_names[e->dmode]);
    make_reference(&u[0], &ref);
    for (int i = 0; (alg = pcoll_algorithm_name("alltoallv", i)) != NULL; i++) {
        if (only ? !is_alg(only, alg) : !e->wide && !is_known(alg))
            continue;
        for (int m = M_ONESHOT; m <= M_INPLACE_P; m <<= 1) {
            setup *v = &u[m >= M_INPLACE];
            v->alg = alg;
            if (!(e->modes & m) || (!e->refusals && must_refuse_everywhere(v)))
                continue;
            pt_case("alltoallv alg=%s comm=%s(np %d) types=%s counts=%s/%u ratio=%d displs=%s "
                    "mode=%s",
                    alg, pt_comm_name(e->comm), v->np, tp->name, pattern_names[e->pattern],
                    e->seed, e->ratio, dmode_names[e->dmode], mode_name(m));
            run_mode(v, m, &ref);
        }
    }
    pt_case_end();
    pt_buf_free(&ref);
    setup_free(&u[0]);
    setup_free(&u[1]);
    pt_comm_free(&comm);
}

/* ---- bad input ----------------------------------------------------------------- */

/* A valid problem on comm (2 ints to every peer, blocks in order) that the
 * bad-input cases spoil; psc and prc are the count arrays passed (NULL to
 * pass none). */
typedef struct bad {
    MPI_Comm comm;
    int me, np;
    int *sc, *sd, *rc, *rd;
    const int *psc, *prc;
    int sbuf[64], rbuf[64];
} bad;

static void bad_reset(bad *b)
{
    for (int i = 0; i < b->np; i++) {
        b->sc[i] = b->rc[i] = 2;
        b->sd[i] = b->rd[i] = 2 * i;
    }
    b->psc = b->sc, b->prc = b->rc;
}

/* Spoilers: each makes one rank's arguments wrong. */
static void neg_sendcount(bad *b)
{
    if (b->me == b->np - 1)
        b->sc[0] = -1;
}
static void neg_rdispl(bad *b)
{
    if (b->me == 0)
        b->rd[b->np - 1] = -2;
}
static void neg_sdispl(bad *b)
{
    if (b->me == b->np / 2)
        b->sd[0] = -1;
}
static void null_recvcounts(bad *b)
{
    if (b->me == 0)
        b->prc = NULL;
}
static void null_sendcounts(bad *b)
{
    if (b->me == b->np - 1)
        b->psc = NULL;
}
static void recv_more(bad *b)
{
    if (b->me == 0)
        b->rc[b->np - 1] = 3;
}
static void send_less(bad *b)
{
    if (b->me == b->np - 1)
        b->sc[0] = 1;
}
static void overlap(bad *b)
{
    if (b->me == b->np - 1)
        b->rd[1] = 1;
}

typedef struct bad_case {
    const char *what;
    void (*spoil)(bad *b);
    int expected;
} bad_case;

static const bad_case bad_cases[] = {
    {"negative sendcount on the last rank", neg_sendcount, PCOLL_ERR_ARG},
    {"negative rdispl on rank 0", neg_rdispl, PCOLL_ERR_ARG},
    {"negative sdispl on rank p/2", neg_sdispl, PCOLL_ERR_ARG},
    {"NULL recvcounts on rank 0", null_recvcounts, PCOLL_ERR_ARG},
    {"NULL sendcounts on the last rank", null_sendcounts, PCOLL_ERR_ARG},
    {"recvcount from the last rank +1 on rank 0", recv_more, PCOLL_ERR_MISMATCH},
    {"sendcount to rank 0 -1 on the last rank", send_less, PCOLL_ERR_MISMATCH},
    {"overlapping receive blocks on the last rank", overlap, PCOLL_ERR_ARG},
};
enum { N_BAD = (int)(sizeof bad_cases / sizeof bad_cases[0]) };

/* pcoll_alltoallv_init with algorithm alg (NULL: no info) on the spoilt
 * arguments must answer the case's code on every rank (the harness fails the
 * case if any rank saw another) and leave the plan NULL and freeable. */
static void bad_init(bad *b, const char *alg, const bad_case *c, const char *comm_name)
{
    pcoll_plan_t *plan = NULL;
    MPI_Info info = MPI_INFO_NULL;
    int rc;
    pt_case("alltoallv bad input alg=%s comm=%s(np %d): %s", alg ? alg : "(no info)", comm_name,
            b->np, c->what);
    if (c->spoil == overlap && b->np < 2) {
        pt_skip("one block cannot overlap another");
        return;
    }
    bad_reset(b);
    c->spoil(b);
    if (alg) {
        PT_MPI(MPI_Info_create(&info));
        PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
    }
    rc = pcoll_alltoallv_init(b->sbuf, b->psc, b->sd, MPI_INT, b->rbuf, b->prc, b->rd, MPI_INT,
                              b->comm, info, &plan);
    if (alg)
        MPI_Info_free(&info);
    PT_RC(rc, c->expected);
    PT_CHECK(plan == NULL, "plan not NULL after a failed init");
    PT_OK(pcoll_plan_free(&plan)); /* never started: safe, and a no-op on NULL */
}

/* The one-shot call checks locally, so the bad value is on every rank. */
static void bad_oneshot(bad *b, const char *what, int which)
{
    pt_case("alltoallv bad input one-shot comm=world(np %d): %s on every rank", b->np, what);
    bad_reset(b);
    if (which == 0)
        b->sc[b->np - 1] = -3;
    else if (which == 1)
        b->rd[0] = -1;
    else if (which == 2)
        b->prc = NULL;
    else if (which == 3)
        b->psc = NULL;
    else if (b->np >= 2)
        b->rd[b->np - 1] = b->rd[b->np - 2] + 1;
    if (which == 4 && b->np < 2) {
        pt_skip("one block cannot overlap another");
        return;
    }
    PT_RC(pcoll_alltoallv(b->sbuf, b->psc, b->sd, MPI_INT, b->rbuf, b->prc, b->rd, MPI_INT,
                          b->comm),
          PCOLL_ERR_ARG);
}

static void bad_make(bad *b, enum pt_comm_kind kind)
{
    b->comm = pt_comm_make(kind);
    MPI_Comm_rank(b->comm, &b->me);
    MPI_Comm_size(b->comm, &b->np);
    b->sc = xmalloc(sizeof(int) * (size_t)b->np), b->sd = xmalloc(sizeof(int) * (size_t)b->np);
    b->rc = xmalloc(sizeof(int) * (size_t)b->np), b->rd = xmalloc(sizeof(int) * (size_t)b->np);
}

static void bad_free(bad *b)
{
    free(b->sc), free(b->sd), free(b->rc), free(b->rd);
    pt_comm_free(&b->comm);
}

/* Every case without info on world; one case per algorithm in turn (the
 * checks come before the choice, and each init costs collective time); a
 * mismatch on the reversed communicator; the one-shot cases. */
static void bad_input(const char *only)
{
    static const char *const oneshot[] = {"negative sendcount", "negative rdispl",
                                          "NULL recvcounts", "NULL sendcounts",
                                          "overlapping receive blocks"};
    bad b = {0};
    const char *alg;
    bad_make(&b, PT_C_WORLD);
    for (int k = 0; !only && k < N_BAD; k++)
        bad_init(&b, NULL, &bad_cases[k], "world");
    for (int i = 0; (alg = pcoll_algorithm_name("alltoallv", i)) != NULL; i++)
        if (!only || is_alg(only, alg))
            bad_init(&b, alg, &bad_cases[i % N_BAD], "world");
    for (int k = 0; !only && k < 5; k++)
        bad_oneshot(&b, oneshot[k], k);
    pt_case_end();
    bad_free(&b);
    if (only)
        return;
    bad_make(&b, PT_C_REVERSED);
    bad_init(&b, NULL, &bad_cases[6], "reversed");
    pt_case_end();
    bad_free(&b);
}

/* ---- the sweep -------------------------------------------------------------------- */

/* Sized for np 16 on two oversubscribed cores, where every persistent init
 * costs about 0.3 s (its reductions).  Every pattern meets every displacement
 * order and both single-type pairs; every communicator sees persistent and
 * one-shot runs; each kind of refusal (irregular sizes, mixed types, in
 * place, one-shot and persistent) is tried where `refusals` is set; the
 * algorithms this test does not know (hier costs about 1 s a case at np 16)
 * run on the `wide` entry: derived layouts with gaps and a huge block on a
 * split communicator. */
static const entry sweep[] = {
    /* comm, types, counts, seed, displs, modes, ratio, refusals, wide, radix */
    {PT_C_WORLD, T_INT, P_EQUAL, 0, D_ORDER, M_ONESHOT | M_PERSIST, 0, 1, 0, 0},
    {PT_C_WORLD, T_INT, P_MOD4, 0, D_GAPS, M_ONESHOT | M_PERSIST | M_INPLACE, 0, 1, 0, 0},
    {PT_C_WORLD, T_VEC, P_RANDOM, 2, D_REVERSE, M_PERSIST, 0, 0, 0, 0},
    {PT_C_WORLD, T_INT, P_HUGE, 0, D_ORDER, M_INPLACE_P, 0, 0, 0, 0},
    {PT_C_WORLD, T_VEC, P_ZERO, 0, D_GAPS, M_ONESHOT | M_INPLACE, 0, 0, 0, 0},
    {PT_C_WORLD, T_VEC, P_NEAR, 0, D_REVERSE, M_ONESHOT | M_INPLACE, 0, 0, 0, 0},
    {PT_C_WORLD, T_STRUCT, P_NEAR, 0, D_ORDER, M_PERSIST, 0, 1, 0, 0},
    {PT_C_WORLD, T_INT, P_RANDPOS, 5, D_ORDER, M_PERSIST, 8, 0, 0, 0},
    {PT_C_REVERSED, T_INT, P_NEAR, 0, D_GAPS, M_PERSIST, 0, 0, 0, 0},
    {PT_C_REVERSED, T_VEC, P_RANDOM, 3, D_GAPS, M_ONESHOT, 0, 0, 0, 0},
    {PT_C_MOD3, T_VEC, P_EQUAL, 0, D_GAPS, M_PERSIST, 0, 0, 0, 0},
    {PT_C_MOD3, T_INT, P_RANDOM, 4, D_REVERSE, M_ONESHOT | M_INPLACE | M_INPLACE_P, 0, 0, 0, 0},
    {PT_C_HALVES, T_VEC, P_HUGE, 0, D_GAPS, M_ONESHOT | M_PERSIST, 0, 0, 1, 0},
    {PT_C_HALVES, T_STRUCT, P_MOD4, 0, D_REVERSE, M_ONESHOT | M_INPLACE_P, 0, 1, 0, 0},
    {PT_C_PARITY, T_INT, P_ZERO, 0, D_REVERSE, M_PERSIST | M_INPLACE, 0, 0, 0, 0},
};

/* bruck_radix at every radix from 2 to np + 1 (r >= np: one step, a direct
 * exchange) and at 2 np + 3: persistent plans restarted with new input,
 * one-shot calls at some radices; the count patterns, types and
 * displacements rotate with the radix (zeros, a huge block, derived layouts
 * with gaps). */
static void radix_sweep(const char *only)
{
    static const enum pattern pats[] = {P_RANDOM, P_MOD4, P_HUGE, P_NEAR, P_ZERO};
    int np = pt_size;
    if (only && !is_alg(only, "bruck_radix"))
        return;
    for (int r = 2; r <= np + 2; r++) {
        int radix = r == np + 2 ? 2 * np + 3 : r;
        entry e = {PT_C_WORLD, r % 2 ? T_INT : T_VEC, pats[r % 5], (unsigned)r,
                   (enum dmode)(r % 3), M_PERSIST | (r % 4 == 3 ? M_ONESHOT : 0), 0, 0, 0,
                   radix};
        run_entry(&e, "bruck_radix");
    }
    entry split = {PT_C_MOD3, T_VEC, P_RANDOM, 9, D_GAPS, M_PERSIST, 0, 0, 0, 3};
    run_entry(&split, "bruck_radix");
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    pt_init(&argc, &argv);
    /* The user's environment must not override the algorithm under test. */
    unsetenv("PCOLL_ALGORITHM");
    unset_env();
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_make(&layouts[k], (enum pt_layout_kind)k);
    pt_case("alltoallv algorithm table");
    PT_CHECK(pcoll_algorithm_name("alltoallv", 0) != NULL, "the alltoallv table is empty");
    if (only)
        PT_CHECK(is_alg(only, "auto") || is_concrete(only), "\"%s\" is not in the alltoallv table",
                 only);
    for (size_t i = 0; i < sizeof sweep / sizeof sweep[0]; i++)
        run_entry(&sweep[i], only);
    radix_sweep(only);
    bad_input(only);
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_free(&layouts[k]);
    return pt_finish();
}
