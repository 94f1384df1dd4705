/*
 * pcoll-halo: a non-blocking halo exchange as a program writes it, timed
 * through MPI_Ineighbor_alltoallv (the drop-in's, where libpcoll_mpi is
 * preloaded) and through PMPI_Ineighbor_alltoallv (the MPI's own, which the
 * drop-in does not wrap), interleaved in one run so that noise hits both.
 * An MPI program only: no pcoll header.
 *
 *   LD_PRELOAD=libpcoll_mpi.so mpiexec -n P pcoll-halo
 *       [--pattern stencil2d|stencil27|dense|uniform] [--sizes 8,64,512,4096]
 *       [--calls 200]
 *       [--reps 11]
 *
 * stencil2d: a periodic 2-D Cartesian grid (4 edges a rank, MPI_Cart_create);
 * stencil27: a periodic 3-D grid's 26 neighbours (MPI_Dist_graph_create_adjacent);
 * dense: every rank's block, MPI_Ialltoallv (and PMPI_Ialltoallv) on a
 * duplicate of MPI_COMM_WORLD instead; uniform: the same by MPI_Ialltoall.  A size is the bytes of every
 * edge's block.  A repetition: a barrier, then `calls` exchanges (start,
 * wait) back to back; its time is the slowest rank's mean per exchange;
 * printed: the median over the repetitions of each, and their ratio (MPI /
 * through MPI_: > 1, the drop-in is faster).
 * Every size's first exchange is checked against the MPI's blocking call
 * (Open MPI's non-blocking one is wrong on a periodic dimension of 1 or 2
 * ranks: docs/troubleshooting.md, ompi-neighbor-cart-folded).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*ineighbor_fn)(const void *, const int[], const int[], MPI_Datatype, void *,
                            const int[], const int[], MPI_Datatype, MPI_Comm, MPI_Request *);

typedef int (*blocking_fn)(const void *, const int[], const int[], MPI_Datatype, void *,
                           const int[], const int[], MPI_Datatype, MPI_Comm);

typedef struct halo {
    MPI_Comm comm;
    int deg;
    ineighbor_fn mine, theirs; /* MPI_I..., PMPI_I... */
    blocking_fn ref;           /* the MPI's blocking call */
    int *counts, *displs;
    char *send, *recv;
} halo_t;

/* MPI_Ialltoall and MPI_Alltoall in the alltoallv form: every block of
 * counts[0] items, in order. */
static int ia_mine(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                   const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *q)
{
    (void)sd, (void)rd;
    return MPI_Ialltoall(s, sc[0], st, r, rc[0], rt, comm, q);
}

static int ia_theirs(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                     const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                     MPI_Request *q)
{
    (void)sd, (void)rd;
    return PMPI_Ialltoall(s, sc[0], st, r, rc[0], rt, comm, q);
}

static int a_ref(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                 const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    (void)sd, (void)rd;
    return PMPI_Alltoall(s, sc[0], st, r, rc[0], rt, comm);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The communicator of the pattern: made through MPI_ (the drop-in's). */
static MPI_Comm make_comm(const char *pattern, int *deg)
{
    int size, rank, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, c[3], n = 0;
    MPI_Comm cart, comm;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(pattern, "dense") || !strcmp(pattern, "uniform")) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        *deg = size;
        return comm;
    }
    if (!strcmp(pattern, "stencil2d")) {
        MPI_Dims_create(size, 2, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm);
        *deg = 4;
        return comm;
    }
    int nb[26];
    MPI_Dims_create(size, 3, dims);
    PMPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 3, c);
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                int q[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
                if (dx == 0 && dy == 0 && dz == 0)
                    continue;
                for (int k = 0; k < 3; k++)
                    q[k] = (q[k] % dims[k] + dims[k]) % dims[k];
                MPI_Cart_rank(cart, q, &nb[n++]);
            }
    /* Edge e's opposite is edge 25 - e: sources in reverse order pair the
     * block sent along +d with the one received from -d. */
    int src[26], w[26];
    for (int e = 0; e < 26; e++)
        src[e] = nb[25 - e], w[e] = 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 26, src, w, 26, nb, w, MPI_INFO_NULL, 0,
                                   &comm);
    PMPI_Comm_free(&cart);
    *deg = 26;
    return comm;
}

/* One repetition of `calls` exchanges through fn: the slowest rank's mean. */
static double rep(const halo_t *h, ineighbor_fn fn, int calls)
{
    MPI_Request r;
    double t;
    MPI_Barrier(h->comm);
    t = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        fn(h->send, h->counts, h->displs, MPI_BYTE, h->recv, h->counts, h->displs, MPI_BYTE,
           h->comm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    t = (MPI_Wtime() - t) / calls;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, h->comm);
    return t;
}

/* The exchange through MPI_ against the MPI's own blocking call (1: the
 * same bytes). */
static int check(halo_t *h, size_t bytes)
{
    char *ref = malloc(bytes ? bytes : 1);
    MPI_Request r;
    int ok = ref != NULL, all;
    for (size_t i = 0; i < bytes; i++)
        h->send[i] = (char)(i * 7 + 3);
    if (ok) {
        memset(h->recv, 0x5A, bytes);
        h->mine(h->send, h->counts, h->displs, MPI_BYTE, h->recv, h->counts, h->displs, MPI_BYTE,
                h->comm, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        memcpy(ref, h->recv, bytes);
        memset(h->recv, 0xA5, bytes);
        h->ref(h->send, h->counts, h->displs, MPI_BYTE, h->recv, h->counts, h->displs, MPI_BYTE,
               h->comm);
        ok = memcmp(ref, h->recv, bytes) == 0;
    }
    free(ref);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, h->comm);
    return all;
}

int main(int argc, char **argv)
{
    const char *pattern = "stencil2d", *sizes = "8,64,512,4096";
    int calls = 200, reps = 11, rank, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--pattern"))
            pattern = argv[i + 1];
        else if (!strcmp(argv[i], "--sizes"))
            sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else
            bad = 1;
    }
    if (bad || calls < 1 || reps < 1 ||
        (strcmp(pattern, "stencil2d") && strcmp(pattern, "stencil27") &&
         strcmp(pattern, "dense") && strcmp(pattern, "uniform"))) {
        if (rank == 0)
            fprintf(stderr, "usage: pcoll-halo [--pattern stencil2d|stencil27|dense|uniform] "
                            "[--sizes 8,64,...] [--calls N] [--reps R]\n");
        MPI_Finalize();
        return 2;
    }
    halo_t h;
    h.comm = make_comm(pattern, &h.deg);
    if (!strcmp(pattern, "dense"))
        h.mine = MPI_Ialltoallv, h.theirs = PMPI_Ialltoallv, h.ref = PMPI_Alltoallv;
    else if (!strcmp(pattern, "uniform"))
        h.mine = ia_mine, h.theirs = ia_theirs, h.ref = a_ref;
    else
        h.mine = MPI_Ineighbor_alltoallv, h.theirs = PMPI_Ineighbor_alltoallv,
        h.ref = PMPI_Neighbor_alltoallv;
    h.counts = malloc(sizeof(int) * (size_t)h.deg);
    h.displs = malloc(sizeof(int) * (size_t)h.deg);
    double *tm = malloc(sizeof(double) * (size_t)reps),
           *tp = malloc(sizeof(double) * (size_t)reps);
    if (rank == 0)
        printf("# pcoll-halo %s: us per exchange (start + wait), median of %d repetitions of "
               "%d\n%10s %14s %14s %12s\n",
               pattern, reps, calls, "bytes", "PMPI_", "MPI_", "PMPI_/MPI_");
    for (const char *s = sizes; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
        int n = atoi(s);
        size_t bytes = (size_t)n * (size_t)h.deg;
        for (int e = 0; e < h.deg; e++)
            h.counts[e] = n, h.displs[e] = e * n;
        h.send = malloc(bytes ? bytes : 1);
        h.recv = malloc(bytes ? bytes : 1);
        if (!h.send || !h.recv || !h.counts || !h.displs || !tm || !tp)
            MPI_Abort(MPI_COMM_WORLD, 1);
        int ok = check(&h, bytes);
        rep(&h, h.theirs, calls);
        rep(&h, h.mine, calls);
        for (int k = 0; k < reps; k++) {
            tm[k] = rep(&h, h.theirs, calls);
            tp[k] = rep(&h, h.mine, calls);
        }
        qsort(tm, (size_t)reps, sizeof *tm, cmp_double);
        qsort(tp, (size_t)reps, sizeof *tp, cmp_double);
        if (rank == 0)
            printf("%10d %14.2f %14.2f %12.2f%s\n", n, tm[reps / 2] * 1e6, tp[reps / 2] * 1e6,
                   tm[reps / 2] / tp[reps / 2], ok ? "" : "  WRONG");
        bad |= !ok;
        free(h.send);
        free(h.recv);
    }
    free(tm);
    free(tp);
    free(h.counts);
    free(h.displs);
    MPI_Comm_free(&h.comm);
    MPI_Finalize();
    return bad;
}
