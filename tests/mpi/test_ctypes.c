/*
 * test_ctypes.c -- datatypes made by MPI-4's large-count constructors
 * (MPI_Type_contiguous_c, MPI_Type_vector_c, ...) with small counts, which
 * MPI's int queries refuse (issue: such a type made pcoll abort, or refuse
 * a call that MPI completes).
 *
 * Every collective, every algorithm, persistent (restarted with new input)
 * and one-shot, with the _c types on every rank and on rank 0 only (the
 * other ranks describe the same layout with the int constructors); the
 * receive buffer compared byte for byte with MPI's own collective on the
 * same types (gaps poisoned alike).  An algorithm may refuse the shape
 * (PCOLL_ERR_UNSUPPORTED on every rank alike), never `auto`.
 * An MPI without the _c constructors (MPI-3) skips the test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#if MPI_VERSION >= 4

static int me, np;

/* The receive side: 3 ints at stride 2, extent 7 ints (gaps stay poisoned);
 * the send side: 3 dense ints. */
enum { ITEM = 3, REXT = 7 };

typedef struct {
    MPI_Datatype send, recv;
} types_t;

static types_t make_types(int large)
{
    types_t t;
    MPI_Datatype v;
    if (large) {
        PT_MPI(MPI_Type_contiguous_c(ITEM, MPI_INT, &t.send));
        PT_MPI(MPI_Type_vector_c(ITEM, 1, 2, MPI_INT, &v));
        PT_MPI(MPI_Type_create_resized_c(v, 0, REXT * (MPI_Count)sizeof(int), &t.recv));
    } else {
        PT_MPI(MPI_Type_contiguous(ITEM, MPI_INT, &t.send));
        PT_MPI(MPI_Type_vector(ITEM, 1, 2, MPI_INT, &v));
        PT_MPI(MPI_Type_create_resized(v, 0, REXT * (MPI_Aint)sizeof(int), &t.recv));
    }
    PT_MPI(MPI_Type_free(&v));
    PT_MPI(MPI_Type_commit(&t.send));
    PT_MPI(MPI_Type_commit(&t.recv));
    return t;
}

static void free_types(types_t *t)
{
    PT_MPI(MPI_Type_free(&t->send));
    PT_MPI(MPI_Type_free(&t->recv));
}

static int *alloc_ints(size_t n)
{
    int *a = malloc(n * sizeof(int) + 1);
    if (!a)
        abort();
    return a;
}

static void fill(int *sb, size_t n, int run)
{
    for (size_t i = 0; i < n; i++)
        sb[i] = 1000000 * run + 1000 * me + (int)i;
}

/* Same code on every rank, and data equal to MPI's. */
static void compare(int rc, const int *got, const int *want, size_t n, const char *alg,
                    int must)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    PT_CHECK(lo == hi, "%s: codes differ between ranks (%d .. %d)", alg, lo, hi);
    if (rc == PCOLL_ERR_UNSUPPORTED && !must) {
        pt_note("%s refuses the shape (on every rank)", alg);
        return;
    }
    PT_CHECK(rc == PCOLL_SUCCESS, "%s: rc %d", alg, rc);
    if (rc == PCOLL_SUCCESS)
        PT_CHECK(memcmp(got, want, n * sizeof(int)) == 0, "%s: data differ from MPI's", alg);
}

static MPI_Info algo_info(const char *alg)
{
    MPI_Info info;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
    return info;
}

static const char *const a2a_algs[] = {"linear", "pairwise", "scattered", "bruck_basic",
                                       "bruck_modified", "bruck_zerocopy",
                                       "bruck_zerocopy_blocks", "bruck_radix", "hier", "auto"};
static const char *const a2av_algs[] = {"linear", "pairwise", "scattered", "bruck_zerocopy",
                                        "padded_bruck", "hier", "auto"};
static const char *const rs_algs[] = {"mst",       "ring",      "ring_prepost", "recursive_halving",
                                      "pairwise",  "circulant", "node_ring",    "node_direct",
                                      "auto"};
#define COUNT(a) ((int)(sizeof(a) / sizeof *(a)))

static int must(const char *alg)
{
    return !strcmp(alg, "auto") || !strcmp(alg, "linear") || !strcmp(alg, "pairwise");
}

static void alltoall_case(int only0, int inplace)
{
    types_t t = make_types(!only0 || me == 0);
    const int cnt = 2;
    size_t sn = (size_t)np * cnt * ITEM, rn = (size_t)np * cnt * REXT;
    int *sb = alloc_ints(sn), *rb = alloc_ints(rn), *ref = alloc_ints(rn);
    for (int a = 0; a < COUNT(a2a_algs); a++) {
        const char *alg = a2a_algs[a];
        pcoll_plan_t *plan = NULL;
        pt_case("alltoall %s types (%s)%s alg=%s", only0 ? "rank 0's" : "all",
                "contiguous_c -> vector_c", inplace ? " in place" : "", alg);
        /* In place: receive type on both sides (what MPI_IN_PLACE means). */
        for (int run = 0; run < 2; run++) {
            fill(sb, sn, run);
            for (size_t i = 0; i < rn; i++)
                ref[i] = rb[i] = -7 - (int)i;
            if (inplace) {
                for (size_t i = 0; i < rn; i++)
                    ref[i] = rb[i] = 100000 * run + 100 * me + (int)i;
                PT_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ref, cnt, t.recv,
                                    MPI_COMM_WORLD));
            } else {
                PT_MPI(MPI_Alltoall(sb, cnt, t.send, ref, cnt, t.recv, MPI_COMM_WORLD));
            }
            int rc;
            if (run == 0) {
                MPI_Info info = algo_info(alg);
                rc = pcoll_alltoall_init(inplace ? MPI_IN_PLACE : sb, cnt, t.send, rb, cnt, t.recv,
                                         MPI_COMM_WORLD, info, &plan);
                PT_MPI(MPI_Info_free(&info));
            } else {
                rc = plan ? PCOLL_SUCCESS : PCOLL_ERR_UNSUPPORTED;
            }
            rc = pt_run(rc, plan);
            compare(rc, rb, ref, rn, alg, must(alg) && !inplace);
        }
        pcoll_plan_free(&plan);
        pt_case_end();
        if (inplace)
            continue;
        pt_case("alltoall one-shot %s types alg=%s", only0 ? "rank 0's" : "all", alg);
        setenv("PCOLL_ALLTOALL_ALGORITHM", alg, 1);
        for (int run = 0; run < 2; run++) {
            fill(sb, sn, run + 5);
            for (size_t i = 0; i < rn; i++)
                ref[i] = rb[i] = -3 - (int)i;
            PT_MPI(MPI_Alltoall(sb, cnt, t.send, ref, cnt, t.recv, MPI_COMM_WORLD));
            int rc = pcoll_alltoall(sb, cnt, t.send, rb, cnt, t.recv, MPI_COMM_WORLD);
            compare(rc, rb, ref, rn, alg, must(alg));
        }
        unsetenv("PCOLL_ALLTOALL_ALGORITHM");
        pt_case_end();
    }
    free(sb), free(rb), free(ref);
    free_types(&t);
}

/* alltoallv: i+1 items to rank i, received at displacements that leave an
 * item's gap between peers. */
static void alltoallv_case(int only0)
{
    types_t t = make_types(!only0 || me == 0);
    int *sc = malloc(sizeof(int) * (size_t)np), *sd = malloc(sizeof(int) * (size_t)np);
    int *rc_ = malloc(sizeof(int) * (size_t)np), *rd = malloc(sizeof(int) * (size_t)np);
    int so = 0, ro = 0;
    for (int i = 0; i < np; i++) {
        sc[i] = i + 1, sd[i] = so, so += sc[i];
        rc_[i] = me + 1, rd[i] = ro, ro += rc_[i] + 1;
    }
    size_t sn = (size_t)so * ITEM, rn = (size_t)ro * REXT;
    int *sb = alloc_ints(sn), *rb = alloc_ints(rn), *ref = alloc_ints(rn);
    for (int a = 0; a < COUNT(a2av_algs); a++) {
        const char *alg = a2av_algs[a];
        pcoll_plan_t *plan = NULL;
        pt_case("alltoallv %s types alg=%s", only0 ? "rank 0's" : "all", alg);
        for (int run = 0; run < 2; run++) {
            fill(sb, sn, run);
            for (size_t i = 0; i < rn; i++)
                ref[i] = rb[i] = -9 - (int)i;
            PT_MPI(MPI_Alltoallv(sb, sc, sd, t.send, ref, rc_, rd, t.recv, MPI_COMM_WORLD));
            int rc = PCOLL_SUCCESS;
            if (run == 0) {
                MPI_Info info = algo_info(alg);
                rc = pcoll_alltoallv_init(sb, sc, sd, t.send, rb, rc_, rd, t.recv, MPI_COMM_WORLD,
                                          info, &plan);
                PT_MPI(MPI_Info_free(&info));
            } else if (!plan) {
                rc = PCOLL_ERR_UNSUPPORTED;
            }
            rc = pt_run(rc, plan);
            compare(rc, rb, ref, rn, alg, must(alg));
        }
        pcoll_plan_free(&plan);
        pt_case_end();
    }
    pt_case("alltoallv one-shot %s types", only0 ? "rank 0's" : "all");
    fill(sb, sn, 3);
    for (size_t i = 0; i < rn; i++)
        ref[i] = rb[i] = -1;
    PT_MPI(MPI_Alltoallv(sb, sc, sd, t.send, ref, rc_, rd, t.recv, MPI_COMM_WORLD));
    compare(pcoll_alltoallv(sb, sc, sd, t.send, rb, rc_, rd, t.recv, MPI_COMM_WORLD), rb, ref, rn,
            "auto", 1);
    pt_case_end();
    free(sb), free(rb), free(ref), free(sc), free(sd), free(rc_), free(rd);
    free_types(&t);
}

/* reduce_scatter_block and reduce_scatter with MPI_SUM on a contiguous_c
 * type, against the closed-form sums (MPICH's own reduce-scatter refuses
 * predefined ops on derived types; the reduction's basic type is read from the large-count contents). */
static void sums(int *ref, size_t rn, int run)
{
    for (size_t k = 0; k < rn; k++) {
        long long v = 0;
        for (int r = 0; r < np; r++)
            v += 1000000LL * run + 1000LL * r + (long long)((size_t)me * rn + k);
        ref[k] = (int)v;
    }
}

static void reduce_scatter_case(int only0)
{
    types_t t = make_types(!only0 || me == 0);
    const int cnt = 2;
    size_t sn = (size_t)np * cnt * ITEM, rn = (size_t)cnt * ITEM;
    int *sb = alloc_ints(sn), *rb = alloc_ints(rn), *ref = alloc_ints(rn);
    int *counts = malloc(sizeof(int) * (size_t)np);
    for (int i = 0; i < np; i++)
        counts[i] = cnt;
    for (int block = 0; block < 2; block++)
        for (int a = 0; a < COUNT(rs_algs); a++) {
            const char *alg = rs_algs[a];
            pcoll_plan_t *plan = NULL;
            pt_case("%s %s types alg=%s", block ? "reduce_scatter_block" : "reduce_scatter",
                    only0 ? "rank 0's" : "all", alg);
            for (int run = 0; run < 2; run++) {
                fill(sb, sn, run);
                for (size_t i = 0; i < rn; i++)
                    ref[i] = rb[i] = -5 - (int)i;
                int rc = PCOLL_SUCCESS;
                sums(ref, rn, run);
                if (run == 0) {
                    MPI_Info info = algo_info(alg);
                    rc = block ? pcoll_reduce_scatter_block_init(sb, rb, cnt, t.send, MPI_SUM,
                                                                 MPI_COMM_WORLD, info, &plan)
                               : pcoll_reduce_scatter_init(sb, rb, counts, t.send, MPI_SUM,
                                                           MPI_COMM_WORLD, info, &plan);
                    PT_MPI(MPI_Info_free(&info));
                } else if (!plan) {
                    rc = PCOLL_ERR_UNSUPPORTED;
                }
                rc = pt_run(rc, plan);
                compare(rc, rb, ref, rn, alg, !strcmp(alg, "auto"));
            }
            pcoll_plan_free(&plan);
            pt_case_end();
        }
    pt_case("reduce_scatter_block one-shot %s types", only0 ? "rank 0's" : "all");
    fill(sb, sn, 4);
    for (size_t i = 0; i < rn; i++)
        ref[i] = rb[i] = -2;
    sums(ref, rn, 4);
    compare(pcoll_reduce_scatter_block(sb, rb, cnt, t.send, MPI_SUM, MPI_COMM_WORLD), rb, ref, rn,
            "auto", 1);
    pt_case("reduce_scatter_block_c one-shot %s types", only0 ? "rank 0's" : "all");
    for (int run = 5; run < 7; run++) {
        fill(sb, sn, run);
        for (size_t i = 0; i < rn; i++)
            ref[i] = rb[i] = -2;
        sums(ref, rn, run);
        compare(pcoll_reduce_scatter_block_c(sb, rb, cnt, t.send, MPI_SUM, MPI_COMM_WORLD), rb,
                ref, rn, "auto", 1);
    }
    pt_case_end();
    free(sb), free(rb), free(ref), free(counts);
    free_types(&t);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    me = pt_rank, np = pt_size;
    for (int only0 = 0; only0 < 2; only0++) {
        alltoall_case(only0, 0);
        alltoall_case(only0, 1);
        alltoallv_case(only0);
        reduce_scatter_case(only0);
    }
    return pt_finish();
}

#else

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    pt_skip("the MPI has no large-count constructors (MPI-3)");
    return pt_finish();
}

#endif
