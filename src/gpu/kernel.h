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

#ifdef __cplusplus
}
#endif

#endif
