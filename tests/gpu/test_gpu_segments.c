/*
 * The segment lists of the multi-buffer copy kernel (src/gpu/segments.c),
 * host code only: runs without a GPU.  Segments are applied with memcpy and
 * the result compared with MPI_Pack / MPI_Unpack of the same types.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "gpu/gpu.h"

static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);     \
            failures++;                                                          \
        }                                                                        \
    } while (0)

static void apply(const pcoll__gpu_segs_t *l)
{
    long i;
    for (i = 0; i < l->n; i++)
        memcpy((void *)(intptr_t)l->s[i].dst, (const void *)(intptr_t)l->s[i].src,
               (size_t)l->s[i].len);
}

/* count items of type at base, flattened. */
static void place(MPI_Datatype type, int count, pcoll__blocks_t *out)
{
    pcoll__blocks_t unit = {0};
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    assert(pcoll__flatten(type, &unit) == PCOLL_SUCCESS);
    assert(pcoll__blocks_place(out, &unit, ext, 0, count) == PCOLL_SUCCESS);
    pcoll__blocks_free(&unit);
}

static void test_push(void)
{
    pcoll__gpu_segs_t l = {0};
    long long total = 0;
    long i;
    CHECK(pcoll__gpu_segs_push(&l, 0, 1000, 100) == PCOLL_SUCCESS);
    CHECK(pcoll__gpu_segs_push(&l, 100, 1100, 50) == PCOLL_SUCCESS); /* continues: merged */
    CHECK(l.n == 1 && l.s[0].len == 150);
    CHECK(pcoll__gpu_segs_push(&l, 151, 1150, 10) == PCOLL_SUCCESS); /* source apart */
    CHECK(l.n == 2);
    CHECK(pcoll__gpu_segs_push(&l, 0, 0, 0) == PCOLL_SUCCESS);       /* empty: nothing */
    CHECK(l.n == 2);
    /* A long one is split at the chunk, and a continuation fills the last chunk first. */
    CHECK(pcoll__gpu_segs_push(&l, 1 << 24, 1 << 25, 3LL * PCOLL__GPU_SEG_CHUNK + 5) ==
          PCOLL_SUCCESS);
    CHECK(l.n == 6);
    for (i = 2; i < l.n; i++) {
        CHECK(l.s[i].len <= PCOLL__GPU_SEG_CHUNK);
        CHECK(l.s[i].src - l.s[2].src == l.s[i].dst - l.s[2].dst);
        total += l.s[i].len;
    }
    CHECK(total == 3LL * PCOLL__GPU_SEG_CHUNK + 5);
    CHECK(pcoll__gpu_segs_push(&l, (1 << 24) + total, (1 << 25) + total, 10) == PCOLL_SUCCESS);
    CHECK(l.n == 6 && l.s[5].len == 15);
    pcoll__gpu_segs_free(&l);
    CHECK(l.n == 0 && l.s == NULL);
}

/* Pack count items of type from a buffer into a contiguous one with the
 * segments, and back, against MPI_Pack and MPI_Unpack. */
static void test_type(MPI_Datatype type, int count, const char *name)
{
    pcoll__blocks_t from = {0}, to = {0};
    pcoll__gpu_segs_t l = {0};
    MPI_Aint lb, ext, tlb, text;
    int size, pos = 0, i;
    size_t span;
    unsigned char *src, *packed, *mine, *back, *ref;
    MPI_Type_get_extent(type, &lb, &ext);
    MPI_Type_get_true_extent(type, &tlb, &text);
    MPI_Type_size(type, &size);
    span = (size_t)(tlb + (MPI_Aint)(count - 1) * ext + text) + 1;
    src = malloc(span), back = malloc(span), ref = malloc(span);
    packed = malloc((size_t)size * count + 1), mine = malloc((size_t)size * count + 1);
    for (i = 0; i < (int)span; i++)
        src[i] = (unsigned char)(i * 7 + 1);
    MPI_Pack(src, count, type, packed, size * count, &pos, MPI_COMM_SELF);
    place(type, count, &from);
    CHECK(pcoll__blocks_push(&to, 0, 1, (long long)size * count, MPI_BYTE) == PCOLL_SUCCESS);
    CHECK(pcoll__gpu_segs_zip(&l, &from, (long long)(intptr_t)src, &to,
                              (long long)(intptr_t)mine) == PCOLL_SUCCESS);
    memset(mine, 0, (size_t)size * count);
    apply(&l);
    if (memcmp(mine, packed, (size_t)size * count) != 0) {
        fprintf(stderr, "FAIL: %s x %d: packed by segments differs from MPI_Pack\n", name, count);
        failures++;
    }
    /* And back: the contiguous bytes into the type's layout. */
    l.n = 0;
    CHECK(pcoll__gpu_segs_zip(&l, &to, (long long)(intptr_t)packed, &from,
                              (long long)(intptr_t)back) == PCOLL_SUCCESS);
    memset(back, 0xee, span), memset(ref, 0xee, span);
    apply(&l);
    pos = 0;
    MPI_Unpack(packed, size * count, &pos, ref, count, type, MPI_COMM_SELF);
    if (memcmp(back, ref, span) != 0) {
        fprintf(stderr, "FAIL: %s x %d: unpacked by segments differs from MPI_Unpack\n", name,
                count);
        failures++;
    }
    /* Different byte counts: refused. */
    pcoll__blocks_free(&to);
    CHECK(pcoll__blocks_push(&to, 0, 1, (long long)size * count + 1, MPI_BYTE) == PCOLL_SUCCESS);
    CHECK(pcoll__gpu_segs_zip(&l, &from, 0, &to, 0) == PCOLL_ERR_MISMATCH);
    pcoll__gpu_segs_free(&l);
    pcoll__blocks_free(&from);
    pcoll__blocks_free(&to);
    free(src), free(back), free(ref), free(packed), free(mine);
}

/* compose: a list from src into a middle buffer (blocks in a permuted
 * order, lengths cut differently) and one from the middle into dst; the
 * composed list must leave dst as the two applied in turn. */
static void test_compose(void)
{
    enum { N = 3000, B = 7 };
    unsigned char *src = malloc(N), *mid = malloc(N), *dst = malloc(N), *ref = malloc(N);
    pcoll__gpu_segs_t a = {0}, b = {0}, c = {0}, gap = {0};
    long long base_s = (long long)(intptr_t)src, base_m = (long long)(intptr_t)mid;
    long long base_d = (long long)(intptr_t)dst, off;
    int i, blocks = N / 100;
    for (i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7 + 3), mid[i] = dst[i] = ref[i] = 0xEE;
    /* first: block i of 100 bytes to middle block (i * B) % blocks, in two pieces */
    for (i = 0; i < blocks; i++) {
        long long to = base_m + 100LL * ((i * B) % blocks);
        CHECK(pcoll__gpu_segs_push(&a, base_s + 100LL * i, to, 37) == PCOLL_SUCCESS);
        CHECK(pcoll__gpu_segs_push(&a, base_s + 100LL * i + 37, to + 37, 63) == PCOLL_SUCCESS);
    }
    /* second: the middle in pieces of 45 bytes, reversed into dst */
    for (off = 0; off < N; off += 45) {
        long long len = N - off < 45 ? N - off : 45;
        CHECK(pcoll__gpu_segs_push(&b, base_m + off, base_d + N - off - len, len) ==
              PCOLL_SUCCESS);
    }
    apply(&a), apply(&b);
    memcpy(ref, dst, N);
    memset(dst, 0xEE, N);
    CHECK(pcoll__gpu_segs_compose(&c, &a, &b) == PCOLL_SUCCESS);
    for (i = 0; i < c.n; i++) /* every segment straight from src to dst */
        CHECK(c.s[i].src >= base_s && c.s[i].src + c.s[i].len <= base_s + N &&
              c.s[i].dst >= base_d && c.s[i].dst + c.s[i].len <= base_d + N);
    apply(&c);
    CHECK(memcmp(dst, ref, N) == 0);
    /* A byte of the middle that second does not read: refused. */
    CHECK(pcoll__gpu_segs_push(&gap, base_m, base_d, 10) == PCOLL_SUCCESS);
    pcoll__gpu_segs_free(&c);
    CHECK(pcoll__gpu_segs_compose(&c, &a, &gap) == PCOLL_ERR_INTERNAL);
    pcoll__gpu_segs_free(&a), pcoll__gpu_segs_free(&b), pcoll__gpu_segs_free(&c);
    pcoll__gpu_segs_free(&gap);
    free(src), free(mid), free(dst), free(ref);
}

int main(int argc, char **argv)
{
    MPI_Datatype vec, st, sr;
    int bl[3] = {1, 2, 3};
    MPI_Aint d[3] = {0, 8, 21};
    MPI_Datatype t[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Init(&argc, &argv);
    test_push();
    test_compose();
    test_type(MPI_INT, 100, "int");
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    test_type(vec, 1, "vector");
    test_type(vec, 7, "vector");
    MPI_Type_create_struct(3, bl, d, t, &st);
    MPI_Type_create_resized(st, 0, 32, &sr);
    MPI_Type_commit(&sr);
    test_type(sr, 5, "struct");
    MPI_Type_free(&vec);
    MPI_Type_free(&st);
    MPI_Type_free(&sr);
    printf("gpu_segments: %s\n", failures ? "FAILED" : "ok");
    MPI_Finalize();
    return failures ? 1 : 0;
}
