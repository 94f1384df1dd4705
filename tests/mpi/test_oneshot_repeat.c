/*
 * test_oneshot_repeat.c -- one-shot calls that repeat the thread's last call
 * word for word (src/api/entry.c "Repeats"): they must run what the full
 * path would run, and stop repeating whenever that could differ.
 *
 * Cases but split request a flat algorithm (`scattered`, planned by each
 * rank alone: the calls the repeats serve).
 * Cases (receive buffers poisoned before every call; values change with
 * every call, so a call that ran nothing or an old plan fails the check):
 *   same        pcoll_alltoall with the same arguments five times, `scattered`
 *               (planned alone: the cache by arguments), `hier` (a shape's
 *               plan made together, on virtual nodes) and automatic: correct
 *               every time, and with an algorithm requested every later
 *               call is a repeat;
 *   environment PCOLL_ALLTOALL_ALGORITHM set, changed and unset between
 *               calls with the same arguments: each call runs the algorithm
 *               the environment names (no repeat across a change);
 *   types       a derived type freed and another of another layout made
 *               until MPI gives it the freed handle, same other arguments;
 *   comms       a duplicate freed and another made (maybe the same handle);
 *   evicted     the first call's plan pushed out of the cache by 20 calls
 *               of other buffers, then the first call again;
 *   split       the automatic choice on virtual nodes (pcoll_cores_per_node)
 *               with even ranks repeating their buffers and odd ranks taking
 *               new ones each call, while more shapes than the table holds
 *               come and go: every rank must decide every shape together
 *               (a rank whose table changed otherwise would hang or fail);
 *   in place    MPI_IN_PLACE repeated;
 *   ops         pcoll_reduce_scatter_block with a user op freed and another
 *               one made between calls (commutative, then not; MPI may
 *               give it the same handle): `ring` (commutative ops only)
 *               must refuse the second, `pairwise` give its result in rank
 *               order;
 *   block       pcoll_reduce_scatter_block with MPI_SUM repeated;
 *   counts      pcoll_reduce_scatter (and _c) with one counts array whose
 *               values change every other call: only calls with the
 *               values of the call before repeat;
 *   arrays      the same with pcoll_alltoallv's (and _c's) four arrays;
 *   kept arrays the same with `hier` kept by its shape (a plan bound to
 *               each call's checked arguments): counts changed every third
 *               call; the third of equal calls repeats, a changed one never;
 *   forward     the same with `native`: the int form's calls all repeat,
 *               the arrays forwarded to the MPI's call as they are;
 *   forward shapes  auto's alltoallv (native) with even ranks repeating
 *               (forwarded) and odd ranks not: the shape table counts every
 *               call alike on every rank.
 *
 * Usage: test_oneshot_repeat
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/entry.h"
#include "core/comm.h"
#include "core/plan.h"
#include "harness.h"

static int me, np;

/* Element k of block d on rank s: s * 100000 + d * 100 + k + run. */
static void fill_ints(int *sb, int n, int run)
{
    for (int d = 0; d < np; d++)
        for (int k = 0; k < n; k++)
            sb[d * n + k] = me * 100000 + d * 100 + k + run;
}

static void check_ints(const int *rb, int n, int run, const char *what)
{
    for (int s = 0; s < np; s++)
        for (int k = 0; k < n; k++) {
            int want = s * 100000 + me * 100 + k + run;
            if (rb[s * n + k] != want)
                pt_check_elem(what, s, k, want, rb[s * n + k]);
        }
}

/* One alltoall of n ints per block from sb to rb on comm (the world's
 * size), checked. */
static void call_ints(int *sb, int *rb, int n, int run, MPI_Comm comm, const char *what)
{
    fill_ints(sb, n, run);
    pt_poison(rb, sizeof(int) * (size_t)n * (size_t)np);
    PT_REQUIRE(pcoll_alltoall(sb, n, MPI_INT, rb, n, MPI_INT, comm));
    check_ints(rb, n, run, what);
}

static int *ints(int n)
{
    int *p = malloc(sizeof(int) * (size_t)n * (size_t)np);
    PT_CHECK(p != NULL, "out of memory");
    return p;
}

/* With an algorithm requested (planned alone: no shape; `hier`: a shape
 * decided at its first call), every call after the first repeats; with the
 * automatic choice, once the shape is decided. */
static void case_same(const char *alg)
{
    int *sb = ints(3), *rb = ints(3);
    unsigned long before;
    pt_case("same %s", alg ? alg : "auto");
    if (alg)
        setenv("PCOLL_ALLTOALL_ALGORITHM", alg, 1);
    call_ints(sb, rb, 3, 0, MPI_COMM_WORLD, "same");
    before = pcoll__repeats();
    for (int run = 1; run < 5; run++)
        call_ints(sb, rb, 3, run, MPI_COMM_WORLD, "same");
    if (alg)
        PT_CHECK(pcoll__repeats() - before == 4, "%lu repeats in 4 calls of the same arguments",
                 pcoll__repeats() - before);
    if (alg && !strcmp(alg, "hier"))
        PT_CHECK(!strcmp(pcoll__last_run_algorithm, "hier"), "ran %s",
                 pcoll__last_run_algorithm);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    free(sb);
    free(rb);
    pt_case_end();
}

static void case_environment(void)
{
    static const char *const algs[] = {"pairwise", "pairwise", "scattered", "scattered",
                                       "bruck_zerocopy", "pairwise"};
    int *sb = ints(2), *rb = ints(2);
    pt_case("environment");
    for (int i = 0; i < 6; i++) {
        setenv("PCOLL_ALLTOALL_ALGORITHM", algs[i], 1);
        call_ints(sb, rb, 2, 10 + i, MPI_COMM_WORLD, "environment");
        PT_CHECK(strcmp(pcoll__last_run_algorithm, algs[i]) == 0, "call %d ran %s, not %s", i,
                 pcoll__last_run_algorithm, algs[i]);
    }
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    call_ints(sb, rb, 2, 20, MPI_COMM_WORLD, "environment");
    free(sb);
    free(rb);
    pt_case_end();
}

/* Two ints per block sent as one item of a derived type: stride 1
 * (contiguous) or stride 2 (every other int, extent 4 ints). */
static MPI_Datatype pair_type(int stride)
{
    MPI_Datatype t, r;
    PT_MPI(MPI_Type_vector(2, 1, stride, MPI_INT, &t));
    if (stride == 2) {
        PT_MPI(MPI_Type_create_resized(t, 0, (MPI_Aint)(4 * sizeof(int)), &r));
        MPI_Type_free(&t);
        t = r;
    }
    PT_MPI(MPI_Type_commit(&t));
    return t;
}

static void call_pairs(int *sb, int *rb, MPI_Datatype t, int stride, int v)
{
    int per = 2 * stride;
    for (int i = 0; i < per * np; i++)
        sb[i] = me * 1000 + i + v;
    pt_poison(rb, sizeof(int) * 2 * (size_t)np);
    PT_REQUIRE(pcoll_alltoall(sb, 1, t, rb, 2, MPI_INT, MPI_COMM_WORLD));
    for (int s = 0; s < np; s++)
        for (int k = 0; k < 2; k++) {
            int want = s * 1000 + me * per + k * stride + v;
            if (rb[s * 2 + k] != want)
                pt_check_elem("types", s, k, want, rb[s * 2 + k]);
        }
}

/* A stride-2 type used twice and freed; then types of stride 1 made until
 * MPI gives one the freed handle (the calls' words are then the last
 * call's), used twice.  An MPI that never hands the handle back leaves the
 * second half to plain new handles. */
static void case_types(void)
{
    int *sb = ints(4), *rb = ints(4), again = 0;
    MPI_Datatype t = pair_type(2), old = t, spare[64];
    pt_case("types");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "scattered", 1);
    call_pairs(sb, rb, t, 2, 30);
    call_pairs(sb, rb, t, 2, 31);
    MPI_Type_free(&t);
    for (int i = 0; i < 64 && !again; i++) {
        spare[i] = pair_type(1);
        again = spare[i] == old;
        if (again) {
            t = spare[i];
            for (int k = 0; k < i; k++)
                MPI_Type_free(&spare[k]);
        } else if (i == 63) {
            t = spare[i];
            for (int k = 0; k < i; k++)
                MPI_Type_free(&spare[k]);
        }
    }
    if (!again)
        pt_note("types: no new type took the freed handle");
    /* Same words as the last call when again: the plan of the freed type
     * must not run. */
    call_pairs(sb, rb, t, 1, 32);
    call_pairs(sb, rb, t, 1, 33);
    MPI_Type_free(&t);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    free(sb);
    free(rb);
    pt_case_end();
}

static void case_comms(void)
{
    int *sb = ints(2), *rb = ints(2);
    pt_case("comms");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "scattered", 1);
    for (int i = 0; i < 3; i++) {
        MPI_Comm dup;
        PT_MPI(i % 2 ? MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &dup)
                     : MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        if (i % 2) {
            /* Reversed: block d goes to world rank np-1-d. */
            for (int run = 0; run < 2; run++) {
                int v = 40 + 2 * i + run;
                for (int d = 0; d < np; d++)
                    for (int k = 0; k < 2; k++)
                        sb[d * 2 + k] = me * 100000 + (np - 1 - d) * 100 + k + v;
                pt_poison(rb, sizeof(int) * 2 * (size_t)np);
                PT_REQUIRE(pcoll_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, dup));
                for (int d = 0; d < np; d++)
                    for (int k = 0; k < 2; k++) {
                        int s = np - 1 - d, want = s * 100000 + me * 100 + k + v;
                        if (rb[d * 2 + k] != want)
                            pt_check_elem("comms reversed", s, k, want, rb[d * 2 + k]);
                    }
            }
        } else {
            call_ints(sb, rb, 2, 40 + 2 * i, dup, "comms");
            call_ints(sb, rb, 2, 41 + 2 * i, dup, "comms");
        }
        PT_MPI(MPI_Comm_free(&dup));
    }
    free(sb);
    free(rb);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    pt_case_end();
}

static void case_evicted(void)
{
    int *sb = ints(2), *rb = ints(2);
    pt_case("evicted");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "scattered", 1);
    call_ints(sb, rb, 2, 50, MPI_COMM_WORLD, "evicted first");
    call_ints(sb, rb, 2, 51, MPI_COMM_WORLD, "evicted first");
    for (int i = 0; i < 20; i++) {
        int *s2 = ints(2), *r2 = ints(2);
        call_ints(s2, r2, 2, 52 + i, MPI_COMM_WORLD, "evicted others");
        free(s2);
        free(r2);
    }
    call_ints(sb, rb, 2, 80, MPI_COMM_WORLD, "evicted again");
    call_ints(sb, rb, 2, 81, MPI_COMM_WORLD, "evicted again");
    free(sb);
    free(rb);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    pt_case_end();
}

/* Even ranks repeat; odd ranks take new buffers every call.  Sizes 1..12
 * ints, more than the shape table's entries, three calls each (decided at
 * the second), then back to the first size. */
static void case_split(void)
{
    int *sb = ints(12), *rb = ints(12);
    pt_case("split");
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    for (int round = 0; round < 2; round++)
        for (int n = 1; n <= 12; n++)
            for (int run = 0; run < 3; run++) {
                int *s = sb, *r = rb;
                if (me % 2)
                    s = ints(12), r = ints(12);
                call_ints(s, r, n, 100 + round * 50 + n * 3 + run, MPI_COMM_WORLD, "split");
                if (me % 2)
                    free(s), free(r);
            }
    call_ints(sb, rb, 1, 300, MPI_COMM_WORLD, "split back");
    unsetenv("PCOLL_CORES_PER_NODE");
    free(sb);
    free(rb);
    pt_case_end();
}

static void case_inplace(void)
{
    int *b = ints(3);
    pt_case("in place");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "scattered", 1);
    for (int run = 0; run < 4; run++) {
        fill_ints(b, 3, 400 + run);
        PT_REQUIRE(pcoll_alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 3, MPI_INT,
                                  MPI_COMM_WORLD));
        check_ints(b, 3, 400 + run, "in place");
    }
    free(b);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    pt_case_end();
}

/* 2x2 integer matrices, one per item; a * b the matrix product (not
 * commutative), or the sum. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void matsum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout;
    (void)type;
    for (int i = 0; i < 4 * *len; i++)
        b[i] += a[i];
}

/* Rank r's matrix for block d: {{1, (r + d + round) % 3}, {(2r + d) % 2, 1}}
 * (the product's order shows).  MPI may give a new op the handle of one
 * freed before: the calls' words are then the same, the op's commutativity
 * not.  With `ring` requested (it needs a commutative op) the
 * non-commutative rounds must be refused (PCOLL_ERR_UNSUPPORTED on every
 * rank); with `pairwise` every round gives the product in rank order. */
static void ops_rounds(const char *alg)
{
    MPI_Datatype mat;
    int in[4 * 64], out[4], refuses = !strcmp(alg, "ring");
    pt_case("ops %s", alg);
    if (np > 64) {
        pt_skip("np > 64");
        return;
    }
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", alg, 1);
    PT_MPI(MPI_Type_contiguous(4, MPI_INT, &mat));
    PT_MPI(MPI_Type_commit(&mat));
    for (int round = 0; round < 4; round++) {
        int commute = round % 2 == 0;
        MPI_Op op;
        PT_MPI(MPI_Op_create(commute ? matsum : matmul, commute, &op));
        for (int d = 0; d < np; d++) {
            int *m = in + 4 * d;
            m[0] = 1, m[1] = (me + d + round) % 3, m[2] = (me * 2 + d) % 2, m[3] = 1;
        }
        for (int run = 0; run < 2; run++) {
            int want[4] = {0, 0, 0, 0}, rc;
            pt_poison(out, sizeof out);
            rc = pcoll_reduce_scatter_block(in, out, 1, mat, op, MPI_COMM_WORLD);
            if (refuses && !commute) {
                pt_check_rc_(rc, PCOLL_ERR_UNSUPPORTED, "ring, non-commutative op", __FILE__,
                             __LINE__);
                continue;
            }
            PT_REQUIRE(rc);
            /* The reference: ranks 0..np-1 in order (the standard's order). */
            for (int s = 0; s < np; s++) {
                int m[4] = {1, (s + me + round) % 3, (s * 2 + me) % 2, 1};
                if (s == 0)
                    memcpy(want, m, sizeof m);
                else if (commute)
                    for (int i = 0; i < 4; i++)
                        want[i] += m[i];
                else {
                    int one = 1;
                    matmul(want, m, &one, &mat);
                    memcpy(want, m, sizeof m);
                }
            }
            for (int i = 0; i < 4; i++)
                if (out[i] != want[i])
                    pt_check_elem(commute ? "ops sum" : "ops product", me, i, want[i], out[i]);
        }
        MPI_Op_free(&op);
    }
    MPI_Type_free(&mat);
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    pt_case_end();
}

static void case_block(void)
{
    int *in = ints(2), out[2];
    pt_case("block");
    for (int run = 0; run < 4; run++) {
        for (int i = 0; i < 2 * np; i++)
            in[i] = me + i + run;
        pt_poison(out, sizeof out);
        PT_REQUIRE(pcoll_reduce_scatter_block(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int k = 0; k < 2; k++) {
            int i = me * 2 + k, want = np * (i + run) + np * (np - 1) / 2;
            if (out[k] != want)
                pt_check_elem("block", me, k, want, out[k]);
        }
    }
    free(in);
    pt_case_end();
}

/* One pcoll_reduce_scatter (wide: the large-count form) of in with the
 * counts cnt (wcnt), checked; returns whether it ran as a repeat. */
static int counts_call(const int *in, const int *cnt, const MPI_Count *wcnt, int wide, int run)
{
    int out[3], at = 0;
    unsigned long before = pcoll__repeats();
    for (int i = 0; i < me; i++)
        at += cnt[i];
    pt_poison(out, sizeof out);
    if (wide)
        PT_REQUIRE(pcoll_reduce_scatter_c(in, out, wcnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    else
        PT_REQUIRE(pcoll_reduce_scatter(in, out, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < cnt[me]; k++) {
        int want = np * (at + k + run) + np * (np - 1) / 2;
        if (out[k] != want)
            pt_check_elem(wide ? "counts (large-count form)" : "counts", me, k, want, out[k]);
    }
    return pcoll__repeats() != before;
}

/* pcoll_reduce_scatter and its large-count form with one counts array
 * whose values change every other call, the other arguments equal: a call
 * repeats only while the values stay as they were (calls 1, 3, 5 of each
 * form), and every result is right. */
static void case_counts(void)
{
    int cnt[64], *in = ints(3);
    MPI_Count wcnt[64];
    pt_case("counts");
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", "pairwise", 1);
    for (int wide = 0; wide < 2; wide++)
        for (int run = 0; run < 6; run++) {
            int total = 0;
            for (int i = 0; i < np; i++) {
                cnt[i] = 1 + (i + run / 2) % 3;
                wcnt[i] = cnt[i];
                total += cnt[i];
            }
            for (int j = 0; j < total; j++)
                in[j] = me + j + run;
            int repeated = counts_call(in, cnt, wcnt, wide, run);
            PT_CHECK(repeated == run % 2, "form %d call %d: %s", wide, run,
                     repeated ? "repeated with other counts" : "not repeated");
        }
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    free(in);
    pt_case_end();
}

/* One pcoll_alltoallv of ints (wide: the large-count form) with these
 * arrays, checked against the closed form; returns whether it repeated. */
static int v_call(const int *sc, const int *sd, const int *rc, const int *rd, int wide, int run)
{
    MPI_Count wsc[64], wrc[64];
    MPI_Aint wsd[64], wrd[64];
    /* Static: the same addresses every call (a repeat compares them), also
     * under ASan's detect_stack_use_after_return. */
    static int sb[64 * 4], rb[64 * 4];
    unsigned long before = pcoll__repeats();
    for (int i = 0; i < np; i++) {
        wsc[i] = sc[i], wrc[i] = rc[i], wsd[i] = sd[i], wrd[i] = rd[i];
        for (int k = 0; k < sc[i]; k++)
            sb[sd[i] + k] = me * 10000 + i * 100 + k + run;
    }
    pt_poison(rb, sizeof rb);
    if (wide)
        PT_REQUIRE(pcoll_alltoallv_c(sb, wsc, wsd, MPI_INT, rb, wrc, wrd, MPI_INT,
                                     MPI_COMM_WORLD));
    else
        PT_REQUIRE(pcoll_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int s = 0; s < np; s++)
        for (int k = 0; k < rc[s]; k++)
            if (rb[rd[s] + k] != s * 10000 + me * 100 + k + run)
                pt_check_elem("alltoallv", s, k, s * 10000 + me * 100 + k + run, rb[rd[s] + k]);
    return pcoll__repeats() != before;
}

/* Counts that change every other call (run / 2), blocks end to end. */
static void v_counts(int *sc, int *sd, int *rc, int *rd, int run)
{
    int at = 0, rat = 0;
    for (int i = 0; i < np; i++) {
        sc[i] = 1 + (me + i + run / 2) % 4; /* rank me sends to i */
        rc[i] = 1 + (i + me + run / 2) % 4; /* what i sends to me */
        sd[i] = at, at += sc[i];
        rd[i] = rat, rat += rc[i];
    }
}

/* pcoll_alltoallv and its large-count form with the same four arrays,
 * whose counts (and so displacements) change every other call, buffers and
 * types equal, run by algorithm: a call repeats only while the arrays hold
 * what they held (calls 1, 3, 5), and every result is right; with `native`
 * (forwarded) the int form's repeats hand the arrays as they are to the
 * MPI's call (src/api/entry.c "Repeats"), so every call after the first
 * repeats, whatever its counts (the large-count form is not forwarded). */
static void vector_runs(const char *algorithm, int forwarded, int *sc, int *sd, int *rc, int *rd)
{
    setenv("PCOLL_ALLTOALLV_ALGORITHM", algorithm, 1);
    for (int wide = 0; wide < 2; wide++)
        for (int run = 0; run < 6; run++) {
            v_counts(sc, sd, rc, rd, run);
            int repeated = v_call(sc, sd, rc, rd, wide, run);
            int want = forwarded && !wide ? run > 0 : run % 2;
            PT_CHECK(repeated == want, "form %d call %d: %s", wide, run,
                     repeated ? "repeated with other counts" : "not repeated");
            PT_CHECK(strcmp(pcoll__last_run_algorithm, algorithm) == 0, "ran %s",
                     pcoll__last_run_algorithm);
        }
}

static void case_vector(void)
{
    int sc[64], sd[64], rc[64], rd[64];
    pt_case("alltoallv arrays");
    vector_runs("scattered", 0, sc, sd, rc, rd);
    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
    pt_case_end();
}

/* alltoallv's `hier` kept by its shape (a plan that takes each call's
 * checked arguments, on virtual nodes): counts that change every third
 * call, both forms.  A changed call never repeats; the third of equal
 * calls always does (the record keeps the arguments at the deciding call
 * and at the second of equal calls); every result right. */
static void case_kept_vector(void)
{
    int sc[64], sd[64], rc[64], rd[64];
    pt_case("alltoallv arrays, hier kept by the shape");
    setenv("PCOLL_ALLTOALLV_ALGORITHM", "hier", 1);
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    for (int wide = 0; wide < 2; wide++)
        for (int run = 0; run < 9; run++) {
            v_counts(sc, sd, rc, rd, 2 * (run / 3));
            int repeated = v_call(sc, sd, rc, rd, wide, run);
            if (run % 3 == 0)
                PT_CHECK(!repeated, "form %d call %d: repeated with other counts", wide, run);
            if (run % 3 == 2)
                PT_CHECK(repeated, "form %d call %d: the third equal call not repeated", wide,
                         run);
            PT_CHECK(strcmp(pcoll__last_run_algorithm, "hier") == 0, "ran %s",
                     pcoll__last_run_algorithm);
        }
    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
    unsetenv("PCOLL_CORES_PER_NODE");
    pt_case_end();
}

static void case_forward(void)
{
    int sc[64], sd[64], rc[64], rd[64];
    pt_case("alltoallv arrays, native forwarded");
    vector_runs("native", 1, sc, sd, rc, rd);
    /* A negative count after forwarded repeats: refused on every rank,
     * as the first call's check refuses it, and the MPI never sees it. */
    {
        static int sb[256], rb[256];
        unsigned long before;
        for (int k = 0; k < 2; k++)
            PT_REQUIRE(pcoll_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
        before = pcoll__repeats();
        PT_REQUIRE(pcoll_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
        PT_CHECK(pcoll__repeats() == before + 1, "the same call again not forwarded");
        sc[np - 1] = -1;
        int rc_bad = pcoll_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
        PT_CHECK(rc_bad == PCOLL_ERR_ARG && pcoll__repeats() == before + 1,
                 "a negative count after forwarded repeats: %s", pcoll_err_name(rc_bad));
    }
    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
    pt_case_end();
}

/* The shape table of comm's context as a list every rank can compare:
 * per slot, its calls (-1: empty) and its place in the order of last use. */
static void shape_signature(MPI_Comm comm, int sig[2 * PCOLL__SHAPES])
{
    pcoll__ctx_t *ctx = NULL;
    PT_CHECK(pcoll__ctx_known(comm, &ctx), "no context for the communicator");
    for (int i = 0; i < PCOLL__SHAPES; i++) {
        const pcoll__cache_entry_t *e = ctx ? &ctx->shape[i] : NULL;
        int later = 0;
        for (int j = 0; e && e->key && j < PCOLL__SHAPES; j++)
            later += ctx->shape[j].key && ctx->shape[j].stamp > e->stamp;
        sig[2 * i] = e && e->key ? (int)e->calls : -1;
        sig[2 * i + 1] = e && e->key ? later : -1;
    }
}

/* auto's one-shot alltoallv with even ranks repeating their call (native:
 * forwarded to the MPI's) and odd ranks alternating two receive buffers
 * (every call the full path): the shape table must count every call on
 * every rank alike, or the ranks evict different shapes later and one of
 * them decides a shape (communicating) alone. */
static void case_forward_shapes(void)
{
    static int sb[64 * 4], rb[2][64 * 4];
    int sc[64], sd[64], rc[64], rd[64], sig[2 * PCOLL__SHAPES], lo[2 * PCOLL__SHAPES],
        hi[2 * PCOLL__SHAPES];
    unsigned long before;
    MPI_Comm d;
    pt_case("alltoallv auto, forwarded repeats counted in the shape table");
    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
    setenv("PCOLL_COST_CALL", "0", 1); /* auto's one-shot choice: native, on every MPI */
    setenv("PCOLL_COST_BARRIER", "1", 1); /* and no node plan kept by the shape */
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    v_counts(sc, sd, rc, rd, 0);
    for (int i = 0; i < 64 * 4; i++)
        sb[i] = me * 1000 + i;
    before = pcoll__repeats();
    for (int run = 0; run < 6; run++)
        PT_REQUIRE(pcoll_alltoallv(sb, sc, sd, MPI_INT, rb[me % 2 ? run % 2 : 0], rc, rd, MPI_INT,
                                   d));
    PT_CHECK(strcmp(pcoll__last_run_algorithm, "native") == 0, "auto ran %s",
             pcoll__last_run_algorithm);
    /* Decided and remembered at the second call: the next four repeat. */
    PT_CHECK(me % 2 || pcoll__repeats() - before == 4, "%lu of 6 calls repeated",
             pcoll__repeats() - before);
    shape_signature(d, sig);
    PT_MPI(MPI_Allreduce(sig, lo, 2 * PCOLL__SHAPES, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    PT_MPI(MPI_Allreduce(sig, hi, 2 * PCOLL__SHAPES, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * PCOLL__SHAPES; i++)
        PT_CHECK(lo[i] == hi[i], "shape slot %d: %s %d here, %d to %d over the ranks", i / 2,
                 i % 2 ? "order" : "calls", sig[i], lo[i], hi[i]);
    PT_MPI(MPI_Comm_free(&d));
    unsetenv("PCOLL_COST_CALL");
    unsetenv("PCOLL_COST_BARRIER");
    pt_case_end();
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    case_same("scattered");
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    case_same("hier");
    unsetenv("PCOLL_CORES_PER_NODE");
    case_same(NULL);
    case_environment();
    case_types();
    case_comms();
    case_evicted();
    case_split();
    case_inplace();
    case_forward();
    case_forward_shapes();
    ops_rounds("ring");
    ops_rounds("pairwise");
    case_block();
    if (np <= 64) {
        case_counts();
        case_vector();
        case_kept_vector();
    }
    return pt_finish();
}
