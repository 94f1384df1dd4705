/*
 * The neighbourhood all-to-alls: one descriptor for MPI_Neighbor_alltoall,
 * _alltoallv and _alltoallw (their public calls, persistent, one-shot and
 * large-count, and the drop-in's), through the entry path.  The forms
 * differ only in how a call gives each edge's count, displacement and type;
 * the check turns all three into one argument struct (neighbor/neighbor.h),
 * with the communicator's neighbours read from its topology (once per
 * communicator context).  A one-shot call with the arguments of the
 * thread's last one, its arrays equal byte for byte, runs that call's plan
 * again (entry.c "Repeats").
 *
 * A communicator without a topology is PCOLL_ERR_ARG on every rank (MPI:
 * MPI_ERR_TOPOLOGY).  Persistent init: one reduction of the verdicts (and
 * the largest message, and whether every count is an int), then one
 * neighbourhood exchange of every edge's byte count, so that two neighbours
 * that disagree on an edge's size fail on every rank with
 * PCOLL_ERR_MISMATCH instead of hanging or truncating.  The one-shot and
 * non-blocking calls check locally only, as MPI's own calls do: a size
 * mismatch between neighbours is then the MPI's truncation error on the
 * receiving rank.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "api/api.h"
#include "api/entry.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "base/pmpi.h"
#include "datatype/size.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__nbr_args_t) <= PCOLL__ARGS_MAX, "neighbor arguments");

/* The arrays a call may read (edge_arrays). */
#define NBR_ARRAYS 6
_Static_assert(NBR_ARRAYS <= PCOLL__CALL_ARRAYS, "neighbor arrays");

typedef pcoll__nbr_raw_t raw_t;

static pcoll__nbr_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__nbr_args_t *)(void *)c->args;
}

/* ---- one direction of a call ---------------------------------------------- */

typedef struct side {
    int n; /* the degree */
    MPI_Count count;
    MPI_Datatype type;
    const int *counts, *displs;
    const MPI_Count *wcounts;
    const MPI_Aint *wdispls;
    const MPI_Datatype *types;
} side_t;

static side_t side_of(const raw_t *r, int send, int n)
{
    if (send)
        return (side_t){n, r->sendcount, r->sendtype, r->scounts, r->sdispls, r->wscounts,
                        r->wsdispls, r->stypes};
    return (side_t){n, r->recvcount, r->recvtype, r->rcounts, r->rdispls, r->wrcounts,
                    r->wrdispls, r->rtypes};
}

static MPI_Count count_at(const raw_t *r, const side_t *s, int e)
{
    if (r->form == PCOLL__NBR_ALLTOALL)
        return s->count;
    return s->wcounts ? s->wcounts[e] : s->counts[e];
}

/* alltoall: block e at e * count items. */
static MPI_Aint displ_at(const raw_t *r, const side_t *s, int e)
{
    if (r->form == PCOLL__NBR_ALLTOALL)
        return (MPI_Aint)e * (MPI_Aint)s->count;
    return s->wdispls ? s->wdispls[e] : s->displs[e];
}

static MPI_Datatype type_at(const raw_t *r, const side_t *s, int e)
{
    return r->form == PCOLL__NBR_ALLTOALLW ? s->types[e] : s->type;
}

/* Arrays missing where edges need them. */
static int side_null(const raw_t *r, const side_t *s)
{
    if (r->form == PCOLL__NBR_ALLTOALL || s->n == 0)
        return 0;
    return (r->form == PCOLL__NBR_ALLTOALLW && !s->types) || (!s->wcounts && !s->counts) ||
           (!s->wdispls && !s->displs);
}

/* ---- checks ----------------------------------------------------------------- */

/* Where a direction's per-edge arrays go (the call's temporary 0). */
typedef struct edges {
    MPI_Count *counts;
    MPI_Aint *displs;
    MPI_Datatype *types;
} edges_t;

/* One edge of one direction: the count and displacement, and alltoallw's
 * type (MPI_DATATYPE_NULL of a zero count, which MPI accepts, stands for
 * MPI_BYTE from here on). */
static int check_edge(const pcoll__call_t *c, const side_t *s, int e, const char *what,
                      edges_t *out)
{
    const raw_t *r = c->raw;
    MPI_Datatype t = type_at(r, s, e);
    out->counts[e] = count_at(r, s, e), out->displs[e] = displ_at(r, s, e);
    if (out->counts[e] < 0 || (out->displs[e] < 0 && !r->negative_ok))
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s count or displacement of edge %d is negative",
                            c->fn, what, e);
    if (r->form != PCOLL__NBR_ALLTOALLW)
        return PCOLL_SUCCESS;
    if (t == MPI_DATATYPE_NULL && out->counts[e] == 0)
        t = MPI_BYTE;
    out->types[e] = t;
    return pcoll__check_type(t, what, c->fn);
}

/* One direction: arrays, counts, types and the buffer. */
static int check_side(const pcoll__call_t *c, const side_t *s, const void *buf, const char *what,
                      edges_t *out)
{
    const raw_t *r = c->raw;
    int e, any = 0, rc = PCOLL_SUCCESS;
    if (side_null(r, s))
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s counts, displacements or types are NULL",
                            c->fn, what);
    if (r->form != PCOLL__NBR_ALLTOALLW && (rc = pcoll__check_type(s->type, what, c->fn)))
        return rc;
    for (e = 0; e < s->n && rc == PCOLL_SUCCESS; e++) {
        rc = check_edge(c, s, e, what, out);
        if (rc == PCOLL_SUCCESS && r->form == PCOLL__NBR_ALLTOALLW)
            rc = pcoll__check_buffer(buf, out->counts[e] > 0, out->types[e], what, c->fn);
        any |= out->counts[e] > 0;
    }
    if (rc == PCOLL_SUCCESS && r->form != PCOLL__NBR_ALLTOALLW)
        rc = pcoll__check_buffer(buf, any, s->type, what, c->fn);
    return rc;
}

/* The scratch of both directions' arrays (the call's temporary 0). */
static int edge_scratch(pcoll__call_t *c, int in, int out, edges_t e[2])
{
    size_t n = (size_t)in + (size_t)out;
    char *m = pcoll__call_scratch(
        c, 0, n * (sizeof(MPI_Count) + sizeof(MPI_Aint) + sizeof(MPI_Datatype)) + 1);
    if (!m)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: edge arrays", c->fn);
    e[0].counts = (MPI_Count *)(void *)m, e[1].counts = e[0].counts + out;
    e[0].displs = (MPI_Aint *)(void *)(e[0].counts + n), e[1].displs = e[0].displs + out;
    e[0].types = (MPI_Datatype *)(void *)(e[0].displs + n), e[1].types = e[0].types + out;
    return PCOLL_SUCCESS;
}

/* The communicator's topology: its context's, asked of MPI once (a
 * one-shot call has the context; a persistent init or non-blocking call
 * takes it where it exists), else read for this call alone, its neighbour
 * lists in c->tmp[1] (freed with the call). */
static int topo_of(pcoll__call_t *c, pcoll__ctx_topo_t *t)
{
    int *owned, rc = pcoll__nbr_topo_of(c->ctx, c->comm, c->fn, t, &owned);
    if (owned)
        c->tmp[1] = owned;
    return rc;
}

/* This rank's largest block of any edge and the bytes it sends or
 * receives in a call (the more of the two), in bytes: one pass over its
 * edges. */
static void volumes(const pcoll__nbr_args_t *a, long long *largest, long long *total)
{
    long long side[2] = {0, 0}, b;
    int e;
    *largest = 0;
    for (e = 0; e < a->outdegree + a->indegree; e++) {
        int in = e >= a->outdegree, k = in ? e - a->outdegree : e;
        b = in ? pcoll__nbr_bytes(a->rcounts[k], pcoll__nbr_rtype(a, k))
               : pcoll__nbr_bytes(a->scounts[k], pcoll__nbr_stype(a, k));
        side[in] += b;
        *largest = b > *largest ? b : *largest;
    }
    *total = side[0] > side[1] ? side[0] : side[1];
}

/* The fields of the arguments that come from the call and the topology. */
static void fill(pcoll__call_t *c, const pcoll__ctx_topo_t *t, const edges_t e[2])
{
    const raw_t *r = c->raw;
    pcoll__nbr_args_t *a = args_of(c);
    MPI_Aint lb;
    a->sendbuf = r->sendbuf, a->recvbuf = r->recvbuf;
    a->form = r->form, a->wide = r->wide;
    a->cart = t->kind == MPI_CART;
    a->folded = t->folded;
    a->indegree = t->indegree, a->outdegree = t->outdegree;
    a->sources = t->ranks, a->dests = t->ranks + t->indegree;
    a->scounts = e[0].counts, a->sdispls = e[0].displs;
    a->rcounts = e[1].counts, a->rdispls = e[1].displs;
    a->sendcount = r->sendcount, a->recvcount = r->recvcount;
    a->sext = a->rext = 1;
    if (r->form == PCOLL__NBR_ALLTOALLW) {
        a->stypes = e[0].types, a->rtypes = e[1].types;
        a->sendtype = a->recvtype = MPI_BYTE;
    } else {
        a->sendtype = r->sendtype, a->recvtype = r->recvtype;
        pcoll__type_extent(r->sendtype, &lb, &a->sext);
        pcoll__type_extent(r->recvtype, &lb, &a->rext);
    }
    a->maxbytes = -1;
    a->native_ok = MPI_VERSION >= 4 || !r->wide;
    a->maxdegree = a->cores = -1;
    a->maxtotal = -1;
    a->node_fallback = 0;
}

static int nbr_check(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    pcoll__ctx_topo_t t;
    edges_t e[2];
    side_t ss, rs;
    int rc;
    PCOLL_CHECK(topo_of(c, &t), rc, fail);
    if (r->sendbuf == MPI_IN_PLACE || r->recvbuf == MPI_IN_PLACE)
        return pcoll__error(PCOLL_ERR_ARG, "%s: MPI_IN_PLACE (MPI allows none here)", c->fn);
    PCOLL_CHECK(edge_scratch(c, t.indegree, t.outdegree, e), rc, fail);
    if (r->form == PCOLL__NBR_ALLTOALL && (r->sendcount < 0 || r->recvcount < 0))
        return pcoll__error(PCOLL_ERR_ARG, "%s: a count is negative", c->fn);
    ss = side_of(r, 1, t.outdegree), rs = side_of(r, 0, t.indegree);
    PCOLL_CHECK(check_side(c, &rs, r->recvbuf, "receive", &e[1]), rc, fail);
    PCOLL_CHECK(check_side(c, &ss, r->sendbuf, "send", &e[0]), rc, fail);
    fill(c, &t, e);
fail:
    return rc;
}

/* ---- agreement (persistent init) --------------------------------------------- */

/* Every edge's two ends must agree on its bytes: one neighbourhood
 * exchange of the byte counts; *ok = 0 where a received size differs from
 * this rank's. */
static int check_edges(MPI_Comm comm, int tag, const pcoll__nbr_args_t *a, int *ok)
{
    long long *b = pcoll__malloc(sizeof *b * ((size_t)a->indegree + (size_t)a->outdegree + 1));
    long long *got;
    int e;
    if (!b)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor: size check");
    got = b + a->outdegree;
    for (e = 0; e < a->outdegree; e++)
        b[e] = pcoll__nbr_bytes(a->scounts[e], pcoll__nbr_stype(a, e));
    /* MPI_PROC_NULL slots stay as they are: this rank's own sizes. */
    for (e = 0; e < a->indegree; e++)
        got[e] = pcoll__nbr_bytes(a->rcounts[e], pcoll__nbr_rtype(a, e));
    *ok = pcoll__nbr_exchange(comm, tag, a, b, got) == MPI_SUCCESS;
    for (e = 0; e < a->indegree && *ok; e++)
        *ok = got[e] == pcoll__nbr_bytes(a->rcounts[e], pcoll__nbr_rtype(a, e));
    pcoll__free(b);
    return PCOLL_SUCCESS;
}

/* Whether every count and displacement is an int (alltoallw's
 * displacements are MPI_Aint in every form). */
static int all_ints(const pcoll__nbr_args_t *a)
{
    int e, w = a->form == PCOLL__NBR_ALLTOALLW;
    for (e = 0; e < a->outdegree; e++)
        if (a->scounts[e] > INT_MAX || (!w && (a->sdispls[e] > INT_MAX || a->sdispls[e] < INT_MIN)))
            return 0;
    for (e = 0; e < a->indegree; e++)
        if (a->rcounts[e] > INT_MAX || (!w && (a->rdispls[e] > INT_MAX || a->rdispls[e] < INT_MIN)))
            return 0;
    return a->sendcount <= INT_MAX && a->recvcount <= INT_MAX;
}

static int nbr_agree(pcoll__call_t *c, int local)
{
    pcoll__nbr_args_t *a = args_of(c);
    long long vals[6] = {0}, mins[6], maxs[6];
    MPI_Comm comm = c->ctx->dup;
    int rc, ok = 1;
    if (local == PCOLL_SUCCESS) {
        volumes(a, &vals[1], &vals[5]);
        vals[0] = a->opts.algorithm, vals[2] = all_ints(a);
        vals[3] = a->indegree > a->outdegree ? a->indegree : a->outdegree;
        vals[4] = a->opts.cores_per_node;
    }
    if ((rc = pcoll__agree_range(comm, local, vals, 6, mins, maxs, c->fn)) != PCOLL_SUCCESS)
        return rc;
    if (mins[0] != maxs[0])
        return pcoll__error(PCOLL_ERR_MISMATCH, "%s: the algorithm differs between ranks", c->fn);
    a->maxbytes = maxs[1];
    a->native_ok = MPI_VERSION >= 4 || mins[2] == 1;
    a->maxdegree = (int)maxs[3];
    a->maxtotal = maxs[5];
    a->cores = mins[4] == maxs[4] ? (int)maxs[4] : -1;
    rc = check_edges(comm, pcoll__ctx_tag(c->ctx), a, &ok);
    rc = pcoll__agree_range(comm, rc == PCOLL_SUCCESS && !ok ? PCOLL_ERR_MISMATCH : rc, NULL, 0,
                            NULL, NULL, c->fn);
    if (rc == PCOLL_ERR_MISMATCH)
        pcoll__error(rc, "%s: send and receive sizes of an edge disagree between neighbours",
                     c->fn);
    return rc;
}

/* ---- one-shot key, choice, preparation ----------------------------------------- */

/* The arrays a call reads, as it gave them (NULL where missing), into
 * at[] and bytes[] for in- and out-degree in and out: the counts and
 * displacements of the send side, then of the receive side, then
 * alltoallw's types of both; returns how many (none for alltoall).  Their
 * element sizes follow from the form. */
static int edge_arrays(const raw_t *r, int in, int out, const void *at[], size_t bytes[])
{
    int aint = r->wide || r->form == PCOLL__NBR_ALLTOALLW;
    size_t nc = r->wide ? sizeof(MPI_Count) : sizeof(int);
    size_t nd = aint ? sizeof(MPI_Aint) : sizeof(int);
    if (r->form == PCOLL__NBR_ALLTOALL)
        return 0;
    at[0] = r->wide ? (const void *)r->wscounts : (const void *)r->scounts;
    at[1] = aint ? (const void *)r->wsdispls : (const void *)r->sdispls;
    at[2] = r->wide ? (const void *)r->wrcounts : (const void *)r->rcounts;
    at[3] = aint ? (const void *)r->wrdispls : (const void *)r->rdispls;
    bytes[0] = nc * (size_t)out, bytes[1] = nd * (size_t)out;
    bytes[2] = nc * (size_t)in, bytes[3] = nd * (size_t)in;
    if (r->form != PCOLL__NBR_ALLTOALLW)
        return 4;
    at[4] = r->stypes, bytes[4] = sizeof(MPI_Datatype) * (size_t)out;
    at[5] = r->rtypes, bytes[5] = sizeof(MPI_Datatype) * (size_t)in;
    return 6;
}

/* The scalars of a call in its key. */
typedef struct key_head {
    const void *sendbuf;
    void *recvbuf;
    MPI_Count sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    int form, wide, negative_ok;
} key_head_t;

/* Watch the types of a call: its two (alltoall, alltoallv: one where they
 * are one) or one look per run of edges with one type (alltoallw): asking
 * MPI whether a type is named costs more than the rest of the key. */
static void key_types(pcoll__key_t *k, const raw_t *r, int in, int out)
{
    int d, e;
    if (r->form != PCOLL__NBR_ALLTOALLW) {
        pcoll__key_watch(k, r->sendtype);
        if (r->recvtype != r->sendtype)
            pcoll__key_watch(k, r->recvtype);
        return;
    }
    for (d = 0; d < 2; d++) {
        const MPI_Datatype *t = d ? r->rtypes : r->stypes;
        for (e = 0; e < (d ? in : out); e++)
            if (e == 0 || t[e] != t[e - 1])
                pcoll__key_watch(k, t[e]);
    }
}

/* The key: the form, buffers, types and counts of the call, then its
 * arrays byte for byte (the check of a miss reads them; a hit's arrays
 * equal those of a checked call). */
static int nbr_key(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    const void *at[NBR_ARRAYS];
    size_t bytes[NBR_ARRAYS], len = 0;
    pcoll__ctx_topo_t t;
    key_head_t *h;
    unsigned char *p;
    int rc, n, i;
    if ((rc = pcoll__nbr_topo(c->ctx, c->comm, c->fn, &t)) != PCOLL_SUCCESS)
        return rc;
    n = edge_arrays(r, t.indegree, t.outdegree, at, bytes);
    for (i = 0; i < n; len += bytes[i++])
        if (bytes[i] && !at[i])
            return pcoll__error(PCOLL_ERR_ARG, "%s: counts, displacements or types are NULL",
                                c->fn);
    if (!(h = pcoll__key_put(k, sizeof *h + len)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: cache key", c->fn);
    h->form = r->form, h->wide = r->wide, h->negative_ok = r->negative_ok;
    h->sendbuf = r->sendbuf, h->recvbuf = r->recvbuf;
    h->sendcount = r->sendcount, h->recvcount = r->recvcount;
    h->sendtype = r->sendtype, h->recvtype = r->recvtype;
    p = (unsigned char *)(h + 1);
    for (i = 0; i < n; p += bytes[i++])
        if (bytes[i])
            memcpy(p, at[i], bytes[i]);
    key_types(k, r, t.indegree, t.outdegree);
    return PCOLL_SUCCESS;
}

static int nbr_choose(pcoll__call_t *c)
{
    pcoll__nbr_args_t *a = args_of(c);
    pcoll__shape_t shape = pcoll__call_shape(c);
    /* A persistent plan whose native run would be the blocking call
     * (deferred) starts nothing of the MPI's. */
    a->started = c->mode == PCOLL__LOCAL ||
                 (c->mode == PCOLL__PERSISTENT &&
                  !pcoll__nbr_native_defers(!c->opts.no_comm, c->p));
    a->oneshot = c->shaping;
    a->node_fallback = pcoll__algo_is_auto(&pcoll__neighbor_table, a->opts.algorithm);
    return pcoll__select_neighbor(a, &shape);
}

/* alltoallw: every edge's type kept (a type that repeats the previous
 * edge's shares its copy). */
static int keep_type_array(pcoll_plan_t *plan, const MPI_Datatype **types, int n)
{
    MPI_Datatype *to = pcoll__plan_alloc(plan, sizeof *to * ((size_t)n + 1));
    int e, rc = PCOLL_SUCCESS;
    if (!to)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor: types");
    for (e = 0; e < n && rc == PCOLL_SUCCESS; e++) {
        to[e] = (*types)[e];
        if (e > 0 && (*types)[e] == (*types)[e - 1])
            to[e] = to[e - 1];
        else
            rc = pcoll__plan_keep_type(plan, &to[e]);
    }
    *types = to;
    return rc;
}

/* A copy of n items of size bytes in the plan, into *p. */
static int keep_array(pcoll_plan_t *plan, const void **p, size_t size, int n)
{
    void *to = pcoll__plan_alloc(plan, size * ((size_t)n + 1));
    if (!to)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor: edge arrays");
    memcpy(to, *p, size * (size_t)n);
    *p = to;
    return PCOLL_SUCCESS;
}

/* The neighbour lists, counts, displacements and types into the plan (the
 * caller may free its own after init). */
static int nbr_prepare(pcoll__call_t *c, pcoll_plan_t *plan)
{
    pcoll__nbr_args_t *a = args_of(c);
    int in = a->indegree, out = a->outdegree, rc;
    PCOLL_CHECK(keep_array(plan, (const void **)&a->sources, sizeof(int), in), rc, fail);
    PCOLL_CHECK(keep_array(plan, (const void **)&a->dests, sizeof(int), out), rc, fail);
    PCOLL_CHECK(keep_array(plan, (const void **)&a->scounts, sizeof(MPI_Count), out), rc, fail);
    PCOLL_CHECK(keep_array(plan, (const void **)&a->sdispls, sizeof(MPI_Aint), out), rc, fail);
    PCOLL_CHECK(keep_array(plan, (const void **)&a->rcounts, sizeof(MPI_Count), in), rc, fail);
    PCOLL_CHECK(keep_array(plan, (const void **)&a->rdispls, sizeof(MPI_Aint), in), rc, fail);
    if (a->form != PCOLL__NBR_ALLTOALLW) {
        PCOLL_CHECK(pcoll__plan_keep_type(plan, &a->sendtype), rc, fail);
        return pcoll__plan_keep_type(plan, &a->recvtype);
    }
    PCOLL_CHECK(keep_type_array(plan, &a->stypes, out), rc, fail);
    rc = keep_type_array(plan, &a->rtypes, in);
fail:
    return rc;
}

/* Repeats (entry.c): the call's scalars as words; its arrays, whose
 * lengths are the degrees of the context's topology (read by the key of
 * the call remembered), as arrays. */
static int nbr_words(const void *raw, uintptr_t w[])
{
    const raw_t *r = raw;
    w[0] = (uintptr_t)r->sendbuf, w[1] = (uintptr_t)r->recvbuf;
    w[2] = (uintptr_t)r->sendtype, w[3] = (uintptr_t)r->recvtype;
    w[4] = (uintptr_t)r->sendcount, w[5] = (uintptr_t)r->recvcount;
    w[6] = (uintptr_t)(unsigned)r->form << 2 | (uintptr_t)(unsigned)r->negative_ok << 1 |
           (uintptr_t)(unsigned)r->wide;
    return 7;
}

static int nbr_arrays(const void *raw, const pcoll__ctx_t *ctx, int p, const void *at[],
                      size_t bytes[])
{
    (void)p;
    if (!ctx->topo.known) {
        at[0] = NULL, bytes[0] = 1;
        return 1;
    }
    return edge_arrays(raw, ctx->topo.indegree, ctx->topo.outdegree, at, bytes);
}

/* A repeat of `native` (entry.h forward): the int alltoallv form, as MPI's
 * own call, its arrays checked as nbr_check would (one-shot auto takes
 * native whatever they hold); a NULL buffer (MPI_BOTTOM, or none where
 * every count was 0) goes the full path, which checks it. */
static int nbr_forward(const void *raw, const pcoll__ctx_t *ctx, MPI_Comm comm)
{
    const raw_t *r = raw;
    int in = ctx->topo.indegree, out = ctx->topo.outdegree;
    if (r->form != PCOLL__NBR_ALLTOALLV || r->wide || !ctx->topo.known || !r->sendbuf ||
        !r->recvbuf ||
        (out > 0 && (!r->scounts || !r->sdispls)) || (in > 0 && (!r->rcounts || !r->rdispls)) ||
        !pcoll__counts_ok(r->scounts, r->sdispls, out, r->negative_ok) ||
        !pcoll__counts_ok(r->rcounts, r->rdispls, in, r->negative_ok))
        return PCOLL__FORWARD_DECLINED;
    return PCOLL__MPI(Neighbor_alltoallv)(r->sendbuf, r->scounts, r->sdispls, r->sendtype,
                                          r->recvbuf, r->rcounts, r->rdispls, r->recvtype, comm);
}

/* ---- shapes (entry.c "Shapes") ------------------------------------------------ */

/* The shape: the form (with the options, which the path adds), the same on
 * every rank of a collective call; a large-count call (MPI_Count counts)
 * shares its int form's shape, so the drop-in's preparation of the int
 * forms serves both.  Counts and types differ between ranks and calls: the
 * kept plan (neighbor/node_kept.c) moves each call's blocks.
 * Calls whose arrays are missing take the cache by arguments, which says
 * why. */
static int nbr_shape(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    pcoll__ctx_topo_t t;
    side_t ss, rs;
    int *form;
    if (pcoll__nbr_topo(c->ctx, c->comm, c->fn, &t) != PCOLL_SUCCESS)
        return PCOLL_ERR_UNSUPPORTED;
    ss = side_of(r, 1, t.outdegree), rs = side_of(r, 0, t.indegree);
    if (r->sendbuf == MPI_IN_PLACE || r->recvbuf == MPI_IN_PLACE || side_null(r, &ss) ||
        side_null(r, &rs))
        return PCOLL_ERR_UNSUPPORTED;
    if (!(form = pcoll__key_put(k, sizeof *form)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: shape key", c->fn);
    *form = r->form;
    return PCOLL_SUCCESS;
}

/* The shape's plan: `node` (the one with PCOLL__ALGO_KEPT), collective. */
static int nbr_keep(pcoll__call_t *c, pcoll_plan_t *plan)
{
    return pcoll__nbr_node_keep(plan, args_of(c));
}

/* The bytes of buffer k (0: send, 1: receive) that the call's blocks touch
 * (shape.h). */
static int nbr_span(const void *args, int p, int k, void **buf, MPI_Aint *lo, size_t *len)
{
    const pcoll__nbr_args_t *a = args;
    pcoll__blocks_view_t b = {k ? a->indegree : a->outdegree,
                              k ? a->rcounts : a->scounts,
                              k ? a->rdispls : a->sdispls,
                              k ? a->rext : a->sext,
                              k ? a->recvtype : a->sendtype,
                              k ? a->rtypes : a->stypes,
                              k ? a->sources : a->dests};
    (void)p;
    *buf = k ? a->recvbuf : (void *)a->sendbuf;
    return pcoll__blocks_span(&b, lo, len);
}

/* The kept plan copies with the host's memcpy and MPI_Pack and sends
 * blocks from the buffers themselves: device buffers come as host mirrors
 * (base). */
static int nbr_bind(pcoll_plan_t *plan, const void *args, void *const base[2])
{
    pcoll__nbr_args_t a = *(const pcoll__nbr_args_t *)args;
    if (base[0])
        a.sendbuf = base[0];
    if (base[1])
        a.recvbuf = base[1];
    return pcoll__nbr_node_bind(plan, &a);
}

/* A non-blocking call's arguments, kept until its run is over: the arrays
 * and the types (duplicates of derived ones, which the caller may free
 * once the call returns). */
typedef struct held {
    pcoll__nbr_args_t a;
    int nown;
    MPI_Datatype *own;
    MPI_Count counts[];
} held_t;

static void nbr_release(void *copy)
{
    held_t *h = copy;
    while (h && h->nown > 0)
        MPI_Type_free(&h->own[--h->nown]);
    pcoll__free(h);
}

/* *type replaced by a duplicate in h->own where derived (an edge whose
 * type is the previous edge's shares its duplicate: same). */
static int hold_type(held_t *h, MPI_Datatype *type, const MPI_Datatype *same)
{
    if (same) {
        *type = *same;
        return PCOLL_SUCCESS;
    }
    if (pcoll__type_is_named(*type))
        return PCOLL_SUCCESS;
    if (MPI_Type_dup(*type, &h->own[h->nown]) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "neighbor: MPI_Type_dup");
    *type = h->own[h->nown++];
    return PCOLL_SUCCESS;
}

/* alltoallw: each edge's type of one direction held into to[]. */
static int hold_types(held_t *h, const MPI_Datatype *from, MPI_Datatype *to, int n)
{
    int e, rc = PCOLL_SUCCESS;
    for (e = 0; e < n && rc == PCOLL_SUCCESS; e++) {
        to[e] = from[e];
        rc = hold_type(h, &to[e], e > 0 && from[e] == from[e - 1] ? &to[e - 1] : NULL);
    }
    return rc;
}

static int nbr_hold(const void *args, int p, void **copy)
{
    const pcoll__nbr_args_t *a = args;
    size_t in = (size_t)a->indegree, out = (size_t)a->outdegree, n = in + out;
    held_t *h = pcoll__malloc(sizeof *h + n * (sizeof(MPI_Count) + sizeof(MPI_Aint)) +
                              (2 * n + 2) * sizeof(MPI_Datatype));
    MPI_Aint *displs;
    MPI_Datatype *types;
    int rc = PCOLL_SUCCESS;
    (void)p;
    if (!h)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor: arguments of a non-blocking call");
    h->a = *a;
    h->nown = 0;
    displs = (MPI_Aint *)(void *)(h->counts + n);
    types = (MPI_Datatype *)(void *)(displs + n);
    h->own = types + n;
    memcpy(h->counts, a->scounts, out * sizeof(MPI_Count));
    memcpy(h->counts + out, a->rcounts, in * sizeof(MPI_Count));
    memcpy(displs, a->sdispls, out * sizeof(MPI_Aint));
    memcpy(displs + out, a->rdispls, in * sizeof(MPI_Aint));
    h->a.scounts = h->counts, h->a.rcounts = h->counts + out;
    h->a.sdispls = displs, h->a.rdispls = displs + out;
    if (a->stypes) {
        h->a.stypes = types, h->a.rtypes = types + out;
        rc = hold_types(h, a->stypes, types, a->outdegree);
        if (rc == PCOLL_SUCCESS)
            rc = hold_types(h, a->rtypes, types + out, a->indegree);
    } else {
        rc = hold_type(h, &h->a.sendtype, NULL);
        if (rc == PCOLL_SUCCESS)
            rc = hold_type(h, &h->a.recvtype, a->recvtype == a->sendtype ? &h->a.sendtype : NULL);
    }
    if (rc != PCOLL_SUCCESS) {
        nbr_release(h);
        return rc;
    }
    *copy = h;
    return PCOLL_SUCCESS;
}

/* The bytes this rank receives. */
static long long nbr_volume(pcoll__call_t *c)
{
    const pcoll__nbr_args_t *a = args_of(c);
    long long v = 0;
    for (int e = 0; e < a->indegree; e++)
        v += pcoll__nbr_bytes(a->rcounts[e], pcoll__nbr_rtype(a, e));
    return v;
}

static const pcoll__shape_binder_t nbr_binder = {nbr_span, nbr_bind, nbr_hold, nbr_release};

static const pcoll__coll_t neighbor = {
    .name = "neighbor_alltoall",
    .native_as_given = 1,
    .table = &pcoll__neighbor_table,
    .opts_offset = offsetof(pcoll__nbr_args_t, opts),
    .check = nbr_check,
    .agree = nbr_agree,
    .key = nbr_key,
    .choose = nbr_choose,
    .prepare = nbr_prepare,
    .shape = nbr_shape,
    .keep = nbr_keep,
    .binder = &nbr_binder,
    .volume = nbr_volume,
    .words = nbr_words,
    .arrays = nbr_arrays,
    .forward = nbr_forward,
};

int pcoll__neighbor_dropin(pcoll__mode_t mode, const pcoll__nbr_raw_t *r, MPI_Comm comm,
                           MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll__entry(&neighbor, mode, "pcoll__neighbor_dropin", r, comm, info, plan);
}

/* The stand-in call of pcoll__neighbor_prepare: this many bytes an edge. */
#define PREPARE_BYTES 8

int pcoll__neighbor_prepare(MPI_Comm comm)
{
    static const char *const fn = "pcoll__neighbor_prepare";
    int topo, in, out, rc, f, e;
    size_t n;
    char *sendbuf, *recvbuf;
    int *counts, *displs, sendcount = PREPARE_BYTES, recvcount = PREPARE_BYTES;
    MPI_Aint *bytes;
    MPI_Datatype *types, sendtype = MPI_BYTE, recvtype = MPI_BYTE;
    if ((rc = pcoll__nbr_degrees(comm, fn, &topo, &in, &out)) != PCOLL_SUCCESS)
        return rc;
    n = (size_t)(in > out ? in : out) + 1;
    sendbuf = pcoll__malloc(2 * n * PREPARE_BYTES);
    /* The arrays by alignment: MPI_Aint, MPI_Datatype, int. */
    bytes = pcoll__malloc(n * (sizeof(MPI_Aint) + sizeof(MPI_Datatype) + 2 * sizeof(int)));
    if (!sendbuf || !bytes) {
        pcoll__free(sendbuf);
        pcoll__free(bytes);
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: stand-in call", fn);
    }
    recvbuf = sendbuf + n * PREPARE_BYTES;
    memset(sendbuf, 0, 2 * n * PREPARE_BYTES);
    types = (MPI_Datatype *)(void *)(bytes + n);
    counts = (int *)(void *)(types + n);
    displs = counts + n;
    for (e = 0; e < (int)n; e++) {
        counts[e] = PREPARE_BYTES;
        displs[e] = e * PREPARE_BYTES;
        bytes[e] = (MPI_Aint)e * PREPARE_BYTES;
        types[e] = MPI_BYTE;
    }
    for (f = 0; f < 3 && rc == PCOLL_SUCCESS; f++) {
        const int *sendcounts = counts, *recvcounts = counts, *sdispls = displs,
                  *rdispls = displs;
        const MPI_Datatype *sendtypes = types, *recvtypes = types;
        raw_t r = f == 0   ? PCOLL__NBR_RAW_A2A(0)
                  : f == 1 ? PCOLL__NBR_RAW_A2AV
                           : PCOLL__NBR_RAW(PCOLL__NBR_ALLTOALLW, 0, 0, 0, (MPI_Datatype)0,
                                            (MPI_Datatype)0, sendcounts, NULL, recvcounts, NULL,
                                            NULL, bytes, NULL, bytes, sendtypes, recvtypes);
        rc = pcoll__entry(&neighbor, PCOLL__PREPARE, fn, &r, comm, MPI_INFO_NULL, NULL);
    }
    pcoll__free(bytes);
    pcoll__free(sendbuf);
    return rc;
}

/* ---- the public calls ------------------------------------------------------------ */

static int run(pcoll__mode_t mode, const char *fn, const raw_t *r, MPI_Comm comm,
               MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll__entry(&neighbor, mode, fn, r, comm, info, plan);
}

int pcoll_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_neighbor_alltoall", &PCOLL__NBR_RAW_A2A(0), comm,
               MPI_INFO_NULL, NULL);
}

int pcoll_neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_neighbor_alltoall_init", &PCOLL__NBR_RAW_A2A(0), comm,
               info, plan);
}

int pcoll_neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_neighbor_alltoall_c", &PCOLL__NBR_RAW_A2A(1), comm,
               MPI_INFO_NULL, NULL);
}

int pcoll_neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_neighbor_alltoall_init_c", &PCOLL__NBR_RAW_A2A(1), comm,
               info, plan);
}

int pcoll_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_neighbor_alltoallv", &PCOLL__NBR_RAW_A2AV, comm,
               MPI_INFO_NULL, NULL);
}

int pcoll_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_neighbor_alltoallv_init", &PCOLL__NBR_RAW_A2AV, comm, info,
               plan);
}

int pcoll_neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_neighbor_alltoallv_c", &PCOLL__NBR_RAW_A2AV_C, comm,
               MPI_INFO_NULL, NULL);
}

int pcoll_neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_neighbor_alltoallv_init_c", &PCOLL__NBR_RAW_A2AV_C, comm,
               info, plan);
}

int pcoll_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_neighbor_alltoallw", &PCOLL__NBR_RAW_A2AW, comm,
               MPI_INFO_NULL, NULL);
}

int pcoll_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                  const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                  pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_neighbor_alltoallw_init", &PCOLL__NBR_RAW_A2AW, comm, info,
               plan);
}

int pcoll_neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm)
{
    return run(PCOLL__ONESHOT, "pcoll_neighbor_alltoallw_c", &PCOLL__NBR_RAW_A2AW_C, comm,
               MPI_INFO_NULL, NULL);
}

int pcoll_neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                    MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    return run(PCOLL__PERSISTENT, "pcoll_neighbor_alltoallw_init_c", &PCOLL__NBR_RAW_A2AW_C, comm,
               info, plan);
}
