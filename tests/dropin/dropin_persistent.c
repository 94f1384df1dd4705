/*
 * The persistent collectives through the drop-in (MPI-4, and Open MPI 5):
 * MPI_Alltoall_init, MPI_Alltoallv_init, MPI_Reduce_scatter_init,
 * MPI_Reduce_scatter_block_init and their large-count forms, started three
 * times each with new input (MPI_Start, MPI_Startall), completed by
 * MPI_Wait, MPI_Test, MPI_Waitall (with point-to-point requests),
 * MPI_Waitany, MPI_Testsome; MPI_Wait on a request never started; in place;
 * freed by MPI_Request_free.  Without persistent collectives in the MPI the
 * program only says so.
 */
#include <sched.h>
#include <string.h>

#include "check.h"

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
static int rank, size;

static int value(int from, int to, int k, int round)
{
    return from * 1000 + to * 10 + k + round * 100000;
}

/* Alltoall of n ints per block: fill for round, poison the output. */
static void a2a_fill(int *send, int *recv, int n, int round)
{
    int i, k;
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            send[i * n + k] = value(rank, i, k, round), recv[i * n + k] = -1;
}

static void a2a_check(const int *recv, int n, int round, const char *what)
{
    int i, k;
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            check_value(what, i * n + k, value(i, rank, k, round), recv[i * n + k]);
}

/* Complete req by the method numbered round % 3: Wait, Test loop, Waitall. */
static void complete(MPI_Request *req, int round)
{
    MPI_Status status;
    int flag = 0, cancelled = 1;
    if (round % 3 == 0) {
        CHECK_MPI(MPI_Wait(req, &status));
    } else if (round % 3 == 1) {
        while (!flag) {
            CHECK_MPI(MPI_Test(req, &flag, &status));
            if (!flag)
                sched_yield();
        }
    } else {
        CHECK_MPI(MPI_Waitall(1, req, &status));
    }
    MPI_Test_cancelled(&status, &cancelled);
    check_true("not cancelled", !cancelled);
    check_true("persistent request kept", *req != MPI_REQUEST_NULL);
}

static void alltoall(int inplace)
{
    int n = 3, round, *send = malloc(sizeof(int) * (size_t)(n * size));
    int *recv = malloc(sizeof(int) * (size_t)(n * size));
    MPI_Request req;
    CHECK_MPI(MPI_Alltoall_init(inplace ? MPI_IN_PLACE : send, n, MPI_INT, recv, n, MPI_INT,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    /* Never started: completes at once, empty. */
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (round = 0; round < 3; round++) {
        a2a_fill(send, recv, n, round);
        if (inplace)
            memcpy(recv, send, sizeof(int) * (size_t)(n * size));
        CHECK_MPI(MPI_Start(&req));
        complete(&req, round);
        a2a_check(recv, n, round, inplace ? "alltoall_init in place" : "alltoall_init");
    }
    CHECK_MPI(MPI_Request_free(&req));
    check_true("MPI_Request_free nulls", req == MPI_REQUEST_NULL);
    free(send);
    free(recv);
}

/* Alltoallv (counts (from + 2 to) % 4) and a reduce-scatter (counts i % 3
 * + 1) started together with MPI_Startall, completed with MPI_Waitany. */
static void startall_waitany(void)
{
    int i, k, round, *c = malloc(sizeof(int) * 5 * (size_t)size), *sd = c + size;
    int *rc = c + 2 * size, *rd = c + 3 * size, *rsc = c + 4 * size, sat = 0, rat = 0, tot = 0;
    int first = 0, *send, *recv, *rs_in, *rs_out, index;
    MPI_Request reqs[2];
    for (i = 0; i < size; i++) {
        c[i] = (rank + 2 * i) % 4, sd[i] = sat, sat += c[i];
        rc[i] = (i + 2 * rank) % 4, rd[i] = rat, rat += rc[i];
        rsc[i] = i % 3 + 1, first += i < rank ? rsc[i] : 0, tot += rsc[i];
    }
    send = malloc(sizeof(int) * (size_t)(sat + 1));
    recv = malloc(sizeof(int) * (size_t)(rat + 1));
    rs_in = malloc(sizeof(int) * (size_t)tot);
    rs_out = malloc(sizeof(int) * (size_t)tot);
    CHECK_MPI(MPI_Alltoallv_init(send, c, sd, MPI_INT, recv, rc, rd, MPI_INT, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &reqs[0]));
    CHECK_MPI(MPI_Reduce_scatter_init(rs_in, rs_out, rsc, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &reqs[1]));
    for (round = 0; round < 3; round++) {
        for (i = 0; i < size; i++)
            for (k = 0; k < c[i]; k++)
                send[sd[i] + k] = value(rank, i, k, round);
        for (i = 0; i < rat; i++)
            recv[i] = -1;
        for (i = 0; i < tot; i++)
            rs_in[i] = rank + i + round, rs_out[i] = -1;
        CHECK_MPI(MPI_Startall(2, reqs));
        for (k = 0; k < 2; k++) {
            CHECK_MPI(MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE));
            check_true("waitany index", index == 0 || index == 1);
        }
        CHECK_MPI(MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE));
        check_true("waitany on inactive requests", index == MPI_UNDEFINED);
        for (i = 0; i < size; i++)
            for (k = 0; k < rc[i]; k++)
                check_value("alltoallv_init", rd[i] + k, value(i, rank, k, round),
                            recv[rd[i] + k]);
        for (i = 0; i < rsc[rank]; i++)
            check_value("reduce_scatter_init", i,
                        (long long)size * (first + i + round) + size * (size - 1) / 2,
                        rs_out[i]);
    }
    CHECK_MPI(MPI_Request_free(&reqs[0]));
    CHECK_MPI(MPI_Request_free(&reqs[1]));
    free(c), free(send), free(recv), free(rs_in), free(rs_out);
}

/* Reduce-scatter-block in place, completed with a ring exchange by
 * MPI_Testsome, then by MPI_Waitall with statuses. */
static void block_with_p2p(void)
{
    int n = 2, i, round, *buf = malloc(sizeof(int) * (size_t)(n * size)), out, in, done;
    int outcount, indices[3];
    MPI_Request reqs[3];
    MPI_Status statuses[3];
    CHECK_MPI(MPI_Reduce_scatter_block_init(MPI_IN_PLACE, buf, n, MPI_INT, MPI_SUM,
                                            MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
    for (round = 0; round < 2; round++) {
        for (i = 0; i < n * size; i++)
            buf[i] = rank + i + round;
        out = rank, in = -1;
        CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 4, MPI_COMM_WORLD,
                            &reqs[0]));
        CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 4, MPI_COMM_WORLD, &reqs[1]));
        CHECK_MPI(MPI_Start(&reqs[2]));
        if (round == 0) {
            for (done = 0; done < 3; done += outcount) {
                CHECK_MPI(MPI_Testsome(3, reqs, &outcount, indices, statuses));
                if (outcount == MPI_UNDEFINED)
                    break;
                sched_yield();
            }
            check_value("testsome completions", 0, 3, done);
        } else {
            CHECK_MPI(MPI_Waitall(3, reqs, statuses));
        }
        check_value("ring", 0, (rank + size - 1) % size, in);
        for (i = 0; i < n; i++)
            check_value("reduce_scatter_block_init in place", i,
                        (long long)size * (rank * n + i + round) + size * (size - 1) / 2,
                        buf[i]);
    }
    CHECK_MPI(MPI_Request_free(&reqs[2]));
    free(buf);
}

#if MPI_VERSION >= 4
static void large_count_forms(void)
{
    MPI_Count *c = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_Request reqs[4];
    int i, *send = malloc(sizeof(int) * 4 * (size_t)size), *r1 = send + size, *r2 = send + 2 * size;
    int *r3 = send + 3 * size, r4[2], round;
    long long sum;
    for (i = 0; i < size; i++)
        c[i] = 1, d[i] = i;
    CHECK_MPI(MPI_Alltoall_init_c(send, 1, MPI_INT, r1, 1, MPI_INT, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &reqs[0]));
    CHECK_MPI(MPI_Alltoallv_init_c(send, c, d, MPI_INT, r2, c, d, MPI_INT, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &reqs[1]));
    CHECK_MPI(MPI_Reduce_scatter_init_c(send, r3, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &reqs[2]));
    CHECK_MPI(MPI_Reduce_scatter_block_init_c(send, r4, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                              MPI_INFO_NULL, &reqs[3]));
    for (round = 0; round < 2; round++) {
        for (i = 0; i < size; i++)
            send[i] = value(rank, i, 0, round), r1[i] = r2[i] = r3[i] = -1;
        CHECK_MPI(MPI_Startall(4, reqs));
        CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
        for (i = 0, sum = 0; i < size; i++) {
            check_value("alltoall_init_c", i, value(i, rank, 0, round), r1[i]);
            check_value("alltoallv_init_c", i, value(i, rank, 0, round), r2[i]);
            sum += value(i, rank, 0, round);
        }
        check_value("reduce_scatter_init_c", 0, sum, r3[0]);
        check_value("reduce_scatter_block_init_c", 0, sum, r4[0]);
    }
    for (i = 0; i < 4; i++)
        CHECK_MPI(MPI_Request_free(&reqs[i]));
    free(c), free(d), free(send);
}
#endif

int main(int argc, char **argv)
{
    int rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    alltoall(0);
    alltoall(1);
    startall_waitany();
    block_with_p2p();
#if MPI_VERSION >= 4
    large_count_forms();
#endif
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoall_init MPI_Alltoallv_init MPI_Reduce_scatter_init "
               "MPI_Reduce_scatter_block_init\n");
    rc = check_finish("dropin_persistent");
    MPI_Finalize();
    return rc;
}
#else
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("dropin_persistent: this MPI has no persistent collectives; nothing to test\n");
    MPI_Finalize();
    return 0;
}
#endif
