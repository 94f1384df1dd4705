/*
 * --gpu: alltoall on device buffers (issue 21, docs/gpu.md).  A size is the
 * bytes of one block, as for alltoall.  The native row is what a program
 * does without pcoll: copy the send buffer to pinned host memory, call
 * MPI_Alltoall there, copy the result back (with PCOLL_BENCH_GPU_DIRECT=1
 * and an MPI that says it is CUDA-aware, MPIX_GPU_query_support or
 * MPIX_Query_cuda_support, the
 * MPI_Alltoall on the device pointers instead).  pcoll's rows run on the
 * device buffers: auto takes gpu_staged; a named host algorithm runs under
 * gpu_staged.  The reference is MPI_Alltoall's result on host copies.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef PCOLL_HAVE_CUDA
#include <cuda_runtime_api.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

struct bench_case {
    MPI_Comm comm;
    int p, rank;
    int count;              /* bytes per block */
    size_t total;           /* p * count */
    unsigned char *send, *recv;     /* device */
    unsigned char *hsend, *hrecv;   /* pinned host staging of the native row */
    unsigned char *ref, *check;     /* host */
    int direct;             /* native row: MPI_Alltoall on the device pointers */
};

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    cudaFree(c->send), cudaFree(c->recv);
    cudaFreeHost(c->hsend), cudaFreeHost(c->hrecv);
    free(c->ref), free(c->check);
    free(c);
}

static int cuda_aware(void)
{
    const char *e = getenv("PCOLL_BENCH_GPU_DIRECT");
    if (!e || strcmp(e, "1") != 0)
        return 0;
#if defined(MPIX_GPU_SUPPORT_CUDA)
    {
        int yes = 0;
        return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes == 1;
    }
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

static int allocate(MPI_Comm comm, long size, bench_case_t *c)
{
    int ok = 1, n = 0;
    c->comm = comm;
    MPI_Comm_size(comm, &c->p);
    MPI_Comm_rank(comm, &c->rank);
    c->count = (int)size;
    c->total = (size_t)c->p * (size_t)size;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
        return PCOLL_ERR_UNSUPPORTED;
    ok = ok && cudaMalloc((void **)&c->send, c->total + 1) == cudaSuccess;
    ok = ok && cudaMalloc((void **)&c->recv, c->total + 1) == cudaSuccess;
    ok = ok && cudaMallocHost((void **)&c->hsend, c->total + 1) == cudaSuccess;
    ok = ok && cudaMallocHost((void **)&c->hrecv, c->total + 1) == cudaSuccess;
    c->ref = malloc(c->total + 1), c->check = malloc(c->total + 1);
    c->direct = cuda_aware();
    return ok && c->ref && c->check ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? allocate(comm, size, c) : PCOLL_ERR_NOMEM;
    size_t j, i;
    (void)pattern;
    *out = c;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS)
        return rc;
    for (j = 0; j < (size_t)c->p; j++)
        for (i = 0; i < (size_t)c->count; i++)
            c->hsend[j * c->count + i] = (unsigned char)(c->rank * 29 + j * 7 + i * 13 + 1);
    cudaMemcpy(c->send, c->hsend, c->total, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize(); /* complete before any start (pcoll.h) */
    return MPI_Alltoall(c->hsend, c->count, MPI_BYTE, c->ref, c->count, MPI_BYTE, comm) ==
                   MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

static long long bytes(const bench_case_t *c) { return (long long)c->total; }

/* cudaMemset returns before the memory is written: wait for it (gpu_ipc
 * writes this buffer from another process). */
static void poison(bench_case_t *c)
{
    cudaMemset(c->recv, 0xA5, c->total);
    cudaDeviceSynchronize();
}

static int check(const bench_case_t *c)
{
    cudaMemcpy(c->check, c->recv, c->total, cudaMemcpyDeviceToHost);
    return memcmp(c->check, c->ref, c->total) == 0;
}

static int run_native(bench_case_t *c)
{
    int rc;
    if (c->direct)
        return MPI_Alltoall(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->comm);
    cudaMemcpy(c->hsend, c->send, c->total, cudaMemcpyDeviceToHost);
    rc = MPI_Alltoall(c->hsend, c->count, MPI_BYTE, c->hrecv, c->count, MPI_BYTE, c->comm);
    cudaMemcpy(c->recv, c->hrecv, c->total, cudaMemcpyHostToDevice);
    return rc;
}

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoall_init(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE,
                               c->comm, info, plan);
}

static int run_oneshot(bench_case_t *c)
{
    return pcoll_alltoall(c->send, c->count, MPI_BYTE, c->recv, c->count, MPI_BYTE, c->comm);
}

static const bench_coll_t alltoall_gpu = {
    .name = "alltoall_gpu",
    .native = "staged MPI_Alltoall",
    .native_init = "MPI_Alltoall_init",
    .env_algorithm = "PCOLL_ALLTOALL_ALGORITHM",
    .patterns = 0,
    .mpich_algorithms = "",
    .ompi_algorithms = "",
    .setup = setup,
    .bytes = bytes,
    .poison = poison,
    .check = check,
    .run_native = run_native,
    .plan_init = plan_init,
    .run_oneshot = run_oneshot,
    .teardown = teardown,
};

const bench_coll_t *bench_coll_gpu_find(const char *name)
{
    return strcmp(name, "alltoall") == 0 ? &alltoall_gpu : NULL;
}

#else

const bench_coll_t *bench_coll_gpu_find(const char *name)
{
    (void)name;
    return NULL;
}

#endif
