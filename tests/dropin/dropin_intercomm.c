/*
 * MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, the same of
 * MPI_Alltoallv and MPI_Alltoallw on an intercommunicator through the
 * drop-in, served by pcoll's `inter`: rank i of one group sends its block j
 * to rank j of the other group, whose blocks differ in size (group g sends
 * COUNT[g] ints per block and receives COUNT[1-g]; the v and w forms with
 * the same blocks, laid out with a gap of one int).  Then
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block and their I and _init
 * forms, served by pcoll's `inter`: the sum of one group's vectors (5 ints
 * split unevenly in the counts form, remote ints per rank in the block
 * form: both groups' vectors have one length) scattered among the other
 * group's ranks, checked against closed forms; and the counts form with a
 * non-commutative user op (2x2 matrix products on 4-int elements) against
 * the MPI's own PMPI_Reduce_scatter.  The groups are the world ranks with
 * rank % 3 == 0 and the others; three rounds each with new input, on
 * poisoned buffers.  np 1 has no intercommunicator: it expects nothing.
 */
#include <string.h>

#include "check.h"
#include "../matmul.h"

enum { ROUNDS = 3 };

/* Persistent collectives: MPI-4, and Open MPI 5 (which says MPI 3.1); the
 * _init forms are left out (and not expected) without them. */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_PERSISTENT 1
#define INIT(name) " " name
#else
#define INIT(name) ""
#endif
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
    MPI_Request req;
    make_layout(&l);
#ifdef HAVE_PERSISTENT
    MPI_Request pv, pw;
    CHECK_MPI(MPI_Alltoallv_init(send, l.scounts, l.sdispls, MPI_INT, recv, l.rcounts,
                                 l.rdispls, MPI_INT, inter, MPI_INFO_NULL, &pv));
    CHECK_MPI(MPI_Alltoallw_init(send, l.scounts, l.sbytes, l.types, recv, l.rcounts, l.rbytes,
                                 l.types, inter, MPI_INFO_NULL, &pw));
#endif
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
#ifdef HAVE_PERSISTENT
        gapped(send, recv, round);
        CHECK_MPI(MPI_Start(&pv));
        CHECK_MPI(MPI_Wait(&pv, MPI_STATUS_IGNORE));
        compact(recv);
        verify(recv, round, "MPI_Alltoallv_init");
#endif
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
#ifdef HAVE_PERSISTENT
        gapped(send, recv, round);
        CHECK_MPI(MPI_Start(&pw));
        CHECK_MPI(MPI_Wait(&pw, MPI_STATUS_IGNORE));
        compact(recv);
        verify(recv, round, "MPI_Alltoallw_init");
#endif
    }
#ifdef HAVE_PERSISTENT
    CHECK_MPI(MPI_Request_free(&pv));
    CHECK_MPI(MPI_Request_free(&pw));
#endif
}

/* ---- reduce-scatter ------------------------------------------------------ */

enum { RS_LEN = 5 };

static int size; /* of this rank's group */

/* Int k of the vector of rank i of group g. */
static int rs_value(int g, int i, int k, int round)
{
    return (g * 5 + i * 13 + k * 7 + round * 3) % 89 + 1;
}

/* This group's counts of n elements: uneven, the last rank takes the rest
 * (zero blocks where n is small). */
static void rs_split(int n, int *counts)
{
    for (int j = 0; j < size; j++)
        counts[j] = j == size - 1 ? n - (size - 1) * (n / (size + 1)) : n / (size + 1);
}

static void rs_fill(int *send, int *recv, int n, int round)
{
    for (int k = 0; k < n; k++)
        send[k] = rs_value(group, rank, k, round), recv[k] = -1;
    recv[n] = -1;
}

/* The remote group's sum for this rank's block (first: its offset), and
 * nothing written past it. */
static void rs_verify(const int *recv, int first, int count, int round, const char *what)
{
    for (int e = 0; e < count; e++) {
        long long sum = 0;
        for (int i = 0; i < remote; i++)
            sum += rs_value(1 - group, i, first + e, round);
        check_value(what, e, sum, recv[e]);
    }
    check_value(what, count, -1, recv[count]);
}

/* Both forms, each blocking, non-blocking and persistent, three rounds. */
static void rs_forms(MPI_Comm inter, int *send, int *recv)
{
    int counts[96], first = 0, n = size * remote;
    MPI_Request req;
    rs_split(RS_LEN, counts);
    for (int j = 0; j < rank; j++)
        first += counts[j];
#ifdef HAVE_PERSISTENT
    MPI_Request pc, pb;
    CHECK_MPI(MPI_Reduce_scatter_init(send, recv, counts, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                                      &pc));
    CHECK_MPI(MPI_Reduce_scatter_block_init(send, recv, remote, MPI_INT, MPI_SUM, inter,
                                            MPI_INFO_NULL, &pb));
#endif
    for (int round = 0; round < ROUNDS; round++) {
        rs_fill(send, recv, RS_LEN, round);
        CHECK_MPI(MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, inter));
        rs_verify(recv, first, counts[rank], round, "MPI_Reduce_scatter");
        rs_fill(send, recv, RS_LEN, round);
        CHECK_MPI(MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, inter, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        rs_verify(recv, first, counts[rank], round, "MPI_Ireduce_scatter");
#ifdef HAVE_PERSISTENT
        rs_fill(send, recv, RS_LEN, round);
        CHECK_MPI(MPI_Start(&pc));
        CHECK_MPI(MPI_Wait(&pc, MPI_STATUS_IGNORE));
        rs_verify(recv, first, counts[rank], round, "MPI_Reduce_scatter_init");
#endif
        rs_fill(send, recv, n, round);
        CHECK_MPI(MPI_Reduce_scatter_block(send, recv, remote, MPI_INT, MPI_SUM, inter));
        rs_verify(recv, rank * remote, remote, round, "MPI_Reduce_scatter_block");
        rs_fill(send, recv, n, round);
        CHECK_MPI(MPI_Ireduce_scatter_block(send, recv, remote, MPI_INT, MPI_SUM, inter, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        rs_verify(recv, rank * remote, remote, round, "MPI_Ireduce_scatter_block");
#ifdef HAVE_PERSISTENT
        rs_fill(send, recv, n, round);
        CHECK_MPI(MPI_Start(&pb));
        CHECK_MPI(MPI_Wait(&pb, MPI_STATUS_IGNORE));
        rs_verify(recv, rank * remote, remote, round, "MPI_Reduce_scatter_block_init");
#endif
    }
#ifdef HAVE_PERSISTENT
    CHECK_MPI(MPI_Request_free(&pc));
    CHECK_MPI(MPI_Request_free(&pb));
#endif
}

/* The counts form with a non-commutative op (RS_LEN matrices), against the
 * MPI's own. */
static void rs_user_op(MPI_Comm inter, int *send, int *recv, int *want)
{
    MPI_Datatype four;
    MPI_Op op;
    int counts[96];
    rs_split(RS_LEN, counts);
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_commit(&four);
    MPI_Op_create(matmul, 0, &op);
    for (int round = 0; round < ROUNDS; round++) {
        rs_fill(send, recv, 4 * RS_LEN, round);
        for (int k = 0; k <= 4 * RS_LEN; k++)
            want[k] = -1;
        CHECK_MPI(MPI_Reduce_scatter(send, recv, counts, four, op, inter));
        CHECK_MPI(PMPI_Reduce_scatter(send, want, counts, four, op, inter));
        for (int k = 0; k <= 4 * RS_LEN; k++)
            check_value("MPI_Reduce_scatter (matrix product) against PMPI", k, want[k], recv[k]);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&four);
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter;
    MPI_Request req;
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
    MPI_Comm_size(inter, &size);
    /* Alltoall's blocks, or a reduce-scatter's vector (and a poisoned int). */
    size_t ints = (size_t)(size * remote + 4 * RS_LEN + remote * 4 + 1);
    int *send = malloc(sizeof(int) * ints);
    int *recv = malloc(sizeof(int) * ints);
    int *want = malloc(sizeof(int) * ints);
    int s = COUNT[group], r = COUNT[1 - group];
#ifdef HAVE_PERSISTENT
    MPI_Request persistent;
    CHECK_MPI(MPI_Alltoall_init(send, s, MPI_INT, recv, r, MPI_INT, inter, MPI_INFO_NULL,
                                &persistent));
#endif
    for (int round = 0; round < ROUNDS; round++) {
        fill(send, recv, round);
        CHECK_MPI(MPI_Alltoall(send, s, MPI_INT, recv, r, MPI_INT, inter));
        verify(recv, round, "MPI_Alltoall");
        fill(send, recv, round);
        CHECK_MPI(MPI_Ialltoall(send, s, MPI_INT, recv, r, MPI_INT, inter, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        verify(recv, round, "MPI_Ialltoall");
#ifdef HAVE_PERSISTENT
        fill(send, recv, round);
        CHECK_MPI(MPI_Start(&persistent));
        CHECK_MPI(MPI_Wait(&persistent, MPI_STATUS_IGNORE));
        verify(recv, round, "MPI_Alltoall_init");
#endif
    }
#ifdef HAVE_PERSISTENT
    CHECK_MPI(MPI_Request_free(&persistent));
#endif
    vw_forms(inter, send, recv);
    rs_forms(inter, send, recv);
    rs_user_op(inter, send, recv, want);
    free(send), free(recv), free(want);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (world == 0) {
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall" INIT("MPI_Alltoall_init")
               " MPI_Alltoallv MPI_Ialltoallv" INIT("MPI_Alltoallv_init")
               " MPI_Alltoallw MPI_Ialltoallw" INIT("MPI_Alltoallw_init")
               " MPI_Reduce_scatter MPI_Ireduce_scatter" INIT("MPI_Reduce_scatter_init")
               " MPI_Reduce_scatter_block MPI_Ireduce_scatter_block"
               INIT("MPI_Reduce_scatter_block_init") "\n");
        printf("dropin-expect-algorithm: MPI_Alltoall=inter MPI_Ialltoall=inter"
               INIT("MPI_Alltoall_init=inter") " MPI_Alltoallv=inter MPI_Ialltoallv=inter"
               INIT("MPI_Alltoallv_init=inter") " MPI_Alltoallw=inter MPI_Ialltoallw=inter"
               INIT("MPI_Alltoallw_init=inter")
               " MPI_Reduce_scatter=inter MPI_Ireduce_scatter=inter"
               INIT("MPI_Reduce_scatter_init=inter")
               " MPI_Reduce_scatter_block=inter MPI_Ireduce_scatter_block=inter"
               INIT("MPI_Reduce_scatter_block_init=inter") "\n");
    }
    int rc = check_finish("dropin_intercomm");
    MPI_Finalize();
    return rc;
}
