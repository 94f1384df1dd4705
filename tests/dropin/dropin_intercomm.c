/*
 * MPI_Alltoall, MPI_Ialltoall and MPI_Alltoall_init on an
 * intercommunicator through the drop-in, served by pcoll's `inter`: rank i
 * of one group sends its block j to rank j of the other group, whose blocks
 * differ in size (group g sends COUNT[g] ints per block and receives
 * COUNT[1-g]).  The groups are the world ranks with rank % 3 == 0 and the
 * others; three rounds each with new input, checked against closed forms
 * on poisoned buffers.  np 1 has no intercommunicator: it expects nothing.
 */
#include <string.h>

#include "check.h"

enum { ROUNDS = 3 };
static const int COUNT[2] = {2, 3};

static int group, rank, remote;

static int value(int g, int i, int j, int k, int round)
{
    return g * 100000 + i * 1000 + j * 10 + k + round * 1000000;
}

static void fill(int *send, int *recv, int round)
{
    for (int j = 0; j < remote; j++)
        for (int k = 0; k < COUNT[group]; k++)
            send[j * COUNT[group] + k] = value(group, rank, j, k, round);
    for (int n = 0; n < remote * COUNT[1 - group]; n++)
        recv[n] = -1;
}

static void verify(const int *recv, int round, const char *what)
{
    int n = COUNT[1 - group];
    for (int i = 0; i < remote; i++)
        for (int k = 0; k < n; k++)
            check_value(what, i * n + k, value(1 - group, i, rank, k, round), recv[i * n + k]);
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter;
    MPI_Request req, persistent;
    int world, np;
    check_init(&argc, &argv, &world, &np);
    if (np < 2) {
        if (world == 0)
            printf("dropin-expect:\n");
        MPI_Finalize();
        return 0;
    }
    group = world % 3 == 0;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, group, world, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, group ? 1 : 0, 7, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_remote_size(inter, &remote);
    int *send = malloc(sizeof(int) * (size_t)remote * 3);
    int *recv = malloc(sizeof(int) * (size_t)remote * 3);
    int s = COUNT[group], r = COUNT[1 - group];
    CHECK_MPI(MPI_Alltoall_init(send, s, MPI_INT, recv, r, MPI_INT, inter, MPI_INFO_NULL,
                                &persistent));
    for (int round = 0; round < ROUNDS; round++) {
        fill(send, recv, round);
        CHECK_MPI(MPI_Alltoall(send, s, MPI_INT, recv, r, MPI_INT, inter));
        verify(recv, round, "MPI_Alltoall");
        fill(send, recv, round);
        CHECK_MPI(MPI_Ialltoall(send, s, MPI_INT, recv, r, MPI_INT, inter, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        verify(recv, round, "MPI_Ialltoall");
        fill(send, recv, round);
        CHECK_MPI(MPI_Start(&persistent));
        CHECK_MPI(MPI_Wait(&persistent, MPI_STATUS_IGNORE));
        verify(recv, round, "MPI_Alltoall_init");
    }
    CHECK_MPI(MPI_Request_free(&persistent));
    free(send), free(recv);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (world == 0) {
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall MPI_Alltoall_init\n");
        printf("dropin-expect-algorithm: MPI_Alltoall=inter MPI_Ialltoall=inter "
               "MPI_Alltoall_init=inter\n");
    }
    int rc = check_finish("dropin_intercomm");
    MPI_Finalize();
    return rc;
}
