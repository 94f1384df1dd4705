/*
 * MPI_Neighbor_alltoall, _alltoallv and _alltoallw -- blocking,
 * non-blocking (MPI_Ineighbor_*), persistent (MPI_Neighbor_*_init, started
 * twice with new input) and large-count (MPI-4) -- through the drop-in,
 * each compared int for int with the MPI's own blocking call
 * (PMPI_Neighbor_*, which the drop-in does not wrap) on buffers poisoned
 * alike: blocks, gaps and the untouched blocks of MPI_PROC_NULL neighbours.
 * Topologies: a 2-D Cartesian grid periodic in one dimension only (a
 * periodic dimension of 1 or 2 ranks at np <= 2), and a distributed graph
 * with a repeated edge and a self edge; then all of it again with `node`
 * named on virtual nodes of two ranks (one-shot calls by the plan their
 * shape keeps, non-blocking ones by leases on it).  The receive side takes one int every
 * two (a resized type), the send side plain ints.  Skipped on MPICH before 5,
 * whose own neighbourhood calls (the reference, and the exchange of the
 * counts) match a repeated neighbour's messages in the wrong order
 * (docs/troubleshooting.md, mpich-neighbor-order).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "neighbor.h"

#define MAXE NBR_MAXE
#define LEN 128

static int rank;
static MPI_Datatype rvec; /* one int every two */

typedef struct nb {
    nbr_layout_t l;
    int send[LEN], recv[LEN], ref[LEN];
} nb_t;

/* The layout of neighbor.h, out-edge 0 extra ints more. */
static void layout(nb_t *t, int extra)
{
    nbr_layout(&t->l, rank, extra, rvec);
}

static void refill(nb_t *t, int run)
{
    int i;
    for (i = 0; i < LEN; i++)
        t->send[i] = run * 100000 + rank * 1000 + i;
    memset(t->recv, 0xA5, sizeof t->recv);
    memset(t->ref, 0xA5, sizeof t->ref);
}

/* The MPI's own result of form f (0 alltoall, 1 v, 2 w) into t->ref. */
static void reference(nb_t *t, int f)
{
    if (f == 0)
        CHECK_MPI(PMPI_Neighbor_alltoall(t->send, 2, MPI_INT, t->ref, 2, rvec, t->l.comm));
    else if (f == 1)
        CHECK_MPI(PMPI_Neighbor_alltoallv(t->send, t->l.scounts, t->l.sdispls, MPI_INT, t->ref,
                                          t->l.rcounts, t->l.rdispls, rvec, t->l.comm));
    else
        CHECK_MPI(PMPI_Neighbor_alltoallw(t->send, t->l.scounts, t->l.sbytes, t->l.stypes,
                                          t->ref, t->l.rcounts, t->l.rbytes, t->l.rtypes,
                                          t->l.comm));
}

static void compare(const nb_t *t, const char *what)
{
    int i;
    for (i = 0; i < LEN; i++)
        check_value(what, i, t->ref[i], t->recv[i]);
}

static int blocking(nb_t *t, int f)
{
    if (f == 0)
        return MPI_Neighbor_alltoall(t->send, 2, MPI_INT, t->recv, 2, rvec, t->l.comm);
    if (f == 1)
        return MPI_Neighbor_alltoallv(t->send, t->l.scounts, t->l.sdispls, MPI_INT, t->recv,
                                      t->l.rcounts, t->l.rdispls, rvec, t->l.comm);
    return MPI_Neighbor_alltoallw(t->send, t->l.scounts, t->l.sbytes, t->l.stypes, t->recv,
                                  t->l.rcounts, t->l.rbytes, t->l.rtypes, t->l.comm);
}

static int nonblocking(nb_t *t, int f, MPI_Request *req)
{
    if (f == 0)
        return MPI_Ineighbor_alltoall(t->send, 2, MPI_INT, t->recv, 2, rvec, t->l.comm, req);
    if (f == 1)
        return MPI_Ineighbor_alltoallv(t->send, t->l.scounts, t->l.sdispls, MPI_INT, t->recv,
                                       t->l.rcounts, t->l.rdispls, rvec, t->l.comm, req);
    return MPI_Ineighbor_alltoallw(t->send, t->l.scounts, t->l.sbytes, t->l.stypes, t->recv,
                                   t->l.rcounts, t->l.rbytes, t->l.rtypes, t->l.comm, req);
}

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
static int persistent(nb_t *t, int f, MPI_Request *req)
{
    if (f == 0)
        return MPI_Neighbor_alltoall_init(t->send, 2, MPI_INT, t->recv, 2, rvec, t->l.comm,
                                          MPI_INFO_NULL, req);
    if (f == 1)
        return MPI_Neighbor_alltoallv_init(t->send, t->l.scounts, t->l.sdispls, MPI_INT, t->recv,
                                           t->l.rcounts, t->l.rdispls, rvec, t->l.comm,
                                           MPI_INFO_NULL, req);
    return MPI_Neighbor_alltoallw_init(t->send, t->l.scounts, t->l.sbytes, t->l.stypes, t->recv,
                                       t->l.rcounts, t->l.rbytes, t->l.rtypes, t->l.comm,
                                       MPI_INFO_NULL, req);
}
#endif

#if MPI_VERSION >= 4
/* The large-count blocking and persistent calls of form f. */
static int large(nb_t *t, int f, MPI_Request *req)
{
    MPI_Count sc[MAXE], rc[MAXE];
    MPI_Aint sd[MAXE], rd[MAXE];
    int e;
    for (e = 0; e < t->l.out; e++)
        sc[e] = t->l.scounts[e], sd[e] = f == 2 ? t->l.sbytes[e] : t->l.sdispls[e];
    for (e = 0; e < t->l.in; e++)
        rc[e] = t->l.rcounts[e], rd[e] = f == 2 ? t->l.rbytes[e] : t->l.rdispls[e];
    if (f == 0)
        return req ? MPI_Neighbor_alltoall_init_c(t->send, 2, MPI_INT, t->recv, 2, rvec,
                                                  t->l.comm, MPI_INFO_NULL, req)
                   : MPI_Neighbor_alltoall_c(t->send, 2, MPI_INT, t->recv, 2, rvec, t->l.comm);
    if (f == 1)
        return req ? MPI_Neighbor_alltoallv_init_c(t->send, sc, sd, MPI_INT, t->recv, rc, rd,
                                                   rvec, t->l.comm, MPI_INFO_NULL, req)
                   : MPI_Neighbor_alltoallv_c(t->send, sc, sd, MPI_INT, t->recv, rc, rd, rvec,
                                              t->l.comm);
    return req ? MPI_Neighbor_alltoallw_init_c(t->send, sc, sd, t->l.stypes, t->recv, rc, rd,
                                               t->l.rtypes, t->l.comm, MPI_INFO_NULL, req)
               : MPI_Neighbor_alltoallw_c(t->send, sc, sd, t->l.stypes, t->recv, rc, rd,
                                          t->l.rtypes, t->l.comm);
}
#endif

static void forms(nb_t *t)
{
    MPI_Request req;
    int f, run;
    for (f = 0; f < 3; f++) {
        /* Blocking, twice: the second from pcoll's plan cache. */
        for (run = 0; run < 2; run++) {
            refill(t, run);
            reference(t, f);
            CHECK_MPI(blocking(t, f));
            compare(t, t->l.name);
        }
        refill(t, 2);
        reference(t, f);
        CHECK_MPI(nonblocking(t, f, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        compare(t, t->l.name);
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
        CHECK_MPI(persistent(t, f, &req));
        for (run = 3; run < 5; run++) {
            refill(t, run);
            reference(t, f);
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            compare(t, t->l.name);
        }
        CHECK_MPI(MPI_Request_free(&req));
#endif
#if MPI_VERSION >= 4
        refill(t, 5);
        reference(t, f);
        CHECK_MPI(large(t, f, NULL));
        compare(t, t->l.name);
        CHECK_MPI(large(t, f, &req));
        refill(t, 6);
        reference(t, f);
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        compare(t, t->l.name);
        CHECK_MPI(MPI_Request_free(&req));
#endif
    }
}

/* One alltoallv call of t with new input (run), blocking or not (nb),
 * against the MPI's. */
static void call_v(nb_t *t, int run, int nb, const char *what)
{
    MPI_Request req;
    refill(t, run);
    reference(t, 1);
    if (nb) {
        CHECK_MPI(nonblocking(t, 1, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(blocking(t, 1));
    }
    compare(t, what);
}

/* Three equal blocking calls (the third a repeat of the arguments its
 * shape's record keeps), a non-blocking call of other counts and buffers
 * (its lease binds the kept plan to them), the blocking call again: a
 * repeat that must bind its own arguments again. */
static void kept_repeats(nb_t *t)
{
    nb_t *u = malloc(sizeof *u);
    int run;
    if (!u)
        return;
    for (run = 10; run < 13; run++)
        call_v(t, run, 0, "kept, blocking, equal calls");
    *u = *t;
    layout(u, 2);
    call_v(u, 13, 1, "kept, non-blocking between repeats");
    call_v(t, 14, 0, "kept, a repeat after another call's run");
    free(u);
}

/* `node` named on virtual nodes of two ranks: the blocking calls run the
 * plan their shape keeps, the non-blocking ones a lease on it, also with
 * counts other than the deciding call's (those blocks travel alone). */
static void kept(nb_t *t)
{
    setenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", "node", 1);
    setenv("PCOLL_CORES_PER_NODE", "2", 1);
    forms(t);
    layout(t, 2);
    call_v(t, 7, 1, "kept, non-blocking, other counts");
    call_v(t, 8, 0, "kept, blocking, other counts");
    layout(t, 0);
    kept_repeats(t);
    unsetenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM");
    unsetenv("PCOLL_CORES_PER_NODE");
}

int main(int argc, char **argv)
{
    int size, dims[2] = {0, 0}, periods[2] = {1, 0}, rc;
    nb_t t;
    if (nbr_old_mpich())
        return check_skipped(&argc, &argv, "dropin_neighbor",
                             "MPICH before 5: its own neighbourhood calls, the reference, are "
                             "wrong on repeated neighbours");
    check_init(&argc, &argv, &rank, &size);
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &rvec);
    MPI_Type_commit(&rvec);

    memset(&t, 0, sizeof t);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t.l.comm);
    MPI_Comm_set_errhandler(t.l.comm, MPI_ERRORS_RETURN);
    t.l.name = "cart2d";
    layout(&t, 0);
    forms(&t);
    kept(&t);
    MPI_Comm_free(&t.l.comm);

    {
        int r = rank, p = size;
        int sources[3] = {(r - 1 + p) % p, r, (r - 1 + p) % p};
        int dests[3] = {(r + 1) % p, (r + 1) % p, r}, w[3] = {1, 1, 1};
        memset(&t, 0, sizeof t);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, sources, w, 3, dests, w, MPI_INFO_NULL,
                                       0, &t.l.comm);
        MPI_Comm_set_errhandler(t.l.comm, MPI_ERRORS_RETURN);
        t.l.name = "dist-graph";
        layout(&t, 0);
        forms(&t);
        kept(&t);
        MPI_Comm_free(&t.l.comm);
    }

    if (rank == 0) {
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
        printf("dropin-expect: MPI_Neighbor_alltoall MPI_Ineighbor_alltoall "
               "MPI_Neighbor_alltoall_init MPI_Neighbor_alltoallv MPI_Ineighbor_alltoallv "
               "MPI_Neighbor_alltoallv_init MPI_Neighbor_alltoallw MPI_Ineighbor_alltoallw "
               "MPI_Neighbor_alltoallw_init\n");
#else
        printf("dropin-expect: MPI_Neighbor_alltoall MPI_Ineighbor_alltoall "
               "MPI_Neighbor_alltoallv MPI_Ineighbor_alltoallv MPI_Neighbor_alltoallw "
               "MPI_Ineighbor_alltoallw\n");
#endif
    }
    MPI_Type_free(&rvec);
    rc = check_finish("dropin_neighbor");
    MPI_Finalize();
    return rc;
}
