/*
 * gpu_staged: the first way of the multicore all-to-all paper on GPU memory
 * (shared/papers/multicore-alltoall-pencil-fft.txt, section III-C): "copy
 * all data to the host with cudaMemcpy, communicate, and copy back".  This
 * rank's device input goes to pinned host memory in one copy (the span of
 * the buffer its type map and counts touch), a host algorithm (the child
 * plan, opts.gpu_child: the host auto choice or pcoll_gpu_host_algorithm)
 * runs on the host copies, and the result comes back in one copy.  A buffer
 * in host memory is used as it is, so ranks with host and device buffers
 * mix freely: the child's messages are those of the same host algorithm on
 * every rank.
 *
 * Everything is made at init (pinned buffers, the child plan); start and
 * wait (test) only copy and run the child.  In place: the child serves
 * MPI_IN_PLACE itself on the host copy of the receive buffer when its table
 * entry says so, else it gets a host copy of the input made at start, as
 * the collective's own staging would.  A receive buffer whose span has gaps
 * (a type with holes, alltoallv displacements apart) is copied in at start
 * too, so that the copy back leaves the gaps as they were.
 */
#include <limits.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "gpu/gpu.h"

/* Bytes [lo, hi) relative to a buffer; empty when hi <= lo. */
typedef struct span {
    MPI_Aint lo, hi;
    long long payload; /* bytes of data in it */
} span_t;

static const span_t no_span = {0, 0, 0};

/* Add count items of type, the first at byte off. */
static void span_items(span_t *s, MPI_Datatype type, MPI_Aint off, MPI_Count count)
{
    MPI_Aint lb, ext, tlb, text, a, b, lo, hi;
    int size = 0;
    if (count <= 0)
        return;
    MPI_Type_get_extent(type, &lb, &ext);
    MPI_Type_get_true_extent(type, &tlb, &text);
    MPI_Type_size(type, &size);
    if (size == 0)
        return;
    a = off + tlb;
    b = off + (MPI_Aint)(count - 1) * ext + tlb;
    lo = a < b ? a : b;
    hi = (a < b ? b : a) + text;
    if (s->hi <= s->lo) {
        s->lo = lo, s->hi = hi;
    } else {
        s->lo = lo < s->lo ? lo : s->lo;
        s->hi = hi > s->hi ? hi : s->hi;
    }
    s->payload += (long long)count * size;
}

static int span_empty(const span_t *s)
{
    return s->hi <= s->lo;
}

static size_t span_bytes(const span_t *s)
{
    return span_empty(s) ? 0 : (size_t)(s->hi - s->lo);
}

/* The spans of one rank's buffers in a collective's arguments. */
typedef struct spans {
    const void *ibuf; /* the input: the send buffer (in place: the receive buffer) */
    span_t in;
    void *rbuf;       /* the receive buffer */
    span_t recv;      /* all of it the collective touches (in place: the input too) */
    span_t out;       /* the result, copied back */
} spans_t;

static void spans_alltoall(const pcoll__a2a_args_t *a, int p, spans_t *s)
{
    int i;
    s->ibuf = a->inplace ? a->recvbuf : a->sendbuf;
    s->rbuf = a->recvbuf;
    s->in = s->recv = s->out = no_span;
    for (i = 0; i < p; i++) {
        if (a->scounts)
            span_items(&s->in, a->sendtype, a->sdispls[i] * a->sext, a->scounts[i]);
        if (a->rcounts)
            span_items(&s->out, a->recvtype, a->rdispls[i] * a->rext, a->rcounts[i]);
    }
    if (!a->scounts)
        span_items(&s->in, a->sendtype, 0, (MPI_Count)a->sendcount * p);
    if (!a->rcounts)
        span_items(&s->out, a->recvtype, 0, (MPI_Count)a->recvcount * p);
    s->recv = s->out;
}

static void spans_reduce_scatter(const pcoll__rs_args_t *a, int rank, spans_t *s)
{
    s->ibuf = a->sendbuf; /* the check set it to recvbuf in place */
    s->rbuf = a->recvbuf;
    s->in = s->recv = s->out = no_span;
    span_items(&s->in, a->type, 0, a->total);
    span_items(&s->out, a->type, 0, a->counts[rank]);
    s->recv = a->inplace ? s->in : s->out;
}

static int kinds(const spans_t *s)
{
    int k = 0;
    if (!span_empty(&s->in))
        k |= pcoll__gpu_is_device(pcoll__addr(s->ibuf, s->in.lo)) ? PCOLL__GPU_SEND
                                                                  : PCOLL__GPU_HOST;
    if (!span_empty(&s->recv))
        k |= pcoll__gpu_is_device(pcoll__addr(s->rbuf, s->recv.lo)) ? PCOLL__GPU_RECV
                                                                    : PCOLL__GPU_HOST;
    return k;
}

int pcoll__gpu_kinds_alltoall(const pcoll__a2a_args_t *a, int p)
{
    spans_t s;
    if (!pcoll__gpu_pretend && pcoll__gpu_count() == 0)
        return PCOLL__GPU_HOST;
    spans_alltoall(a, p, &s);
    return kinds(&s);
}

int pcoll__gpu_kinds_reduce_scatter(const pcoll__rs_args_t *a, int rank)
{
    spans_t s;
    if (!pcoll__gpu_pretend && pcoll__gpu_count() == 0)
        return PCOLL__GPU_HOST;
    spans_reduce_scatter(a, rank, &s);
    return kinds(&s);
}

/* ---- the plan ------------------------------------------------------------- */

typedef struct copy {
    void *dst;
    const void *src;
    size_t n;
} copy_t;

/* A local typed copy (host memory): count items of type at src into as
 * many of sig at dst. */
typedef struct tcopy {
    const void *src;
    void *dst;
    int count;
    MPI_Datatype type, sig;
} tcopy_t;

typedef struct staged {
    pcoll_plan_t *child;
    copy_t in[2], out;   /* at start (in order), after the child's run */
    int nin;
    tcopy_t *tin;        /* at start, before in[] */
    int ntin;
    void *mirror[2];     /* pinned host copies: the input, the receive buffer */
    size_t bytes[2];
} staged_t;

static int copies(const copy_t *c, int n)
{
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < n && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__gpu_copy(c[i].dst, c[i].src, c[i].n);
    return rc;
}

static int tcopies(const staged_t *st)
{
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < st->ntin && rc == PCOLL_SUCCESS; i++)
        rc = pcoll_typed_copy(st->tin[i].src, st->tin[i].count, st->tin[i].type, st->tin[i].dst,
                              st->tin[i].count, st->tin[i].sig);
    return rc;
}

static int staged_start(pcoll_plan_t *plan)
{
    staged_t *st = plan->priv;
    int rc = tcopies(st);
    if (rc == PCOLL_SUCCESS)
        rc = copies(st->in, st->nin);
    return rc == PCOLL_SUCCESS ? pcoll__plan_begin(st->child) : rc;
}

static int staged_test(pcoll_plan_t *plan, int *done)
{
    staged_t *st = plan->priv;
    int rc = pcoll__plan_step(st->child, done);
    if (rc == PCOLL_SUCCESS && *done)
        rc = copies(&st->out, 1);
    return rc;
}

static int staged_wait(pcoll_plan_t *plan)
{
    staged_t *st = plan->priv;
    int rc = pcoll__plan_block(st->child);
    return rc == PCOLL_SUCCESS ? copies(&st->out, 1) : rc;
}

static int staged_run(pcoll_plan_t *plan)
{
    staged_t *st = plan->priv;
    int rc = tcopies(st);
    if (rc == PCOLL_SUCCESS)
        rc = copies(st->in, st->nin);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__plan_run(st->child);
    return rc == PCOLL_SUCCESS ? copies(&st->out, 1) : rc;
}

static void staged_destroy(pcoll_plan_t *plan)
{
    staged_t *st = plan->priv;
    int i;
    if (!st)
        return;
    pcoll__plan_destroy(st->child);
    st->child = NULL;
    for (i = 0; i < 2; i++) {
        pcoll__gpu_host_free(st->mirror[i], st->bytes[i]);
        st->mirror[i] = NULL;
    }
}

static const pcoll__plan_ops_t staged_ops = {
    .start = staged_start,
    .test = staged_test,
    .wait = staged_wait,
    .run = staged_run,
    .destroy = staged_destroy,
};

static void staged_describe(const void *arg, FILE *out)
{
    const staged_t *st = arg;
    fprintf(out, "  gpu_staged: host algorithm %s; %d copies in, %s; pinned %zu + %zu bytes\n",
            st->child ? st->child->algorithm : "?", st->nin, st->out.n ? "1 back" : "none back",
            st->bytes[0], st->bytes[1]);
}

/* A pinned copy of span s of buf in mirror slot k; *base: where the child
 * addresses it (the mirror minus the span's start). */
static int mirror(pcoll_plan_t *plan, staged_t *st, int k, const span_t *s, void **base)
{
    size_t n = span_bytes(s);
    if (!(st->mirror[k] = pcoll__gpu_host_alloc(n)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_staged: %zu bytes of pinned host memory",
                            plan->collective, n);
    st->bytes[k] = n;
    *base = pcoll__addr(st->mirror[k], -s->lo);
    return PCOLL_SUCCESS;
}

/* Whether a receive span holds nothing but data (the copy back may write
 * all of it). */
static int dense(const span_t *s)
{
    return (long long)span_bytes(s) == s->payload;
}

/* The buffers the child uses: set by the collective's builder below. */
typedef struct child_bufs {
    const void *in;  /* the input (send buffer), or NULL when in place on rbuf */
    void *rbuf;
    int inplace;     /* the child serves MPI_IN_PLACE on rbuf itself */
} child_bufs_t;

/* Plan the copies and mirrors of spans s (in place: the caller passed
 * MPI_IN_PLACE; child_inplace: the child serves it itself). */
static int plan_copies(pcoll_plan_t *plan, staged_t *st, const spans_t *s, int inplace,
                       int child_inplace, child_bufs_t *b)
{
    int kind = kinds(s), rc;
    void *base = NULL;
    b->in = s->ibuf;
    b->rbuf = s->rbuf;
    b->inplace = inplace && child_inplace;
    if ((kind & PCOLL__GPU_RECV) && !span_empty(&s->recv)) {
        PCOLL_CHECK(mirror(plan, st, 1, &s->recv, &base), rc, out);
        b->rbuf = base;
        if (b->inplace || !dense(&s->recv))
            st->in[st->nin++] = (copy_t){st->mirror[1], pcoll__addr(s->rbuf, s->recv.lo),
                                         span_bytes(&s->recv)};
        if (!span_empty(&s->out))
            st->out = (copy_t){pcoll__addr(s->rbuf, s->out.lo),
                               pcoll__addr(st->mirror[1], s->out.lo - s->recv.lo),
                               span_bytes(&s->out)};
    }
    if (b->inplace) {
        b->in = b->rbuf;
    } else if (!span_empty(&s->in) && (inplace || (kind & PCOLL__GPU_SEND))) {
        /* The input's own copy: from device memory, or (in place, for a child
         * that needs a separate input) from the receive buffer. */
        PCOLL_CHECK(mirror(plan, st, 0, &s->in, &base), rc, out);
        st->in[st->nin++] = (copy_t){st->mirror[0], pcoll__addr(s->ibuf, s->in.lo),
                                     span_bytes(&s->in)};
        b->in = base;
    }
    rc = PCOLL_SUCCESS;
out:
    return rc;
}

/* Start the staged plan: its state and ops (so a failure below frees what
 * was made), checks of the child. */
static int begin(pcoll_plan_t *plan, const pcoll__opts_t *opts, staged_t **out)
{
    staged_t *st;
    const pcoll__algo_t *child = opts->gpu_child;
    if (!child || !child->build)
        return pcoll__error(PCOLL_ERR_INTERNAL, "%s gpu_staged: no host algorithm",
                            plan->collective);
    if ((child->flags & PCOLL__ALGO_COLLECTIVE) && !plan->together)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "%s gpu_staged: host algorithm %s plans collectively (persistent "
                            "init only)",
                            plan->collective, child->name);
    if (!(st = pcoll__plan_alloc(plan, sizeof *st)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_staged: state", plan->collective);
    plan->priv = st;
    plan->ops = &staged_ops;
    plan->describe = staged_describe;
    plan->describe_arg = st;
    *out = st;
    return PCOLL_SUCCESS;
}

/* Build and commit the child plan of algorithm child on args. */
static int build_child(pcoll_plan_t *plan, staged_t *st, const pcoll__algo_t *child,
                       const void *args)
{
    int rc;
    PCOLL_CHECK(pcoll__plan_create(plan->ctx, plan->collective, plan->tag, &st->child), rc, out);
    st->child->algorithm = child->name;
    st->child->no_comm = plan->no_comm;
    st->child->together = plan->together;
    st->child->normalize = plan->normalize;
    PCOLL_CHECK(child->build(st->child, args), rc, out);
    rc = pcoll__sched_commit(&st->child->sched, st->child->comm, st->child->tag);
out:
    return rc;
}

/* Whether the host child serves MPI_IN_PLACE on alltoall(v) arguments a:
 * its table entry says so, and for `native` the MPI is not known to fail
 * the exchange in place (core/defects.h; the same answer on every rank). */
static int a2a_child_inplace(const pcoll__a2a_args_t *a, int p)
{
    const pcoll__algo_t *child = a->opts.gpu_child;
    if (!(child->flags & PCOLL__ALGO_INPLACE))
        return 0;
    if (strcmp(child->name, "native"))
        return 1;
    return a->rcounts ? pcoll__a2av_native_inplace_ok(a) : pcoll__alltoall_native_ok(a, p);
}

/* In place on a receive buffer in host memory, for a child that needs a
 * separate input: the input packed into host memory by typed copies at
 * start (the span of the buffer may be far larger than its data: absolute
 * addresses with MPI_BOTTOM), as the collective's own staging does; the
 * child then runs out of place from it.  Returns 1 when done (c changed). */
static int host_inplace(pcoll_plan_t *plan, staged_t *st, pcoll__a2a_args_t *c, int *rc)
{
    MPI_Datatype sig;
    MPI_Aint lb, sext, *displs = NULL;
    MPI_Count *counts = NULL;
    long long items = 0;
    int p = plan->size, i, n = c->rcounts ? p : 1;
    char *mem;
    if (!c->inplace || a2a_child_inplace(c, p) ||
        (pcoll__gpu_kinds_alltoall(c, p) & PCOLL__GPU_RECV))
        return 0;
    if ((*rc = pcoll_type_signature(c->recvtype, &sig)) != PCOLL_SUCCESS ||
        (*rc = pcoll__plan_own_type(plan, &sig)) != PCOLL_SUCCESS)
        return 1;
    MPI_Type_get_extent(sig, &lb, &sext);
    st->tin = pcoll__plan_alloc(plan, sizeof *st->tin * (size_t)n);
    if (c->rcounts) {
        displs = pcoll__plan_alloc(plan, sizeof *displs * (size_t)p);
        counts = pcoll__plan_alloc(plan, sizeof *counts * (size_t)p);
    }
    if (!st->tin || (c->rcounts && (!displs || !counts))) {
        *rc = pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_staged: in place", plan->collective);
        return 1;
    }
    for (i = 0; i < n; i++)
        items += c->rcounts ? c->rcounts[i] : (long long)c->recvcount * p;
    if (!(st->mirror[0] = pcoll__gpu_host_alloc((size_t)(items * sext) + 1))) {
        *rc = pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_staged: in place", plan->collective);
        return 1;
    }
    st->bytes[0] = (size_t)(items * sext) + 1;
    mem = st->mirror[0];
    for (items = 0, i = 0; i < n; i++) {
        MPI_Count k = c->rcounts ? c->rcounts[i] : (MPI_Count)c->recvcount * p;
        if (k > INT_MAX) {
            *rc = pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s gpu_staged: in place, %lld items",
                               plan->collective, (long long)k);
            return 1;
        }
        if (c->rcounts)
            displs[i] = (MPI_Aint)items, counts[i] = k;
        if (k)
            st->tin[st->ntin++] = (tcopy_t){c->rcounts ? pcoll__a2a_rbuf(c, i) : c->recvbuf,
                                            mem + items * sext, (int)k, c->recvtype, sig};
        items += k;
    }
    c->inplace = 0;
    c->sendbuf = mem;
    c->sendtype = sig;
    c->sendcount = c->recvcount;
    c->sblock = sext * c->recvcount;
    c->sext = sext;
    c->scounts = counts, c->sdispls = displs;
    *rc = PCOLL_SUCCESS;
    return 1;
}

/* alltoall and alltoallv: the child's arguments are the caller's with the
 * buffers replaced (in place without the child's support: a separate input
 * laid out like the receive buffer). */
static void a2a_child(pcoll__a2a_args_t *c, const child_bufs_t *b, int inplace)
{
    c->recvbuf = b->rbuf;
    c->sendbuf = b->in;
    if (inplace && !b->inplace) {
        c->inplace = 0;
        c->sendcount = c->recvcount, c->sendtype = c->recvtype, c->sblock = c->rblock;
        c->scounts = c->rcounts, c->sdispls = c->rdispls, c->sext = c->rext;
    }
}

/* alltoall's and alltoallv's staging alike: a is the alltoall part of
 * child_args (the whole argument struct the host child's builder takes),
 * both the plan's own copies. */
static int a2a_staged(pcoll_plan_t *plan, pcoll__a2a_args_t *a, void *child_args)
{
    staged_t *st;
    spans_t s;
    child_bufs_t b;
    int rc;
    PCOLL_CHECK(begin(plan, &a->opts, &st), rc, out);
    if (host_inplace(plan, st, a, &rc)) {
        if (rc == PCOLL_SUCCESS)
            rc = build_child(plan, st, a->opts.gpu_child, child_args);
        return rc;
    }
    spans_alltoall(a, plan->size, &s);
    PCOLL_CHECK(plan_copies(plan, st, &s, a->inplace, a2a_child_inplace(a, plan->size), &b),
                rc, out);
    a2a_child(a, &b, a->inplace);
    rc = build_child(plan, st, a->opts.gpu_child, child_args);
out:
    return rc;
}

int pcoll__alltoall_gpu_staged(pcoll_plan_t *plan, const void *args)
{
    pcoll__a2a_args_t c = *(const pcoll__a2a_args_t *)args;
    return a2a_staged(plan, &c, &c);
}

int pcoll__alltoallv_gpu_staged(pcoll_plan_t *plan, const void *args)
{
    pcoll__a2av_args_t v = *(const pcoll__a2av_args_t *)args;
    return a2a_staged(plan, &v.a, &v);
}

int pcoll__reduce_scatter_gpu_staged(pcoll_plan_t *plan, const void *args)
{
    pcoll__rs_args_t c = *(const pcoll__rs_args_t *)args;
    staged_t *st;
    spans_t s;
    child_bufs_t b;
    int rc;
    PCOLL_CHECK(begin(plan, &c.opts, &st), rc, out);
    if (!c.commutative && (c.opts.gpu_child->flags & PCOLL__ALGO_COMMUTATIVE))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "reduce_scatter gpu_staged: host algorithm %s needs a commutative op",
                            c.opts.gpu_child->name);
    spans_reduce_scatter(&c, plan->rank, &s);
    PCOLL_CHECK(plan_copies(plan, st, &s, c.inplace,
                            !!(c.opts.gpu_child->flags & PCOLL__ALGO_INPLACE), &b),
                rc, out);
    c.recvbuf = b.rbuf;
    c.sendbuf = b.in;
    if (c.inplace && !b.inplace)
        c.inplace = 0;
    rc = build_child(plan, st, c.opts.gpu_child, &c);
out:
    return rc;
}
