/*
 * reduce_scatter `recursive_halving`: log2 p' exchange steps on p' = the
 * largest power of two <= p.  First the r = p - p' "extra" ranks fold in: each
 * even rank 2j < 2r sends its whole vector to 2j+1, which combines
 * x(2j) op x(2j+1); every remaining rank ("new rank" j) then stands for a
 * contiguous range of original ranks and owns their blocks (its chunk).
 *
 * The chunks are laid out in position order and every step halves the range
 * of positions a rank is responsible for: it keeps the half holding its own
 * position, sends the other half to the rank whose position mirrors its own
 * there, and combines what it receives.  The vector is first copied into
 * bit-reversed chunk order (position = bit reverse of the new rank): then
 * partners are at distance 1, 2, 4, ..., so every partial covers a
 * contiguous range of ranks, and the lower range's partial is always the
 * `in` operand of MPI_Reduce_local -- rank order is kept for non-commutative
 * ops.  Commutative ops take the same order for locality: the first, largest
 * exchanges (n/2, n/4, ...) go to the nearest ranks, which share a node when
 * a node's ranks are consecutive; the natural order (distance p'/2 first)
 * sends the largest half across nodes.  Simulated on 16-core nodes
 * (docs/notes.md) that made 1-16 KiB blocks 2-4x faster; the price
 * is one local copy of the vector.  Finally a folding rank gets its block
 * back.
 *
 * Cost: log2 p' alpha + (p'-1)/p' n (beta + gamma), plus for other p one
 * full-vector exchange in the fold and a block back, and one local copy of
 * the vector (p' > 2).  Scratch: two buffers of half the vector; the whole
 * vector for the reordered copy, once more on folding ranks.
 */
#include "base/status.h"
#include "reduce_scatter/reduce_scatter.h"

typedef struct rh {
    const pcoll__rs_args_t *a;
    int p, r, pof2, rem, nr;  /* nr: new rank after the fold, or -1 */
    int reversed;             /* bit-reversed chunk order */
    long long *at;            /* at[q]: first element of position q (p'+1 entries) */
    const char *acc;          /* the partial; its first element is element acc0 */
    long long acc0;
    char *buf[2];
} rh_t;

static int bit_reverse(int j, int n)
{
    int out = 0, b;
    for (b = 1; b < n; b <<= 1, j >>= 1)
        out = (out << 1) | (j & 1);
    return out;
}

/* The new rank at position q, and the reverse. */
static int rank_at(const rh_t *h, int q)
{
    return h->reversed ? bit_reverse(q, h->pof2) : q;
}

/* First original block of new rank j (j = p' gives p). */
static int first_block(const rh_t *h, int j)
{
    return j < h->rem ? 2 * j : j + h->rem;
}

static long long chunk(const rh_t *h, int j)
{
    return h->a->displs[first_block(h, j + 1)] - h->a->displs[first_block(h, j)];
}

static int positions(pcoll_plan_t *plan, rh_t *h)
{
    int q;
    if (!(h->at = pcoll__plan_alloc(plan, sizeof(long long) * (size_t)(h->pof2 + 1))))
        return pcoll__error(PCOLL_ERR_NOMEM, "recursive_halving: positions");
    for (q = 0; q < h->pof2; q++)
        h->at[q + 1] = h->at[q] + chunk(h, rank_at(h, q));
    return PCOLL_SUCCESS;
}

/* The fold: h->acc becomes the vector this rank starts from (natural order);
 * an even rank that folds out sends its vector and gets h->nr = -1. */
static int fold(pcoll_plan_t *plan, rh_t *h)
{
    const pcoll__rs_args_t *a = h->a;
    char *whole, *mine;
    int rc;
    h->acc = a->sendbuf;
    h->nr = h->r >= 2 * h->rem ? h->r - h->rem : (h->r % 2 ? h->r / 2 : -1);
    if (h->r >= 2 * h->rem)
        return PCOLL_SUCCESS;
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    if (h->nr < 0)
        return pcoll__rs_send(plan, a, a->sendbuf, a->total, h->r + 1);
    if (!(whole = pcoll__rs_scratch(plan, a, a->total)))
        return pcoll__error(PCOLL_ERR_NOMEM, "recursive_halving: fold buffer");
    PCOLL_CHECK(pcoll__rs_recv(plan, a, whole, a->total, h->r - 1), rc, out);
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    /* x(r-1) op x(r): commutative ops may reduce into the received copy. */
    mine = whole;
    if (a->commutative)
        rc = pcoll__rs_reduce(plan, a, a->sendbuf, whole, a->total);
    else if (!(mine = pcoll__rs_scratch(plan, a, a->total)))
        return pcoll__error(PCOLL_ERR_NOMEM, "recursive_halving: fold copy");
    else if ((rc = pcoll__rs_copy(plan, a, a->sendbuf, mine, a->total)) == PCOLL_SUCCESS)
        rc = pcoll__rs_reduce(plan, a, whole, mine, a->total);
    h->acc = mine;
out:
    return rc;
}

/* Copy the vector into bit-reversed chunk order. */
static int reorder(pcoll_plan_t *plan, rh_t *h)
{
    const pcoll__rs_args_t *a = h->a;
    char *w = pcoll__rs_scratch(plan, a, a->total);
    int q, rc = PCOLL_SUCCESS;
    if (!w)
        return pcoll__error(PCOLL_ERR_NOMEM, "recursive_halving: reordered vector");
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    for (q = 0; q < h->pof2 && rc == PCOLL_SUCCESS; q++) {
        int j = rank_at(h, q);
        rc = pcoll__rs_copy(plan, a, pcoll__rs_at(h->acc, a, a->displs[first_block(h, j)]),
                            pcoll__rs_at(w, a, h->at[q]), chunk(h, j));
    }
    h->acc = w;
out:
    return rc;
}

/* Combine the partner's partial of my half (positions from k0 on, n
 * elements), received into in: the lower ranks' partial is `in`. */
static int combine(pcoll_plan_t *plan, rh_t *h, char *in, long long k0, long long n, int lower)
{
    char *mine = (char *)pcoll__rs_at(h->acc, h->a, k0 - h->acc0);
    if (lower && !h->a->commutative)
        return pcoll__rs_reduce(plan, h->a, in, mine, n); /* acc is writable here */
    h->acc = in;
    h->acc0 = k0;
    return pcoll__rs_reduce(plan, h->a, mine, in, n);
}

static int halve(pcoll_plan_t *plan, rh_t *h)
{
    const pcoll__rs_args_t *a = h->a;
    int lo = 0, len = h->pof2, me = h->reversed ? bit_reverse(h->nr, h->pof2) : h->nr, rc = 0;
    for (; len > 1 && rc == PCOLL_SUCCESS; len /= 2) {
        int half = len / 2, keep = me < lo + half ? lo : lo + half, give = keep ^ half;
        int partner = rank_at(h, me ^ half);
        int peer = partner < h->rem ? 2 * partner + 1 : partner + h->rem;
        long long k0 = h->at[keep], n = h->at[keep + half] - k0;
        char *in = h->acc == h->buf[0] ? h->buf[1] : h->buf[0];
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        PCOLL_CHECK(pcoll__rs_recv(plan, a, in, n, peer), rc, out);
        PCOLL_CHECK(pcoll__rs_send(plan, a, pcoll__rs_at(h->acc, a, h->at[give] - h->acc0),
                                   h->at[give + half] - h->at[give], peer), rc, out);
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        rc = combine(plan, h, in, k0, n, partner < h->nr);
        lo = keep;
    }
out:
    return rc;
}

/* Hand out the result: my block to recvbuf, my folded partner's back to it. */
static int finish(pcoll_plan_t *plan, rh_t *h)
{
    const pcoll__rs_args_t *a = h->a;
    int r = h->r, me, rc = PCOLL_SUCCESS;
    long long mine;
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    if (h->nr < 0)
        return pcoll__rs_recv(plan, a, a->recvbuf, a->counts[r], r + 1);
    me = h->reversed ? bit_reverse(h->nr, h->pof2) : h->nr;
    mine = h->at[me] - h->acc0;
    if (h->nr < h->rem) {
        PCOLL_CHECK(pcoll__rs_send(plan, a, pcoll__rs_at(h->acc, a, mine), a->counts[r - 1],
                                   r - 1), rc, out);
        mine += a->counts[r - 1];
    }
    rc = pcoll__rs_copy(plan, a, pcoll__rs_at(h->acc, a, mine), a->recvbuf, a->counts[r]);
out:
    return rc;
}

int pcoll__reduce_scatter_recursive_halving(pcoll_plan_t *plan, const void *args)
{
    rh_t h = {.a = args, .p = plan->size, .r = plan->rank, .pof2 = 1};
    long long half;
    int rc;
    while (h.pof2 * 2 <= h.p)
        h.pof2 *= 2;
    h.rem = h.p - h.pof2;
    h.reversed = !h.a->commutative || h.pof2 > 2; /* p' <= 2: the orders agree */
    PCOLL_CHECK(positions(plan, &h), rc, out);
    /* The largest half any step keeps is one of the first step's halves. */
    half = h.at[h.pof2 / 2] > h.at[h.pof2] - h.at[h.pof2 / 2] ? h.at[h.pof2 / 2]
                                                              : h.at[h.pof2] - h.at[h.pof2 / 2];
    h.buf[0] = pcoll__rs_scratch(plan, h.a, half);
    h.buf[1] = pcoll__rs_scratch(plan, h.a, half);
    if (!h.buf[0] || !h.buf[1])
        return pcoll__error(PCOLL_ERR_NOMEM, "recursive_halving: half buffers");
    PCOLL_CHECK(fold(plan, &h), rc, out);
    if (h.nr >= 0 && h.reversed)
        PCOLL_CHECK(reorder(plan, &h), rc, out);
    if (h.nr >= 0)
        PCOLL_CHECK(halve(plan, &h), rc, out);
    rc = finish(plan, &h);
out:
    return rc;
}
