/*
 * test_intercomm.c -- alltoall on an intercommunicator: rank i of one group
 * sends its block j to rank j of the other group and receives block j from
 * it; the two directions' blocks differ in size (group g sends COUNT[g]
 * ints per block and receives COUNT[1-g]).  The groups are the ranks of
 * MPI_COMM_WORLD with rank % 3 == 0 and the others (sizes 1 and 1 at np 2,
 * 1 and 2 at np 3, 2 and 2 at np 4, ...); np 1 has no intercommunicator.
 *
 * One-shot pcoll_alltoall (auto: `inter`), persistent plans of auto, inter
 * and native run three times with new input, and a group that sends
 * nothing (zero counts one way), all checked against closed forms and
 * MPI_Alltoall on the same intercommunicator, on poisoned buffers.  Then
 * alltoallv and alltoallw, one-shot and persistent (auto and native),
 * with counts that differ per pair (COUNT[g] + (i + j) % 2 ints from rank i
 * of group g to rank j) and a gap of one int between blocks.  Every
 * rank must get the same refusal for: an algorithm that cannot serve an
 * intercommunicator (pairwise: ERR_UNSUPPORTED), MPI_IN_PLACE (ERR_ARG),
 * and block sizes the two groups do not match (ERR_MISMATCH).
 *
 * Then reduce_scatter and reduce_scatter_block (MPI's definition: the
 * reduction of one group's vectors, in its rank order, is scattered among
 * the other group's ranks in that group's blocks): vectors of 0, 2 and 7
 * ints split unevenly (zero blocks included) and block counts that give
 * both groups one length, with MPI_SUM on ints; vectors of 2 elements with
 * a non-commutative user op (2x2 matrix products, tests/matmul.h) on a 4-int
 * element type; vectors of 7 with MPI_SUM on a resized int (extent two
 * ints); one-shot (twice) and persistent (auto: `inter`, native, and inter
 * by name for ints) three runs each; checked against closed forms
 * and, where the MPI takes the type, against MPI_Reduce_scatter(_block) on
 * the same intercommunicator.  Refusals, on every rank: ring
 * (ERR_UNSUPPORTED), MPI_IN_PLACE (ERR_ARG), vectors of different lengths
 * in the two groups, and counts that differ inside a group (ERR_MISMATCH).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "pcoll.h"
#include "../matmul.h"

enum { RUNS = 3, POISON = -77 };

static int world_rank, failures;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "rank %d: %s: %s\n", world_rank, what, detail);
    failures++;
}

static void expect_rc(int rc, int want, const char *what)
{
    char detail[512];
    if (rc == want)
        return;
    snprintf(detail, sizeof detail, "expected %s, got %s (%s)", pcoll_err_name(want),
             pcoll_err_name(rc), pcoll_last_error());
    fail(what, detail);
}

/* Int k of the block for remote rank j from local rank i of group g. */
static int value(int g, int i, int j, int k, int run)
{
    return g * 100000 + i * 1000 + j * 10 + k + run * 1000000;
}

typedef struct side {
    MPI_Comm comm;
    int group, rank, size, remote;
    int scount, rcount; /* ints per block sent and received */
    int *send, *recv, *want;
} side_t;

static void fill(side_t *s, int run)
{
    for (int j = 0; j < s->remote; j++)
        for (int k = 0; k < s->scount; k++)
            s->send[j * s->scount + k] = value(s->group, s->rank, j, k, run);
    for (int n = 0; n < s->remote * s->rcount; n++)
        s->recv[n] = POISON;
}

/* Block i of the output: block rank of remote rank i's input; and MPI's. */
static void check(side_t *s, int run, const char *what)
{
    char detail[256];
    for (int i = 0; i < s->remote; i++)
        for (int k = 0; k < s->rcount; k++) {
            int want = value(1 - s->group, i, s->rank, k, run), got = s->recv[i * s->rcount + k];
            if (got != want) {
                snprintf(detail, sizeof detail, "peer %d index %d: expected %d got %d", i, k,
                         want, got);
                fail(what, detail);
                return;
            }
        }
    MPI_Alltoall(s->send, s->scount, MPI_INT, s->want, s->rcount, MPI_INT, s->comm);
    if (memcmp(s->want, s->recv, sizeof(int) * (size_t)(s->remote * s->rcount)))
        fail(what, "differs from MPI_Alltoall");
}

static MPI_Info algorithm(const char *name)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", name);
    return info;
}

/* Whether an init (its code rc) made a plan of the expected algorithm;
 * its info freed. */
static int made(int rc, const pcoll_plan_t *plan, MPI_Info *info, const char *expect,
                const char *what)
{
    expect_rc(rc, PCOLL_SUCCESS, what);
    MPI_Info_free(info);
    if (plan && strcmp(pcoll_plan_algorithm(plan), expect))
        fail(what, pcoll_plan_algorithm(plan));
    return plan != NULL;
}

static void start_wait(pcoll_plan_t *plan, const char *what)
{
    expect_rc(pcoll_start(plan), PCOLL_SUCCESS, what);
    expect_rc(pcoll_wait(plan), PCOLL_SUCCESS, what);
}

static void persistent(side_t *s, const char *name, const char *expect)
{
    MPI_Info info = algorithm(name);
    pcoll_plan_t *plan = NULL;
    char what[64];
    int rc;
    snprintf(what, sizeof what, "persistent %s", name);
    /* The plan is read after the init has set it. */
    rc = pcoll_alltoall_init(s->send, s->scount, MPI_INT, s->recv, s->rcount, MPI_INT, s->comm,
                             info, &plan);
    if (!made(rc, plan, &info, expect, what))
        return;
    for (int run = 1; run <= RUNS; run++) {
        fill(s, run);
        start_wait(plan, what);
        check(s, run, what);
    }
    expect_rc(pcoll_plan_free(&plan), PCOLL_SUCCESS, what);
}

static void refusals(side_t *s)
{
    MPI_Info info = algorithm("pairwise");
    pcoll_plan_t *plan = NULL;
    expect_rc(pcoll_alltoall_init(s->send, s->scount, MPI_INT, s->recv, s->rcount, MPI_INT,
                                  s->comm, info, &plan),
              PCOLL_ERR_UNSUPPORTED, "pairwise on an intercommunicator");
    MPI_Info_free(&info);
    expect_rc(pcoll_alltoall_init(MPI_IN_PLACE, 0, MPI_INT, s->recv, s->rcount, MPI_INT,
                                  s->comm, MPI_INFO_NULL, &plan),
              PCOLL_ERR_ARG, "MPI_IN_PLACE on an intercommunicator");
    /* The first group receives one int more than the other sends. */
    expect_rc(pcoll_alltoall_init(s->send, s->scount, MPI_INT, s->recv,
                                  s->rcount + (s->group == 0), MPI_INT, s->comm, MPI_INFO_NULL,
                                  &plan),
              PCOLL_ERR_MISMATCH, "block sizes the groups do not match");
    pcoll_plan_free(&plan);
}

static void run_counts(side_t *s, const int count[2])
{
    s->scount = count[s->group];
    s->rcount = count[1 - s->group];
    /* One-shot: twice, the second a cache hit. */
    for (int run = 0; run < 2; run++) {
        fill(s, run);
        expect_rc(pcoll_alltoall(s->send, s->scount, MPI_INT, s->recv, s->rcount, MPI_INT,
                                 s->comm),
                  PCOLL_SUCCESS, "one-shot");
        check(s, run, "one-shot");
    }
    persistent(s, "auto", "inter");
    persistent(s, "inter", "inter");
    persistent(s, "native", "native");
}

/* alltoallv / alltoallw: ints from rank i of group g to remote rank j. */
static int vcount(int g, int i, int j)
{
    return 2 + g + (i + j) % 2;
}

typedef struct vside {
    int scounts[64], sdispls[64], rcounts[64], rdispls[64];
    int sbytes[64], rbytes[64];
    MPI_Datatype types[64];
    int rtotal;
} vside_t;

static void vlayout(const side_t *s, vside_t *v)
{
    int soff = 0, roff = 0;
    for (int j = 0; j < s->remote; j++) {
        v->scounts[j] = vcount(s->group, s->rank, j);
        v->rcounts[j] = vcount(1 - s->group, j, s->rank);
        v->sdispls[j] = soff, v->rdispls[j] = roff;
        v->sbytes[j] = soff * (int)sizeof(int), v->rbytes[j] = roff * (int)sizeof(int);
        v->types[j] = MPI_INT;
        soff += v->scounts[j] + 1, roff += v->rcounts[j] + 1;
    }
    v->rtotal = roff;
}

static void vfill(side_t *s, const vside_t *v, int run)
{
    for (int j = 0; j < s->remote; j++)
        for (int k = 0; k < v->scounts[j]; k++)
            s->send[v->sdispls[j] + k] = value(s->group, s->rank, j, k, run);
    for (int n = 0; n < v->rtotal; n++)
        s->recv[n] = s->want[n] = POISON;
}

static void vcheck(side_t *s, const vside_t *v, int run, const char *what)
{
    char detail[256];
    for (int i = 0; i < s->remote; i++)
        for (int k = 0; k < v->rcounts[i]; k++) {
            int want = value(1 - s->group, i, s->rank, k, run);
            int got = s->recv[v->rdispls[i] + k];
            if (got != want) {
                snprintf(detail, sizeof detail, "peer %d index %d: expected %d got %d", i, k,
                         want, got);
                fail(what, detail);
                return;
            }
        }
    MPI_Alltoallv(s->send, v->scounts, v->sdispls, MPI_INT, s->want, v->rcounts, v->rdispls,
                  MPI_INT, s->comm);
    if (memcmp(s->want, s->recv, sizeof(int) * (size_t)v->rtotal))
        fail(what, "differs from MPI_Alltoallv");
}

static void vpersistent(side_t *s, const vside_t *v, int w, const char *name, const char *expect)
{
    MPI_Info info = algorithm(name);
    pcoll_plan_t *plan = NULL;
    char what[64];
    snprintf(what, sizeof what, "persistent alltoall%s %s", w ? "w" : "v", name);
    int rc = w ? pcoll_alltoallw_init(s->send, v->scounts, v->sbytes, v->types, s->recv,
                                      v->rcounts, v->rbytes, v->types, s->comm, info, &plan)
               : pcoll_alltoallv_init(s->send, v->scounts, v->sdispls, MPI_INT, s->recv,
                                      v->rcounts, v->rdispls, MPI_INT, s->comm, info, &plan);
    if (!made(rc, plan, &info, expect, what))
        return;
    for (int run = 1; run <= RUNS; run++) {
        vfill(s, v, run);
        start_wait(plan, what);
        vcheck(s, v, run, what);
    }
    expect_rc(pcoll_plan_free(&plan), PCOLL_SUCCESS, what);
}

static void run_vw(side_t *s)
{
    vside_t v;
    vlayout(s, &v);
    for (int run = 0; run < 2; run++) {
        vfill(s, &v, run);
        expect_rc(pcoll_alltoallv(s->send, v.scounts, v.sdispls, MPI_INT, s->recv, v.rcounts,
                                  v.rdispls, MPI_INT, s->comm),
                  PCOLL_SUCCESS, "one-shot alltoallv");
        vcheck(s, &v, run, "one-shot alltoallv");
        vfill(s, &v, run);
        expect_rc(pcoll_alltoallw(s->send, v.scounts, v.sbytes, v.types, s->recv, v.rcounts,
                                  v.rbytes, v.types, s->comm),
                  PCOLL_SUCCESS, "one-shot alltoallw");
        vcheck(s, &v, run, "one-shot alltoallw");
    }
    for (int w = 0; w < 2; w++) {
        vpersistent(s, &v, w, "auto", "inter");
        vpersistent(s, &v, w, "native", "native");
    }
}

/* ---- reduce_scatter ----------------------------------------------------- */

enum { MAXN = 64 };

/* The vector of n elements split among a group of size: uneven, the last
 * rank takes the rest (zero blocks where n is small). */
static void split(int n, int size, int counts[])
{
    int left = n;
    for (int j = 0; j < size; j++) {
        counts[j] = j == size - 1 ? left : (n / (size + 1) < left ? n / (size + 1) : left);
        left -= counts[j];
    }
}

/* Int k of the vector of rank i of group g. */
static int rs_value(int g, int i, int k, int run)
{
    return (g * 7 + i * 31 + k * 3 + run) % 97 + 1;
}

/* What one reduce-scatter case uses: the element (ints per element, the
 * stride between elements in ints), the op, and whether the MPI's own call
 * takes the type (a predefined op on a derived type: not in every MPI). */
typedef struct rs_case {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int ints, stride, matrix, native;
    /* Vector lengths of the counts form (up to 3, -1 ends), block counts
     * of the block form in units of the other group's size (up to 2, -1
     * ends), and whether `inter` is also asked for by name. */
    int lengths[3], blocks[2], explicit;
} rs_case_t;

/* Rank i's vector of n elements (the other ints poisoned). */
static void rs_fill(const rs_case_t *c, int g, int i, int n, int run, int *v)
{
    for (int k = 0; k < n * c->stride; k++)
        v[k] = POISON;
    for (int e = 0; e < n; e++)
        for (int k = 0; k < c->ints; k++)
            v[e * c->stride + k] = rs_value(g, i, e * c->ints + k, run);
}

/* Element e of the remote group's reduction (rank order). */
static void rs_expected(const side_t *s, const rs_case_t *c, int e, int run, int out[4])
{
    int g = 1 - s->group;
    for (int k = 0; k < c->ints; k++)
        out[k] = c->matrix ? (k == 0 || k == 3) : 0;
    for (int i = 0; i < s->remote; i++) {
        int x[4];
        for (int k = 0; k < c->ints; k++)
            x[k] = rs_value(g, i, e * c->ints + k, run);
        if (c->matrix) {
            int len = 1;
            /* out = out x x: the lower ranks stay on the left. */
            int r[4] = {x[0], x[1], x[2], x[3]};
            int l[4] = {out[0], out[1], out[2], out[3]};
            matmul(l, r, &len, NULL);
            memcpy(out, r, sizeof r);
        } else {
            out[0] += x[0];
        }
    }
}

typedef struct rs_call {
    const rs_case_t *c;
    int block;              /* the block form */
    int counts[MAXN];       /* this group's */
    int first;              /* elements before this rank's block */
    int n;                  /* the vector's elements */
} rs_call_t;

static void rs_check(side_t *s, const rs_call_t *r, const int *got, int run, const char *what)
{
    const rs_case_t *c = r->c;
    char detail[256];
    int want[4];
    for (int e = 0; e < r->counts[s->rank]; e++) {
        rs_expected(s, c, r->first + e, run, want);
        for (int k = 0; k < c->ints; k++)
            if (got[e * c->stride + k] != want[k]) {
                snprintf(detail, sizeof detail, "%s element %d int %d: expected %d got %d",
                         c->name, e, k, want[k], got[e * c->stride + k]);
                fail(what, detail);
                return;
            }
    }
}

/* The MPI's answer into s->want. */
static void rs_native(side_t *s, const rs_call_t *r)
{
    if (r->block)
        MPI_Reduce_scatter_block(s->send, s->want, r->counts[0], r->c->type, r->c->op, s->comm);
    else
        MPI_Reduce_scatter(s->send, s->want, r->counts, r->c->type, r->c->op, s->comm);
}

/* One run: fill, poison, the call (plan: start+wait, else one-shot), then
 * closed forms and the MPI's result. */
static void rs_run(side_t *s, const rs_call_t *r, pcoll_plan_t *plan, int run, const char *what)
{
    const rs_case_t *c = r->c;
    int mine = r->counts[s->rank] * c->stride, rc;
    rs_fill(c, s->group, s->rank, r->n, run, s->send);
    for (int k = 0; k < mine + 1; k++)
        s->recv[k] = s->want[k] = POISON;
    if (plan) {
        start_wait(plan, what);
    } else {
        rc = r->block ? pcoll_reduce_scatter_block(s->send, s->recv, r->counts[0], c->type, c->op,
                                                   s->comm)
                      : pcoll_reduce_scatter(s->send, s->recv, r->counts, c->type, c->op,
                                             s->comm);
        expect_rc(rc, PCOLL_SUCCESS, what);
    }
    rs_check(s, r, s->recv, run, what);
    if (s->recv[mine] != POISON)
        fail(what, "wrote past the block");
    if (!c->native)
        return;
    rs_native(s, r);
    if (memcmp(s->want, s->recv, sizeof(int) * (size_t)mine))
        fail(what, "differs from the MPI's reduce-scatter");
}

static void rs_persistent(side_t *s, const rs_call_t *r, const char *name, const char *expect)
{
    MPI_Info info = algorithm(name);
    pcoll_plan_t *plan = NULL;
    char what[96];
    int rc;
    snprintf(what, sizeof what, "persistent reduce_scatter%s %s %s n=%d", r->block ? "_block" : "",
             r->c->name, name, r->n);
    rc = r->block ? pcoll_reduce_scatter_block_init(s->send, s->recv, r->counts[0], r->c->type,
                                                    r->c->op, s->comm, info, &plan)
                  : pcoll_reduce_scatter_init(s->send, s->recv, r->counts, r->c->type, r->c->op,
                                              s->comm, info, &plan);
    if (!made(rc, plan, &info, expect, what))
        return;
    for (int run = 1; run <= RUNS; run++)
        rs_run(s, r, plan, run, what);
    expect_rc(pcoll_plan_free(&plan), PCOLL_SUCCESS, what);
}

static void rs_call(side_t *s, rs_call_t *r)
{
    char what[96];
    r->first = 0;
    for (int j = 0; j < s->rank; j++)
        r->first += r->counts[j];
    snprintf(what, sizeof what, "one-shot reduce_scatter%s %s n=%d", r->block ? "_block" : "",
             r->c->name, r->n);
    for (int run = 0; run < 2; run++)
        rs_run(s, r, NULL, run, what);
    rs_persistent(s, r, "auto", "inter");
    if (r->c->explicit)
        rs_persistent(s, r, "inter", "inter");
    if (r->c->native)
        rs_persistent(s, r, "native", "native");
}

/* Both forms for case c: the counts form with its vector lengths, the
 * block form with k * (the other group's size) elements per block (both
 * groups' vectors k * size * remote). */
static void rs_forms(side_t *s, const rs_case_t *c)
{
    rs_call_t r = {.c = c};
    for (int l = 0; l < 3 && c->lengths[l] >= 0; l++) {
        r.block = 0, r.n = c->lengths[l];
        split(r.n, s->size, r.counts);
        rs_call(s, &r);
    }
    for (int b = 0; b < 2 && c->blocks[b] >= 0; b++) {
        int k = c->blocks[b];
        r.block = 1, r.n = k * s->size * s->remote;
        for (int j = 0; j < s->size; j++)
            r.counts[j] = k * s->remote;
        rs_call(s, &r);
    }
}

/* Refusals, the same on every rank. */
static void rs_refusals(side_t *s)
{
    MPI_Info info = algorithm("ring");
    pcoll_plan_t *plan = NULL;
    int counts[MAXN];
    split(2, s->size, counts);
    expect_rc(pcoll_reduce_scatter_init(s->send, s->recv, counts, MPI_INT, MPI_SUM, s->comm, info,
                                        &plan),
              PCOLL_ERR_UNSUPPORTED, "reduce_scatter ring on an intercommunicator");
    MPI_Info_free(&info);
    expect_rc(pcoll_reduce_scatter_block_init(MPI_IN_PLACE, s->recv, s->remote, MPI_INT, MPI_SUM,
                                              s->comm, MPI_INFO_NULL, &plan),
              PCOLL_ERR_ARG, "reduce_scatter_block MPI_IN_PLACE on an intercommunicator");
    /* Group 1's vector is one element longer. */
    split(2 + s->group, s->size, counts);
    expect_rc(pcoll_reduce_scatter_init(s->send, s->recv, counts, MPI_INT, MPI_SUM, s->comm,
                                        MPI_INFO_NULL, &plan),
              PCOLL_ERR_MISMATCH, "reduce_scatter vectors of different lengths");
    /* Inside group 0 (when it has two ranks or more): its rank 0 splits the
     * 2 elements otherwise (split gives the last rank both). */
    if (s->group == 0 ? s->size > 1 : s->remote > 1) {
        split(2, s->size, counts);
        if (s->group == 0 && s->rank == 0)
            counts[0] += 1, counts[s->size - 1] -= 1;
        expect_rc(pcoll_reduce_scatter_init(s->send, s->recv, counts, MPI_INT, MPI_SUM, s->comm,
                                            MPI_INFO_NULL, &plan),
                  PCOLL_ERR_MISMATCH, "reduce_scatter counts that differ inside a group");
    }
    pcoll_plan_free(&plan);
}

static void run_reduce_scatter(side_t *s)
{
    MPI_Datatype four, wide;
    MPI_Op mat;
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &wide);
    MPI_Type_commit(&wide);
    MPI_Op_create(matmul, 0, &mat);
    const rs_case_t cases[] = {
        {"int sum", MPI_INT, MPI_SUM, 1, 1, 0, 1, {0, 2, 7}, {0, 1}, 1},
        {"matrix product", four, mat, 4, 4, 1, 1, {2, -1, -1}, {1, -1}, 0},
        {"resized int sum", wide, MPI_SUM, 1, 2, 0, 0, {7, -1, -1}, {1, -1}, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        rs_forms(s, &cases[c]);
    rs_refusals(s);
    MPI_Op_free(&mat);
    MPI_Type_free(&four);
    MPI_Type_free(&wide);
}

int main(int argc, char **argv)
{
    static const int counts[][2] = {{2, 3}, {0, 2}, {1, 1}};
    side_t s = {0};
    MPI_Comm local;
    int np, leader;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || np > 96) {
        printf("test_intercomm: skipped: np 1 has no intercommunicator (and the arrays "
               "hold 64 peers)\n");
        MPI_Finalize();
        return 0;
    }
    /* Group 1: world ranks 0, 3, 6, ...; group 0: the others.  The remote
     * leader is the other group's lowest world rank. */
    s.group = world_rank % 3 == 0;
    leader = s.group ? 1 : 0;
    MPI_Comm_split(MPI_COMM_WORLD, s.group, world_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, leader, 7, &s.comm);
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.size);
    MPI_Comm_remote_size(s.comm, &s.remote);
    /* Room for alltoall's blocks and for reduce_scatter's vectors (at most
     * 7 or size * remote elements of 4 ints, one more for the poison). */
    size_t ints = (size_t)(s.remote * 5 > 4 * (s.size * s.remote + 8)
                               ? s.remote * 5 : 4 * (s.size * s.remote + 8));
    s.send = malloc(sizeof(int) * ints);
    s.recv = malloc(sizeof(int) * ints);
    s.want = malloc(sizeof(int) * ints);
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        run_counts(&s, counts[c]);
    run_vw(&s);
    refusals(&s);
    run_reduce_scatter(&s);
    MPI_Comm_free(&s.comm);
    MPI_Comm_free(&local);
    free(s.send), free(s.recv), free(s.want);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_intercomm: %s (%d failures)\n", failures ? "FAILED" : "passed", failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
