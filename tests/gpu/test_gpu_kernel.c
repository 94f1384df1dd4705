/*
 * The multi-buffer copy kernel on the device (src/gpu/copy_kernel.cu): one
 * launch over a segment list made from flattened types (a vector and a
 * struct packed into contiguous memory and back) and over many buffers at
 * once (segments of every alignment, some longer than a chunk), compared
 * with the same segments applied by cudaMemcpy.  Prints the kernel's
 * bandwidth on a 64 MiB bundle of 1 MiB segments next to a plain
 * device-to-device cudaMemcpy (information, not a pass criterion).
 * Without a GPU: "skipped: no GPU", exit 77.  --quick: no bandwidth.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "base/status.h"
#include "gpu/gpu.h"

static int failures;

static void fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    failures++;
}

static long long addr(const void *p)
{
    return (long long)(intptr_t)p;
}

/* Run l on the device, and the same copies one cudaMemcpy each into ref. */
static void run_and_check(const pcoll__gpu_segs_t *l, unsigned char *dst, unsigned char *ref,
                          size_t dst_bytes, const char *what)
{
    pcoll__gpu_dsegs_t d;
    unsigned char *a = malloc(dst_bytes), *b = malloc(dst_bytes);
    long i;
    if (pcoll__gpu_dsegs_make(l, &d) != PCOLL_SUCCESS || pcoll__gpu_dsegs_copy(&d) != PCOLL_SUCCESS)
        fail(what);
    pcoll__gpu_dsegs_free(&d);
    for (i = 0; i < l->n; i++) /* the same copies into ref (dst offsets relative) */
        cudaMemcpy(ref + (l->s[i].dst - addr(dst)), (const void *)(intptr_t)l->s[i].src,
                   (size_t)l->s[i].len, cudaMemcpyDeviceToDevice);
    cudaMemcpy(a, dst, dst_bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, ref, dst_bytes, cudaMemcpyDeviceToHost);
    if (memcmp(a, b, dst_bytes) != 0)
        fail(what);
    free(a), free(b);
}

static void *dev_pattern(size_t bytes, int seed)
{
    unsigned char *h = malloc(bytes);
    void *d = NULL;
    size_t i;
    for (i = 0; i < bytes; i++)
        h[i] = (unsigned char)(i * 13 + (size_t)seed);
    cudaMalloc(&d, bytes);
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    free(h);
    return d;
}

static void test_types(void)
{
    MPI_Datatype vec, st, sr, types[2];
    int bl[3] = {1, 2, 3}, k, size, count = 1000;
    MPI_Aint dsp[3] = {0, 8, 21}, lb, ext;
    MPI_Datatype t[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_create_struct(3, bl, dsp, t, &st);
    MPI_Type_create_resized(st, 0, 32, &sr);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&sr);
    types[0] = vec, types[1] = sr;
    for (k = 0; k < 2; k++) {
        pcoll__blocks_t unit = {0}, from = {0}, to = {0};
        pcoll__gpu_segs_t l = {0};
        size_t span;
        unsigned char *src, *dst, *ref;
        MPI_Type_get_extent(types[k], &lb, &ext);
        MPI_Type_size(types[k], &size);
        span = (size_t)ext * (size_t)count;
        src = dev_pattern(span, k);
        cudaMalloc((void **)&dst, (size_t)size * count);
        cudaMalloc((void **)&ref, (size_t)size * count);
        cudaMemset(dst, 0, (size_t)size * count);
        cudaMemset(ref, 0, (size_t)size * count);
        pcoll__flatten(types[k], &unit);
        pcoll__blocks_place(&from, &unit, ext, 0, count);
        pcoll__blocks_push(&to, 0, 1, (long long)size * count, MPI_BYTE);
        if (pcoll__gpu_segs_zip(&l, &from, addr(src), &to, addr(dst)) != PCOLL_SUCCESS)
            fail("zip");
        run_and_check(&l, dst, ref, (size_t)size * count, k ? "pack struct" : "pack vector");
        pcoll__gpu_segs_free(&l);
        pcoll__blocks_free(&unit), pcoll__blocks_free(&from), pcoll__blocks_free(&to);
        cudaFree(src), cudaFree(dst), cudaFree(ref);
    }
    MPI_Type_free(&vec), MPI_Type_free(&st), MPI_Type_free(&sr);
}

/* Many source buffers into one bundle: lengths 1..3 MiB-ish, odd offsets. */
static void test_bundle(void)
{
    enum { NBUF = 16 };
    pcoll__gpu_segs_t l = {0};
    unsigned char *srcs[NBUF], *dst, *ref;
    size_t lens[NBUF], total = 0;
    int i;
    for (i = 0; i < NBUF; i++) {
        lens[i] = (i % 4 == 0) ? (size_t)(1 << 20) + (size_t)i : (size_t)(i * 977 + 3);
        srcs[i] = dev_pattern(lens[i] + 16, i);
        total += lens[i] + (size_t)(i % 3);
    }
    cudaMalloc((void **)&dst, total);
    cudaMalloc((void **)&ref, total);
    cudaMemset(dst, 0, total), cudaMemset(ref, 0, total);
    total = 0;
    for (i = 0; i < NBUF; i++) {
        pcoll__gpu_segs_push(&l, addr(srcs[i] + i % 5), addr(dst + total), (long long)lens[i]);
        total += lens[i] + (size_t)(i % 3);
    }
    run_and_check(&l, dst, ref, total, "bundle of 16 buffers");
    pcoll__gpu_segs_free(&l);
    for (i = 0; i < NBUF; i++)
        cudaFree(srcs[i]);
    cudaFree(dst), cudaFree(ref);
}

static void bandwidth(void)
{
    const size_t seg = 1 << 20, n = 64;
    pcoll__gpu_segs_t l = {0};
    pcoll__gpu_dsegs_t d;
    unsigned char *src, *dst;
    cudaEvent_t e0, e1;
    float tk = 0, tm = 0;
    size_t i;
    int r;
    cudaMalloc((void **)&src, seg * n), cudaMalloc((void **)&dst, seg * n);
    for (i = 0; i < n; i++) /* reversed order: a real gather, not one run */
        pcoll__gpu_segs_push(&l, addr(src + (n - 1 - i) * seg), addr(dst + i * seg),
                             (long long)seg);
    pcoll__gpu_dsegs_make(&l, &d);
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    pcoll__gpu_dsegs_copy(&d); /* warm up */
    cudaEventRecord(e0, 0);
    for (r = 0; r < 10; r++)
        pcoll__gpu_dsegs_copy(&d);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&tk, e0, e1);
    cudaMemcpy(dst, src, seg * n, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e0, 0);
    for (r = 0; r < 10; r++)
        cudaMemcpy(dst, src, seg * n, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&tm, e0, e1);
    printf("copy kernel: %zu segments of %zu B: %.1f GB/s; cudaMemcpy D2D of %zu B: %.1f GB/s "
           "(kernel/memcpy %.2f)\n",
           (size_t)l.n, seg, 10.0 * seg * n / (tk * 1e6), seg * n, 10.0 * seg * n / (tm * 1e6),
           tm / tk);
    pcoll__gpu_dsegs_free(&d);
    pcoll__gpu_segs_free(&l);
    cudaFree(src), cudaFree(dst);
}

int main(int argc, char **argv)
{
    int n = 0;
    MPI_Init(&argc, &argv);
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("skipped: no GPU\n");
        MPI_Finalize();
        return 77;
    }
    test_types();
    test_bundle();
    if (!(argc > 1 && strcmp(argv[1], "--quick") == 0)) /* --quick: no timing (sanitizers) */
        bandwidth();
    printf("gpu_kernel: %s\n", failures ? "FAILED" : "ok");
    MPI_Finalize();
    return failures ? 1 : 0;
}
