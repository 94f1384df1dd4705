/*
 * The multi-buffer copy kernel (gpu.h): one launch copies every segment of a
 * list kept on the device, "from multiple source buffers to multiple
 * destination buffers" (shared/papers/multicore-alltoall-pencil-fft.txt,
 * section III-C: it bundles a node's blocks on the GPU and distributes the
 * bundles on the target GPU).  Thread block b copies segments b, b + grid,
 * ...; segments are at most PCOLL__GPU_SEG_CHUNK bytes (segments.c), so a
 * large bundle spreads over many blocks.  A segment whose two ends and length
 * are 16-byte aligned moves as uint4, one that is 8-byte aligned as
 * unsigned long long, any other byte by byte.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpu/kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr long kMaxBlocks = 65535;

template <typename T>
__device__ void copy_as(char *dst, const char *src, long long len)
{
    T *d = reinterpret_cast<T *>(dst);
    const T *s = reinterpret_cast<const T *>(src);
    long long n = len / (long long)sizeof(T);
    for (long long i = threadIdx.x; i < n; i += blockDim.x)
        d[i] = s[i];
}

__global__ void multi_copy(const pcoll__gpu_seg_t *segs, long n)
{
    for (long k = blockIdx.x; k < n; k += gridDim.x) {
        pcoll__gpu_seg_t g = segs[k];
        char *dst = reinterpret_cast<char *>(static_cast<uintptr_t>(g.dst));
        const char *src = reinterpret_cast<const char *>(static_cast<uintptr_t>(g.src));
        unsigned long long all = static_cast<unsigned long long>(g.src | g.dst | g.len);
        if ((all & 15) == 0)
            copy_as<uint4>(dst, src, g.len);
        else if ((all & 7) == 0)
            copy_as<unsigned long long>(dst, src, g.len);
        else
            copy_as<unsigned char>(dst, src, g.len);
    }
}

} // namespace

int pcoll__gpu_launch_copy(const pcoll__gpu_seg_t *dev, long n, const char **msg)
{
    cudaError_t e = cudaSuccess;
    if (n > 0) {
        long blocks = n < kMaxBlocks ? n : kMaxBlocks;
        multi_copy<<<static_cast<unsigned>(blocks), kThreads>>>(dev, n);
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
    }
    *msg = cudaGetErrorString(e);
    return static_cast<int>(e);
}
