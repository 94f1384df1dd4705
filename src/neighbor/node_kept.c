/*
 * neighbor `node` kept by a one-shot shape (api/entry.c "Shapes"): the
 * bundles of `node` (node.c) laid out once, at the call that decided the
 * shape, for that call's block sizes, and every later call's counts,
 * displacements, types and buffers bound to a run (pcoll__nbr_node_bind).
 *
 * Every block has a flag byte before it in the segment (node.h, flag 1).  A
 * sender whose block on an edge has the bytes the layout was made for
 * writes it into its place and clears the flag; a block of other bytes
 * travels alone, a message from the sender's buffer to the receiver's on a
 * tag of its own, and its flag says so.  The receiver reads the flag, not
 * its own count: a receiver whose size of the edge differs from its
 * sender's (an erroneous call) gets PCOLL_ERR_MISMATCH for that run, and no
 * rank waits for a message that never comes.  Blocks sent alone between two
 * ranks are posted by the sender in send order and by the receiver in
 * receive order of the flagged edges, so repeated edges match as MPI
 * matches them.
 *
 * A run, on node A (as node.c, with the flags):
 *   0. every block into the segment, or started alone; node barrier;
 *   1. the bundles between nodes (the same ranks as node.c's); the blocks
 *      from the own node out of the segment, or their receives started;
 *   2. the bundles done; node barrier;
 *   3. the blocks from other nodes out of the segment, or their receives
 *      started; every message sent alone done.
 * The bundles keep the layout's sizes whatever the call moves: calls whose
 * sizes drift from the deciding call's send more alone, until the shape is
 * decided again (its volume, entry.c).
 *
 * Cost: node.c's (two node barriers, one message per pair of nodes) plus
 * one byte per block, and one message per block whose size changed.
 * Without a shared segment on some node every rank is a node of its own
 * (private memory, no barrier).
 */
#include <limits.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "core/pmpi.h"
#include "datatype/pack.h"
#include "datatype/size.h"
#include "neighbor/node.h"

#define WHAT "neighbor node"

enum { P_PACK, P_LOCAL, P_BUNDLES, P_REMOTE, P_ALONE, P_DONE };

/* A block that is in its place in the segment, or travels alone. */
enum { BLOCK_HERE = 0, BLOCK_ALONE = 1 };

typedef struct kept {
    pcoll__phased_t ph;       /* first: the run's phase (core/plan.h) */
    pcoll__nbr_layout_t l;
    pcoll__node_shm_t *shm;
    MPI_Comm comm;            /* the plan's */
    int tag_bundle, tag_alone;
    int in, out, N;
    int *sources, *dests;     /* the plan's copies */
    long long *sbytes, *rbytes; /* per edge: the block's bytes in the layout */
    pcoll__nbr_args_t a;      /* this run's arguments */
    int splain, rplain;       /* alltoall(v): the send / receive items are plain bytes */
    MPI_Request *reqs;        /* bundles from 0 (nb), blocks alone from 2N (na) */
    int nb, na;
    pcoll__bigs_t bigs;
    int waiting;
    int mismatch;             /* a block's flag and this rank's size disagree */
} kept_t;

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

/* Step 0: every block into its place, or started alone (in send order). */
static int pack_blocks(kept_t *k)
{
    const pcoll__nbr_args_t *a = &k->a;
    int i, rc = PCOLL_SUCCESS;
    for (i = 0; i < k->out && rc == PCOLL_SUCCESS; i++) {
        int e = pcoll__nbr_send_edge(a, i), n;
        MPI_Datatype type = pcoll__nbr_stype(a, e);
        long long b = pcoll__nbr_bytes(a->scounts[e], type);
        const void *buf = pcoll__addr(a->sendbuf, a->sdispls[e] * a->sext);
        char *slot;
        if (k->l.soff[e] < 0)
            continue;
        slot = k->shm->seg + k->l.soff[e];
        if (b == k->sbytes[e]) {
            *slot = BLOCK_HERE;
            if (b > 0)
                rc = pcoll__pack_items(buf, a->scounts[e], type, plain(k, 1, type), slot + 1, b,
                                       k->comm, WHAT);
            continue;
        }
        *slot = BLOCK_ALONE;
        if ((rc = pcoll__bigs_items(&k->bigs, a->scounts[e], &type, &n)) == PCOLL_SUCCESS &&
            MPI_Isend(buf, n, type, k->dests[e], k->tag_alone, k->comm,
                      &k->reqs[2 * k->N + k->na++]) != MPI_SUCCESS)
            rc = mpi_failed("MPI_Isend");
    }
    return rc;
}

/* Steps 1 and 3: the blocks from the own node (local 1) or from the
 * others out of the segment, or their receives started (receive order). */
static int unpack_blocks(kept_t *k, int local)
{
    const pcoll__nbr_args_t *a = &k->a;
    int e, rc = PCOLL_SUCCESS;
    for (e = 0; e < k->in && rc == PCOLL_SUCCESS; e++) {
        MPI_Datatype type = pcoll__nbr_rtype(a, e);
        long long b = pcoll__nbr_bytes(a->rcounts[e], type);
        void *buf = pcoll__addr(a->recvbuf, a->rdispls[e] * a->rext);
        const char *slot;
        int n;
        if (k->l.roff[e] < 0 || pcoll__nbr_node_remote(&k->l, k->sources[e]) == local)
            continue;
        slot = k->shm->seg + k->l.roff[e];
        if (*slot == BLOCK_ALONE) {
            if ((rc = pcoll__bigs_items(&k->bigs, a->rcounts[e], &type, &n)) == PCOLL_SUCCESS &&
                MPI_Irecv(buf, n, type, k->sources[e], k->tag_alone, k->comm,
                          &k->reqs[2 * k->N + k->na++]) != MPI_SUCCESS)
                rc = mpi_failed("MPI_Irecv");
        } else if (b != k->rbytes[e]) {
            k->mismatch = 1;
        } else if (b > 0) {
            rc = pcoll__unpack_items(slot + 1, b, buf, a->rcounts[e], type, plain(k, 0, type),
                                     k->comm, WHAT);
        }
    }
    return rc;
}

/* Step 1: the bundles this rank handles (node.c's step_bundles), receives
 * first. */
static int post_bundles(kept_t *k)
{
    const pcoll__node_t *t = k->l.t;
    int n = pcoll__node_size(t, t->node), j, d, err = MPI_SUCCESS;
    for (d = 0; d < 2; d++)
        for (j = 0; j < k->N && err == MPI_SUCCESS; j++) {
            const long long *base = d ? k->l.sbase : k->l.rbase;
            char *at = k->shm->seg + base[j];
            int bytes = (int)(base[j + 1] - base[j]), peer = pcoll__nbr_node_partner(t, j);
            if (j == t->node || j % n != t->local || bytes == 0)
                continue;
            err = d ? MPI_Isend(at, bytes, MPI_BYTE, peer, k->tag_bundle, k->comm,
                                &k->reqs[k->nb++])
                    : MPI_Irecv(at, bytes, MPI_BYTE, peer, k->tag_bundle, k->comm,
                                &k->reqs[k->nb++]);
        }
    return err == MPI_SUCCESS ? PCOLL_SUCCESS : mpi_failed("a bundle");
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
        break;
    case P_LOCAL:
        if (!pcoll__node_barrier_step(k->shm, &k->waiting, 0))
            return PCOLL_SUCCESS;
        if ((rc = post_bundles(k)) == PCOLL_SUCCESS)
            rc = unpack_blocks(k, 1);
        break;
    case P_BUNDLES:
        if ((rc = pcoll__requests_done(k->reqs, &k->nb, &flag, WHAT)) != PCOLL_SUCCESS || !flag)
            return rc;
        break;
    case P_REMOTE:
        if (!pcoll__node_barrier_step(k->shm, &k->waiting, 0))
            return PCOLL_SUCCESS;
        rc = unpack_blocks(k, 0);
        break;
    case P_ALONE:
        if ((rc = pcoll__requests_done(k->reqs + 2 * k->N, &k->na, &flag, WHAT)) !=
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
}

static void kept_drop(void *state)
{
    pcoll__bigs_free(&((kept_t *)state)->bigs);
}

static const pcoll__phases_def_t kept_phases = {P_DONE, kept_begin, advance, kept_drop,
                                                pcoll__free};

int pcoll__nbr_node_bind(pcoll_plan_t *plan, const pcoll__nbr_args_t *a)
{
    kept_t *k = plan->priv;
    MPI_Count size;
    k->a = *a;
    if (a->form != PCOLL__NBR_ALLTOALLW) {
        k->splain = pcoll__type_plain(a->sendtype, &size);
        k->rplain = pcoll__type_plain(a->recvtype, &size);
    }
    return PCOLL_SUCCESS;
}

/* The plan's copies of the neighbours and of the layout's block sizes. */
static int keep_edges(pcoll_plan_t *plan, kept_t *k, const pcoll__nbr_args_t *a)
{
    size_t in = (size_t)a->indegree, out = (size_t)a->outdegree;
    int e;
    k->in = a->indegree, k->out = a->outdegree, k->N = k->l.t->nnodes;
    k->sources = pcoll__plan_alloc(plan, sizeof(int) * (in + out + 1));
    k->sbytes = pcoll__plan_alloc(plan, sizeof(long long) * (in + out + 1));
    k->reqs = pcoll__plan_alloc(plan, sizeof(MPI_Request) * (2 * (size_t)k->N + in + out + 1));
    k->bigs.types = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * (in + out + 1));
    if (!k->sources || !k->sbytes || !k->reqs || !k->bigs.types)
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": edges");
    k->dests = k->sources + in, k->rbytes = k->sbytes + out;
    memcpy(k->sources, a->sources, sizeof(int) * in);
    memcpy(k->dests, a->dests, sizeof(int) * out);
    for (e = 0; e < k->out; e++)
        k->sbytes[e] = pcoll__nbr_bytes(a->scounts[e], pcoll__nbr_stype(a, e));
    for (e = 0; e < k->in; e++)
        k->rbytes[e] = pcoll__nbr_bytes(a->rcounts[e], pcoll__nbr_rtype(a, e));
    return PCOLL_SUCCESS;
}

int pcoll__nbr_node_keep(pcoll_plan_t *plan, const pcoll__nbr_args_t *a)
{
    kept_t *k;
    int ok = 0, rc;
    if (!(k = plan->priv = pcoll__calloc(1, sizeof *k)))
        return pcoll__error(PCOLL_ERR_NOMEM, WHAT ": state");
    plan->ops = &pcoll__phased_ops;
    k->ph.def = &kept_phases;
    k->ph.phase = P_DONE;
    k->comm = plan->comm;
    k->tag_bundle = plan->tag;
    k->tag_alone = pcoll__ctx_tag(plan->ctx);
    k->l.flag = 1;
    PCOLL_CHECK(pcoll__nbr_node_layout(plan, a, a->opts.cores_per_node, &k->l, &k->shm, &ok), rc,
                out);
    if (!ok) {
        /* Every rank a node of its own, in private memory. */
        pcoll__node_shm_drop(k->shm);
        memset(&k->l, 0, sizeof k->l);
        k->l.flag = 1;
        PCOLL_CHECK(pcoll__nbr_node_layout(plan, a, 1, &k->l, &k->shm, &ok), rc, out);
        if (!ok)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED, WHAT ": no memory for the blocks");
    }
    rc = keep_edges(plan, k, a);
out:
    return rc;
}
