/*
 * alltoallv `bruck_radix`: radix-r Bruck for irregular sizes (multicore
 * paper section II-B for the radix and the contiguous buffers; zero-copy
 * Bruck paper section 3.5 for learning the sizes of elements in transit).
 *
 * Element j of rank i is the block for rank (i+j) mod p.  Write j in base r:
 * in step s (weight w = r^s) every element whose digit s is d != 0 travels
 * d*w ranks, to rank i + d*w, and keeps its index j there; after the last
 * step the element j on rank i came from rank (i-j) mod p.  A step sends r-1
 * messages at once (one per digit value), each the elements of one digit in
 * the order of j.  An element leaves from the send buffer on its first hop
 * (its lowest nonzero digit) and otherwise from the scratch its previous hop
 * landed in; every message is packed into contiguous scratch by local
 * copies (the multicore paper's one send and contiguous receive buffers:
 * small blocks copy faster than a derived-type message is walked) and
 * received contiguously; the elements on their last hop (digit s is their
 * highest nonzero one) are copied out into the receive buffer in the next
 * round.  No rotation or final permutation: the send and receive buffers
 * are addressed by peer.
 *
 * Sizes in transit are known only to their origin, so init runs the steps
 * once on the counts alone (r-1 small count exchanges per step, the ints of
 * one digit's elements), as bruck_zerocopy does: a run sends only data.
 *
 * r = pcoll_radix, else the radix the cost model predicts fastest for the
 * mean element (model/cost.c); r >= p is a one-step direct exchange.
 * Needs both signatures made of one predefined type and persistent planning
 * (the sizes of all ranks), else PCOLL_ERR_UNSUPPORTED; not in place.
 *
 * Cost: S = ceil(log_r p) steps of up to r-1 messages; element j crosses the
 * network once per nonzero base-r digit of j (about S (r-1)/r hops on
 * average); local copies: every hop packed once, every element unpacked
 * once.  Scratch: every byte received (one region per step, kept until
 * forwarded) plus the two largest steps' packed sends.  Init: S (r-1)
 * count exchanges.
 */
#include <limits.h>
#include <string.h>

#include "alltoallv/alltoallv.h"
#include "base/status.h"
#include "model/cost.h"
#include "patterns/bruck.h"

typedef struct brv {
    const pcoll__a2av_args_t *v;
    int p, i, r, nsteps;
    MPI_Aint bext;          /* extent of the basic type */
    int *cnt, *next;        /* basic items of element j before / after a step */
    char **at, **nat;       /* where element j is before / after a step (NULL:
                               still in the send buffer) */
    int *ints;              /* one message's counts: sent, then (at p) received */
} brv_t;

/* The radix to run: the option, else the model's choice for the mean element
 * (every rank computes the same from agreed values), clamped to [2, p]. */
static int radix_of(const pcoll__a2av_args_t *v, int p)
{
    pcoll__cost_t c = pcoll__cost_params();
    int r = v->a.opts.radix > 0 ? v->a.opts.radix
                                : pcoll__cost_best_radix_v(&c, p, (double)v->maxtotal / p);
    return r > p ? p : r < 2 ? 2 : r;
}

/* Digit s (weight w) of j in base r. */
static int digit(const brv_t *b, int j, long long w)
{
    return (int)(j / w % b->r);
}


/* Exchange the counts of the elements of digit d in step s (weight w): send
 * ours to rank i + d w, receive theirs (the same j, in the same order) from
 * rank i - d w into next[j]. */
static int exchange_counts(pcoll_plan_t *plan, brv_t *b, long long w, int d)
{
    int j, n = 0, dist = (int)(d * w % b->p);
    for (j = 1; j < b->p; j++)
        if (digit(b, j, w) == d)
            b->ints[n++] = b->cnt[j];
    if (MPI_Sendrecv(b->ints, n, MPI_INT, (b->i + dist) % b->p, plan->tag, b->ints + b->p, n,
                     MPI_INT, (b->i - dist + b->p) % b->p, plan->tag, plan->comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "bruck_radix: count exchange");
    for (j = 1, n = 0; j < b->p; j++)
        if (digit(b, j, w) == d)
            b->next[j] = b->ints[b->p + n++];
    return PCOLL_SUCCESS;
}

/* The counts after step s (weight w) into next[], and the items the step
 * sends and receives in all. */
static int step_counts(pcoll_plan_t *plan, brv_t *b, long long w, long long *sent,
                       long long *recvd)
{
    int j, d, rc = PCOLL_SUCCESS;
    memcpy(b->next, b->cnt, sizeof(int) * (size_t)b->p);
    for (d = 1; d < b->r && rc == PCOLL_SUCCESS; d++)
        if (pcoll__bruck_digit_count(b->p, b->r, w, d) > 0)
            rc = exchange_counts(plan, b, w, d);
    *sent = *recvd = 0;
    for (j = 1; j < b->p; j++)
        if (digit(b, j, w) != 0) {
            *sent += b->cnt[j];
            *recvd += b->next[j];
        }
    return rc;
}

/* Add the receive of digit d's elements of step s (weight w) at *in (moved
 * past them), noting in nat[] where each lands. */
static int recv_digit(pcoll_plan_t *plan, brv_t *b, long long w, int d, char **in)
{
    int j, dist = (int)(d * w % b->p);
    long long items = 0;
    char *start = *in;
    for (j = 1; j < b->p; j++)
        if (digit(b, j, w) == d) {
            b->nat[j] = *in + items * b->bext;
            items += b->next[j];
        }
    if (items == 0)
        return PCOLL_SUCCESS;
    *in += items * b->bext;
    return pcoll__sched_recv(&plan->sched, start, (int)items, b->v->basic,
                             (b->i - dist + b->p) % b->p);
}

/* Add the packing of digit d's elements of step s (weight w) at *out (moved
 * past them), each from the send buffer on its first hop, else from where
 * its previous hop landed, and their send to rank i + d w. */
static int send_digit(pcoll_plan_t *plan, brv_t *b, long long w, int d, char **out)
{
    const pcoll__a2a_args_t *a = &b->v->a;
    int j, rc = PCOLL_SUCCESS, dist = (int)(d * w % b->p);
    char *start = *out;
    for (j = 1; j < b->p && rc == PCOLL_SUCCESS; j++) {
        int to = (b->i + j) % b->p;
        if (digit(b, j, w) != d || b->cnt[j] == 0)
            continue;
        if (b->at[j])
            rc = pcoll__sched_copy(&plan->sched, b->at[j], b->cnt[j], b->v->basic, *out,
                                   b->cnt[j], b->v->basic);
        else
            rc = pcoll__sched_copy(&plan->sched, pcoll__a2a_sbuf(a, to), (int)a->scounts[to],
                                   a->sendtype, *out, b->cnt[j], b->v->basic);
        *out += (MPI_Aint)b->cnt[j] * b->bext;
    }
    if (rc != PCOLL_SUCCESS || *out == start)
        return rc;
    return pcoll__sched_send(&plan->sched, start, (int)((*out - start) / b->bext), b->v->basic,
                             (b->i + dist) % b->p);
}

/* Add the copies into the receive buffer of the elements whose last hop was
 * step s (weight w): digit s nonzero, no higher one (the agreement checked
 * that each pair's sizes match). */
static int unpack(pcoll_plan_t *plan, brv_t *b, long long w)
{
    const pcoll__a2a_args_t *a = &b->v->a;
    int j, rc = PCOLL_SUCCESS;
    for (j = 1; j < b->p && j < w * b->r && rc == PCOLL_SUCCESS; j++) {
        int from = (b->i - j + b->p) % b->p;
        if (digit(b, j, w) == 0 || b->cnt[j] == 0)
            continue;
        if ((long long)b->cnt[j] != a->rcounts[from] * b->v->runit)
            return pcoll__error(PCOLL_ERR_MISMATCH,
                                "bruck_radix: element from rank %d has %d items, expected %lld",
                                from, b->cnt[j], (long long)(a->rcounts[from] * b->v->runit));
        rc = pcoll__sched_copy(&plan->sched, b->at[j], b->cnt[j], b->v->basic,
                               pcoll__a2a_rbuf(a, from), (int)a->rcounts[from], a->recvtype);
    }
    return rc;
}

/* Plan step s (weight w; s == nsteps: only the last copies): its counts now,
 * then its round: receives, the previous step's final copies, packs and
 * sends. */
static int step(pcoll_plan_t *plan, brv_t *b, int s, long long w)
{
    long long sent = 0, recvd = 0;
    char *in = NULL, *out = NULL;
    int d, j, rc;
    if (s < b->nsteps) {
        PCOLL_CHECK(step_counts(plan, b, w, &sent, &recvd), rc, done);
        in = pcoll__plan_alloc(plan, (size_t)(recvd + sent) * (size_t)b->bext + 1);
        if (!in)
            return pcoll__error(PCOLL_ERR_NOMEM, "bruck_radix: step %d scratch", s);
        out = in + recvd * b->bext;
    }
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, done);
    for (d = 1; d < b->r && s < b->nsteps; d++)
        PCOLL_CHECK(recv_digit(plan, b, w, d, &in), rc, done);
    if (s > 0)
        PCOLL_CHECK(unpack(plan, b, w / b->r), rc, done);
    for (d = 1; d < b->r && s < b->nsteps; d++)
        PCOLL_CHECK(send_digit(plan, b, w, d, &out), rc, done);
    for (j = 1; j < b->p && s < b->nsteps; j++)
        if (digit(b, j, w) != 0)
            b->at[j] = b->nat[j], b->cnt[j] = b->next[j];
    rc = s == 0 ? pcoll__a2a_self_copy(plan, &b->v->a) : PCOLL_SUCCESS;
done:
    return rc;
}

static int alloc_all(pcoll_plan_t *plan, brv_t *b)
{
    size_t p = (size_t)b->p;
    b->cnt = pcoll__plan_alloc(plan, sizeof(int) * p);
    b->next = pcoll__plan_alloc(plan, sizeof(int) * p);
    b->ints = pcoll__plan_alloc(plan, sizeof(int) * 2 * p);
    b->at = pcoll__plan_alloc(plan, sizeof(char *) * p);
    b->nat = pcoll__plan_alloc(plan, sizeof(char *) * p);
    if (!b->cnt || !b->next || !b->ints || !b->at || !b->nat)
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck_radix: planning arrays");
    return PCOLL_SUCCESS;
}

int pcoll__alltoallv_radix_fits(const pcoll__a2av_args_t *v, int p)
{
    MPI_Count bsize = 0;
    return v->basic != MPI_DATATYPE_NULL && v->maxbytes >= 0 &&
           pcoll__type_size(v->basic, &bsize) == PCOLL_SUCCESS && bsize > 0 &&
           v->maxbytes / bsize <= INT_MAX / (p > 0 ? p : 1);
}

int pcoll__alltoallv_bruck_radix(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    brv_t b = {.v = v, .p = plan->size, .i = plan->rank};
    MPI_Aint lb;
    long long w = 1;
    int j, s, rc;

    /* Every rank decides alike: maxbytes and basic are agreed. */
    if (!pcoll__alltoallv_radix_fits(v, b.p))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "bruck_radix: needs one predefined type in both signatures, "
                            "persistent planning and p x the largest element (%lld B) in int "
                            "items",
                            v->maxbytes);
    if (b.p == 1)
        return pcoll__a2a_self_copy(plan, &v->a);
    PCOLL_CHECK(pcoll__type_extent(v->basic, &lb, &b.bext), rc, out);
    b.r = radix_of(v, b.p);
    b.nsteps = pcoll__bruck_steps(b.p, b.r);
    PCOLL_CHECK(alloc_all(plan, &b), rc, out);
    /* Every count fits an int: p x the largest element does (checked above). */
    for (j = 1; j < b.p; j++)
        b.cnt[j] = (int)(v->a.scounts[(b.i + j) % b.p] * v->sunit);
    for (s = 0; s <= b.nsteps; s++, w *= b.r)
        PCOLL_CHECK(step(plan, &b, s, w), rc, out);
out:
    return rc;
}
