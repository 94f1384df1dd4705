/*
 * MPI_Alltoallv through the drop-in where one rank's displacements span more
 * than INT_MAX items: rank 0 gives its own (empty) block the receive
 * displacement INT_MIN+1 and the send displacement INT_MAX-1, receives its
 * real blocks at displacements 1, 2, ... and sends them from below its send
 * pointer (negative displacements).  MPI
 * completes this; the drop-in must too, on every rank (before, rank 0 could
 * not rewrite its displacements and failed alone while the others waited
 * inside pcoll).  Blocking, non-blocking and persistent forms, three rounds
 * each with new input.
 */
#include <limits.h>

#include "check.h"

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_PERSISTENT 1
#endif

static int rank, size;

static int value(int from, int to, int round)
{
    return from * 1000 + to * 10 + round;
}

typedef struct layout {
    int *sc, *sd, *rc, *rd;
    int *send, *recv, *sbase, *rbase;
} layout;

/* One int to and from every peer; rank 0 as described above. */
static void layout_make(layout *l)
{
    int i;
    l->sc = malloc(sizeof(int) * 4 * (size_t)size);
    l->sd = l->sc + size, l->rc = l->sc + 2 * size, l->rd = l->sc + 3 * size;
    l->send = malloc(sizeof(int) * (size_t)size);
    l->recv = malloc(sizeof(int) * (size_t)(size + 1));
    /* Rank 0: block i at send[i] is sent from send + size, block i received
     * into recv[i + 1]. */
    l->sbase = rank == 0 ? l->send + size : l->send;
    l->rbase = l->recv;
    for (i = 0; i < size; i++) {
        l->sc[i] = l->rc[i] = 1;
        l->sd[i] = rank == 0 ? i - size : i;
        l->rd[i] = rank == 0 ? i + 1 : i;
    }
    if (rank == 0) {
        l->sc[0] = l->rc[0] = 0;
        l->rd[0] = INT_MIN + 1;
        l->sd[0] = INT_MAX - 1;
    }
}

static void layout_free(layout *l)
{
    free(l->sc);
    free(l->send);
    free(l->recv);
}

static void fill(layout *l, int round)
{
    for (int i = 0; i < size; i++)
        l->send[i] = value(rank, i, round);
    for (int i = 0; i <= size; i++)
        l->recv[i] = -1;
}

/* Rank 0's block from i at recv[i + 1] (its own block is empty). */
static void verify(const layout *l, int round, const char *what)
{
    for (int i = 0; i < size; i++) {
        int at = rank == 0 ? i + 1 : i;
        check_value(what, i, rank == 0 && i == 0 ? -1 : value(i, rank, round), l->recv[at]);
    }
}

int main(int argc, char **argv)
{
    layout l;
    MPI_Request req;
    int r, failed;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    layout_make(&l);
    for (r = 0; r < 3; r++) {
        fill(&l, r);
        CHECK_MPI(MPI_Alltoallv(l.sbase, l.sc, l.sd, MPI_INT, l.rbase, l.rc, l.rd, MPI_INT,
                                MPI_COMM_WORLD));
        verify(&l, r, "MPI_Alltoallv");
        fill(&l, r + 10);
        CHECK_MPI(MPI_Ialltoallv(l.sbase, l.sc, l.sd, MPI_INT, l.rbase, l.rc, l.rd, MPI_INT,
                                 MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        verify(&l, r + 10, "MPI_Ialltoallv");
    }
#ifdef HAVE_PERSISTENT
    CHECK_MPI(MPI_Alltoallv_init(l.sbase, l.sc, l.sd, MPI_INT, l.rbase, l.rc, l.rd, MPI_INT,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (r = 0; r < 3; r++) {
        fill(&l, r + 20);
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        verify(&l, r + 20, "MPI_Alltoallv_init");
    }
    CHECK_MPI(MPI_Request_free(&req));
#endif
    layout_free(&l);
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoallv MPI_Ialltoallv%s\n",
#ifdef HAVE_PERSISTENT
               " MPI_Alltoallv_init"
#else
               ""
#endif
        );
    failed = check_finish("dropin_span");
    MPI_Finalize();
    return failed;
}
