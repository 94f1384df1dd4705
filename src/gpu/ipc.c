/*
 * gpu_ipc: the second way of the multicore all-to-all paper on GPU memory
 * (shared/papers/multicore-alltoall-pencil-fft.txt, section III-C, Fig. 10):
 * "bundle each node's blocks directly on the GPU through CUDA inter-process
 * memory handles with one kernel that copies from many source to many
 * destination buffers at once, send the bundles between nodes, and
 * distribute them on the target GPU with the same kernel".
 *
 * Nodes are hier's (core/node.h: physical nodes cut into virtual nodes of
 * pcoll_cores_per_node ranks).  At init every rank builds its own segment
 * lists, relative to its buffers and to the node's bundle memory: "pack"
 * (its send blocks into the bundles, blocks for its own node straight into
 * the receive bundle of its node) and "unpack" (the receive bundles into its
 * receive buffer), from pcoll's flattened type maps, so any types work; it
 * sends them and the IPC handles of its buffers to the node's leader (local
 * rank 0).  The leader opens the handles, rebases the lists onto the opened
 * buffers and its bundle memory, and keeps them on the device.
 *
 * Bundle memory of the leader of node N (k ranks; p ranks in all; b bytes a
 * block): send bundles [0, T) and receive bundles [T, 2T), T = k p b; the
 * bundle for node D at S(D) = k b (ranks of the nodes before D), block
 * (local i -> rank j of D) at S(D) + (i |D| + local(j)) b; the bundle from
 * node D at T + R(D), R(D) = k b (ranks before D), block (rank s of D ->
 * local j) at T + R(D) + (local(s) k + j) b.
 *
 * A run: node barrier (every rank's send buffer written, its receive buffer
 * free); the leader launches pack, exchanges bundles with the other leaders
 * (device pointers when the MPI is CUDA-aware, else one copy to pinned
 * memory and one back, each in at most two pieces), launches unpack; node
 * barrier (the receive buffers are complete).  The leader's part runs inside
 * pcoll_test / pcoll_wait once every rank of its node has started.
 *
 * Where some rank's buffers are host memory, or in place, or the buffers
 * have no IPC handles (memory pools, sandboxes), every rank builds
 * gpu_staged instead (staged.c), so the algorithm serves any arguments.
 */
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "core/node.h"
#include "core/pmpi.h"
#include "gpu/gpu.h"

typedef struct ipc {
    MPI_Comm node;          /* the plan's own duplicate of the node */
    int leader;
    int k;                  /* ranks of this node */
    /* Leader only. */
    void **bases;           /* [2k] opened IPC allocations to close */
    char *bundles;          /* device, 2T bytes */
    char *host;             /* pinned, 2T bytes (MPI not CUDA-aware) */
    size_t total;           /* T */
    pcoll__gpu_dsegs_t pack, unpack;
    int aware;
    int npeers;             /* other nodes */
    int *peer;              /* [npeers] their leaders */
    long long *soff, *roff, *len; /* [npeers] bundle offsets (send, receive) and bytes */
    long long own_lo, own_hi;     /* this node's receive bundle, [lo, hi) */
    MPI_Request *reqs;      /* [2 npeers] */
    /* The run. */
    MPI_Request bar;
    int phase;              /* 0: first barrier, 1: second barrier */
} ipc_t;

static void ipc_destroy(pcoll_plan_t *plan)
{
    ipc_t *s = plan->priv;
    int i;
    if (!s)
        return;
    if (s->bases)
        for (i = 0; i < 2 * s->k; i++)
            pcoll__gpu_ipc_close(s->bases[i]);
    pcoll__gpu_dsegs_free(&s->pack);
    pcoll__gpu_dsegs_free(&s->unpack);
    pcoll__gpu_dev_free(s->bundles, 2 * s->total);
    pcoll__gpu_host_free(s->host, 2 * s->total);
    s->bundles = s->host = NULL;
    pcoll__free(s->peer), pcoll__free(s->soff), pcoll__free(s->roff), pcoll__free(s->len);
    pcoll__free(s->reqs);
    s->peer = NULL, s->soff = s->roff = s->len = NULL, s->reqs = NULL;
    if (s->node != MPI_COMM_NULL)
        MPI_Comm_free(&s->node);
}

static int ipc_start(pcoll_plan_t *plan)
{
    ipc_t *s = plan->priv;
    s->phase = 0;
    if (MPI_Ibarrier(s->node, &s->bar) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: MPI_Ibarrier");
    return PCOLL_SUCCESS;
}

/* Copy [lo, hi) of the bundle memory from one side to the other, leaving
 * out this node's own receive bundle (written by pack on the device). */
static int bundle_copy(ipc_t *s, int to_host, long long lo, long long hi)
{
    long long cut[2][2] = {{lo, hi}, {0, 0}};
    int i, rc = PCOLL_SUCCESS;
    if (s->own_lo >= lo && s->own_hi <= hi) {
        cut[0][1] = s->own_lo;
        cut[1][0] = s->own_hi, cut[1][1] = hi;
    }
    for (i = 0; i < 2 && rc == PCOLL_SUCCESS; i++)
        if (cut[i][1] > cut[i][0])
            rc = to_host ? pcoll__gpu_copy(s->host + cut[i][0], s->bundles + cut[i][0],
                                           (size_t)(cut[i][1] - cut[i][0]))
                         : pcoll__gpu_copy(s->bundles + cut[i][0], s->host + cut[i][0],
                                           (size_t)(cut[i][1] - cut[i][0]));
    return rc;
}

/* The leader's part: pack, exchange, unpack (blocking). */
static int leader_run(pcoll_plan_t *plan, ipc_t *s)
{
    char *mem = s->aware ? s->bundles : s->host;
    long long T = (long long)s->total;
    int i, n = 0, rc;
    if ((rc = pcoll__gpu_dsegs_copy(&s->pack)) != PCOLL_SUCCESS)
        return rc;
    if (!s->aware && (rc = bundle_copy(s, 1, 0, T)) != PCOLL_SUCCESS)
        return rc;
    for (i = 0; i < s->npeers; i++) {
        if (MPI_Irecv(mem + T + s->roff[i], (int)s->len[i], MPI_BYTE, s->peer[i], plan->tag,
                      plan->comm, &s->reqs[n++]) != MPI_SUCCESS ||
            MPI_Isend(mem + s->soff[i], (int)s->len[i], MPI_BYTE, s->peer[i], plan->tag,
                      plan->comm, &s->reqs[n++]) != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: bundle exchange");
    }
    if (n && PCOLL__MPI(Waitall)(n, s->reqs, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: bundle exchange");
    if (!s->aware && (rc = bundle_copy(s, 0, T, 2 * T)) != PCOLL_SUCCESS)
        return rc;
    return pcoll__gpu_dsegs_copy(&s->unpack);
}

static int ipc_test(pcoll_plan_t *plan, int *done)
{
    ipc_t *s = plan->priv;
    int flag = 0, rc;
    *done = 0;
    if (PCOLL__MPI(Test)(&s->bar, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: node barrier");
    if (!flag)
        return PCOLL_SUCCESS;
    if (s->phase == 1) {
        *done = 1;
        return PCOLL_SUCCESS;
    }
    if (s->leader && (rc = leader_run(plan, s)) != PCOLL_SUCCESS)
        return rc;
    s->phase = 1;
    if (MPI_Ibarrier(s->node, &s->bar) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: MPI_Ibarrier");
    return PCOLL_SUCCESS;
}

static const pcoll__plan_ops_t ipc_ops = {
    .start = ipc_start,
    .test = ipc_test,
    .destroy = ipc_destroy,
};

/* ---- init ------------------------------------------------------------------- */

/* Bytes of bundle before node d's: b times the ranks of the nodes before d,
 * times k. */
static long long before(const pcoll__node_t *t, int d, int k, long long b)
{
    return (long long)t->first[d] * k * b;
}

/* This rank's lists, relative to its buffers and to the bundle memory. */
static int own_lists(const pcoll__a2a_args_t *a, const pcoll__node_t *t, pcoll__gpu_segs_t *pack,
                     pcoll__gpu_segs_t *unpack)
{
    pcoll__blocks_t unit = {0}, user = {0}, bund = {0};
    long long b = a->blockbytes, T = (long long)t->p * pcoll__node_size(t, t->node) * b;
    int k = pcoll__node_size(t, t->node), j, rc;
    MPI_Aint lb, ext;
    /* pack: send blocks 0..p-1 into the bundles */
    PCOLL_CHECK(pcoll__flatten(a->sendtype, &unit), rc, out);
    MPI_Type_get_extent(a->sendtype, &lb, &ext);
    PCOLL_CHECK(pcoll__blocks_place(&user, &unit, ext, 0, (long long)a->sendcount * t->p), rc,
                out);
    for (j = 0; j < t->p; j++) {
        int d = t->node_of[j];
        long long off = d == t->node
                            ? T + before(t, d, k, b) + ((long long)t->local * k + t->local_of[j]) * b
                            : before(t, d, k, b) +
                                  ((long long)t->local * pcoll__node_size(t, d) + t->local_of[j]) * b;
        PCOLL_CHECK(pcoll__blocks_push(&bund, off, 1, b, MPI_BYTE), rc, out);
    }
    PCOLL_CHECK(pcoll__gpu_segs_zip(pack, &user, 0, &bund, 0), rc, out);
    pcoll__blocks_free(&unit), pcoll__blocks_free(&user), pcoll__blocks_free(&bund);
    /* unpack: from the receive bundles into receive blocks 0..p-1 */
    PCOLL_CHECK(pcoll__flatten(a->recvtype, &unit), rc, out);
    MPI_Type_get_extent(a->recvtype, &lb, &ext);
    PCOLL_CHECK(pcoll__blocks_place(&user, &unit, ext, 0, (long long)a->recvcount * t->p), rc,
                out);
    for (j = 0; j < t->p; j++) {
        long long off = T + before(t, t->node_of[j], k, b) +
                        ((long long)t->local_of[j] * k + t->local) * b;
        PCOLL_CHECK(pcoll__blocks_push(&bund, off, 1, b, MPI_BYTE), rc, out);
    }
    rc = pcoll__gpu_segs_zip(unpack, &bund, 0, &user, 0);
out:
    pcoll__blocks_free(&unit), pcoll__blocks_free(&user), pcoll__blocks_free(&bund);
    return rc;
}

/* Gather every local rank's list l to the leader, rebased there (when rc
 * is still PCOLL_SUCCESS): the user side by user[i], the bundle side by the
 * bundle memory; into out.  Every rank takes part whatever rc is (the
 * leader receives everything even after a failure of its own). */
static int gather_list(ipc_t *s, const pcoll__gpu_segs_t *l, char *const *user, int user_is_src,
                       pcoll__gpu_segs_t *out, int rc)
{
    const long long seg = (long long)sizeof(pcoll__gpu_seg_t);
    long long n = l->n, *counts = NULL, total = 0, e;
    int *bytes = NULL, *displs = NULL, i;
    if (s->leader) {
        counts = pcoll__calloc((size_t)s->k, sizeof *counts);
        bytes = pcoll__calloc((size_t)s->k, sizeof *bytes);
        displs = pcoll__calloc((size_t)s->k, sizeof *displs);
        if (!counts || !bytes || !displs)
            return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: lists"); /* hangs the node */
    }
    MPI_Gather(&n, 1, MPI_LONG_LONG, counts, 1, MPI_LONG_LONG, 0, s->node);
    for (i = 0; s->leader && i < s->k; i++) {
        if ((total + counts[i]) * seg > INT32_MAX)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED, "alltoall gpu_ipc: segment lists too long");
        displs[i] = (int)(total * seg);
        bytes[i] = (int)(counts[i] * seg);
        total += counts[i];
    }
    if (s->leader && total && !(out->s = pcoll__malloc((size_t)(total * seg))))
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: lists"); /* hangs the node */
    out->n = out->cap = (long)total;
    MPI_Gatherv(l->s, (int)(n * seg), MPI_BYTE, out->s, bytes, displs, MPI_BYTE, 0, s->node);
    for (i = 0; s->leader && rc == PCOLL_SUCCESS && i < s->k; i++)
        for (e = displs[i] / seg; e < displs[i] / seg + counts[i]; e++) {
            long long ub = (long long)(intptr_t)user[i], bb = (long long)(intptr_t)s->bundles;
            out->s[e].src += user_is_src ? ub : bb;
            out->s[e].dst += user_is_src ? bb : ub;
        }
    pcoll__free(counts), pcoll__free(bytes), pcoll__free(displs);
    return rc;
}

/* Every rank's IPC handles to the leader, opened there (when rc is still
 * PCOLL_SUCCESS): send[i], recv[i].  Every rank takes part. */
static int open_buffers(ipc_t *s, const pcoll__a2a_args_t *a, char **send, char **recv, int rc)
{
    pcoll__gpu_ipc_t mine[2], *all = NULL;
    int i, r;
    r = pcoll__gpu_ipc_get(a->sendbuf, &mine[0]);
    if (r == PCOLL_SUCCESS)
        r = pcoll__gpu_ipc_get(a->recvbuf, &mine[1]);
    rc = rc != PCOLL_SUCCESS ? rc : r;
    if (s->leader && !(all = pcoll__calloc((size_t)s->k * 2, sizeof *all)))
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: handles"); /* hangs the node */
    MPI_Gather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, s->node);
    for (i = 0; s->leader && rc == PCOLL_SUCCESS && i < s->k; i++) {
        if (i == 0) { /* the leader's own */
            send[i] = (char *)(intptr_t)mine[0].addr, recv[i] = (char *)(intptr_t)mine[1].addr;
            continue;
        }
        rc = pcoll__gpu_ipc_open(&all[2 * i], &s->bases[2 * i], (void **)&send[i]);
        if (rc != PCOLL_SUCCESS)
            break;
        /* Send and receive buffer in one allocation: opened once. */
        if (s->bases[2 * i] &&
            memcmp(all[2 * i].handle, all[2 * i + 1].handle, sizeof all->handle) == 0) {
            recv[i] = (char *)s->bases[2 * i] + all[2 * i + 1].offset;
            continue;
        }
        rc = pcoll__gpu_ipc_open(&all[2 * i + 1], &s->bases[2 * i + 1], (void **)&recv[i]);
    }
    pcoll__free(all);
    return rc;
}

/* The leader's exchange list: one bundle each way with every other node. */
static int leader_peers(ipc_t *s, const pcoll__node_t *t, long long b)
{
    int d, n = 0;
    s->npeers = t->nnodes - 1;
    s->peer = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->peer);
    s->soff = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->soff);
    s->roff = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->roff);
    s->len = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->len);
    s->reqs = pcoll__calloc(2 * (size_t)s->npeers + 1, sizeof *s->reqs);
    if (!s->peer || !s->soff || !s->roff || !s->len || !s->reqs)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: peers");
    for (d = 0; d < t->nnodes; d++) {
        if (d == t->node)
            continue;
        s->peer[n] = t->members[t->first[d]];
        s->soff[n] = s->roff[n] = before(t, d, s->k, b);
        s->len[n] = (long long)s->k * pcoll__node_size(t, d) * b;
        if (s->len[n] > INT32_MAX)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                "alltoall gpu_ipc: a bundle of %lld bytes (int counts)", s->len[n]);
        n++;
    }
    s->own_lo = (long long)s->total + before(t, t->node, s->k, b);
    s->own_hi = s->own_lo + (long long)s->k * s->k * b;
    return PCOLL_SUCCESS;
}

/* The leader's part of init: memory, buffers, lists on the device. */
static int leader_init(pcoll_plan_t *plan, ipc_t *s, const pcoll__node_t *t, long long b,
                       const pcoll__gpu_segs_t *pack, const pcoll__gpu_segs_t *unpack,
                       const pcoll__a2a_args_t *a)
{
    pcoll__gpu_segs_t all = {0};
    char **send = NULL, **recv = NULL;
    int rc = PCOLL_SUCCESS;
    if (s->leader) {
        send = pcoll__plan_alloc(plan, sizeof *send * (size_t)s->k);
        recv = pcoll__plan_alloc(plan, sizeof *recv * (size_t)s->k);
        s->bases = pcoll__plan_alloc(plan, sizeof *s->bases * 2 * (size_t)s->k);
        if (!send || !recv || !s->bases)
            rc = pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: buffers");
        if (rc == PCOLL_SUCCESS && !(s->bundles = pcoll__gpu_dev_alloc(2 * s->total)))
            rc = pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: %zu bytes of device memory",
                              2 * s->total);
        if (rc == PCOLL_SUCCESS && !s->aware && !(s->host = pcoll__gpu_host_alloc(2 * s->total)))
            rc = pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: %zu bytes of pinned memory",
                              2 * s->total);
        if (rc == PCOLL_SUCCESS)
            rc = leader_peers(s, t, b);
    }
    /* Collective over the node from here on, whatever the leader found. */
    rc = open_buffers(s, a, send, recv, rc);
    rc = gather_list(s, pack, send, 1, &all, rc);
    if (rc == PCOLL_SUCCESS && s->leader)
        rc = pcoll__gpu_dsegs_make(&all, &s->pack);
    pcoll__gpu_segs_free(&all);
    rc = gather_list(s, unpack, recv, 0, &all, rc);
    if (rc == PCOLL_SUCCESS && s->leader)
        rc = pcoll__gpu_dsegs_make(&all, &s->unpack);
    pcoll__gpu_segs_free(&all);
    return rc;
}

int pcoll__alltoall_gpu_ipc(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = args;
    const pcoll__node_t *t = NULL;
    pcoll__gpu_segs_t pack = {0}, unpack = {0};
    ipc_t *s;
    long long b = a->blockbytes;
    int ok, all_ok = 0, rc, worst;

    /* Device buffers on every rank, not in place; else (on every rank alike)
     * gpu_staged, which serves any buffers. */
    ok = !a->inplace && (pcoll__gpu_kinds_alltoall(a, plan->size) ==
                         (PCOLL__GPU_SEND | PCOLL__GPU_RECV));
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, plan->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: agreement");
    if (!all_ok)
        return pcoll__alltoall_gpu_staged(plan, args);
    if ((rc = pcoll__node_get(plan->ctx, a->opts.cores_per_node, &t)) != PCOLL_SUCCESS)
        return rc;
    if (!(s = pcoll__plan_alloc(plan, sizeof *s)))
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: state");
    s->node = MPI_COMM_NULL;
    plan->priv = s;
    plan->ops = &ipc_ops;
    s->k = pcoll__node_size(t, t->node);
    s->leader = t->local == 0;
    s->total = (size_t)s->k * (size_t)t->p * (size_t)b;
    s->aware = pcoll__gpu_mpi_aware();
    if (MPI_Comm_dup(t->comm, &s->node) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: node communicator");
    rc = own_lists(a, t, &pack, &unpack);
    {
        int r = leader_init(plan, s, t, b, &pack, &unpack, a);
        rc = rc != PCOLL_SUCCESS ? rc : r;
    }
    pcoll__gpu_segs_free(&pack);
    pcoll__gpu_segs_free(&unpack);
    /* The same verdict everywhere (the most severe code). */
    worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, plan->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: agreement");
    if (worst == PCOLL_ERR_UNSUPPORTED) {
        /* No IPC here (a memory pool's buffers, a sandbox without IPC):
         * gpu_staged on every rank. */
        ipc_destroy(plan);
        plan->ops = NULL;
        plan->priv = NULL;
        return pcoll__alltoall_gpu_staged(plan, args);
    }
    if (worst != PCOLL_SUCCESS && rc == PCOLL_SUCCESS)
        rc = pcoll__error(worst, "alltoall gpu_ipc: init failed on another rank");
    return rc;
}
