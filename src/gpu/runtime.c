/*
 * The CUDA runtime as pcoll uses it (gpu.h): device count, memory kinds,
 * the agreement on them, pinned host memory, copies, device segment lists.
 * Without PCOLL_HAVE_CUDA every answer is "host" and nothing is called.
 * The runtime is linked statically (CUDA::cudart_static), so with no driver
 * or no GPU cudaGetDeviceCount fails or says 0 and the library runs its
 * host paths.
 */
#include <stdatomic.h>
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

int pcoll__gpu_dsegs_make(const pcoll__gpu_segs_t *l, pcoll__gpu_dsegs_t *d)
{
    d->dev = NULL;
    d->n = 0;
    if (!l->n)
        return PCOLL_SUCCESS;
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
