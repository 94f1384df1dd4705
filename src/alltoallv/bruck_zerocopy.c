/*
 * alltoallv `bruck_zerocopy`: zero-copy Bruck for nearly regular sizes
 * (zero-copy Bruck paper section 3.5), planned entirely at init.
 *
 * The pattern is Modified Bruck's: element j (the block for rank i-j) moves
 * from rank i to rank i-k in every round k whose bit is set in j.  Elements
 * in transit cannot be parked in the receive buffer (sizes differ), so two
 * intermediate buffers X0 and X1 of p slots of the largest element alternate:
 * an element's h-th hop (h = its set bits below k) lands in X(h mod 2), its
 * last hop straight in its final place in recvbuf; it leaves from the send
 * buffer on its first hop and from where the previous hop put it otherwise.
 * No local copy but the own block.
 *
 * The sizes of elements in transit are known only to their origin, so init
 * runs the same rounds once with the counts alone (a bounded set of ints per
 * round) -- the paper exchanges them before every round; planning them once
 * makes a persistent run cost what the persistent alltoall costs.  Each
 * round's send and receive are one struct type each, with absolute
 * addresses.  Both sides order a round's elements by (receive location, send
 * location, j), which both can compute, so each group parked in an
 * intermediate buffer is one bucket type (pcoll_type_create_bucket).
 *
 * alltoallw passes a send and a receive type per peer: each takes its place
 * in the struct types as it is (every element already is one entry).
 * Needs both signatures (alltoallw: every peer's) made of one predefined
 * type and, unless forced, max element <= pcoll_regular_ratio (default 2) x
 * min element over all ranks; otherwise PCOLL_ERR_UNSUPPORTED.  Cost: ceil(log2 p) rounds of at most
 * floor(p/2) elements; init: ceil(log2 p) small count exchanges.  Scratch:
 * 2 p slots of the largest element, O(p) ints while planning.
 */
#include <limits.h>
#include <string.h>

#include "alltoallv/alltoallv.h"
#include "base/mem.h"
#include "base/status.h"

enum { LOC_FINAL, LOC_X0, LOC_X1, LOC_SEND };

typedef struct zcv {
    const pcoll__a2av_args_t *v;
    int p, i, m;                  /* m: slot size in basic items */
    MPI_Aint bext;                /* extent of the basic type */
    char *x[2];                   /* intermediate buffers */
    int *cur, *next, *group;      /* counts of element j now / after the round; bucket counts */
    int n;                        /* struct entries so far */
    int *lens;
    MPI_Aint *displs;
    MPI_Datatype *types;
} zcv_t;

static int hops_before(unsigned j, unsigned k)
{
    int h = 0;
    for (j &= k - 1u; j; j &= j - 1u)
        h++;
    return h;
}

static int recv_loc(unsigned j, unsigned k)
{
    return (j >> 1) < k ? LOC_FINAL : LOC_X0 + hops_before(j, k) % 2;
}

static int send_loc(unsigned j, unsigned k)
{
    int h = hops_before(j, k);
    return h == 0 ? LOC_SEND : LOC_X0 + (h - 1) % 2;
}

/* Run the rounds on the counts alone: afterwards, for round k, cur[j] is what
 * element j weighs when sent and next[j] when received. */
static int exchange_counts(pcoll_plan_t *plan, zcv_t *z, unsigned k)
{
    int *out = z->group, n = 0, j, q = 0;
    for (j = (int)k; j < z->p; j++)
        if ((unsigned)j & k)
            out[n++] = z->cur[j];
    if (MPI_Sendrecv(out, n, MPI_INT, (z->i - (int)k + z->p) % z->p, plan->tag, z->next + z->p,
                     n, MPI_INT, (z->i + (int)k) % z->p, plan->tag, plan->comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "bruck_zerocopy: count exchange");
    memcpy(z->next, z->cur, sizeof(int) * (size_t)z->p);
    for (j = (int)k; j < z->p; j++)
        if ((unsigned)j & k)
            z->next[j] = z->next[z->p + q++];
    return PCOLL_SUCCESS;
}

static void entry(zcv_t *z, const void *addr, int len, MPI_Datatype type)
{
    MPI_Get_address(addr, &z->displs[z->n]);
    z->lens[z->n] = len;
    z->types[z->n++] = type;
}

/* One group parked in an intermediate buffer: a bucket type over it. */
static int bucket_entry(pcoll_plan_t *plan, zcv_t *z, int loc, const int *counts)
{
    MPI_Datatype b;
    int rc = pcoll_type_create_bucket(z->p, z->m, counts, z->v->basic, &b);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__plan_own_type(plan, &b);
    if (rc == PCOLL_SUCCESS)
        entry(z, z->x[loc - LOC_X0], 1, b);
    return rc;
}

/* The entries of group (rl, sl) of round k, for the send (side 0) or the
 * receive (side 1). */
static int group(pcoll_plan_t *plan, zcv_t *z, unsigned k, int rl, int sl, int side)
{
    const pcoll__a2a_args_t *a = &z->v->a;
    int loc = side ? rl : sl, j, any = 0;
    memset(z->group, 0, sizeof(int) * (size_t)z->p);
    for (j = (int)k; j < z->p; j++) {
        int d = (z->i - j + z->p) % z->p, s = (z->i + j) % z->p;
        if (!((unsigned)j & k) || recv_loc((unsigned)j, k) != rl || send_loc((unsigned)j, k) != sl)
            continue;
        any = 1;
        if (loc == LOC_SEND)
            entry(z, pcoll__a2a_sbuf(a, d), (int)a->scounts[d], pcoll__a2a_stype(a, d));
        else if (loc == LOC_FINAL)
            entry(z, pcoll__a2a_rbuf(a, s), (int)a->rcounts[s], pcoll__a2a_rtype(a, s));
        else
            z->group[j] = side ? z->next[j] : z->cur[j];
    }
    return any && loc != LOC_SEND && loc != LOC_FINAL ? bucket_entry(plan, z, loc, z->group)
                                                      : PCOLL_SUCCESS;
}

/* Round k's struct type for one side. */
static int side_type(pcoll_plan_t *plan, zcv_t *z, unsigned k, int side, MPI_Datatype *type)
{
    int rl, sl, rc = PCOLL_SUCCESS;
    z->n = 0;
    for (rl = LOC_FINAL; rl <= LOC_X1 && rc == PCOLL_SUCCESS; rl++)
        for (sl = LOC_X0; sl <= LOC_SEND && rc == PCOLL_SUCCESS; sl++)
            rc = group(plan, z, k, rl, sl, side);
    if (rc == PCOLL_SUCCESS &&
        MPI_Type_create_struct(z->n, z->lens, z->displs, z->types, type) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "bruck_zerocopy: struct type");
    return rc == PCOLL_SUCCESS ? pcoll__plan_own_type(plan, type) : rc;
}

static int alloc_all(pcoll_plan_t *plan, zcv_t *z)
{
    size_t p = (size_t)z->p, e = p + 8;
    z->x[0] = pcoll__plan_alloc(plan, p * (size_t)(z->m ? z->m : 1) * (size_t)z->bext);
    z->x[1] = pcoll__plan_alloc(plan, p * (size_t)(z->m ? z->m : 1) * (size_t)z->bext);
    z->cur = pcoll__plan_alloc(plan, sizeof(int) * p);
    z->next = pcoll__plan_alloc(plan, sizeof(int) * 2 * p);
    z->group = pcoll__plan_alloc(plan, sizeof(int) * p);
    z->lens = pcoll__plan_alloc(plan, sizeof(int) * e);
    z->displs = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * e);
    z->types = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * e);
    if (!z->x[0] || !z->x[1] || !z->cur || !z->next || !z->group || !z->lens || !z->displs ||
        !z->types)
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck_zerocopy: buffers");
    return PCOLL_SUCCESS;
}

static int rounds(pcoll_plan_t *plan, zcv_t *z)
{
    unsigned k;
    int rc = PCOLL_SUCCESS;
    for (k = 1; k < (unsigned)z->p && rc == PCOLL_SUCCESS; k <<= 1) {
        MPI_Datatype st, rt;
        PCOLL_CHECK(exchange_counts(plan, z, k), rc, out);
        PCOLL_CHECK(side_type(plan, z, k, 0, &st), rc, out);
        PCOLL_CHECK(side_type(plan, z, k, 1, &rt), rc, out);
        memcpy(z->cur, z->next, sizeof(int) * (size_t)z->p);
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        PCOLL_CHECK(pcoll__sched_recv(&plan->sched, MPI_BOTTOM, 1, rt, (z->i + (int)k) % z->p), rc,
                    out);
        PCOLL_CHECK(pcoll__sched_send(&plan->sched, MPI_BOTTOM, 1, st,
                                      (z->i - (int)k + z->p) % z->p), rc, out);
        if (k == 1)
            rc = pcoll__a2a_self_copy(plan, &z->v->a);
    }
out:
    return rc;
}

int pcoll__alltoallv_regular(const pcoll__a2av_args_t *v)
{
    int ratio = v->a.opts.regular_ratio > 0 ? v->a.opts.regular_ratio : PCOLL__A2AV_REGULAR_RATIO;
    return v->basic != MPI_DATATYPE_NULL && v->maxbytes >= 0 &&
           v->maxbytes <= (long long)ratio * v->minbytes;
}

int pcoll__alltoallv_bruck_zerocopy(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    zcv_t z = {.v = v, .p = plan->size, .i = plan->rank};
    MPI_Aint lb;
    MPI_Count bsize;
    int j, rc;

    if (!pcoll__alltoallv_regular(v))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "bruck_zerocopy: sizes too irregular (max %lld B > pcoll_regular_ratio "
                            "x min %lld B), types mixing basic types, or one-shot use",
                            v->maxbytes, v->minbytes);
    PCOLL_CHECK(pcoll__type_size(v->basic, &bsize), rc, out);
    PCOLL_CHECK(pcoll__type_extent(v->basic, &lb, &z.bext), rc, out);
    /* Counts travel as ints of basic items (maxbytes is the same on every
     * rank: all refuse alike, before the count exchange). */
    if (v->maxbytes / bsize > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "bruck_zerocopy: an element of %lld bytes is more than INT_MAX "
                            "items of its basic type",
                            v->maxbytes);
    z.m = (int)(v->maxbytes / bsize);
    PCOLL_CHECK(alloc_all(plan, &z), rc, out);
    /* Element j's basic items (its bytes over the basic size; alltoallw: by
     * its peer's own send type).  Every count fits: its bytes are at most
     * maxbytes (checked above). */
    for (j = 0; j < z.p; j++) {
        int d = (z.i - j + z.p) % z.p;
        MPI_Count size = 0;
        PCOLL_CHECK(pcoll__type_size(pcoll__a2a_stype(&v->a, d), &size), rc, out);
        z.cur[j] = (int)(v->a.scounts[d] * size / bsize);
    }
    rc = z.p == 1 ? pcoll__a2a_self_copy(plan, &v->a) : rounds(plan, &z);
out:
    return rc;
}
