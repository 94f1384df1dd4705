/*
 * neighbor `node` kept by a one-shot shape (api/entry.c "Shapes"): the
 * bundling of `node` (node.c), planned once per shape for the
 * communicator's topology alone, with every call's counts, displacements,
 * types and buffers bound to a run (pcoll__nbr_node_bind).  Nothing of the
 * layout depends on the sizes of the call that decided the shape, so calls
 * whose sizes change every time bundle as well as calls of one size.
 *
 * The node's segment has a part per member and destination node: a header
 * per block the member sends there (its bytes, or ALONE), then room for
 * each block of up to `piece` bytes (1 KiB, less where the node's blocks
 * are many: the segment stays under 32 MiB; on one node up to 16 KiB while
 * a copy of the parts stays within 2 MiB; pcoll__nbr_piece, agreed at the
 * plan).  A block of more bytes travels alone, a message from the sender's
 * buffer to the receiver's on a tag of its own, and its header says so.  A
 * bundle between two nodes holds the parts of the sender node's members
 * that have blocks for the receiving node, in local order (the plan knows
 * which, and how many blocks each: one sum over the node at the plan), each
 * part a 2-byte word and its blocks: the word is the size of every block
 * where all have one size and none travels alone (the common case: then no
 * header per block crosses the network), else LIST and a 2-byte header per
 * block before the data.  In a simulated network where a node's link is shared, the bytes a
 * bundle carries beyond its blocks' cost time; this keeps them to 2 a part.
 * The receiver posts room for the most a bundle can hold and reads the
 * words and headers, not its own counts: a receiver whose size of an edge
 * differs from its sender's (an erroneous call) gets PCOLL_ERR_MISMATCH from
 * that call, and nobody waits for a message that never comes.  Blocks sent alone
 * between two ranks are posted by the sender in send order and by the
 * receiver in receive order, so repeated edges match as MPI matches them.
 *
 * A run, on node A:
 *   0. every block into its part's place (or started alone), the part's
 *      used bytes into the segment; node barrier;
 *   1. each bundle's handler (node.c's: local rank B mod n_A for node B)
 *      gathers the parts for B into one message and sends it, and receives
 *      B's; the blocks from the own node out of the segment;
 *   2. the bundles done; node barrier;
 *   3. the blocks from other nodes out of the received bundles; every
 *      message sent alone done.
 *
 * On one node (N = 1) steps 1 and 2 have nothing to do: the parts come
 * in two copies that runs take in turn, so the next run packs into the
 * copy no rank reads now (a rank passes its step 0 barrier only once every
 * rank has read the run before), and a run has one barrier, which carries
 * the shape's node signal (core/node.h; hier_alltoallv_kept.c).  Persistent
 * `node` plans on one node are this plan bound once (node.c).
 *
 * Cost: node.c's (two node barriers, one message per pair of nodes with
 * edges between them) plus 2 bytes per part on the network (and 2 per block
 * where a part's blocks differ in size), one copy of
 * every bundle by its handler, and one message per block over `piece`.
 * Without a shared segment on some node every rank is a node of its own
 * (private memory, no barrier).
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "base/pmpi.h"
#include "datatype/pack.h"
#include "datatype/size.h"
#include "core/node.h"
#include "neighbor/neighbor.h"

#define WHAT "neighbor node"
#define SEGMENT_MAX ((long long)32 << 20)
#define ALONE (-1)
#define HDR ((long long)sizeof(int32_t)) /* a block's header in the segment */
#define WORD ((long long)sizeof(uint16_t)) /* a part's word, a header in a bundle */
#define LIST 0xFFFF       /* the word of a part whose blocks have headers */
#define WIRE_ALONE 0xFFFE /* a bundle's header of a block sent alone */

enum { P_PACK, P_LOCAL, P_BUNDLES, P_REMOTE, P_ALONE, P_DONE };

typedef struct kept {
    pcoll__phased_t ph;       /* first: the run's phase (core/plan.h) */
    const pcoll__node_t *t;
    pcoll__node_shm_t *shm;
    MPI_Comm comm;            /* the plan's */
    int tag_bundle, tag_alone;
    int in, out, N, A, m, l;  /* degrees; nodes, this node, its ranks, this rank's index */
    const int *sources, *dests; /* the plan's copies */
    int *sord, *rord;         /* per edge: the block's place among its sender's blocks
                                 to the receiver's node (send order) */
    long long piece;
    long long *count;         /* [2N][m]: member x's blocks to node k ([k][x]), and
                                 from remote node k ([N + k][x]) */
    long long *part;          /* [N][m]: where member x's part for node k starts */
    long long flip;           /* one node: the parts' bytes; runs take two copies of
                                 the parts in turn (0: one copy) */
    long long *used;          /* [N][m] in the segment: the part's bytes this run (one
                                 node: this rank's own memory) */
    size_t used_at;           /* where used lies in the segment */
    long long *rbase, *rcap;  /* [N]: where the bundle from node k is received, room */
    long long *sat;           /* [N]: node k's bundle in ph.own, the bundles this rank
                                 handles, gathered (-1: not handled here) */
    int *from;                /* [P]: the blocks rank s sends to this node (remote s) */
    long long *pat;           /* [P]: where rank s's part lies in the segment, this run */
    long long *read;          /* [N]: the run in which node k's bundle was read */
    long long run;
    pcoll__nbr_args_t a;      /* this run's arguments */
    int splain, rplain;       /* alltoall(v): the items are plain bytes */
    MPI_Count ssize, rsize;   /* ... and the bytes of one */
    MPI_Request *reqs;        /* bundles from 0 (nb), blocks alone from 2N (na) */
    int nb, na;
    int *asrc;                /* [in + out + 1]: per block alone, its source (a receive),
                                 -1 (a send), -2 (a receive cancelled) */
    char *pre;                /* [in]: in-edge e's block awaited alone from step 0 (its
                                 size over the piece); 2: it came in a bundle */
    pcoll__bigs_t bigs;
    int waiting, mismatch;
    pcoll_plan_t *plan;
    int listen;               /* one node: this run carries the shape's signal */
    long long heard[2];       /* one node: the signal's counters as last read */
} kept_t;

static int32_t get32(const char *at)
{
    int32_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

static void put32(char *at, long long v)
{
    int32_t w = (int32_t)v;
    memcpy(at, &w, sizeof w);
}

static unsigned get16(const char *at)
{
    uint16_t v;
    memcpy(&v, at, sizeof v);
    return v;
}

static void put16(char *at, unsigned v)
{
    uint16_t w = (uint16_t)v;
    memcpy(at, &w, sizeof w);
}

static long long *at2(const kept_t *k, long long *base, int row, int x)
{
    return base + (size_t)row * (size_t)k->m + (size_t)x;
}

/* Member x's part for node j in this run's copy of the parts. */
static char *part_at(const kept_t *k, int j, int x)
{
    return k->shm->seg + *at2(k, k->part, j, x) + (k->run & 1) * k->flip;
}

/* The bytes of out-edge (send 1) or in-edge e's block. */
static long long block_bytes(const kept_t *k, int send, int e)
{
    const pcoll__nbr_args_t *a = &k->a;
    if (a->form != PCOLL__NBR_ALLTOALLW)
        return send ? (long long)a->scounts[e] * k->ssize : (long long)a->rcounts[e] * k->rsize;
    return send ? pcoll__nbr_bytes(a->scounts[e], a->stypes[e])
                : pcoll__nbr_bytes(a->rcounts[e], a->rtypes[e]);
}

static int plain(const kept_t *k, int send, MPI_Datatype type)
{
    MPI_Count size;
    if (k->a.form != PCOLL__NBR_ALLTOALLW)
        return send ? k->splain : k->rplain;
    return pcoll__type_plain(type, &size);
}

static int mpi_failed(const char *what)
{
    return pcoll__error(PCOLL_ERR_MPI, WHAT ": %s failed", what);
}

/* ---- a run ------------------------------------------------------------------- */

static int send_alone(kept_t *k, int e, const void *buf, MPI_Datatype type)
{
    int n, rc = pcoll__bigs_items(&k->bigs, k->a.scounts[e], &type, &n);
    k->asrc[k->na] = -1;
    if (rc == PCOLL_SUCCESS && MPI_Isend(buf, n, type, k->dests[e], k->tag_alone, k->comm,
                                         &k->reqs[2 * k->N + k->na++]) != MPI_SUCCESS)
        rc = mpi_failed("MPI_Isend");
    return rc;
}

/* In-edge e's block received alone, into the receive buffer. */
static int recv_alone(kept_t *k, int e)
{
    const pcoll__nbr_args_t *a = &k->a;
    MPI_Datatype type = pcoll__nbr_rtype(a, e);
    void *buf = pcoll__addr(a->recvbuf, a->rdispls[e] * a->rext);
    int n, rc = pcoll__bigs_items(&k->bigs, a->rcounts[e], &type, &n);
    k->asrc[k->na] = k->sources[e];
    if (rc == PCOLL_SUCCESS && MPI_Irecv(buf, n, type, k->sources[e], k->tag_alone, k->comm,
                                         &k->reqs[2 * k->N + k->na++]) != MPI_SUCCESS)
        rc = mpi_failed("MPI_Irecv");
    return rc;
}

/* After the headers of every in-edge were read: where a block awaited
 * alone came in a bundle (its sender's size differs: an erroneous call),
 * the receive posted for it stays unmatched -- its source sends one
 * message fewer than was awaited, and MPI matches them to the receives in
 * the order they were posted, so the last receive from that source is the
 * one left over: cancelled, so that nobody waits for a message that never
 * comes. */
static int cancel_unsent(kept_t *k)
{
    int e, i;
    for (e = 0; e < k->in; e++) {
        if (k->pre[e] != 2)
            continue;
        for (i = k->na - 1; i >= 0; i--) {
            MPI_Request *r = &k->reqs[2 * k->N + i];
            if (k->asrc[i] != k->sources[e])
                continue;
            k->asrc[i] = -2;
            if (*r != MPI_REQUEST_NULL && MPI_Cancel(r) != MPI_SUCCESS)
                return mpi_failed("MPI_Cancel");
            break;
        }
    }
    return PCOLL_SUCCESS;
}

/* Step 0: the receives of the blocks this rank awaits alone (its size of
 * them over the piece: the sender's is the same in a correct call), in
 * receive order, before anything is sent (a receive posted only once the
 * headers are read, after the barrier, left the MPI's large messages
 * waiting: a lease's run at np 2 under MPICH, 26 blocks of 16 KiB, 1.3x
 * slower); every block into its part (or started alone, in send order),
 * each part's used bytes into the segment. */
static int pack_blocks(kept_t *k)
{
    const pcoll__nbr_args_t *a = &k->a;
    int i, j, rc = PCOLL_SUCCESS;
    for (i = 0; i < k->in && rc == PCOLL_SUCCESS; i++) {
        k->pre[i] = k->sources[i] != MPI_PROC_NULL && block_bytes(k, 0, i) > k->piece;
        if (k->pre[i])
            rc = recv_alone(k, i);
    }
    for (j = 0; j < k->N; j++)
        *at2(k, k->used, j, k->l) = *at2(k, k->count, j, k->l) * HDR;
    for (i = 0; i < k->out && rc == PCOLL_SUCCESS; i++) {
        int e = pcoll__nbr_send_edge(a, i), node;
        MPI_Datatype type = pcoll__nbr_stype(a, e);
        long long b = block_bytes(k, 1, e), *used;
        const void *buf = pcoll__addr(a->sendbuf, a->sdispls[e] * a->sext);
        char *part;
        if (a->dests[e] == MPI_PROC_NULL)
            continue;
        node = k->t->node_of[a->dests[e]];
        part = part_at(k, node, k->l);
        used = at2(k, k->used, node, k->l);
        if (b > k->piece) {
            put32(part + k->sord[e] * HDR, ALONE);
            rc = send_alone(k, e, buf, type);
            continue;
        }
        put32(part + k->sord[e] * HDR, b);
        if (b > 0)
            rc = pcoll__pack_items(buf, a->scounts[e], type, plain(k, 1, type), part + *used, b,
                                   k->comm, WHAT);
        *used += b;
    }
    return rc;
}

/* Member x's part for node j, from the segment into a bundle at p, in the
 * bundle's form (its word, the headers where it needs them, the blocks);
 * the bundle's end after it. */
static char *wire_part(const kept_t *k, int j, int x, char *p)
{
    long long blocks = *at2(k, k->count, j, x), used = *at2(k, k->used, j, x), i;
    const char *part = part_at(k, j, x);
    int32_t first = blocks > 0 ? get32(part) : 0;
    int same = first != ALONE;
    if (blocks == 0)
        return p;
    for (i = 1; i < blocks && same; i++)
        same = get32(part + i * HDR) == first;
    put16(p, same ? (unsigned)first : LIST);
    p += WORD;
    for (i = 0; i < blocks && !same; i++, p += WORD) {
        int32_t h = get32(part + i * HDR);
        put16(p, h == ALONE ? WIRE_ALONE : (unsigned)h);
    }
    memcpy(p, part + blocks * HDR, (size_t)(used - blocks * HDR));
    return p + used - blocks * HDR;
}

/* Step 1: the bundles this rank handles: node j's parts gathered in the
 * bundle's form and sent, node j's bundle received (receives first). */
static int post_bundles(kept_t *k)
{
    int n = k->m, j, x, err = MPI_SUCCESS;
    for (j = 0; j < k->N && err == MPI_SUCCESS; j++)
        if (j != k->A && j % n == k->l && k->rcap[j] > 0)
            err = MPI_Irecv(k->shm->seg + k->rbase[j], (int)k->rcap[j], MPI_BYTE,
                            pcoll__nbr_node_partner(k->t, j), k->tag_bundle, k->comm,
                            &k->reqs[k->nb++]);
    for (j = 0; j < k->N && err == MPI_SUCCESS; j++) {
        char *b, *p;
        if (k->sat[j] < 0)
            continue;
        b = p = (char *)k->ph.own + k->sat[j];
        for (x = 0; x < n; x++)
            p = wire_part(k, j, x, p);
        err = MPI_Isend(b, (int)(p - b), MPI_BYTE, pcoll__nbr_node_partner(k->t, j),
                        k->tag_bundle, k->comm, &k->reqs[k->nb++]);
    }
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : mpi_failed("a bundle");
}

/* A part as the receivers read it: its blocks, and either one size for
 * all (size >= 0: the blocks follow each other from data) or headers of
 * width hw at hdr (size < 0: sizes or ALONE, the bundled blocks from data). */
typedef struct part {
    int blocks, size, hw;
    const char *hdr, *data;
} part_t;

/* Header i of a part with headers: its bytes or ALONE. */
static long long header(const part_t *pt, int i)
{
    if (pt->hw == HDR)
        return get32(pt->hdr + (size_t)i * HDR);
    unsigned h = get16(pt->hdr + (size_t)i * WORD);
    return h == WIRE_ALONE ? ALONE : (long long)h;
}

/* In-edge e's block: ordinal rord[e] of part pt (NULL: none arrived). */
static int take_block(kept_t *k, int e, const part_t *pt)
{
    const pcoll__nbr_args_t *a = &k->a;
    MPI_Datatype type = pcoll__nbr_rtype(a, e);
    long long b = block_bytes(k, 0, e), off = 0, got;
    void *buf = pcoll__addr(a->recvbuf, a->rdispls[e] * a->rext);
    int j = k->rord[e], i;
    if (!pt || j >= pt->blocks) {
        k->mismatch = 1;
        k->pre[e] *= 2;
        return PCOLL_SUCCESS;
    }
    got = pt->size >= 0 ? pt->size : header(pt, j);
    if (got == ALONE && k->pre[e])
        return PCOLL_SUCCESS;
    if (got == ALONE) { /* its sender's size is over the piece, its receiver's not */
        k->mismatch = 1;
        return recv_alone(k, e);
    }
    if (got != b || k->pre[e]) {
        k->mismatch = 1;
        k->pre[e] *= 2;
        return PCOLL_SUCCESS;
    }
    if (pt->size >= 0) {
        off = (long long)j * pt->size;
    } else {
        for (i = 0; i < j; i++) {
            long long h = header(pt, i);
            off += h == ALONE ? 0 : h;
        }
    }
    return b > 0 ? pcoll__unpack_items(pt->data + off, b, buf, a->rcounts[e], type,
                                       plain(k, 0, type), k->comm, WHAT)
                 : PCOLL_SUCCESS;
}

/* The bundle from node j: where each sender's part starts (k->pat), its
 * words read in the order of the node's members; a bundle that ends before
 * its parts do (an erroneous call elsewhere) leaves the rest unplaced. */
static void read_bundle(kept_t *k, int j)
{
    const pcoll__node_t *t = k->t;
    const char *p = k->shm->seg + k->rbase[j], *end = p + k->rcap[j];
    long long bytes;
    int x, i;
    k->read[j] = k->run;
    for (x = 0; x < pcoll__node_size(t, j); x++)
        k->pat[t->members[t->first[j] + x]] = -1;
    for (x = 0; x < pcoll__node_size(t, j); x++) {
        int s = t->members[t->first[j] + x], blocks = k->from[s];
        unsigned w;
        if (blocks == 0)
            continue;
        if (p + WORD > end)
            return;
        w = get16(p);
        if (w == LIST && p + WORD + blocks * WORD > end)
            return;
        bytes = w == LIST ? blocks * WORD : (long long)blocks * w;
        for (i = 0; i < blocks && w == LIST; i++) {
            unsigned h = get16(p + WORD + i * WORD);
            bytes += h == WIRE_ALONE ? 0 : h;
        }
        if (p + WORD + bytes > end)
            return;
        k->pat[s] = p - k->shm->seg;
        p += WORD + bytes;
    }
}

/* Sender s's part from a received bundle into *pt; 0 where there is none. */
static int remote_part(kept_t *k, int s, part_t *pt)
{
    const char *p;
    unsigned w;
    if (k->read[k->t->node_of[s]] != k->run)
        read_bundle(k, k->t->node_of[s]);
    if (k->pat[s] < 0)
        return 0;
    p = k->shm->seg + k->pat[s];
    w = get16(p);
    pt->blocks = k->from[s], pt->hw = WORD, pt->hdr = p + WORD;
    pt->size = w == LIST ? -1 : (int)w;
    pt->data = p + WORD + (w == LIST ? pt->blocks * WORD : 0);
    return 1;
}

/* Steps 1 and 3: the blocks from the own node (local 1: out of the
 * senders' parts in the segment) or from the others (out of their
 * bundles), in receive order. */
static int unpack_blocks(kept_t *k, int local)
{
    int e, rc = PCOLL_SUCCESS;
    for (e = 0; e < k->in && rc == PCOLL_SUCCESS; e++) {
        int s = k->sources[e], x, ok;
        part_t pt = {0, -1, (int)HDR, NULL, NULL};
        if (s == MPI_PROC_NULL || (k->t->node_of[s] == k->A) != local)
            continue;
        if (local) {
            x = k->t->local_of[s];
            pt.blocks = (int)*at2(k, k->count, k->A, x);
            pt.hdr = part_at(k, k->A, x);
            pt.data = pt.hdr + pt.blocks * HDR;
            ok = 1;
        } else {
            ok = remote_part(k, s, &pt);
        }
        rc = take_block(k, e, ok ? &pt : NULL);
    }
    return rc;
}

/* A run tested, not waited for (a lease, pcoll_test), that waits at a
 * node barrier: its blocks sent and received alone are tested meanwhile,
 * so that they move on while the MPI is entered only here (a lease's run
 * at np 2 under MPICH, 26 blocks of 2-16 KiB alone: 1.2-1.7x slower
 * without).  Not where the run blocks: an MPI may charge each test. */
static int progress_alone(kept_t *k)
{
    int flag;
    if (k->ph.blocking || k->na == 0)
        return PCOLL_SUCCESS;
    /* Not pcoll__requests_done: the requests keep their places (cancel_unsent). */
    return PCOLL__MPI(Testall)(k->na, k->reqs + 2 * k->N, &flag, MPI_STATUSES_IGNORE) ==
                   MPI_SUCCESS
               ? PCOLL_SUCCESS
               : pcoll__error(PCOLL_ERR_MPI, WHAT ": a message failed");
}

/* One step further when it can go; *moved 0 where it waits. */
static int advance(void *state, int *moved)
{
    kept_t *k = state;
    int flag = 1, rc = PCOLL_SUCCESS;
    *moved = 0;
    switch (k->ph.phase) {
    case P_PACK:
        rc = pack_blocks(k);
        if (k->N == 1 && k->listen && k->plan->raise)
            pcoll__node_raise(k->shm, k->run);
        break;
    case P_LOCAL:
        if (!pcoll__node_barrier_step(k->shm, &k->waiting, 0))
            return progress_alone(k);
        if (k->N == 1) {
            int raised = pcoll__node_raised(k->shm, k->run, k->heard);
            if (k->listen)
                k->plan->raised = raised;
        }
        if ((rc = post_bundles(k)) == PCOLL_SUCCESS)
            rc = unpack_blocks(k, 1);
        break;
    case P_BUNDLES:
        if ((rc = pcoll__requests_done(k->reqs, &k->nb, k->ph.blocking, &flag, WHAT)) != PCOLL_SUCCESS || !flag)
            return rc;
        break;
    case P_REMOTE:
        /* One node: nothing came from elsewhere, and the next run packs
         * into the other copy of the parts (a rank passes its barrier only
         * once every rank has read this run's): no second barrier. */
        if (k->N == 1)
            break;
        if (!pcoll__node_barrier_step(k->shm, &k->waiting, 0))
            return progress_alone(k);
        rc = unpack_blocks(k, 0);
        break;
    case P_ALONE:
        if (k->mismatch && (rc = cancel_unsent(k)) != PCOLL_SUCCESS)
            return rc;
        if ((rc = pcoll__requests_done(k->reqs + 2 * k->N, &k->na, k->ph.blocking, &flag, WHAT)) !=
                PCOLL_SUCCESS ||
            !flag)
            return rc;
        pcoll__bigs_free(&k->bigs);
        if (k->mismatch)
            rc = pcoll__error(PCOLL_ERR_MISMATCH,
                              WHAT ": a block's size differs between its sender and receiver");
        break;
    }
    k->ph.phase++;
    *moved = 1;
    return rc;
}

static void kept_begin(void *state)
{
    kept_t *k = state;
    k->nb = k->na = 0;
    k->mismatch = 0;
    k->run++;
    k->listen = k->plan->listen;
}

static void kept_drop(void *state)
{
    pcoll__bigs_free(&((kept_t *)state)->bigs);
}

static const pcoll__phases_def_t kept_phases = {P_DONE, kept_begin, advance, kept_drop};

int pcoll__nbr_node_bind(pcoll_plan_t *plan, const pcoll__nbr_args_t *a)
{
    kept_t *k = plan->priv;
    k->a = *a;
    if (a->form != PCOLL__NBR_ALLTOALLW) {
        k->splain = pcoll__type_plain(a->sendtype, &k->ssize);
        k->rplain = pcoll__type_plain(a->recvtype, &k->rsize);
    }
    return PCOLL_SUCCESS;
}

/* ---- the plan ------------------------------------------------------------------ */

/* The node topology for per_node ranks a node (agreed first); every
 * member's block counts per node (one allgather over the node); the blocks
 * every remote rank sends to this node (one sum over the node); the
 * ordinals of this rank's blocks among its blocks to their node, sent along
 * the edges (the receivers' rord). */
static int count_blocks(pcoll_plan_t *plan, kept_t *k, const pcoll__nbr_args_t *a, int per_node)
{
    static const char *const what[] = {"pcoll_cores_per_node"};
    long long cores = per_node, *mine, *all, *ord, *rord;
    size_t N, m, i;
    int e, x, rc;
    PCOLL_CHECK(pcoll__agree(plan->comm, PCOLL_SUCCESS, &cores, what, 1, WHAT), rc, out);
    PCOLL_CHECK(pcoll__node_get(plan->ctx, per_node, &k->t), rc, out);
    k->N = k->t->nnodes, k->A = k->t->node, k->l = k->t->local;
    k->m = pcoll__node_size(k->t, k->A);
    N = (size_t)k->N, m = (size_t)k->m;
    k->count = pcoll__plan_alloc(plan, sizeof(long long) * 2 * N * m);
    k->from = pcoll__plan_alloc(plan, sizeof(int) * (size_t)k->t->p);
    k->pat = pcoll__plan_alloc(plan, sizeof(long long) * (size_t)k->t->p);
    k->read = pcoll__plan_alloc(plan, sizeof(long long) * N);
    mine = pcoll__calloc(2 * N * (m + 1) + (size_t)a->indegree + (size_t)a->outdegree + 1,
                         sizeof *mine);
    if (!k->count || !k->from || !k->pat || !k->read || !mine) {
        pcoll__free(mine);
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": counts");
    }
    all = mine + 2 * N, ord = all + 2 * N * m, rord = ord + a->outdegree;
    for (e = 0; e < a->outdegree; e++) {
        int s = pcoll__nbr_send_edge(a, e), d = a->dests[s];
        if (d != MPI_PROC_NULL)
            ord[s] = mine[k->t->node_of[d]]++;
    }
    for (e = 0; e < a->indegree; e++)
        if (a->sources[e] != MPI_PROC_NULL && k->t->node_of[a->sources[e]] != k->A)
            mine[N + (size_t)k->t->node_of[a->sources[e]]]++;
    for (e = 0; e < a->indegree; e++)
        if (a->sources[e] != MPI_PROC_NULL && k->t->node_of[a->sources[e]] != k->A)
            k->from[a->sources[e]]++;
    rc = MPI_Allgather(mine, 2 * k->N, MPI_LONG_LONG, all, 2 * k->N, MPI_LONG_LONG,
                       k->t->comm) == MPI_SUCCESS &&
                 MPI_Allreduce(MPI_IN_PLACE, k->from, k->t->p, MPI_INT, MPI_SUM,
                               k->t->comm) == MPI_SUCCESS &&
                 pcoll__nbr_exchange(plan->comm, plan->tag, a, ord, rord) == MPI_SUCCESS
             ? PCOLL_SUCCESS
             : mpi_failed("the block counts");
    for (i = 0; i < 2 * N; i++)
        for (x = 0; x < k->m; x++)
            k->count[i * m + (size_t)x] = all[(size_t)x * 2 * N + i];
    for (e = 0; e < a->outdegree; e++)
        k->sord[e] = (int)ord[e];
    for (e = 0; e < a->indegree; e++)
        k->rord[e] = (int)rord[e];
    pcoll__free(mine);
out:
    return rc;
}

long long pcoll__nbr_piece(int N, long long blocks)
{
    long long piece, node;
    blocks = blocks > 0 ? blocks : 1;
    piece = SEGMENT_MAX / blocks - HDR;
    piece = piece < PCOLL__NBR_PIECE_MAX ? piece : PCOLL__NBR_PIECE_MAX;
    piece = piece > 0 ? piece : 0;
    if (N > 1)
        return piece;
    node = pcoll__node_piece(blocks);
    return node > piece ? node : piece;
}

/* The largest block that travels in the bundles, the same on every rank
 * (pcoll__nbr_piece of the node with the most blocks). */
static int agree_piece(pcoll_plan_t *plan, kept_t *k)
{
    long long blocks = 1;
    size_t i;
    for (i = 0; i < 2 * (size_t)k->N * (size_t)k->m; i++)
        blocks += k->count[i];
    k->piece = pcoll__nbr_piece(k->N, blocks);
    return MPI_Allreduce(MPI_IN_PLACE, &k->piece, 1, MPI_LONG_LONG, MPI_MIN, plan->comm) ==
                   MPI_SUCCESS
               ? PCOLL_SUCCESS
               : mpi_failed("the piece");
}

/* Where everything lies: the parts (node by node, members in local order),
 * the used bytes, the received bundles; the gathered bundles of the nodes
 * this rank handles (private).  *bytes: the segment's. */
static int layout(pcoll_plan_t *plan, kept_t *k, size_t *bytes)
{
    size_t N = (size_t)k->N, m = (size_t)k->m;
    long long at = 0, room = 0, slot = HDR + k->piece, wire = WORD + k->piece;
    int j, x;
    k->part = pcoll__plan_alloc(plan, sizeof(long long) * N * m);
    k->rbase = pcoll__plan_alloc(plan, sizeof(long long) * 3 * N);
    if (!k->part || !k->rbase)
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": layout");
    k->rcap = k->rbase + N, k->sat = k->rcap + N;
    for (j = 0; j < k->N; j++)
        for (x = 0; x < k->m; x++) {
            *at2(k, k->part, j, x) = at;
            at += *at2(k, k->count, j, x) * slot;
        }
    if (k->N == 1) {
        k->flip = (at + 7) / 8 * 8;
        at = 2 * k->flip;
    }
    for (j = 0; j < k->N; j++) {
        long long from = 0, to = 0;
        for (x = 0; x < k->m; x++)
            from += *at2(k, k->count, k->N + j, x), to += *at2(k, k->count, j, x);
        k->rbase[j] = at;
        k->rcap[j] = j == k->A || from == 0
                         ? 0
                         : WORD * pcoll__node_size(k->t, j) + from * wire;
        at += k->rcap[j];
        k->sat[j] = -1;
        if (j != k->A && j % k->m == k->l && to > 0) {
            k->sat[j] = room;
            room += WORD * k->m + to * wire;
        }
        if (k->rcap[j] > INT_MAX || room > INT_MAX)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED, WHAT ": a bundle over INT_MAX bytes");
    }
    /* The used bytes after the rest, aligned. */
    at = (at + 7) / 8 * 8;
    k->used_at = (size_t)at;
    *bytes = k->used_at + sizeof(long long) * N * m;
    if (room > 0 && !(k->ph.own = pcoll__malloc((size_t)room)))
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": %lld bytes of bundles", room);
    return PCOLL_SUCCESS;
}

/* The plan on nodes of per_node ranks; *ok 0 (every rank alike) where a
 * node has no shared segment. */
static int plan_nodes(pcoll_plan_t *plan, kept_t *k, const pcoll__nbr_args_t *a, int per_node,
                      int *ok)
{
    size_t bytes = 0;
    int rc;
    PCOLL_CHECK(count_blocks(plan, k, a, per_node), rc, out);
    PCOLL_CHECK(agree_piece(plan, k), rc, out);
    PCOLL_CHECK(layout(plan, k, &bytes), rc, out);
    PCOLL_CHECK(pcoll__node_shm_create(plan, k->t, bytes + 1, &k->shm, ok), rc, out);
    PCOLL_CHECK(pcoll__node_shm_ready(plan->comm, k->shm, ok), rc, out);
    /* The used bytes are read by the handlers of bundles; on one node
     * there are none, and a line written by every member on every run
     * would only pass between their cores. */
    if (*ok && k->N == 1 && !(k->used = pcoll__plan_alloc(plan, sizeof(long long) * (size_t)k->m)))
        rc = pcoll__error(PCOLL_ERR_NOMEM, WHAT ": used bytes");
    else if (*ok && k->N > 1)
        k->used = (long long *)(void *)(k->shm->seg + k->used_at);
out:
    return rc;
}

int pcoll__nbr_node_keep(pcoll_plan_t *plan, const pcoll__nbr_args_t *a)
{
    size_t in = (size_t)a->indegree, out = (size_t)a->outdegree;
    int *ranks, ok = 0, rc;
    kept_t *k;
    if (!(k = plan->priv = pcoll__calloc(1, sizeof *k)))
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": state");
    plan->ops = &pcoll__phased_ops;
    k->ph.def = &kept_phases;
    k->ph.phase = P_DONE;
    k->plan = plan;
    k->comm = plan->comm;
    k->tag_bundle = plan->tag;
    k->tag_alone = pcoll__ctx_tag(plan->ctx);
    k->in = a->indegree, k->out = a->outdegree;
    ranks = pcoll__plan_alloc(plan, sizeof(int) * 2 * (in + out + 1));
    if (!ranks)
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": edges");
    memcpy(ranks, a->sources, sizeof(int) * in);
    memcpy(ranks + in, a->dests, sizeof(int) * out);
    k->sources = ranks, k->dests = ranks + in;
    k->sord = ranks + in + out, k->rord = k->sord + out;
    PCOLL_CHECK(plan_nodes(plan, k, a, a->opts.cores_per_node, &ok), rc, done);
    if (!ok) {
        /* Every rank a node of its own, in private memory. */
        pcoll__node_shm_drop(k->shm);
        pcoll__free(k->ph.own);
        k->ph.own = NULL;
        PCOLL_CHECK(plan_nodes(plan, k, a, 1, &ok), rc, done);
        if (!ok)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED, WHAT ": no memory for the blocks");
    }
    k->reqs = pcoll__plan_alloc(plan, sizeof(MPI_Request) * (2 * (size_t)k->N + in + out + 1));
    k->bigs.types = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * (in + out + 1));
    k->asrc = pcoll__plan_alloc(plan, sizeof(int) * (in + out + 1));
    k->pre = pcoll__plan_alloc(plan, in + 1);
    if (!k->reqs || !k->bigs.types || !k->asrc || !k->pre)
        rc = pcoll__error(PCOLL_ERR_NOMEM, WHAT ": requests");
done:
    return rc;
}

int pcoll__nbr_node_one(pcoll_plan_t *plan, const pcoll__nbr_args_t *a)
{
    int rc = pcoll__nbr_node_keep(plan, a);
    return rc == PCOLL_SUCCESS ? pcoll__nbr_node_bind(plan, a) : rc;
}
