/*
 * Node-aware plans on the drop-in's blocking and non-blocking paths: with
 * `hier` (alltoall, alltoallv) and node_direct (reduce_scatter_block) named in the
 * environment (set here, before MPI_Init, with every rank its own virtual
 * node), the blocking calls make the shape's plan together and the
 * non-blocking calls that follow run it (two in flight, completed in
 * opposite orders on even and odd ranks; a blocking call of the same shape
 * while one is still in flight); new buffers every call.  alltoallv's
 * counts change every call (zero for some pairs, the last rank sending
 * nothing in odd rounds), and one MPI_Ialltoallv has its derived send type
 * freed and its count arrays overwritten before it completes.  The log must show
 * those algorithms serving the non-blocking calls (dropin-expect-algorithm).
 */
/* setenv */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

#include "a2a.h"

static void alltoalls(void)
{
    a2a_t a, b, c;
    MPI_Request req[2];
    for (int round = 0; round < 2; round++) {
        a2a_setup(&a, 3, round);
        CHECK_MPI(MPI_Alltoall(a.send, 3, MPI_INT, a.recv, 3, MPI_INT, MPI_COMM_WORLD));
        a2a_check(&a, "blocking");
    }
    /* Two in flight, waited in opposite orders. */
    a2a_setup(&a, 3, 2);
    a2a_setup(&b, 3, 3);
    CHECK_MPI(MPI_Ialltoall(a.send, 3, MPI_INT, a.recv, 3, MPI_INT, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Ialltoall(b.send, 3, MPI_INT, b.recv, 3, MPI_INT, MPI_COMM_WORLD, &req[1]));
    CHECK_MPI(MPI_Wait(&req[rank % 2], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&req[1 - rank % 2], MPI_STATUS_IGNORE));
    a2a_check(&a, "first in flight");
    a2a_check(&b, "second in flight");
    /* A blocking call of the same shape while one is in flight. */
    a2a_setup(&a, 3, 4);
    a2a_setup(&c, 3, 5);
    CHECK_MPI(MPI_Ialltoall(a.send, 3, MPI_INT, a.recv, 3, MPI_INT, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Alltoall(c.send, 3, MPI_INT, c.recv, 3, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    a2a_check(&c, "blocking behind one in flight");
    a2a_check(&a, "in flight before a blocking call");
}

/* alltoallv: rank `from` sends (from + 2 to + round) % 4 ints to rank
 * `to` (zero for some pairs; the last rank sends nothing in odd rounds),
 * blocks packed in order; the counts change every round. */
typedef struct a2av {
    int round, *counts, *displs, *rcounts, *rdispls, *send, *recv;
} a2av_t;

static int vcount(int from, int to, int round)
{
    return round % 2 && from == size - 1 ? 0 : (from + 2 * to + round) % 4;
}

static void a2av_setup(a2av_t *a, int round)
{
    int i, k, s = 0, r = 0;
    a->round = round;
    a->counts = malloc(sizeof(int) * 4 * (size_t)size);
    a->displs = a->counts + size, a->rcounts = a->counts + 2 * size;
    a->rdispls = a->counts + 3 * size;
    for (i = 0; i < size; i++) {
        a->counts[i] = vcount(rank, i, round), a->displs[i] = s, s += a->counts[i];
        a->rcounts[i] = vcount(i, rank, round), a->rdispls[i] = r, r += a->rcounts[i];
    }
    a->send = malloc(sizeof(int) * (size_t)(s + 1));
    a->recv = malloc(sizeof(int) * (size_t)(r + 1));
    for (i = 0; i < size; i++)
        for (k = 0; k < a->counts[i]; k++)
            a->send[a->displs[i] + k] = value(rank, i, k, round);
    for (k = 0; k <= r; k++)
        a->recv[k] = -1;
}

static void a2av_check(a2av_t *a, const char *what)
{
    int i, k;
    for (i = 0; i < size; i++)
        for (k = 0; k < a->rcounts[i]; k++)
            check_value(what, a->rdispls[i] + k, value(i, rank, k, a->round),
                        a->recv[a->rdispls[i] + k]);
    check_value(what, -1, -1, a->recv[a->rdispls[size - 1] + a->rcounts[size - 1]]);
    free(a->counts);
    free(a->send);
    free(a->recv);
}

static int a2av_start(a2av_t *a, MPI_Request *req)
{
    if (!req)
        return MPI_Alltoallv(a->send, a->counts, a->displs, MPI_INT, a->recv, a->rcounts,
                             a->rdispls, MPI_INT, MPI_COMM_WORLD);
    return MPI_Ialltoallv(a->send, a->counts, a->displs, MPI_INT, a->recv, a->rcounts,
                          a->rdispls, MPI_INT, MPI_COMM_WORLD, req);
}

/* A non-blocking call whose send type (a derived one, on odd ranks) and
 * count arrays are freed before it completes. */
static void a2av_freed(int round)
{
    a2av_t a;
    MPI_Datatype one = MPI_INT;
    MPI_Request req;
    a2av_setup(&a, round);
    if (rank % 2) {
        CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &one));
        CHECK_MPI(MPI_Type_commit(&one));
    }
    CHECK_MPI(MPI_Ialltoallv(a.send, a.counts, a.displs, one, a.recv, a.rcounts, a.rdispls,
                             MPI_INT, MPI_COMM_WORLD, &req));
    if (rank % 2)
        CHECK_MPI(MPI_Type_free(&one));
    int *rcounts = malloc(sizeof(int) * 2 * (size_t)size);
    memcpy(rcounts, a.rcounts, sizeof(int) * 2 * (size_t)size);
    memset(a.counts, 0xff, sizeof(int) * 4 * (size_t)size);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    memcpy(a.rcounts, rcounts, sizeof(int) * 2 * (size_t)size);
    free(rcounts);
    a2av_check(&a, "alltoallv with its type and counts freed in flight");
}

/* As alltoalls, with new counts every call. */
static void alltoallvs(void)
{
    a2av_t a, b, c;
    MPI_Request req[2];
    for (int round = 0; round < 2; round++) {
        a2av_setup(&a, round);
        CHECK_MPI(a2av_start(&a, NULL));
        a2av_check(&a, "alltoallv blocking");
    }
    a2av_setup(&a, 2);
    a2av_setup(&b, 3);
    CHECK_MPI(a2av_start(&a, &req[0]));
    CHECK_MPI(a2av_start(&b, &req[1]));
    CHECK_MPI(MPI_Wait(&req[rank % 2], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&req[1 - rank % 2], MPI_STATUS_IGNORE));
    a2av_check(&a, "alltoallv first in flight");
    a2av_check(&b, "alltoallv second in flight");
    a2av_setup(&a, 4);
    a2av_setup(&c, 5);
    CHECK_MPI(a2av_start(&a, &req[0]));
    CHECK_MPI(a2av_start(&c, NULL));
    CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    a2av_check(&c, "alltoallv blocking behind one in flight");
    a2av_check(&a, "alltoallv in flight before a blocking call");
    a2av_freed(6);
}

/* Element i of rank r's vector is r + i + round; sums over the ranks. */
static void reduce_scatters(void)
{
    int n = 2, total = 2 * size;
    for (int round = 0; round < 4; round++) {
        int *in = malloc(sizeof(int) * (size_t)total), out[2] = {-1, -1};
        MPI_Request req;
        for (int i = 0; i < total; i++)
            in[i] = rank + i + round;
        if (round < 2) {
            CHECK_MPI(MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Ireduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        for (int k = 0; k < n; k++)
            check_value("reduce_scatter_block", k,
                        size * (rank * n + k + round) + size * (size - 1) / 2, out[k]);
        free(in);
    }
}

int main(int argc, char **argv)
{
    int failed;
    setenv("PCOLL_ALLTOALL_ALGORITHM", "hier", 1);
    setenv("PCOLL_ALLTOALLV_ALGORITHM", "hier", 1);
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", "node_direct", 1);
    setenv("PCOLL_CORES_PER_NODE", "1", 1);
    check_init(&argc, &argv, &rank, &size);
    alltoalls();
    alltoallvs();
    reduce_scatters();
    if (rank == 0) {
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall MPI_Alltoallv MPI_Ialltoallv "
               "MPI_Reduce_scatter_block MPI_Ireduce_scatter_block\n");
        printf("dropin-expect-algorithm: MPI_Ialltoall=hier MPI_Alltoallv=hier "
               "MPI_Ialltoallv=hier MPI_Ireduce_scatter_block=node_direct\n");
        fflush(stdout);
    }
    failed = check_finish("dropin_shapes");
    MPI_Finalize();
    return failed;
}
