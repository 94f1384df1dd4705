/*
 * --gpu: alltoall on device buffers (docs/gpu.md).  A size is the
 * bytes of one block, as for alltoall.  The native row is what a program
 * does without pcoll: copy the send buffer to pinned host memory, call
 * MPI_Alltoall there, copy the result back (with PCOLL_BENCH_GPU_DIRECT=1
 * and an MPI that says it is CUDA-aware, MPIX_GPU_query_support or
 * MPIX_Query_cuda_support, the
 * MPI_Alltoall on the device pointers instead).  pcoll's rows run on the
 * device buffers: auto takes gpu_staged; a named host algorithm runs under
 * gpu_staged.  The reference is MPI_Alltoall's result on host copies.
 * reduce_scatter_block the same way: a size is the bytes of one block of
 * MPI_INT (MPI_SUM, exact in any order), the native row copies the whole
 * input to the host, calls MPI_Reduce_scatter_block, copies the block back.
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
    int direct;             /* native row: the MPI call on the device pointers */
    int rs;                 /* reduce_scatter_block (else alltoall) */
    size_t out;             /* bytes of the result: total, or count (rs) */
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

static int setup_as(MPI_Comm comm, long size, int rs, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? allocate(comm, rs ? size - size % 4 : size, c) : PCOLL_ERR_NOMEM;
    size_t j, i;
    *out = c;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS)
        return rc;
    c->rs = rs;
    c->out = rs ? (size_t)c->count : c->total;
    for (j = 0; j < (size_t)c->p; j++)
        for (i = 0; i < (size_t)c->count; i++)
            c->hsend[j * c->count + i] = (unsigned char)(c->rank * 29 + j * 7 + i * 13 + 1);
    cudaMemcpy(c->send, c->hsend, c->total, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize(); /* complete before any start (pcoll.h) */
    rc = rs ? MPI_Reduce_scatter_block(c->hsend, c->ref, c->count / 4, MPI_INT, MPI_SUM, comm)
            : MPI_Alltoall(c->hsend, c->count, MPI_BYTE, c->ref, c->count, MPI_BYTE, comm);
    return rc == MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    (void)pattern;
    return setup_as(comm, size, 0, out);
}

static int setup_rs(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    (void)pattern;
    return setup_as(comm, size, 1, out);
}

static long long bytes(const bench_case_t *c) { return (long long)c->total; }

/* cudaMemset returns before the memory is written: wait for it (gpu_ipc
 * writes this buffer from another process). */
static void poison(bench_case_t *c)
{
    cudaMemset(c->recv, 0xA5, c->out);
    cudaDeviceSynchronize();
}

static int check(const bench_case_t *c)
{
    cudaMemcpy(c->check, c->recv, c->out, cudaMemcpyDeviceToHost);
    return memcmp(c->check, c->ref, c->out) == 0;
}

/* The collective on (send, recv), device or host. */
static int mpi_call(const bench_case_t *c, const void *send, void *recv)
{
    return c->rs ? MPI_Reduce_scatter_block(send, recv, c->count / 4, MPI_INT, MPI_SUM, c->comm)
                 : MPI_Alltoall(send, c->count, MPI_BYTE, recv, c->count, MPI_BYTE, c->comm);
}

static int run_native(bench_case_t *c)
{
    int rc;
    if (c->direct)
        return mpi_call(c, c->send, c->recv);
    cudaMemcpy(c->hsend, c->send, c->total, cudaMemcpyDeviceToHost);
    rc = mpi_call(c, c->hsend, c->hrecv);
    cudaMemcpy(c->recv, c->hrecv, c->out, cudaMemcpyHostToDevice);
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

static int plan_init_rs(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_reduce_scatter_block_init(c->send, c->recv, c->count / 4, MPI_INT, MPI_SUM,
                                           c->comm, info, plan);
}

static int run_oneshot_rs(bench_case_t *c)
{
    return pcoll_reduce_scatter_block(c->send, c->recv, c->count / 4, MPI_INT, MPI_SUM, c->comm);
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

static const bench_coll_t reduce_scatter_block_gpu = {
    .name = "reduce_scatter_block_gpu",
    .native = "staged MPI_Reduce_scatter_block",
    .native_init = "MPI_Reduce_scatter_block_init",
    .env_algorithm = "PCOLL_REDUCE_SCATTER_ALGORITHM",
    .patterns = 0,
    .mpich_algorithms = "",
    .ompi_algorithms = "",
    .setup = setup_rs,
    .bytes = bytes,
    .poison = poison,
    .check = check,
    .run_native = run_native,
    .plan_init = plan_init_rs,
    .run_oneshot = run_oneshot_rs,
    .teardown = teardown,
};

const bench_coll_t *bench_coll_gpu_find(const char *name)
{
    if (strcmp(name, "alltoall") == 0)
        return &alltoall_gpu;
    return strcmp(name, "reduce_scatter_block") == 0 ? &reduce_scatter_block_gpu : NULL;
}

#else

const bench_coll_t *bench_coll_gpu_find(const char *name)
{
    (void)name;
    return NULL;
}

#endif
