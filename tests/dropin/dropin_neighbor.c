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

#include "check.h"

#define MAXE 8
#define LEN 128

static int rank;
static MPI_Datatype rvec; /* one int every two */

typedef struct nb {
    MPI_Comm comm;
    const char *name;
    int in, out;
    int scounts[MAXE], sdispls[MAXE], rcounts[MAXE], rdispls[MAXE];
    MPI_Aint sbytes[MAXE], rbytes[MAXE];
    MPI_Datatype stypes[MAXE], rtypes[MAXE];
    int send[LEN], recv[LEN], ref[LEN];
} nb_t;

static void degrees(nb_t *t)
{
    int topo, n, w;
    MPI_Topo_test(t->comm, &topo);
    if (topo == MPI_CART) {
        MPI_Cartdim_get(t->comm, &n);
        t->in = t->out = 2 * n;
    } else {
        MPI_Dist_graph_neighbors_count(t->comm, &t->in, &t->out, &w);
    }
}

/* Counts per edge (receive ones from the MPI's own exchange; out-edge 0
 * extra items more), blocks in reverse edge order with gaps; byte
 * displacements for alltoallw. */
static void layout(nb_t *t, int extra)
{
    int e, off = 1;
    degrees(t);
    for (e = 0; e < t->out; e++)
        t->scounts[e] = 1 + (rank + 2 * e) % 3 + (e == 0 ? extra : 0);
    for (e = 0; e < t->in; e++)
        t->rcounts[e] = 1;
    PMPI_Neighbor_alltoall(t->scounts, 1, MPI_INT, t->rcounts, 1, MPI_INT, t->comm);
    for (e = t->out - 1; e >= 0; e--) {
        t->sdispls[e] = off, t->sbytes[e] = off * (MPI_Aint)sizeof(int);
        t->stypes[e] = MPI_INT;
        off += t->scounts[e] + 1;
    }
    off = 2;
    for (e = t->in - 1; e >= 0; e--) {
        t->rdispls[e] = off / 2, t->rbytes[e] = off * (MPI_Aint)sizeof(int);
        t->rtypes[e] = rvec;
        off += 2 * t->rcounts[e] + 2;
    }
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
        CHECK_MPI(PMPI_Neighbor_alltoall(t->send, 2, MPI_INT, t->ref, 2, rvec, t->comm));
    else if (f == 1)
        CHECK_MPI(PMPI_Neighbor_alltoallv(t->send, t->scounts, t->sdispls, MPI_INT, t->ref,
                                          t->rcounts, t->rdispls, rvec, t->comm));
    else
        CHECK_MPI(PMPI_Neighbor_alltoallw(t->send, t->scounts, t->sbytes, t->stypes, t->ref,
                                          t->rcounts, t->rbytes, t->rtypes, t->comm));
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
        return MPI_Neighbor_alltoall(t->send, 2, MPI_INT, t->recv, 2, rvec, t->comm);
    if (f == 1)
        return MPI_Neighbor_alltoallv(t->send, t->scounts, t->sdispls, MPI_INT, t->recv,
                                      t->rcounts, t->rdispls, rvec, t->comm);
    return MPI_Neighbor_alltoallw(t->send, t->scounts, t->sbytes, t->stypes, t->recv, t->rcounts,
                                  t->rbytes, t->rtypes, t->comm);
}

static int nonblocking(nb_t *t, int f, MPI_Request *req)
{
    if (f == 0)
        return MPI_Ineighbor_alltoall(t->send, 2, MPI_INT, t->recv, 2, rvec, t->comm, req);
    if (f == 1)
        return MPI_Ineighbor_alltoallv(t->send, t->scounts, t->sdispls, MPI_INT, t->recv,
                                       t->rcounts, t->rdispls, rvec, t->comm, req);
    return MPI_Ineighbor_alltoallw(t->send, t->scounts, t->sbytes, t->stypes, t->recv,
                                   t->rcounts, t->rbytes, t->rtypes, t->comm, req);
}

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
static int persistent(nb_t *t, int f, MPI_Request *req)
{
    if (f == 0)
        return MPI_Neighbor_alltoall_init(t->send, 2, MPI_INT, t->recv, 2, rvec, t->comm,
                                          MPI_INFO_NULL, req);
    if (f == 1)
        return MPI_Neighbor_alltoallv_init(t->send, t->scounts, t->sdispls, MPI_INT, t->recv,
                                           t->rcounts, t->rdispls, rvec, t->comm, MPI_INFO_NULL,
                                           req);
    return MPI_Neighbor_alltoallw_init(t->send, t->scounts, t->sbytes, t->stypes, t->recv,
                                       t->rcounts, t->rbytes, t->rtypes, t->comm, MPI_INFO_NULL,
                                       req);
}
#endif

#if MPI_VERSION >= 4
/* The large-count blocking and persistent calls of form f. */
static int large(nb_t *t, int f, MPI_Request *req)
{
    MPI_Count sc[MAXE], rc[MAXE];
    MPI_Aint sd[MAXE], rd[MAXE];
    int e;
    for (e = 0; e < t->out; e++)
        sc[e] = t->scounts[e], sd[e] = f == 2 ? t->sbytes[e] : t->sdispls[e];
    for (e = 0; e < t->in; e++)
        rc[e] = t->rcounts[e], rd[e] = f == 2 ? t->rbytes[e] : t->rdispls[e];
    if (f == 0)
        return req ? MPI_Neighbor_alltoall_init_c(t->send, 2, MPI_INT, t->recv, 2, rvec, t->comm,
                                                  MPI_INFO_NULL, req)
                   : MPI_Neighbor_alltoall_c(t->send, 2, MPI_INT, t->recv, 2, rvec, t->comm);
    if (f == 1)
        return req ? MPI_Neighbor_alltoallv_init_c(t->send, sc, sd, MPI_INT, t->recv, rc, rd,
                                                   rvec, t->comm, MPI_INFO_NULL, req)
                   : MPI_Neighbor_alltoallv_c(t->send, sc, sd, MPI_INT, t->recv, rc, rd, rvec,
                                              t->comm);
    return req ? MPI_Neighbor_alltoallw_init_c(t->send, sc, sd, t->stypes, t->recv, rc, rd,
                                               t->rtypes, t->comm, MPI_INFO_NULL, req)
               : MPI_Neighbor_alltoallw_c(t->send, sc, sd, t->stypes, t->recv, rc, rd, t->rtypes,
                                          t->comm);
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
            compare(t, t->name);
        }
        refill(t, 2);
        reference(t, f);
        CHECK_MPI(nonblocking(t, f, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        compare(t, t->name);
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
        CHECK_MPI(persistent(t, f, &req));
        for (run = 3; run < 5; run++) {
            refill(t, run);
            reference(t, f);
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            compare(t, t->name);
        }
        CHECK_MPI(MPI_Request_free(&req));
#endif
#if MPI_VERSION >= 4
        refill(t, 5);
        reference(t, f);
        CHECK_MPI(large(t, f, NULL));
        compare(t, t->name);
        CHECK_MPI(large(t, f, &req));
        refill(t, 6);
        reference(t, f);
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        compare(t, t->name);
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

/* The MPI is MPICH before 5 (MPI_Get_library_version may be called
 * before MPI_Init). */
static int old_mpich(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    const char *at;
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[len < (int)sizeof v ? len : (int)sizeof v - 1] = '\0';
    at = strstr(v, "MPICH Version:");
    return at && atoi(at + strspn(at + 14, " \t") + 14) < 5;
}

int main(int argc, char **argv)
{
    int size, dims[2] = {0, 0}, periods[2] = {1, 0}, rc;
    nb_t t;
    if (old_mpich())
        return check_skipped(&argc, &argv, "dropin_neighbor",
                             "MPICH before 5: its own neighbourhood calls, the reference, are "
                             "wrong on repeated neighbours");
    check_init(&argc, &argv, &rank, &size);
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &rvec);
    MPI_Type_commit(&rvec);

    memset(&t, 0, sizeof t);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t.comm);
    MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
    t.name = "cart2d";
    layout(&t, 0);
    forms(&t);
    kept(&t);
    MPI_Comm_free(&t.comm);

    {
        int r = rank, p = size;
        int sources[3] = {(r - 1 + p) % p, r, (r - 1 + p) % p};
        int dests[3] = {(r + 1) % p, (r + 1) % p, r}, w[3] = {1, 1, 1};
        memset(&t, 0, sizeof t);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, sources, w, 3, dests, w,
                                       MPI_INFO_NULL, 0, &t.comm);
        MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
        t.name = "dist-graph";
        layout(&t, 0);
        forms(&t);
        kept(&t);
        MPI_Comm_free(&t.comm);
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
