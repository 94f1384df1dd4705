/*
 * What the multi-buffer copy kernel (copy_kernel.cu) and the C side share:
 * plain C, no MPI, so that nvcc compiles it as C++ too.
 */
#ifndef PCOLL_GPU_KERNEL_H
#define PCOLL_GPU_KERNEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Copy len bytes from address src to address dst (addresses as integers:
 * host or device, absolute or relative to a base the user adds). */
typedef struct pcoll__gpu_seg {
    long long src, dst, len;
} pcoll__gpu_seg_t;

/* A segment list on the device (cudaMalloc'ed copy), made once at init. */
typedef struct pcoll__gpu_dsegs {
    pcoll__gpu_seg_t *dev;
    long n;
} pcoll__gpu_dsegs_t;

/* One launch over n segments at dev (device memory), waited for; 0, or the
 * CUDA error code with *msg its text. */
int pcoll__gpu_launch_copy(const pcoll__gpu_seg_t *dev, long n, const char **msg);

/* The device reduction kernel (reduce_kernel.cu): element types (integers
 * by width and sign) and the predefined operations it serves. */
enum {
    PCOLL__GPU_I8, PCOLL__GPU_U8, PCOLL__GPU_I16, PCOLL__GPU_U16,
    PCOLL__GPU_I32, PCOLL__GPU_U32, PCOLL__GPU_I64, PCOLL__GPU_U64,
    PCOLL__GPU_F32, PCOLL__GPU_F64
};
enum {
    PCOLL__GPU_SUM, PCOLL__GPU_PROD, PCOLL__GPU_MIN, PCOLL__GPU_MAX,
    PCOLL__GPU_LAND, PCOLL__GPU_LOR, PCOLL__GPU_LXOR,
    PCOLL__GPU_BAND, PCOLL__GPU_BOR, PCOLL__GPU_BXOR
};

/* out[e] = in[0][e] op in[1][e] op ... op in[p-1][e] for e < n elements of
 * type (in: a device array of p device pointers), waited for; 0, or the
 * CUDA error code with *msg its text (the pairs pcoll__gpu_reduce_codes
 * accepts only). */
int pcoll__gpu_launch_reduce(int type, int op, void *out, const void *const *in, int p,
                             long long n, const char **msg);

#ifdef __cplusplus
}
#endif

#endif
