/*
 * Device buffers in the automatic choice (docs/gpu.md): when some rank's
 * buffers are device memory, never a host algorithm on them but a GPU
 * algorithm (gpu_staged) that runs the host choice on host copies.
 */
#include <string.h>

#include "gpu/gpu.h"
#include "hier/hier.h"
#include "select/select.h"

static int is_gpu(const pcoll__algo_table_t *t, int i)
{
    return i >= 0 && i < t->count && strncmp(t->algos[i].name, "gpu_", 4) == 0;
}

int pcoll__select_gpu_host(const pcoll__algo_table_t *t, const pcoll__opts_t *opts)
{
    if (!pcoll__algo_is_auto(t, opts->algorithm) && !is_gpu(t, opts->algorithm))
        return opts->algorithm;
    if (!pcoll__algo_is_auto(t, opts->gpu_host_algorithm) &&
        !is_gpu(t, opts->gpu_host_algorithm))
        return opts->gpu_host_algorithm;
    return -1;
}

int pcoll__select_gpu(const pcoll__algo_table_t *t, int requested, int host, int device,
                      pcoll__opts_t *opts)
{
    int staged = pcoll__algo_find(t, "gpu_staged");
    opts->gpu_child = NULL;
    /* A tuning rule may name a GPU algorithm: the MPI's own runs under it. */
    if (is_gpu(t, host)) {
        if (!is_gpu(t, requested))
            requested = host;
        host = pcoll__algo_find(t, "native");
    }
    device &= PCOLL__GPU_SEND | PCOLL__GPU_RECV;
    if (staged < 0 || host < 0 || (!device && !is_gpu(t, requested)))
        return host;
    opts->gpu_child = &t->algos[host];
    return is_gpu(t, requested) ? requested : staged;
}

int pcoll__select_gpu_ipc(pcoll__ctx_t *ctx, const pcoll__algo_table_t *t, pcoll__opts_t *opts,
                          int inplace, long long bytes, int requested, int algo, int device)
{
    int ipc = pcoll__algo_find(t, "gpu_ipc"), native = pcoll__algo_find(t, "native");
    int scattered = pcoll__algo_find(t, "scattered");
    const pcoll__node_t *nodes;
    int physical;
    if (!pcoll__algo_is_auto(t, requested) || !(device & (PCOLL__GPU_SEND | PCOLL__GPU_RECV)))
        return algo;
    /* The host choice under gpu_staged: a persistent native runs the MPI's
     * persistent collective, which measured slower than the blocking call
     * on staged copies (MPICH 5.0.2, p = 16, 2 KiB blocks: 0.66x); scattered
     * measured at least as fast as that call at every size and p measured. */
    if (opts->gpu_child && native >= 0 && scattered >= 0 && opts->gpu_child == &t->algos[native] &&
        pcoll__algo_is_auto(t, opts->gpu_host_algorithm))
        opts->gpu_child = &t->algos[scattered];
    /* The same on every rank first (nodes is collective), then local facts. */
    if (ipc < 0 || inplace || device != (PCOLL__GPU_SEND | PCOLL__GPU_RECV) || bytes <= 0)
        return algo;
    /* One node only (there gpu_ipc measured faster at every size from 8 B,
     * p = 2 to 16); across nodes the leaders' bundles go through the MPI
     * (host copies where it is not CUDA-aware) and the host choice on every
     * rank's staged copies measured faster from 64 KiB (docs/gpu.md,
     * Results).  Virtual nodes (pcoll_cores_per_node) inside one physical
     * node: the whole node shares its device memory through IPC handles,
     * so auto plans gpu_ipc on the physical node (an explicit gpu_ipc keeps
     * the virtual nodes: their bundles travel as between real nodes). */
    if (pcoll__hier_nodes(ctx, opts, &nodes) != PCOLL_SUCCESS)
        return algo;
    physical = nodes->nnodes != 1 && opts->cores_per_node > 0;
    if (physical && pcoll__node_get(ctx, 0, &nodes) != PCOLL_SUCCESS)
        return algo;
    if (nodes->nnodes != 1)
        return algo;
    if (pcoll__gpu_pretend || pcoll__gpu_count() == 0)
        return algo;
    if (physical)
        opts->cores_per_node = 0;
    return ipc;
}
