/*
 * smpi_compat: three workarounds for SimGrid SMPI 3.32 (Debian's libsimgrid-dev),
 * linked into the simulated pcoll-bench only (bench/sim/build.mk), through
 * the linker's --wrap so that neither pcoll nor the benchmark changes.
 *
 * 1. MPI_Finalize.  MPI deletes the attributes of MPI_COMM_SELF first, while
 *    MPI is still fully usable (MPI-4.1 section 11.2.6); pcoll's delete callback
 *    on MPI_COMM_SELF frees its communicator contexts there, which calls
 *    MPI_Comm_delete_attr on the user's communicators.  SMPI runs that
 *    callback after it has marked the rank finalized, so the call fails
 *    ("PMPI_Attr_delete: MPI_Init was not called !") and, with MPI_COMM_WORLD's
 *    fatal error handler, aborts the run.  The wrapper remembers every keyval
 *    set on MPI_COMM_SELF and deletes those attributes just before SMPI's own
 *    MPI_Finalize, which is what MPI specifies.
 *
 * 2. Persistent sends of derived datatypes.  SMPI packs the data of a
 *    non-contiguous send when the request is created (MPI_Send_init), so the
 *    first MPI_Start of such a request sends the buffer as it was at init,
 *    not as it is at the start; later starts are right.  pcoll plans are
 *    built before the user fills the buffers, and the Bruck variants send from
 *    the receive buffer that earlier rounds fill, so every derived-type
 *    algorithm came out wrong on its first run.  The wrapper records the
 *    arguments of every MPI_Send_init of a derived datatype and, at the first
 *    MPI_Start of that request, replaces it by a fresh one (so SMPI packs the
 *    current data) before starting it.  The wrapper runs between SMPI's MPI
 *    calls, so with smpi/simulate-computation on its CPU time is charged to
 *    the rank like the program's own; the replacement happens at the first
 *    start only (a plan's check run, not timed), and later starts skip the
 *    lookup once no recorded request is waiting (see find()).
 *
 * 3. Topologies.  SMPI aborts in MPI_Topo_test, in the distributed-graph
 *    calls and in MPI_Neighbor_alltoallv ("Not yet implemented"); the
 *    wrappers of section 3 below emulate them, so that the neighbourhood
 *    collectives can be simulated.
 *
 * Each simulated rank has its own copy of the statics below (SMPI privatizes
 * the program's globals).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

int __real_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value);
int __real_MPI_Finalize(void);
int __real_MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *req);
int __real_MPI_Start(MPI_Request *req);
int __real_MPI_Startall(int n, MPI_Request reqs[]);
int __real_MPI_Request_free(MPI_Request *req);

/* ---- 1. MPI_COMM_SELF attributes deleted before SMPI's finalize ---- */

enum { MAX_SELF_KEYS = 16 };
static int self_keys[MAX_SELF_KEYS];
static int nself;

int __wrap_MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    int i;
    if (comm == MPI_COMM_SELF) {
        for (i = 0; i < nself && self_keys[i] != keyval; i++)
            ;
        if (i == nself && nself < MAX_SELF_KEYS)
            self_keys[nself++] = keyval;
    }
    return __real_MPI_Comm_set_attr(comm, keyval, value);
}

int __wrap_MPI_Finalize(void)
{
    /* Reverse order of setting, like MPI_Finalize's own deletion order. */
    while (nself > 0)
        MPI_Comm_delete_attr(MPI_COMM_SELF, self_keys[--nself]);
    return __real_MPI_Finalize();
}

/* ---- 2. persistent derived-type sends re-created at their first start ---- */

typedef struct {
    MPI_Request req; /* key; NULL: empty slot, TOMB: deleted */
    const void *buf;
    int count, peer, tag;
    MPI_Datatype type;
    MPI_Comm comm;
} persistent_t;

static persistent_t *table; /* open addressing, linear probing */
static size_t cap, used;    /* used counts live entries and tombstones */
static size_t live;         /* recorded requests neither started nor freed */
static char tomb_mark;
#define TOMB ((MPI_Request)(void *)&tomb_mark)

static size_t slot_of(MPI_Request req)
{
    uintptr_t h = (uintptr_t)(void *)req;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

/* The entry of req, or NULL.  Once every recorded request has been started
 * (a plan's first run), nothing is looked up: a start costs one comparison
 * here, not a probe of the table, which with simulate-computation on is
 * charged to the rank as computation (docs/simulation.md). */
static persistent_t *find(MPI_Request req)
{
    size_t i;
    if (live == 0 || req == MPI_REQUEST_NULL)
        return NULL;
    for (i = slot_of(req); table[i].req != NULL; i = (i + 1) & (cap - 1))
        if (table[i].req == req)
            return &table[i];
    return NULL;
}

static int insert(const persistent_t *e);

/* Rebuild the table without tombstones; double it when it is over a
 * quarter full of live entries (or create it). */
static int rehash(void)
{
    persistent_t *old = table;
    size_t oldcap = cap, i;
    cap = cap == 0 ? 1024 : 4 * live >= cap ? 2 * cap : cap;
    table = calloc(cap, sizeof *table);
    if (!table) {
        table = old, cap = oldcap;
        return -1;
    }
    used = live = 0;
    for (i = 0; i < oldcap; i++)
        if (old[i].req != NULL && old[i].req != TOMB)
            insert(&old[i]);
    free(old);
    return 0;
}

static int insert(const persistent_t *e)
{
    size_t i;
    if (2 * (used + 1) > cap && rehash() != 0)
        return -1;
    for (i = slot_of(e->req); table[i].req != NULL && table[i].req != TOMB;
         i = (i + 1) & (cap - 1))
        ;
    if (table[i].req == NULL)
        used++;
    table[i] = *e;
    live++;
    return 0;
}

/* The request of e has been started or freed: it needs nothing more. */
static void forget(persistent_t *e)
{
    e->req = TOMB;
    live--;
}

static int is_derived(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    return combiner != MPI_COMBINER_NAMED;
}

static int make(const persistent_t *e, MPI_Request *req)
{
    return __real_MPI_Send_init(e->buf, e->count, e->type, e->peer, e->tag, e->comm, req);
}

int __wrap_MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request *req)
{
    persistent_t e = {NULL, buf, count, dest, tag, type, comm};
    int err = make(&e, req);
    if (err != MPI_SUCCESS || count == 0 || !is_derived(type))
        return err;
    e.req = *req;
    return insert(&e) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Before the first start of a recorded request: replace it by a fresh one
 * (made before the old one is freed, so that the datatype stays referenced). */
static int refresh(MPI_Request *req)
{
    persistent_t *e = find(*req);
    MPI_Request fresh;
    int err;
    if (!e)
        return MPI_SUCCESS;
    forget(e);
    err = make(e, &fresh);
    if (err == MPI_SUCCESS)
        err = __real_MPI_Request_free(req);
    if (err == MPI_SUCCESS)
        *req = fresh;
    return err;
}

int __wrap_MPI_Start(MPI_Request *req)
{
    int err = refresh(req);
    return err == MPI_SUCCESS ? __real_MPI_Start(req) : err;
}

int __wrap_MPI_Startall(int n, MPI_Request reqs[])
{
    int i, err = MPI_SUCCESS;
    for (i = 0; i < n && err == MPI_SUCCESS; i++)
        err = refresh(&reqs[i]);
    return err == MPI_SUCCESS ? __real_MPI_Startall(n, reqs) : err;
}

int __wrap_MPI_Request_free(MPI_Request *req)
{
    persistent_t *e = find(*req);
    if (e)
        forget(e);
    return __real_MPI_Request_free(req);
}

/* ---- 3. topologies: MPI_Topo_test and distributed graphs ---- */

/* SMPI 3.32 makes Cartesian communicators but aborts in MPI_Topo_test,
 * MPI_Dist_graph_create(_adjacent), MPI_Dist_graph_neighbors(_count) and
 * MPI_Neighbor_alltoallv ("Not yet implemented"), which the neighbourhood
 * collectives need.  The wrappers keep a rank's view of a topology as an
 * attribute of the communicator: Cartesian ones are marked when
 * MPI_Cart_create makes them (SMPI answers the Cartesian queries itself); a
 * distributed graph is a duplicate of the old communicator carrying its
 * neighbour lists.  MPI_Dist_graph_create's edges travel to both of their
 * ends in one MPI_Alltoallv, so a rank's in-edges come in the order of the
 * ranks that gave them, each rank's in the order it gave them (repeated
 * edges pair in list order at both ends).  MPI_Neighbor_alltoallv is one
 * Isend and one Irecv per edge, paired as MPI pairs them (Cartesian: the
 * block sent up lands in the upper neighbour's slot of the one below). */

typedef struct {
    int in, out, *src, *dst; /* one allocation */
} dgraph_t;

static int dg_key = MPI_KEYVAL_INVALID, cart_key = MPI_KEYVAL_INVALID;
static int cart_mark;

int __real_MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[],
                           int reorder, MPI_Comm *comm);

static int dg_delete(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static void make_keys(void)
{
    if (dg_key == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, dg_delete, &dg_key, NULL);
    if (cart_key == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &cart_key, NULL);
}

static dgraph_t *graph_of(MPI_Comm comm)
{
    dgraph_t *g = NULL;
    int flag = 0;
    make_keys();
    MPI_Comm_get_attr(comm, dg_key, &g, &flag);
    return flag ? g : NULL;
}

int __wrap_MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[],
                           int reorder, MPI_Comm *comm)
{
    int err = __real_MPI_Cart_create(old, ndims, dims, periods, reorder, comm);
    make_keys();
    if (err == MPI_SUCCESS && *comm != MPI_COMM_NULL)
        err = MPI_Comm_set_attr(*comm, cart_key, &cart_mark);
    return err;
}

int __wrap_MPI_Topo_test(MPI_Comm comm, int *status)
{
    int flag = 0;
    void *v;
    make_keys();
    MPI_Comm_get_attr(comm, cart_key, &v, &flag);
    *status = flag ? MPI_CART : graph_of(comm) ? MPI_DIST_GRAPH : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* A duplicate of old with the lists src[in] and dst[out]. */
static int attach(MPI_Comm old, int in, const int *src, int out, const int *dst, MPI_Comm *comm)
{
    dgraph_t *g = malloc(sizeof *g + sizeof(int) * ((size_t)in + (size_t)out + 1));
    int err, i;
    if (!g)
        return MPI_ERR_NO_MEM;
    g->in = in, g->out = out;
    g->src = (int *)(void *)(g + 1), g->dst = g->src + in;
    for (i = 0; i < in; i++)
        g->src[i] = src[i];
    for (i = 0; i < out; i++)
        g->dst[i] = dst[i];
    make_keys();
    err = MPI_Comm_dup(old, comm);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_set_attr(*comm, dg_key, g);
    else
        free(g);
    return err;
}

int __wrap_MPI_Dist_graph_create_adjacent(MPI_Comm old, int in, const int src[],
                                          const int sw[], int out, const int dst[],
                                          const int dw[], MPI_Info info, int reorder,
                                          MPI_Comm *comm)
{
    (void)sw, (void)dw, (void)info, (void)reorder;
    return attach(old, in, src, out, dst, comm);
}

/* Every edge (s, d) given here goes to s as out-edge d and to d as
 * in-edge s: two ints (0 out / 1 in, the peer) per record. */
int __wrap_MPI_Dist_graph_create(MPI_Comm old, int n, const int sources[], const int degrees[],
                                 const int dests[], const int weights[], MPI_Info info,
                                 int reorder, MPI_Comm *comm)
{
    int p, i, j, k, m = 0, err, in = 0, out = 0;
    int *cnt, *got, *sd, *rd, *sbuf, *rbuf, *lists;
    (void)weights, (void)info, (void)reorder;
    MPI_Comm_size(old, &p);
    cnt = calloc(4 * (size_t)p + 1, sizeof *cnt);
    got = cnt + p, sd = got + p, rd = sd + p;
    for (i = 0; i < n; i++)
        m += degrees[i];
    sbuf = malloc(sizeof(int) * 4 * ((size_t)m + 1));
    for (i = 0, k = 0; i < n; i++)
        for (j = 0; j < degrees[i]; j++, k++)
            cnt[sources[i]] += 2, cnt[dests[k]] += 2;
    for (i = 1; i < p; i++)
        sd[i] = sd[i - 1] + cnt[i - 1];
    memset(cnt, 0, sizeof *cnt * (size_t)p);
    for (i = 0, k = 0; i < n; i++)
        for (j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = dests[k];
            sbuf[sd[s] + cnt[s]] = 0, sbuf[sd[s] + cnt[s] + 1] = d, cnt[s] += 2;
            sbuf[sd[d] + cnt[d]] = 1, sbuf[sd[d] + cnt[d] + 1] = s, cnt[d] += 2;
        }
    MPI_Alltoall(cnt, 1, MPI_INT, got, 1, MPI_INT, old);
    for (i = 1; i < p; i++)
        rd[i] = rd[i - 1] + got[i - 1];
    m = rd[p - 1] + got[p - 1];
    rbuf = malloc(sizeof(int) * (2 * (size_t)m + 1));
    MPI_Alltoallv(sbuf, cnt, sd, MPI_INT, rbuf, got, rd, MPI_INT, old);
    lists = rbuf + m;
    for (i = 0; i < m; i += 2)
        in += rbuf[i] == 1, out += rbuf[i] == 0;
    for (i = 0, j = 0, k = in; i < m; i += 2)
        lists[rbuf[i] == 1 ? j++ : k++] = rbuf[i + 1];
    err = attach(old, in, lists, out, lists + in, comm);
    free(cnt), free(sbuf), free(rbuf);
    return err;
}

int __wrap_MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *in, int *out, int *weighted)
{
    dgraph_t *g = graph_of(comm);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    *in = g->in, *out = g->out, *weighted = 0;
    return MPI_SUCCESS;
}

int __wrap_MPI_Dist_graph_neighbors(MPI_Comm comm, int maxin, int src[], int sw[], int maxout,
                                    int dst[], int dw[])
{
    dgraph_t *g = graph_of(comm);
    int i;
    if (!g)
        return MPI_ERR_TOPOLOGY;
    for (i = 0; i < maxin && i < g->in; i++) {
        src[i] = g->src[i];
        if (sw != MPI_UNWEIGHTED && sw != MPI_WEIGHTS_EMPTY)
            sw[i] = 1;
    }
    for (i = 0; i < maxout && i < g->out; i++) {
        dst[i] = g->dst[i];
        if (dw != MPI_UNWEIGHTED && dw != MPI_WEIGHTS_EMPTY)
            dw[i] = 1;
    }
    return MPI_SUCCESS;
}

/* The edges of comm: degrees and lists (Cartesian: below, above per
 * dimension); *cart whether directions tag the messages. */
static int edges_of(MPI_Comm comm, int *in, int *out, int **src, int **dst, int *cart)
{
    dgraph_t *g = graph_of(comm);
    int n, d;
    *cart = !g;
    if (g) {
        *in = g->in, *out = g->out, *src = g->src, *dst = g->dst;
        return MPI_SUCCESS;
    }
    if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS)
        return MPI_ERR_TOPOLOGY;
    *in = *out = 2 * n;
    *src = *dst = malloc(sizeof(int) * (2 * (size_t)n + 1));
    for (d = 0; d < n; d++)
        MPI_Cart_shift(comm, d, 1, &(*src)[2 * d], &(*src)[2 * d + 1]);
    return MPI_SUCCESS;
}

/* Tags of the emulated neighbourhood exchange (a range user code here
 * does not use). */
enum { NBR_TAG = 30000 };

int __wrap_MPI_Neighbor_alltoallv(const void *sbuf, const int sc[], const int sdispl[],
                                  MPI_Datatype st, void *rbuf, const int rc[],
                                  const int rdispl[], MPI_Datatype rt, MPI_Comm comm)
{
    MPI_Aint lb, sext, rext;
    MPI_Request *req;
    int in, out, *src, *dst, cart, e, n = 0, err = edges_of(comm, &in, &out, &src, &dst, &cart);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Type_get_extent(st, &lb, &sext);
    MPI_Type_get_extent(rt, &lb, &rext);
    req = malloc(sizeof *req * ((size_t)in + (size_t)out + 1));
    for (e = 0; e < in && err == MPI_SUCCESS; e++)
        err = MPI_Irecv((char *)rbuf + rdispl[e] * rext, rc[e], rt, src[e],
                        NBR_TAG + (cart ? e ^ 1 : 0), comm, &req[n++]);
    for (e = 0; e < out && err == MPI_SUCCESS; e++)
        err = MPI_Isend((const char *)sbuf + sdispl[e] * sext, sc[e], st, dst[e],
                        NBR_TAG + (cart ? e : 0), comm, &req[n++]);
    if (err == MPI_SUCCESS)
        err = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    free(req);
    if (cart)
        free(src);
    return err;
}
