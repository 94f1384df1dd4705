/*
 * Device buffers (docs/gpu.md): which memory a buffer is, pinned host
 * staging memory, copies, the multi-buffer copy kernel's segment lists, and
 * the algorithms for device buffers (gpu_staged).
 *
 * The multicore all-to-all paper (shared/papers/multicore-alltoall-pencil-
 * fft.txt, section III-C) runs the all-to-all on GPU memory in two ways:
 * small messages copy all data to the host, communicate, and copy back
 * (gpu_staged here); larger ones bundle a node's blocks on the GPU with one
 * kernel that copies from many sources to many destinations (the segment
 * lists and copy kernel below).
 *
 * Built with CUDA (PCOLL_HAVE_CUDA, CMake's PCOLL_CUDA) or without: without
 * it, or on a machine with no GPU (the CUDA runtime is linked statically, so
 * the library loads there), every buffer is host memory and nothing else
 * changes.
 */
#ifndef PCOLL_GPU_GPU_H
#define PCOLL_GPU_GPU_H

#include <stddef.h>

#include "alltoall/alltoall.h"
#include "alltoallv/alltoallv.h"
#include "datatype/blocks.h"
#include "gpu/kernel.h"
#include "reduce_scatter/reduce_scatter.h"

/* ---- the runtime (runtime.c) ---------------------------------------------- */

/* Memory-kind flags of one rank's buffers (or'ed over ranks by the agreement). */
enum {
    PCOLL__GPU_SEND = 1u << 0, /* the send buffer (the input) is device memory */
    PCOLL__GPU_RECV = 1u << 1, /* the receive buffer is device memory */
    PCOLL__GPU_HOST = 1u << 2  /* a buffer with data is host memory */
};

/* Tests only (tests/gpu): 1: every non-NULL buffer of this process counts
 * as device memory (with no GPU the copies are memcpy), so gpu_staged's
 * copies, mirrors and mixes run without a GPU; 2: host buffers, but the
 * ranks agree on memory kinds as a CUDA build does (set on every rank when
 * any rank sets 1).  0 by default. */
extern int pcoll__gpu_pretend;

/* Devices this process sees: 0 without CUDA, without a driver or a GPU
 * (asked once per process). */
int pcoll__gpu_count(void);
/* Whether p is device memory (cudaPointerGetAttributes: cudaMemoryTypeDevice;
 * host, pinned host and managed memory are host).  0 when there is no GPU. */
int pcoll__gpu_is_device(const void *p);
/* Whether any buffer may be device memory (a device is present, or
 * pretended). */
static inline int pcoll__gpu_maybe(void)
{
    return pcoll__gpu_pretend || pcoll__gpu_count() > 0;
}

/* For the one-shot cache keys: whether the two buffer pointers are device
 * memory (bit 0: send, bit 1: receive), so that a plan made for host memory
 * is not reused at the same address once it holds device memory. */
static inline int pcoll__gpu_key_kinds(const void *sendbuf, const void *recvbuf)
{
    return pcoll__gpu_is_device(sendbuf) | pcoll__gpu_is_device(recvbuf) << 1;
}
/* Collective over comm: the memory-kind flags of every rank or'ed together
 * (one MPI_Allreduce of one int), so that all ranks take the same decision.
 * Without CUDA the local flags (0), nothing communicated. */
int pcoll__gpu_agree(MPI_Comm comm, int local, int *all);
/* Pinned host memory of bytes (cudaMallocHost; plain memory without a GPU);
 * NULL on failure.  Counted like every allocation (pcoll_mem_*). */
void *pcoll__gpu_host_alloc(size_t bytes);
void pcoll__gpu_host_free(void *p, size_t bytes);
/* Copy bytes from src to dst, each host or device memory, complete on
 * return (cudaMemcpy; memcpy without a GPU). */
int pcoll__gpu_copy(void *dst, const void *src, size_t bytes);

/* ---- segment lists of the multi-buffer copy kernel (segments.c) ------------ */

/* A list of segments.  Zero-initialise; pcoll__gpu_segs_free releases it. */
typedef struct pcoll__gpu_segs {
    pcoll__gpu_seg_t *s;
    long n, cap;
} pcoll__gpu_segs_t;

/* Segments longer than this are split, so that one launch spreads a large
 * bundle over many thread blocks (one block per segment). */
#define PCOLL__GPU_SEG_CHUNK 65536

/* Append one segment (len 0: nothing), merged into the last one when it
 * continues it on both sides, split at PCOLL__GPU_SEG_CHUNK. */
int pcoll__gpu_segs_push(pcoll__gpu_segs_t *l, long long src, long long dst, long long len);
/* Append the segments that copy the data of type map from (items at
 * from_base) into the type map to (at to_base), in type map order: the
 * payload bytes of the two must be as many (else PCOLL_ERR_MISMATCH).
 * Derived datatypes are packed this way from pcoll's flattened blocks
 * (pcoll__flatten). */
int pcoll__gpu_segs_zip(pcoll__gpu_segs_t *l, const pcoll__blocks_t *from, long long from_base,
                        const pcoll__blocks_t *to, long long to_base);
/* Append the segments of `second` after `first`: every byte that first
 * copies from a to b and second then copies from b to c is copied from a to
 * c directly (in first's order).  Every destination byte of first must be
 * the source of exactly one segment of second (else PCOLL_ERR_INTERNAL). */
int pcoll__gpu_segs_compose(pcoll__gpu_segs_t *l, const pcoll__gpu_segs_t *first,
                            const pcoll__gpu_segs_t *second);
void pcoll__gpu_segs_free(pcoll__gpu_segs_t *l);

/* Upload l to the device (PCOLL_ERR_UNSUPPORTED without a GPU). */
int pcoll__gpu_dsegs_make(const pcoll__gpu_segs_t *l, pcoll__gpu_dsegs_t *d);
void pcoll__gpu_dsegs_free(pcoll__gpu_dsegs_t *d);
/* One launch of the multi-buffer copy kernel over d's segments, complete on
 * return (PCOLL_ERR_UNSUPPORTED without a GPU). */
int pcoll__gpu_dsegs_copy(const pcoll__gpu_dsegs_t *d);

/* ---- device memory and IPC (runtime.c) ------------------------------------- */

/* Device memory of bytes (cudaMalloc; plain memory under the tests'
 * pretence); NULL on failure.  Counted in pcoll_mem_*. */
void *pcoll__gpu_dev_alloc(size_t bytes);
void pcoll__gpu_dev_free(void *p, size_t bytes);
/* Whether the MPI takes device pointers (MPIX_GPU_query_support, MPICH;
 * MPIX_Query_cuda_support, Open MPI's mpi-ext.h); 0 where it cannot say. */
int pcoll__gpu_mpi_aware(void);

/* A device buffer as another process of the node opens it: the CUDA IPC
 * handle of its allocation and the buffer's offset in it (under the tests'
 * pretence the address itself, valid in every process). */
typedef struct pcoll__gpu_ipc {
    unsigned char handle[64];
    long long offset;
    long long addr;
} pcoll__gpu_ipc_t;
/* The handle of device buffer p (NULL: none). */
int pcoll__gpu_ipc_get(const void *p, pcoll__gpu_ipc_t *h);
/* Open h in this process: *base to close later, *p the buffer. */
int pcoll__gpu_ipc_open(const pcoll__gpu_ipc_t *h, void **base, void **p);
void pcoll__gpu_ipc_close(void *base);

/* ---- the node barriers around a gpu_ipc run (bracket.c) ----------------- */

typedef struct pcoll__gpu_bracket {
    MPI_Comm node;   /* the plan's own duplicate of the node's communicator */
    MPI_Request bar;
    int phase;       /* 0: the first barrier, 1: the second */
} pcoll__gpu_bracket_t;
/* A run starts: the first node barrier (non-blocking). */
int pcoll__gpu_bracket_start(pcoll__gpu_bracket_t *b, const char *what);
/* Progress: once the first barrier completes, work(arg) (blocking, once),
 * then the second barrier; *done = 1 once that completes.  what names the
 * algorithm in errors. */
int pcoll__gpu_bracket_test(pcoll__gpu_bracket_t *b, int (*work)(void *arg), void *arg,
                            const char *what, int *done);

/* The end of a gpu_ipc builder, collective: the most severe code of rc over
 * all ranks; where it is PCOLL_ERR_UNSUPPORTED (no IPC handle somewhere),
 * destroy the half-built state and build gpu_staged (staged) on every rank
 * instead. */
int pcoll__gpu_ipc_verdict(pcoll_plan_t *plan, int rc, void (*destroy)(pcoll_plan_t *plan),
                           int (*staged)(pcoll_plan_t *plan, const void *args),
                           const void *args);

/* ---- the device reduction (reduce.c, reduce_kernel.cu) --------------------- */

/* Whether the device kernel serves op on type (a predefined operation on a
 * predefined integer or floating type, as MPI allows the pair: logical and
 * bitwise operations on integers, MPI_BYTE bitwise only); its codes. */
int pcoll__gpu_reduce_codes(MPI_Datatype type, MPI_Op op, int *tcode, int *ocode);
/* out = in[0] op ... op in[p-1], n elements (rank order).  dev_in: the p
 * input pointers in device memory (for the kernel); host_in the same
 * pointers in host memory (under the tests' pretence the reduction runs on
 * the host, MPI_Reduce_local).  Complete on return. */
int pcoll__gpu_reduce(int tcode, int ocode, MPI_Datatype type, MPI_Op op, void *out,
                      const void *const *dev_in, const void *const *host_in, int p, long long n);

/* ---- gpu_staged (staged.c) -------------------------------------------------- */

/* The memory-kind flags (PCOLL__GPU_*) of this rank's buffers (with data) in the
 * checked arguments of each collective (p ranks, this one rank). */
int pcoll__gpu_kinds_alltoall(const pcoll__a2a_args_t *a, int p);
int pcoll__gpu_kinds_reduce_scatter(const pcoll__rs_args_t *a, int rank);

/* Builders of gpu_staged: copy this rank's device input to pinned host
 * memory in one copy, run the host algorithm opts.gpu_child on the host
 * copies, copy the result back in one copy.  Buffers in host memory are
 * used as they are.  The copies are made in start and wait (test) only. */
int pcoll__alltoall_gpu_staged(pcoll_plan_t *plan, const void *args);
int pcoll__alltoallv_gpu_staged(pcoll_plan_t *plan, const void *args);
int pcoll__reduce_scatter_gpu_staged(pcoll_plan_t *plan, const void *args);

/* ---- gpu_ipc (ipc.c) ----------------------------------------------------------- */

/* The paper's second way (section III-C): at init the ranks of each
 * (virtual) node exchange IPC handles of their buffers and gather their
 * segment lists to the node's leader; at run the leader packs the node's
 * blocks into one bundle per destination node with one launch of the copy
 * kernel, the leaders exchange bundles (device pointers when the MPI is
 * CUDA-aware, else through pinned host memory), and one launch distributes
 * the received bundles into the node's receive buffers.  Planned
 * collectively.  Where a rank's buffers are host memory, or in place: the
 * plan of gpu_staged on every rank. */
int pcoll__alltoall_gpu_ipc(pcoll_plan_t *plan, const void *args);
/* The same for alltoallv: the block sizes of every pair of ranks of a node
 * are gathered there at init (one allgather each way). */
int pcoll__alltoallv_gpu_ipc(pcoll_plan_t *plan, const void *args);
/* reduce_scatter (both forms) on one node (ipc_reduce.c): every rank opens
 * the input vectors of the node's ranks by IPC at init and at run reduces
 * its own block from all of them with one launch of the device reduction
 * kernel, between two node barriers.  Where that cannot serve (several
 * nodes, a rank's buffers in host memory, in place, an op or type the
 * kernel lacks, a buffer without IPC): gpu_staged on every rank. */
int pcoll__reduce_scatter_gpu_ipc(pcoll_plan_t *plan, const void *args);

#endif
