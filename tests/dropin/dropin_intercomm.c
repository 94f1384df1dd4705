/*
 * MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, the same of
 * MPI_Alltoallv and MPI_Alltoallw on an intercommunicator through the
 * drop-in, served by pcoll's `inter`: rank i of one group sends its block j
 * to rank j of the other group, whose blocks differ in size (group g sends
 * COUNT[g] ints per block and receives COUNT[1-g]; the v and w forms with
 * the same blocks, laid out with a gap of one int).  The groups are the world ranks with rank % 3 == 0 and the
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

/* The v and w forms' arrays: blocks of COUNT ints with a gap of one. */
typedef struct layout {
    int scounts[64], sdispls[64], rcounts[64], rdispls[64], sbytes[64], rbytes[64];
    MPI_Datatype types[64];
} layout_t;

static void make_layout(layout_t *l)
{
    for (int j = 0; j < remote; j++) {
        l->scounts[j] = COUNT[group], l->rcounts[j] = COUNT[1 - group];
        l->sdispls[j] = j * (COUNT[group] + 1), l->rdispls[j] = j * (COUNT[1 - group] + 1);
        l->sbytes[j] = l->sdispls[j] * (int)sizeof(int);
        l->rbytes[j] = l->rdispls[j] * (int)sizeof(int);
        l->types[j] = MPI_INT;
    }
}

/* Compact the gapped output to COUNT[1-group] ints per block for verify. */
static void compact(int *recv)
{
    int n = COUNT[1 - group];
    for (int i = 0; i < remote; i++)
        memmove(recv + i * n, recv + i * (n + 1), sizeof(int) * (size_t)n);
}

static void gapped(int *send, int *recv, int round)
{
    int n = COUNT[group];
    fill(send, recv, round);
    for (int n_out = 0; n_out < remote * (COUNT[1 - group] + 1); n_out++)
        recv[n_out] = -1;
    for (int j = remote - 1; j >= 0; j--)
        memmove(send + j * (n + 1), send + j * n, sizeof(int) * (size_t)n);
}

/* The v and w forms: blocking, non-blocking, persistent (three rounds). */
static void vw_forms(MPI_Comm inter, int *send, int *recv)
{
    layout_t l;
    MPI_Request req, pv, pw;
    make_layout(&l);
    CHECK_MPI(MPI_Alltoallv_init(send, l.scounts, l.sdispls, MPI_INT, recv, l.rcounts,
                                 l.rdispls, MPI_INT, inter, MPI_INFO_NULL, &pv));
    CHECK_MPI(MPI_Alltoallw_init(send, l.scounts, l.sbytes, l.types, recv, l.rcounts, l.rbytes,
                                 l.types, inter, MPI_INFO_NULL, &pw));
    for (int round = 0; round < ROUNDS; round++) {
        gapped(send, recv, round);
        CHECK_MPI(MPI_Alltoallv(send, l.scounts, l.sdispls, MPI_INT, recv, l.rcounts,
                                l.rdispls, MPI_INT, inter));
        compact(recv);
        verify(recv, round, "MPI_Alltoallv");
        gapped(send, recv, round);
        CHECK_MPI(MPI_Ialltoallv(send, l.scounts, l.sdispls, MPI_INT, recv, l.rcounts,
                                 l.rdispls, MPI_INT, inter, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        compact(recv);
        verify(recv, round, "MPI_Ialltoallv");
        gapped(send, recv, round);
        CHECK_MPI(MPI_Start(&pv));
        CHECK_MPI(MPI_Wait(&pv, MPI_STATUS_IGNORE));
        compact(recv);
        verify(recv, round, "MPI_Alltoallv_init");
        gapped(send, recv, round);
        CHECK_MPI(MPI_Alltoallw(send, l.scounts, l.sbytes, l.types, recv, l.rcounts, l.rbytes,
                                l.types, inter));
        compact(recv);
        verify(recv, round, "MPI_Alltoallw");
        gapped(send, recv, round);
        CHECK_MPI(MPI_Ialltoallw(send, l.scounts, l.sbytes, l.types, recv, l.rcounts, l.rbytes,
                                 l.types, inter, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        compact(recv);
        verify(recv, round, "MPI_Ialltoallw");
        gapped(send, recv, round);
        CHECK_MPI(MPI_Start(&pw));
        CHECK_MPI(MPI_Wait(&pw, MPI_STATUS_IGNORE));
        compact(recv);
        verify(recv, round, "MPI_Alltoallw_init");
    }
    CHECK_MPI(MPI_Request_free(&pv));
    CHECK_MPI(MPI_Request_free(&pw));
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter;
    MPI_Request req, persistent;
    int world, np;
    check_init(&argc, &argv, &world, &np);
    if (np < 2 || np > 96) {
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
    int *send = malloc(sizeof(int) * (size_t)remote * 4);
    int *recv = malloc(sizeof(int) * (size_t)remote * 4);
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
    vw_forms(inter, send, recv);
    free(send), free(recv);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (world == 0) {
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall MPI_Alltoall_init MPI_Alltoallv "
               "MPI_Ialltoallv MPI_Alltoallv_init MPI_Alltoallw MPI_Ialltoallw "
               "MPI_Alltoallw_init\n");
        printf("dropin-expect-algorithm: MPI_Alltoall=inter MPI_Ialltoall=inter "
               "MPI_Alltoall_init=inter MPI_Alltoallv=inter MPI_Ialltoallv=inter "
               "MPI_Alltoallv_init=inter MPI_Alltoallw=inter MPI_Ialltoallw=inter "
               "MPI_Alltoallw_init=inter\n");
    }
    int rc = check_finish("dropin_intercomm");
    MPI_Finalize();
    return rc;
}
