/*
 * The device reduction kernel (kernel.h): every rank of a node reduces its
 * own block of a reduce-scatter straight from the input vectors of all the
 * node's ranks (opened by CUDA IPC), element by element in rank order, on
 * the predefined operations and numeric types.  Sum, product, the logical
 * and bitwise operations are computed on the unsigned type of the width
 * (the same bits as two's-complement signed arithmetic, without signed
 * overflow); minimum and maximum on the signed or unsigned type itself.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpu/kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr long long kMaxBlocks = 4096;

struct Sum {
    template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct Prod {
    template <typename T> __device__ T operator()(T a, T b) const { return a * b; }
};
struct Min {
    template <typename T> __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
struct Max {
    template <typename T> __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
struct Land {
    template <typename T> __device__ T operator()(T a, T b) const { return (T)(a && b); }
};
struct Lor {
    template <typename T> __device__ T operator()(T a, T b) const { return (T)(a || b); }
};
struct Lxor {
    template <typename T> __device__ T operator()(T a, T b) const { return (T)(!a != !b); }
};
struct Band {
    template <typename T> __device__ T operator()(T a, T b) const { return a & b; }
};
struct Bor {
    template <typename T> __device__ T operator()(T a, T b) const { return a | b; }
};
struct Bxor {
    template <typename T> __device__ T operator()(T a, T b) const { return a ^ b; }
};

template <typename T, typename Op>
__global__ void reduce(T *out, const void *const *in, int p, long long n)
{
    Op op;
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; e < n; e += stride) {
        T acc = static_cast<const T *>(in[0])[e];
        for (int i = 1; i < p; i++)
            acc = op(acc, static_cast<const T *>(in[i])[e]);
        out[e] = acc;
    }
}

template <typename T, typename Op>
cudaError_t launch(void *out, const void *const *in, int p, long long n)
{
    long long blocks = (n + kThreads - 1) / kThreads;
    blocks = blocks < kMaxBlocks ? blocks : kMaxBlocks;
    reduce<T, Op><<<static_cast<unsigned>(blocks), kThreads>>>(static_cast<T *>(out), in, p, n);
    return cudaGetLastError();
}

/* Sum, product, minimum, maximum: every type. */
template <typename T>
cudaError_t arith_op(int op, void *out, const void *const *in, int p, long long n)
{
    switch (op) {
    case PCOLL__GPU_SUM: return launch<T, Sum>(out, in, p, n);
    case PCOLL__GPU_PROD: return launch<T, Prod>(out, in, p, n);
    case PCOLL__GPU_MIN: return launch<T, Min>(out, in, p, n);
    case PCOLL__GPU_MAX: return launch<T, Max>(out, in, p, n);
    default: return cudaErrorInvalidValue;
    }
}

/* All ten on an unsigned integer type. */
template <typename T>
cudaError_t any_op(int op, void *out, const void *const *in, int p, long long n)
{
    switch (op) {
    case PCOLL__GPU_LAND: return launch<T, Land>(out, in, p, n);
    case PCOLL__GPU_LOR: return launch<T, Lor>(out, in, p, n);
    case PCOLL__GPU_LXOR: return launch<T, Lxor>(out, in, p, n);
    case PCOLL__GPU_BAND: return launch<T, Band>(out, in, p, n);
    case PCOLL__GPU_BOR: return launch<T, Bor>(out, in, p, n);
    case PCOLL__GPU_BXOR: return launch<T, Bxor>(out, in, p, n);
    default: return arith_op<T>(op, out, in, p, n);
    }
}

/* Signed integers: only the order differs from the unsigned width. */
template <typename S, typename U>
cudaError_t signed_op(int op, void *out, const void *const *in, int p, long long n)
{
    if (op == PCOLL__GPU_MIN)
        return launch<S, Min>(out, in, p, n);
    if (op == PCOLL__GPU_MAX)
        return launch<S, Max>(out, in, p, n);
    return any_op<U>(op, out, in, p, n);
}

} // namespace

int pcoll__gpu_launch_reduce(int type, int op, void *out, const void *const *in, int p,
                             long long n, const char **msg)
{
    cudaError_t e = cudaSuccess;
    if (n > 0 && p > 0) {
        switch (type) {
        case PCOLL__GPU_I8: e = signed_op<int8_t, uint8_t>(op, out, in, p, n); break;
        case PCOLL__GPU_U8: e = any_op<uint8_t>(op, out, in, p, n); break;
        case PCOLL__GPU_I16: e = signed_op<int16_t, uint16_t>(op, out, in, p, n); break;
        case PCOLL__GPU_U16: e = any_op<uint16_t>(op, out, in, p, n); break;
        case PCOLL__GPU_I32: e = signed_op<int32_t, uint32_t>(op, out, in, p, n); break;
        case PCOLL__GPU_U32: e = any_op<uint32_t>(op, out, in, p, n); break;
        case PCOLL__GPU_I64: e = signed_op<int64_t, uint64_t>(op, out, in, p, n); break;
        case PCOLL__GPU_U64: e = any_op<uint64_t>(op, out, in, p, n); break;
        case PCOLL__GPU_F32: e = arith_op<float>(op, out, in, p, n); break;
        case PCOLL__GPU_F64: e = arith_op<double>(op, out, in, p, n); break;
        default: e = cudaErrorInvalidValue;
        }
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
    }
    *msg = cudaGetErrorString(e);
    return static_cast<int>(e);
}
