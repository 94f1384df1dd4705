/*
 * test_bigcount.c -- the large-count forms pcoll_*_c (MPI_Count counts,
 * MPI_Aint displacements; on every MPI).
 *
 * - alltoall_c / alltoall_init_c: small counts against MPI_Alltoall (several
 *   algorithms, persistent restarted with new input, one-shot, in place);
 *   a count over INT_MAX (2^31 + 8 bytes) on MPI_COMM_SELF with calloc'd
 *   buffers (rank 0, np <= 2; skipped where memory is short), sampled.
 * - alltoallv_c / alltoallv_init_c: displacements near 3e9 items from a
 *   base moved down by as much, against MPI_Alltoallv on the real buffer;
 *   a count over INT_MAX (2^31 + 8 bytes) to oneself on MPI_COMM_SELF, as
 *   for alltoall.
 * - reduce_scatter(_block)_c and their _init_c: small counts against the
 *   closed-form sums; a count over INT_MAX (2^31 + 8 bytes of MPI_UINT8_T,
 *   MPI_SUM) on MPI_COMM_SELF as above.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "../memavail.h"

static int me, np;

static MPI_Info algo_info(const char *alg)
{
    MPI_Info info;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
    return info;
}

static int *ints(size_t n, int v)
{
    int *a = malloc(n * sizeof(int) + sizeof(int));
    for (size_t i = 0; i < n; i++)
        a[i] = v;
    return a;
}

static void alltoall_small(void)
{
    static const char *const algs[] = {"linear", "pairwise", "bruck_zerocopy", "hier", "auto"};
    const int cnt = 3;
    size_t n = (size_t)np * cnt;
    int *sb = ints(n, 0), *rb = ints(n, 0), *ref = ints(n, 0);
    for (int a = 0; a < 5; a++)
        for (int inplace = 0; inplace < 2; inplace++) {
            pcoll_plan_t *plan = NULL;
            MPI_Info info = algo_info(algs[a]);
            pt_case("alltoall_init_c alg=%s%s", algs[a], inplace ? " in place" : "");
            for (int run = 0; run < 2; run++) {
                for (size_t i = 0; i < n; i++)
                    sb[i] = 10000 * run + 100 * me + (int)i, rb[i] = ref[i] = -1;
                if (inplace)
                    memcpy(rb, sb, n * sizeof(int)), memcpy(ref, sb, n * sizeof(int));
                PT_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : sb, cnt, MPI_INT, ref, cnt, MPI_INT,
                                    MPI_COMM_WORLD));
                if (run == 0)
                    PT_OK(pcoll_alltoall_init_c(inplace ? MPI_IN_PLACE : sb, (MPI_Count)cnt,
                                                MPI_INT, rb, (MPI_Count)cnt, MPI_INT,
                                                MPI_COMM_WORLD, info, &plan));
                if (plan) {
                    PT_OK(pcoll_start(plan));
                    PT_OK(pcoll_wait(plan));
                    PT_CHECK(!memcmp(rb, ref, n * sizeof(int)), "data differ from MPI's");
                }
            }
            pcoll_plan_free(&plan);
            PT_MPI(MPI_Info_free(&info));
            pt_case_end();
        }
    pt_case("alltoall_c one-shot");
    for (size_t i = 0; i < n; i++)
        sb[i] = 7 * me + (int)i, rb[i] = ref[i] = -1;
    PT_MPI(MPI_Alltoall(sb, cnt, MPI_INT, ref, cnt, MPI_INT, MPI_COMM_WORLD));
    PT_OK(pcoll_alltoall_c(sb, cnt, MPI_INT, rb, cnt, MPI_INT, MPI_COMM_WORLD));
    PT_CHECK(!memcmp(rb, ref, n * sizeof(int)), "data differ from MPI's");
    pt_case_end();
    free(sb), free(rb), free(ref);
}

/* 2^31 + 8 bytes to oneself: the count itself is over INT_MAX. */
static void alltoall_big(void)
{
    const MPI_Count count = ((MPI_Count)1 << 31) + 8;
    static const char *const algs[] = {"linear", "pairwise", "auto"};
    pt_case("alltoall(v)_c count 2^31+8 on MPI_COMM_SELF");
    if (np > 2 || me != 0) {
        pt_case_end();
        return;
    }
    if (mem_available() < 6LL << 30) {
        pt_note("skipped: %lld bytes of memory available, 6 GiB needed", mem_available());
        pt_case_end();
        return;
    }
    unsigned char *sb = calloc((size_t)count, 1), *rb = calloc((size_t)count, 1);
    if (!sb || !rb) {
        pt_note("skipped: calloc of 2 x %lld bytes failed", (long long)count);
    } else {
        const MPI_Count at[] = {0, 1, (MPI_Count)INT_MAX - 1, (MPI_Count)INT_MAX,
                                (MPI_Count)INT_MAX + 1, count - 1};
        for (int a = 0; a < 3; a++)
            for (int persistent = 0; persistent < 4; persistent++) {
                for (int k = 0; k < 6; k++)
                    sb[at[k]] = (unsigned char)(17 * k + 3 * a + persistent + 1), rb[at[k]] = 0;
                int rc;
                const MPI_Aint zero = 0;
                if (persistent == 2) {
                    pcoll_plan_t *plan = NULL;
                    MPI_Info info = algo_info(algs[a]);
                    rc = pcoll_alltoallv_init_c(sb, &count, &zero, MPI_BYTE, rb, &count, &zero,
                                                MPI_BYTE, MPI_COMM_SELF, info, &plan);
                    rc = pt_run(rc, plan);
                    pcoll_plan_free(&plan);
                    PT_MPI(MPI_Info_free(&info));
                } else if (persistent == 3) {
                    setenv("PCOLL_ALLTOALLV_ALGORITHM", algs[a], 1);
                    rc = pcoll_alltoallv_c(sb, &count, &zero, MPI_BYTE, rb, &count, &zero,
                                           MPI_BYTE, MPI_COMM_SELF);
                    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
                } else if (persistent) {
                    pcoll_plan_t *plan = NULL;
                    MPI_Info info = algo_info(algs[a]);
                    rc = pcoll_alltoall_init_c(sb, count, MPI_BYTE, rb, count, MPI_BYTE,
                                               MPI_COMM_SELF, info, &plan);
                    rc = pt_run(rc, plan);
                    pcoll_plan_free(&plan);
                    PT_MPI(MPI_Info_free(&info));
                } else {
                    setenv("PCOLL_ALLTOALL_ALGORITHM", algs[a], 1);
                    rc = pcoll_alltoall_c(sb, count, MPI_BYTE, rb, count, MPI_BYTE,
                                          MPI_COMM_SELF);
                    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
                }
                PT_CHECK(rc == PCOLL_SUCCESS, "%s %s: rc %d (%s)", algs[a],
                         (const char *[]){"alltoall_c", "alltoall_init_c", "alltoallv_init_c",
                                          "alltoallv_c"}[persistent],
                         rc, pcoll_last_error());
                for (int k = 0; k < 6 && rc == PCOLL_SUCCESS; k++)
                    PT_CHECK(rb[at[k]] == sb[at[k]], "%s: byte %lld: %d, want %d", algs[a],
                             (long long)at[k], rb[at[k]], sb[at[k]]);
            }
    }
    free(sb), free(rb);
    pt_case_end();
}

/* alltoallv_c: i+1 ints to rank i, displacements 3e9 + ... from a base moved
 * down by as much (addresses computed as integers, as MPI does). */
static void alltoallv_c_cases(void)
{
    const MPI_Aint far = 3000000000;
    MPI_Count *sc = malloc(sizeof(MPI_Count) * 2 * (size_t)np), *rc_ = sc + np;
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * 2 * (size_t)np), *rd = sd + np;
    int *isc = ints((size_t)4 * np, 0), *isd = isc + np, *irc = isc + 2 * np, *ird = isc + 3 * np;
    int so = 0, ro = 0;
    for (int i = 0; i < np; i++) {
        isc[i] = i + 1, isd[i] = so, so += i + 1;
        irc[i] = me + 1, ird[i] = ro, ro += me + 2;
        sc[i] = isc[i], sd[i] = far + isd[i];
        rc_[i] = irc[i], rd[i] = far + ird[i];
    }
    int *sb = ints((size_t)so, 0), *rb = ints((size_t)ro, 0), *ref = ints((size_t)ro, 0);
    const void *sbase = (const void *)((uintptr_t)sb - (uintptr_t)far * sizeof(int));
    void *rbase = (void *)((uintptr_t)rb - (uintptr_t)far * sizeof(int));
    static const char *const algs[] = {"linear", "pairwise", "scattered", "auto"};
    for (int a = 0; a < 4; a++) {
        pcoll_plan_t *plan = NULL;
        MPI_Info info = algo_info(algs[a]);
        pt_case("alltoallv_init_c displacements near 3e9 alg=%s", algs[a]);
        for (int run = 0; run < 2; run++) {
            for (int i = 0; i < so; i++)
                sb[i] = 1000 * run + 100 * me + i;
            for (int i = 0; i < ro; i++)
                rb[i] = ref[i] = -1;
            PT_MPI(MPI_Alltoallv(sb, isc, isd, MPI_INT, ref, irc, ird, MPI_INT, MPI_COMM_WORLD));
            if (run == 0)
                PT_OK(pcoll_alltoallv_init_c(sbase, sc, sd, MPI_INT, rbase, rc_, rd, MPI_INT,
                                             MPI_COMM_WORLD, info, &plan));
            if (plan) {
                PT_OK(pcoll_start(plan));
                PT_OK(pcoll_wait(plan));
                PT_CHECK(!memcmp(rb, ref, sizeof(int) * (size_t)ro), "data differ from MPI's");
            }
        }
        pcoll_plan_free(&plan);
        PT_MPI(MPI_Info_free(&info));
        pt_case_end();
    }
    pt_case("alltoallv_c one-shot displacements near 3e9");
    for (int i = 0; i < ro; i++)
        rb[i] = ref[i] = -1;
    PT_MPI(MPI_Alltoallv(sb, isc, isd, MPI_INT, ref, irc, ird, MPI_INT, MPI_COMM_WORLD));
    PT_OK(pcoll_alltoallv_c(sbase, sc, sd, MPI_INT, rbase, rc_, rd, MPI_INT, MPI_COMM_WORLD));
    PT_CHECK(!memcmp(rb, ref, sizeof(int) * (size_t)ro), "data differ from MPI's");
    pt_case_end();

    free(sc), free(sd), free(isc), free(sb), free(rb), free(ref);
}

static void reduce_scatter_c_cases(void)
{
    const int cnt = 2;
    size_t n = (size_t)np * cnt;
    int *sb = ints(n, 0), *rb = ints(n, 0);
    MPI_Count *counts = malloc(sizeof(MPI_Count) * (size_t)np);
    for (int i = 0; i < np; i++)
        counts[i] = cnt;
    for (int block = 0; block < 2; block++) {
        pcoll_plan_t *plan = NULL;
        pt_case("%s_init_c", block ? "reduce_scatter_block" : "reduce_scatter");
        for (int run = 0; run < 2; run++) {
            for (size_t i = 0; i < n; i++)
                sb[i] = 1000 * run + 10 * me + (int)i, rb[i] = -1;
            if (run == 0)
                PT_OK(block ? pcoll_reduce_scatter_block_init_c(sb, rb, cnt, MPI_INT, MPI_SUM,
                                                                MPI_COMM_WORLD, MPI_INFO_NULL,
                                                                &plan)
                            : pcoll_reduce_scatter_init_c(sb, rb, counts, MPI_INT, MPI_SUM,
                                                          MPI_COMM_WORLD, MPI_INFO_NULL, &plan));
            if (!plan)
                continue;
            PT_OK(pcoll_start(plan));
            PT_OK(pcoll_wait(plan));
            for (int k = 0; k < cnt; k++) {
                long long want = 0;
                for (int r = 0; r < np; r++)
                    want += 1000LL * run + 10LL * r + me * cnt + k;
                PT_CHECK(rb[k] == want, "element %d: %d, want %lld", k, rb[k], want);
            }
        }
        pcoll_plan_free(&plan);
        pt_case_end();
        pt_case("%s_c one-shot", block ? "reduce_scatter_block" : "reduce_scatter");
        for (size_t i = 0; i < n; i++)
            sb[i] = 3 * me + (int)i, rb[i] = -1;
        PT_OK(block ? pcoll_reduce_scatter_block_c(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                    : pcoll_reduce_scatter_c(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int k = 0; k < cnt; k++) {
            long long want = 0;
            for (int r = 0; r < np; r++)
                want += 3LL * r + me * cnt + k;
            PT_CHECK(rb[k] == want, "element %d: %d, want %lld", k, rb[k], want);
        }
        pt_case_end();
    }
    free(sb), free(rb), free(counts);
}

/* reduce_scatter(_block)_c of 2^31 + 8 bytes on MPI_COMM_SELF: one rank,
 * so the result is the input (a copy in pieces of at most INT_MAX). */
static void reduce_scatter_big(void)
{
    const MPI_Count count = ((MPI_Count)1 << 31) + 8;
    const MPI_Count at[] = {0, 1, INT32_MAX - 1, INT32_MAX, (MPI_Count)INT32_MAX + 1, count - 1};
    pt_case("reduce_scatter(_block)_c count 2^31+8 on MPI_COMM_SELF");
    if (np > 2 || me != 0 || mem_available() < 6LL << 30) {
        if (me == 0 && np <= 2)
            pt_note("skipped: %lld bytes of memory available, 6 GiB needed", mem_available());
        pt_case_end();
        return;
    }
    unsigned char *sb = calloc((size_t)count, 1), *rb = calloc((size_t)count, 1);
    for (int form = 0; sb && rb && form < 4; form++) {
        pcoll_plan_t *plan = NULL;
        int rc;
        for (int k = 0; k < 6; k++)
            sb[at[k]] = (unsigned char)(7 * k + form + 1), rb[at[k]] = 0;
        if (form == 0)
            rc = pcoll_reduce_scatter_block_c(sb, rb, count, MPI_UINT8_T, MPI_SUM, MPI_COMM_SELF);
        else if (form == 1)
            rc = pcoll_reduce_scatter_c(sb, rb, &count, MPI_UINT8_T, MPI_SUM, MPI_COMM_SELF);
        else if (form == 2)
            rc = pcoll_reduce_scatter_block_init_c(sb, rb, count, MPI_UINT8_T, MPI_SUM,
                                                   MPI_COMM_SELF, MPI_INFO_NULL, &plan);
        else
            rc = pcoll_reduce_scatter_init_c(sb, rb, &count, MPI_UINT8_T, MPI_SUM, MPI_COMM_SELF,
                                             MPI_INFO_NULL, &plan);
        rc = pt_run(rc, plan);
        pcoll_plan_free(&plan);
        PT_CHECK(rc == PCOLL_SUCCESS, "form %d: rc %d (%s)", form, rc, pcoll_last_error());
        for (int k = 0; k < 6 && rc == PCOLL_SUCCESS; k++)
            PT_CHECK(rb[at[k]] == sb[at[k]], "form %d: byte %lld: %d, want %d", form,
                     (long long)at[k], rb[at[k]], sb[at[k]]);
    }
    free(sb), free(rb);
    pt_case_end();
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    me = pt_rank, np = pt_size;
    alltoall_small();
    alltoallv_c_cases();
    reduce_scatter_c_cases();
    alltoall_big();
    reduce_scatter_big();
    return pt_finish();
}
