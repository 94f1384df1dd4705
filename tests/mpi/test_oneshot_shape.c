/*
 * test_oneshot_shape.c -- one-shot calls served by plans that the ranks made
 * together (src/api/entry.c "Shapes"): pcoll_alltoall with `hier` requested
 * on virtual nodes (pcoll_cores_per_node), and with the automatic choice,
 * against closed-form values and MPI_Alltoall.
 *
 * Cases (each call's buffers are allocated afresh and poisoned, so a plan
 * that kept an old buffer writes where nobody looks and the check fails):
 *   buffers    four calls of one shape, new buffers each time;
 *   layouts    one shape (16-byte blocks) with other datatypes each call:
 *              strided doubles into doubles with a negative lower bound,
 *              plain doubles, and back (the later calls pass through the
 *              first call's layouts);
 *   handles    ints as MPI_INT x 4 on even ranks and one contiguous(4) on odd
 *              ones, a new handle each call on rank 1 (the ranks' decisions
 *              must not split: a split hangs or fails);
 *   in place   MPI_IN_PLACE, three calls with new buffers;
 *   sizes      a new block size every call (1 to 5 ints), automatic choice;
 *   comms      a duplicate of the world freed after two calls, three times;
 *   reversed   the world in reverse rank order, with the cached plan of the
 *              world still alive at MPI_Finalize;
 *   reduce     pcoll_reduce_scatter_block and pcoll_reduce_scatter (MPI_SUM,
 *              ints) with node_direct and node_ring requested and with the
 *              automatic choice, new buffers each call, in place on some,
 *              against closed-form sums; a vector of pairs (one derived
 *              handle per call on rank 0) with node_direct.
 * The algorithm the call ran (the drop-in's log reads the same) must be
 * `hier` wherever it was requested.
 *
 * Usage: test_oneshot_shape
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "harness.h"

static pt_layout layouts[PT_L_COUNT];
static int me, np;

static void fill(const pt_buf *b, int run)
{
    long nk = b->nitems * b->lay->nelem;
    for (long k = 0; k < nk; k++)
        pt_put(b, k, pt_val(me, (long)pt_off(b, k), run));
}

/* Block s element k of the receive buffer came from element k of block
 * `me` of rank s's send layout sl (sc items per block). */
static void check(const pt_buf *rb, int rc_items, const pt_layout *sl, int sc, int run,
                  MPI_Comm comm, const char *what)
{
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    long per_block = (long)rc_items * rb->lay->nelem;
    MPI_Group g, wg;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int s = 0; s < p; s++) {
        int ws;
        MPI_Group_translate_ranks(g, 1, &s, wg, &ws);
        for (long k = 0; k < per_block; k++) {
            MPI_Aint off = pt_elem_off(sl, (long)r * sc + k / sl->nelem, (int)(k % sl->nelem));
            double want = pt_val(ws, (long)off, run), got = pt_get(rb, s * per_block + k);
            if (want != got)
                pt_check_elem(what, s, k, want, got);
        }
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    pt_check_untouched(rb, what);
}

static void expect_algorithm(const char *want)
{
    PT_CHECK(strcmp(pcoll__last_run_algorithm, want) == 0, "ran %s, expected %s",
             pcoll__last_run_algorithm, want);
}

/* One call: send layout sl x sc per block, receive layout rl x rc. */
static void one_call(const pt_layout *sl, int sc, const pt_layout *rl, int rc, int run,
                     MPI_Comm comm, const char *want)
{
    pt_buf sb, rb;
    int p;
    MPI_Comm_size(comm, &p);
    pt_buf_alloc(&sb, sl, (long)sc * p);
    pt_buf_alloc(&rb, rl, (long)rc * p);
    fill(&sb, run);
    PT_REQUIRE(pcoll_alltoall(sb.base, sc, sl->type, rb.base, rc, rl->type, comm));
    check(&rb, rc, sl, sc, run, comm, "one-shot");
    if (want)
        expect_algorithm(want);
    pt_buf_free(&sb);
    pt_buf_free(&rb);
}

static void case_buffers(void)
{
    pt_case("buffers");
    for (int run = 0; run < 4; run++)
        one_call(&layouts[PT_L_INT], 3, &layouts[PT_L_INT], 3, run, MPI_COMM_WORLD, "hier");
    pt_case_end();
}

static void case_layouts(void)
{
    const pt_layout *vec = &layouts[PT_L_VEC], *neg = &layouts[PT_L_NEGLB],
                    *dbl = &layouts[PT_L_DOUBLE];
    pt_case("layouts");
    one_call(vec, 1, neg, 2, 10, MPI_COMM_WORLD, "hier");
    one_call(dbl, 2, dbl, 2, 11, MPI_COMM_WORLD, "hier");
    one_call(neg, 2, vec, 1, 12, MPI_COMM_WORLD, "hier");
    one_call(vec, 1, neg, 2, 13, MPI_COMM_WORLD, "hier");
    pt_case_end();
}

/* Ints: element k of block d on rank s is s * 10000 + d * 100 + k + run. */
static void case_handles(void)
{
    MPI_Datatype four = MPI_INT;
    int count = me % 2 ? 1 : 4;
    pt_case("handles");
    for (int run = 0; run < 3; run++) {
        int *sb = malloc(sizeof(int) * 4 * (size_t)np), *rb = malloc(sizeof(int) * 4 * (size_t)np);
        for (int i = 0; i < 4 * np; i++)
            sb[i] = me * 10000 + (i / 4) * 100 + i % 4 + run;
        pt_poison(rb, sizeof(int) * 4 * (size_t)np);
        if (me % 2 && (me == 1 || run == 0)) {
            PT_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
            PT_MPI(MPI_Type_commit(&four));
        }
        PT_REQUIRE(pcoll_alltoall(sb, count, four, rb, 4, MPI_INT, MPI_COMM_WORLD));
        expect_algorithm("hier");
        for (int i = 0; i < 4 * np; i++) {
            int want = (i / 4) * 10000 + me * 100 + i % 4 + run;
            if (rb[i] != want)
                pt_check_elem("handles", i / 4, i % 4, want, rb[i]);
        }
        /* Rank 1 makes a new handle every call; the other odd ranks keep
         * the first one until the end. */
        if (me == 1 || (me % 2 && run == 2))
            MPI_Type_free(&four);
        free(sb);
        free(rb);
    }
    pt_case_end();
}

static void case_inplace(void)
{
    const pt_layout *l = &layouts[PT_L_STRUCT_B];
    pt_case("in place");
    for (int run = 20; run < 23; run++) {
        pt_buf b;
        pt_buf_alloc(&b, l, 2L * np);
        fill(&b, run);
        PT_REQUIRE(pcoll_alltoall(MPI_IN_PLACE, 2, l->type, b.base, 2, l->type, MPI_COMM_WORLD));
        expect_algorithm("hier");
        check(&b, 2, l, 2, run, MPI_COMM_WORLD, "in place");
        pt_buf_free(&b);
    }
    pt_case_end();
}

static void case_sizes(void)
{
    pt_case("sizes (auto)");
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    for (int run = 0; run < 10; run++)
        one_call(&layouts[PT_L_INT], 1 + run % 5, &layouts[PT_L_INT], 1 + run % 5, 30 + run,
                 MPI_COMM_WORLD, NULL);
    setenv("PCOLL_ALLTOALL_ALGORITHM", "hier", 1);
    pt_case_end();
}

static void case_comms(void)
{
    pt_case("comms");
    for (int i = 0; i < 3; i++) {
        MPI_Comm dup;
        PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        one_call(&layouts[PT_L_INT], 2, &layouts[PT_L_INT], 2, 40 + i, dup, "hier");
        one_call(&layouts[PT_L_INT], 2, &layouts[PT_L_INT], 2, 50 + i, dup, "hier");
        PT_MPI(MPI_Comm_free(&dup));
    }
    pt_case_end();
}

static void case_reversed(void)
{
    MPI_Comm rev = pt_comm_make(PT_C_REVERSED);
    pt_case("reversed");
    for (int run = 60; run < 63; run++)
        one_call(&layouts[PT_L_DOUBLE], 3, &layouts[PT_L_DOUBLE], 3, run, rev, "hier");
    pt_comm_free(&rev);
    pt_case_end();
}

/* Element i of rank r's input at run `run`: r + i + run (ints). */
static void rs_calls(const char *alg, int block, int inplace, const char *want)
{
    int n = 3, total = 3 * np;
    int counts[64];
    pt_case("reduce %s %s%s", alg ? alg : "auto", block ? "block" : "counts",
            inplace ? " in place" : "");
    if (alg)
        setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", alg, 1);
    for (int i = 0; i < np; i++)
        counts[i] = n;
    for (int run = 0; run < 3; run++) {
        int *in = malloc(sizeof(int) * (size_t)total), *out = malloc(sizeof(int) * (size_t)total);
        for (int i = 0; i < total; i++)
            (inplace ? out : in)[i] = me + i + run;
        if (!inplace)
            pt_poison(out, sizeof(int) * (size_t)n);
        const void *sb = inplace ? MPI_IN_PLACE : in;
        PT_REQUIRE(block ? pcoll_reduce_scatter_block(sb, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                         : pcoll_reduce_scatter(sb, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (want)
            expect_algorithm(want);
        for (int k = 0; k < n; k++) {
            int i = me * n + k, expect = np * (i + run) + np * (np - 1) / 2;
            if (out[k] != expect)
                pt_check_elem("reduce", me, k, expect, out[k]);
        }
        free(in);
        free(out);
    }
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    pt_case_end();
}

/* Pairs of ints {a, b} as one derived type (a new handle every call on
 * rank 0, contiguous(2, MPI_INT) elsewhere); sums per int. */
static void rs_pairs(void)
{
    int total = 2 * 2 * np;
    pt_case("reduce pairs");
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", "node_direct", 1);
    for (int run = 0; run < 3; run++) {
        MPI_Datatype pair;
        int *in = malloc(sizeof(int) * (size_t)total), out[4];
        PT_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
        PT_MPI(MPI_Type_commit(&pair));
        for (int i = 0; i < total; i++)
            in[i] = 7 * me + i + run;
        pt_poison(out, sizeof out);
        PT_REQUIRE(pcoll_reduce_scatter_block(in, out, 2, pair, MPI_SUM, MPI_COMM_WORLD));
        expect_algorithm("node_direct");
        for (int k = 0; k < 4; k++) {
            int i = me * 4 + k, expect = np * (i + run) + 7 * np * (np - 1) / 2;
            if (out[k] != expect)
                pt_check_elem("pairs", me, k, expect, out[k]);
        }
        MPI_Type_free(&pair);
        free(in);
    }
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    pt_case_end();
}

static void case_reduce(void)
{
    if (np > 64)
        return;
    rs_calls("node_direct", 1, 0, "node_direct");
    rs_calls("node_direct", 1, 1, "node_direct");
    rs_calls("node_ring", 0, 0, "node_ring");
    rs_calls("node_ring", 1, 1, "node_ring");
    rs_calls(NULL, 1, 0, NULL);
    rs_calls(NULL, 0, 1, NULL);
    rs_pairs();
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_make(&layouts[k], (enum pt_layout_kind)k);
    setenv("PCOLL_ALLTOALL_ALGORITHM", "hier", 1);
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    case_buffers();
    case_layouts();
    case_handles();
    case_inplace();
    case_sizes();
    case_comms();
    case_reversed();
    case_reduce();
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_free(&layouts[k]);
    return pt_finish();
}
