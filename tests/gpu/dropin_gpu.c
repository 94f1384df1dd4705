/*
 * The drop-in (libpcoll_mpi, linked before the MPI library) with device
 * pointers: MPI_Alltoall, MPI_Alltoallv, MPI_Reduce_scatter_block and
 * MPI_Reduce_scatter on cudaMalloc'ed buffers (also in place), where an MPI
 * that is not CUDA-aware would crash; pcoll serves them with gpu_staged.
 * Results are compared with the MPI's own collectives (PMPI_*, past the
 * drop-in) on host copies.  Blocking, non-blocking and (MPI-4) persistent
 * forms.  Without a GPU: "skipped: no GPU", exit 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

static int rank, np, failures;

static void *dev_of(const void *host, size_t bytes)
{
    void *d = NULL;
    cudaMalloc(&d, bytes ? bytes : 1);
    if (host)
        cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize(); /* the writes complete before the collective (pcoll.h) */
    return d;
}

static void check(const void *dev, const void *want, size_t bytes, const char *what)
{
    unsigned char *got = malloc(bytes ? bytes : 1);
    cudaMemcpy(got, dev, bytes, cudaMemcpyDeviceToHost);
    if (memcmp(got, want, bytes) != 0) {
        fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
        failures++;
    }
    free(got);
}

/* form 0: blocking, 1: non-blocking, 2: persistent (MPI-4). */
static void finish(MPI_Request *req, int form)
{
    if (form == 2) {
        MPI_Start(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
        MPI_Request_free(req);
    } else if (form == 1) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
    }
}

static void alltoall(int n, int inplace, int form)
{
    size_t bytes = sizeof(int) * (size_t)n * np;
    int *s = malloc(bytes + 4), *want = malloc(bytes + 4), i;
    void *ds, *dr;
    MPI_Request req = MPI_REQUEST_NULL;
    char what[96];
    for (i = 0; i < n * np; i++)
        s[i] = rank * 100000 + i;
    PMPI_Alltoall(s, n, MPI_INT, want, n, MPI_INT, MPI_COMM_WORLD);
    ds = dev_of(s, bytes);
    dr = dev_of(inplace ? s : NULL, bytes);
    snprintf(what, sizeof what, "MPI_Alltoall n=%d%s form %d", n, inplace ? " in place" : "",
             form);
    if (form == 0)
        MPI_Alltoall(inplace ? MPI_IN_PLACE : ds, n, MPI_INT, dr, n, MPI_INT, MPI_COMM_WORLD);
    else if (form == 1)
        MPI_Ialltoall(inplace ? MPI_IN_PLACE : ds, n, MPI_INT, dr, n, MPI_INT, MPI_COMM_WORLD,
                      &req);
#if MPI_VERSION >= 4
    else
        MPI_Alltoall_init(inplace ? MPI_IN_PLACE : ds, n, MPI_INT, dr, n, MPI_INT,
                          MPI_COMM_WORLD, MPI_INFO_NULL, &req);
#endif
    finish(&req, form);
    check(dr, want, bytes, what);
    cudaFree(ds), cudaFree(dr);
    free(s), free(want);
}

static void alltoallv(int form)
{
    int *sc = malloc(sizeof(int) * np), *sd = malloc(sizeof(int) * np);
    int *rc = malloc(sizeof(int) * np), *rd = malloc(sizeof(int) * np);
    int i, st = 0, rt = 0, *s, *want;
    void *ds, *dr;
    MPI_Request req = MPI_REQUEST_NULL;
    for (i = 0; i < np; i++) {
        sc[i] = (rank + i) % 3, sd[i] = st, st += sc[i] + 1;
        rc[i] = (rank + i) % 3, rd[i] = rt, rt += rc[i] + 1;
    }
    s = malloc(sizeof(int) * st), want = malloc(sizeof(int) * rt);
    for (i = 0; i < st; i++)
        s[i] = rank * 1000 + i;
    for (i = 0; i < rt; i++)
        want[i] = -1;
    PMPI_Alltoallv(s, sc, sd, MPI_INT, want, rc, rd, MPI_INT, MPI_COMM_WORLD);
    ds = dev_of(s, sizeof(int) * st);
    {
        int *init = malloc(sizeof(int) * rt);
        for (i = 0; i < rt; i++)
            init[i] = -1;
        dr = dev_of(init, sizeof(int) * rt);
        free(init);
    }
    if (form == 0)
        MPI_Alltoallv(ds, sc, sd, MPI_INT, dr, rc, rd, MPI_INT, MPI_COMM_WORLD);
    else if (form == 1)
        MPI_Ialltoallv(ds, sc, sd, MPI_INT, dr, rc, rd, MPI_INT, MPI_COMM_WORLD, &req);
#if MPI_VERSION >= 4
    else
        MPI_Alltoallv_init(ds, sc, sd, MPI_INT, dr, rc, rd, MPI_INT, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &req);
#endif
    finish(&req, form);
    check(dr, want, sizeof(int) * rt, "MPI_Alltoallv");
    cudaFree(ds), cudaFree(dr);
    free(s), free(want), free(sc), free(sd), free(rc), free(rd);
}

static void reduce_scatter(int block, int form)
{
    int *counts = malloc(sizeof(int) * np), i, total = 0, c = 3;
    int *s, *want;
    void *ds, *dr;
    MPI_Request req = MPI_REQUEST_NULL;
    for (i = 0; i < np; i++)
        total += counts[i] = block ? c : (i + 1) % 3;
    s = malloc(sizeof(int) * (total + 1)), want = malloc(sizeof(int) * (total + 1));
    for (i = 0; i < total; i++)
        s[i] = rank + i;
    if (block)
        PMPI_Reduce_scatter_block(s, want, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        PMPI_Reduce_scatter(s, want, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ds = dev_of(s, sizeof(int) * total);
    dr = dev_of(NULL, sizeof(int) * total);
    if (form == 0) {
        if (block)
            MPI_Reduce_scatter_block(ds, dr, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Reduce_scatter(ds, dr, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (form == 1) {
        if (block)
            MPI_Ireduce_scatter_block(ds, dr, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        else
            MPI_Ireduce_scatter(ds, dr, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    }
#if MPI_VERSION >= 4
    else if (block)
        MPI_Reduce_scatter_block_init(ds, dr, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &req);
    else
        MPI_Reduce_scatter_init(ds, dr, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &req);
#endif
    finish(&req, form);
    check(dr, want, sizeof(int) * counts[rank],
          block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter");
    cudaFree(ds), cudaFree(dr);
    free(s), free(want), free(counts);
}

int main(int argc, char **argv)
{
    int n = 0, all = 0, form, forms = MPI_VERSION >= 4 ? 3 : 2, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        n = 0;
    PMPI_Allreduce(&n, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            printf("skipped: no GPU\n");
        MPI_Finalize();
        return 77;
    }
    cudaSetDevice(0);
    for (form = 0; form < forms; form++) {
        alltoall(4, 0, form);
        alltoall(1000, 0, form);
        alltoall(4, 1, form);
        alltoallv(form);
        reduce_scatter(1, form);
        reduce_scatter(0, form);
    }
    PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dropin_gpu: np %d: %s\n", np, total ? "FAILED" : "ok");
    MPI_Finalize();
    return total ? 1 : 0;
}
