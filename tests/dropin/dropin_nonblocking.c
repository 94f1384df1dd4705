/*
 * The non-blocking collectives through the drop-in, completed by every MPI
 * completion call: MPI_Wait, MPI_Test loops, MPI_Waitall with statuses and
 * with MPI_STATUSES_IGNORE mixed with point-to-point requests, MPI_Testall
 * (which must complete nothing while one request is unfinished),
 * MPI_Waitany, MPI_Testany, MPI_Waitsome, MPI_Testsome,
 * MPI_Request_get_status; two collectives in flight completed in opposite
 * orders on even and odd ranks; the large-count forms where the MPI has
 * them.
 */
#include <sched.h>
#include <string.h>

#include "check.h"

static int rank, size;

#include "a2a.h"

static void a2a_start(a2a_t *a, MPI_Request *req)
{
    CHECK_MPI(MPI_Ialltoall(a->send, a->n, MPI_INT, a->recv, a->n, MPI_INT, MPI_COMM_WORLD,
                            req));
}

/* A ring exchange of one int: receive from the left, send to the right. */
static void ring_start(int *out, int *in, MPI_Request *reqs)
{
    *out = rank, *in = -1;
    CHECK_MPI(MPI_Irecv(in, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(out, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &reqs[1]));
}

static void wait_and_test(void)
{
    MPI_Request req;
    MPI_Status status;
    a2a_t a;
    int flag = 0, cancelled = 1;
    a2a_setup(&a, 3, 0);
    a2a_start(&a, &req);
    CHECK_MPI(MPI_Wait(&req, &status));
    check_true("MPI_Wait sets MPI_REQUEST_NULL", req == MPI_REQUEST_NULL);
    MPI_Test_cancelled(&status, &cancelled);
    check_true("not cancelled", !cancelled);
    a2a_check(&a, "ialltoall + wait");

    a2a_setup(&a, 2, 1);
    a2a_start(&a, &req);
    while (!flag) {
        CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            sched_yield();
    }
    check_true("MPI_Test sets MPI_REQUEST_NULL", req == MPI_REQUEST_NULL);
    a2a_check(&a, "ialltoall + test");
}

/* Alltoallv (counts (from + 2 to) % 4) completed with MPI_Request_get_status, then MPI_Wait. */
static void alltoallv_get_status(void)
{
    int i, k, *c = malloc(sizeof(int) * 4 * (size_t)size), *sd = c + size, *rc = c + 2 * size;
    int *rd = c + 3 * size, sat = 0, rat = 0, *send, *recv, flag = 0;
    MPI_Request req;
    for (i = 0; i < size; i++) {
        c[i] = (rank + 2 * i) % 4, sd[i] = sat, sat += c[i];
        rc[i] = (i + 2 * rank) % 4, rd[i] = rat, rat += rc[i];
    }
    send = malloc(sizeof(int) * (size_t)(sat + 1));
    recv = malloc(sizeof(int) * (size_t)(rat + 1));
    for (i = 0; i < size; i++)
        for (k = 0; k < c[i]; k++)
            send[sd[i] + k] = value(rank, i, k, 2);
    for (i = 0; i < rat; i++)
        recv[i] = -1;
    CHECK_MPI(MPI_Ialltoallv(send, c, sd, MPI_INT, recv, rc, rd, MPI_INT, MPI_COMM_WORLD, &req));
    while (!flag)
        CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
    check_true("MPI_Request_get_status keeps the request", req != MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (i = 0; i < size; i++)
        for (k = 0; k < rc[i]; k++)
            check_value("ialltoallv", rd[i] + k, value(i, rank, k, 2), recv[rd[i] + k]);
    free(c);
    free(send);
    free(recv);
}

/* Reduce-scatter (counts i % 3 + 1) of rank + element: started, ready to check. */
typedef struct rs {
    int *counts, *send, *recv, first;
} rs_t;

/* block: the block form's input, 2 elements per rank. */
static void rs_setup(rs_t *r, int block)
{
    int i, total = 0;
    r->counts = malloc(sizeof(int) * (size_t)size);
    r->first = 0;
    for (i = 0; i < size; i++) {
        r->counts[i] = block ? 2 : i % 3 + 1;
        r->first += i < rank ? r->counts[i] : 0;
        total += r->counts[i];
    }
    r->send = malloc(sizeof(int) * (size_t)total);
    r->recv = malloc(sizeof(int) * (size_t)total);
    for (i = 0; i < total; i++)
        r->send[i] = rank + i, r->recv[i] = -1;
}

static void rs_check(rs_t *r, const char *what)
{
    int i, n = r->counts[rank], first = r->first;
    for (i = 0; i < n; i++)
        check_value(what, i, (long long)size * (first + i) + size * (size - 1) / 2, r->recv[i]);
    free(r->counts);
    free(r->send);
    free(r->recv);
}

/* Waitall: a reduce-scatter and a ring exchange, with statuses and without. */
static void waitall_mixed(void)
{
    MPI_Request reqs[3];
    MPI_Status statuses[3];
    int out, in, ignore;
    for (ignore = 0; ignore < 2; ignore++) {
        rs_t r;
        rs_setup(&r, 0);
        ring_start(&out, &in, reqs);
        CHECK_MPI(MPI_Ireduce_scatter(r.send, r.recv, r.counts, MPI_INT, MPI_SUM,
                                      MPI_COMM_WORLD, &reqs[2]));
        CHECK_MPI(MPI_Waitall(3, reqs, ignore ? MPI_STATUSES_IGNORE : statuses));
        check_value("ring", 0, (rank + size - 1) % size, in);
        if (!ignore)
            check_value("ring status source", 0, (rank + size - 1) % size,
                        statuses[0].MPI_SOURCE);
        check_true("MPI_Waitall nulls", reqs[2] == MPI_REQUEST_NULL);
        rs_check(&r, "ireduce_scatter + waitall");
    }
}

/* Testall completes nothing until every request can complete: the ring
 * receive is posted only after the collective completed on the left
 * neighbour, so while the collective runs the array cannot complete. */
static void testall_all_or_nothing(void)
{
    MPI_Request reqs[2];
    a2a_t a;
    int flag = 0, in = -1, sent = 0, done;
    a2a_setup(&a, 1, 3);
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 6, MPI_COMM_WORLD, &reqs[0]));
    a2a_start(&a, &reqs[1]);
    for (;;) {
        CHECK_MPI(MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE));
        if (flag)
            break;
        check_true("Testall with flag 0 keeps the receive", reqs[0] != MPI_REQUEST_NULL);
        check_true("Testall with flag 0 keeps the collective",
                   sent || reqs[1] != MPI_REQUEST_NULL);
        done = 0;
        if (!sent)
            CHECK_MPI(MPI_Request_get_status(reqs[1], &done, MPI_STATUS_IGNORE));
        if (done) {
            CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 6, MPI_COMM_WORLD));
            sent = 1;
        }
        sched_yield();
    }
    if (!sent)
        CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, (rank + 1) % size, 6, MPI_COMM_WORLD));
    check_value("testall ring", 0, (rank + size - 1) % size, in);
    a2a_check(&a, "ialltoall + testall");
}

/* Two collectives in flight, completed in opposite orders on even and odd
 * ranks (each needs the other's progress). */
static void opposite_orders(void)
{
    MPI_Request reqs[2];
    a2a_t a, b;
    a2a_setup(&a, 2, 4);
    a2a_setup(&b, 5, 5);
    a2a_start(&a, &reqs[0]);
    a2a_start(&b, &reqs[1]);
    CHECK_MPI(MPI_Wait(&reqs[rank % 2], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&reqs[1 - rank % 2], MPI_STATUS_IGNORE));
    a2a_check(&a, "opposite orders a");
    a2a_check(&b, "opposite orders b");
}

/* Waitany, Testany, Waitsome or Testsome (some = 0..3) over two
 * collectives and a ring exchange. */
static void any_and_some(int some)
{
    MPI_Request reqs[4];
    MPI_Status statuses[4];
    int out, in, done = 0, index, flag, indices[4], outcount, k;
    a2a_t a;
    rs_t r;
    a2a_setup(&a, 2, 6);
    rs_setup(&r, 1);
    ring_start(&out, &in, reqs);
    a2a_start(&a, &reqs[2]);
    CHECK_MPI(MPI_Ireduce_scatter_block(r.send, r.recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        &reqs[3]));
    while (done < 4) {
        if (some == 0) {
            CHECK_MPI(MPI_Waitany(4, reqs, &index, MPI_STATUS_IGNORE));
            check_true("waitany index", index >= 0 && index < 4);
            done++;
        } else if (some == 1) {
            CHECK_MPI(MPI_Testany(4, reqs, &index, &flag, MPI_STATUS_IGNORE));
            done += flag && index != MPI_UNDEFINED;
            sched_yield();
        } else if (some == 2) {
            CHECK_MPI(MPI_Waitsome(4, reqs, &outcount, indices, statuses));
            check_true("waitsome outcount", outcount >= 1);
            done += outcount;
        } else {
            CHECK_MPI(MPI_Testsome(4, reqs, &outcount, indices, statuses));
            done += outcount;
            sched_yield();
        }
    }
    for (k = 0; k < 4; k++)
        check_true("all completed", reqs[k] == MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Waitany(4, reqs, &index, MPI_STATUS_IGNORE));
    check_true("waitany on nulls", index == MPI_UNDEFINED);
    check_value("any ring", 0, (rank + size - 1) % size, in);
    a2a_check(&a, "ialltoall + any/some");
    rs_check(&r, "ireduce_scatter_block + any/some");
}

#if MPI_VERSION >= 4
static void large_count_forms(void)
{
    MPI_Count *c = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Request reqs[4];
    int i, *send = malloc(sizeof(int) * 4 * (size_t)size), *r1 = send + size, *r2 = send + 2 * size;
    int *r3 = send + 3 * size, r4[2];
    for (i = 0; i < size; i++)
        send[i] = value(rank, i, 0, 8), c[i] = 1, d[i] = i, r1[i] = r2[i] = r3[i] = -1;
    CHECK_MPI(MPI_Ialltoall_c(send, 1, MPI_INT, r1, 1, MPI_INT, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Ialltoallv_c(send, c, d, MPI_INT, r2, c, d, MPI_INT, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Ireduce_scatter_c(send, r3, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Ireduce_scatter_block_c(send, r4, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                          &reqs[3]));
    CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    for (i = 0; i < size; i++) {
        check_value("ialltoall_c", i, value(i, rank, 0, 8), r1[i]);
        check_value("ialltoallv_c", i, value(i, rank, 0, 8), r2[i]);
    }
    {
        long long sum = 0;
        for (i = 0; i < size; i++)
            sum += value(i, rank, 0, 8);
        check_value("ireduce_scatter_c", 0, sum, r3[0]);
        check_value("ireduce_scatter_block_c", 0, sum, r4[0]);
    }
    free(c);
    free(d);
    free(send);
}
#endif

int main(int argc, char **argv)
{
    int rc, some;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    wait_and_test();
    alltoallv_get_status();
    waitall_mixed();
    testall_all_or_nothing();
    opposite_orders();
    for (some = 0; some < 4; some++)
        any_and_some(some);
#if MPI_VERSION >= 4
    large_count_forms();
#endif
    if (rank == 0)
        printf("dropin-expect: MPI_Ialltoall MPI_Ialltoallv MPI_Ireduce_scatter "
               "MPI_Ireduce_scatter_block\n");
    rc = check_finish("dropin_nonblocking");
    MPI_Finalize();
    return rc;
}
