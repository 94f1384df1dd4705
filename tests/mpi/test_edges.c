/*
 * test_edges.c -- arguments at the edges, each answered on every rank alike.
 *
 * - recvbuf = MPI_IN_PLACE where MPI forbids it, and NULL buffers with data
 *   to move (alltoall, alltoallv, reduce_scatter, reduce_scatter_block): an
 *   error at init on every rank (also when only one rank is wrong) and from
 *   the one-shot call, never a crash at the first run.  NULL with no data,
 *   and MPI_BOTTOM with a type of absolute addresses, work.
 * - pcoll_reduce_scatter_init with recvcounts that differ between ranks
 *   (the same total): PCOLL_ERR_MISMATCH on every rank.
 * - The one-shot reduce-scatter after a commutative user op is freed and a
 *   non-commutative one takes its handle: the right result (or a refusal),
 *   never the stale plan's.
 * - alltoallv MPI_IN_PLACE where ranks describe the same signature with types
 *   of different sizes (2 x MPI_INT here, 1 x contiguous(2, MPI_INT) there,
 *   also with all counts 0): `auto` serves it, `inplace` is refused on every
 *   rank, never a hang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int me, np;

/* A plan's init must fail with code on every rank; frees a plan made anyway. */
static void expect_init(int rc, pcoll_plan_t **plan, int code, const char *what)
{
    pt_check_rc_(rc, code, what, __FILE__, __LINE__);
    PT_CHECK(*plan == NULL, "%s: plan set on failure", what);
    pcoll_plan_free(plan);
}

static int *ints(int n, int value)
{
    int *a = malloc(sizeof(int) * (n > 0 ? (size_t)n : 1));
    for (int i = 0; i < n; i++)
        a[i] = value;
    return a;
}

/* Displacements 0, c, 2c, ... */
static int *strides(int n, int c)
{
    int *a = ints(n, 0);
    for (int i = 0; i < n; i++)
        a[i] = i * c;
    return a;
}

static void bad_buffers_alltoall(void)
{
    int *sb = ints(2 * np, 1), *rb = ints(2 * np, 0);
    pcoll_plan_t *plan = NULL;
    /* Everyone wrong, then rank 0 only. */
    for (int only0 = 0; only0 < 2; only0++) {
        int wrong = !only0 || me == 0;
        pt_case("alltoall recvbuf MPI_IN_PLACE%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_alltoall_init(sb, 2, MPI_INT, wrong ? MPI_IN_PLACE : rb, 2, MPI_INT,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "init");
        pt_case_end();
        pt_case("alltoall recvbuf NULL%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_alltoall_init(sb, 2, MPI_INT, wrong ? NULL : rb, 2, MPI_INT,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "init");
        pt_case_end();
        pt_case("alltoall sendbuf NULL%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_alltoall_init(wrong ? NULL : sb, 2, MPI_INT, rb, 2, MPI_INT,
                                        MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "init");
        pt_case_end();
    }
    pt_case("alltoall one-shot recvbuf MPI_IN_PLACE / NULL");
    PT_RC(pcoll_alltoall(sb, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_alltoall(sb, 2, MPI_INT, NULL, 2, MPI_INT, MPI_COMM_WORLD), PCOLL_ERR_ARG);
    pt_case_end();
    pt_case("alltoall NULL buffers with count 0");
    PT_OK(pcoll_alltoall_init(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &plan));
    PT_OK(pcoll_start(plan));
    PT_OK(pcoll_wait(plan));
    PT_OK(pcoll_plan_free(&plan));
    PT_OK(pcoll_alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD));
    pt_case_end();
    free(sb);
    free(rb);
}

static void bad_buffers_alltoallv(void)
{
    int *c = ints(np, 1), *d = strides(np, 1), *z = ints(np, 0);
    int *sb = ints(np, 1), *rb = ints(np, 0);
    pcoll_plan_t *plan = NULL;
    for (int only0 = 0; only0 < 2; only0++) {
        int wrong = !only0 || me == 0;
        pt_case("alltoallv recvbuf MPI_IN_PLACE%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_alltoallv_init(sb, c, d, MPI_INT, wrong ? MPI_IN_PLACE : rb, c, d,
                                         MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "init");
        pt_case_end();
        pt_case("alltoallv recvbuf NULL%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_alltoallv_init(sb, c, d, MPI_INT, wrong ? NULL : rb, c, d, MPI_INT,
                                         MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "init");
        pt_case_end();
    }
    pt_case("alltoallv one-shot recvbuf MPI_IN_PLACE / sendbuf NULL");
    PT_RC(pcoll_alltoallv(sb, c, d, MPI_INT, MPI_IN_PLACE, c, d, MPI_INT, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_alltoallv(NULL, c, d, MPI_INT, rb, c, d, MPI_INT, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    pt_case_end();
    pt_case("alltoallv NULL buffers with counts 0");
    PT_OK(pcoll_alltoallv_init(NULL, z, d, MPI_INT, NULL, z, d, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &plan));
    PT_OK(pcoll_start(plan));
    PT_OK(pcoll_wait(plan));
    PT_OK(pcoll_plan_free(&plan));
    pt_case_end();
    free(c), free(d), free(z), free(sb), free(rb);
}

static void bad_buffers_reduce_scatter(void)
{
    int *counts = ints(np, 2), *sb = ints(2 * np, 1), *rb = ints(2, 0);
    pcoll_plan_t *plan = NULL;
    for (int only0 = 0; only0 < 2; only0++) {
        int wrong = !only0 || me == 0;
        pt_case("reduce_scatter recvbuf MPI_IN_PLACE%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_reduce_scatter_init(sb, wrong ? MPI_IN_PLACE : rb, counts, MPI_INT,
                                              MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "init");
        expect_init(pcoll_reduce_scatter_block_init(sb, wrong ? MPI_IN_PLACE : rb, 2, MPI_INT,
                                                    MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                    &plan),
                    &plan, PCOLL_ERR_ARG, "block init");
        pt_case_end();
        pt_case("reduce_scatter NULL buffers%s", only0 ? " on rank 0" : "");
        expect_init(pcoll_reduce_scatter_init(sb, wrong ? NULL : rb, counts, MPI_INT, MPI_SUM,
                                              MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "recvbuf NULL");
        expect_init(pcoll_reduce_scatter_block_init(wrong ? NULL : sb, rb, 2, MPI_INT, MPI_SUM,
                                                    MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
                    &plan, PCOLL_ERR_ARG, "sendbuf NULL");
        pt_case_end();
    }
    pt_case("reduce_scatter one-shot recvbuf MPI_IN_PLACE / NULL");
    PT_RC(pcoll_reduce_scatter(sb, MPI_IN_PLACE, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_reduce_scatter_block(sb, NULL, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    pt_case_end();
    free(counts), free(sb), free(rb);
}

/* recvcounts that differ between ranks, with the same total. */
static void counts_differ(void)
{
    if (np < 2)
        return;
    int *counts = ints(np, 2), *sb = ints(2 * np, 1), *rb = ints(4, 0);
    pcoll_plan_t *plan = NULL;
    pt_case("reduce_scatter_init recvcounts differ on rank 0 (same total)");
    if (me == 0)
        counts[0] = 3, counts[1] = 1;
    expect_init(pcoll_reduce_scatter_init(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &plan),
                &plan, PCOLL_ERR_MISMATCH, "init");
    pt_case_end();
    free(counts), free(sb), free(rb);
}

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* a op b = a: the reduction of x0 .. x(p-1) in rank order is x0. */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

/* One-shot reduce_scatter_block of n ints per block with op on rank values
 * me*1000 + element; checks the expected value (sum or the first rank's). */
static void rs_oneshot(MPI_Op op, int n, int is_sum, const char *algorithm)
{
    int *sb = ints(n * np, 0), *rb = ints(n, -1), rc;
    for (int i = 0; i < n * np; i++)
        sb[i] = me * 1000 + i;
    if (algorithm)
        setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", algorithm, 1);
    rc = pcoll_reduce_scatter_block(sb, rb, n, MPI_INT, op, MPI_COMM_WORLD);
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    if (!is_sum && rc == PCOLL_ERR_UNSUPPORTED) {
        pt_note("refused: %s", pcoll_last_error());
    } else if (PT_OK(rc)) {
        for (int i = 0; i < n; i++) {
            int e = me * n + i;
            long want = is_sum ? 1000L * np * (np - 1) / 2 + (long)np * e : e;
            if (rb[i] != want)
                pt_check_elem("result", -1, i, (double)want, rb[i]);
        }
    }
    free(sb), free(rb);
}

static void recycled_op(const char *algorithm)
{
    MPI_Op sum, first;
    pt_case("one-shot reduce_scatter, op handle recycled (%s)", algorithm ? algorithm : "auto");
    PT_MPI(MPI_Op_create(sum_fn, 1, &sum));
    rs_oneshot(sum, 64, 1, algorithm);
    PT_MPI(MPI_Op_free(&sum));
    PT_MPI(MPI_Op_create(first_fn, 0, &first));
    rs_oneshot(first, 64, 0, algorithm);
    PT_MPI(MPI_Op_free(&first));
    pt_case_end();
}

/* MPI_IN_PLACE alltoallv, items of 2 ints: MPI_INT x 2 on even ranks,
 * contiguous(2, MPI_INT) x 1 on odd ones. */
static void inplace_types_differ(int zero, const char *algorithm)
{
    MPI_Datatype pair;
    int unit = me % 2 ? 1 : 2, rc;
    int *c = ints(np, zero ? 0 : unit), *d = strides(np, unit), *buf = ints(2 * np, 0);
    pcoll_plan_t *plan = NULL;
    MPI_Info info = MPI_INFO_NULL;
    PT_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    PT_MPI(MPI_Type_commit(&pair));
    pt_case("alltoallv MPI_IN_PLACE, item types differ in size%s, %s", zero ? ", counts 0" : "",
            algorithm);
    for (int i = 0; i < 2 * np; i++)
        buf[i] = me * 1000 + i;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", algorithm));
    rc = pcoll_alltoallv_init(MPI_IN_PLACE, c, d, me % 2 ? pair : MPI_INT, buf, c, d,
                              me % 2 ? pair : MPI_INT, MPI_COMM_WORLD, info, &plan);
    if (strcmp(algorithm, "inplace") == 0 && np > 1) {
        expect_init(rc, &plan, PCOLL_ERR_UNSUPPORTED, "init");
    } else if (PT_OK(rc)) {
        PT_OK(pcoll_start(plan));
        PT_OK(pcoll_wait(plan));
        PT_OK(pcoll_plan_free(&plan));
        for (int s = 0; s < np && !zero; s++)
            for (int k = 0; k < 2; k++)
                if (buf[2 * s + k] != s * 1000 + 2 * me + k)
                    pt_check_elem("alltoallv", s, k, s * 1000 + 2 * me + k, buf[2 * s + k]);
    }
    PT_MPI(MPI_Info_free(&info));
    PT_MPI(MPI_Type_free(&pair));
    pt_case_end();
    free(c), free(d), free(buf);
}

/* PT_ONLY=k runs section k alone (1 buffers, 2 counts, 3 ops, 4 in place). */
static int section(int k)
{
    const char *only = getenv("PT_ONLY");
    return !only || atoi(only) == k;
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    me = pt_rank, np = pt_size;
    if (section(1)) {
        bad_buffers_alltoall();
        bad_buffers_alltoallv();
        bad_buffers_reduce_scatter();
    }
    if (section(2))
        counts_differ();
    if (section(3)) {
        recycled_op(NULL);
        recycled_op("ring");
    }
    for (int zero = 0; zero < 2 && section(4); zero++) {
        inplace_types_differ(zero, "auto");
        inplace_types_differ(zero, "inplace");
    }
    return pt_finish();
}
