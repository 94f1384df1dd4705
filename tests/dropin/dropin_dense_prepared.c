/*
 * A program whose all-to-alls are all non-blocking gets the node-aware plan
 * from its first call: the drop-in prepares the alltoallv shape of
 * MPI_COMM_WORLD in MPI_Init and of every communicator made after it
 * (MPI_Comm_dup, _dup_with_info, _split, _split_type, _create,
 * _create_group, MPI_Intercomm_merge), up to 8 a process, and
 * MPI_Ialltoallv and MPI_Ialltoall lease the plan kept there.
 * PCOLL_ALLTOALLV_ALGORITHM=hier, set before MPI_Init, makes that plan
 * `hier` on every MPI; unprepared, pcoll refuses a non-blocking call of
 * `hier` (it plans collectively) and the MPI serves it.  So the log must
 * show `hier` serving every MPI_Ialltoallv but one: the one on the 9th
 * communicator of the process, which the MPI serves; MPI_Ialltoall leases
 * it too, but in place (a shape not prepared) and under
 * PCOLL_ALLTOALL_ALGORITHM=pairwise (an algorithm named: `pairwise`).  The calls, several in
 * flight on different communicators, blocks of different sizes between each pair of ranks, are
 * checked against closed forms in poisoned buffers.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>

#include "check.h"

#define NCOMMS 7   /* the prepared communicators the calls run on */
#define PREPARED 8 /* communicators a process prepares at most */
#define MAXP 64
#define MAXN 3 /* ints a block at most */

static int wrank, wsize;

typedef struct exch {
    MPI_Comm comm;
    int p, me, tag;
    int send[MAXP * MAXN], recv[MAXP * MAXN];
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
    MPI_Request req;
} exch_t;

static exch_t ex[NCOMMS + 1];

/* Ints rank i sends rank j: 1 to MAXN, different both ways. */
static int len(int i, int j)
{
    return 1 + (2 * i + j) % MAXN;
}

static int value(int from, int to, int k, int tag)
{
    return tag * 1000000 + from * 10000 + to * 100 + k;
}

/* Start MPI_Ialltoallv (uniform: MPI_Ialltoall of MAXN ints; 2: in place)
 * on x. */
static void start(exch_t *x, int tag, int uniform)
{
    int j, k, at = 0;
    x->tag = tag;
    MPI_Comm_size(x->comm, &x->p);
    MPI_Comm_rank(x->comm, &x->me);
    for (j = 0; j < x->p; j++) {
        x->sc[j] = uniform ? MAXN : len(x->me, j);
        x->sd[j] = at;
        for (k = 0; k < x->sc[j]; k++)
            x->send[at + k] = value(x->me, j, k, tag);
        at += x->sc[j];
    }
    /* Received blocks from the last rank down (MPI_Ialltoall's in order). */
    for (j = x->p - 1, at = 0; j >= 0; j--) {
        x->rc[j] = uniform ? MAXN : len(j, x->me);
        x->rd[j] = uniform ? j * MAXN : at;
        at += x->rc[j];
    }
    for (k = 0; k < MAXP * MAXN; k++)
        x->recv[k] = uniform == 2 && k < x->p * MAXN ? x->send[k] : -7;
    if (uniform == 2)
        CHECK_MPI(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->recv, MAXN, MPI_INT,
                                x->comm, &x->req));
    else if (uniform)
        CHECK_MPI(
            MPI_Ialltoall(x->send, MAXN, MPI_INT, x->recv, MAXN, MPI_INT, x->comm, &x->req));
    else
        CHECK_MPI(MPI_Ialltoallv(x->send, x->sc, x->sd, MPI_INT, x->recv, x->rc, x->rd, MPI_INT,
                                 x->comm, &x->req));
}

static void verify(const exch_t *x, int uniform)
{
    int j, k;
    for (j = 0; j < x->p; j++)
        for (k = 0; k < x->rc[j]; k++)
            check_value(uniform ? "MPI_Ialltoall" : "MPI_Ialltoallv", x->rd[j] + k,
                        value(j, x->me, k, x->tag), x->recv[x->rd[j] + k]);
}

/* One call on each of n exchanges, all in flight, then completed. */
static void round_of(int n, int tag, int uniform)
{
    MPI_Request reqs[NCOMMS + 1];
    int i;
    for (i = 0; i < n; i++)
        start(&ex[i], tag + i, uniform);
    for (i = 0; i < n; i++)
        reqs[i] = ex[i].req;
    CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
    for (i = 0; i < n; i++)
        verify(&ex[i], uniform);
}

int main(int argc, char **argv)
{
    MPI_Comm half, inter;
    MPI_Group world, rev;
    int ranks[MAXP], i, n = 0, low;
    setenv("PCOLL_ALLTOALLV_ALGORITHM", "hier", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (wrank == 0)
        printf("dropin-expect: MPI_Ialltoallv MPI_Ialltoall\n"
               "dropin-expect-some: MPI_Ialltoall=hier MPI_Ialltoall=pairwise\n"
               "dropin-expect-fell: MPI_Ialltoallv=hier:1\n"
               "dropin-expect-refused: UNSUPPORTED\n");
    /* The communicators the process makes, in order: the first PREPARED
     * (the world, six of ex, half) prepared, the last (ex[NCOMMS]) not. */
    ex[n++].comm = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ex[n++].comm));
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &ex[n++].comm));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &ex[n++].comm));
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wsize - wrank,
                                  MPI_INFO_NULL, &ex[n++].comm));
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (i = 0; i < wsize; i++)
        ranks[i] = wsize - 1 - i;
    MPI_Group_incl(world, wsize, ranks, &rev);
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, rev, &ex[n++].comm));
    /* The halves, joined again, the high half first. */
    low = wrank < (wsize + 1) / 2;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &half));
    if (wsize > 1) {
        CHECK_MPI(
            MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? (wsize + 1) / 2 : 0, 9, &inter));
        CHECK_MPI(MPI_Intercomm_merge(inter, low, &ex[n++].comm));
        MPI_Comm_free(&inter);
    } else {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ex[n++].comm));
    }
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world, 3, &ex[n].comm));

    round_of(NCOMMS, 1, 0);
    round_of(NCOMMS, 20, 0);
    round_of(2, 40, 1);
    /* Not leased: in place (that shape is not prepared), and an alltoall
     * algorithm named (pairwise, which plans alone). */
    round_of(2, 45, 2);
    setenv("PCOLL_ALLTOALL_ALGORITHM", "pairwise", 1);
    round_of(2, 50, 1);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    /* The unprepared communicator: the MPI's own call. */
    start(&ex[NCOMMS], 60, 0);
    CHECK_MPI(MPI_Wait(&ex[NCOMMS].req, MPI_STATUS_IGNORE));
    verify(&ex[NCOMMS], 0);

    for (i = 1; i <= NCOMMS; i++)
        MPI_Comm_free(&ex[i].comm);
    MPI_Comm_free(&half);
    MPI_Group_free(&rev);
    MPI_Group_free(&world);
    i = check_finish("dropin_dense_prepared");
    MPI_Finalize();
    return i;
}
