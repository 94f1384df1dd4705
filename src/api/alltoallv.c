/*
 * alltoallv: the descriptor and the public calls pcoll_alltoallv_init and
 * pcoll_alltoallv (and the drop-in's local plans), through the entry path.
 * Its hooks but the choice serve alltoallw too (api/alltoallw.c): a type
 * per peer where the arguments carry type arrays, byte displacements.
 *
 * Persistent init does all the analysis once: one reduction gives every
 * rank's verdict and the smallest and largest element size over all ranks
 * (zero-copy Bruck's regularity test, section 3.5 of the zero-copy Bruck
 * paper), an alltoall of the byte counts checks that every pair of ranks
 * agrees, and the builders exchange whatever counts they need and make every
 * datatype; a run only communicates.  One-shot calls have a shape (entry.c
 * "Shapes"): MPI_IN_PLACE use and the options, no counts.  Its first call
 * takes a direct algorithm (select/alltoallv.c), its second decides for
 * every rank as a persistent init does; `hier` (between nodes, or
 * requested) is then kept and serves every later call, whatever its counts
 * (hier_alltoallv_kept.c), and any other choice leaves the shape to the
 * cache by arguments.  Other requested algorithms whose planning
 * communicates (bruck_zerocopy, padded_bruck, ...) are planned collectively
 * on every one-shot call.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/entry.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "base/pmpi.h"
#include "datatype/signature.h"
#include "datatype/size.h"
#include "gpu/gpu.h"
#include "hier/hier.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__a2av_args_t) <= PCOLL__ARGS_MAX, "alltoallv arguments");

typedef pcoll__a2av_raw_t raw_t;

static pcoll__a2av_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__a2av_args_t *)(void *)c->args;
}

/* ---- checks ---------------------------------------------------------------- */

/* One direction's arrays as the call gave them: ints or (large-count forms)
 * MPI_Count / MPI_Aint. */
typedef struct side {
    const int *counts, *displs;
    const MPI_Count *wcounts;
    const MPI_Aint *wdispls;
    const MPI_Datatype *types; /* alltoallw's */
    int w;                     /* alltoallw: types expected */
} side_t;

static side_t side_of(const raw_t *r, int send)
{
    if (send && r->sendbuf != MPI_IN_PLACE)
        return (side_t){r->scounts, r->sdispls, r->wscounts, r->wsdispls, r->stypes, r->w};
    return (side_t){r->rcounts, r->rdispls, r->wrcounts, r->wrdispls, r->rtypes, r->w};
}

/* The size of peer's send / receive type. */
static MPI_Count ssize(const pcoll__a2a_args_t *a, int peer)
{
    MPI_Count size = 0;
    pcoll__type_size(pcoll__a2a_stype(a, peer), &size);
    return size;
}

static MPI_Count rsize(const pcoll__a2a_args_t *a, int peer)
{
    MPI_Count size = 0;
    pcoll__type_size(pcoll__a2a_rtype(a, peer), &size);
    return size;
}

static int side_null(const side_t *s)
{
    return (s->w && !s->types) ||
           (s->wcounts || s->wdispls ? !s->wcounts || !s->wdispls : !s->counts || !s->displs);
}

static MPI_Count side_count(const side_t *s, int i)
{
    return s->wcounts ? s->wcounts[i] : s->counts[i];
}

static MPI_Aint side_displ(const side_t *s, int i)
{
    return s->wdispls ? s->wdispls[i] : s->displs[i];
}

/* Counts must not be negative, nor displacements unless r allows them. */
static int check_counts(const raw_t *r, const side_t *s, int p, const char *what,
                        const char *fn)
{
    int i;
    if (side_null(s))
        return pcoll__error(PCOLL_ERR_ARG, "%s: %s counts, displacements or types are NULL", fn,
                            what);
    for (i = 0; i < p; i++)
        if (side_count(s, i) < 0 || (side_displ(s, i) < 0 && !r->negative_ok))
            return pcoll__error(PCOLL_ERR_ARG, "%s: %s count or displacement %d is negative", fn,
                                what, i);
    return PCOLL_SUCCESS;
}

/* The arrays of both directions as MPI_Count / MPI_Aint, into a->...: the
 * large-count forms' own, or the ints widened into the call's temporary 0. */
static int widen(pcoll__call_t *c, pcoll__a2a_args_t *a)
{
    const raw_t *r = c->raw;
    side_t s[2] = {side_of(r, 1), side_of(r, 0)};
    MPI_Count *counts;
    MPI_Aint *displs;
    int p = c->p, i, k;
    if (r->wide) {
        a->scounts = s[0].wcounts, a->sdispls = s[0].wdispls;
        a->rcounts = s[1].wcounts, a->rdispls = s[1].wdispls;
        return PCOLL_SUCCESS;
    }
    if (!(counts = pcoll__call_scratch(c, 0, (sizeof(MPI_Count) + sizeof(MPI_Aint)) * 2 *
                                                  (size_t)p + 1)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: counts", c->fn);
    displs = (MPI_Aint *)(void *)(counts + 2 * p);
    for (k = 0; k < 2; k++)
        for (i = 0; i < p; i++) {
            counts[k * p + i] = s[k].counts[i];
            displs[k * p + i] = s[k].displs[i];
        }
    a->scounts = counts, a->sdispls = displs;
    a->rcounts = counts + p, a->rdispls = displs + p;
    return PCOLL_SUCCESS;
}

/* The lowest receive displacement (0 if none is negative). */
static long long lowest(const MPI_Aint *displs, int p)
{
    long long m = 0;
    int i;
    for (i = 0; i < p; i++)
        m = displs[i] < m ? displs[i] : m;
    return m;
}

typedef struct region {
    MPI_Aint lo, hi;
} region_t;

static int by_start(const void *x, const void *y)
{
    MPI_Aint a = ((const region_t *)x)->lo, b = ((const region_t *)y)->lo;
    return (a > b) - (a < b);
}

/* Receive blocks must not overlap.  Exact for dense receive types (blocks
 * are then intervals); a type with holes may interleave legally with
 * another block, and a test that could refuse such a layout on one rank
 * alone would leave the others waiting, so those are not checked. */
static int check_overlap(const pcoll__a2a_args_t *a, int p, const char *fn)
{
    region_t own[128], *r = own;
    int i, n = 0, rc = PCOLL_SUCCESS;
    if (p > 128 && !(r = pcoll__malloc(sizeof *r * (size_t)p)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: overlap check", fn);
    for (i = 0; i < p && n >= 0; i++) {
        MPI_Datatype t = pcoll__a2a_rtype(a, i);
        MPI_Aint tlb, text, lb, ext;
        if (a->rcounts[i] == 0)
            continue;
        pcoll__type_true_extent(t, &tlb, &text);
        pcoll__type_extent(t, &lb, &ext);
        if (text != rsize(a, i) || ext != text) {
            n = -1; /* holes: not checked */
        } else {
            r[n].lo = a->rdispls[i] * a->rext + tlb;
            r[n].hi = r[n].lo + ((MPI_Aint)a->rcounts[i] - 1) * ext + text;
            n++;
        }
    }
    if (n > 0)
        qsort(r, (size_t)n, sizeof *r, by_start);
    for (i = 1; i < n && rc == PCOLL_SUCCESS; i++)
        if (r[i].lo < r[i - 1].hi)
            rc = pcoll__error(PCOLL_ERR_ARG, "%s: receive blocks overlap", fn);
    if (r != own)
        pcoll__free(r);
    return rc;
}

/* Whether type's signature is one run of the basic type *basic (set by the
 * first type that comes; *unit: the basic items one item of type holds). */
static int one_basic(MPI_Datatype type, MPI_Datatype *basic, int *unit)
{
    pcoll__sig_t s = {0};
    int ok = pcoll__sig_of(type, 1, &s) == PCOLL_SUCCESS && s.nruns == 1 &&
             s.counts[0] <= INT_MAX && (*basic == MPI_DATATYPE_NULL || *basic == s.types[0]);
    if (ok)
        *basic = s.types[0], *unit = (int)s.counts[0];
    pcoll__sig_free(&s);
    return ok;
}

/* The basic type both signatures are made of, if any (alltoallw: the
 * types of every peer with data to move). */
static void find_basic(pcoll__a2av_args_t *v, int p)
{
    const pcoll__a2a_args_t *a = &v->a;
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    int i, n = a->rtypes ? p : 1, ok = 1;
    for (i = 0; i < n && ok; i++) {
        if (!a->rtypes || a->scounts[i] > 0)
            ok = one_basic(pcoll__a2a_stype(a, i), &basic, &v->sunit);
        if (ok && (!a->rtypes || a->rcounts[i] > 0))
            ok = one_basic(pcoll__a2a_rtype(a, i), &basic, &v->runit);
    }
    v->basic = ok ? basic : MPI_DATATYPE_NULL;
}

/* The largest block in bytes, send or receive. */
static long long largest(const pcoll__a2a_args_t *a, int p)
{
    long long m = 0;
    int i;
    for (i = 0; i < p; i++) {
        long long s = (long long)a->scounts[i] * ssize(a, i), r = (long long)a->rcounts[i] * rsize(a, i);
        m = s > m ? s : m;
        m = r > m ? r : m;
    }
    return m;
}

/* Whether counts[0..p) has any non-zero count. */
static int any_count(const MPI_Count *counts, int p)
{
    int i;
    for (i = 0; i < p; i++)
        if (counts[i] > 0)
            return 1;
    return 0;
}

/* One side's buffer (alltoallw: checked with every peer's type). */
static int check_side(const void *buf, const MPI_Count *counts, MPI_Datatype type,
                      const MPI_Datatype *types, int p, const char *what, const char *fn)
{
    int i, rc = PCOLL_SUCCESS;
    if (!types)
        return pcoll__check_buffer(buf, any_count(counts, p), type, what, fn);
    for (i = 0; i < p && rc == PCOLL_SUCCESS; i++)
        rc = pcoll__check_buffer(buf, counts[i] > 0, types[i], what, fn);
    return rc;
}

/* recvbuf may not be MPI_IN_PLACE; no buffer NULL with data to hold (but
 * MPI_BOTTOM with a type of absolute addresses). */
static int check_buffers(const raw_t *r, const pcoll__a2a_args_t *a, int p, const char *fn)
{
    int rc = check_side(r->recvbuf, a->rcounts, r->recvtype, a->rtypes, p, "recvbuf", fn);
    if (rc == PCOLL_SUCCESS && r->sendbuf != MPI_IN_PLACE)
        rc = check_side(r->sendbuf, a->scounts, r->sendtype, a->stypes, p, "sendbuf", fn);
    return rc;
}

/* One side's type, or (alltoallw) every peer's but MPI_DATATYPE_NULL
 * where the count is 0 (MPI_Alltoallw accepts it there). */
static int check_types(const side_t *s, MPI_Datatype type, const MPI_Count *counts, int p,
                       const char *what, const char *fn)
{
    int i, rc = PCOLL_SUCCESS;
    if (!s->w)
        return pcoll__check_type(type, what, fn);
    for (i = 0; i < p && rc == PCOLL_SUCCESS; i++)
        if (s->types[i] != MPI_DATATYPE_NULL || counts[i] != 0)
            rc = pcoll__check_type(s->types[i], what, fn);
    return rc;
}

/* alltoallw: MPI_DATATYPE_NULL (of a zero count) stands for MPI_BYTE from
 * here on, so that sizes, extents and the plan's types need no exception:
 * both sides' types into c->tmp[1] when any is MPI_DATATYPE_NULL. */
static int null_types(pcoll__call_t *c, pcoll__a2a_args_t *a)
{
    const MPI_Datatype *from[2] = {a->stypes, a->rtypes};
    MPI_Datatype *to;
    int p = c->p, i, k, any = 0;
    for (k = 0; k < 2; k++)
        for (i = 0; i < p && from[k]; i++)
            any |= from[k][i] == MPI_DATATYPE_NULL;
    if (!any)
        return PCOLL_SUCCESS;
    if (!(to = c->tmp[1] = pcoll__malloc(sizeof *to * 2 * (size_t)p)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: types", c->fn);
    for (k = 0; k < 2; k++)
        for (i = 0; i < p; i++)
            to[k * p + i] = from[k][i] == MPI_DATATYPE_NULL ? MPI_BYTE : from[k][i];
    a->stypes = to, a->rtypes = to + p;
    return PCOLL_SUCCESS;
}

/* Local checks; fill the arguments (nothing allocated that outlives the
 * call).  The sizes over all ranks are unknown (-1) until the agreement. */
int pcoll__a2av_check(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    pcoll__a2av_args_t *v = args_of(c);
    pcoll__a2a_args_t *a = &v->a;
    side_t ss = side_of(r, 1), rs = side_of(r, 0);
    const void *sendbuf = r->sendbuf;
    MPI_Datatype sendtype = r->sendtype;
    MPI_Aint lb;
    int rc;
    c->inplace = a->inplace = sendbuf == MPI_IN_PLACE;
    if (a->inplace)
        sendbuf = r->recvbuf, sendtype = r->recvtype;
    PCOLL_CHECK(check_counts(r, &rs, c->p, "receive", c->fn), rc, out);
    PCOLL_CHECK(check_counts(r, &ss, c->p, "send", c->fn), rc, out);
    PCOLL_CHECK(widen(c, a), rc, out);
    PCOLL_CHECK(check_types(&rs, r->recvtype, a->rcounts, c->p,
                            r->w ? "recvtypes" : "recvtype", c->fn),
                rc, out);
    PCOLL_CHECK(check_types(&ss, sendtype, a->scounts, c->p, r->w ? "sendtypes" : "sendtype",
                            c->fn),
                rc, out);
    a->stypes = ss.types, a->rtypes = rs.types;
    if (r->w)
        PCOLL_CHECK(null_types(c, a), rc, out);
    PCOLL_CHECK(check_buffers(r, a, c->p, c->fn), rc, out);
    a->sendbuf = sendbuf, a->sendtype = sendtype;
    a->recvbuf = r->recvbuf, a->recvtype = r->recvtype;
    /* alltoallw's displacements are in bytes. */
    a->sext = a->rext = 1;
    if (!r->w) {
        pcoll__type_extent(sendtype, &lb, &a->sext);
        pcoll__type_extent(r->recvtype, &lb, &a->rext);
    }
    a->blockbytes = largest(a, c->p);
    v->minbytes = v->maxbytes = -1;
    /* With MPI-3 the MPI's own call takes ints alone: a call in the int
     * form is one on every rank (the large-count form is pcoll's own there,
     * and one call is made in one form on every rank: include/pcoll.h). */
    v->native_ok = (MPI_VERSION >= 4 || !r->wide) && pcoll__a2av_native_inplace_ok(a);
    PCOLL_CHECK(check_overlap(a, c->p, c->fn), rc, out);
    /* The basic type (the Bruck variants' items) is looked for by the
     * agreement, the one path that can choose them. */
    v->basic = MPI_DATATYPE_NULL;
out:
    return rc;
}

/* ---- agreement (persistent init) -------------------------------------------- */

/* Every pair must agree on the bytes it exchanges: one alltoall of counts. */
static int check_pairs(MPI_Comm comm, const pcoll__a2a_args_t *a, int p, int *ok)
{
    long long *out = pcoll__malloc(sizeof(long long) * 2 * (size_t)p);
    int i;
    if (!out)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv: count check");
    for (i = 0; i < p; i++)
        out[i] = (long long)a->scounts[i] * ssize(a, i);
    *ok = PCOLL__MPI(Alltoall)(out, 1, MPI_LONG_LONG, out + p, 1, MPI_LONG_LONG, comm) ==
          MPI_SUCCESS;
    for (i = 0; i < p && *ok; i++)
        *ok = out[p + i] == (long long)a->rcounts[i] * rsize(a, i);
    pcoll__free(out);
    return PCOLL_SUCCESS;
}

/* The highest receive count or block end in items. */
static long long highest(const pcoll__a2a_args_t *a, int p)
{
    long long m = 0;
    int i;
    for (i = 0; i < p; i++) {
        long long end = (long long)a->rdispls[i] + a->rcounts[i];
        m = end > m ? end : m;
        m = a->rcounts[i] > m ? a->rcounts[i] : m;
    }
    return m;
}

/* Whether every count and displacement of both directions is an int. */
static int all_ints(const pcoll__a2a_args_t *a, int p)
{
    int i;
    for (i = 0; i < p; i++)
        if (a->rcounts[i] > INT_MAX || a->rdispls[i] > INT_MAX || a->rdispls[i] < INT_MIN ||
            (!a->inplace && (a->scounts[i] > INT_MAX || a->sdispls[i] > INT_MAX ||
                             a->sdispls[i] < INT_MIN)))
            return 0;
    return 1;
}

/* Smallest element in bytes (over both directions, all peers). */
static long long smallest(const pcoll__a2a_args_t *a, int p)
{
    long long m = -1;
    int i;
    for (i = 0; i < p; i++)
        if (m < 0 || (long long)a->rcounts[i] * rsize(a, i) < m)
            m = (long long)a->rcounts[i] * rsize(a, i);
    return m < 0 ? 0 : m;
}

/* Bytes this rank receives in all, and from how many peers. */
static long long received(const pcoll__a2a_args_t *a, int p)
{
    long long total = 0;
    for (int i = 0; i < p; i++)
        total += (long long)a->rcounts[i] * rsize(a, i);
    return total;
}

/* The reduction: verdicts, algorithm and in-place use (must be equal), the
 * global smallest and largest element, the basic type's size, the receive
 * item's size, the lowest receive displacement and the highest receive
 * count or block end (the in-place engine counts in ints), whether every
 * array holds ints (native with MPI-3), the smallest pcoll_aux_bytes set
 * (the in-place choice); then the pairs' byte counts. */
int pcoll__a2av_agree(pcoll__call_t *c, int local)
{
    pcoll__a2av_args_t *v = args_of(c);
    long long vals[11] = {0}, mins[11], maxs[11];
    MPI_Count bsize = 0;
    int rc, ok = 1, p = c->p;
    /* The agreement over every rank of both groups of an intercommunicator;
     * the pairs' counts over the communicator itself, whose MPI_Alltoall
     * pairs a rank with the other group's (dup, not whole). */
    MPI_Comm comm = c->ctx->whole;
    /* The arguments are known to be valid only when the local checks passed. */
    if (local == PCOLL_SUCCESS) {
        find_basic(v, p);
        if (v->basic != MPI_DATATYPE_NULL)
            pcoll__type_size(v->basic, &bsize);
        vals[0] = v->a.opts.algorithm, vals[1] = v->a.inplace, vals[2] = smallest(&v->a, p);
        vals[3] = v->a.blockbytes, vals[4] = bsize;
        vals[5] = received(&v->a, p);
        vals[6] = v->a.opts.aux_bytes > 0 ? v->a.opts.aux_bytes : LLONG_MAX;
        vals[7] = rsize(&v->a, 0);
        /* The in-place engine (alltoallv only) counts in items of one size. */
        vals[8] = v->a.rtypes ? -1 : lowest(v->a.rdispls, p);
        vals[9] = highest(&v->a, p);
        vals[10] = all_ints(&v->a, p);
    }
    if ((rc = pcoll__agree_range(comm, local, vals, 11, mins, maxs, c->fn)) != PCOLL_SUCCESS)
        return rc;
    if (mins[0] != maxs[0] || mins[1] != maxs[1])
        return pcoll__error(PCOLL_ERR_MISMATCH, "%s: algorithm or MPI_IN_PLACE use differs",
                            c->fn);
    v->minbytes = mins[2], v->maxbytes = maxs[3];
    v->maxtotal = maxs[5], v->aux_bytes = mins[6] < LLONG_MAX ? mins[6] : 0;
    v->inplace_ok = mins[7] == maxs[7] && mins[8] >= 0 && maxs[9] <= INT_MAX;
    v->native_ok = (MPI_VERSION >= 4 || mins[10] == 1) && pcoll__a2av_native_inplace_ok(&v->a);
    if (mins[4] != maxs[4] || mins[4] == 0)
        v->basic = MPI_DATATYPE_NULL;
    rc = check_pairs(c->ctx->dup, &v->a, p, &ok);
    vals[0] = rc == PCOLL_SUCCESS && !ok ? PCOLL_ERR_MISMATCH : rc;
    rc = pcoll__agree_range(comm, (int)vals[0], vals, 0, mins, maxs, c->fn);
    if (rc == PCOLL_ERR_MISMATCH && !ok)
        pcoll__error(rc, "%s: send and receive counts disagree between ranks", c->fn);
    return rc;
}

/* ---- one-shot key, choice, preparation ----------------------------------------- */

/* One array of the key: ints, or the large-count forms' values. */
static void key_array(char *to, const side_t *sd, int counts, int p)
{
    if (sd->wcounts)
        memcpy(to, counts ? (const void *)sd->wcounts : (const void *)sd->wdispls,
               (counts ? sizeof(MPI_Count) : sizeof(MPI_Aint)) * (size_t)p);
    else
        memcpy(to, counts ? sd->counts : sd->displs, sizeof(int) * (size_t)p);
}

/* One side's types (alltoallw) into the key and the watched types. */
static void key_types(pcoll__key_t *k, MPI_Datatype *to, const side_t *sd, MPI_Datatype type,
                      int p)
{
    int i;
    if (!sd->w) {
        pcoll__key_watch(k, type);
        return;
    }
    memcpy(to, sd->types, sizeof(MPI_Datatype) * (size_t)p);
    for (i = 0; i < p; i++)
        pcoll__key_watch(k, sd->types[i]);
}

/* The key: buffers, their memory kinds and types, then the four arrays as
 * the call gave them (send ones zero in place), then alltoallw's type
 * arrays. */
int pcoll__a2av_key(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    side_t ss = side_of(r, 1), rs = side_of(r, 0);
    size_t count_b = (r->wide ? sizeof(MPI_Count) : sizeof(int)) * (size_t)c->p;
    size_t displ_b = (r->wide ? sizeof(MPI_Aint) : sizeof(int)) * (size_t)c->p;
    size_t types_b = r->w ? sizeof(MPI_Datatype) * (size_t)c->p : 0;
    int inplace = r->sendbuf == MPI_IN_PLACE;
    raw_t *kr;
    char *arrays;
    /* NULL arrays are refused here (the key copies them); negative values by
     * the check of a miss (a hit's arrays equal those of a checked call). */
    if (side_null(&rs))
        return check_counts(r, &rs, c->p, "receive", c->fn);
    if (!inplace && side_null(&ss))
        return check_counts(r, &ss, c->p, "send", c->fn);
    if (!(kr = pcoll__key_put(k, sizeof *kr + 2 * (count_b + displ_b + types_b))))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: cache key", c->fn);
    arrays = (char *)(kr + 1);
    kr->sendbuf = r->sendbuf, kr->recvbuf = r->recvbuf, kr->recvtype = r->recvtype;
    kr->negative_ok = r->negative_ok, kr->wide = r->wide, kr->w = r->w;
    kr->gpu_kinds = pcoll__gpu_key_kinds(inplace ? NULL : r->sendbuf, r->recvbuf);
    key_array(arrays + count_b + displ_b, &rs, 1, c->p);
    key_array(arrays + 2 * count_b + displ_b, &rs, 0, c->p);
    key_types(k, (MPI_Datatype *)(void *)(arrays + 2 * (count_b + displ_b) + types_b), &rs,
              r->recvtype, c->p);
    if (!inplace) {
        kr->sendtype = r->sendtype;
        key_array(arrays, &ss, 1, c->p);
        key_array(arrays + count_b, &ss, 0, c->p);
        key_types(k, (MPI_Datatype *)(void *)(arrays + 2 * (count_b + displ_b)), &ss,
                  r->sendtype, c->p);
    }
    return PCOLL_SUCCESS;
}

/* Device buffers: as alltoall's choice (api/alltoall.c). */
static int a2av_choose(pcoll__call_t *c)
{
    pcoll__a2av_args_t *v = args_of(c);
    pcoll__shape_t shape = pcoll__call_shape(c);
    int together = c->mode == PCOLL__PERSISTENT && !c->opts.no_comm;
    int requested = v->a.opts.algorithm, algo, device;
    if (c->ctx->remote)
        return pcoll__select_inter(&pcoll__alltoallv_table, requested);
    device = pcoll__gpu_kinds_alltoall(&v->a, c->p);
    if (together && pcoll__gpu_agree(c->ctx->dup, device, &device) != PCOLL_SUCCESS)
        device = 1;
    v->a.opts.algorithm = pcoll__select_gpu_host(&pcoll__alltoallv_table, &v->a.opts);
    algo = pcoll__select_alltoallv(v, &shape, &v->a.opts);
    if (v->maxbytes >= 0)
        v->pad_bruck = pcoll__select_bruck(c->p, v->maxbytes);
    if (together && v->maxbytes >= 0)
        algo = pcoll__select_alltoallv_hier(c->ctx, v, algo, c->shaping, c->steady);
    v->a.opts.algorithm = requested;
    algo = pcoll__select_gpu(&pcoll__alltoallv_table, requested, algo, device, &v->a.opts);
    /* The mean block over all ranks (agreed by the persistent init). */
    return together && v->maxtotal >= 0
               ? pcoll__select_gpu_ipc(c->ctx, &pcoll__alltoallv_table, &v->a.opts, v->a.inplace,
                                       v->maxtotal / (c->p > 0 ? c->p : 1), requested, algo,
                                       device)
               : algo;
}

/* alltoallw: every peer's types into the plan, each kept (a type that
 * repeats the previous peer's shares its copy); in place the send types are
 * the receive types. */
static int keep_type_arrays(pcoll_plan_t *plan, pcoll__a2a_args_t *a, int p)
{
    int i, k, rc = PCOLL_SUCCESS;
    MPI_Datatype *types = pcoll__plan_alloc(plan, 2 * (size_t)p * sizeof *types);
    if (!types)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallw: types");
    for (k = 0; k < 2 && rc == PCOLL_SUCCESS; k++) {
        const MPI_Datatype *from = k ? a->rtypes : a->stypes;
        MPI_Datatype *to = types + (size_t)k * (size_t)p;
        for (i = 0; i < p && rc == PCOLL_SUCCESS; i++) {
            to[i] = from[i];
            if (i > 0 && from[i] == from[i - 1])
                to[i] = to[i - 1];
            else
                rc = pcoll__plan_keep_type(plan, &to[i]);
        }
    }
    a->stypes = a->inplace ? types + p : types;
    a->rtypes = types + p;
    return rc;
}

int pcoll__alltoall_keep_types(pcoll_plan_t *plan, pcoll__a2a_args_t *a)
{
    int rc = pcoll__plan_keep_type(plan, &a->recvtype);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (a->inplace) {
        a->sendtype = a->recvtype;
        return PCOLL_SUCCESS;
    }
    return pcoll__plan_keep_type(plan, &a->sendtype);
}

/* Copy the counts and displacements into the plan (the caller's arrays may
 * be freed after init), and keep the types: one per peer (c->p, the remote
 * group's size on an intercommunicator). */
int pcoll__a2av_prepare(pcoll__call_t *c, pcoll_plan_t *plan)
{
    pcoll__a2a_args_t *a = &args_of(c)->a;
    size_t p = (size_t)c->p;
    MPI_Count *counts = pcoll__plan_alloc(plan, 2 * p * sizeof *counts);
    MPI_Aint *displs = pcoll__plan_alloc(plan, 2 * p * sizeof *displs);
    if (!counts || !displs)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv: counts");
    memcpy(counts, a->scounts, p * sizeof *counts);
    memcpy(counts + p, a->rcounts, p * sizeof *counts);
    memcpy(displs, a->sdispls, p * sizeof *displs);
    memcpy(displs + p, a->rdispls, p * sizeof *displs);
    a->scounts = counts, a->rcounts = counts + p;
    a->sdispls = displs, a->rdispls = displs + p;
    return a->rtypes ? keep_type_arrays(plan, a, c->p) : pcoll__alltoall_keep_types(plan, a);
}

/* ---- shapes (entry.c "Shapes") ------------------------------------------------ */

/* The shape: MPI_IN_PLACE use (with the options, which the path adds).
 * Counts differ between ranks and calls, and datatype handles between
 * ranks whose signatures match, so neither is in it: the kept plan moves
 * each call's bytes (hier_alltoallv_kept.c).  Calls whose arrays the key
 * refuses take the cache by arguments, which says why. */
static int a2av_shape(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    side_t rs = side_of(r, 0), ss = side_of(r, 1);
    int *inplace;
    if (side_null(&rs) || side_null(&ss))
        return PCOLL_ERR_UNSUPPORTED;
    if (!(inplace = pcoll__key_put(k, sizeof *inplace)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: shape key", c->fn);
    *inplace = r->sendbuf == MPI_IN_PLACE;
    return PCOLL_SUCCESS;
}

/* The shape's plan: the chosen algorithm's (hier, the one with
 * PCOLL__ALGO_KEPT), collective. */
static int a2av_keep(pcoll__call_t *c, pcoll_plan_t *plan)
{
    return pcoll__alltoallv_hier_keep(plan, &args_of(c)->a.opts, c->inplace);
}

/* The bytes of buffer k that the call's blocks touch (shape.h). */
static int a2av_span(const void *args, int p, int k, void **buf, MPI_Aint *lo, size_t *len)
{
    const pcoll__a2a_args_t *a = &((const pcoll__a2av_args_t *)args)->a;
    pcoll__blocks_view_t b = {p,    k ? a->rcounts : a->scounts, k ? a->rdispls : a->sdispls,
                              k ? a->rext : a->sext, k ? a->recvtype : a->sendtype, NULL, NULL};
    *buf = NULL, *lo = 0, *len = 0;
    if (!k && a->inplace)
        return PCOLL_SUCCESS;
    *buf = k ? a->recvbuf : (void *)a->sendbuf;
    return pcoll__blocks_span(&b, lo, len);
}

/* The kept plan copies with the host's memcpy and MPI_Pack, and sends the
 * larger pieces from the buffers themselves: device buffers come as host
 * mirrors (base). */
static int a2av_bind(pcoll_plan_t *plan, const void *args, void *const base[2])
{
    pcoll__a2a_args_t a = ((const pcoll__a2av_args_t *)args)->a;
    if (base[0])
        a.sendbuf = base[0];
    if (base[1])
        a.recvbuf = base[1];
    return pcoll__alltoallv_hier_bind(plan, &a);
}

/* A non-blocking call's arguments, kept until its run is over: the four
 * arrays and the two types (duplicates of derived ones, which the caller
 * may free once the call returns). */
typedef struct held {
    pcoll__a2av_args_t v;
    MPI_Datatype own[2];
    MPI_Count counts[];
} held_t;

static void a2av_release(void *copy)
{
    held_t *h = copy;
    for (int k = 0; h && k < 2; k++)
        if (h->own[k] != MPI_DATATYPE_NULL)
            MPI_Type_free(&h->own[k]);
    pcoll__free(h);
}

static int hold_type(MPI_Datatype *type, MPI_Datatype *own)
{
    if (pcoll__type_is_named(*type))
        return PCOLL_SUCCESS;
    if (MPI_Type_dup(*type, own) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoallv: MPI_Type_dup");
    *type = *own;
    return PCOLL_SUCCESS;
}

static int a2av_hold(const void *args, int p, void **copy)
{
    const pcoll__a2a_args_t *a = &((const pcoll__a2av_args_t *)args)->a;
    size_t n = (size_t)p;
    held_t *h = pcoll__malloc(sizeof *h + 2 * n * (sizeof(MPI_Count) + sizeof(MPI_Aint)) + 1);
    MPI_Aint *displs;
    int rc;
    if (!h)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv: arguments of a non-blocking call");
    h->v = *(const pcoll__a2av_args_t *)args;
    h->own[0] = h->own[1] = MPI_DATATYPE_NULL;
    displs = (MPI_Aint *)(void *)(h->counts + 2 * n);
    memcpy(h->counts, a->scounts, n * sizeof(MPI_Count));
    memcpy(h->counts + n, a->rcounts, n * sizeof(MPI_Count));
    memcpy(displs, a->sdispls, n * sizeof(MPI_Aint));
    memcpy(displs + n, a->rdispls, n * sizeof(MPI_Aint));
    h->v.a.scounts = h->counts, h->v.a.rcounts = h->counts + n;
    h->v.a.sdispls = displs, h->v.a.rdispls = displs + n;
    rc = hold_type(&h->v.a.recvtype, &h->own[1]);
    if (rc == PCOLL_SUCCESS && h->v.a.inplace)
        h->v.a.sendtype = h->v.a.recvtype;
    else if (rc == PCOLL_SUCCESS)
        rc = hold_type(&h->v.a.sendtype, &h->own[0]);
    if (rc != PCOLL_SUCCESS) {
        a2av_release(h);
        return rc;
    }
    *copy = h;
    return PCOLL_SUCCESS;
}

/* The bytes this rank receives: the choice weighs the mean block of the
 * rank that receives most. */
static long long a2av_volume(pcoll__call_t *c)
{
    return received(&args_of(c)->a, c->p);
}

static const pcoll__shape_binder_t a2av_binder = {a2av_span, a2av_bind, a2av_hold,
                                                  a2av_release};

/* Repeats (entry.c): the call's scalars as words, its four arrays (the
 * send side's unread in place) as arrays. */
static int a2av_words(const void *raw, uintptr_t w[])
{
    const raw_t *r = raw;
    w[0] = (uintptr_t)r->sendbuf, w[1] = (uintptr_t)r->recvbuf;
    w[2] = (uintptr_t)r->sendtype, w[3] = (uintptr_t)r->recvtype;
    w[4] = (uintptr_t)(unsigned)r->negative_ok << 1 | (uintptr_t)(unsigned)r->wide;
    return 5;
}

static int a2av_arrays(const void *raw, const pcoll__ctx_t *ctx, int p, const void *at[],
                       size_t bytes[])
{
    const raw_t *r = raw;
    (void)ctx;
    size_t nc = (r->wide ? sizeof(MPI_Count) : sizeof(int)) * (size_t)p;
    size_t nd = (r->wide ? sizeof(MPI_Aint) : sizeof(int)) * (size_t)p;
    int k;
    for (k = 0; k < 2; k++) {
        side_t sd = side_of(r, k);
        int read = !k || r->sendbuf != MPI_IN_PLACE;
        at[2 * k] = r->wide ? (const void *)sd.wcounts : (const void *)sd.counts;
        at[2 * k + 1] = r->wide ? (const void *)sd.wdispls : (const void *)sd.displs;
        bytes[2 * k] = read ? nc : 0;
        bytes[2 * k + 1] = read ? nd : 0;
    }
    return 4;
}

/* A repeat of `native` (entry.h forward): the int alltoallv form on an
 * intracommunicator, as MPI's own call, its arrays checked as
 * pcoll__a2av_check would (one-shot auto takes native by p and the MPI,
 * whatever they hold; in place the send side is not read); a NULL buffer
 * goes the full path, which checks it. */
static int a2av_forward(const void *raw, const pcoll__ctx_t *ctx, MPI_Comm comm)
{
    const raw_t *r = raw;
    int p = ctx->size, inplace = r->sendbuf == MPI_IN_PLACE;
    if (r->wide || r->w || ctx->remote || !r->recvbuf || !r->sendbuf || !r->rcounts ||
        !r->rdispls || (!inplace && (!r->scounts || !r->sdispls)) ||
        !pcoll__counts_ok(r->rcounts, r->rdispls, p, r->negative_ok) ||
        (!inplace && !pcoll__counts_ok(r->scounts, r->sdispls, p, r->negative_ok)))
        return PCOLL__FORWARD_DECLINED;
    return PCOLL__MPI(Alltoallv)(r->sendbuf, r->scounts, r->sdispls, r->sendtype, r->recvbuf,
                                 r->rcounts, r->rdispls, r->recvtype, comm);
}

static const pcoll__coll_t alltoallv = {
    .name = "alltoallv",
    .native_as_given = 1,
    .table = &pcoll__alltoallv_table,
    .opts_offset = offsetof(pcoll__a2av_args_t, a.opts),
    .check = pcoll__a2av_check,
    .agree = pcoll__a2av_agree,
    .key = pcoll__a2av_key,
    .choose = a2av_choose,
    .prepare = pcoll__a2av_prepare,
    .inter = PCOLL__INTER_REMOTE,
    .shape = a2av_shape,
    .keep = a2av_keep,
    .binder = &a2av_binder,
    .volume = a2av_volume,
    .words = a2av_words,
    .arrays = a2av_arrays,
    .forward = a2av_forward,
};

int pcoll_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
               .negative_ok = 0};
    return pcoll__entry(&alltoallv, PCOLL__PERSISTENT, "pcoll_alltoallv_init",
                        &r, comm, info, plan);
}

int pcoll_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    raw_t r = {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
               .negative_ok = 0};
    return pcoll__entry(&alltoallv, PCOLL__ONESHOT, "pcoll_alltoallv",
                        &r, comm, MPI_INFO_NULL, NULL);
}

int pcoll__alltoallv_dropin(pcoll__mode_t mode, const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
               .negative_ok = 1};
    return pcoll__entry(&alltoallv, mode, "pcoll__alltoallv_dropin", &r, comm, info, plan);
}

/* The stand-in call of pcoll__alltoallv_prepare: this many bytes a block. */
#define PREPARE_BYTES 8

int pcoll__alltoallv_prepare(MPI_Comm comm)
{
    static const char *const fn = "pcoll__alltoallv_prepare";
    int p = 0, inter = 0, i, rc;
    int *counts;
    char *buf;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s: an intracommunicator only", fn);
    counts = pcoll__malloc(2 * (size_t)p * sizeof *counts);
    buf = pcoll__calloc(2 * (size_t)p, PREPARE_BYTES);
    if (!counts || !buf) {
        pcoll__free(counts);
        pcoll__free(buf);
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: stand-in call", fn);
    }
    for (i = 0; i < p; i++) {
        counts[i] = PREPARE_BYTES;
        counts[p + i] = i * PREPARE_BYTES;
    }
    {
        raw_t r = {buf, counts, counts + p, MPI_BYTE, buf + (size_t)p * PREPARE_BYTES,
                   counts, counts + p, MPI_BYTE, .negative_ok = 1};
        rc = pcoll__entry(&alltoallv, PCOLL__PREPARE, fn, &r, comm, MPI_INFO_NULL, NULL);
    }
    pcoll__free(buf);
    pcoll__free(counts);
    return rc;
}

/* ---- large-count forms ------------------------------------------------------ */

/* Counts and displacements of any size go down to the schedule as they are
 * (a block over INT_MAX items travels as one item of a type of that many;
 * algorithms that count in ints refuse on every rank, from agreed sizes). */
static int run_c(const void *sendbuf, const MPI_Count *scounts, const MPI_Aint *sdispls,
                 MPI_Datatype sendtype, void *recvbuf, const MPI_Count *rcounts,
                 const MPI_Aint *rdispls, MPI_Datatype recvtype, int negative_ok,
                 pcoll__mode_t mode, const char *fn, MPI_Comm comm, MPI_Info info,
                 pcoll_plan_t **plan)
{
    raw_t r = {.sendbuf = sendbuf, .sendtype = sendtype, .recvbuf = recvbuf,
               .recvtype = recvtype, .negative_ok = negative_ok, .wide = 1,
               .wscounts = scounts, .wsdispls = sdispls, .wrcounts = rcounts,
               .wrdispls = rdispls};
    return pcoll__entry(&alltoallv, mode, fn, &r, comm, info, plan);
}

int pcoll__alltoallv_lease_uniform(const pcoll__a2a_args_t *a, int p, MPI_Comm comm,
                                   void *room, pcoll_plan_t **plan)
{
    MPI_Count *counts = room;
    MPI_Aint *displs = (MPI_Aint *)(void *)(counts + 2 * (size_t)p);
    int i;
    for (i = 0; i < p; i++) {
        counts[i] = a->sendcount, displs[i] = (MPI_Aint)i * a->sendcount;
        counts[p + i] = a->recvcount, displs[p + i] = (MPI_Aint)i * a->recvcount;
    }
    return run_c(a->sendbuf, counts, displs, a->sendtype, a->recvbuf, counts + p, displs + p,
                 a->recvtype, 0, PCOLL__LEASE, "pcoll__alltoallv_lease_uniform", comm,
                 MPI_INFO_NULL, plan);
}

int pcoll_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                           const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           pcoll_plan_t **plan)
{
    return run_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                 0, PCOLL__PERSISTENT, "pcoll_alltoallv_init_c", comm, info, plan);
}

int pcoll_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return run_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                 0, PCOLL__ONESHOT, "pcoll_alltoallv_c", comm, MPI_INFO_NULL, NULL);
}

int pcoll__alltoallv_dropin_c(pcoll__mode_t mode, const void *sendbuf,
                              const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Info info, pcoll_plan_t **plan)
{
    return run_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                 1, mode, "pcoll__alltoallv_dropin_c", comm, info, plan);
}
