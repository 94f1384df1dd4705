/*
 * test_alltoallv_inplace.c -- pcoll_alltoallv_inplace_init against an
 * out-of-place MPI_Alltoallv on seeded random layouts.
 *
 * Every case draws, from one seed all ranks share, a count matrix (the items
 * rank i sends to rank j) of one pattern:
 *   random     counts 0..m, a quarter of them zero
 *   sparse     each rank sends to 1..3 random peers only
 *   gather     one rank receives almost everything
 *   symmetric  counts[i][j] = counts[j][i] (so the layouts may be equal)
 *   skewed     one block per rank 20-40 times its others (larger than the
 *              aux slots, so it moves in many transfers while the small
 *              ones finish)
 *   empty      nothing at all
 * and, from a seed of its own, each rank's layout of one buffer:
 *   permuted   send blocks and receive blocks each in a random order with
 *              random gaps (the two layouts overlap arbitrarily)
 *   same       the receive layout is the send layout (MPI's MPI_IN_PLACE)
 *   shifted    the receive blocks start somewhere inside the send region
 *   ordered    both in rank order, back to back (MPI's usual layout)
 * with zero-count blocks given odd displacements, aux memory from one item
 * per buffer to more than all the data, b from 1 to past p, datatypes MPI_INT
 * and, on a share of the cases, double, a struct of int+double with gaps, a
 * resized strided vector and a type with a negative lower bound.
 *
 * A case builds one plan and runs it three times back to back with new
 * data (pcoll_wait, pcoll_test loop, pcoll_wait); after every run every
 * element of every receive block must equal MPI_Alltoallv's result for the
 * same input, and
 * no byte outside the type map (gaps, guard bytes around the buffer) may
 * have changed.  The plan's memory must stay below O(p) + aux (and nothing
 * may be allocated while running), and freeing it must give all of it back.
 * Then fixed cases for the engine's fast path (layouts equal on every rank:
 * uniform and symmetric counts with empty blocks, derived types, aux from
 * one item to more than all data, the same or a different aux per rank)
 * and for layouts equal on all ranks but one (the grant engine on every
 * rank).  Then the error cases: bad layouts on one rank fail on all ranks.
 *
 * Usage: test_alltoallv_inplace [cases [seed]]   (PT_FULL=1: more cases)
 * The stress test (tests/stress) includes this file with
 * PT_INPLACE_STRESS defined and runs thousands of cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The random sweep draws among the first P_COUNT patterns and L_COUNT
 * placements; the ones after them serve the fast-path cases only. */
enum pattern {
    P_RANDOM,
    P_SPARSE,
    P_GATHER,
    P_SYMMETRIC,
    P_SKEWED,
    P_EMPTY,
    P_COUNT,
    P_UNIFORM = P_COUNT, /* maxc items to every rank */
    P_SYMZERO            /* symmetric, about a third of the blocks empty */
};
enum placement { L_PERMUTED, L_SAME, L_SHIFTED, L_ORDERED, L_COUNT, L_SAME_BUT_ONE = L_COUNT };
static const char *const pattern_names[P_COUNT + 2] = {
    "random", "sparse", "gather", "symmetric", "skewed", "empty", "uniform", "symzero"};
static const char *const placement_names[L_COUNT + 1] = {"permuted", "same", "shifted", "ordered",
                                                         "same-but-one"};

/* ---- random numbers (splitmix64: no hidden state) ----------------------- */

static unsigned long long rnd(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int below(unsigned long long *s, int n)
{
    return n > 0 ? (int)(rnd(s) % (unsigned long long)n) : 0;
}

static unsigned long long mix(unsigned long long a, unsigned long long b)
{
    unsigned long long s = a * 0x100000001B3ULL ^ b;
    return rnd(&s);
}

/* ---- one case ------------------------------------------------------------ */

typedef struct tcase {
    unsigned long long seed;
    MPI_Comm comm;
    int me, p;
    enum pattern pattern;
    enum placement place;
    const pt_layout *lay;
    int maxc;               /* largest count drawn */
    int *sc, *sd, *rc, *rd; /* this rank's layout */
    long nitems;            /* the buffer's extent implied by the layout */
    long long aux_bytes;    /* 0: default */
    int aux_buffers;        /* 0: default */
} tcase;

/* counts[i][j] for the case's pattern, the same on every rank. */
static void draw_counts(unsigned long long s, enum pattern pat, int p, int maxc, int *c)
{
    int root = below(&s, p);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            int v = below(&s, maxc + 1);
            if (pat == P_RANDOM && below(&s, 4) == 0)
                v = 0;
            if (pat == P_SPARSE)
                v = below(&s, p) < 2 ? v + 1 : 0;
            if (pat == P_GATHER)
                v = j == root ? 2 * maxc + v : below(&s, 2);
            if (pat == P_SKEWED && j == (i + root + 1) % p)
                v = (20 + below(&s, 21)) * (v + 1);
            if (pat == P_EMPTY)
                v = 0;
            if (pat == P_UNIFORM)
                v = maxc;
            if (pat == P_SYMZERO && below(&s, 3) == 0)
                v = 0;
            c[i * p + j] = v;
        }
    if (pat == P_SYMMETRIC || pat == P_SYMZERO)
        for (int i = 0; i < p; i++)
            for (int j = 0; j < i; j++)
                c[i * p + j] = c[j * p + i];
}

/* Blocks in a random order with gaps of 0..gap items from item `start`;
 * zero-count blocks get odd displacements.  Returns the end. */
static long place_blocks(unsigned long long *s, int p, const int *counts, int *displs, int gap,
                         long start)
{
    int *perm = malloc((size_t)p * sizeof *perm);
    long pos = start;
    for (int i = 0; i < p; i++)
        perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int k = below(s, i + 1), t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (int i = 0; i < p; i++) {
        int j = perm[i];
        pos += below(s, gap + 1);
        displs[j] = counts[j] ? (int)pos : below(s, 3) - 1 + (int)pos * below(s, 2);
        pos += counts[j];
    }
    free(perm);
    return pos;
}

/* The rank-order layout, back to back. */
static long place_ordered(int p, const int *counts, int *displs)
{
    long pos = 0;
    for (int j = 0; j < p; j++) {
        displs[j] = (int)pos;
        pos += counts[j];
    }
    return pos;
}

/* This rank's send and receive layouts; sets t->nitems.  L_SAME_BUT_ONE:
 * L_SAME on every rank but one (drawn from the case's seed), which puts its
 * receive blocks in an order of their own. */
static void draw_layout(tcase *t)
{
    unsigned long long s = mix(t->seed, 1000 + (unsigned long long)t->me), o = mix(t->seed, 9);
    int p = t->p, gap = below(&s, 4);
    long send_end, recv_end = 0, start = 0;
    enum placement place = t->place;
    if (place == L_SAME_BUT_ONE)
        place = below(&o, p) == t->me ? L_PERMUTED : L_SAME;
    if (place == L_ORDERED) {
        send_end = place_ordered(p, t->sc, t->sd);
        recv_end = place_ordered(p, t->rc, t->rd);
    } else {
        send_end = place_blocks(&s, p, t->sc, t->sd, gap, below(&s, 3));
        if (place == L_SHIFTED)
            start = below(&s, (int)send_end + 1);
        if (place == L_SAME)
            memcpy(t->rd, t->sd, (size_t)p * sizeof *t->rd);
        else
            recv_end = place_blocks(&s, p, t->rc, t->rd, gap, start);
    }
    t->nitems = send_end > recv_end ? send_end : recv_end;
}

/* Draw everything about case `index` on communicator comm. */
static void draw_case(tcase *t, unsigned long long seed, long index, MPI_Comm comm,
                      const pt_layout *lays, int nlays)
{
    unsigned long long s = mix(seed, (unsigned long long)index);
    int *c;
    MPI_Comm_rank(comm, &t->me);
    MPI_Comm_size(comm, &t->p);
    t->seed = s;
    t->comm = comm;
    t->pattern = (enum pattern)below(&s, P_COUNT);
    t->pattern = t->pattern == P_EMPTY && below(&s, 4) ? P_RANDOM : t->pattern;
    t->place = (enum placement)below(&s, L_COUNT);
    if (t->place == L_SAME)
        t->pattern = P_SYMMETRIC;
    t->lay = &lays[below(&s, 4) == 0 ? below(&s, nlays) : 0];
    t->maxc = 1 + below(&s, below(&s, 6) == 0 ? 60 : 12);
    c = malloc((size_t)t->p * (size_t)t->p * sizeof *c);
    draw_counts(mix(s, 7), t->pattern, t->p, t->maxc, c);
    for (int j = 0; j < t->p; j++) {
        t->sc[j] = c[t->me * t->p + j];
        t->rc[j] = c[j * t->p + t->me];
    }
    free(c);
    draw_layout(t);
}

/* Aux memory: one item per buffer up to more than all data; b 1 .. p+2 or
 * the default; some cases draw it per rank (the ranks need not agree). */
static void draw_aux(tcase *t)
{
    unsigned long long s = mix(t->seed, 3);
    int size, per, kind, b;
    MPI_Type_size(t->lay->type, &size);
    if (below(&s, 3) == 0)
        s = mix(t->seed, 5000 + (unsigned long long)t->me);
    kind = below(&s, 5);
    t->aux_buffers = below(&s, 4) == 0 ? 0 : 1 + below(&s, t->p + 2);
    /* Items per buffer: 1, 2, up to 8, up to 64, more than all the data. */
    per = (int[]){1, 2, 1 + below(&s, 8), 1 + below(&s, 64), 4 * (int)t->nitems + 1}[kind];
    b = t->aux_buffers ? t->aux_buffers : (t->p / 8 > 1 ? t->p / 8 : 1);
    t->aux_bytes = (long long)per * size * b;
    if (below(&s, 8) == 0 && t->aux_buffers == 0)
        t->aux_bytes = 0; /* the 1 MiB default */
}

/* ---- running and checking ------------------------------------------------- */

/* Fill the send blocks with this rank's values of run `run`. */
static void fill_send(const tcase *t, const pt_buf *b, int run)
{
    int ne = t->lay->nelem;
    for (int j = 0; j < t->p; j++)
        for (long i = 0; i < (long)t->sc[j] * ne; i++) {
            long k = (long)t->sd[j] * ne + i;
            pt_put(b, k, pt_val(t->me, (long)pt_off(b, k), run));
        }
}

/* MPI_Alltoallv of the same input, out of place, into ref. */
static void reference(const tcase *t, const pt_buf *ref, int run)
{
    pt_buf sb;
    pt_buf_alloc(&sb, t->lay, t->nitems);
    fill_send(t, &sb, run);
    pt_buf_poison((pt_buf *)ref);
    PT_MPI(MPI_Alltoallv(sb.base, t->sc, t->sd, t->lay->type, ref->base, t->rc, t->rd, t->lay->type,
                         t->comm));
    pt_buf_free(&sb);
}

/* Every element of every receive block as MPI put it; nothing outside. */
static void check_result(const tcase *t, const pt_buf *got, const pt_buf *ref, const char *what)
{
    int ne = t->lay->nelem;
    for (int j = 0; j < t->p; j++)
        for (long i = 0; i < (long)t->rc[j] * ne; i++) {
            long k = (long)t->rd[j] * ne + i;
            double want = pt_get(ref, k), have = pt_get(got, k);
            if (want != have)
                pt_check_elem(what, j, i, want, have);
        }
    pt_check_untouched(got, what);
}

static MPI_Info aux_info(const tcase *t)
{
    MPI_Info info = MPI_INFO_NULL;
    char v[32];
    if (!t->aux_bytes && !t->aux_buffers)
        return info;
    PT_MPI(MPI_Info_create(&info));
    if (t->aux_bytes) {
        snprintf(v, sizeof v, "%lld", t->aux_bytes);
        PT_MPI(MPI_Info_set(info, "pcoll_aux_bytes", v));
    }
    if (t->aux_buffers) {
        snprintf(v, sizeof v, "%d", t->aux_buffers);
        PT_MPI(MPI_Info_set(info, "pcoll_aux_buffers", v));
    }
    return info;
}

/* What the plan may hold: O(p) integers, the aux buffers and the staging
 * buffer of a non-contiguous type (inplace_state.c), plus the context the
 * first plan on a communicator creates. */
static long long memory_bound(const tcase *t)
{
    long long aux = t->aux_bytes ? t->aux_bytes : 1LL << 20;
    return aux + 64 * 1024 + 1024LL * t->p + 16 * 1024;
}

/* Three runs of one plan, new data each time, back to back: the
 * references are made first, so that between two runs a rank does nothing
 * collective and a fast rank starts the next run (and grants in it) while
 * others still finish the last.  Unless the case is the first on its
 * communicator (whose context stays), freeing the plan must give back
 * every byte. */
static void run_case(const tcase *t, int first)
{
    pt_buf buf, ref[3];
    pcoll_plan_t *plan = NULL;
    MPI_Info info = aux_info(t);
    long long before = pcoll_mem_current(), planned;
    pt_buf_alloc(&buf, t->lay, t->nitems);
    for (int run = 1; run <= 3; run++) {
        pt_buf_alloc(&ref[run - 1], t->lay, t->nitems);
        reference(t, &ref[run - 1], run);
    }
    PT_REQUIRE(pcoll_alltoallv_inplace_init(buf.base, t->sc, t->sd, t->rc, t->rd, t->lay->type,
                                            t->comm, info, &plan));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    planned = pcoll_mem_current();
    PT_CHECK(planned - before <= memory_bound(t), "plan holds %lld bytes, bound %lld",
             planned - before, memory_bound(t));
    PT_CHECK(strcmp(pcoll_plan_algorithm(plan), "inplace") == 0, "algorithm %s",
             pcoll_plan_algorithm(plan));
    pcoll_mem_reset_peak();
    for (int run = 1; run <= 3; run++) {
        fill_send(t, &buf, run);
        PT_REQUIRE(pcoll_start(plan));
        if (run == 2)
            pt_test_loop(plan);
        else
            PT_REQUIRE(pcoll_wait(plan));
        check_result(t, &buf, &ref[run - 1], run == 2 ? "run 2 (test loop)" : "run");
    }
    PT_CHECK(pcoll_mem_peak() == planned, "runs allocated %lld bytes", pcoll_mem_peak() - planned);
    PT_OK(pcoll_plan_free(&plan));
    PT_CHECK(first || pcoll_mem_current() == before, "%lld bytes not freed",
             pcoll_mem_current() - before);
    pt_buf_free(&buf);
    for (int run = 0; run < 3; run++)
        pt_buf_free(&ref[run]);
}

static void open_case(const tcase *t, long index, const char *comm_name)
{
    pt_case("case %ld seed %llu comm %s np %d pattern %s layout %s type %s maxc %d aux %lld b %d",
            index, t->seed, comm_name, t->p, pattern_names[t->pattern], placement_names[t->place],
            t->lay->name, t->maxc, t->aux_bytes, t->aux_buffers);
}

/* Cases first..first+n-1 on communicator kind ck. */
static void sweep(unsigned long long seed, long first, long n, enum pt_comm_kind ck,
                  const pt_layout *lays, int nlays)
{
    MPI_Comm comm = pt_comm_make(ck);
    tcase t;
    int p;
    MPI_Comm_size(comm, &p);
    t.sc = malloc(4 * (size_t)p * sizeof(int));
    t.sd = t.sc + p;
    t.rc = t.sd + p;
    t.rd = t.rc + p;
    for (long i = first; i < first + n; i++) {
        draw_case(&t, seed, i, comm, lays, nlays);
        draw_aux(&t);
        open_case(&t, i, pt_comm_name(ck));
        run_case(&t, i == first);
    }
    pt_case_end();
    free(t.sc);
    pt_comm_free(&comm);
}

#ifndef PT_INPLACE_STRESS

/* ---- equal layouts: the fast path (not in the stress test) ----------------- */

/* Aux memory of a fast-path case, in items per rank (AUX_ALL: more than
 * all the data; AUX_RANK: a different amount on each rank, 2..5 items). */
enum { AUX_DEFAULT = 0, AUX_ALL = -1, AUX_RANK = -2 };

/* Cases whose layouts are equal on every rank (the engine's grant-free
 * swap: uniform, symmetric with empty blocks, derived types, aux of one
 * item up to more than all data), cases equal on all ranks but one (the
 * grant engine everywhere), and two of the grant engine with blocks of
 * more than PCOLL__IP_GRANT_BYTES (64 KiB: a grant into direct room takes
 * at most that).  Each runs one plan three times. */
static void fast_cases(unsigned long long seed, const pt_layout *lays)
{
    static const struct {
        enum pattern pat;
        enum placement place;
        int lay, maxc, aux; /* lay: index in main's lays; aux: items or AUX_* */
    } spec[] = {
        {P_UNIFORM, L_ORDERED, 0, 64, 1},         {P_UNIFORM, L_ORDERED, 0, 64, 10},
        {P_UNIFORM, L_ORDERED, 0, 5, AUX_ALL},    {P_UNIFORM, L_ORDERED, 3, 40, 7},
        {P_UNIFORM, L_ORDERED, 1, 300, AUX_DEFAULT}, {P_SYMZERO, L_SAME, 0, 30, 3},
        {P_SYMZERO, L_SAME, 2, 30, AUX_RANK},     {P_SYMZERO, L_SAME, 4, 12, AUX_ALL},
        {P_SYMZERO, L_SAME, 1, 60, 2},            {P_EMPTY, L_SAME, 0, 4, 1},
        {P_SYMZERO, L_SAME_BUT_ONE, 0, 20, 5},    {P_SYMZERO, L_SAME_BUT_ONE, 3, 20, AUX_ALL},
        {P_UNIFORM, L_SAME_BUT_ONE, 2, 9, 1},
        /* blocks beyond 64 KiB: grants into direct room capped */
        {P_RANDOM, L_PERMUTED, 0, 40000, 20000},  {P_SKEWED, L_SHIFTED, 1, 1500, 9000},
    };
    MPI_Comm comm = MPI_COMM_WORLD;
    tcase t;
    int p = pt_size, size, *c = malloc((size_t)p * (size_t)p * sizeof *c);
    t.sc = malloc(4 * (size_t)p * sizeof(int));
    t.sd = t.sc + p;
    t.rc = t.sd + p;
    t.rd = t.rc + p;
    for (int i = 0; i < (int)(sizeof spec / sizeof *spec); i++) {
        t.seed = mix(seed, 777 + (unsigned long long)i);
        t.comm = comm;
        t.me = pt_rank, t.p = p;
        t.pattern = spec[i].pat, t.place = spec[i].place;
        t.lay = &lays[spec[i].lay];
        t.maxc = spec[i].maxc;
        draw_counts(mix(t.seed, 7), t.pattern, p, t.maxc, c);
        for (int j = 0; j < p; j++) {
            t.sc[j] = c[t.me * p + j];
            t.rc[j] = c[j * p + t.me];
        }
        draw_layout(&t);
        MPI_Type_size(t.lay->type, &size);
        t.aux_buffers = 0;
        t.aux_bytes = spec[i].aux == AUX_ALL    ? 4LL * (t.nitems + 1) * size
                      : spec[i].aux == AUX_RANK ? (2LL + t.me % 4) * size
                                                : (long long)spec[i].aux * size;
        open_case(&t, i, "world (fast path)");
        run_case(&t, i == 0);
    }
    pt_case_end();
    free(t.sc);
    free(c);
}

/* ---- error cases (not in the stress test) --------------------------------- */

/* A valid layout: 2 items for every peer both ways, in rank order, 2 items
 * apart (4 p items in all). */
static void simple_layout(int p, int *sc, int *sd, int *rc, int *rd)
{
    for (int j = 0; j < p; j++) {
        sc[j] = rc[j] = 2;
        sd[j] = rd[j] = 4 * j;
    }
}

/* init on the (possibly damaged) layout must return `want` on every rank. */
static void expect_init(const char *what, int want, const int *sc, const int *sd, const int *rc,
                        const int *rd, MPI_Info info)
{
    static int buf[4 * 64];
    pcoll_plan_t *plan = NULL;
    pt_case("error case: %s", what);
    PT_RC(pcoll_alltoallv_inplace_init(buf, sc, sd, rc, rd, MPI_INT, MPI_COMM_WORLD, info, &plan),
          want);
    PT_CHECK(plan == NULL, "plan not NULL after a failed init");
    pcoll_plan_free(&plan);
}

/* One damaged layout per call: rank `who` breaks it. */
static void damaged(int kind, int who, int *sc, int *sd, int *rc, int *rd)
{
    int p = pt_size;
    simple_layout(p, sc, sd, rc, rd);
    if (pt_rank != who)
        return;
    if (kind == 0 && p > 1)
        sd[1] = sd[0] + 1; /* send blocks overlap */
    if (kind == 0 && p == 1)
        sc[0] = -1;
    if (kind == 1)
        rd[p - 1] = -2; /* a receive block before the buffer */
    if (kind == 2 && p > 1)
        rd[0] = rd[p - 1] + 1; /* receive blocks overlap */
    if (kind == 2 && p == 1)
        sd[0] = -1;
    if (kind == 3)
        rc[(who + 1) % p] += 1; /* counts disagree with the sender's */
}

static void error_cases(void)
{
    static const char *const names[] = {"overlapping send blocks", "receive block outside",
                                        "overlapping receive blocks", "counts mismatch"};
    static const int codes[] = {PCOLL_ERR_ARG, PCOLL_ERR_ARG, PCOLL_ERR_ARG, PCOLL_ERR_MISMATCH};
    int p = pt_size, *a = malloc(4 * (size_t)p * sizeof *a);
    int *sc = a, *sd = a + p, *rc = a + 2 * p, *rd = a + 3 * p;
    MPI_Info info;
    for (int kind = 0; kind < 4; kind++) {
        damaged(kind, (kind * 7) % p, sc, sd, rc, rd);
        expect_init(names[kind], codes[kind], sc, sd, rc, rd, MPI_INFO_NULL);
    }
    simple_layout(p, sc, sd, rc, rd);
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_aux_bytes", pt_rank == p - 1 ? "3" : "4096"));
    expect_init("aux smaller than one item on one rank", PCOLL_ERR_ARG, sc, sd, rc, rd, info);
    PT_MPI(MPI_Info_set(info, "pcoll_aux_bytes", "4"));
    PT_MPI(MPI_Info_set(info, "pcoll_aux_buffers", "2"));
    expect_init("aux of 2 bytes per buffer", PCOLL_ERR_ARG, sc, sd, rc, rd, info);
    PT_MPI(MPI_Info_set(info, "pcoll_aux_buffers", "0"));
    expect_init("malformed pcoll_aux_buffers", PCOLL_ERR_ARG, sc, sd, rc, rd, info);
    MPI_Info_free(&info);
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", "pairwise"));
    expect_init("an algorithm other than inplace", PCOLL_ERR_ARG, sc, sd, rc, rd, info);
    MPI_Info_free(&info);
    expect_init("NULL counts", PCOLL_ERR_ARG, pt_rank == 0 ? NULL : sc, sd, rc, rd, MPI_INFO_NULL);
    free(a);
}

/* Misuse of a valid plan: start twice, wait and test when inactive, free
 * while active, NULL plan. */
static void state_cases(void)
{
    int p = pt_size, *a = malloc(4 * (size_t)p * sizeof *a), flag = 0;
    int *sc = a, *sd = a + p, *rc = a + 2 * p, *rd = a + 3 * p,
        *buf = calloc(4 * (size_t)p, sizeof(int));
    pcoll_plan_t *plan = NULL;
    simple_layout(p, sc, sd, rc, rd);
    pt_case("misuse");
    PT_RC(pcoll_alltoallv_inplace_init(buf, sc, sd, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                       NULL),
          PCOLL_ERR_ARG);
    PT_REQUIRE(pcoll_alltoallv_inplace_init(buf, sc, sd, rc, rd, MPI_INT, MPI_COMM_WORLD,
                                            MPI_INFO_NULL, &plan));
    PT_RC(pcoll_wait(plan), PCOLL_ERR_STATE);
    PT_RC(pcoll_test(plan, &flag), PCOLL_ERR_STATE);
    PT_REQUIRE(pcoll_start(plan));
    PT_RC(pcoll_start(plan), PCOLL_ERR_STATE);
    PT_RC(pcoll_plan_free(&plan), PCOLL_ERR_STATE);
    PT_REQUIRE(pcoll_wait(plan));
    PT_OK(pcoll_plan_free(&plan));
    PT_CHECK(plan == NULL, "plan not NULL after free");
    pt_case_end();
    free(buf);
    free(a);
}

/* A plan that must run without communicating (zero-size items, or info
 * pcoll_no_comm) and leave the buffer as it was. */
static void expect_no_traffic(const char *what, MPI_Datatype type, MPI_Info info)
{
    int p = pt_size, *a = malloc(4 * (size_t)p * sizeof *a),
        *buf = malloc(4 * (size_t)p * sizeof *buf);
    int *sc = a, *sd = a + p, *rc = a + 2 * p, *rd = a + 3 * p, changed = 0;
    pcoll_plan_t *plan = NULL;
    simple_layout(p, sc, sd, rc, rd);
    for (int i = 0; i < 4 * p; i++)
        buf[i] = 1000 * pt_rank + i;
    pt_case("%s", what);
    PT_REQUIRE(
        pcoll_alltoallv_inplace_init(buf, sc, sd, rc, rd, type, MPI_COMM_WORLD, info, &plan));
    PT_REQUIRE(pcoll_start(plan));
    PT_REQUIRE(pcoll_wait(plan));
    for (int i = 0; i < 4 * p; i++)
        changed += buf[i] != 1000 * pt_rank + i;
    PT_CHECK(changed == 0, "%d items changed", changed);
    PT_OK(pcoll_plan_free(&plan));
    pt_case_end();
    free(buf);
    free(a);
}

static void edge_cases(void)
{
    MPI_Datatype empty;
    MPI_Info info;
    PT_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
    PT_MPI(MPI_Type_commit(&empty));
    expect_no_traffic("items of size 0", empty, MPI_INFO_NULL);
    MPI_Type_free(&empty);
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_no_comm", "1"));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", "inplace"));
    expect_no_traffic("pcoll_no_comm", MPI_INT, info);
    MPI_Info_free(&info);
}

/* ---- main ------------------------------------------------------------------- */

/* Cases per communicator kind: hundreds per np over the whole sweep, fewer
 * as np grows so that np 16 on two cores stays within seconds. */
static long default_cases(void)
{
    long n = 480 / (pt_size + 2);
    if (getenv("PT_FULL"))
        n *= 8;
    return n < 24 ? 24 : n;
}

int main(int argc, char **argv)
{
    static const enum pt_layout_kind kinds[] = {PT_L_INT, PT_L_DOUBLE, PT_L_STRUCT_A, PT_L_VEC,
                                                PT_L_NEGLB};
    enum { NL = sizeof kinds / sizeof *kinds };
    pt_layout lays[NL];
    unsigned long long seed = 20240611;
    long n;
    pt_init(&argc, &argv);
    n = argc > 1 ? atol(argv[1]) : default_cases();
    if (argc > 2)
        seed = strtoull(argv[2], NULL, 10);
    for (int i = 0; i < NL; i++)
        pt_layout_make(&lays[i], kinds[i]);
    sweep(seed, 0, 2 * n, PT_C_WORLD, lays, NL);
    sweep(seed, 2 * n, n / 2, PT_C_REVERSED, lays, NL);
    sweep(seed, 3 * n, n / 2, PT_C_MOD3, lays, NL);
    fast_cases(seed, lays);
    error_cases();
    state_cases();
    edge_cases();
    for (int i = 0; i < NL; i++)
        pt_layout_free(&lays[i]);
    return pt_finish();
}
#endif
