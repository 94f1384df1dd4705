/*
 * The neighbourhood all-to-alls (pcoll_neighbor_alltoall, _alltoallv,
 * _alltoallw; persistent, one-shot and large-count forms) against the MPI's
 * own blocking MPI_Neighbor_alltoall(v/w) on the same communicator: both
 * receive into buffers poisoned alike, and the whole buffers (blocks, gaps
 * and the untouched blocks of MPI_PROC_NULL neighbours) must be equal byte
 * for byte, for every algorithm of the table.
 *
 * Topologies: Cartesian 1-D, 2-D and 3-D, periodic, not and mixed (a
 * periodic dimension of 1 or 2 ranks sends both blocks to the same rank);
 * a graph ring (MPI_Graph_create); a distributed graph with repeated edges
 * and a self edge (MPI_Dist_graph_create_adjacent); one with asymmetric in-
 * and out-degrees and a rank without neighbours (MPI_Dist_graph_create).
 * Layouts: a send layout of ints and a receive layout of one int every two
 * (alltoallw: a type per edge, alternating), blocks in reverse edge order
 * with gaps; counts 0 and per-edge counts.  Persistent plans run three times
 * with new input.  Errors: a communicator without a topology
 * (PCOLL_ERR_ARG), one rank's bad count (PCOLL_ERR_ARG) and two neighbours
 * disagreeing on an edge's size (PCOLL_ERR_MISMATCH), on every rank.
 * Where the MPI's own neighbourhood calls are known wrong (core/defects.h,
 * mpich-neighbor-order) the reference is the exchange MPI defines made of
 * point-to-point messages, and `native` must refuse.
 * auto: every rank names the same algorithm; on one node never `node`; on
 * virtual nodes of two ranks it may take `node` anywhere, and must on a
 * dense graph of short blocks (many edges between every pair of nodes) and
 * must not with 16 KiB blocks; without a shared segment its `node` runs as
 * `direct`, correctly; never `multi` (the cost model never prefers it).
 * `multi` runs on Cartesian grids on virtual nodes of two and of three ranks
 * (one node up to np 2 or 3, several above) and without a shared segment,
 * and is refused (PCOLL_ERR_UNSUPPORTED, every rank alike) on graphs and on
 * grids with a periodic dimension of 1 or 2 ranks.
 * Repeats (src/api/entry.c "Repeats"): one-shot calls with the arguments of
 * the thread's last call run its plan again; they must give MPI's result
 * and stop repeating whenever the plan could differ: identical calls (every
 * later one a repeat), one send count changed (and the receive counts it
 * changes) or one displacement, an alltoallw send type freed and another
 * of another layout made (MPI may give it the freed handle), and a
 * communicator freed and one of another topology made with the same degrees
 * and arrays (maybe the same handle).
 * One-shot calls by shape (src/api/entry.c "Shapes"): `node` named on
 * virtual nodes of two ranks is kept by the call's shape
 * (src/neighbor/node_kept.c); every form on a periodic grid and on the
 * distributed graph with repeated and self edges, with and without a shared
 * segment, calls whose blocks change size, go empty, pass 1 KiB (they
 * travel alone) and come back, a moved displacement; a receiver expecting more than its
 * neighbour sends gets PCOLL_ERR_MISMATCH alone and nobody hangs; auto on
 * the dense graph takes `node` at the shape's second call, and leaves it
 * at the 64th where the blocks have grown to 16 KiB.
 */
#include <stdlib.h>
#include <string.h>

#include "api/entry.h"
#include "core/defects.h"
#include "neighbor/neighbor.h"
#include "harness.h"

#define RUNS 3
#define MAXDEG 64 /* edges of a rank, at most (the graphs here have far fewer) */
#define POISON_INT ((int)0xA5A5A5A5)

/* Every algorithm; `node` on virtual nodes of one and of two ranks, `multi`
 * on virtual nodes of two ranks (three for alltoallv: run_all). */
static const char *const algos[] = {"direct", "native", "auto", "node", "node", "multi"};
static const char *const cores[] = {"-", "-", "-", "1", "2", "2"}; /* "-": not set */
#define NALGOS (int)(sizeof algos / sizeof *algos)

static MPI_Datatype rvec; /* one int every two: extent 2 ints */
static MPI_Datatype svec; /* one int every three: extent 3 ints */

enum { F_A2A, F_A2AV, F_A2AW };
static const char *const forms[] = {"alltoall", "alltoallv", "alltoallw"};

/* One case: a communicator, its degrees, and the layout of one form. */
typedef struct nb_case {
    MPI_Comm comm;
    const char *topo;
    int folded; /* Cartesian with a periodic dimension of 1 or 2 ranks */
    int in, out, form, count;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sbytes, *rbytes;
    MPI_Datatype *stypes, *rtypes;
    int slen, rlen; /* ints in the buffers */
    int *send, *recv, *ref;
} nb_case;

static void degrees(MPI_Comm comm, int *in, int *out)
{
    int topo, n, w, r;
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        MPI_Cartdim_get(comm, &n);
        *in = *out = 2 * n;
    } else if (topo == MPI_GRAPH) {
        MPI_Comm_rank(comm, &r);
        MPI_Graph_neighbors_count(comm, r, &n);
        *in = *out = n;
    } else {
        MPI_Dist_graph_neighbors_count(comm, in, out, &w);
    }
}

/* The MPI's neighbourhood calls are wrong here: the reference is made of
 * point-to-point messages. */
static int by_hand(void)
{
    return pcoll__mpi_defect(PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER);
}

/* Whether a persistent `native` plan on c's communicator is deferred (its
 * run the MPI's blocking call: core/native.h). */
static int defers(const nb_case *c)
{
    int p;
    MPI_Comm_size(c->comm, &p);
    return pcoll__nbr_native_defers(1, p);
}

/* The neighbours of comm in MPI's order (in and out: the degrees). */
static void neighbours(MPI_Comm comm, int in, int out, int *src, int *dst)
{
    int topo, d, r, w[2 * MAXDEG];
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        for (d = 0; d < in / 2; d++)
            MPI_Cart_shift(comm, d, 1, &src[2 * d], &src[2 * d + 1]);
        memcpy(dst, src, sizeof *src * (size_t)in);
    } else if (topo == MPI_GRAPH) {
        MPI_Comm_rank(comm, &r);
        MPI_Graph_neighbors(comm, r, in, src);
        memcpy(dst, src, sizeof *src * (size_t)in);
    } else {
        MPI_Dist_graph_neighbors(comm, in, src, w, out, dst, w + MAXDEG);
    }
}

/* The exchange MPI defines, alltoallw's way (byte displacements), made of
 * point-to-point messages: out-edge e's block to dst[e], in-edge e's from
 * src[e].  Cartesian messages are tagged by direction (the block a rank
 * sends up lands in its upper neighbour's slot for the neighbour below);
 * a graph's repeated edges match in list order. */
static void by_messages(MPI_Comm comm, const void *send, const int *scounts,
                        const MPI_Aint *sbytes, const MPI_Datatype *stypes, void *recv,
                        const int *rcounts, const MPI_Aint *rbytes, const MPI_Datatype *rtypes)
{
    int topo, in, out, e, n = 0, src[MAXDEG], dst[MAXDEG];
    MPI_Request req[2 * MAXDEG];
    MPI_Topo_test(comm, &topo);
    degrees(comm, &in, &out);
    PT_CHECK(in <= MAXDEG && out <= MAXDEG, "degrees %d %d", in, out);
    neighbours(comm, in, out, src, dst);
    for (e = 0; e < in; e++)
        PT_MPI(MPI_Irecv((char *)recv + rbytes[e], rcounts[e], rtypes[e], src[e],
                         topo == MPI_CART ? e ^ 1 : 0, comm, &req[n++]));
    for (e = 0; e < out; e++)
        PT_MPI(MPI_Isend((const char *)send + sbytes[e], scounts[e], stypes[e], dst[e],
                         topo == MPI_CART ? e : 0, comm, &req[n++]));
    PT_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
}

/* The receive counts from the MPI's own exchange of the send counts
 * (MPI_PROC_NULL slots keep 2: their blocks stay untouched). */
static void exchange_counts(nb_case *c)
{
    int e;
    for (e = 0; e < c->in; e++)
        c->rcounts[e] = 2;
    if (by_hand()) {
        MPI_Aint sb[MAXDEG], rb[MAXDEG];
        MPI_Datatype t[MAXDEG];
        for (e = 0; e < MAXDEG; e++)
            sb[e] = rb[e] = e * (MPI_Aint)sizeof(int), t[e] = MPI_INT;
        int ones[MAXDEG];
        for (e = 0; e < MAXDEG; e++)
            ones[e] = 1;
        by_messages(c->comm, c->scounts, ones, sb, t, c->rcounts, ones, rb, t);
    } else {
        PT_MPI(MPI_Neighbor_alltoall(c->scounts, 1, MPI_INT, c->rcounts, 1, MPI_INT, c->comm));
    }
}

/* Per-edge send counts, and the receive counts they give. */
static void make_counts(nb_case *c, int zero)
{
    int e, r;
    MPI_Comm_rank(c->comm, &r);
    for (e = 0; e < c->out; e++)
        c->scounts[e] = zero ? 0 : c->form == F_A2A ? c->count : (r * 5 + e * 3) % 4;
    exchange_counts(c);
    if (c->form == F_A2A)
        for (e = 0; e < c->in; e++)
            c->rcounts[e] = zero ? 0 : c->count;
}

/* Blocks in reverse edge order, a gap of one int before each; stride: ints
 * per item on each side (alltoallw: per edge). */
static void make_layout(nb_case *c)
{
    int e, off = 1;
    for (e = c->out - 1; e >= 0; e--) {
        int stride = c->form == F_A2AW && e % 2 ? 3 : 1;
        c->stypes[e] = stride == 3 ? svec : MPI_INT;
        c->sdispls[e] = c->form == F_A2A ? e * c->count : off;
        c->sbytes[e] = (MPI_Aint)off * (MPI_Aint)sizeof(int);
        off += c->scounts[e] * stride + 1;
    }
    c->slen = c->form == F_A2A ? c->out * c->count + 1 : off + 2;
    off = 1;
    for (e = c->in - 1; e >= 0; e--) {
        int stride = c->form == F_A2AW && e % 2 ? 1 : 2;
        c->rtypes[e] = stride == 2 ? rvec : MPI_INT;
        /* alltoallv: displacements in items of rvec (2 ints). */
        c->rdispls[e] = c->form == F_A2A ? e * c->count : (off + 1) / 2;
        off = 2 * ((off + 1) / 2);
        c->rbytes[e] = (MPI_Aint)off * (MPI_Aint)sizeof(int);
        off += c->rcounts[e] * stride + 2;
    }
    c->rlen = c->form == F_A2A ? 2 * c->in * c->count + 2 : off + 2;
}

/* The layout of c's counts and its buffers (made again: same addresses
 * where the sizes allow). */
static void case_layout(nb_case *c)
{
    make_layout(c);
    c->send = realloc(c->send, sizeof(int) * (size_t)c->slen);
    c->recv = realloc(c->recv, sizeof(int) * (size_t)c->rlen);
    c->ref = realloc(c->ref, sizeof(int) * (size_t)c->rlen);
}

static void case_make(nb_case *c, MPI_Comm comm, const char *topo, int folded, int form,
                      int count, int zero)
{
    int n;
    memset(c, 0, sizeof *c);
    c->comm = comm, c->topo = topo, c->folded = folded, c->form = form, c->count = count;
    degrees(comm, &c->in, &c->out);
    n = c->in + c->out + 1;
    c->scounts = calloc((size_t)n, sizeof(int)), c->sdispls = calloc((size_t)n, sizeof(int));
    c->rcounts = calloc((size_t)n, sizeof(int)), c->rdispls = calloc((size_t)n, sizeof(int));
    c->sbytes = calloc((size_t)n, sizeof(MPI_Aint));
    c->rbytes = calloc((size_t)n, sizeof(MPI_Aint));
    c->stypes = calloc((size_t)n, sizeof(MPI_Datatype));
    c->rtypes = calloc((size_t)n, sizeof(MPI_Datatype));
    make_counts(c, zero);
    case_layout(c);
}

static void case_free(nb_case *c)
{
    free(c->scounts), free(c->sdispls), free(c->rcounts), free(c->rdispls);
    free(c->sbytes), free(c->rbytes), free(c->stypes), free(c->rtypes);
    free(c->send), free(c->recv), free(c->ref);
}

/* New input for run `run`; both receive buffers poisoned. */
static void refill(nb_case *c, int run)
{
    int i, r;
    MPI_Comm_rank(c->comm, &r);
    for (i = 0; i < c->slen; i++)
        c->send[i] = run * 1000000 + r * 10000 + i;
    memset(c->recv, 0xA5, sizeof(int) * (size_t)c->rlen);
    memset(c->ref, 0xA5, sizeof(int) * (size_t)c->rlen);
}

/* The MPI's own call into c->ref (by_hand: the exchange by messages). */
static void reference(nb_case *c)
{
    if (by_hand()) {
        MPI_Aint sb[MAXDEG], rb[MAXDEG], iext = (MPI_Aint)sizeof(int);
        MPI_Datatype st[MAXDEG], rt[MAXDEG];
        int sc[MAXDEG], rc[MAXDEG], e;
        for (e = 0; e < c->out && e < MAXDEG; e++) {
            sc[e] = c->form == F_A2A ? c->count : c->scounts[e];
            st[e] = c->form == F_A2AW ? c->stypes[e] : MPI_INT;
            sb[e] = c->form == F_A2AW ? c->sbytes[e]
                    : c->form == F_A2A ? e * c->count * iext
                                        : c->sdispls[e] * iext;
        }
        for (e = 0; e < c->in && e < MAXDEG; e++) {
            rc[e] = c->form == F_A2A ? c->count : c->rcounts[e];
            rt[e] = c->form == F_A2AW ? c->rtypes[e] : rvec;
            rb[e] = c->form == F_A2AW ? c->rbytes[e]
                    : c->form == F_A2A ? e * c->count * 2 * iext
                                        : c->rdispls[e] * 2 * iext;
        }
        by_messages(c->comm, c->send, sc, sb, st, c->ref, rc, rb, rt);
        return;
    }
    if (c->form == F_A2A)
        PT_MPI(MPI_Neighbor_alltoall(c->send, c->count, MPI_INT, c->ref, c->count, rvec,
                                     c->comm));
    else if (c->form == F_A2AV)
        PT_MPI(MPI_Neighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->ref,
                                      c->rcounts, c->rdispls, rvec, c->comm));
    else
        PT_MPI(MPI_Neighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, c->ref,
                                      c->rcounts, c->rbytes, c->rtypes, c->comm));
}

/* c->recv must equal c->ref int for int (poison included). */
static void compare(const nb_case *c)
{
    int i;
    for (i = 0; i < c->rlen; i++)
        if (c->recv[i] != c->ref[i]) {
            pt_check_elem("recv", -1, i, c->ref[i], c->recv[i]);
            return;
        }
}

static int init_plan(nb_case *c, MPI_Info info, pcoll_plan_t **plan)
{
    if (c->form == F_A2A)
        return pcoll_neighbor_alltoall_init(c->send, c->count, MPI_INT, c->recv, c->count, rvec,
                                            c->comm, info, plan);
    if (c->form == F_A2AV)
        return pcoll_neighbor_alltoallv_init(c->send, c->scounts, c->sdispls, MPI_INT, c->recv,
                                             c->rcounts, c->rdispls, rvec, c->comm, info, plan);
    return pcoll_neighbor_alltoallw_init(c->send, c->scounts, c->sbytes, c->stypes, c->recv,
                                         c->rcounts, c->rbytes, c->rtypes, c->comm, info, plan);
}

/* The large-count init of the same call (MPI_Count / MPI_Aint arrays). */
static int init_plan_c(nb_case *c, MPI_Info info, pcoll_plan_t **plan)
{
    int n = c->in + c->out + 1, e, rc;
    MPI_Count *sc = calloc((size_t)n, sizeof *sc), *rc_ = calloc((size_t)n, sizeof *rc_);
    MPI_Aint *sd = calloc((size_t)n, sizeof *sd), *rd = calloc((size_t)n, sizeof *rd);
    for (e = 0; e < c->out; e++)
        sc[e] = c->scounts[e], sd[e] = c->form == F_A2AW ? c->sbytes[e] : c->sdispls[e];
    for (e = 0; e < c->in; e++)
        rc_[e] = c->rcounts[e], rd[e] = c->form == F_A2AW ? c->rbytes[e] : c->rdispls[e];
    if (c->form == F_A2A)
        rc = pcoll_neighbor_alltoall_init_c(c->send, c->count, MPI_INT, c->recv, c->count, rvec,
                                            c->comm, info, plan);
    else if (c->form == F_A2AV)
        rc = pcoll_neighbor_alltoallv_init_c(c->send, sc, sd, MPI_INT, c->recv, rc_, rd, rvec,
                                             c->comm, info, plan);
    else
        rc = pcoll_neighbor_alltoallw_init_c(c->send, sc, sd, c->stypes, c->recv, rc_, rd,
                                             c->rtypes, c->comm, info, plan);
    /* The plan keeps its own copies. */
    free(sc), free(rc_), free(sd), free(rd);
    return rc;
}

static int oneshot(nb_case *c)
{
    if (c->form == F_A2A)
        return pcoll_neighbor_alltoall(c->send, c->count, MPI_INT, c->recv, c->count, rvec,
                                       c->comm);
    if (c->form == F_A2AV)
        return pcoll_neighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->recv,
                                        c->rcounts, c->rdispls, rvec, c->comm);
    return pcoll_neighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, c->recv,
                                    c->rcounts, c->rbytes, c->rtypes, c->comm);
}

/* The index of name in the table (-1: not there). */
static int algo_index(const char *name)
{
    const char *n;
    int i;
    for (i = 0; (n = pcoll_algorithm_name("neighbor_alltoall", i)) != NULL; i++)
        if (!strcmp(n, name))
            return i;
    return -1;
}

/* auto's plan: the same algorithm on every rank; never `multi`; expect
 * (NULL: any) the one it must be, or "!node": any but `node`. */
static void check_auto(const pcoll_plan_t *plan, const char *cpn, const char *expect)
{
    const char *name = pcoll_plan_algorithm(plan);
    int i = algo_index(name), lo = i, hi = i;
    PT_MPI(MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    PT_MPI(MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    PT_CHECK(i >= 0 && lo == hi, "auto took %s here (index %d), %d to %d over the ranks", name,
             i, lo, hi);
    PT_CHECK(strcmp(name, "multi"), "auto took multi");
    (void)cpn;
    if (expect && expect[0] == '!')
        PT_CHECK(strcmp(name, expect + 1), "auto took %s", name);
    else if (expect)
        PT_CHECK(!strcmp(name, expect), "auto took %s, not %s", name, expect);
}

/* Whether `multi` refuses c's communicator: not Cartesian, or folded. */
static int multi_refused(const nb_case *c, const char *algo)
{
    return !strcmp(algo, "multi") && (strncmp(c->topo, "cart", 4) || c->folded);
}

/* A persistent plan of algo (on virtual nodes of cpn ranks; large: the _c
 * init), run RUNS times; auto's choice checked against expect
 * (check_auto). */
static void run_plan(nb_case *c, const char *algo, const char *cpn, int large,
                     const char *expect)
{
    pcoll_plan_t *plan = NULL;
    MPI_Info info;
    int rc, run;
    pt_case("%s %s %s cores %s count %d persistent%s", c->topo, forms[c->form], algo, cpn,
            c->count, large ? " _c" : "");
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", algo);
    if (strcmp(cpn, "-"))
        MPI_Info_set(info, "pcoll_cores_per_node", cpn);
    refill(c, 0);
    rc = large ? init_plan_c(c, info, &plan) : init_plan(c, info, &plan);
    MPI_Info_free(&info);
    if (multi_refused(c, algo)) {
        PT_RC(rc, PCOLL_ERR_UNSUPPORTED);
        PT_CHECK(plan == NULL, "plan set on error");
        return;
    }
    /* native is refused alike on every rank where the MPI's started calls
     * are known to fill the wrong slots (core/defects.h), unless its plan
     * makes the blocking call in wait (deferred), which fills them right. */
    if (rc == PCOLL_ERR_UNSUPPORTED && !strcmp(algo, "native") &&
        ((c->folded && !defers(c)) || by_hand())) {
        pt_skip("native refused: the MPI's started calls are wrong on this topology");
        return;
    }
    if (!PT_OK(rc))
        return;
    if (strcmp(algo, "auto"))
        PT_CHECK(!strcmp(pcoll_plan_algorithm(plan), algo), "plan algorithm %s",
                 pcoll_plan_algorithm(plan));
    else
        check_auto(plan, cpn, expect);
    for (run = 0; run < RUNS; run++) {
        refill(c, run);
        reference(c);
        PT_REQUIRE(pcoll_start(plan));
        PT_REQUIRE(pcoll_wait(plan));
        compare(c);
    }
    PT_OK(pcoll_plan_free(&plan));
}

static void run_persistent(nb_case *c, const char *algo, const char *cpn, int large)
{
    run_plan(c, algo, cpn, large, NULL);
}

/* One-shot calls of algo (the environment), twice (the second from the
 * plan cache, or planned again for `node`) with new input. */
static void run_oneshot(nb_case *c, const char *algo, const char *cpn)
{
    int run;
    pt_case("%s %s %s cores %s count %d one-shot", c->topo, forms[c->form], algo, cpn,
            c->count);
    setenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", algo, 1);
    if (strcmp(cpn, "-"))
        setenv("PCOLL_CORES_PER_NODE", cpn, 1);
    if (!strcmp(algo, "native") && by_hand())
        PT_CHECK(oneshot(c) == PCOLL_ERR_UNSUPPORTED, "native not refused on this MPI");
    if (multi_refused(c, algo))
        PT_RC(oneshot(c), PCOLL_ERR_UNSUPPORTED);
    for (run = 0; run < 2 && !(!strcmp(algo, "native") && by_hand()) && !multi_refused(c, algo);
         run++) {
        refill(c, run);
        reference(c);
        PT_REQUIRE(oneshot(c));
        compare(c);
    }
    unsetenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM");
    unsetenv("PCOLL_CORES_PER_NODE");
}

static void run_all(MPI_Comm comm, const char *topo, int folded)
{
    nb_case c;
    int f, a, zero;
    for (f = F_A2A; f <= F_A2AW; f++)
        for (zero = 0; zero < 2; zero++) {
            case_make(&c, comm, topo, folded, f, zero ? 0 : 3, zero);
            for (a = 0; a < NALGOS; a++) {
                const char *cpn = strcmp(algos[a], "multi") || f != F_A2AV ? cores[a] : "3";
                run_persistent(&c, algos[a], cpn, 0);
                /* One-shot `node` (its shape's kept plan: kept() tests
                 * every form) and `multi` (planned collectively on every
                 * call): alltoallv's form only, to keep the test short. */
                if ((strcmp(algos[a], "node") && strcmp(algos[a], "multi")) || f == F_A2AV)
                    run_oneshot(&c, algos[a], cpn);
            }
            run_persistent(&c, "auto", "2", 0);
            if (!zero) {
                run_persistent(&c, "auto", "-", 1);
                run_persistent(&c, "node", "2", 1);
                run_persistent(&c, "multi", "3", 1);
            }
            if (!zero && f == F_A2AW) {
                /* Without a shared segment every rank is its own node. */
                setenv("PCOLL_HIER_SHM", "0", 1);
                run_persistent(&c, "multi", "3", 0);
                unsetenv("PCOLL_HIER_SHM");
            }
            case_free(&c);
        }
}

/* ---- topologies ---------------------------------------------------------- */

static void cart(int ndims, int periodic)
{
    int dims[3] = {0, 0, 0}, periods[3], d, folded = 0;
    char name[64];
    MPI_Comm comm;
    MPI_Dims_create(pt_size, ndims, dims);
    for (d = 0; d < ndims; d++) {
        /* periodic 2: mixed, the first dimension only */
        periods[d] = periodic == 1 || (periodic == 2 && d == 0);
        folded |= periods[d] && dims[d] <= 2;
    }
    PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &comm));
    snprintf(name, sizeof name, "cart%dd-%s", ndims,
             periodic == 1 ? "periodic" : periodic == 2 ? "mixed" : "open");
    run_all(comm, name, folded);
    MPI_Comm_free(&comm);
}

/* Repeated edges and a self edge: to r+1 twice, to r+2 and to itself
 * (weighted: the weights must not matter). */
static void dist_repeated(void)
{
    int r = pt_rank, p = pt_size;
    int sources[4] = {r, (r - 2 + 2 * p) % p, (r - 1 + p) % p, (r - 1 + p) % p};
    int dests[4] = {(r + 1) % p, r, (r + 2) % p, (r + 1) % p};
    int sw[4] = {1, 2, 3, 4}, dw[4] = {4, 3, 2, 1};
    MPI_Comm comm;
    PT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, sources, sw, 4, dests, dw,
                                          MPI_INFO_NULL, 0, &comm));
    run_all(comm, "dist-repeated", 0);
    MPI_Comm_free(&comm);
}

/* Asymmetric: rank 0 sends to every rank but the last, ranks r % 3 == 1
 * to r+1 (unless that is the last); the last rank has no neighbours (from
 * two ranks on).  Weighted, to check that weights are ignored. */
static void dist_asymmetric(void)
{
    int r = pt_rank, p = pt_size, n = 0, j;
    int *dests = malloc(sizeof(int) * (size_t)(p + 1)), *w = malloc(sizeof(int) * (size_t)(p + 1));
    int src = r;
    MPI_Comm comm;
    if (r == 0)
        for (j = 0; j < (p > 1 ? p - 1 : 1); j++)
            dests[n] = j, w[n++] = j + 1;
    else if (r % 3 == 1 && r + 1 < p - 1)
        dests[n] = r + 1, w[n++] = 7;
    PT_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n > 0, &src, &n, dests, w, MPI_INFO_NULL, 0,
                                 &comm));
    run_all(comm, "dist-asymmetric", 0);
    MPI_Comm_free(&comm);
    free(dests), free(w);
}

/* A ring as a graph topology: neighbours r+1 and r-1. */
static void graph_ring(void)
{
    int p = pt_size, i;
    int *index = malloc(sizeof(int) * (size_t)p), *edges = malloc(sizeof(int) * 2 * (size_t)p);
    MPI_Comm comm;
    for (i = 0; i < p; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % p, edges[2 * i + 1] = (i - 1 + p) % p;
    }
    PT_MPI(MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &comm));
    run_all(comm, "graph-ring", 0);
    MPI_Comm_free(&comm);
    free(index), free(edges);
}

/* A distributed graph of every other rank twice, the sources the same
 * ranks in the same order. */
static MPI_Comm dense_comm(void)
{
    int r = pt_rank, p = pt_size, n = 0, j, k;
    int *peers = malloc(sizeof(int) * 4 * (size_t)p + 1), *w = peers + 2 * p;
    MPI_Comm comm;
    for (k = 0; k < 2; k++)
        for (j = 1; j < p; j++)
            w[n] = 1, peers[n++] = (r + j) % p;
    PT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, peers, w, n, peers, w,
                                          MPI_INFO_NULL, 0, &comm));
    free(peers);
    return comm;
}

/* Every other rank twice (as a 27-point stencil's neighbours repeat on
 * small grids): on virtual nodes of two ranks, from three ranks on, many
 * edges join every pair of nodes (at two ranks, one node); on the one node of the job (all ranks
 * of the test's), 2 (p - 1) edges a rank and no message for `node`.  auto
 * must take `node` for blocks of 3 ints, and for blocks of 4096 (16 KiB)
 * on one node of two ranks but not between nodes, and without a shared
 * segment (PCOLL_HIER_SHM=0) its `node` runs as `direct`, says so, and
 * gives MPI's result. */
static void dense_auto(void)
{
    const char *small = pt_size >= 2 ? "node" : "!node";
    MPI_Comm comm = dense_comm();
    nb_case c;
    /* On one node (cores 2 at np 2, and "-"): MPICH's share of alpha per
     * message of the MPI (1) takes node; a tiny share with a costly node
     * barrier does not (Open MPI's 0.2 leaves this graph of 2 edges at np 2
     * to the MPI). */
    setenv("PCOLL_COST_LOCAL", "1", 1);
    case_make(&c, comm, "dense", 0, F_A2AV, 3, 0);
    run_plan(&c, "auto", "2", 0, small);
    run_plan(&c, "auto", "-", 0, pt_size >= 2 ? "node" : "!node");
    setenv("PCOLL_COST_LOCAL", "0.01", 1);
    setenv("PCOLL_COST_BARRIER", "1e-5", 1);
    run_plan(&c, "auto", "-", 0, "!node");
    unsetenv("PCOLL_COST_BARRIER");
    setenv("PCOLL_COST_LOCAL", "1", 1);
    setenv("PCOLL_HIER_SHM", "0", 1);
    run_plan(&c, "auto", "2", 0, "!node");
    run_plan(&c, "auto", "-", 0, "!node");
    unsetenv("PCOLL_HIER_SHM");
    case_free(&c);
    /* 16 KiB blocks: between nodes (virtual ones of 2 from np 3) a kept
     * plan would send them alone, so not `node`; on one node (np 2) it
     * bundles them (up to 16 KiB there) and the MPI's two messages of the
     * share cost more than the copies: `node`.  (On one node of more ranks
     * the model decides: no expectation.) */
    case_make(&c, comm, "dense", 0, F_A2A, 4096, 0);
    run_plan(&c, "auto", "2", 0, pt_size == 2 ? "node" : "!node");
    run_plan(&c, "auto", "-", 0, pt_size == 2 ? "node" : pt_size == 1 ? "!node" : NULL);
    unsetenv("PCOLL_COST_LOCAL");
    /* `node` named with bundles of several 16 KiB blocks (tens of KiB
     * between two nodes): nodes of 2 and of 3 (the last one smaller where 3
     * does not divide p). */
    run_plan(&c, "node", "2", 0, NULL);
    run_plan(&c, "node", "3", 0, NULL);
    case_free(&c);
    /* Blocks of 1001 ints: bundles of no round size. */
    case_make(&c, comm, "dense", 0, F_A2A, 1001, 0);
    run_plan(&c, "node", "3", 0, NULL);
    case_free(&c);
    MPI_Comm_free(&comm);
}

/* ---- repeats ---------------------------------------------------------------- */

/* One one-shot call of c with new input (run) against the MPI's; whether
 * it ran as a repeat of the call before. */
static int repeat_call(nb_case *c, int run)
{
    unsigned long before = pcoll__repeats();
    refill(c, run);
    reference(c);
    PT_REQUIRE(oneshot(c));
    compare(c);
    return pcoll__repeats() != before;
}

/* Four calls with c's arguments: the third and fourth are repeats (the
 * second is where the call's shape is decided, for every rank together:
 * no repeat where the communicator's first such call came before). */
static void repeat_same(nb_case *c, int run)
{
    int k;
    repeat_call(c, run);
    repeat_call(c, run + 1);
    for (k = 2; k < 4; k++)
        PT_CHECK(repeat_call(c, run + k), "call %d of the same arguments not a repeat", k + 1);
}

/* Whether a repeat of c's last call forwards its arrays to the MPI's call
 * (src/api/entry.c "Repeats"): the int alltoallv form run by `native`. */
static int forwards(const nb_case *c)
{
    return c->form == F_A2AV && strcmp(pcoll__last_run_algorithm, "native") == 0;
}

/* Whether the last call ran the plan its shape keeps (`node`, auto's
 * choice on one node too), which takes each call's checked arguments: its
 * repeats begin at the third of equal calls after a change (the second
 * keeps the arguments). */
static int kept_plan(void)
{
    return strcmp(pcoll__last_run_algorithm, "node") == 0;
}

/* After a change of c's arrays: the calls before the first repeat. */
static void towards_repeat(nb_case *c, int kept, int run)
{
    if (kept)
        PT_CHECK(!repeat_call(c, run), "the second call after a change ran as a repeat");
}

/* Send count 0 one item more on every rank (the receive counts it changes
 * from the exchange), then back; the layouts' gaps have room for it.  The
 * first call after each change is no repeat, but where the repeat forwards
 * the arrays as they are. */
static void repeat_counts(nb_case *c)
{
    int k;
    for (k = 0; k < 2 && c->out > 0; k++) {
        int fwd = forwards(c);
        pt_case("%s %s repeats, send count 0 %s%s", c->topo, forms[c->form],
                k ? "back" : "one more", fwd ? " (forwarded)" : "");
        int kept = kept_plan();
        c->scounts[0] += k ? -1 : 1;
        exchange_counts(c);
        PT_CHECK(repeat_call(c, 10 + 2 * k) == fwd,
                 fwd ? "a changed count not forwarded" : "a changed count ran as a repeat");
        towards_repeat(c, kept, 15);
        PT_CHECK(repeat_call(c, 11 + 2 * k), "the same counts again not a repeat");
    }
}

/* The receive displacement of in-edge 0 one item (alltoallw: two ints)
 * further on every rank: into its gap. */
static void repeat_displs(nb_case *c)
{
    int fwd = forwards(c), kept = kept_plan();
    if (c->in == 0)
        return;
    pt_case("%s %s repeats, receive displacement 0 moved%s", c->topo, forms[c->form],
            fwd ? " (forwarded)" : "");
    c->rdispls[0]++;
    c->rbytes[0] += 2 * (MPI_Aint)sizeof(int);
    PT_CHECK(repeat_call(c, 20) == fwd, fwd ? "a changed displacement not forwarded"
                                            : "a changed displacement ran as a repeat");
    towards_repeat(c, kept, 22);
    PT_CHECK(repeat_call(c, 21), "the same displacements again not a repeat");
}

/* Items of one int every stride ints. */
static MPI_Datatype strided(int stride)
{
    MPI_Datatype t;
    PT_MPI(MPI_Type_create_resized(MPI_INT, 0, stride * (MPI_Aint)sizeof(int), &t));
    PT_MPI(MPI_Type_commit(&t));
    return t;
}

/* alltoallw: the send type of c's odd out-edges. */
static void odd_types(nb_case *c, MPI_Datatype t)
{
    for (int e = 1; e < c->out; e += 2)
        c->stypes[e] = t;
}

/* t freed, and types of one int every two made until MPI gives one t's
 * handle (*again; else the last one made is taken): the new type. */
static MPI_Datatype made_again(MPI_Datatype t, int *again)
{
    MPI_Datatype old = t, spare[64];
    int i, n = 0;
    *again = 0;
    PT_MPI(MPI_Type_free(&t));
    while (n < 64 && !*again) {
        spare[n] = strided(2);
        *again = spare[n++] == old;
    }
    t = spare[--n];
    for (i = 0; i < n; i++)
        MPI_Type_free(&spare[i]);
    if (!*again)
        pt_note("repeats: no new type took the freed handle");
    return t;
}

/* alltoallw: the odd edges' send type (one int every three) freed and
 * types of one int every two made until MPI gives one the freed handle
 * (the call's arrays are then byte for byte the last call's): the plan of
 * the freed type must not run. */
static void repeat_types(nb_case *c)
{
    MPI_Datatype t = strided(3);
    int again, kept;
    pt_case("%s alltoallw repeats, a send type freed and made again", c->topo);
    odd_types(c, t);
    repeat_same(c, 30);
    kept = kept_plan();
    t = made_again(t, &again);
    odd_types(c, t);
    PT_CHECK(!repeat_call(c, 33), "a call of a freed type's handle ran as a repeat");
    /* The same handle: its first call kept the arguments (the arrays were
     * the last call's). */
    towards_repeat(c, kept && !again, 35);
    PT_CHECK(repeat_call(c, 34), "the new type's second call not a repeat");
    odd_types(c, svec);
    MPI_Type_free(&t);
}

/* Every form on a 2-D periodic grid: identical calls, then changed
 * arrays. */
static void repeats_grid(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 1}, f;
    MPI_Comm comm;
    nb_case c;
    MPI_Dims_create(pt_size, 2, dims);
    PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &comm));
    for (f = F_A2A; f <= F_A2AW; f++) {
        case_make(&c, comm, "cart2d-periodic", dims[0] <= 2 || dims[1] <= 2, f, 3, 0);
        pt_case("%s %s repeats, same arguments", c.topo, forms[f]);
        repeat_same(&c, 0);
        if (f != F_A2A) {
            repeat_counts(&c);
            repeat_displs(&c);
        }
        if (f == F_A2AW)
            repeat_types(&c);
        case_free(&c);
    }
    MPI_Comm_free(&comm);
}

/* A 1-D periodic grid and a distributed graph of the same degrees with the
 * neighbours the other way round (up first). */
static void ring_comm(int graph, MPI_Comm *comm)
{
    int r = pt_rank, p = pt_size, dims[1] = {pt_size}, periods[1] = {1};
    int nb[2] = {(r + 1) % p, (r - 1 + p) % p}, w[2] = {1, 1};
    if (graph)
        PT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, w, 2, nb, w, MPI_INFO_NULL,
                                              0, comm));
    else
        PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, comm));
}

/* A communicator freed and one of another topology made (up to 8 tries,
 * until every rank gets the freed handle back), the call's arguments the
 * same: the plan of the freed one must not run. */
static void repeats_comms(void)
{
    MPI_Comm comm, old, spare[8];
    nb_case c;
    int e, n = 0, again = 0;
    ring_comm(0, &comm);
    case_make(&c, comm, "cart1d-periodic", pt_size <= 2, F_A2AV, 2, 0);
    /* Two items on every edge: valid on either communicator. */
    for (e = 0; e < 2; e++)
        c.scounts[e] = c.rcounts[e] = 2;
    case_layout(&c);
    pt_case("repeats, a communicator freed and another made");
    repeat_same(&c, 40);
    old = comm;
    PT_MPI(MPI_Comm_free(&comm));
    while (n < 8 && !again) {
        ring_comm(1, &spare[n]);
        again = spare[n++] == old;
        PT_MPI(MPI_Allreduce(MPI_IN_PLACE, &again, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    }
    c.comm = spare[--n], c.topo = "dist-ring", c.folded = 0;
    if (!again)
        pt_note("repeats: no new communicator took the freed handle");
    PT_CHECK(!repeat_call(&c, 43), "a call on a new communicator ran as a repeat");
    /* Its second call decides the shape. */
    repeat_call(&c, 44);
    PT_CHECK(repeat_call(&c, 45), "the new communicator's third call not a repeat");
    while (n >= 0)
        MPI_Comm_free(&spare[n--]);
    case_free(&c);
}

/* ---- one-shot calls by shape ------------------------------------------------ */

/* One one-shot call of c (new input: run) against the MPI's, run by the
 * plan its shape keeps: `node` (src/neighbor/node_kept.c). */
static void kept_call(nb_case *c, int run, const char *what)
{
    pt_case("%s %s kept node, %s", c->topo, forms[c->form], what);
    refill(c, run);
    reference(c);
    PT_REQUIRE(oneshot(c));
    compare(c);
    PT_CHECK(!strcmp(pcoll__last_run_algorithm, "node"), "the call ran %s",
             pcoll__last_run_algorithm);
}

/* c's send count of out-edge 0 set to n (the receive counts follow), the
 * buffers laid out again. */
static void kept_count(nb_case *c, int n)
{
    if (c->out > 0)
        c->scounts[0] = n;
    exchange_counts(c);
    case_layout(c);
}

/* Calls whose sizes leave the deciding call's: in the bundles up to 1 KiB
 * a block, alone above, every result MPI's. */
static void kept_form(MPI_Comm comm, const char *topo, int folded, int form)
{
    nb_case c;
    int first;
    case_make(&c, comm, topo, folded, form, 3, 0);
    kept_call(&c, 0, "the deciding call");
    kept_call(&c, 1, "the same arguments");
    if (form == F_A2A) {
        c.count = 5;
        make_counts(&c, 0), case_layout(&c);
        kept_call(&c, 2, "every block of another size");
        c.count = 0;
        make_counts(&c, 1), case_layout(&c);
        kept_call(&c, 3, "every block empty");
        c.count = 3;
        make_counts(&c, 0), case_layout(&c);
        kept_call(&c, 4, "the deciding sizes again");
    } else {
        first = c.out > 0 ? c.scounts[0] : 0;
        kept_count(&c, first + 2);
        kept_call(&c, 2, "out-edge 0 two items more");
        kept_count(&c, 0);
        kept_call(&c, 3, "out-edge 0 empty");
        kept_count(&c, 300);
        kept_call(&c, 6, "out-edge 0 of 1200 bytes or more (alone)");
        kept_count(&c, first);
        kept_call(&c, 4, "the deciding sizes again");
        if (c.in > 0) {
            c.rdispls[0]++;
            c.rbytes[0] += 2 * (MPI_Aint)sizeof(int);
            kept_call(&c, 5, "a receive displacement moved");
        }
    }
    case_free(&c);
}

/* Repeats of calls the kept plan runs (src/api/entry.c "Repeats": a
 * shape whose plan takes each call's checked arguments keeps them from the
 * second of two equal calls): four equal calls, the third and fourth
 * repeats; a count changed (then equal calls again: the third repeats); a
 * receive displacement moved likewise; alltoallw: a send type freed and
 * another one made until MPI gives it the freed handle (the arrays then
 * byte for byte the last call's): its first call must not repeat (it runs
 * the full path, which keeps the new type), the next does (other handles:
 * new arrays, the third call repeats).  Every result
 * compared with the MPI's. */
static void kept_repeat_run(nb_case *c, int run, int want, const char *what)
{
    pt_case("%s %s kept node repeats, %s", c->topo, forms[c->form], what);
    PT_CHECK(repeat_call(c, run) == want, want ? "not a repeat" : "ran as a repeat");
    PT_CHECK(!strcmp(pcoll__last_run_algorithm, "node"), "the call ran %s",
             pcoll__last_run_algorithm);
}

static void kept_repeats(MPI_Comm comm, const char *topo, int folded, int form)
{
    nb_case c;
    int k;
    case_make(&c, comm, topo, folded, form, 3, 0);
    for (k = 0; k < 4; k++)
        kept_repeat_run(&c, 40 + k, k >= 2, "the same arguments");
    if (form != F_A2A && c.out > 0) {
        kept_count(&c, c.scounts[0] + 1);
        for (k = 0; k < 3; k++)
            kept_repeat_run(&c, 44 + k, k == 2, "send count 0 one item more");
    }
    if (form != F_A2A && c.in > 0) {
        c.rdispls[0]++;
        c.rbytes[0] += 2 * (MPI_Aint)sizeof(int);
        for (k = 0; k < 3; k++)
            kept_repeat_run(&c, 47 + k, k == 2, "a receive displacement moved");
    }
    if (form == F_A2AW && c.out > 1) {
        MPI_Datatype t = strided(3);
        int again;
        odd_types(&c, t);
        for (k = 0; k < 3; k++)
            kept_repeat_run(&c, 50 + k, k == 2, "a send type of its own");
        t = made_again(t, &again);
        odd_types(&c, t);
        for (k = 0; k < 3; k++)
            kept_repeat_run(&c, 53 + k, again ? k >= 1 : k == 2,
                            "the freed type's handle made again");
        odd_types(&c, svec);
        MPI_Type_free(&t);
    }
    case_free(&c);
}

/* Rank 0 expects one int more on in-edge 0 than its neighbour sends, on a
 * kept plan: PCOLL_ERR_MISMATCH there (its flag says the block is in the
 * bundle, of another size), the others' calls succeed, nobody waits; the
 * next call is right again. */
static void kept_mismatch(MPI_Comm comm, const char *topo, int folded)
{
    nb_case c;
    int rc;
    case_make(&c, comm, topo, folded, F_A2AV, 3, 0);
    kept_call(&c, 0, "before a mismatch");
    pt_case("%s kept node, rank 0 expects one int more", topo);
    refill(&c, 1);
    if (pt_rank == 0)
        c.rcounts[0]++;
    rc = oneshot(&c);
    if (pt_rank == 0)
        PT_RC(rc, c.in > 0 ? PCOLL_ERR_MISMATCH : PCOLL_SUCCESS);
    else
        PT_OK(rc);
    if (pt_rank == 0)
        c.rcounts[0]--;
    kept_call(&c, 2, "after a mismatch");
    case_free(&c);
}

/* Rank 0 awaits a block of 5000 items (20 KB: over any kept plan's piece,
 * so it posts its receive at the start of the run) on in-edge 0, whose
 * sender puts its few items in the bundle: PCOLL_ERR_MISMATCH there (the
 * receive posted for a message that never comes is cancelled), the
 * others' calls succeed, nobody waits; the next call is right again. */
static void kept_mismatch_alone(MPI_Comm comm, const char *topo, int folded)
{
    nb_case c;
    int rc, was = 0;
    case_make(&c, comm, topo, folded, F_A2AV, 3, 0);
    kept_call(&c, 0, "before a mismatch over the piece");
    pt_case("%s kept node, rank 0 awaits 5000 items alone", topo);
    if (pt_rank == 0 && c.in > 0) {
        was = c.rcounts[0];
        c.rcounts[0] = 5000;
        case_layout(&c);
    }
    refill(&c, 1);
    rc = oneshot(&c);
    if (pt_rank == 0)
        PT_RC(rc, c.in > 0 ? PCOLL_ERR_MISMATCH : PCOLL_SUCCESS);
    else
        PT_OK(rc);
    if (pt_rank == 0 && c.in > 0) {
        c.rcounts[0] = was;
        case_layout(&c);
    }
    kept_call(&c, 2, "after a mismatch over the piece");
    case_free(&c);
}

/* auto one-shot on the dense graph of dense_auto (np >= 3), virtual nodes
 * of `cores` ranks: blocks of 3 ints take `node` at the shape's second
 * call; blocks of 4096 ints from call 4 on run `node` until the shape is
 * looked at again (a rank's volume left half to twice the deciding
 * call's) at call `look`, where auto leaves it. */
static void grown_blocks(const char *cores, int look)
{
    MPI_Comm dense = dense_comm();
    nb_case c;
    int j, k;
    setenv("PCOLL_CORES_PER_NODE", cores, 1);
    case_make(&c, dense, "dense", 0, F_A2AV, 3, 0);
    pt_case("dense auto one-shot, the shape's first call");
    refill(&c, 0), reference(&c);
    PT_REQUIRE(oneshot(&c));
    compare(&c);
    kept_call(&c, 1, "auto, the shape's second call");
    kept_call(&c, 2, "auto, the third");
    c.count = 4096;
    for (k = 0; k < c.out; k++)
        c.scounts[k] = 4096;
    exchange_counts(&c), case_layout(&c);
    for (j = 4; j <= look; j++) {
        refill(&c, j), reference(&c);
        PT_REQUIRE(oneshot(&c));
        compare(&c);
        if (j == look - 1)
            PT_CHECK(!strcmp(pcoll__last_run_algorithm, "node"),
                     "nodes of %s: call %d ran %s before the shape was looked at again",
                     cores, j, pcoll__last_run_algorithm);
    }
    PT_CHECK(strcmp(pcoll__last_run_algorithm, "node"),
             "nodes of %s: call %d of 16 KiB blocks still ran node", cores, look);
    case_free(&c);
    MPI_Comm_free(&dense);
}

/* `node` named for one-shot calls on virtual nodes of two ranks (one node
 * of one or two ranks below np 3): decided at the first call and kept;
 * without a shared segment every rank is its own node.  auto takes it at
 * a shape's second call where a persistent plan would (dense graph, short
 * blocks). */
static void kept(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 1}, r = pt_rank, p = pt_size, f, shm;
    char all[16];
    int sources[4] = {r, (r - 2 + 2 * p) % p, (r - 1 + p) % p, (r - 1 + p) % p};
    int dests[4] = {(r + 1) % p, r, (r + 2) % p, (r + 1) % p}, w[4] = {1, 1, 1, 1};
    MPI_Comm cart, dist;
    MPI_Dims_create(pt_size, 2, dims);
    PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    PT_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, sources, w, 4, dests, w,
                                          MPI_INFO_NULL, 0, &dist));
    setenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM", "node", 1);
    setenv("PCOLL_CORES_PER_NODE", "2", 1);
    for (shm = 1; shm >= 0; shm--) {
        if (!shm)
            setenv("PCOLL_HIER_SHM", "0", 1);
        for (f = F_A2A; f <= F_A2AW; f++) {
            kept_form(cart, shm ? "cart2d-periodic" : "cart2d-periodic no segment",
                      dims[0] <= 2 || dims[1] <= 2, f);
            kept_form(dist, shm ? "dist-repeated" : "dist-repeated no segment", 0, f);
            kept_repeats(cart, shm ? "cart2d-periodic" : "cart2d-periodic no segment",
                         dims[0] <= 2 || dims[1] <= 2, f);
        }
        unsetenv("PCOLL_HIER_SHM");
    }
    kept_mismatch(cart, "cart2d-periodic", dims[0] <= 2 || dims[1] <= 2);
    kept_mismatch_alone(cart, "cart2d-periodic", dims[0] <= 2 || dims[1] <= 2);
    kept_mismatch_alone(dist, "dist-repeated", 0);
    unsetenv("PCOLL_NEIGHBOR_ALLTOALL_ALGORITHM");
    if (p >= 3) {
        /* Virtual nodes of two ranks: the look at call 64.  Every rank on
         * one node (the MPI's messages there at a whole alpha, as MPICH's,
         * so that auto takes node on every MPI): the node's signal, raised
         * by the ranks whose volume moved at call 4, makes every rank look
         * at call 5. */
        grown_blocks("2", 64);
        snprintf(all, sizeof all, "%d", p);
        setenv("PCOLL_COST_LOCAL", "1", 1);
        grown_blocks(all, 5);
        unsetenv("PCOLL_COST_LOCAL");
    }
    unsetenv("PCOLL_CORES_PER_NODE");
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dist);
}

/* ---- errors ----------------------------------------------------------------- */

static void errors(void)
{
    int dims[1] = {0}, periods[1] = {1}, one = 1, zero[1] = {0};
    pcoll_plan_t *plan = NULL;
    MPI_Comm comm;
    nb_case c;

    /* No topology: the same code on every rank, persistent and one-shot. */
    pt_case("no topology");
    PT_RC(pcoll_neighbor_alltoall_init(&one, 1, MPI_INT, zero, 1, MPI_INT, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &plan),
          PCOLL_ERR_ARG);
    PT_CHECK(plan == NULL, "plan set on error");
    PT_RC(pcoll_neighbor_alltoall(&one, 1, MPI_INT, zero, 1, MPI_INT, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);

    MPI_Dims_create(pt_size, 1, dims);
    PT_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &comm));
    case_make(&c, comm, "cart1d-periodic", pt_size <= 2, F_A2AV, 0, 0);
    refill(&c, 0);

    /* One rank's negative count: PCOLL_ERR_ARG on every rank. */
    pt_case("negative count on the last rank");
    if (pt_rank == pt_size - 1)
        c.scounts[0] = -1;
    PT_RC(init_plan(&c, MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    c.scounts[0] = (pt_rank * 5) % 4;

    /* Rank 0 expects one int more from its first neighbour than it sends:
     * PCOLL_ERR_MISMATCH on every rank, for every algorithm. */
    for (int a = 0; a < NALGOS; a++) {
        MPI_Info info;
        pt_case("size mismatch between neighbours, %s", algos[a]);
        MPI_Info_create(&info);
        MPI_Info_set(info, "pcoll_algorithm", algos[a]);
        if (pt_rank == 0)
            c.rcounts[0]++;
        PT_RC(init_plan(&c, info, &plan), PCOLL_ERR_MISMATCH);
        PT_CHECK(plan == NULL, "plan set on error");
        if (pt_rank == 0)
            c.rcounts[0]--;
        MPI_Info_free(&info);
    }
    case_free(&c);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int nd, per;
    pt_init(&argc, &argv);
    PT_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &rvec));
    PT_MPI(MPI_Type_commit(&rvec));
    PT_MPI(MPI_Type_create_resized(MPI_INT, 0, 3 * (MPI_Aint)sizeof(int), &svec));
    PT_MPI(MPI_Type_commit(&svec));
    for (nd = 1; nd <= 3; nd++)
        for (per = 0; per <= (nd > 1 ? 2 : 1); per++)
            cart(nd, per);
    dist_repeated();
    dist_asymmetric();
    graph_ring();
    dense_auto();
    repeats_grid();
    repeats_comms();
    kept();
    errors();
    MPI_Type_free(&rvec);
    MPI_Type_free(&svec);
    return pt_finish();
}
