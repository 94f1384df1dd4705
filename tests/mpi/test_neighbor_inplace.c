/*
 * pcoll_neighbor_alltoallv_inplace_init against the exchange MPI defines
 * for MPI_Neighbor_alltoallv, made here of point-to-point messages from a
 * copy of the buffer into another (never the MPI's own neighbourhood call,
 * which some MPIs pair wrongly: core/defects.h, mpich-neighbor-order).
 *
 * Every case lays the send blocks and the receive blocks in one buffer
 * independently (the blocks of each rank end to end in a random order of
 * the ranks, random gaps, counts 0 to MAXC), so that they overlap; every
 * part of the buffer outside the send blocks holds a marker, the gaps of the
 * derived type hold poison.  After a run the receive blocks of real edges
 * must hold the data, items of send blocks outside them are not looked at,
 * and everything else (gaps, markers, the blocks of MPI_PROC_NULL edges)
 * must be as it was.  Persistent plans run RUNS times with new data.
 *
 * Topologies: Cartesian 1-D periodic (a periodic dimension of 1 or 2 ranks
 * sends both blocks to one rank), 2-D open (MPI_PROC_NULL) and 2-D {1, p}
 * with the first dimension periodic (both edges of it to the rank itself);
 * a graph ring; random sparse distributed graphs (repeated and self edges,
 * a rank without neighbours); a graph without any edge.  Types: MPI_INT,
 * and two ints every four (gaps); aux memory 1 MiB and 64 bytes.
 *
 * Errors, the same code on every rank without a hang: a communicator without
 * topology (PCOLL_ERR_ARG), one rank's negative count (PCOLL_ERR_ARG), one
 * rank's receive count that its neighbour does not send
 * (PCOLL_ERR_MISMATCH), and repeated edges whose blocks would pair in a
 * different order at the two ends (PCOLL_ERR_UNSUPPORTED).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define RUNS 3
#define MAXDEG 64
#define MAXC 40
#define POISON ((int)0xA5A5A5A5)

typedef struct nc {
    MPI_Comm comm;
    const char *name;
    int cart, in, out;
    int src[MAXDEG], dst[MAXDEG];
    int sc[MAXDEG], sd[MAXDEG], rc[MAXDEG], rd[MAXDEG];
    int nitems, ipi, vec; /* items in buf, ints per item (extent), derived type */
    int *buf, *orig, *exp, *care;
    unsigned long long rng;
} nc_t;

static MPI_Datatype pair_t; /* two ints every four: ints 0 and 2 of the item */

static unsigned rnd(nc_t *c, unsigned n)
{
    c->rng = c->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned)(c->rng >> 33) % n : 0;
}

/* The degrees and neighbour lists of comm in MPI's order. */
static void edges(nc_t *c)
{
    int topo, n, d, w, sw[MAXDEG], dw[MAXDEG];
    MPI_Topo_test(c->comm, &topo);
    c->cart = topo == MPI_CART;
    if (topo == MPI_CART) {
        MPI_Cartdim_get(c->comm, &n);
        c->in = c->out = 2 * n;
        for (d = 0; d < n; d++)
            MPI_Cart_shift(c->comm, d, 1, &c->src[2 * d], &c->src[2 * d + 1]);
        memcpy(c->dst, c->src, sizeof c->src);
    } else if (topo == MPI_GRAPH) {
        MPI_Comm_rank(c->comm, &d);
        MPI_Graph_neighbors_count(c->comm, d, &n);
        c->in = c->out = n;
        MPI_Graph_neighbors(c->comm, d, n, c->src);
        memcpy(c->dst, c->src, sizeof c->src);
    } else {
        MPI_Dist_graph_neighbors_count(c->comm, &c->in, &c->out, &w);
        PT_CHECK(c->in <= MAXDEG && c->out <= MAXDEG, "degrees %d %d", c->in, c->out);
        MPI_Dist_graph_neighbors(c->comm, c->in, c->src, sw, c->out, c->dst, dw);
    }
}

/* The exchange MPI defines, by messages: out-edge e's block (counts and
 * displacements in items of t, extent ext bytes) from sbuf, in-edge e's into
 * rbuf.  Cartesian messages carry their direction as tag (the block sent up
 * lands in the upper neighbour's slot of the one below); a graph's repeated
 * edges match in list order. */
static void exchange(const nc_t *c, const void *sbuf, const int *scount, const int *sdisp,
                     void *rbuf, const int *rcount, const int *rdisp, MPI_Datatype t,
                     MPI_Aint ext)
{
    MPI_Request req[2 * MAXDEG];
    int e, n = 0;
    for (e = 0; e < c->in; e++)
        PT_MPI(MPI_Irecv((char *)rbuf + rdisp[e] * ext, rcount[e], t, c->src[e],
                         c->cart ? e ^ 1 : 0, c->comm, &req[n++]));
    for (e = 0; e < c->out; e++)
        PT_MPI(MPI_Isend((const char *)sbuf + sdisp[e] * ext, scount[e], t, c->dst[e],
                         c->cart ? e : 0, c->comm, &req[n++]));
    PT_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
}

/* Send counts at random (all at least 1 with `full`); receive counts as the
 * neighbours send them (MPI_PROC_NULL edges: 3, a block that stays). */
static void counts(nc_t *c, int full)
{
    int e, ones[MAXDEG], iota[MAXDEG];
    for (e = 0; e < MAXDEG; e++)
        ones[e] = 1, iota[e] = e;
    for (e = 0; e < c->out; e++)
        c->sc[e] = full ? 1 + (int)rnd(c, MAXC) : rnd(c, 4) ? (int)rnd(c, MAXC + 1) : 0;
    for (e = 0; e < c->in; e++)
        c->rc[e] = 3;
    exchange(c, c->sc, ones, iota, c->rc, ones, iota, MPI_INT, sizeof(int));
}

/* Blocks of n edges laid from item 0: the blocks of one rank end to end,
 * ordered by key (the order in which they pair with the other end's), the
 * ranks in a random order with gaps of 0 to 2 items; MPI_PROC_NULL edges
 * alone.  Returns the end. */
static int lay(nc_t *c, int n, const int *peer, const int *count, int *displ, int swap)
{
    int order[MAXDEG], e, k, j, t, at = 0;
    for (e = 0; e < n; e++)
        order[e] = e;
    for (e = n - 1; e > 0; e--) /* the ranks' order: a shuffle of the edges' */
        k = (int)rnd(c, (unsigned)e + 1), t = order[e], order[e] = order[k], order[k] = t;
    for (k = 0; k < n; k++) {
        int first = order[k], lead = 1;
        for (j = 0; j < k; j++) /* laid with an earlier edge's rank */
            lead &= peer[order[j]] == MPI_PROC_NULL || peer[order[j]] != peer[first];
        if (!lead)
            continue;
        at += (int)rnd(c, 3);
        /* This rank's edges by key: e, or e ^ 1 for Cartesian sends. */
        for (j = 0; j < n; j++) {
            e = swap ? j ^ 1 : j;
            if (e < n && (e == first || (peer[first] != MPI_PROC_NULL && peer[e] == peer[first])))
                displ[e] = at, at += count[e] > 0 ? count[e] : 0;
        }
    }
    return at;
}

static void layout(nc_t *c, int crossed)
{
    int s = lay(c, c->out, c->dst, c->sc, c->sd, c->cart && !crossed);
    int r = lay(c, c->in, c->src, c->rc, c->rd, 0);
    c->nitems = (s > r ? s : r) + 1;
}

static int *ints(const nc_t *c)
{
    return malloc(sizeof(int) * (size_t)c->nitems * (size_t)c->ipi + 1);
}

/* Element k of item i: int i * ipi + 2k (k < 1 + vec). */
static void set_items(const nc_t *c, int *to, int lo, int n, int value, int step)
{
    int i, k;
    for (i = lo; i < lo + n; i++)
        for (k = 0; k <= c->vec; k++)
            to[i * c->ipi + 2 * k] = value + step * (2 * (i - lo) + k);
}

/* New data for run `run`: orig (markers, poison in the gaps, the send
 * blocks' values), buf a copy; exp by messages, care where buf must equal
 * it. */
static void fill(nc_t *c, int run)
{
    int e, rank, n = c->nitems * c->ipi;
    MPI_Comm_rank(c->comm, &rank);
    for (e = 0; e < n; e++)
        c->orig[e] = POISON, c->care[e] = 1;
    set_items(c, c->orig, 0, c->nitems, -1000, -1);
    for (e = 0; e < c->out; e++)
        set_items(c, c->orig, c->sd[e], c->sc[e], run * 10000000 + rank * 100000 + e * 1000, 1);
    memcpy(c->buf, c->orig, sizeof(int) * (size_t)n);
    memcpy(c->exp, c->orig, sizeof(int) * (size_t)n);
    exchange(c, c->orig, c->sc, c->sd, c->exp, c->rc, c->rd, c->vec ? pair_t : MPI_INT,
             (MPI_Aint)sizeof(int) * c->ipi);
    for (e = 0; e < c->out; e++)
        if (c->dst[e] != MPI_PROC_NULL)
            set_items(c, c->care, c->sd[e], c->sc[e], 0, 0);
    for (e = 0; e < c->in; e++)
        if (c->src[e] != MPI_PROC_NULL)
            set_items(c, c->care, c->rd[e], c->rc[e], 1, 0);
}

static void compare(const nc_t *c)
{
    int i;
    for (i = 0; i < c->nitems * c->ipi; i++)
        if (c->care[i] && c->buf[i] != c->exp[i]) {
            pt_check_elem("buf int", -1, i, c->exp[i], c->buf[i]);
            return;
        }
}

static int init(nc_t *c, const char *aux, pcoll_plan_t **plan)
{
    MPI_Info info;
    int rc;
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_aux_bytes", aux);
    rc = pcoll_neighbor_alltoallv_inplace_init(c->buf, c->sc, c->sd, c->rc, c->rd,
                                               c->vec ? pair_t : MPI_INT, c->comm, info, plan);
    MPI_Info_free(&info);
    return rc;
}

static void case_make(nc_t *c, MPI_Comm comm, const char *name, int vec, int seed)
{
    int rank;
    memset(c, 0, sizeof *c);
    c->comm = comm, c->name = name, c->vec = vec, c->ipi = vec ? 4 : 1;
    MPI_Comm_rank(comm, &rank);
    c->rng = 0x9E3779B97F4A7C15ULL * (unsigned long long)(rank + 1) + (unsigned)seed;
    edges(c);
}

static void case_alloc(nc_t *c)
{
    c->buf = ints(c), c->orig = ints(c), c->exp = ints(c), c->care = ints(c);
}

static void case_free(nc_t *c)
{
    free(c->buf), free(c->orig), free(c->exp), free(c->care);
}

/* One plan run RUNS times with new data. */
static void run_case(MPI_Comm comm, const char *name, int vec, const char *aux, int seed)
{
    pcoll_plan_t *plan = NULL;
    nc_t c;
    int run;
    pt_case("%s type %s aux %s seed %d", name, vec ? "pair" : "int", aux, seed);
    case_make(&c, comm, name, vec, seed);
    counts(&c, 0);
    layout(&c, 0);
    case_alloc(&c);
    fill(&c, 0);
    if (PT_OK(init(&c, aux, &plan))) {
        PT_CHECK(!strcmp(pcoll_plan_algorithm(plan), "inplace"), "algorithm %s",
                 pcoll_plan_algorithm(plan));
        for (run = 0; run < RUNS; run++) {
            fill(&c, run);
            PT_REQUIRE(pcoll_start(plan));
            PT_REQUIRE(pcoll_wait(plan));
            compare(&c);
        }
    }
    PT_OK(pcoll_plan_free(&plan));
    case_free(&c);
}

static void run_all(MPI_Comm comm, const char *name)
{
    int vec, seed;
    for (vec = 0; vec < 2; vec++)
        for (seed = 0; seed < 2; seed++)
            run_case(comm, name, vec, seed ? "64" : "1048576", seed + 17 * vec);
}

/* ---- errors ---------------------------------------------------------------- */

/* An init that must fail with `expected` on every rank; bad(c) spoils one
 * rank's counts before the layout (no run: no data). */
static void run_error(MPI_Comm comm, const char *name, int expected, int full, int crossed,
                      void (*bad)(nc_t *c))
{
    pcoll_plan_t *plan = NULL;
    nc_t c;
    pt_case("%s: %s on every rank", name, pcoll_err_name(expected));
    case_make(&c, comm, name, 0, 5);
    counts(&c, full);
    if (bad)
        bad(&c);
    layout(&c, crossed);
    case_alloc(&c);
    memset(c.buf, 0, sizeof(int) * (size_t)c.nitems);
    PT_RC(init(&c, "1048576", &plan), expected);
    PT_CHECK(plan == NULL, "a plan after a failed init");
    PT_OK(pcoll_plan_free(&plan));
    case_free(&c);
}

/* The last rank's first send count negative. */
static void negative(nc_t *c)
{
    int r, p;
    MPI_Comm_rank(c->comm, &r), MPI_Comm_size(c->comm, &p);
    if (r == p - 1 && c->out > 0)
        c->sc[0] = -1;
}

/* Rank 0 expects one item more on its first in-edge from a real rank. */
static void one_more(nc_t *c)
{
    int r, e;
    MPI_Comm_rank(c->comm, &r);
    for (e = 0; e < c->in && r == 0; e++)
        if (c->src[e] != MPI_PROC_NULL) {
            c->rc[e]++;
            return;
        }
}

static void errors(void)
{
    int dims[2] = {1, pt_size}, periods[2] = {1, 0}, buf = 0;
    pcoll_plan_t *plan = NULL;
    MPI_Comm comm;
    pt_case("no topology: PCOLL_ERR_ARG on every rank");
    PT_RC(pcoll_neighbor_alltoallv_inplace_init(&buf, &buf, &buf, &buf, &buf, MPI_INT,
                                                MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
          PCOLL_ERR_ARG);
    PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm));
    run_error(comm, "cart {1,p}: one rank's negative count", PCOLL_ERR_ARG, 0, 0, negative);
    run_error(comm, "cart {1,p}: rank 0's receive count off by one", PCOLL_ERR_MISMATCH, 1, 0,
              one_more);
    /* Both edges of the periodic dimension go to the rank itself: laid in
     * edge order on both sides, the block sent up (edge 1, the second)
     * would land in the first receive block. */
    run_error(comm, "cart {1,p}: self edges crossed", PCOLL_ERR_UNSUPPORTED, 1, 1, NULL);
    MPI_Comm_free(&comm);
}

/* ---- topologies ------------------------------------------------------------ */

static void cart(int ndims, const int *periods, const char *name)
{
    int dims[2] = {0, 0};
    MPI_Comm comm;
    MPI_Dims_create(pt_size, ndims, dims);
    if (periods[0] && !periods[1] && ndims == 2)
        dims[0] = 1, dims[1] = pt_size; /* {1, p}: the periodic dimension folds */
    PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, (int *)periods, 0, &comm));
    run_all(comm, name);
    MPI_Comm_free(&comm);
}

static void graph_ring(void)
{
    int p = pt_size, i, *index = malloc(sizeof(int) * (size_t)p);
    int *nb = malloc(sizeof(int) * 2 * (size_t)p);
    MPI_Comm comm;
    for (i = 0; i < p; i++)
        index[i] = 2 * (i + 1), nb[2 * i] = (i + 1) % p, nb[2 * i + 1] = (i - 1 + p) % p;
    PT_MPI(MPI_Graph_create(MPI_COMM_WORLD, p, index, nb, 0, &comm));
    run_all(comm, "graph ring");
    MPI_Comm_free(&comm);
    free(index), free(nb);
}

/* Random sparse out-edges, 0 to 3 per rank (repeats and self edges come up
 * at random); from three ranks on, the last rank has no neighbours.  none:
 * no edge anywhere. */
static void dist_random(int none)
{
    int r = pt_rank, p = pt_size, n = 0, k, dests[3] = {0, 0, 0}, w[3] = {1, 1, 1}, src = r;
    int lonely = p > 2 ? p - 1 : -1, targets = p > 2 ? p - 1 : p;
    unsigned long long s = 0x2545F4914F6CDD1DULL * (unsigned long long)(r + 3);
    MPI_Comm comm;
    for (k = 0; !none && r != lonely && k < (int)(s >> 60) % 4; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        dests[n++] = (int)((s >> 33) % (unsigned long long)targets);
    }
    PT_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &n, dests, w, MPI_INFO_NULL, 0,
                                 &comm));
    run_all(comm, none ? "dist graph without edges" : "dist graph random");
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    static const int periodic[2] = {1, 1}, open[2] = {0, 0}, first[2] = {1, 0};
    pt_init(&argc, &argv);
    PT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &pair_t));
    MPI_Datatype t = pair_t;
    PT_MPI(MPI_Type_create_resized(t, 0, 4 * (MPI_Aint)sizeof(int), &pair_t));
    MPI_Type_free(&t);
    PT_MPI(MPI_Type_commit(&pair_t));
    cart(1, periodic, "cart 1-D periodic");
    cart(2, open, "cart 2-D open");
    cart(2, first, "cart {1,p} first periodic");
    graph_ring();
    dist_random(0);
    dist_random(1);
    errors();
    MPI_Type_free(&pair_t);
    return pt_finish();
}
