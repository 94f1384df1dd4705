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
 * block sizes the two groups do not match (ERR_MISMATCH), and a collective
 * that does not serve intercommunicators (reduce_scatter_block:
 * ERR_UNSUPPORTED).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "pcoll.h"

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
    expect_rc(pcoll_reduce_scatter_block(s->send, s->recv, 1, MPI_INT, MPI_SUM, s->comm),
              PCOLL_ERR_UNSUPPORTED, "reduce_scatter_block on an intercommunicator");
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
    s.send = malloc(sizeof(int) * (size_t)s.remote * 5);
    s.recv = malloc(sizeof(int) * (size_t)s.remote * 5);
    s.want = malloc(sizeof(int) * (size_t)s.remote * 5);
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        run_counts(&s, counts[c]);
    run_vw(&s);
    refusals(&s);
    MPI_Comm_free(&s.comm);
    MPI_Comm_free(&local);
    free(s.send), free(s.recv), free(s.want);
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_intercomm: %s (%d failures)\n", failures ? "FAILED" : "passed", failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
