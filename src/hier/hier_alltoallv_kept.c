/*
 * alltoallv `hier` kept by a one-shot shape (api/entry.c "Shapes"): the
 * node-aware all-to-all of the multicore paper (II-A, II-C) planned once
 * per communicator and options, with every call's counts, displacements,
 * types and buffers set per run (pcoll__alltoallv_hier_bind).  Nothing of a
 * run depends on the counts the plan was made with: "the all-to-allv
 * pattern complicates only the plan routine" (II-C), so the plan routine's
 * part that reads counts runs in every run, on the node only.
 *
 * A run, on node A of m ranks (N nodes):
 *   0. wait until every rank of the node has finished reading the segment in
 *      the previous run (the second half of a split barrier);
 *   1. write this rank's 2p sizes (bytes to and from every rank) into the
 *      node's size table in the segment, start the messages of the pieces
 *      that travel alone (below), node barrier;
 *   2. read the node's table: the bundle of every pair of nodes, where each
 *      piece lies in it (computed again only when some rank of the node
 *      changed its sizes since the previous run); post the receives of the
 *      bundles this rank handles, copy its pieces into W, node barrier;
 *   3. send the bundles it handles from W to their nodes (one step: digit d,
 *      node A + d, belongs to local rank (d-1) mod ports); wait for every
 *      message, node barrier (none with one node);
 *   4. copy its pieces out of W (its own node's) and R (the others') and
 *      arrive at the split barrier.
 * A piece (s, d) of b bytes travels in the bundles when 0 < b <= piece
 * (1 KiB, less on very large nodes and communicators: the segment stays
 * under 32 MiB), else alone from s to d as a message of the user's types
 * (in place: packed into a private buffer first; a rank's piece to itself
 * is copied, or stays in place).  Sender and receiver
 * both know b, so both choose alike, and the segment, made once, holds any
 * run: W at most m p piece bytes, R at most m (p - m) piece bytes.
 *
 * On one node (N = 1) no bundle leaves it and no rank needs the others'
 * sizes: every piece has a slot of its own, piece bytes at [s][d] in one of
 * two copies of the slots that runs take in turn.  A run copies this rank's
 * pieces into its slots (or starts them alone), meets the node at one
 * barrier and copies its pieces out of the senders' slots: the next run
 * writes the other copy, and the one after this copy again only once every
 * rank has passed the next run's barrier, which it reaches after reading
 * this one (as neighbor/node_kept.c on one node).  The run carries the
 * shape's node signal there (core/node.h: raised before the barrier, read
 * after it), so that a rank whose calls changed can have the shape decided
 * again at the next call of every rank (api/entry.c "Shapes").
 *
 * Cost: as alltoall `hier` with one step between nodes, bundles of the
 * pieces' real sizes; node barriers: 4 per run (one more than the plan with
 * fixed counts: the size table), 1 on one node; per rank per run, O(m p)
 * additions when a rank of the node changed its sizes, O(m) to find none
 * did.  Memory: the segment (above, plus 2 m p sizes; on one node 2 p p
 * piece bytes) and O(N + p) per rank.  In place: supported.  Without a
 * shared window every rank is its own node.
 */
#include <limits.h>
#include <string.h>

#include "hier/hier.h"
#include "alltoallv/alltoallv.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/pmpi.h"
#include "datatype/pack.h"
#include "datatype/size.h"

#define SEGMENT_MAX ((long long)32 << 20)

enum { P_START, P_TABLE, P_COPY_IN, P_EXCHANGE, P_COPY_OUT, P_DONE };

typedef struct kept {
    pcoll__phased_t ph;      /* first: the run's phase (core/plan.h) */
    const pcoll__node_t *t;
    pcoll__node_shm_t *shm;
    MPI_Comm comm;           /* the plan's */
    int p, N, A, m, l, me, inplace, tag_bundle, tag_alone;
    long long run;           /* one node: runs so far (the slots' copy: run & 1) */
    long long piece;         /* the largest piece that travels bundled */
    long long *table;        /* [m][2][p]: sizes of the node's ranks (shared) */
    long long *gens;         /* [m]: how often each changed its sizes (shared) */
    char *W, *R;
    long long seen;          /* the sum of gens the offsets were made for (-1: none) */
    MPI_Aint *woff, *roff;   /* [N+1]: slot j of W; bundle from node A-j in R */
    MPI_Aint *in_at;         /* [N]: this rank's first piece in slot j */
    MPI_Aint *out_at;        /* [p]: this rank's piece from rank s in W or R */
    MPI_Aint *alone_at;      /* [p]: in place, piece d sent alone in scratch */
    long long *sums;         /* [2 p]: the offsets' sums */
    pcoll__a2a_args_t a;     /* this run's arguments */
    MPI_Count ssize, rsize;
    int sdense, rdense;      /* items are plain bytes from the displacement */
    MPI_Request *reqs;       /* [2 (N + p)] */
    int nreqs;
    pcoll__bigs_t bigs;      /* [2 p] types made for counts over INT_MAX */
    size_t scratch_bytes;    /* in place: ph.own, the pieces sent alone, packed */
    int waiting;             /* at a node barrier */
    pcoll_plan_t *plan;
    int listen;              /* one node: this run carries the shape's signal */
    long long heard[2];      /* one node: the signal's counters as last read */
} kept_t;

static int member(const kept_t *k, int node, int i)
{
    return k->t->members[k->t->first[node] + i];
}

static long long *row(const kept_t *k, int x, int recv)
{
    return k->table + ((size_t)x * 2 + (size_t)recv) * (size_t)k->p;
}

/* Bytes of a piece that travel in the bundles. */
static long long bundled(const kept_t *k, long long b)
{
    return b > 0 && b <= k->piece ? b : 0;
}

static int handler(const kept_t *k, int node, int d)
{
    int mk = pcoll__node_size(k->t, node), ports = k->a.opts.ports;
    ports = ports > 0 && ports < mk ? ports : mk;
    return member(k, node, (d - 1) % ports);
}

static int mine(const kept_t *k, int d)
{
    return handler(k, k->A, d) == k->me;
}

/* ---- offsets ---------------------------------------------------------------- */

/* Bundled bytes from the node's ranks to every node: all of them in
 * tot[node], those before this rank in pre[node] (one pass over the send
 * half of the table). */
static void to_nodes(const kept_t *k, long long *tot, long long *pre)
{
    int x, d;
    memset(tot, 0, sizeof *tot * (size_t)k->N);
    memset(pre, 0, sizeof *pre * (size_t)k->N);
    for (x = 0; x < k->m; x++) {
        const long long *sz = row(k, x, 0);
        long long *to = x < k->l ? pre : NULL;
        for (d = 0; d < k->p; d++) {
            long long b = bundled(k, sz[d]);
            tot[k->t->node_of[d]] += b;
            if (to)
                to[k->t->node_of[d]] += b;
        }
    }
}

/* Bundled bytes the node's ranks receive from every rank s: all of them in
 * tot[s], those for the ranks before this one in pre[s]. */
static void from_ranks(const kept_t *k, long long *tot, long long *pre)
{
    int x, s;
    memset(tot, 0, sizeof *tot * (size_t)k->p);
    for (x = 0; x < k->m; x++) {
        const long long *sz = row(k, x, 1);
        if (x == k->l)
            memcpy(pre, tot, sizeof *pre * (size_t)k->p);
        for (s = 0; s < k->p; s++)
            tot[s] += bundled(k, sz[s]);
    }
}

/* Where every piece of this rank lies in W and R: O(m p), once per change. */
static void offsets(kept_t *k)
{
    long long *tot = k->sums, *pre = k->sums + k->p;
    int j, i;
    to_nodes(k, tot, pre);
    k->woff[0] = k->roff[0] = k->roff[1] = 0;
    for (j = 0; j < k->N; j++) {
        int node = (k->A + j) % k->N;
        k->woff[j + 1] = k->woff[j] + (MPI_Aint)tot[node];
        k->in_at[j] = k->woff[j] + (MPI_Aint)pre[node];
    }
    from_ranks(k, tot, pre);
    for (j = 0; j < k->N; j++) {
        int node = (k->A - j + k->N) % k->N;
        MPI_Aint at = j ? k->roff[j] : k->woff[0];
        for (i = 0; i < pcoll__node_size(k->t, node); i++) {
            int s = member(k, node, i);
            k->out_at[s] = at + (MPI_Aint)pre[s];
            at += (MPI_Aint)tot[s];
        }
        if (j > 0)
            k->roff[j + 1] = at;
    }
}

/* ---- pieces --------------------------------------------------------------- */

#define WHAT "alltoallv hier"

/* count items of type at buf packed into bytes at out (not plain). */
static int pack_items(const kept_t *k, const void *buf, MPI_Count count, MPI_Datatype type,
                      char *out, long long bytes)
{
    return pcoll__pack_items(buf, count, type, 0, out, bytes, k->comm, WHAT);
}

static int pack(const kept_t *k, const void *buf, MPI_Count count, MPI_Datatype type,
                int plain, char *out, long long bytes)
{
    return pcoll__pack_items(buf, count, type, plain, out, bytes, k->comm, WHAT);
}

static int unpack(const kept_t *k, const char *in, long long bytes, void *buf, MPI_Count count)
{
    return pcoll__unpack_items(in, bytes, buf, count, k->a.recvtype, k->rdense, k->comm, WHAT);
}

/* count items of type as an int count (over INT_MAX: one item of a type
 * made for this run). */
static int items(kept_t *k, MPI_Count count, MPI_Datatype *type, int *n)
{
    return pcoll__bigs_items(&k->bigs, count, type, n);
}

/* In place: the pieces sent alone, packed into the private scratch (grown
 * when a run needs more). */
static int pack_alone(kept_t *k, MPI_Aint *at)
{
    size_t need = 0;
    int d, rc = PCOLL_SUCCESS;
    for (d = 0; d < k->p; d++) {
        long long b = (long long)k->a.rcounts[d] * k->rsize;
        if (b > INT_MAX)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                "alltoallv hier: in place, a block over 2 GiB");
        at[d] = (MPI_Aint)need;
        need += b > k->piece && d != k->me ? (size_t)b : 0;
    }
    if (need > k->scratch_bytes) {
        char *s = pcoll__realloc(k->ph.own, need);
        if (!s)
            return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv hier: %zu bytes of scratch", need);
        k->ph.own = s, k->scratch_bytes = need;
    }
    for (d = 0; d < k->p && rc == PCOLL_SUCCESS; d++) {
        long long b = (long long)k->a.rcounts[d] * k->rsize;
        if (b > k->piece && d != k->me)
            rc = pack_items(k, pcoll__a2a_rbuf(&k->a, d), k->a.rcounts[d], k->a.recvtype,
                            (char *)k->ph.own + at[d], b);
    }
    return rc;
}

/* Whether this rank's piece to itself, traveling alone, is copied (not in
 * place, where it stays): plain bytes on one side at least (a memcpy, or one
 * MPI_Pack / MPI_Unpack between the user's buffers, as the bundled pieces
 * are copied: nothing allocated), counts an int holds.  Else a message to
 * itself, which some MPIs send as slowly as one to another rank (MPICH: the
 * model's vself). */
static int self_copied(const kept_t *k)
{
    const pcoll__a2a_args_t *a = &k->a;
    return !k->inplace && (k->sdense || k->rdense) &&
           (long long)a->rcounts[k->me] * k->rsize <= INT_MAX && a->scounts[k->me] <= INT_MAX &&
           a->rcounts[k->me] <= INT_MAX;
}

static int copy_self(const kept_t *k)
{
    const pcoll__a2a_args_t *a = &k->a;
    long long b = (long long)a->rcounts[k->me] * k->rsize;
    if (k->rdense)
        return pack(k, pcoll__a2a_sbuf(a, k->me), a->scounts[k->me], a->sendtype, k->sdense,
                    pcoll__a2a_rbuf(a, k->me), b);
    return unpack(k, pcoll__a2a_sbuf(a, k->me), b, pcoll__a2a_rbuf(a, k->me), a->rcounts[k->me]);
}

/* Start the messages of the pieces that travel alone; the one to itself
 * stays in place or is copied after them (self_copied), else it is a
 * message too. */
static int start_alone(kept_t *k)
{
    const pcoll__a2a_args_t *a = &k->a;
    MPI_Aint *at = k->alone_at;
    int i, n, rc = PCOLL_SUCCESS, err = MPI_SUCCESS;
    int self = k->inplace || self_copied(k);
    if (k->inplace && (rc = pack_alone(k, at)) != PCOLL_SUCCESS)
        return rc;
    for (i = 0; i < k->p && rc == PCOLL_SUCCESS && err == MPI_SUCCESS; i++) {
        MPI_Datatype type = a->recvtype;
        if ((long long)a->rcounts[i] * k->rsize <= k->piece || (self && i == k->me))
            continue;
        if ((rc = items(k, a->rcounts[i], &type, &n)) == PCOLL_SUCCESS)
            err = MPI_Irecv(pcoll__a2a_rbuf(a, i), n, type, i, k->tag_alone, k->comm,
                            &k->reqs[k->nreqs++]);
    }
    for (i = 0; i < k->p && rc == PCOLL_SUCCESS && err == MPI_SUCCESS; i++) {
        MPI_Datatype type = a->sendtype;
        long long b = k->inplace ? (long long)a->rcounts[i] * k->rsize
                                 : (long long)a->scounts[i] * k->ssize;
        if (b <= k->piece || (self && i == k->me))
            continue;
        if (k->inplace) {
            type = MPI_PACKED;
            rc = items(k, b, &type, &n);
            if (rc == PCOLL_SUCCESS)
                err = MPI_Isend((char *)k->ph.own + at[i], n, type, i, k->tag_alone, k->comm,
                                &k->reqs[k->nreqs++]);
        } else if ((rc = items(k, a->scounts[i], &type, &n)) == PCOLL_SUCCESS) {
            err = MPI_Isend(pcoll__a2a_sbuf(a, i), n, type, i, k->tag_alone, k->comm,
                            &k->reqs[k->nreqs++]);
        }
    }
    if (rc == PCOLL_SUCCESS && err != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "alltoallv hier: a message failed to start");
    if (rc == PCOLL_SUCCESS && !k->inplace && self &&
        (long long)a->rcounts[k->me] * k->rsize > k->piece)
        rc = copy_self(k);
    return rc;
}

/* Copy this rank's bundled pieces into W, slot by slot. */
static int copy_in(kept_t *k)
{
    const pcoll__a2a_args_t *a = &k->a;
    int j, i, rc = PCOLL_SUCCESS;
    for (j = 0; j < k->N && rc == PCOLL_SUCCESS; j++) {
        int node = (k->A + j) % k->N;
        char *at = k->W + k->in_at[j];
        for (i = 0; i < pcoll__node_size(k->t, node) && rc == PCOLL_SUCCESS; i++) {
            int d = member(k, node, i);
            long long b = bundled(k, row(k, k->l, 0)[d]);
            if (b == 0)
                continue;
            rc = k->inplace ? pack(k, pcoll__a2a_rbuf(a, d), a->rcounts[d], a->recvtype,
                                   k->rdense, at, b)
                            : pack(k, pcoll__a2a_sbuf(a, d), a->scounts[d], a->sendtype,
                                   k->sdense, at, b);
            at += b;
        }
    }
    return rc;
}

/* Copy this rank's bundled pieces out of W and R. */
static int copy_out(kept_t *k)
{
    const pcoll__a2a_args_t *a = &k->a;
    int s, rc = PCOLL_SUCCESS;
    for (s = 0; s < k->p && rc == PCOLL_SUCCESS; s++) {
        long long b = bundled(k, row(k, k->l, 1)[s]);
        const char *base = k->t->node_of[s] == k->A ? k->W : k->R;
        if (b > 0)
            rc = unpack(k, base + k->out_at[s], b, pcoll__a2a_rbuf(a, s), a->rcounts[s]);
    }
    return rc;
}

/* One node: the slot of the piece from local rank x to rank d in this
 * run's copy. */
static char *slot(const kept_t *k, int x, int d)
{
    size_t m = (size_t)k->m, p = (size_t)k->p;
    return k->W + (((size_t)(k->run & 1) * m + (size_t)x) * p + (size_t)d) * (size_t)k->piece;
}

/* One node: this rank's pieces into their slots (in 1), or the pieces for
 * it out of the senders' slots (in 0, after the barrier). */
static int copy_slots(kept_t *k, int in)
{
    const pcoll__a2a_args_t *a = &k->a;
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < k->p && rc == PCOLL_SUCCESS; i++) {
        long long r = bundled(k, (long long)a->rcounts[i] * k->rsize);
        long long b = in && !k->inplace ? bundled(k, (long long)a->scounts[i] * k->ssize) : r;
        if (b == 0)
            continue;
        if (!in)
            rc = unpack(k, slot(k, k->t->local_of[i], k->me), b, pcoll__a2a_rbuf(a, i),
                        a->rcounts[i]);
        else if (k->inplace)
            rc = pack(k, pcoll__a2a_rbuf(a, i), a->rcounts[i], a->recvtype, k->rdense,
                      slot(k, k->l, i), b);
        else
            rc = pack(k, pcoll__a2a_sbuf(a, i), a->scounts[i], a->sendtype, k->sdense,
                      slot(k, k->l, i), b);
    }
    return rc;
}

/* ---- the exchange between nodes ---------------------------------------------- */

static int post_bundles(kept_t *k, int send)
{
    int j, err = MPI_SUCCESS;
    for (j = 1; j < k->N && err == MPI_SUCCESS; j++) {
        MPI_Aint len = send ? k->woff[j + 1] - k->woff[j] : k->roff[j + 1] - k->roff[j];
        int node = send ? (k->A + j) % k->N : (k->A - j + k->N) % k->N;
        if (!mine(k, j) || len == 0)
            continue;
        if (len > INT_MAX)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED, "alltoallv hier: a bundle over 2 GiB");
        err = send ? MPI_Isend(k->W + k->woff[j], (int)len, MPI_BYTE, handler(k, node, j),
                               k->tag_bundle, k->comm, &k->reqs[k->nreqs++])
                   : MPI_Irecv(k->R + k->roff[j], (int)len, MPI_BYTE, handler(k, node, j),
                               k->tag_bundle, k->comm, &k->reqs[k->nreqs++]);
    }
    return err == MPI_SUCCESS ? PCOLL_SUCCESS
                              : pcoll__error(PCOLL_ERR_MPI, "alltoallv hier: a bundle failed");
}

/* ---- the run ------------------------------------------------------------------- */

/* This rank's sizes into the table; its generation grows when they
 * changed. */
static void write_sizes(kept_t *k)
{
    long long *out = row(k, k->l, 0), *in = row(k, k->l, 1);
    int i, changed = k->seen < 0;
    for (i = 0; i < k->p; i++) {
        long long r = (long long)k->a.rcounts[i] * k->rsize;
        long long s = k->inplace ? r : (long long)k->a.scounts[i] * k->ssize;
        changed |= out[i] != s || in[i] != r;
        out[i] = s, in[i] = r;
    }
    k->gens[k->l] += changed;
}

/* The second half of the split barrier: every rank of the node is done
 * with the previous run. */
static int barrier_wait(kept_t *k)
{
    pcoll__poll_t b = pcoll__node_barrier_wait(k->shm);
    return k->shm->nlocal == 1 || b.poll(b.arg);
}

/* Node barrier: arrive (once) and poll; 1 when passed. */
static int barrier(kept_t *k, int arrive_only)
{
    return pcoll__node_barrier_step(k->shm, &k->waiting, arrive_only);
}

static void free_big(kept_t *k)
{
    pcoll__bigs_free(&k->bigs);
}

/* Step 2: the offsets (again only when some rank changed its sizes), the
 * receives of the bundles, the copy in. */
static int read_sizes(kept_t *k)
{
    long long sum = 0;
    int x, rc;
    for (x = 0; x < k->m; x++)
        sum += k->gens[x];
    if (sum != k->seen)
        offsets(k);
    k->seen = sum;
    rc = post_bundles(k, 0);
    return rc == PCOLL_SUCCESS ? copy_in(k) : rc;
}

/* One phase further when it can go. */
static int advance(void *state, int *moved)
{
    kept_t *k = state;
    int flag = 1, rc = PCOLL_SUCCESS;
    *moved = 0;
    switch (k->ph.phase) {
    case P_START:
        if (k->N == 1) {
            if ((rc = start_alone(k)) == PCOLL_SUCCESS)
                rc = copy_slots(k, 1);
            if (k->listen && k->plan->raise)
                pcoll__node_raise(k->shm, k->run);
            break;
        }
        if (!barrier_wait(k))
            return PCOLL_SUCCESS;
        write_sizes(k);
        rc = start_alone(k);
        break;
    case P_TABLE:
        if (!barrier(k, 0))
            return PCOLL_SUCCESS;
        if (k->N == 1) {
            int raised = pcoll__node_raised(k->shm, k->run, k->heard);
            if (k->listen)
                k->plan->raised = raised;
        }
        rc = k->N == 1 ? copy_slots(k, 0) : read_sizes(k);
        break;
    case P_COPY_IN:
        if (k->N > 1 && !barrier(k, 0))
            return PCOLL_SUCCESS;
        rc = k->N > 1 ? post_bundles(k, 1) : PCOLL_SUCCESS;
        break;
    case P_EXCHANGE:
        if ((rc = pcoll__requests_done(k->reqs, &k->nreqs, k->ph.blocking, &flag, WHAT)) != PCOLL_SUCCESS ||
            !flag)
            return rc;
        break;
    case P_COPY_OUT:
        /* One node: copied out after the barrier already. */
        if (k->N > 1 && !barrier(k, 0))
            return PCOLL_SUCCESS;
        rc = k->N > 1 ? copy_out(k) : PCOLL_SUCCESS;
        if (rc == PCOLL_SUCCESS && k->N > 1)
            barrier(k, 1);
        free_big(k);
        break;
    }
    k->ph.phase++;
    *moved = 1;
    return rc;
}

static void kept_begin(void *state)
{
    kept_t *k = state;
    k->nreqs = 0;
    k->run++;
    k->listen = k->plan->listen;
}

static void kept_drop(void *state)
{
    free_big(state);
}

static const pcoll__phases_def_t kept_phases = {P_DONE, kept_begin, advance, kept_drop};

int pcoll__alltoallv_hier_bind(pcoll_plan_t *plan, const pcoll__a2a_args_t *a)
{
    kept_t *k = plan->priv;
    k->a = *a;
    k->rdense = pcoll__type_plain(a->recvtype, &k->rsize);
    k->sdense = a->inplace ? k->rdense : pcoll__type_plain(a->sendtype, &k->ssize);
    if (a->inplace)
        k->ssize = k->rsize;
    return PCOLL_SUCCESS;
}

long long pcoll__alltoallv_hier_piece(int p, int nnodes, int maxlocal)
{
    long long room = SEGMENT_MAX / (2LL * maxlocal * p), piece, slots;
    piece = room < PCOLL__HIER_PIECE_MAX ? room : PCOLL__HIER_PIECE_MAX;
    if (nnodes > 1)
        return piece;
    slots = pcoll__node_piece((long long)p * p);
    return slots > piece ? slots : piece;
}

/* The state for topology t: sizes, the segment's parts. */
static int kept_layout(pcoll_plan_t *plan, kept_t *k, const pcoll__node_t *t, size_t *bytes)
{
    size_t m, p = (size_t)plan->size;
    k->t = t, k->p = plan->size, k->N = t->nnodes, k->A = t->node, k->l = t->local;
    k->me = plan->rank, k->m = pcoll__node_size(t, t->node), m = (size_t)k->m;
    /* The same on every rank (sender and receiver classify pieces alike). */
    k->piece = pcoll__alltoallv_hier_piece(k->p, t->nnodes, t->maxlocal);
    k->woff = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * (size_t)(k->N + 1));
    k->roff = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * (size_t)(k->N + 1));
    k->in_at = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * (size_t)k->N);
    k->out_at = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * p);
    k->alone_at = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * p);
    k->sums = pcoll__plan_alloc(plan, sizeof(long long) * 2 * p); /* N <= p */
    k->reqs = pcoll__plan_alloc(plan, sizeof(MPI_Request) * 2 * ((size_t)k->N + p));
    k->bigs.types = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * 2 * p);
    if (!k->woff || !k->roff || !k->in_at || !k->out_at || !k->alone_at || !k->sums || !k->reqs ||
        !k->bigs.types)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv hier: offsets");
    *bytes = k->N == 1 ? (size_t)k->piece * 2 * m * p
                       : sizeof(long long) * (2 * m * p + m) + (size_t)k->piece * m * (2 * p - m);
    return PCOLL_SUCCESS;
}

/* The segment's parts: the size table, its generations, W and R (one
 * node: the two copies of the slots, W). */
static void kept_parts(kept_t *k)
{
    size_t m = (size_t)k->m, p = (size_t)k->p;
    if (k->N == 1) {
        k->W = k->shm->seg;
        return;
    }
    k->table = (long long *)(void *)k->shm->seg;
    k->gens = k->table + 2 * m * p;
    k->W = (char *)(k->gens + m);
    k->R = k->W + (size_t)k->piece * m * p;
    k->seen = -1;
}

int pcoll__alltoallv_hier_keep(pcoll_plan_t *plan, const pcoll__opts_t *opts, int inplace)
{
    const pcoll__node_t *t;
    kept_t *k;
    size_t bytes;
    int ok, rc;
    if (!(k = plan->priv = pcoll__calloc(1, sizeof *k)))
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv hier: state");
    plan->ops = &pcoll__phased_ops;
    k->ph.def = &kept_phases;
    k->ph.phase = P_DONE;
    k->inplace = inplace;
    k->plan = plan;
    k->comm = plan->comm;
    k->a.opts = *opts;
    k->tag_bundle = plan->tag;
    k->tag_alone = pcoll__ctx_tag(plan->ctx);
    PCOLL_CHECK(pcoll__hier_nodes(plan->ctx, opts, &t), rc, out);
    PCOLL_CHECK(kept_layout(plan, k, t, &bytes), rc, out);
    PCOLL_CHECK(pcoll__node_shm_create(plan, t, bytes, &k->shm, &ok), rc, out);
    PCOLL_CHECK(pcoll__node_shm_ready(plan->comm, k->shm, &ok), rc, out);
    if (!ok) {
        /* Every rank its own node, private memory, no barrier. */
        pcoll__node_shm_drop(k->shm);
        PCOLL_CHECK(pcoll__node_get(plan->ctx, 1, &t), rc, out);
        PCOLL_CHECK(kept_layout(plan, k, t, &bytes), rc, out);
        PCOLL_CHECK(pcoll__node_shm_create(plan, t, bytes, &k->shm, &ok), rc, out);
    }
    kept_parts(k);
out:
    return rc;
}
