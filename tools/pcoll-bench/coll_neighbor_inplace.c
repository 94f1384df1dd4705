/*
 * neighbor_alltoallv_inplace for pcoll-bench:
 * pcoll_neighbor_alltoallv_inplace_init on one buffer whose outgoing
 * blocks (one per out-edge) are replaced by the incoming ones (one per
 * in-edge).  The neighbourhoods and the size are neighbor_alltoallv's
 * (coll_neighbor.c): a size is the bytes along every edge (MPI_BYTE), on
 * stencil2d, stencil27 or randomk (PCOLL_BENCH_K destinations a rank), so
 * that `--coll neighbor_alltoallv --algorithms direct` with the same
 * arguments times the out-of-place exchange of the same messages.
 *
 * Layouts: each rank lays its send blocks and its receive blocks in two
 * independent random orders of its neighbour ranks, the blocks of one rank
 * end to end (in the order they pair with the other end's, as the in-place
 * call requires for a rank listed twice), so the two layouts differ and
 * overlap.
 *
 * Rows: MPI_Neighbor_alltoallv and MPI-4's MPI_Neighbor_alltoallv_init, out
 * of place (a second buffer as large as the receive layout, shown as their
 * extra memory); pcoll's `inplace` (one-shot mode: plan, run and free per
 * call).  The aux memory is pcoll's usual PCOLL_AUX_BYTES, or
 * PCOLL_BENCH_AUX_PERCENT of the bytes a rank sends.  The reference is made
 * at setup of point-to-point messages (the MPI's neighbourhood calls pair
 * repeated edges wrongly on some MPIs: src/core/defects.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_case {
    MPI_Comm comm; /* the topology communicator (owned) */
    int p, rank, cart, in, out;
    int *src, *dst, *sc, *sd, *rc, *rd;
    long items, rend; /* the buffer's extent, the receive layout's */
    unsigned char *buf, *input, *recv, *ref;
};

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    free(c->src);
    free(c->buf);
    free(c->input);
    free(c->recv);
    free(c->ref);
    free(c);
}

/* A rank's place in one side's random order of neighbour ranks. */
static unsigned long long rank_key(int me, int peer, int side)
{
    unsigned long long z = 0x9E3779B97F4A7C15ULL * (unsigned long long)(me + 1) +
                           0xBF58476D1CE4E5B9ULL * (unsigned long long)(peer + 2) +
                           (unsigned long long)side;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    return z ^ (z >> 31);
}

/* Whether edge a is laid before edge b: by its rank's key, then (one rank)
 * by the order in which the edges pair (Cartesian sends: e ^ 1). */
static int before(const bench_case_t *c, const int *peer, int side, int a, int b)
{
    unsigned long long ka = rank_key(c->rank, peer[a], side);
    unsigned long long kb = rank_key(c->rank, peer[b], side);
    int pa = c->cart && side == 0 ? a ^ 1 : a, pb = c->cart && side == 0 ? b ^ 1 : b;
    if (ka != kb || peer[a] != peer[b])
        return ka != kb ? ka < kb : peer[a] < peer[b];
    return pa < pb;
}

/* One side's displacements (side 0: sends); returns the layout's end. */
static long lay(const bench_case_t *c, int n, const int *peer, const int *count, int *displ,
                int side)
{
    int *order = malloc(sizeof *order * ((size_t)n + 1)), i, j, t;
    long at = 0;
    for (i = 0; i < n; i++) /* insertion sort: degrees are small */
        for (order[i] = i, j = i; j > 0 && before(c, peer, side, order[j], order[j - 1]); j--)
            t = order[j], order[j] = order[j - 1], order[j - 1] = t;
    for (i = 0; i < n; i++)
        displ[order[i]] = (int)at, at += count[order[i]];
    free(order);
    return at;
}

/* The exchange MPI defines, by messages, from the input into the
 * reference (Cartesian: the direction as tag; graphs: list order). */
static int reference(bench_case_t *c)
{
    MPI_Request *req = malloc(sizeof *req * ((size_t)c->in + (size_t)c->out + 1));
    int e, n = 0, err = req ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (e = 0; e < c->in && err == MPI_SUCCESS; e++)
        err = MPI_Irecv(c->ref + c->rd[e], c->rc[e], MPI_BYTE, c->src[e], c->cart ? e ^ 1 : 0,
                        c->comm, &req[n++]);
    for (e = 0; e < c->out && err == MPI_SUCCESS; e++)
        err = MPI_Isend(c->input + c->sd[e], c->sc[e], MPI_BYTE, c->dst[e], c->cart ? e : 0,
                        c->comm, &req[n++]);
    if (err == MPI_SUCCESS)
        err = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    free(req);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

/* The neighbours in MPI's order. */
static int neighbours(bench_case_t *c)
{
    int topo, d, *w;
    MPI_Topo_test(c->comm, &topo);
    c->cart = topo == MPI_CART;
    if (c->cart) {
        for (d = 0; d < c->in / 2; d++)
            MPI_Cart_shift(c->comm, d, 1, &c->src[2 * d], &c->src[2 * d + 1]);
        memcpy(c->dst, c->src, sizeof *c->src * (size_t)c->in);
        return MPI_SUCCESS;
    }
    if (!(w = malloc(sizeof *w * ((size_t)c->in + (size_t)c->out + 1))))
        return MPI_ERR_NO_MEM;
    d = MPI_Dist_graph_neighbors(c->comm, c->in, c->src, w, c->out, c->dst, w + c->in);
    free(w);
    return d;
}

static int allocate(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t *c)
{
    size_t n;
    long i, send_end;
    if (bench_neighbor_comm(comm, pattern, &c->comm) != MPI_SUCCESS)
        return PCOLL_ERR_MPI;
    bench_neighbor_degrees(c->comm, &c->in, &c->out);
    MPI_Comm_size(c->comm, &c->p);
    MPI_Comm_rank(c->comm, &c->rank);
    n = (size_t)c->in + (size_t)c->out;
    if (!(c->src = malloc(sizeof(int) * 3 * n + 1)))
        return PCOLL_ERR_NOMEM;
    c->dst = c->src + c->in, c->sc = c->dst + c->out, c->sd = c->sc + c->out;
    c->rc = c->sd + c->out, c->rd = c->rc + c->in;
    if (neighbours(c) != MPI_SUCCESS)
        return PCOLL_ERR_MPI;
    for (i = 0; i < c->out; i++)
        c->sc[i] = (int)size;
    for (i = 0; i < c->in; i++)
        c->rc[i] = (int)size;
    send_end = lay(c, c->out, c->dst, c->sc, c->sd, 0);
    c->rend = lay(c, c->in, c->src, c->rc, c->rd, 1);
    c->items = send_end > c->rend ? send_end : c->rend;
    c->buf = malloc((size_t)c->items + 1), c->input = malloc((size_t)c->items + 1);
    c->recv = malloc((size_t)c->rend + 1), c->ref = malloc((size_t)c->rend + 1);
    if (!c->buf || !c->input || !c->recv || !c->ref)
        return PCOLL_ERR_NOMEM;
    for (i = 0; i < c->items; i++)
        c->input[i] = (unsigned char)(c->rank * 29 + i * 13 + 1);
    memcpy(c->buf, c->input, (size_t)c->items);
    return PCOLL_SUCCESS;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc;
    if (c)
        c->comm = MPI_COMM_NULL;
    rc = c ? allocate(comm, size, pattern, c) : PCOLL_ERR_NOMEM;
    *out = c;
    /* Agree: a rank without memory must not leave the others waiting. */
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    return rc == PCOLL_SUCCESS ? reference(c) : rc;
}

static long long bytes(const bench_case_t *c)
{
    long long n = 0;
    int e;
    for (e = 0; e < c->out; e++)
        n += c->dst[e] != MPI_PROC_NULL ? c->sc[e] : 0;
    return n;
}

static void poison(bench_case_t *c)
{
    memcpy(c->buf, c->input, (size_t)c->items);
    memset(c->recv, 0xA5, (size_t)c->rend);
}

/* Whether the receive blocks of out hold the reference's. */
static int blocks_right(const bench_case_t *c, const unsigned char *out)
{
    int e;
    for (e = 0; e < c->in; e++)
        if (c->src[e] != MPI_PROC_NULL &&
            memcmp(out + c->rd[e], c->ref + c->rd[e], (size_t)c->rc[e]) != 0)
            return 0;
    return 1;
}

/* The output the checked row wrote: the out-of-place one if it is not all
 * poison, else the in-place buffer. */
static int check(const bench_case_t *c)
{
    long i;
    for (i = 0; i < c->rend; i++)
        if (c->recv[i] != 0xA5)
            return blocks_right(c, c->recv);
    return blocks_right(c, c->buf);
}

static int run_native(bench_case_t *c)
{
    return MPI_Neighbor_alltoallv(c->input, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                  MPI_BYTE, c->comm);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    return MPI_Neighbor_alltoallv_init(c->input, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                       MPI_BYTE, c->comm, MPI_INFO_NULL, req);
}
#endif

/* The out-of-place rows' second buffer: the receive layout's extent. */
static long long native_extra(const bench_case_t *c, bench_kind_t kind)
{
    (void)kind;
    return c->rend;
}

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    MPI_Info aux = bench_aux_info(info, bytes(c), c->p);
    int rc = pcoll_neighbor_alltoallv_inplace_init(c->buf, c->sc, c->sd, c->rc, c->rd, MPI_BYTE,
                                                   c->comm, aux, plan);
    MPI_Info_free(&aux);
    return rc;
}

/* No one-shot call: plan, run and free per call. */
static int run_oneshot(bench_case_t *c) { return bench_plan_once(c, plan_init); }

const bench_coll_t bench_coll_neighbor_alltoallv_inplace = {
    .name = "neighbor_alltoallv_inplace",
    .native = "MPI_Neighbor_alltoallv",
    .native_init = "MPI_Neighbor_alltoallv_init",
    .env_algorithm = "PCOLL_NEIGHBOR_ALLTOALLV_INPLACE_ALGORITHM",
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
    .native_extra = native_extra,
};
