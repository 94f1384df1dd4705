/*
 * gpu_ipc for reduce_scatter (both forms), one node: the reduction on the
 * device, with no staging through the host.  At init every rank sends the
 * IPC handle of its input vector to the node (one allgather) and opens the
 * others'; it keeps, on the device, the p addresses of its own block in the
 * p inputs.  A run: node barrier (every input written, every output free);
 * each rank launches the device reduction kernel once (gpu/reduce_kernel.cu)
 * over its block, reading the p inputs in rank order and writing its
 * receive buffer; node barrier (no rank reads an input any more).
 *
 * Cost per run: two node barriers and one launch; each rank reads its block
 * (n elements) from each of the p inputs over IPC and writes n: every input
 * byte is read once, nothing goes through the host or over MPI.  Scratch:
 * p pointers on the device.  In place: no (gpu_staged).
 *
 * The op must be a predefined one the kernel serves on the predefined type
 * (pcoll__gpu_reduce_codes; those are commutative).  Where not, or with
 * several nodes, a rank's buffers in host memory, in place, or a buffer
 * without an IPC handle: gpu_staged on every rank (decided together).
 */
#include "base/mem.h"
#include "base/pmpi.h"
#include "base/status.h"
#include "core/node.h"
#include "gpu/gpu.h"

typedef struct ipc_rs {
    pcoll__gpu_bracket_t br;
    int p;
    void **bases;      /* [p] opened allocations to close (NULL: own or none) */
    const void **in;   /* [p] this rank's block in every rank's input */
    void **din;        /* the same array on the device (NULL under the pretence) */
    void *out;
    long long n;       /* elements of this rank's block */
    int tcode, ocode;
    MPI_Datatype type;
    MPI_Op op;
} ipc_rs_t;

static const char what[] = "reduce_scatter gpu_ipc";

static void rs_destroy(pcoll_plan_t *plan)
{
    ipc_rs_t *s = plan->priv;
    int i;
    if (!s)
        return;
    for (i = 0; s->bases && i < s->p; i++)
        pcoll__gpu_ipc_close(s->bases[i]);
    pcoll__gpu_dev_free(s->din, sizeof *s->din * (size_t)s->p);
    if (s->br.node != MPI_COMM_NULL)
        MPI_Comm_free(&s->br.node);
}

static int rs_start(pcoll_plan_t *plan)
{
    ipc_rs_t *s = plan->priv;
    return pcoll__gpu_bracket_start(&s->br, what);
}

static int reduce_mine(void *arg)
{
    const ipc_rs_t *s = arg;
    return pcoll__gpu_reduce(s->tcode, s->ocode, s->type, s->op, s->out,
                             (const void *const *)s->din, s->in, s->p, s->n);
}

static int rs_test(pcoll_plan_t *plan, int *done)
{
    ipc_rs_t *s = plan->priv;
    return pcoll__gpu_bracket_test(&s->br, reduce_mine, s, what, done);
}

static const pcoll__plan_ops_t rs_ops = {
    .start = rs_start,
    .test = rs_test,
    .destroy = rs_destroy,
};

/* Every rank's input handle to every rank (one allgather, whatever rc
 * says), opened where rc is still PCOLL_SUCCESS; in[] by rank. */
static int open_inputs(pcoll_plan_t *plan, ipc_rs_t *s, const pcoll__rs_args_t *a, int rc)
{
    pcoll__gpu_ipc_t mine, *all;
    long long at = a->displs[plan->rank] * (long long)a->extent;
    int i, r = pcoll__gpu_ipc_get(a->sendbuf, &mine);
    rc = rc != PCOLL_SUCCESS ? rc : r;
    all = pcoll__calloc((size_t)s->p, sizeof *all);
    if (!all && rc == PCOLL_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_NOMEM, "%s: handles", what);
    if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all ? (void *)all : (void *)&mine,
                      all ? (int)sizeof mine : 0, MPI_BYTE, plan->comm) != MPI_SUCCESS &&
        rc == PCOLL_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "%s: handles", what);
    for (i = 0; all && i < s->p && rc == PCOLL_SUCCESS; i++) {
        void *p = NULL;
        if (i == plan->rank)
            p = (void *)(intptr_t)a->sendbuf;
        else
            rc = pcoll__gpu_ipc_open(&all[i], &s->bases[i], &p);
        s->in[i] = (const char *)p + at;
    }
    pcoll__free(all);
    return rc;
}

static int build(pcoll_plan_t *plan, ipc_rs_t *s, const pcoll__rs_args_t *a,
                 const pcoll__node_t *t)
{
    int rc = PCOLL_SUCCESS;
    s->p = plan->size;
    s->n = a->counts[plan->rank];
    s->out = a->recvbuf;
    s->type = a->type, s->op = a->op;
    pcoll__gpu_reduce_codes(a->type, a->op, &s->tcode, &s->ocode);
    if (PCOLL__MPI(Comm_dup)(t->comm, &s->br.node) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: node communicator", what);
    s->bases = pcoll__plan_alloc(plan, sizeof *s->bases * (size_t)s->p);
    s->in = pcoll__plan_alloc(plan, sizeof *s->in * (size_t)s->p);
    if (!s->bases || !s->in)
        rc = pcoll__error(PCOLL_ERR_NOMEM, "%s: inputs", what);
    rc = open_inputs(plan, s, a, rc);
    if (rc == PCOLL_SUCCESS && !pcoll__gpu_pretend) {
        size_t bytes = sizeof *s->din * (size_t)s->p;
        if (!(s->din = pcoll__gpu_dev_alloc(bytes)))
            rc = pcoll__error(PCOLL_ERR_NOMEM, "%s: %zu bytes of device memory", what, bytes);
        else
            rc = pcoll__gpu_copy(s->din, s->in, bytes);
    }
    return rc;
}

int pcoll__reduce_scatter_gpu_ipc(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    const pcoll__node_t *t = NULL;
    int kinds = pcoll__gpu_kinds_reduce_scatter(a, plan->rank), tc, oc, ok, all_ok = 0, rc;
    ipc_rs_t *s;
    /* Device input on every rank, no host buffer with data, not in place,
     * an op and type of the kernel (the same everywhere), one node. */
    ok = !a->inplace && (kinds & PCOLL__GPU_SEND) && !(kinds & PCOLL__GPU_HOST) &&
         pcoll__gpu_reduce_codes(a->type, a->op, &tc, &oc) && a->total > 0;
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, plan->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: agreement", what);
    if (all_ok && (rc = pcoll__node_get(plan->ctx, a->opts.cores_per_node, &t)) != PCOLL_SUCCESS)
        return rc;
    if (!all_ok || t->nnodes != 1)
        return pcoll__reduce_scatter_gpu_staged(plan, args);
    if (!(s = pcoll__plan_alloc(plan, sizeof *s)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: state", what); /* hangs the others */
    s->br.node = MPI_COMM_NULL;
    plan->priv = s;
    plan->ops = &rs_ops;
    rc = build(plan, s, a, t);
    return pcoll__gpu_ipc_verdict(plan, rc, rs_destroy, pcoll__reduce_scatter_gpu_staged, args);
}
