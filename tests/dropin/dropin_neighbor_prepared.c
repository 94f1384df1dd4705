/*
 * A program whose neighbourhood all-to-alls are all non-blocking
 * (MPI_Ineighbor_alltoall, _v, _w) gets the node-aware plan from its first
 * call: the drop-in prepares the shapes when MPI_Cart_create, MPI_Cart_sub,
 * MPI_Graph_create and MPI_Dist_graph_create(_adjacent) return, and
 * MPI_Comm_dup and MPI_Comm_dup_with_info of such a communicator, and every
 * non-blocking call -- large-count forms too (MPI-4), which share their int
 * forms' shapes -- leases the kept `node` plan (the log must show `node`
 * serving every call; without the preparation pcoll would refuse them, as
 * `node` plans collectively).  `node` is named on virtual nodes of two
 * ranks; the calls are compared int for int with the MPI's own blocking
 * call (PMPI_Neighbor_*) on buffers poisoned alike, with new input every
 * run, several calls in flight at once, blocks of more than the kept plan's
 * 1 KiB piece (they travel alone) and a receive type of one int every two.
 * Last, one blocking call per form: it decides its shape again on its own
 * sizes.  Skipped on MPICH before 5 (its own neighbourhood calls, the
 * reference, pair repeated neighbours wrongly).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "neighbor.h"

#define MAXE NBR_MAXE
#define BIG 400 /* ints in the large blocks: 1600 bytes */
#define LEN (2 * MAXE * (BIG + 2) + 16)
#define INFLIGHT 3

static int rank;
static MPI_Datatype rvec; /* one int every two */

typedef struct nb {
    nbr_layout_t l;
    int send[INFLIGHT][LEN], recv[INFLIGHT][LEN], ref[INFLIGHT][LEN];
} nb_t;

/* The layout of neighbor.h, out-edge 0 BIG ints more where big. */
static void layout(nb_t *t, int big)
{
    nbr_layout(&t->l, rank, big ? BIG : 0, rvec);
}

/* New input for call k of a run, poison in its receive buffers. */
static void refill(nb_t *t, int k, int run)
{
    int i;
    for (i = 0; i < LEN; i++)
        t->send[k][i] = run * 100000 + k * 10000 + rank * 1000 + i % 1000;
    memset(t->recv[k], 0xA5, sizeof t->recv[k]);
    memset(t->ref[k], 0xA5, sizeof t->ref[k]);
}

/* The MPI's own result of form f (0 alltoall, 1 v, 2 w) for call k. */
static void reference(nb_t *t, int f, int k)
{
    if (f == 0)
        CHECK_MPI(PMPI_Neighbor_alltoall(t->send[k], 2, MPI_INT, t->ref[k], 2, rvec, t->l.comm));
    else if (f == 1)
        CHECK_MPI(PMPI_Neighbor_alltoallv(t->send[k], t->l.scounts, t->l.sdispls, MPI_INT,
                                          t->ref[k], t->l.rcounts, t->l.rdispls, rvec,
                                          t->l.comm));
    else
        CHECK_MPI(PMPI_Neighbor_alltoallw(t->send[k], t->l.scounts, t->l.sbytes, t->l.stypes,
                                          t->ref[k], t->l.rcounts, t->l.rbytes, t->l.rtypes,
                                          t->l.comm));
}

#if MPI_VERSION >= 4
/* The large-count form of f (0 alltoall, 1 v, 2 w) for call k. */
static int nonblocking_c(nb_t *t, int f, int k, MPI_Request *req)
{
    MPI_Count sc[MAXE], rc[MAXE];
    MPI_Aint sd[MAXE], rd[MAXE];
    for (int e = 0; e < MAXE; e++) {
        sc[e] = t->l.scounts[e], rc[e] = t->l.rcounts[e];
        sd[e] = f == 1 ? t->l.sdispls[e] : t->l.sbytes[e];
        rd[e] = f == 1 ? t->l.rdispls[e] : t->l.rbytes[e];
    }
    if (f == 0)
        return MPI_Ineighbor_alltoall_c(t->send[k], 2, MPI_INT, t->recv[k], 2, rvec, t->l.comm,
                                        req);
    if (f == 1)
        return MPI_Ineighbor_alltoallv_c(t->send[k], sc, sd, MPI_INT, t->recv[k], rc, rd, rvec,
                                         t->l.comm, req);
    return MPI_Ineighbor_alltoallw_c(t->send[k], sc, sd, t->l.stypes, t->recv[k], rc, rd,
                                     t->l.rtypes, t->l.comm, req);
}
#endif

/* Call k of a run; the second of several in flight a large-count call where
 * the MPI has them. */
static int nonblocking(nb_t *t, int f, int k, MPI_Request *req)
{
#if MPI_VERSION >= 4
    if (k == 1)
        return nonblocking_c(t, f, k, req);
#endif
    if (f == 0)
        return MPI_Ineighbor_alltoall(t->send[k], 2, MPI_INT, t->recv[k], 2, rvec, t->l.comm,
                                      req);
    if (f == 1)
        return MPI_Ineighbor_alltoallv(t->send[k], t->l.scounts, t->l.sdispls, MPI_INT,
                                       t->recv[k], t->l.rcounts, t->l.rdispls, rvec, t->l.comm,
                                       req);
    return MPI_Ineighbor_alltoallw(t->send[k], t->l.scounts, t->l.sbytes, t->l.stypes,
                                   t->recv[k], t->l.rcounts, t->l.rbytes, t->l.rtypes, t->l.comm,
                                   req);
}

static int blocking(nb_t *t, int f)
{
    if (f == 0)
        return MPI_Neighbor_alltoall(t->send[0], 2, MPI_INT, t->recv[0], 2, rvec, t->l.comm);
    if (f == 1)
        return MPI_Neighbor_alltoallv(t->send[0], t->l.scounts, t->l.sdispls, MPI_INT,
                                      t->recv[0], t->l.rcounts, t->l.rdispls, rvec, t->l.comm);
    return MPI_Neighbor_alltoallw(t->send[0], t->l.scounts, t->l.sbytes, t->l.stypes, t->recv[0],
                                  t->l.rcounts, t->l.rbytes, t->l.rtypes, t->l.comm);
}

static void compare(const nb_t *t, int k, const char *what)
{
    int i;
    for (i = 0; i < LEN; i++)
        check_value(what, i, t->ref[k][i], t->recv[k][i]);
}

/* Runs of `inflight` non-blocking calls of every form started one after
 * the other and completed together, with small and (alltoallv, alltoallw)
 * large blocks; then one blocking call per form. */
static void exercise(nb_t *t)
{
    MPI_Request req[INFLIGHT];
    int f, k, run, big;
    for (big = 0; big < 2; big++) {
        layout(t, big);
        for (f = big; f < 3; f++)
            for (run = 0; run < 2; run++) {
                int n = run == 0 ? 1 : INFLIGHT;
                for (k = 0; k < n; k++) {
                    refill(t, k, 10 * f + run);
                    reference(t, f, k);
                }
                for (k = 0; k < n; k++)
                    CHECK_MPI(nonblocking(t, f, k, &req[k]));
                CHECK_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
                for (k = 0; k < n; k++)
                    compare(t, k, t->l.name);
            }
    }
    for (f = 0; f < 3; f++) {
        refill(t, 0, 50 + f);
        reference(t, f, 0);
        CHECK_MPI(blocking(t, f));
        compare(t, 0, t->l.name);
    }
}

static void run_on(MPI_Comm comm, const char *name)
{
    nb_t *t = calloc(1, sizeof *t);
    if (!t) {
        check_true("memory", 0);
        return;
    }
    t->l.comm = comm;
    t->l.name = name;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    exercise(t);
    MPI_Comm_free(&t->l.comm);
    free(t);
}

int main(int argc, char **argv)
{
    int size, dims[2] = {0, 0}, periods[2] = {1, 0}, keep[2] = {0, 1}, rc, i;
    MPI_Comm cart, sub, comm, dup;
    if (nbr_old_mpich())
        return check_skipped(&argc, &argv, "dropin_neighbor_prepared",
                             "MPICH before 5: its own neighbourhood calls, the reference, are "
                             "wrong on repeated neighbours");
    setenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", "node", 1);
    setenv("PCOLL_CORES_PER_NODE", "2", 1);
    check_init(&argc, &argv, &rank, &size);
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &rvec);
    MPI_Type_commit(&rvec);

    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, keep, &sub);
    MPI_Comm_dup(cart, &dup);
    run_on(cart, "cart2d");
    run_on(sub, "cart-sub");
    run_on(dup, "cart2d-dup");
    {
        int r = rank, p = size;
        int sources[3] = {(r - 1 + p) % p, r, (r - 1 + p) % p};
        int dests[3] = {(r + 1) % p, (r + 1) % p, r}, w[3] = {1, 1, 1};
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, sources, w, 3, dests, w, MPI_INFO_NULL,
                                       0, &comm);
        MPI_Comm_dup_with_info(comm, MPI_INFO_NULL, &dup);
        run_on(comm, "dist-graph-adjacent");
        run_on(dup, "dist-graph-adjacent-dup");
        /* Every rank names its own out-edges: to the next two ranks. */
        int deg = 2, to[2] = {(r + 1) % p, (r + 2) % p}, ones[2] = {1, 1};
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &r, &deg, to, ones, MPI_INFO_NULL, 0, &comm);
        run_on(comm, "dist-graph");
    }
    {
        /* A ring: rank i's neighbours i - 1 and i + 1 (one rank: none). */
        int *index = malloc(sizeof *index * (size_t)size);
        int *edges = malloc(sizeof *edges * 2 * (size_t)size), n = 0;
        for (i = 0; i < size && index && edges; i++) {
            if (size > 1) {
                edges[n++] = (i - 1 + size) % size;
                edges[n++] = (i + 1) % size;
            }
            index[i] = n;
        }
        if (index && edges) {
            MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &comm);
            run_on(comm, "graph-ring");
        }
        free(index);
        free(edges);
    }

    if (rank == 0) {
        printf("dropin-expect: MPI_Ineighbor_alltoall MPI_Ineighbor_alltoallv "
               "MPI_Ineighbor_alltoallw\n");
        printf("dropin-expect-algorithm: MPI_Ineighbor_alltoall=node "
               "MPI_Ineighbor_alltoallv=node MPI_Ineighbor_alltoallw=node\n");
    }
    MPI_Type_free(&rvec);
    rc = check_finish("dropin_neighbor_prepared");
    MPI_Finalize();
    return rc;
}
