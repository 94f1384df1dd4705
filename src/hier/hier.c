/*
 * alltoall `hier`: the node-aware all-to-all of the multicore paper (sections
 * II-A, II-B, III-A, III-B), and the engine alltoallv `hier` and
 * pcoll_alltoall_multi_init share (see hier.h for the segment's layout).
 *
 * A run, on a node A of m ranks (N nodes):
 *   0. wait until every rank of the node has finished reading the segment in
 *      the previous run (the second half of a split barrier; not on one node
 *      where W exists twice: runs take the copies in turn, and a rank that
 *      passed a run's barrier knows every rank has left the copy of the run
 *      before, which the next run fills);
 *   1. post this rank's receives of the first step, copy its blocks into W
 *      grouped by (destination node, source, destination rank) -- Bruck's
 *      phase one (the rotation) is this copy -- and meet at the node barrier;
 *   2. for each of the ceil(log_r N) steps: digit d of the step (weight w)
 *      sends the slots whose digit is d to node A + d w and receives the same
 *      set from node A - d w; digit d belongs to local rank (d-1) mod ports
 *      (pcoll_ports, default all), which sends its digits in increasing order,
 *      at most pcoll_throttle (default 32) per round, then unpacks what it
 *      received into W (not after the last step); node barrier;
 *   3. every rank copies its blocks out of the final slots into its receive
 *      buffer -- Bruck's phase three -- and arrives at the split barrier.
 * With r >= N (one step, the paper's basic variant) digit d is node A + d,
 * and a bundle of no bytes is neither sent nor received (both nodes know its
 * size: woff and roff), so a sparse pattern sends only the bundles with data.
 *
 * Cost (alltoall, n bytes per block, p = mN): per rank, p blocks copied in
 * and p out; per node N-1 messages of m^2 n bytes (one step), or per step up
 * to r-1 messages of about N/r slots of m^2 n bytes, spread over the ports.
 * Node barriers: steps + 2 per run (one on one node where W is doubled,
 * pcoll__hier_flips).  Memory: the node's shared segment (see
 * hier_layout.c; equation (1) of the paper), counted by pcoll_mem_current on
 * the node's first rank; plus O(N) offsets per rank.  In place: supported
 * (every block is copied in before any is copied out).
 *
 * The copies in and out are merged into runs where the layouts allow it
 * (hier_copy.c).  Non-blocking: pcoll_start begins the run (its first round
 * only checks the split barrier); pcoll_test moves through the rounds, so
 * computation between start and wait overlaps the exchange as long as
 * pcoll_test is called now and then (the node's ranks meet at the barriers).
 */
#include "hier/hier.h"
#include "base/status.h"
#include "patterns/bruck.h"

/* The rank handling digit d on node k. */
static int handler(const pcoll__hier_t *g, int k, int d)
{
    return g->t->members[g->t->first[k] + (d - 1) % pcoll__hier_ports(g, k)];
}

/* This rank's digits in step s are l+1, l+1+ports, ...: how many of them
 * carry slots, and the i-th of them. */
static int my_digits(const pcoll__hier_t *g, int s)
{
    long long w = pcoll__hier_weight(g->r, s);
    long long lim = (g->N + w - 1) / w;
    if (lim > g->r)
        lim = g->r;
    if (g->l >= g->ports)
        return 0;
    return g->l + 1 < lim ? (int)((lim - 1 - (g->l + 1)) / g->ports + 1) : 0;
}

static int my_digit(const pcoll__hier_t *g, int i)
{
    return g->l + 1 + i * g->ports;
}

static int recv_digit(pcoll_plan_t *plan, const pcoll__hier_t *g, int s, int d, int done)
{
    long long w = pcoll__hier_weight(g->r, s);
    int from = handler(g, (int)((g->A - d * w % g->N + g->N) % g->N), d);
    char *at = g->R + pcoll__hier_region(g, s, d);
    if (g->steps == 1) {
        int bytes = (int)(g->roff[d + 1] - g->roff[d]);
        /* An empty bundle is not sent (both nodes know its size). */
        return bytes == 0 ? PCOLL_SUCCESS
                          : pcoll__sched_recv_until(&plan->sched, at, bytes, MPI_BYTE, from, done);
    }
    return pcoll__sched_recv_until(&plan->sched, at, pcoll__bruck_digit_count(g->N, g->r, w, d),
                                   g->slot, from, done);
}

static int send_digit(pcoll_plan_t *plan, const pcoll__hier_t *g, int s, int d)
{
    long long w = pcoll__hier_weight(g->r, s);
    int to = handler(g, (int)((g->A + d * w) % g->N), d);
    if (g->steps == 1) {
        int bytes = (int)(g->woff[d + 1] - g->woff[d]);
        return bytes == 0 ? PCOLL_SUCCESS
                          : pcoll__sched_send(&plan->sched, g->W + g->woff[d], bytes, MPI_BYTE, to);
    }
    return pcoll__sched_send(&plan->sched, g->W + g->woff[d * w], 1, g->set[s * g->r + d], to);
}

/* Every receive of step s, waited for at the end of round `done`. */
static int recv_step(pcoll_plan_t *plan, const pcoll__hier_t *g, int s, int done)
{
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < my_digits(g, s) && rc == PCOLL_SUCCESS; i++)
        rc = recv_digit(plan, g, s, my_digit(g, i), done);
    return rc;
}

/* The slots step s brought in go to their places in W. */
static int unpack_step(pcoll_plan_t *plan, const pcoll__hier_t *g, int s)
{
    long long w = pcoll__hier_weight(g->r, s);
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < my_digits(g, s) && rc == PCOLL_SUCCESS; i++) {
        int d = my_digit(g, i);
        rc = pcoll__sched_copy(&plan->sched, g->R + pcoll__hier_region(g, s, d),
                               pcoll__bruck_digit_count(g->N, g->r, w, d), g->slot,
                               g->W + g->woff[d * w], 1, g->set[s * g->r + d]);
    }
    return rc;
}

/* Rounds needed to send this rank's messages of step s, throttled. */
static int groups(const pcoll__hier_t *g, int s)
{
    int n = my_digits(g, s);
    return n > g->throttle ? (n + g->throttle - 1) / g->throttle : 1;
}

/* Step s: the send rounds (step 0's receives are already posted), then the
 * unpacking and the node barrier. */
static int exchange(pcoll_plan_t *plan, const pcoll__hier_t *g, int s, int barrier)
{
    int k, i, n = my_digits(g, s), rc = PCOLL_SUCCESS;
    for (k = 0; k < groups(g, s) && rc == PCOLL_SUCCESS; k++) {
        rc = pcoll__sched_round(&plan->sched);
        if (rc == PCOLL_SUCCESS && k == 0 && s > 0)
            rc = recv_step(plan, g, s, pcoll__sched_current(&plan->sched) + groups(g, s) - 1);
        for (i = k * g->throttle; i < n && i < (k + 1) * g->throttle && rc == PCOLL_SUCCESS; i++)
            rc = send_digit(plan, g, s, my_digit(g, i));
    }
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__sched_round(&plan->sched);
    if (rc == PCOLL_SUCCESS && s + 1 < g->steps)
        rc = unpack_step(plan, g, s);
    if (rc == PCOLL_SUCCESS && barrier)
        rc = pcoll__sched_poll(&plan->sched, pcoll__node_barrier(g->shm));
    return rc;
}

/* Where this rank's pieces start in the slot for node k: after what the
 * node's earlier ranks send there. */
static MPI_Aint offset_in(const pcoll__hier_t *g, int k)
{
    const pcoll__node_t *t = g->t;
    MPI_Aint off = 0;
    int x, i;
    for (x = 0; x < g->l; x++)
        for (i = t->first[k]; i < t->first[k + 1]; i++)
            off += (MPI_Aint)g->h->bytes(g->h, t->members[t->first[g->A] + x], t->members[i]);
    return off;
}

static int block_of(const pcoll__hier_t *g, int x)
{
    return g->h->block ? g->h->block(g->h, x) : x;
}

/* Copy every send block into W, slot by slot (merged into runs). */
static int copy_in(pcoll_plan_t *plan, const pcoll__hier_t *g)
{
    const pcoll__a2a_args_t *a = g->h->a;
    pcoll__hier_run_t run = {0};
    int j, i, rc = PCOLL_SUCCESS;
    for (j = 0; j < g->N && rc == PCOLL_SUCCESS; j++) {
        int k = (g->A + j) % g->N;
        char *at = g->W + g->woff[j] + offset_in(g, k);
        for (i = g->t->first[k]; i < g->t->first[k + 1] && rc == PCOLL_SUCCESS; i++) {
            int d = g->t->members[i], b = block_of(g, d), n;
            long long bytes = g->h->bytes(g->h, g->me, d);
            MPI_Datatype st;
            if (bytes == 0)
                continue;
            rc = pcoll__a2a_items(plan, pcoll__a2a_scount(a, b), pcoll__a2a_stype(a, b), &n,
                                  &st);
            if (rc == PCOLL_SUCCESS)
                rc = pcoll__hier_copy(plan, &run, pcoll__a2a_sbuf(a, b), n, st, at, (int)bytes,
                                      MPI_BYTE);
            at += bytes;
        }
    }
    return rc == PCOLL_SUCCESS ? pcoll__hier_flush(plan, &run) : rc;
}

/* Copy the pieces for this rank out of slot j (the bundle from node A-j). */
static int copy_out_slot(pcoll_plan_t *plan, const pcoll__hier_t *g, int j,
                         pcoll__hier_run_t *run)
{
    const pcoll__a2a_args_t *a = g->h->a;
    const pcoll__node_t *t = g->t;
    int k = (g->A - j + g->N) % g->N, i, x, rc = PCOLL_SUCCESS;
    char *at = pcoll__hier_final(g, j);
    for (i = t->first[k]; i < t->first[k + 1] && rc == PCOLL_SUCCESS; i++) {
        int s = t->members[i], b = block_of(g, s);
        long long before = 0, after = 0, bytes = g->h->bytes(g->h, s, g->me);
        for (x = 0; x < g->m; x++) {
            long long piece = g->h->bytes(g->h, s, t->members[t->first[g->A] + x]);
            before += x < g->l ? piece : 0;
            after += x > g->l ? piece : 0;
        }
        MPI_Datatype rt;
        int n;
        if (bytes > 0)
            rc = pcoll__a2a_items(plan, pcoll__a2a_rcount(a, b), pcoll__a2a_rtype(a, b), &n,
                                  &rt);
        if (bytes > 0 && rc == PCOLL_SUCCESS)
            rc = pcoll__hier_copy(plan, run, at + before, (int)bytes, MPI_BYTE,
                                  pcoll__a2a_rbuf(a, b), n, rt);
        at += before + bytes + after;
    }
    return rc;
}

int pcoll__hier_build(pcoll_plan_t *plan, const pcoll__hier_args_t *h)
{
    pcoll__hier_t g = {0};
    pcoll__hier_run_t run = {0};
    int s, j, rc, barrier;
    PCOLL_CHECK(pcoll__hier_layout(plan, h, &g), rc, out);
    barrier = g.shm->nlocal > 1;
    /* One node with W twice: a rank at this run's barrier has copied out
     * of the other copy, the one the next run fills (no split barrier). */
    if (g.flip)
        pcoll__sched_flip(&plan->sched, g.W, (size_t)g.woff[g.N]);
    /* 0. The previous run's readers of the segment are done. */
    if (barrier && !g.flip) {
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        PCOLL_CHECK(pcoll__sched_poll(&plan->sched, pcoll__node_barrier_wait(g.shm)), rc, out);
    }
    /* 1. Prepost step 0, copy in, meet. */
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    if (g.steps > 0)
        PCOLL_CHECK(recv_step(plan, &g, 0, pcoll__sched_current(&plan->sched) + groups(&g, 0)),
                    rc, out);
    PCOLL_CHECK(copy_in(plan, &g), rc, out);
    if (barrier)
        PCOLL_CHECK(pcoll__sched_poll(&plan->sched, pcoll__node_barrier(g.shm)), rc, out);
    /* 2. The steps between nodes. */
    for (s = 0; s < g.steps; s++)
        PCOLL_CHECK(exchange(plan, &g, s, barrier), rc, out);
    /* 3. Copy out; the next run waits for this arrival. */
    PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
    for (j = 0; j < g.N; j++)
        PCOLL_CHECK(copy_out_slot(plan, &g, j, &run), rc, out);
    PCOLL_CHECK(pcoll__hier_flush(plan, &run), rc, out);
    if (barrier && !g.flip)
        rc = pcoll__sched_poll(&plan->sched, pcoll__node_barrier_arrive(g.shm));
out:
    return rc;
}

static long long uniform(const pcoll__hier_args_t *h, int s, int d)
{
    (void)s, (void)d;
    return h->a->blockbytes;
}

int pcoll__alltoall_hier(pcoll_plan_t *plan, const void *args)
{
    pcoll__hier_args_t h = {.a = args, .bytes = uniform};
    int rc = pcoll__hier_nodes(plan->ctx, &h.a->opts, &h.node);
    return rc == PCOLL_SUCCESS ? pcoll__hier_build(plan, &h) : rc;
}
