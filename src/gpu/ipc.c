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
 * (device pointers when the MPI is CUDA-aware, else one copy of the bundles
 * for other nodes to pinned memory and one of theirs back, each in at most
 * two pieces), launches unpack; node barrier (the receive buffers are
 * complete).  On one node there is nothing to exchange: the leader composes
 * pack and unpack into one list at init (user send buffers straight into
 * the receive buffers, no bundle memory), one launch a run.  The leader's
 * part runs inside pcoll_test / pcoll_wait once every rank of its node has
 * started.
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
#include "base/pmpi.h"
#include "gpu/gpu.h"

typedef struct ipc {
    pcoll__gpu_bracket_t br; /* br.node: the plan's own duplicate of the node */
    int leader;
    int k;                  /* ranks of this node */
    /* Leader only. */
    void **bases;           /* [2k] opened IPC allocations to close */
    char *bundles;          /* device, 2T bytes */
    char *host;             /* pinned, 2T bytes (MPI not CUDA-aware) */
    size_t total;           /* T: bytes of the send bundles */
    size_t rtotal;          /* bytes of the receive bundles (after them) */
    pcoll__gpu_dsegs_t pack, unpack;
    int aware;
    int npeers;             /* other nodes */
    int *peer;              /* [npeers] their leaders */
    long long *soff, *roff;       /* [npeers] bundle offsets (send; receive, past T) */
    long long *slen, *rlen;       /* [npeers] their bytes */
    long long own_lo, own_hi;     /* this node's receive bundle, [lo, hi) */
    long long own_slo, own_shi;   /* its slot among the send bundles (unused) */
    int direct;             /* one node: pack is the whole run */
    MPI_Request *reqs;      /* [2 npeers] */
    pcoll_plan_t *plan;
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
    pcoll__gpu_dev_free(s->bundles, s->total + s->rtotal);
    pcoll__gpu_host_free(s->host, s->total + s->rtotal);
    s->bundles = s->host = NULL;
    pcoll__free(s->peer), pcoll__free(s->soff), pcoll__free(s->roff);
    pcoll__free(s->slen), pcoll__free(s->rlen), pcoll__free(s->reqs);
    s->peer = NULL, s->soff = s->roff = s->slen = s->rlen = NULL, s->reqs = NULL;
    if (s->br.node != MPI_COMM_NULL)
        MPI_Comm_free(&s->br.node);
}

static int ipc_start(pcoll_plan_t *plan)
{
    ipc_t *s = plan->priv;
    return pcoll__gpu_bracket_start(&s->br, "alltoall gpu_ipc");
}

/* Copy [lo, hi) of the bundle memory from one side to the other, leaving
 * out [out_lo, out_hi): this node's own bundle, which pack writes on the
 * device (receive side) or leaves empty (send side). */
static int bundle_copy(ipc_t *s, int to_host, long long lo, long long hi, long long out_lo,
                       long long out_hi)
{
    long long cut[2][2] = {{lo, hi}, {0, 0}};
    int i, rc = PCOLL_SUCCESS;
    if (out_lo >= lo && out_hi <= hi) {
        cut[0][1] = out_lo;
        cut[1][0] = out_hi, cut[1][1] = hi;
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
    if ((rc = pcoll__gpu_dsegs_copy(&s->pack)) != PCOLL_SUCCESS || s->direct)
        return rc;
    if (!s->aware && (rc = bundle_copy(s, 1, 0, T, s->own_slo, s->own_shi)) != PCOLL_SUCCESS)
        return rc;
    for (i = 0; i < s->npeers; i++) {
        if (MPI_Irecv(mem + T + s->roff[i], (int)s->rlen[i], MPI_BYTE, s->peer[i], plan->tag,
                      plan->comm, &s->reqs[n++]) != MPI_SUCCESS ||
            MPI_Isend(mem + s->soff[i], (int)s->slen[i], MPI_BYTE, s->peer[i], plan->tag,
                      plan->comm, &s->reqs[n++]) != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: bundle exchange");
    }
    if (n && PCOLL__MPI(Waitall)(n, s->reqs, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "alltoall gpu_ipc: bundle exchange");
    if (!s->aware &&
        (rc = bundle_copy(s, 0, T, T + (long long)s->rtotal, s->own_lo, s->own_hi)) !=
            PCOLL_SUCCESS)
        return rc;
    return pcoll__gpu_dsegs_copy(&s->unpack);
}

/* Between the node barriers: the leader's part; the others wait. */
static int leader_part(void *arg)
{
    ipc_t *s = arg;
    return s->leader ? leader_run(s->plan, s) : PCOLL_SUCCESS;
}

static int ipc_test(pcoll_plan_t *plan, int *done)
{
    ipc_t *s = plan->priv;
    return pcoll__gpu_bracket_test(&s->br, leader_part, s, "alltoall gpu_ipc", done);
}

static const pcoll__plan_ops_t ipc_ops = {
    .start = ipc_start,
    .test = ipc_test,
    .destroy = ipc_destroy,
};

/* ---- init ------------------------------------------------------------------- */

/* The node's block sizes: sb[i p + j] bytes from local rank i to rank j,
 * rb[j p + r] bytes to local rank j from rank r (one allgather each). */
typedef struct sizes {
    long long *sb, *rb;
} sizes_t;

static long long bytes_of(MPI_Datatype type, MPI_Count count)
{
    int size = 0;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

static int sizes_make(const pcoll__a2a_args_t *a, const pcoll__node_t *t, MPI_Comm node, int k,
                      sizes_t *z)
{
    long long *mine = pcoll__malloc(sizeof *mine * 2 * (size_t)t->p);
    int j;
    z->sb = pcoll__malloc(sizeof *z->sb * (size_t)k * (size_t)t->p);
    z->rb = pcoll__malloc(sizeof *z->rb * (size_t)k * (size_t)t->p);
    if (!mine || !z->sb || !z->rb) {
        pcoll__free(mine);
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: sizes"); /* hangs the node */
    }
    for (j = 0; j < t->p; j++) {
        mine[j] = bytes_of(a->sendtype, pcoll__a2a_scount(a, j));
        mine[t->p + j] = bytes_of(a->recvtype, pcoll__a2a_rcount(a, j));
    }
    MPI_Allgather(mine, t->p, MPI_LONG_LONG, z->sb, t->p, MPI_LONG_LONG, node);
    MPI_Allgather(mine + t->p, t->p, MPI_LONG_LONG, z->rb, t->p, MPI_LONG_LONG, node);
    pcoll__free(mine);
    return PCOLL_SUCCESS;
}

static void sizes_free(sizes_t *z)
{
    pcoll__free(z->sb), pcoll__free(z->rb);
    z->sb = z->rb = NULL;
}

/* Where the block of local rank i to rank j lies in the send bundles (j on
 * another node), in type order: the bundles by destination node, each by
 * sender i then destination j. */
static long long send_off(const pcoll__node_t *t, const sizes_t *z, int k, int i, int j)
{
    int d = t->node_of[j], q, r, m;
    long long off = 0;
    for (q = 0; q < t->nnodes; q++) /* bundles before d's */
        for (r = 0; q < d && r < k; r++)
            for (m = t->first[q]; m < t->first[q + 1]; m++)
                off += z->sb[(long long)r * t->p + t->members[m]];
    for (r = 0; r < i; r++) /* senders before i */
        for (m = t->first[d]; m < t->first[d + 1]; m++)
            off += z->sb[(long long)r * t->p + t->members[m]];
    for (m = t->first[d]; t->members[m] != j; m++)
        off += z->sb[(long long)i * t->p + t->members[m]];
    return off;
}

/* Where the block of rank r to local rank j lies in the receive bundles:
 * by source node, each by sender r then receiver j. */
static long long recv_off(const pcoll__node_t *t, const sizes_t *z, int k, int r, int j)
{
    int q = t->node_of[r], m, x;
    long long off = 0;
    for (m = 0; m < t->first[q]; m++) /* senders of the nodes before q */
        for (x = 0; x < k; x++)
            off += z->rb[(long long)x * t->p + t->members[m]];
    for (m = t->first[q]; t->members[m] != r; m++)
        for (x = 0; x < k; x++)
            off += z->rb[(long long)x * t->p + t->members[m]];
    for (x = 0; x < j; x++)
        off += z->rb[(long long)x * t->p + r];
    return off;
}

/* The items of count items of type at byte disp, appended. */
static int place(pcoll__blocks_t *out, MPI_Datatype type, MPI_Aint disp, MPI_Count count)
{
    pcoll__blocks_t unit = {0};
    MPI_Aint lb, ext;
    int rc;
    if (count <= 0)
        return PCOLL_SUCCESS;
    MPI_Type_get_extent(type, &lb, &ext);
    rc = pcoll__flatten(type, &unit);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__blocks_place(out, &unit, ext, disp, count);
    pcoll__blocks_free(&unit);
    return rc;
}

/* This rank's lists, relative to its buffers and to the bundle memory (the
 * receive bundles at T). */
static int own_lists(const pcoll__a2a_args_t *a, const pcoll__node_t *t, const sizes_t *z, int k,
                     long long T, pcoll__gpu_segs_t *pack, pcoll__gpu_segs_t *unpack)
{
    pcoll__blocks_t user = {0}, bund = {0};
    int me = t->members[t->first[t->node] + t->local], j, rc = PCOLL_SUCCESS;
    /* pack: send blocks 0..p-1 into the bundles (own node: the receive bundle) */
    for (j = 0; j < t->p && rc == PCOLL_SUCCESS; j++) {
        long long n = z->sb[(long long)t->local * t->p + j];
        long long off = t->node_of[j] == t->node ? T + recv_off(t, z, k, me, t->local_of[j])
                                                 : send_off(t, z, k, t->local, j);
        rc = place(&user, a->sendtype, a->sdispls ? a->sdispls[j] * a->sext : j * a->sblock,
                   pcoll__a2a_scount(a, j));
        if (rc == PCOLL_SUCCESS && n)
            rc = pcoll__blocks_push(&bund, (MPI_Aint)off, 1, n, MPI_BYTE);
    }
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__gpu_segs_zip(pack, &user, 0, &bund, 0);
    pcoll__blocks_free(&user), pcoll__blocks_free(&bund);
    /* unpack: the receive bundles into receive blocks 0..p-1 */
    for (j = 0; j < t->p && rc == PCOLL_SUCCESS; j++) {
        long long n = z->rb[(long long)t->local * t->p + j];
        rc = place(&user, a->recvtype, a->rdispls ? a->rdispls[j] * a->rext : j * a->rblock,
                   pcoll__a2a_rcount(a, j));
        if (rc == PCOLL_SUCCESS && n)
            rc = pcoll__blocks_push(&bund, (MPI_Aint)(T + recv_off(t, z, k, j, t->local)), 1, n,
                                    MPI_BYTE);
    }
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__gpu_segs_zip(unpack, &bund, 0, &user, 0);
    pcoll__blocks_free(&user), pcoll__blocks_free(&bund);
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
    MPI_Gather(&n, 1, MPI_LONG_LONG, counts, 1, MPI_LONG_LONG, 0, s->br.node);
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
    MPI_Gatherv(l->s, (int)(n * seg), MPI_BYTE, out->s, bytes, displs, MPI_BYTE, 0,
                s->br.node);
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
    MPI_Gather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               s->br.node);
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

/* The leader's exchange list: one bundle each way with every other node
 * (bytes and offsets in the orders of send_off and recv_off). */
static int leader_peers(ipc_t *s, const pcoll__node_t *t, const sizes_t *z)
{
    long long so = 0, ro = 0;
    int d, n = 0, m, x;
    s->npeers = t->nnodes - 1;
    s->peer = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->peer);
    s->soff = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->soff);
    s->roff = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->roff);
    s->slen = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->slen);
    s->rlen = pcoll__calloc((size_t)s->npeers + 1, sizeof *s->rlen);
    s->reqs = pcoll__calloc(2 * (size_t)s->npeers + 1, sizeof *s->reqs);
    if (!s->peer || !s->soff || !s->roff || !s->slen || !s->rlen || !s->reqs)
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoall gpu_ipc: peers");
    for (d = 0; d < t->nnodes; d++) {
        long long sl = 0, rl = 0;
        for (m = t->first[d]; m < t->first[d + 1]; m++)
            for (x = 0; x < s->k; x++) {
                sl += z->sb[(long long)x * t->p + t->members[m]];
                rl += z->rb[(long long)x * t->p + t->members[m]];
            }
        if (d == t->node) {
            s->own_lo = (long long)s->total + ro;
            s->own_hi = s->own_lo + rl;
            s->own_slo = so, s->own_shi = so + sl;
        } else {
            s->peer[n] = t->members[t->first[d]];
            s->soff[n] = so, s->roff[n] = ro;
            s->slen[n] = sl, s->rlen[n] = rl;
            if (sl > INT32_MAX || rl > INT32_MAX)
                return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                    "%s gpu_ipc: a bundle of more than 2 GiB (int counts)",
                                    "alltoall");
            n++;
        }
        so += sl, ro += rl;
    }
    return PCOLL_SUCCESS;
}

/* The leader's part of init: memory, buffers, lists on the device. */
static int leader_init(pcoll_plan_t *plan, ipc_t *s, const pcoll__node_t *t, const sizes_t *z,
                       const pcoll__gpu_segs_t *pack, const pcoll__gpu_segs_t *unpack,
                       const pcoll__a2a_args_t *a)
{
    pcoll__gpu_segs_t all = {0}, all_pack = {0}, direct = {0};
    char **send = NULL, **recv = NULL;
    size_t bytes = s->total + s->rtotal;
    int rc = PCOLL_SUCCESS;
    if (s->leader) {
        send = pcoll__plan_alloc(plan, sizeof *send * (size_t)s->k);
        recv = pcoll__plan_alloc(plan, sizeof *recv * (size_t)s->k);
        s->bases = pcoll__plan_alloc(plan, sizeof *s->bases * 2 * (size_t)s->k);
        if (!send || !recv || !s->bases)
            rc = pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_ipc: buffers", plan->collective);
        if (rc == PCOLL_SUCCESS && !s->direct && !(s->bundles = pcoll__gpu_dev_alloc(bytes)))
            rc = pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_ipc: %zu bytes of device memory",
                              plan->collective, bytes);
        if (rc == PCOLL_SUCCESS && !s->direct && !s->aware &&
            !(s->host = pcoll__gpu_host_alloc(bytes)))
            rc = pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_ipc: %zu bytes of pinned memory",
                              plan->collective, bytes);
        if (rc == PCOLL_SUCCESS)
            rc = leader_peers(s, t, z);
    }
    /* Collective over the node from here on, whatever the leader found. */
    rc = open_buffers(s, a, send, recv, rc);
    rc = gather_list(s, pack, send, 1, &all_pack, rc);
    rc = gather_list(s, unpack, recv, 0, &all, rc);
    /* One node: the bundle side of both lists is offsets (no bundle
     * memory); pack then unpack becomes one list, user to user. */
    if (rc == PCOLL_SUCCESS && s->leader && s->direct)
        rc = pcoll__gpu_segs_compose(&direct, &all_pack, &all);
    if (rc == PCOLL_SUCCESS && s->leader)
        rc = pcoll__gpu_dsegs_make(s->direct ? &direct : &all_pack, &s->pack);
    if (rc == PCOLL_SUCCESS && s->leader && !s->direct)
        rc = pcoll__gpu_dsegs_make(&all, &s->unpack);
    pcoll__gpu_segs_free(&all_pack);
    pcoll__gpu_segs_free(&all);
    pcoll__gpu_segs_free(&direct);
    return rc;
}

/* Both collectives: a holds the buffers, counts and types; staged is the
 * collective's gpu_staged builder (args: the collective's own). */
static int ipc_build(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, const void *args,
                     int (*staged)(pcoll_plan_t *plan, const void *args))
{
    const pcoll__node_t *t = NULL;
    pcoll__gpu_segs_t pack = {0}, unpack = {0};
    sizes_t z = {NULL, NULL};
    ipc_t *s;
    long long T = 0, R = 0, e;
    int ok, all_ok = 0, rc;

    /* Device buffers on every rank, not in place; else (on every rank alike)
     * gpu_staged, which serves any buffers. */
    ok = !a->inplace && (pcoll__gpu_kinds_alltoall(a, plan->size) ==
                         (PCOLL__GPU_SEND | PCOLL__GPU_RECV));
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, plan->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s gpu_ipc: agreement", plan->collective);
    if (!all_ok)
        return staged(plan, args);
    if ((rc = pcoll__node_get(plan->ctx, a->opts.cores_per_node, &t)) != PCOLL_SUCCESS)
        return rc;
    if (!(s = pcoll__plan_alloc(plan, sizeof *s)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s gpu_ipc: state", plan->collective);
    s->br.node = MPI_COMM_NULL;
    s->plan = plan;
    plan->priv = s;
    plan->ops = &ipc_ops;
    s->k = pcoll__node_size(t, t->node);
    s->leader = t->local == 0;
    s->aware = pcoll__gpu_mpi_aware();
    s->direct = t->nnodes == 1;
    if (PCOLL__MPI(Comm_dup)(t->comm, &s->br.node) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s gpu_ipc: node communicator", plan->collective);
    if ((rc = sizes_make(a, t, s->br.node, s->k, &z)) != PCOLL_SUCCESS)
        return rc;
    for (e = 0; e < (long long)s->k * t->p; e++)
        T += z.sb[e], R += z.rb[e];
    s->total = (size_t)T, s->rtotal = (size_t)R;
    rc = own_lists(a, t, &z, s->k, T, &pack, &unpack);
    {
        int r = leader_init(plan, s, t, &z, &pack, &unpack, a);
        rc = rc != PCOLL_SUCCESS ? rc : r;
    }
    sizes_free(&z);
    pcoll__gpu_segs_free(&pack);
    pcoll__gpu_segs_free(&unpack);
    /* The same verdict everywhere (bundles past int counts: staged too). */
    return pcoll__gpu_ipc_verdict(plan, rc, ipc_destroy, staged, args);
}

int pcoll__alltoall_gpu_ipc(pcoll_plan_t *plan, const void *args)
{
    return ipc_build(plan, args, args, pcoll__alltoall_gpu_staged);
}

int pcoll__alltoallv_gpu_ipc(pcoll_plan_t *plan, const void *args)
{
    return ipc_build(plan, &((const pcoll__a2av_args_t *)args)->a, args,
                     pcoll__alltoallv_gpu_staged);
}
