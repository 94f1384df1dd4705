/*
 * Device buffers in the automatic choice (docs/gpu.md): when some rank's
 * buffers are device memory, never a host algorithm on them but a GPU
 * algorithm (gpu_staged) that runs the host choice on host copies.
 */
#include <string.h>

#include "gpu/gpu.h"
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

int pcoll__select_gpu_ipc(const pcoll__algo_table_t *t, const pcoll__a2a_args_t *a, long long bytes,
                          int requested, int algo, int device)
{
    int ipc = pcoll__algo_find(t, "gpu_ipc");
    if (ipc < 0 || !pcoll__algo_is_auto(t, requested) || a->inplace ||
        bytes < PCOLL__GPU_IPC_MIN || device != (PCOLL__GPU_SEND | PCOLL__GPU_RECV) ||
        pcoll__gpu_pretend || pcoll__gpu_count() == 0)
        return algo;
    return ipc;
}
