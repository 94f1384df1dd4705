/*
 * Node-aware plans on the drop-in's blocking and non-blocking paths: with
 * `hier` (alltoall) and node_direct (reduce_scatter_block) named in the
 * environment (set here, before MPI_Init, with every rank its own virtual
 * node), the blocking calls make the shape's plan together and the
 * non-blocking calls that follow run it (two in flight, completed in
 * opposite orders on even and odd ranks; a blocking call of the same shape
 * while one is still in flight); new buffers every call.  The log must show
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
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", "node_direct", 1);
    setenv("PCOLL_CORES_PER_NODE", "1", 1);
    check_init(&argc, &argv, &rank, &size);
    alltoalls();
    reduce_scatters();
    if (rank == 0) {
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall MPI_Reduce_scatter_block "
               "MPI_Ireduce_scatter_block\n");
        printf("dropin-expect-algorithm: MPI_Ialltoall=hier "
               "MPI_Ireduce_scatter_block=node_direct\n");
        fflush(stdout);
    }
    failed = check_finish("dropin_shapes");
    MPI_Finalize();
    return failed;
}
