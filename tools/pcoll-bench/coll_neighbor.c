/*
 * neighbor_alltoallv for pcoll-bench: a size is the bytes sent along every
 * edge (MPI_BYTE), on a neighbourhood chosen by --pattern:
 * - stencil2d (also uniform): a 2-D periodic Cartesian grid (MPI_Dims_create),
 *   the 5-point stencil's 4 neighbours;
 * - stencil27: a 3-D periodic grid, the 27-point stencil's 26 neighbours, as
 *   a distributed graph (MPI_Dist_graph_create_adjacent);
 * - randomk: k destinations a rank (PCOLL_BENCH_K, default 6) drawn from a
 *   hash of (rank, i) (MPI_Dist_graph_create), so in-degrees differ between
 *   ranks and a rank may be drawn twice (a repeated edge);
 * - spmv: the halo exchange of a sparse matrix-vector product with block
 *   rows: a rank exchanges with the ranks of its neighbouring rows (r +- 1,
 *   and r +- w, w the square root of p: a 2-D grid's rows) and with a few
 *   far ones (a pair of ranks d apart coupled with chance about 1 / 2d, by
 *   a hash of the pair: every rank has its own degree, 4 to about 14); the
 *   edge from s to d carries entries(s, d) vector entries (16 for r +- 1,
 *   8 for r +- w, 1 to 4 for a far pair), a size being one entry's bytes.
 *   Symmetric (both ends know an edge and its entries without
 *   communicating; MPI_Dist_graph_create_adjacent, edges in rank order).
 * Blocks in edge order without gaps.  The reference is MPI_Neighbor_alltoallv.
 * The neighbourhoods serve neighbor_alltoallv_inplace too
 * (coll_neighbor_inplace.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RANDOM_K 6 /* PCOLL_BENCH_K's default */

struct bench_case {
    MPI_Comm comm; /* the topology communicator (owned) */
    int in, out;
    int *sc, *sd, *rc, *rd;
    long long stotal, rtotal;
    unsigned char *send, *recv, *ref;
};

static int stencil2d(MPI_Comm comm, MPI_Comm *out)
{
    int p, dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Comm_size(comm, &p);
    MPI_Dims_create(p, 2, dims);
    return MPI_Cart_create(comm, 2, dims, periods, 0, out);
}

/* The 26 offsets of a 27-point stencil, through a periodic 3-D grid. */
static int stencil27(MPI_Comm comm, MPI_Comm *out)
{
    int p, r, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, me[3], at[3], src[26], dst[26];
    int w[26], n = 0, d, o, err;
    MPI_Comm grid;
    MPI_Comm_size(comm, &p);
    MPI_Dims_create(p, 3, dims);
    if ((err = MPI_Cart_create(comm, 3, dims, periods, 0, &grid)) != MPI_SUCCESS)
        return err;
    MPI_Comm_rank(grid, &r);
    MPI_Cart_coords(grid, r, 3, me);
    for (o = 0; o < 27; o++) {
        int off[3] = {o % 3 - 1, o / 3 % 3 - 1, o / 9 - 1};
        if (!off[0] && !off[1] && !off[2])
            continue;
        for (d = 0; d < 3; d++)
            at[d] = me[d] + off[d];
        MPI_Cart_rank(grid, at, &dst[n]);
        for (d = 0; d < 3; d++)
            at[d] = me[d] - off[d];
        MPI_Cart_rank(grid, at, &src[n]);
        w[n++] = 1;
    }
    /* Unit weights (Open MPI's MPI_UNWEIGHTED trips GCC's bounds checks); made
     * from comm, not the grid (ranks alike without reordering): Open MPI 5
     * reports a graph made from a Cartesian communicator as Cartesian. */
    err = MPI_Dist_graph_create_adjacent(comm, 26, src, w, 26, dst, w, MPI_INFO_NULL, 0, out);
    MPI_Comm_free(&grid);
    return err;
}

/* k destinations (PCOLL_BENCH_K, at most p; a hash may draw one twice). */
static int randomk(MPI_Comm comm, MPI_Comm *out)
{
    const char *env = getenv("PCOLL_BENCH_K");
    int p, r, i, *dst, *w, k = env ? atoi(env) : RANDOM_K, err;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    k = k < 1 ? 1 : k < p ? k : p;
    if (!(dst = malloc(2 * sizeof *dst * (size_t)k)))
        return MPI_ERR_NO_MEM;
    w = dst + k;
    for (i = 0; i < k; i++)
        dst[i] = (int)((((unsigned)r * 2654435761u) ^ ((unsigned)i * 40503u + 0x9e37u)) %
                       (unsigned)p),
        w[i] = 1;
    err = MPI_Dist_graph_create(comm, 1, &r, &k, dst, w, MPI_INFO_NULL, 0, out);
    free(dst);
    return err;
}

/* spmv's grid width: the square root of p, rounded up. */
static int spmv_width(int p)
{
    int w = 1;
    while (w * w < p)
        w++;
    return w;
}

static unsigned spmv_hash(unsigned a, unsigned b)
{
    unsigned h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
    h ^= h >> 15;
    h *= 2246822519u;
    return h ^ (h >> 13);
}

/* The ring distance of ranks a and b among p. */
static int spmv_distance(int a, int b, int p)
{
    int d = a > b ? a - b : b - a;
    return d < p - d ? d : p - d;
}

/* The vector entries rank s sends to rank d (0: no edge). */
static int spmv_entries(int s, int d, int p)
{
    int w = spmv_width(p), dist = spmv_distance(s, d, p), lo = s < d ? s : d, hi = s < d ? d : s;
    if (s == d)
        return 0;
    if (dist == 1)
        return 16;
    if (dist == w)
        return 8;
    /* A far pair: chance about 1 / 2dist, the same for (s, d) and (d, s). */
    if (spmv_hash((unsigned)lo, (unsigned)hi) % 1024u < 512u / (unsigned)dist)
        return 1 + (int)(spmv_hash((unsigned)s, (unsigned)d) % 4u);
    return 0;
}

static int spmv(MPI_Comm comm, MPI_Comm *out)
{
    int p, r, d, n = 0, *nb, *w, err;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    if (!(nb = malloc(2 * sizeof *nb * (size_t)p + 1)))
        return MPI_ERR_NO_MEM;
    w = nb + p;
    for (d = 0; d < p; d++)
        if (spmv_entries(r, d, p) > 0)
            nb[n] = d, w[n++] = 1;
    err = MPI_Dist_graph_create_adjacent(comm, n, nb, w, n, nb, w, MPI_INFO_NULL, 0, out);
    free(nb);
    return err;
}

int bench_neighbor_comm(MPI_Comm comm, bench_pattern_t pattern, MPI_Comm *out)
{
    return pattern == BENCH_STENCIL27 ? stencil27(comm, out)
           : pattern == BENCH_RANDOMK ? randomk(comm, out)
           : pattern == BENCH_SPMV    ? spmv(comm, out)
                                      : stencil2d(comm, out);
}

void bench_neighbor_degrees(MPI_Comm comm, int *in, int *out)
{
    int topo, n, w;
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        MPI_Cartdim_get(comm, &n);
        *in = *out = 2 * n;
    } else {
        MPI_Dist_graph_neighbors_count(comm, in, out, &w);
    }
}

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    free(c->sc);
    free(c->send);
    free(c->recv);
    free(c->ref);
    free(c);
}

/* The blocks' sizes: size bytes along every edge, spmv's size times the
 * edge's entries (its neighbours from the communicator, into sc and rc). */
static int block_sizes(bench_case_t *c, long size, bench_pattern_t pattern)
{
    int e, p, r, *w = NULL;
    for (e = 0; e < c->out; e++)
        c->sc[e] = 1;
    for (e = 0; e < c->in; e++)
        c->rc[e] = 1;
    if (pattern == BENCH_SPMV) {
        MPI_Comm_size(c->comm, &p);
        MPI_Comm_rank(c->comm, &r);
        if (!(w = malloc(sizeof *w * ((size_t)c->in + (size_t)c->out) + 1)))
            return PCOLL_ERR_NOMEM;
        if (MPI_Dist_graph_neighbors(c->comm, c->in, c->rc, w, c->out, c->sc, w + c->in) !=
            MPI_SUCCESS) {
            free(w);
            return PCOLL_ERR_MPI;
        }
        for (e = 0; e < c->out; e++)
            c->sc[e] = spmv_entries(r, c->sc[e], p);
        for (e = 0; e < c->in; e++)
            c->rc[e] = spmv_entries(c->rc[e], r, p);
        free(w);
    }
    if (pattern == BENCH_SPMV && size > INT_MAX / 16)
        return PCOLL_ERR_ARG; /* a block of 16 entries must fit an int */
    for (e = 0; e < c->out; e++)
        c->sc[e] = (int)(c->sc[e] * size), c->sd[e] = (int)c->stotal, c->stotal += c->sc[e];
    for (e = 0; e < c->in; e++)
        c->rc[e] = (int)(c->rc[e] * size), c->rd[e] = (int)c->rtotal, c->rtotal += c->rc[e];
    return PCOLL_SUCCESS;
}

static int allocate(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t *c)
{
    int rc;
    if (bench_neighbor_comm(comm, pattern, &c->comm) != MPI_SUCCESS)
        return PCOLL_ERR_MPI;
    bench_neighbor_degrees(c->comm, &c->in, &c->out);
    if (!(c->sc = malloc(sizeof(int) * 2 * ((size_t)c->in + (size_t)c->out) + 1)))
        return PCOLL_ERR_NOMEM;
    c->sd = c->sc + c->out, c->rc = c->sd + c->out, c->rd = c->rc + c->in;
    if ((rc = block_sizes(c, size, pattern)) != PCOLL_SUCCESS)
        return rc;
    c->send = malloc((size_t)c->stotal + 1);
    c->recv = malloc((size_t)c->rtotal + 1);
    c->ref = malloc((size_t)c->rtotal + 1);
    return c->send && c->recv && c->ref ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc, rank;
    long long i;
    if (c)
        c->comm = MPI_COMM_NULL;
    rc = c ? allocate(comm, size, pattern, c) : PCOLL_ERR_NOMEM;
    *out = c;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS)
        return rc;
    MPI_Comm_rank(comm, &rank);
    for (i = 0; i < c->stotal; i++)
        c->send[i] = (unsigned char)(rank * 29 + i * 13 + 1);
    return MPI_Neighbor_alltoallv(c->send, c->sc, c->sd, MPI_BYTE, c->ref, c->rc, c->rd,
                                  MPI_BYTE, c->comm) == MPI_SUCCESS
               ? PCOLL_SUCCESS
               : PCOLL_ERR_MPI;
}

static long long bytes(const bench_case_t *c) { return c->stotal; }

static void poison(bench_case_t *c) { memset(c->recv, 0xA5, (size_t)c->rtotal); }

static int check(const bench_case_t *c) { return memcmp(c->recv, c->ref, (size_t)c->rtotal) == 0; }

static int run_native(bench_case_t *c)
{
    return MPI_Neighbor_alltoallv(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                  MPI_BYTE, c->comm);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    return MPI_Neighbor_alltoallv_init(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                       MPI_BYTE, c->comm, MPI_INFO_NULL, req);
}
#endif

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_neighbor_alltoallv_init(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                         MPI_BYTE, c->comm, info, plan);
}

static int run_oneshot(bench_case_t *c)
{
    return pcoll_neighbor_alltoallv(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                    MPI_BYTE, c->comm);
}

const bench_coll_t bench_coll_neighbor_alltoallv = {
    .name = "neighbor_alltoallv",
    .native = "MPI_Neighbor_alltoallv",
    .native_init = "MPI_Neighbor_alltoallv_init",
    .env_algorithm = "PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM",
    .patterns = BENCH_PATTERNS_NEIGHBORS,
    .setup = setup,
    .bytes = bytes,
    .poison = poison,
    .check = check,
    .run_native = run_native,
#if BENCH_HAVE_MPI_PERSISTENT
    .native_persistent = native_persistent,
#endif
    .plan_init = plan_init,
    .run_oneshot = run_oneshot,
    .teardown = teardown,
};
