/*
 * reduce_scatter `circulant`: Träff's reduce-scatter for any p (J. L. Träff,
 * "Optimal, Non-pipelined Reduce-scatter and Allreduce Algorithms", 2025,
 * arXiv:2410.14234: the reduce-scatter algorithm on the ceil(log2 p)-regular
 * circulant graph and its optimality argument).  ceil(log2 p) rounds on the
 * skips of patterns/circulant.h, every rank sending, receiving and reducing
 * exactly p-1 blocks, for every p: no fold-in steps as recursive_halving
 * needs where p is not a power of two.
 *
 * Rank i keeps a window of partials for blocks i, i+1, ..., i+S-1 (mod p),
 * window offset j standing for block i+j; at the start S = p and every
 * partial is i's own input.  The round from S = s_(k+1) to s = s_k sends
 * the partials of offsets [s, S) to rank i+s, for which they are offsets
 * [0, S-s), and adds the partials of offsets [0, S-s) received from i-s.
 * S - s <= s, so what arrives lies inside the window that is left.  This is
 * the allgather with the same skips run backwards (a block travels the
 * allgather's paths in reverse and is reduced where they join), so each
 * input reaches its block exactly once.  The contributions meet in an
 * order that is not rank order: commutative ops only.  A non-commutative op
 * gets recursive_halving, which keeps the order; the plan then reports that
 * name (pcoll_plan_print, the benchmark's labels).
 *
 * Radix r (pcoll_radix; 2, the paper's algorithm, when not given; auto
 * takes the cost model's): r-1 ports per round, q = ceil(log_r p) rounds
 * (patterns/circulant.h).  Port j sends offsets [j s, (j+1) s) to i + j s and
 * receives offsets [0, s) from i - j s: still p-1 blocks sent and reduced,
 * in fewer rounds of r-1 concurrent messages -- for short vectors, where
 * each round costs about one latency, that is what counts.
 *
 * Layout: the window lives in scratch in window order (offset j from element
 * rot[j]), so what a port sends or receives is one contiguous run.  The
 * first round sends from the input, where blocks i+s..i+p-1 wrap past block
 * p-1 for most ranks (inside one port's run at most): packed into one
 * message when small, else sent as two that the receiver posts likewise.
 * Each round's receives go to buffers of the round's parity and are reduced
 * in the next round, after that round's receives are posted and before its
 * sends; port 1 of the first round receives straight into the window, port 1
 * of the last round straight into recvbuf.
 *
 * Cost: ceil(log_r p) rounds of r-1 messages (alpha + 2 cpu each; their
 * latencies overlap) + (p-1) blocks (beta + gamma), plus at most one block
 * copied in the first round (r = 2) and the first round's wrapped blocks
 * packed when small.  Scratch: the window after the first round (ceil(p/r)
 * blocks) and 2(r-1) receive buffers of at most that size (r = 2: two of
 * floor(ceil(p/2)/2) blocks).
 */
#include "base/status.h"
#include "datatype/size.h"
#include "patterns/circulant.h"
#include "reduce_scatter/reduce_scatter.h"

/* Wrapped first-round blocks of at most this many bytes go as one packed
 * message: a copy of that size costs less than a message's latency. */
#define PACK_BYTES 8192

typedef struct circ {
    const pcoll__rs_args_t *a;
    int p, i, r, q;
    long long *rot;  /* rot[j]: first element of window offset j (p+1 entries) */
    char *win;       /* the window's partials from the second round on */
    char **tmp;      /* receive buffer of port j in rounds of parity b:
                        tmp[b (r-1) + j-1] (NULL where the port receives
                        straight into the window or recvbuf) */
    char *pack;      /* the first round's wrapped run when small, else NULL */
    MPI_Count size;  /* bytes of one element */
} circ_t;

static int skip(const circ_t *c, int k)
{
    return pcoll__circulant_skip(c->p, c->r, k);
}

/* Blocks port j moves in round k. */
static int port_len(const circ_t *c, int k, int j)
{
    return pcoll__circulant_port(skip(c, k + 1), skip(c, k), j);
}

/* Block of window offset j. */
static int block_at(const circ_t *c, int j)
{
    return (c->i + j) % c->p;
}

static int layout(pcoll_plan_t *plan, circ_t *c)
{
    int j;
    if (!(c->rot = pcoll__plan_alloc(plan, sizeof(long long) * (size_t)(c->p + 1))))
        return pcoll__error(PCOLL_ERR_NOMEM, "circulant: window layout");
    c->rot[0] = 0;
    for (j = 0; j < c->p; j++)
        c->rot[j + 1] = c->rot[j] + c->a->counts[block_at(c, j)];
    return PCOLL_SUCCESS;
}

/* Elements of blocks first, first+1, ..., first+n-1 (mod p) that lie before
 * the wrap past block p-1. */
static long long before_wrap(const circ_t *c, int first, int n)
{
    return pcoll__rs_span(c->a, first, first + n < c->p ? first + n : c->p);
}

/* Elements of window offsets [off, off+n). */
static long long run(const circ_t *c, int off, int n)
{
    return c->rot[off + n] - c->rot[off];
}

/* Where port j of round k receives: the first round's port 1 into the
 * window, the last round's into recvbuf, the rest into their buffers. */
static char *target(const circ_t *c, int k, int j)
{
    if (j == 1 && k == 0)
        return c->a->recvbuf;
    if (j == 1 && k == c->q - 1)
        return c->win;
    return c->tmp[(k % 2) * (c->r - 1) + j - 1];
}

/* Scratch: the window, the receive buffers (each as large as its largest
 * use), the pack buffer of the first round's wrapped run when small. */
static int buffers(pcoll_plan_t *plan, circ_t *c)
{
    const pcoll__rs_args_t *a = c->a;
    int slots = 2 * (c->r - 1), k, j, s1 = skip(c, c->q - 1);
    long long *need = pcoll__plan_alloc(plan, sizeof(long long) * (size_t)slots);
    if (!need || !(c->tmp = pcoll__plan_alloc(plan, sizeof(char *) * (size_t)slots)))
        return pcoll__error(PCOLL_ERR_NOMEM, "circulant: receive buffers");
    for (j = 0; j < slots; j++)
        need[j] = -1, c->tmp[j] = NULL;
    for (k = 0; k < c->q; k++)
        for (j = 1; j < c->r && port_len(c, k, j) > 0; j++)
            if (!(j == 1 && (k == 0 || k == c->q - 1)) &&
                need[(k % 2) * (c->r - 1) + j - 1] < run(c, 0, port_len(c, k, j)))
                need[(k % 2) * (c->r - 1) + j - 1] = run(c, 0, port_len(c, k, j));
    for (j = 0; j < slots; j++)
        if (need[j] >= 0 && !(c->tmp[j] = pcoll__rs_scratch(plan, a, need[j])))
            return pcoll__error(PCOLL_ERR_NOMEM, "circulant: receive buffers");
    if (c->q > 1 && !(c->win = pcoll__rs_scratch(plan, a, c->rot[s1])))
        return pcoll__error(PCOLL_ERR_NOMEM, "circulant: window");
    /* The first round's runs from the input: the one that wraps, if small. */
    for (j = 1; j < c->r && port_len(c, c->q - 1, j) > 0; j++) {
        int n = port_len(c, c->q - 1, j);
        long long all = run(c, j * s1, n);
        if (before_wrap(c, block_at(c, j * s1), n) < all && all * c->size <= PACK_BYTES &&
            !(c->pack = pcoll__rs_scratch(plan, a, all)))
            return pcoll__error(PCOLL_ERR_NOMEM, "circulant: pack buffer");
    }
    return PCOLL_SUCCESS;
}

/* Send window offsets [off, off+n) from the input (first round) to rank
 * i+off: one message (unwrapped or packed) or two. */
static int send_input(pcoll_plan_t *plan, const circ_t *c, int off, int n)
{
    const pcoll__rs_args_t *a = c->a;
    int to = block_at(c, off), rc;
    long long all = run(c, off, n), head = before_wrap(c, to, n);
    const void *from = pcoll__rs_at(a->sendbuf, a, a->displs[to]);
    if (head == all)
        return pcoll__rs_send(plan, a, from, all, to);
    if (c->pack) {
        PCOLL_CHECK(pcoll__rs_copy(plan, a, from, c->pack, head), rc, out);
        PCOLL_CHECK(pcoll__rs_copy(plan, a, a->sendbuf, pcoll__rs_at(c->pack, a, head),
                                   all - head), rc, out);
        return pcoll__rs_send(plan, a, c->pack, all, to);
    }
    PCOLL_CHECK(pcoll__rs_send(plan, a, from, head, to), rc, out);
    rc = pcoll__rs_send(plan, a, a->sendbuf, all - head, to);
out:
    return rc;
}

/* Receive my offsets [0, n) from rank `from` in the first round, split as
 * send_input splits them there (the same blocks i..i+n-1, the same rule). */
static int recv_input(pcoll_plan_t *plan, const circ_t *c, int from, int n, char *into)
{
    const pcoll__rs_args_t *a = c->a;
    long long all = c->rot[n], head = before_wrap(c, c->i, n);
    int rc;
    if (head == all || all * c->size <= PACK_BYTES)
        return pcoll__rs_recv(plan, a, into, all, from);
    PCOLL_CHECK(pcoll__rs_recv(plan, a, into, head, from), rc, out);
    rc = pcoll__rs_recv(plan, a, pcoll__rs_at(into, a, head), all - head, from);
out:
    return rc;
}

/* Reduce (reduce != 0) or copy my input's blocks of window offsets
 * [off, off+n) into acc (element 0 = offset off), in two runs where they
 * wrap. */
static int from_input(pcoll_plan_t *plan, const circ_t *c, int off, int n, char *acc, int reduce)
{
    const pcoll__rs_args_t *a = c->a;
    int first = block_at(c, off), rc;
    long long all = run(c, off, n), head = before_wrap(c, first, n);
    const void *src = pcoll__rs_at(a->sendbuf, a, a->displs[first]);
    void *rest = pcoll__rs_at(acc, a, head);
    if (reduce) {
        PCOLL_CHECK(pcoll__rs_reduce(plan, a, src, acc, head), rc, out);
        rc = pcoll__rs_reduce(plan, a, a->sendbuf, rest, all - head);
    } else {
        PCOLL_CHECK(pcoll__rs_copy(plan, a, src, acc, head), rc, out);
        rc = pcoll__rs_copy(plan, a, a->sendbuf, rest, all - head);
    }
out:
    return rc;
}

/* Add what round k received (done in the round after it).  Port 1 of the
 * first and the last round received in place: the partial it meets there is
 * added to it. */
static int reduce_round(pcoll_plan_t *plan, const circ_t *c, int k)
{
    const pcoll__rs_args_t *a = c->a;
    char *acc = k == 0 ? a->recvbuf : c->win;
    int j = 1, rc = PCOLL_SUCCESS;
    if (k == 0 && c->q == 1)
        rc = from_input(plan, c, 0, 1, acc, 1), j = 2;
    else if (k == 0)
        rc = pcoll__rs_reduce(plan, a, c->win, acc, a->counts[c->i]), j = 2;
    else if (k == c->q - 1)
        rc = from_input(plan, c, 0, port_len(c, k, 1), acc, 1), j = 2;
    for (; j < c->r && rc == PCOLL_SUCCESS && port_len(c, k, j) > 0; j++)
        rc = pcoll__rs_reduce(plan, a, target(c, k, j), acc, c->rot[port_len(c, k, j)]);
    return rc;
}

/* Round k: post the receives, reduce what round k+1 received, send. */
static int round_k(pcoll_plan_t *plan, const circ_t *c, int k)
{
    const pcoll__rs_args_t *a = c->a;
    int s = skip(c, k), first = k == c->q - 1, j, n, rc;
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    for (j = 1; j < c->r && (n = port_len(c, k, j)) > 0; j++) {
        int from = (int)((c->i - (long long)j * s % c->p + c->p) % c->p);
        if (first)
            PCOLL_CHECK(recv_input(plan, c, from, n, target(c, k, j)), rc, out);
        else
            PCOLL_CHECK(pcoll__rs_recv(plan, a, target(c, k, j), c->rot[n], from), rc, out);
    }
    if (!first)
        PCOLL_CHECK(reduce_round(plan, c, k + 1), rc, out);
    for (j = 1; j < c->r && (n = port_len(c, k, j)) > 0; j++) {
        if (first)
            PCOLL_CHECK(send_input(plan, c, j * s, n), rc, out);
        else
            PCOLL_CHECK(pcoll__rs_send(plan, a, pcoll__rs_at(c->win, a, c->rot[j * s]),
                                       run(c, j * s, n), block_at(c, j * s)), rc, out);
    }
    /* Window offsets [n1, s) that port 1 leaves empty in the first round
     * (r = 2 and p odd: one block) start as my input. */
    n = port_len(c, k, 1);
    if (first && k > 0 && n < s)
        rc = from_input(plan, c, n, s - n, (char *)pcoll__rs_at(c->win, a, c->rot[n]), 0);
out:
    return rc;
}

int pcoll__reduce_scatter_circulant(pcoll_plan_t *plan, const void *args)
{
    circ_t c = {.a = args, .p = plan->size, .i = plan->rank};
    int k, rc;
    if (!c.a->commutative) {
        plan->algorithm = "recursive_halving";
        return pcoll__reduce_scatter_recursive_halving(plan, args);
    }
    if (c.p == 1)
        return pcoll__rs_copy(plan, c.a, c.a->sendbuf, c.a->recvbuf, c.a->total);
    c.r = c.a->opts.radix < 2 ? 2 : c.a->opts.radix > c.p ? c.p : c.a->opts.radix;
    c.q = pcoll__circulant_rounds(c.p, c.r);
    PCOLL_CHECK(pcoll__type_size(c.a->type, &c.size), rc, out);
    PCOLL_CHECK(layout(plan, &c), rc, out);
    PCOLL_CHECK(buffers(plan, &c), rc, out);
    for (k = c.q - 1; k >= 0; k--)
        PCOLL_CHECK(round_k(plan, &c, k), rc, out);
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    rc = reduce_round(plan, &c, 0);
out:
    return rc;
}
