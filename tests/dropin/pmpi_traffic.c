/*
 * pcoll's own MPI traffic never enters MPI_* wrappers: the library calls the
 * functions that the drop-in (src/pmpi) defines by their PMPI_ names
 * (src/base/pmpi.h), so with libpcoll_mpi loaded its MPI_Start, MPI_Waitall
 * ... see the application's calls only, with no re-entry guard.
 *
 * This program stands in for the drop-in: it defines those MPI_ functions
 * itself (each counts its calls and forwards to PMPI_), links pcoll, and
 * runs pcoll's one-shot calls, persistent plans (pcoll_start, a pcoll_test
 * loop, pcoll_wait, pcoll_plan_free), the in-place alltoallv, alltoall
 * `hier` with the MPI_Ibarrier node barrier, and reduce-scatter.  A call
 * that arrives while pcoll runs -- or inside MPI_Finalize, where pcoll frees
 * its cached plans -- is a failure.  The program's own MPI_Start, MPI_Wait
 * ... must be counted, which shows that the definitions are in use.
 *
 * Usage: pmpi_traffic (any number of ranks); exit status 0 on success.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/defects.h"
#include "pcoll.h"

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_PERSISTENT 1
#endif

enum {
    START, STARTALL, WAIT, WAITALL, WAITANY, WAITSOME, TEST, TESTALL, TESTANY, TESTSOME,
    REQUEST_FREE, REQUEST_GET_STATUS, ALLTOALL, ALLTOALLV, REDUCE_SCATTER,
    REDUCE_SCATTER_BLOCK, IALLTOALL, IALLTOALLV, IREDUCE_SCATTER, IREDUCE_SCATTER_BLOCK,
    ALLTOALL_INIT, ALLTOALLV_INIT, REDUCE_SCATTER_INIT, REDUCE_SCATTER_BLOCK_INIT, ALLTOALLW,
    IALLTOALLW, ALLTOALLW_INIT, NEIGHBOR_ALLTOALL, NEIGHBOR_ALLTOALLV, NEIGHBOR_ALLTOALLW,
    INEIGHBOR_ALLTOALL, INEIGHBOR_ALLTOALLV, INEIGHBOR_ALLTOALLW, NEIGHBOR_ALLTOALL_INIT,
    NEIGHBOR_ALLTOALLV_INIT, NEIGHBOR_ALLTOALLW_INIT, COMM_DUP, COMM_DUP_WITH_INFO, COMM_SPLIT,
    COMM_SPLIT_TYPE, COMM_CREATE, COMM_CREATE_GROUP, INTERCOMM_MERGE, NFUNCS
};

static const char *const names[NFUNCS] = {
    "MPI_Start", "MPI_Startall", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
    "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Request_free",
    "MPI_Request_get_status", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block", "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ireduce_scatter",
    "MPI_Ireduce_scatter_block", "MPI_Alltoall_init", "MPI_Alltoallv_init",
    "MPI_Reduce_scatter_init", "MPI_Reduce_scatter_block_init", "MPI_Alltoallw",
    "MPI_Ialltoallw", "MPI_Alltoallw_init", "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv",
    "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv",
    "MPI_Ineighbor_alltoallw", "MPI_Neighbor_alltoall_init", "MPI_Neighbor_alltoallv_init",
    "MPI_Neighbor_alltoallw_init", "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split",
    "MPI_Comm_split_type", "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Intercomm_merge"};

static int inside;              /* pcoll (or MPI_Finalize) runs */
static long lib_calls[NFUNCS];  /* calls that arrived then */
static long user_calls[NFUNCS]; /* the program's own */
static int failures, rank, size;

static void count(int fn)
{
    if (inside)
        lib_calls[fn]++;
    else
        user_calls[fn]++;
}

/* ---- the MPI functions the drop-in defines: count, then PMPI ---------------------- */

int MPI_Start(MPI_Request *request)
{
    count(START);
    return PMPI_Start(request);
}

int MPI_Startall(int count_, MPI_Request array_of_requests[])
{
    count(STARTALL);
    return PMPI_Startall(count_, array_of_requests);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    count(WAIT);
    return PMPI_Wait(request, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status *statuses)
{
    count(WAITALL);
    return PMPI_Waitall(n, reqs, statuses);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    count(WAITANY);
    return PMPI_Waitany(n, reqs, index, status);
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status *statuses)
{
    count(WAITSOME);
    return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    count(TEST);
    return PMPI_Test(request, flag, status);
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status *statuses)
{
    count(TESTALL);
    return PMPI_Testall(n, reqs, flag, statuses);
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    count(TESTANY);
    return PMPI_Testany(n, reqs, index, flag, status);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status *statuses)
{
    count(TESTSOME);
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    count(COMM_DUP);
    return PMPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    count(COMM_DUP_WITH_INFO);
    return PMPI_Comm_dup_with_info(comm, info, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    count(COMM_SPLIT);
    return PMPI_Comm_split(comm, color, key, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    count(COMM_SPLIT_TYPE);
    return PMPI_Comm_split_type(comm, type, key, info, newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    count(COMM_CREATE);
    return PMPI_Comm_create(comm, group, newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    count(COMM_CREATE_GROUP);
    return PMPI_Comm_create_group(comm, group, tag, newcomm);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    count(INTERCOMM_MERGE);
    return PMPI_Intercomm_merge(intercomm, high, newintracomm);
}

int MPI_Request_free(MPI_Request *request)
{
    count(REQUEST_FREE);
    return PMPI_Request_free(request);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    count(REQUEST_GET_STATUS);
    return PMPI_Request_get_status(request, flag, status);
}

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 MPI_Comm comm)
{
    count(ALLTOALL);
    return PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    count(ALLTOALLV);
    return PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

int MPI_Reduce_scatter(const void *sb, void *rb, const int rc[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm comm)
{
    count(REDUCE_SCATTER);
    return PMPI_Reduce_scatter(sb, rb, rc, t, op, comm);
}

int MPI_Reduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                             MPI_Comm comm)
{
    count(REDUCE_SCATTER_BLOCK);
    return PMPI_Reduce_scatter_block(sb, rb, rc, t, op, comm);
}

int MPI_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm, MPI_Request *req)
{
    count(IALLTOALL);
    return PMPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, req);
}

int MPI_Ialltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                   const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *req)
{
    count(IALLTOALLV);
    return PMPI_Ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}

int MPI_Ireduce_scatter(const void *sb, void *rb, const int rc[], MPI_Datatype t, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
    count(IREDUCE_SCATTER);
    return PMPI_Ireduce_scatter(sb, rb, rc, t, op, comm, req);
}

int MPI_Ireduce_scatter_block(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                              MPI_Comm comm, MPI_Request *req)
{
    count(IREDUCE_SCATTER_BLOCK);
    return PMPI_Ireduce_scatter_block(sb, rb, rc, t, op, comm, req);
}

#ifdef HAVE_PERSISTENT
int MPI_Alltoall_init(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                      MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    count(ALLTOALL_INIT);
    return PMPI_Alltoall_init(sb, sc, st, rb, rc, rt, comm, info, req);
}

int MPI_Alltoallv_init(const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                       void *rb, const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *req)
{
    count(ALLTOALLV_INIT);
    return PMPI_Alltoallv_init(sb, sc, sd, st, rb, rc, rd, rt, comm, info, req);
}

int MPI_Neighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                          MPI_Datatype rt, MPI_Comm comm)
{
    count(NEIGHBOR_ALLTOALL);
    return PMPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Neighbor_alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                           void *rb, const int rc[], const int rd[], MPI_Datatype rt,
                           MPI_Comm comm)
{
    count(NEIGHBOR_ALLTOALLV);
    return PMPI_Neighbor_alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

int MPI_Neighbor_alltoallw(const void *sb, const int sc[], const MPI_Aint sd[],
                           const MPI_Datatype st[], void *rb, const int rc[], const MPI_Aint rd[],
                           const MPI_Datatype rt[], MPI_Comm comm)
{
    count(NEIGHBOR_ALLTOALLW);
    return PMPI_Neighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

int MPI_Ineighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                           MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    count(INEIGHBOR_ALLTOALL);
    return PMPI_Ineighbor_alltoall(sb, sc, st, rb, rc, rt, comm, req);
}

int MPI_Ineighbor_alltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                            void *rb, const int rc[], const int rd[], MPI_Datatype rt,
                            MPI_Comm comm, MPI_Request *req)
{
    count(INEIGHBOR_ALLTOALLV);
    return PMPI_Ineighbor_alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}

int MPI_Ineighbor_alltoallw(const void *sb, const int sc[], const MPI_Aint sd[],
                            const MPI_Datatype st[], void *rb, const int rc[],
                            const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                            MPI_Request *req)
{
    count(INEIGHBOR_ALLTOALLW);
    return PMPI_Ineighbor_alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}

int MPI_Alltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[],
                  void *rb, const int rc[], const int rd[], const MPI_Datatype rt[],
                  MPI_Comm comm)
{
    count(ALLTOALLW);
    return PMPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

int MPI_Ialltoallw(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[],
                   void *rb, const int rc[], const int rd[], const MPI_Datatype rt[],
                   MPI_Comm comm, MPI_Request *req)
{
    count(IALLTOALLW);
    return PMPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}

int MPI_Alltoallw_init(const void *sb, const int sc[], const int sd[], const MPI_Datatype st[],
                       void *rb, const int rc[], const int rd[], const MPI_Datatype rt[],
                       MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    count(ALLTOALLW_INIT);
    return PMPI_Alltoallw_init(sb, sc, sd, st, rb, rc, rd, rt, comm, info, req);
}

int MPI_Neighbor_alltoall_init(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                               MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    count(NEIGHBOR_ALLTOALL_INIT);
    return PMPI_Neighbor_alltoall_init(sb, sc, st, rb, rc, rt, comm, info, req);
}

int MPI_Neighbor_alltoallv_init(const void *sb, const int sc[], const int sd[], MPI_Datatype st,
                                void *rb, const int rc[], const int rd[], MPI_Datatype rt,
                                MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    count(NEIGHBOR_ALLTOALLV_INIT);
    return PMPI_Neighbor_alltoallv_init(sb, sc, sd, st, rb, rc, rd, rt, comm, info, req);
}

int MPI_Neighbor_alltoallw_init(const void *sb, const int sc[], const MPI_Aint sd[],
                                const MPI_Datatype st[], void *rb, const int rc[],
                                const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                                MPI_Info info, MPI_Request *req)
{
    count(NEIGHBOR_ALLTOALLW_INIT);
    return PMPI_Neighbor_alltoallw_init(sb, sc, sd, st, rb, rc, rd, rt, comm, info, req);
}

int MPI_Reduce_scatter_init(const void *sb, void *rb, const int rc[], MPI_Datatype t,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    count(REDUCE_SCATTER_INIT);
    return PMPI_Reduce_scatter_init(sb, rb, rc, t, op, comm, info, req);
}

int MPI_Reduce_scatter_block_init(const void *sb, void *rb, int rc, MPI_Datatype t, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    count(REDUCE_SCATTER_BLOCK_INIT);
    return PMPI_Reduce_scatter_block_init(sb, rb, rc, t, op, comm, info, req);
}
#endif

/* ---- checks ------------------------------------------------------------------------- */

static void fail(const char *what, long index, long long expected, long long got)
{
    if (failures++ < 10)
        fprintf(stderr, "FAIL rank %d: %s[%ld]: expected %lld, got %lld\n", rank, what, index,
                expected, got);
}

/* A pcoll call, made with the counters in "inside" mode. */
#define PCOLL(call)                                                                          \
    do {                                                                                     \
        int rc_;                                                                             \
        inside = 1;                                                                          \
        rc_ = (call);                                                                        \
        inside = 0;                                                                          \
        if (rc_ != PCOLL_SUCCESS) {                                                          \
            fprintf(stderr, "rank %d: %s: %s\n", rank, #call, pcoll_last_error());            \
            fail(#call, 0, PCOLL_SUCCESS, rc_);                                              \
        }                                                                                    \
    } while (0)

static int value(int from, int to, int k)
{
    return from * 1000 + to * 10 + k;
}

static void a2a_fill(int *send, int *recv, int n)
{
    int i, k;
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            send[i * n + k] = value(rank, i, k), recv[i * n + k] = -1;
}

static void a2a_check(const char *what, const int *recv, int n)
{
    int i, k;
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            if (recv[i * n + k] != value(i, rank, k))
                fail(what, i * n + k, value(i, rank, k), recv[i * n + k]);
}

/* Run plan to completion with a pcoll_test loop. */
static void test_loop(pcoll_plan_t *plan)
{
    int flag = 0;
    while (!flag && failures == 0)
        PCOLL(pcoll_test(plan, &flag));
}

/* ---- what pcoll runs ---------------------------------------------------------------- */

/* One-shot calls: plans built, cached, run (MPI_Start, MPI_Waitall). */
static void one_shot(void)
{
    int n = 2, i, *send = malloc(sizeof(int) * (size_t)(n * size));
    int *recv = malloc(sizeof(int) * (size_t)(n * size)), *counts = malloc(sizeof(int) * 4 *
                                                                           (size_t)size);
    int *sd = counts + size, *rc = counts + 2 * size, *rd = counts + 3 * size;
    a2a_fill(send, recv, n);
    PCOLL(pcoll_alltoall(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD));
    a2a_check("pcoll_alltoall", recv, n);
    for (i = 0; i < size; i++)
        counts[i] = rc[i] = n, sd[i] = rd[i] = i * n;
    a2a_fill(send, recv, n);
    PCOLL(pcoll_alltoallv(send, counts, sd, MPI_INT, recv, rc, rd, MPI_INT, MPI_COMM_WORLD));
    a2a_check("pcoll_alltoallv", recv, n);
    {
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)size);
        for (i = 0; i < size; i++)
            types[i] = MPI_INT, sd[i] = rd[i] = i * n * (int)sizeof(int);
        a2a_fill(send, recv, n);
        PCOLL(pcoll_alltoallw(send, counts, sd, types, recv, rc, rd, types, MPI_COMM_WORLD));
        a2a_check("pcoll_alltoallw", recv, n);
        free(types);
    }
    for (i = 0; i < n * size; i++)
        send[i] = rank + i;
    PCOLL(pcoll_reduce_scatter_block(send, recv, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < n; i++)
        if (recv[i] != size * (size - 1) / 2 + size * (rank * n + i))
            fail("pcoll_reduce_scatter_block", i, size * (size - 1) / 2 + size * (rank * n + i),
                 recv[i]);
    free(send), free(recv), free(counts);
}

/* A one-shot alltoall between the two halves of the world (pcoll's context
 * of an intercommunicator merges its groups: MPI_Intercomm_merge). */
static void intercomm(void)
{
    int low = rank < size / 2, remote, i, send[64], recv[64];
    MPI_Comm half, inter;
    if (size < 2 || size > 64)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 5, &inter);
    MPI_Comm_remote_size(inter, &remote);
    for (i = 0; i < remote; i++)
        send[i] = rank * 100 + i, recv[i] = -1;
    PCOLL(pcoll_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, inter));
    for (i = 0; i < remote; i++) {
        int from = (low ? size / 2 : 0) + i, me;
        MPI_Comm_rank(half, &me);
        if (recv[i] != from * 100 + me)
            fail("pcoll_alltoall on an intercommunicator", i, from * 100 + me, recv[i]);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* A persistent alltoall plan of algorithm (with PCOLL_HIER_BARRIER=mpi,
 * `hier` waits for MPI_Ibarrier with MPI_Test): a test loop, a wait, free. */
static void persistent_alltoall(const char *algorithm)
{
    int n = 3, run, *send = malloc(sizeof(int) * (size_t)(n * size));
    int *recv = malloc(sizeof(int) * (size_t)(n * size));
    pcoll_plan_t *plan = NULL;
    MPI_Info info;
    char what[64];
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", algorithm);
    MPI_Info_set(info, "pcoll_cores_per_node", "2");
    PCOLL(pcoll_alltoall_init(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD, info, &plan));
    MPI_Info_free(&info);
    snprintf(what, sizeof what, "alltoall %s", algorithm);
    for (run = 0; run < 2 && plan; run++) {
        a2a_fill(send, recv, n);
        PCOLL(pcoll_start(plan));
        if (run == 0)
            test_loop(plan);
        else
            PCOLL(pcoll_wait(plan));
        a2a_check(what, recv, n);
    }
    PCOLL(pcoll_plan_free(&plan));
    free(send), free(recv);
}

/* The in-place alltoallv (its own run loop: MPI_Testall). */
static void inplace_alltoallv(void)
{
    int n = 2, i, *buf = malloc(sizeof(int) * (size_t)(n * size));
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size;
    int *dummy = malloc(sizeof(int) * (size_t)(n * size));
    pcoll_plan_t *plan = NULL;
    for (i = 0; i < size; i++)
        counts[i] = n, displs[i] = i * n;
    a2a_fill(buf, dummy, n);
    PCOLL(pcoll_alltoallv_inplace_init(buf, counts, displs, counts, displs, MPI_INT,
                                       MPI_COMM_WORLD, MPI_INFO_NULL, &plan));
    if (plan) {
        PCOLL(pcoll_start(plan));
        test_loop(plan);
        a2a_check("alltoallv in place", buf, n);
    }
    PCOLL(pcoll_plan_free(&plan));
    free(buf), free(counts), free(dummy);
}

/* A persistent reduce-scatter with counts. */
static void persistent_reduce_scatter(void)
{
    int i, total = 0, *counts = malloc(sizeof(int) * (size_t)size), *send, recv[8];
    pcoll_plan_t *plan = NULL;
    for (i = 0; i < size; i++)
        total += counts[i] = 1 + i % 3;
    send = malloc(sizeof(int) * (size_t)total);
    for (i = 0; i < total; i++)
        send[i] = rank * 7 + i;
    PCOLL(pcoll_reduce_scatter_init(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                    MPI_INFO_NULL, &plan));
    if (plan) {
        int first = 0;
        for (i = 0; i < rank; i++)
            first += counts[i];
        PCOLL(pcoll_start(plan));
        test_loop(plan);
        for (i = 0; i < counts[rank]; i++)
            if (recv[i] != 7 * size * (size - 1) / 2 + size * (first + i))
                fail("pcoll_reduce_scatter_init", i, 7 * size * (size - 1) / 2 +
                     size * (first + i), recv[i]);
    }
    PCOLL(pcoll_plan_free(&plan));
    free(counts), free(send);
}

/* The program's own persistent point-to-point pair on MPI_COMM_SELF. */
static void own_requests(void)
{
    int out = 42, in = 0;
    MPI_Request reqs[2];
    MPI_Recv_init(&in, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &reqs[0]);
    MPI_Send_init(&out, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &reqs[1]);
    MPI_Start(&reqs[0]);
    MPI_Start(&reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Startall(2, reqs);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    if (in != 42)
        fail("own message", 0, 42, in);
}

/* The neighbourhood all-to-alls on a ring (not periodic at its ends): every
 * form with `native` (the MPI's blocking call one-shot, its started ones
 * persistent; not where the MPI's calls are known wrong, core/defects.h,
 * which refuses it) and `direct`, one-shot and persistent; each rank gets
 * its left neighbour's block below and its right one's above. */
static void neighbor(void)
{
    static const char *const algos[] = {"native", "direct"};
    int dims[1] = {size}, periods[1] = {0}, left, right, send[4], recv[4], f, a, k;
    int counts[2] = {2, 2}, displs[2] = {0, 2};
    MPI_Aint bytes[2] = {0, 2 * sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    pcoll_plan_t *plan = NULL;
    MPI_Comm ring;
    MPI_Info info;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    for (a = pcoll__mpi_defect(PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER); a < 2; a++)
        for (f = 0; f < 6; f++) {
            for (k = 0; k < 4; k++)
                send[k] = value(rank, k < 2 ? left : right, k % 2), recv[k] = -1;
            setenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", algos[a], 1);
            MPI_Info_create(&info);
            MPI_Info_set(info, "pcoll_algorithm", algos[a]);
            if (f == 0)
                PCOLL(pcoll_neighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, ring));
            else if (f == 1)
                PCOLL(pcoll_neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts,
                                               displs, MPI_INT, ring));
            else if (f == 2)
                PCOLL(pcoll_neighbor_alltoallw(send, counts, bytes, types, recv, counts, bytes,
                                               types, ring));
            else if (f == 3)
                PCOLL(pcoll_neighbor_alltoall_init(send, 2, MPI_INT, recv, 2, MPI_INT, ring,
                                                   info, &plan));
            else if (f == 4)
                PCOLL(pcoll_neighbor_alltoallv_init(send, counts, displs, MPI_INT, recv, counts,
                                                    displs, MPI_INT, ring, info, &plan));
            else
                PCOLL(pcoll_neighbor_alltoallw_init(send, counts, bytes, types, recv, counts,
                                                    bytes, types, ring, info, &plan));
            MPI_Info_free(&info);
            unsetenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM");
            if (plan) {
                PCOLL(pcoll_start(plan));
                test_loop(plan);
                PCOLL(pcoll_plan_free(&plan));
            }
            for (k = 0; k < 4; k++) {
                int from = k < 2 ? left : right;
                if (from != MPI_PROC_NULL && recv[k] != value(from, rank, k % 2))
                    fail("pcoll_neighbor_alltoall", k, value(from, rank, k % 2), recv[k]);
            }
        }
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    static const struct {
        int fn, calls;
    } own[] = {{START, 2},        {STARTALL, 1}, {WAIT, 2},
               {WAITALL, 1},      {REQUEST_FREE, 2},
               {COMM_DUP, 1},     {COMM_DUP_WITH_INFO, 1},
               {COMM_SPLIT, 1},   {COMM_SPLIT_TYPE, 1},
               {COMM_CREATE, 1},  {COMM_CREATE_GROUP, 1}};
    int i;
    MPI_Comm dup;
    MPI_Group world;
    /* The node barrier of `hier` by MPI_Ibarrier + MPI_Test (node_shm.c). */
    setenv("PCOLL_HIER_BARRIER", "mpi", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    own_requests();
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_create(MPI_COMM_WORLD, world, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &dup);
    MPI_Comm_free(&dup);
    MPI_Group_free(&world);
    one_shot();
    intercomm();
    persistent_alltoall("pairwise");
    persistent_alltoall("hier");
    inplace_alltoallv();
    persistent_reduce_scatter();
    neighbor();

    /* MPI_Finalize runs pcoll's attribute callbacks, which free its cached
     * plans (MPI_Request_free of their requests). */
    inside = 1;
    MPI_Finalize();
    inside = 0;

    for (i = 0; i < NFUNCS; i++)
        if (lib_calls[i] && failures++ < 10)
            fprintf(stderr, "FAIL rank %d: pcoll called %s %ld times (not PMPI_)\n", rank,
                    names[i], lib_calls[i]);
    for (i = 0; i < (int)(sizeof own / sizeof own[0]); i++)
        if (user_calls[own[i].fn] < own[i].calls)
            fail(names[own[i].fn], 1, own[i].calls, user_calls[own[i].fn]);
    if (failures)
        fprintf(stderr, "pmpi_traffic: rank %d FAILED (%d failures)\n", rank, failures);
    else if (rank == 0)
        printf("pmpi_traffic: passed (%d ranks; no MPI_ call from pcoll, %ld own calls "
               "counted)\n",
               size, user_calls[START] + user_calls[STARTALL] + user_calls[WAIT] +
                         user_calls[WAITALL] + user_calls[REQUEST_FREE]);
    return failures ? 1 : 0;
}
