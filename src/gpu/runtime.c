/*
 * The CUDA runtime as pcoll uses it (gpu.h): device count, memory kinds,
 * the agreement on them, pinned host memory, copies, device segment lists.
 * Without PCOLL_HAVE_CUDA every answer is "host" and nothing is called.
 * The runtime is linked statically (CUDA::cudart_static), so with no driver
 * or no GPU cudaGetDeviceCount fails or says 0 and the library runs its
 * host paths.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "gpu/gpu.h"

#ifdef PCOLL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

int pcoll__gpu_pretend;

/* -1: not asked yet.  Racing first calls ask twice and store the same. */
static atomic_int device_count = -1;

int pcoll__gpu_count(void)
{
    int n = atomic_load_explicit(&device_count, memory_order_acquire);
    if (n >= 0)
        return n;
    n = 0;
#ifdef PCOLL_HAVE_CUDA
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 0) {
        n = 0;
        (void)cudaGetLastError(); /* clear the sticky-free error for later calls */
    }
#endif
    atomic_store_explicit(&device_count, n, memory_order_release);
    return n;
}

int pcoll__gpu_is_device(const void *p)
{
    if (pcoll__gpu_pretend)
        return (pcoll__gpu_pretend & 1) && p != NULL;
#ifdef PCOLL_HAVE_CUDA
    struct cudaPointerAttributes attr;
    if (!p || pcoll__gpu_count() == 0)
        return 0;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeDevice;
#else
    (void)p;
    return 0;
#endif
}

int pcoll__gpu_agree(MPI_Comm comm, int local, int *all)
{
#ifndef PCOLL_HAVE_CUDA
    /* Without CUDA only a test's pretence makes device buffers; the test
     * sets it (1 or 2) on every rank. */
    if (!pcoll__gpu_pretend) {
        (void)comm;
        *all = local;
        return PCOLL_SUCCESS;
    }
#endif
    if (MPI_Allreduce(&local, all, 1, MPI_INT, MPI_BOR, comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "device buffers: MPI_Allreduce of the memory kinds");
    return PCOLL_SUCCESS;
}

void *pcoll__gpu_host_alloc(size_t bytes)
{
#ifdef PCOLL_HAVE_CUDA
    void *p = NULL;
    if (bytes && pcoll__gpu_count() > 0) {
        if (cudaMallocHost(&p, bytes) != cudaSuccess) {
            (void)cudaGetLastError();
            return NULL;
        }
        pcoll__mem_note((long long)bytes);
        return p;
    }
#endif
    return pcoll__malloc(bytes);
}

void pcoll__gpu_host_free(void *p, size_t bytes)
{
    if (!p)
        return;
#ifdef PCOLL_HAVE_CUDA
    if (pcoll__gpu_count() > 0) {
        cudaFreeHost(p);
        pcoll__mem_note(-(long long)bytes);
        return;
    }
#endif
    (void)bytes;
    pcoll__free(p);
}

int pcoll__gpu_copy(void *dst, const void *src, size_t bytes)
{
    if (!bytes || dst == src)
        return PCOLL_SUCCESS;
#ifdef PCOLL_HAVE_CUDA
    if (pcoll__gpu_count() > 0) {
        cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return pcoll__error(PCOLL_ERR_INTERNAL, "device buffers: cudaMemcpy of %zu bytes: %s",
                                bytes, cudaGetErrorString(e));
        }
        return PCOLL_SUCCESS;
    }
#endif
    memcpy(dst, src, bytes);
    return PCOLL_SUCCESS;
}

void *pcoll__gpu_dev_alloc(size_t bytes)
{
#ifdef PCOLL_HAVE_CUDA
    void *p = NULL;
    if (!pcoll__gpu_pretend && pcoll__gpu_count() > 0) {
        if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
            (void)cudaGetLastError();
            return NULL;
        }
        pcoll__mem_note((long long)bytes);
        return p;
    }
#endif
    return pcoll__malloc(bytes ? bytes : 1);
}

void pcoll__gpu_dev_free(void *p, size_t bytes)
{
    if (!p)
        return;
#ifdef PCOLL_HAVE_CUDA
    if (!pcoll__gpu_pretend && pcoll__gpu_count() > 0) {
        cudaFree(p);
        pcoll__mem_note(-(long long)bytes);
        return;
    }
#endif
    (void)bytes;
    pcoll__free(p);
}

int pcoll__gpu_mpi_aware(void)
{
    int yes = 0;
    if (pcoll__gpu_pretend)
        return 0;
#if defined(PCOLL_HAVE_CUDA) && defined(MPIX_GPU_SUPPORT_CUDA) && !defined(SMPI_H)
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) != MPI_SUCCESS)
        yes = 0;
#elif defined(PCOLL_HAVE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    yes = MPIX_Query_cuda_support();
#endif
    return yes == 1;
}

#ifdef PCOLL_HAVE_CUDA
/* cuMemGetAddressRange through the runtime (no link to the driver library,
 * which a machine without a GPU lacks). */
typedef int (*range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);

static int alloc_base(const void *p, unsigned long long *base)
{
    static range_fn fn;
    enum cudaDriverEntryPointQueryResult status;
    size_t size = 0;
    if (!fn && (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", (void **)&fn, 12000,
                                                 cudaEnableDefault, &status) != cudaSuccess ||
                status != cudaDriverEntryPointSuccess))
        fn = NULL;
    return fn && fn(base, &size, (unsigned long long)(uintptr_t)p) == 0;
}
#endif

int pcoll__gpu_ipc_get(const void *p, pcoll__gpu_ipc_t *h)
{
    memset(h, 0, sizeof *h);
    h->addr = (long long)(intptr_t)p;
    if (pcoll__gpu_pretend || !p)
        return PCOLL_SUCCESS;
#ifdef PCOLL_HAVE_CUDA
    {
        cudaIpcMemHandle_t ipc;
        unsigned long long base = 0;
        _Static_assert(sizeof ipc <= sizeof h->handle, "IPC handle size");
        if (!alloc_base(p, &base) ||
            cudaIpcGetMemHandle(&ipc, (void *)(uintptr_t)base) != cudaSuccess) {
            (void)cudaGetLastError();
            return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                "gpu_ipc: no IPC handle for the buffer at %p", p);
        }
        memcpy(h->handle, &ipc, sizeof ipc);
        h->offset = (long long)((uintptr_t)p - (uintptr_t)base);
        return PCOLL_SUCCESS;
    }
#else
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "gpu_ipc: built without CUDA");
#endif
}

int pcoll__gpu_ipc_open(const pcoll__gpu_ipc_t *h, void **base, void **p)
{
    *base = NULL;
    *p = (void *)(intptr_t)h->addr;
    if (pcoll__gpu_pretend || !h->addr)
        return PCOLL_SUCCESS;
#ifdef PCOLL_HAVE_CUDA
    {
        cudaIpcMemHandle_t ipc;
        cudaError_t e;
        memcpy(&ipc, h->handle, sizeof ipc);
        e = cudaIpcOpenMemHandle(base, ipc, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            *base = NULL;
            return pcoll__error(PCOLL_ERR_UNSUPPORTED, "gpu_ipc: cudaIpcOpenMemHandle: %s",
                                cudaGetErrorString(e));
        }
        *p = (char *)*base + h->offset;
        return PCOLL_SUCCESS;
    }
#else
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "gpu_ipc: built without CUDA");
#endif
}

void pcoll__gpu_ipc_close(void *base)
{
#ifdef PCOLL_HAVE_CUDA
    if (base && !pcoll__gpu_pretend)
        cudaIpcCloseMemHandle(base);
#else
    (void)base;
#endif
}

int pcoll__gpu_dsegs_make(const pcoll__gpu_segs_t *l, pcoll__gpu_dsegs_t *d)
{
    d->dev = NULL;
    d->n = 0;
    if (!l->n)
        return PCOLL_SUCCESS;
    if (pcoll__gpu_pretend) { /* a host copy of the list, run by memcpy */
        if (!(d->dev = pcoll__malloc(sizeof *l->s * (size_t)l->n)))
            return pcoll__error(PCOLL_ERR_NOMEM, "device buffers: segment list");
        memcpy(d->dev, l->s, sizeof *l->s * (size_t)l->n);
        d->n = l->n;
        return PCOLL_SUCCESS;
    }
#ifdef PCOLL_HAVE_CUDA
    if (pcoll__gpu_count() > 0) {
        size_t bytes = sizeof *l->s * (size_t)l->n;
        void *dev = NULL;
        cudaError_t e = cudaMalloc(&dev, bytes);
        if (e == cudaSuccess)
            e = cudaMemcpy(dev, l->s, bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            if (dev)
                cudaFree(dev);
            return pcoll__error(PCOLL_ERR_NOMEM, "device buffers: segment list of %ld entries: %s",
                                l->n, cudaGetErrorString(e));
        }
        d->dev = dev;
        d->n = l->n;
        return PCOLL_SUCCESS;
    }
#endif
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "device buffers: no GPU for a segment list");
}

void pcoll__gpu_dsegs_free(pcoll__gpu_dsegs_t *d)
{
    if (pcoll__gpu_pretend) {
        pcoll__free(d->dev);
        d->dev = NULL;
        d->n = 0;
        return;
    }
#ifdef PCOLL_HAVE_CUDA
    if (d->dev)
        cudaFree(d->dev);
#endif
    d->dev = NULL;
    d->n = 0;
}

int pcoll__gpu_dsegs_copy(const pcoll__gpu_dsegs_t *d)
{
    if (!d->n)
        return PCOLL_SUCCESS;
    if (pcoll__gpu_pretend) {
        long i;
        for (i = 0; i < d->n; i++)
            memcpy((void *)(intptr_t)d->dev[i].dst, (const void *)(intptr_t)d->dev[i].src,
                   (size_t)d->dev[i].len);
        return PCOLL_SUCCESS;
    }
#ifdef PCOLL_HAVE_CUDA
    {
        const char *msg = "";
        if (pcoll__gpu_launch_copy(d->dev, d->n, &msg) != 0)
            return pcoll__error(PCOLL_ERR_INTERNAL,
                                "device buffers: copy kernel over %ld segments: %s", d->n, msg);
        return PCOLL_SUCCESS;
    }
#else
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "device buffers: built without CUDA");
#endif
}
