/*
 * Device buffers (docs/gpu.md): alltoall, alltoallv, reduce_scatter_block
 * and reduce_scatter on device memory, results compared with a host
 * reference (closed form), receive buffers poisoned first and their gaps
 * checked untouched.  Cases: every rank device/device, host/device,
 * device/host, and mixes across ranks (odd ranks device); in place; a vector
 * and a struct type with holes on the receive side; zero counts; the host
 * algorithm under gpu_staged chosen by auto, named (pairwise, native,
 * bruck_zerocopy) and hier on virtual nodes of 2 and 4 ranks; gpu_ipc
 * (alltoall and alltoallv) on physical nodes and virtual nodes of 2 and 3;
 * persistent
 * plans restarted with new input, and the one-shot calls.
 *
 *   test_gpu            real device memory (cudaMalloc); without a GPU it
 *                       prints "skipped: no GPU" and exits 77 (ctest's skip)
 *   test_gpu --quick    fewer cases (for compute-sanitizer): auto and one
 *                       named host algorithm, every gpu_ipc case
 *   test_gpu --pretend  host memory that the library takes for device
 *                       memory (pcoll__gpu_pretend): gpu_staged's copies,
 *                       mirrors and mixes, on any machine
 */
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "pcoll.h"

#ifdef PCOLL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

static int rank, np, pretend, quick, failures, cases;

static void fail(const char *fmt, ...)
{
    va_list ap;
    if (failures++ < 20) {
        fprintf(stderr, "rank %d: FAIL: ", rank);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
}

/* ---- buffers: device (cudaMalloc) or host; filled and read through host images */

typedef struct buf {
    void *p;
    size_t bytes;
    int dev;
} buf_t;

/* gpu_ipc under the pretence: buffers in one shared mapping at the same
 * address in every process of the node, so that the addresses the library
 * takes for IPC handles are valid everywhere.  Each rank owns a slice and
 * allocates from it (reset per case). */
#define ARENA_ADDR ((void *)(uintptr_t)0x5a0000000000ULL)
#define ARENA_SLICE ((size_t)8 << 20)
static char *arena;
static size_t arena_used;
static int use_arena;

static void arena_make(void)
{
    char name[64];
    long id = (long)getpid();
    int fd, ok;
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(name, sizeof name, "/pcoll-gpu-test-%ld", id);
    fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    ok = fd >= 0 && ftruncate(fd, (off_t)(ARENA_SLICE * (size_t)np)) == 0;
    if (ok) {
        void *p = mmap(ARENA_ADDR, ARENA_SLICE * (size_t)np, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
        ok = p == ARENA_ADDR;
        if (p != MAP_FAILED && !ok)
            munmap(p, ARENA_SLICE * (size_t)np);
        arena = ok ? (char *)p + ARENA_SLICE * (size_t)rank : NULL;
    }
    if (fd >= 0)
        close(fd);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        shm_unlink(name);
    if (!ok)
        arena = NULL;
}

static void buf_make(buf_t *b, size_t bytes, int dev)
{
    b->bytes = bytes ? bytes : 1;
    b->dev = dev && !pretend;
    if (use_arena && pretend) {
        b->p = arena + arena_used;
        arena_used += (b->bytes + 63) / 64 * 64;
        if (arena_used > ARENA_SLICE)
            MPI_Abort(MPI_COMM_WORLD, 3);
        return;
    }
#ifdef PCOLL_HAVE_CUDA
    if (b->dev) {
        if (cudaMalloc(&b->p, b->bytes) != cudaSuccess) {
            fprintf(stderr, "cudaMalloc of %zu bytes failed\n", b->bytes);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        return;
    }
#endif
    b->p = malloc(b->bytes);
}

static void buf_put(buf_t *b, const void *img)
{
#ifdef PCOLL_HAVE_CUDA
    if (b->dev) {
        /* From pageable memory the copy can return before the device memory
         * is written; pcoll_start needs the writes complete (pcoll.h), and
         * gpu_ipc's leader reads this buffer from another process. */
        cudaMemcpy(b->p, img, b->bytes, cudaMemcpyHostToDevice);
        cudaDeviceSynchronize();
        return;
    }
#endif
    memcpy(b->p, img, b->bytes);
}

static void buf_get(const buf_t *b, void *img)
{
#ifdef PCOLL_HAVE_CUDA
    if (b->dev) {
        cudaMemcpy(img, b->p, b->bytes, cudaMemcpyDeviceToHost);
        return;
    }
#endif
    memcpy(img, b->p, b->bytes);
}

static void buf_free(buf_t *b)
{
    if (use_arena && pretend) {
        arena_used = 0;
        return;
    }
#ifdef PCOLL_HAVE_CUDA
    if (b->dev) {
        cudaFree(b->p);
        return;
    }
#endif
    free(b->p);
}

/* ---- layouts: where the ints of items lie ----------------------------------- */

typedef struct layout {
    const char *name;
    MPI_Datatype type;
    int per;          /* ints per item */
    MPI_Aint off[2];  /* their byte offsets in the item */
    MPI_Aint ext;
} layout_t;

static layout_t layouts[3];

static void layouts_make(void)
{
    MPI_Datatype v, s;
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype t[2] = {MPI_INT, MPI_INT};
    layouts[0] = (layout_t){"int", MPI_INT, 1, {0, 0}, 4};
    MPI_Type_vector(2, 1, 2, MPI_INT, &v); /* ints at 0 and 8, extent 12 */
    MPI_Type_commit(&v);
    layouts[1] = (layout_t){"vector", v, 2, {0, 8}, 12};
    MPI_Type_create_struct(2, bl, d, t, &s);
    MPI_Type_create_resized(s, 0, 16, &v); /* ints at 0 and 8, extent 16 */
    MPI_Type_free(&s);
    MPI_Type_commit(&v);
    layouts[2] = (layout_t){"struct", v, 2, {0, 8}, 16};
}

/* Int j of a run of items starting at byte base. */
static MPI_Aint int_at(const layout_t *l, MPI_Aint base, long j)
{
    return base + (MPI_Aint)(j / l->per) * l->ext + l->off[j % l->per];
}

#define POISON 0x7b

static int value(int src, int dst, long j, int run)
{
    return src * 1000000 + dst * 10000 + (int)j * 3 + run * 7;
}

/* ---- cases ------------------------------------------------------------------ */

enum kinds { ALL_DD, ALL_HD, ALL_DH, MIXED, NKINDS };
static const char *const kind_names[] = {"dev/dev", "host/dev", "dev/host", "odd ranks dev"};

static void kinds_of(int kind, int r, int *sdev, int *rdev)
{
    *sdev = kind == ALL_DD || kind == ALL_DH || (kind == MIXED && r % 2);
    *rdev = kind == ALL_DD || kind == ALL_HD || (kind == MIXED && r % 2);
}

typedef struct algo {
    const char *name;       /* pcoll_algorithm (NULL: auto) */
    const char *host;       /* pcoll_gpu_host_algorithm (NULL: none) */
    const char *vnode;      /* pcoll_cores_per_node (NULL: none) */
    int persistent_only;
} algo_t;

static MPI_Info info_of(const algo_t *a)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (a->name)
        MPI_Info_set(info, "pcoll_algorithm", a->name);
    if (a->host)
        MPI_Info_set(info, "pcoll_gpu_host_algorithm", a->host);
    if (a->vnode)
        MPI_Info_set(info, "pcoll_cores_per_node", a->vnode);
    return info;
}

/* Whether some rank's buffers are on the device (in place: the receive
 * buffer alone is a buffer; MPI_IN_PLACE says nothing of the send kind). */
static int any_device(int kind, int inplace)
{
    int r, s, d, any = 0;
    for (r = 0; r < np; r++) {
        kinds_of(kind, r, &s, &d);
        any |= (s && !inplace) || d;
    }
    return any;
}

/* Pretend (no real device memory): this rank's buffers count as device when
 * the case puts either of them there (1), else host with the agreement (2). */
static void pretend_for(int kind)
{
    int s, d;
    if (!pretend)
        return;
    kinds_of(kind, rank, &s, &d);
    pcoll__gpu_pretend = s || d ? 1 : 2;
}

/* data: this rank moves something (auto's choice is checked where some
 * rank does: an empty plan builds nothing). */
static void check_algorithm(pcoll_plan_t *plan, const algo_t *a, int kind, int inplace,
                            int data, const char *what)
{
    const char *got = pcoll_plan_algorithm(plan);
    int any = 0;
    MPI_Allreduce(&data, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!any)
        return;
    if (a->name && strcmp(got, a->name) != 0)
        fail("%s: algorithm %s, requested %s", what, got, a->name);
    /* Auto: gpu_staged, or gpu_ipc where every buffer is on the device. */
    if (!a->name && any_device(kind, inplace) && strcmp(got, "gpu_staged") != 0 &&
        !(kind == ALL_DD && !inplace && strcmp(got, "gpu_ipc") == 0))
        fail("%s: auto took %s with device buffers", what, got);
}

/* One-shot: a rank with device buffers and data runs gpu_staged (decided
 * alone), whatever the others run. */
static void check_oneshot(int sdev, int rdev, int data, const char *what)
{
    if ((sdev || rdev) && data && strcmp(pcoll__last_run_algorithm, "gpu_staged") != 0)
        fail("%s: one-shot ran %s on device buffers", what, pcoll__last_run_algorithm);
}

/* Compare the receive image with the expected one (poison in the gaps). */
static void compare(const unsigned char *got, const unsigned char *want, size_t bytes,
                    const char *what)
{
    size_t i;
    for (i = 0; i < bytes; i++)
        if (got[i] != want[i]) {
            fail("%s: byte %zu is %d, expected %d", what, i, got[i], want[i]);
            return;
        }
}

/* The start of a case of `kind`: counted, the pretence set, the send and
 * receive buffers made where the kind puts this rank's (sdev, rdev: where,
 * when wanted). */
static void case_begin(int kind, buf_t *sb, size_t sbytes, buf_t *rb, size_t rbytes, int *sdev,
                       int *rdev)
{
    int s, r;
    cases++;
    kinds_of(kind, rank, &s, &r);
    pretend_for(kind);
    buf_make(sb, sbytes, s);
    buf_make(rb, rbytes, r);
    if (sdev)
        *sdev = s, *rdev = r;
}

/* The end of a case: the plan, the info and both buffers freed. */
static void case_end(pcoll_plan_t **plan, MPI_Info *info, buf_t *sb, buf_t *rb)
{
    pcoll_plan_free(plan);
    MPI_Info_free(info);
    buf_free(sb);
    buf_free(rb);
}

/* Start a plan and wait for it. */
static int run_plan(pcoll_plan_t *plan)
{
    int rc = pcoll_start(plan);
    return rc == PCOLL_SUCCESS ? pcoll_wait(plan) : rc;
}

/* After run `run` returned rc: 0 on failure (reported), else the receive
 * buffer fetched into rimg and compared with want (bytes). */
static int check_run(int rc, int run, const buf_t *rb, void *rimg, const void *want, size_t bytes,
                     const char *what)
{
    if (rc != PCOLL_SUCCESS) {
        fail("%s: run %d: %s (%s)", what, run, pcoll_err_name(rc), pcoll_last_error());
        return 0;
    }
    buf_get(rb, rimg);
    compare(rimg, want, bytes, what);
    return 1;
}

/* alltoall: m ints per block; send layout ls (m / ls->per items), receive
 * layout lr; in place: the receive buffer holds the input. */
static void case_alltoall(const layout_t *ls, const layout_t *lr, int m, int kind, int inplace,
                          const algo_t *a, int persistent)
{
    char what[256];
    int sdev, rdev, run, d, s, rc;
    long j;
    int scount = m / ls->per, rcount = m / lr->per;
    size_t sbytes = (size_t)np * (size_t)scount * (size_t)ls->ext;
    size_t rbytes = (size_t)np * (size_t)rcount * (size_t)lr->ext;
    unsigned char *simg = malloc(sbytes + 1), *rimg = malloc(rbytes + 1), *want = malloc(rbytes + 1);
    buf_t sb, rb;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = info_of(a);
    snprintf(what, sizeof what, "alltoall %s %s->%s m=%d %s%s %s%s%s", persistent ? "init" : "oneshot",
             ls->name, lr->name, m, kind_names[kind], inplace ? " in place" : "",
             a->name ? a->name : "auto", a->host ? "+" : "", a->host ? a->host : "");
    case_begin(kind, &sb, sbytes, &rb, rbytes, &sdev, &rdev);
    for (run = 0; run < (persistent ? 2 : 1); run++) {
        memset(simg, 0x5a, sbytes);
        memset(rimg, POISON, rbytes);
        memset(want, POISON, rbytes);
        for (d = 0; d < np; d++)
            for (j = 0; j < m; j++) {
                int v = value(rank, d, j, run);
                if (inplace)
                    memcpy(rimg + int_at(lr, (MPI_Aint)d * rcount * lr->ext, j), &v, sizeof v);
                else
                    memcpy(simg + int_at(ls, (MPI_Aint)d * scount * ls->ext, j), &v, sizeof v);
            }
        for (s = 0; s < np; s++)
            for (j = 0; j < m; j++) {
                int v = value(s, rank, j, run);
                memcpy(want + int_at(lr, (MPI_Aint)s * rcount * lr->ext, j), &v, sizeof v);
            }
        buf_put(&sb, simg);
        buf_put(&rb, rimg);
        if (persistent) {
            if (run == 0) {
                rc = pcoll_alltoall_init(inplace ? MPI_IN_PLACE : sb.p, scount, ls->type, rb.p,
                                         rcount, lr->type, MPI_COMM_WORLD, info, &plan);
                if (rc != PCOLL_SUCCESS) {
                    fail("%s: init: %s (%s)", what, pcoll_err_name(rc), pcoll_last_error());
                    break;
                }
                check_algorithm(plan, a, kind, inplace, m > 0, what);
            }
            rc = run_plan(plan);
        } else {
            rc = pcoll_alltoall(inplace ? MPI_IN_PLACE : sb.p, scount, ls->type, rb.p, rcount,
                                lr->type, MPI_COMM_WORLD);
            check_oneshot(sdev && !inplace, rdev, m > 0, what);
        }
        if (!check_run(rc, run, &rb, rimg, want, rbytes, what))
            break;
    }
    case_end(&plan, &info, &sb, &rb);
    free(simg), free(rimg), free(want);
    pcoll__gpu_pretend = 0;
}

/* alltoallv on layout l: cnt(s, d) items from s to d (zeros included), one
 * item of gap between peers' blocks. */
static int cnt(int s, int d)
{
    return (s + 2 * d) % 3;
}

static void case_alltoallv(const layout_t *l, int kind, int inplace, const algo_t *a,
                           int persistent)
{
    char what[256];
    int sdev, rdev, run, d, rc;
    long j;
    int *sc = calloc((size_t)np, sizeof(int)), *rc_ = calloc((size_t)np, sizeof(int));
    int *sd = calloc((size_t)np, sizeof(int)), *rd = calloc((size_t)np, sizeof(int));
    int sitems = 0, ritems = 0, data = 0;
    size_t sbytes, rbytes;
    unsigned char *simg, *rimg, *want;
    buf_t sb, rb;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = info_of(a);
    for (d = 0; d < np; d++) {
        sc[d] = cnt(rank, d), sd[d] = sitems, sitems += sc[d] + 1;
        rc_[d] = inplace ? cnt(rank, d) : cnt(d, rank), rd[d] = ritems, ritems += rc_[d] + 1;
    }
    if (inplace) /* MPI_IN_PLACE: symmetric counts */
        for (d = 0; d < np; d++)
            rc_[d] = cnt(rank, d) == cnt(d, rank) ? rc_[d] : 0;
    for (d = 0; d < np; d++)
        data += rc_[d] + (inplace ? 0 : sc[d]);
    sbytes = (size_t)sitems * (size_t)l->ext, rbytes = (size_t)ritems * (size_t)l->ext;
    simg = malloc(sbytes), rimg = malloc(rbytes), want = malloc(rbytes);
    snprintf(what, sizeof what, "alltoallv %s %s %s%s %s%s%s", persistent ? "init" : "oneshot",
             l->name, kind_names[kind], inplace ? " in place" : "", a->name ? a->name : "auto",
             a->host ? "+" : "", a->host ? a->host : "");
    case_begin(kind, &sb, sbytes, &rb, rbytes, &sdev, &rdev);
    for (run = 0; run < (persistent ? 2 : 1); run++) {
        memset(simg, 0x5a, sbytes);
        memset(rimg, POISON, rbytes);
        memset(want, POISON, rbytes);
        for (d = 0; d < np; d++) {
            for (j = 0; j < (long)rc_[d] * l->per; j++) {
                int v = value(d, rank, j, run), w = value(rank, d, j, run);
                memcpy(want + int_at(l, (MPI_Aint)rd[d] * l->ext, j), &v, sizeof v);
                if (inplace)
                    memcpy(rimg + int_at(l, (MPI_Aint)rd[d] * l->ext, j), &w, sizeof w);
            }
            for (j = 0; !inplace && j < (long)sc[d] * l->per; j++) {
                int w = value(rank, d, j, run);
                memcpy(simg + int_at(l, (MPI_Aint)sd[d] * l->ext, j), &w, sizeof w);
            }
        }
        buf_put(&sb, simg);
        buf_put(&rb, rimg);
        if (persistent) {
            if (run == 0) {
                rc = pcoll_alltoallv_init(inplace ? MPI_IN_PLACE : sb.p, sc, sd, l->type, rb.p,
                                          rc_, rd, l->type, MPI_COMM_WORLD, info, &plan);
                if (rc != PCOLL_SUCCESS) {
                    fail("%s: init: %s (%s)", what, pcoll_err_name(rc), pcoll_last_error());
                    break;
                }
                check_algorithm(plan, a, kind, inplace, data > 0, what);
            }
            rc = run_plan(plan);
        } else {
            rc = pcoll_alltoallv(inplace ? MPI_IN_PLACE : sb.p, sc, sd, l->type, rb.p, rc_, rd,
                                 l->type, MPI_COMM_WORLD);
            check_oneshot(sdev && !inplace, rdev, data > 0, what);
        }
        if (!check_run(rc, run, &rb, rimg, want, rbytes, what))
            break;
    }
    case_end(&plan, &info, &sb, &rb);
    free(simg), free(rimg), free(want);
    free(sc), free(rc_), free(sd), free(rd);
    pcoll__gpu_pretend = 0;
}

/* reduce_scatter (block: c ints each; else counts[i] = (i + c) % 3) with
 * MPI_SUM on ints: element e of rank r's input is r + e + run. */
static void case_reduce_scatter(int block, int c, int kind, int inplace, const algo_t *a,
                                int persistent)
{
    char what[256];
    int sdev, rdev, run, i, rc, total = 0, mine, first = 0;
    int *counts = malloc(sizeof(int) * (size_t)np);
    int *simg, *rimg, *want;
    size_t sbytes, rbytes;
    buf_t sb, rb;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = info_of(a);
    for (i = 0; i < np; i++) {
        counts[i] = block ? c : (i + c) % 3;
        if (i < rank)
            first += counts[i];
        total += counts[i];
    }
    mine = counts[rank];
    sbytes = sizeof(int) * (size_t)total;
    rbytes = sizeof(int) * (size_t)(inplace ? total : mine);
    simg = malloc(sbytes + 4), rimg = malloc(rbytes + 4), want = malloc(rbytes + 4);
    snprintf(what, sizeof what, "reduce_scatter%s %s c=%d %s%s %s%s%s", block ? "_block" : "",
             persistent ? "init" : "oneshot", c, kind_names[kind], inplace ? " in place" : "",
             a->name ? a->name : "auto", a->host ? "+" : "", a->host ? a->host : "");
    case_begin(kind, &sb, sbytes, &rb, rbytes, &sdev, &rdev);
    for (run = 0; run < (persistent ? 2 : 1); run++) {
        memset(rimg, POISON, rbytes);
        for (i = 0; i < total; i++)
            simg[i] = rank + i + run;
        if (inplace)
            memcpy(rimg, simg, sbytes);
        for (i = 0; i < mine; i++)
            want[i] = np * (np - 1) / 2 + np * (first + i + run);
        buf_put(&sb, simg);
        buf_put(&rb, rimg);
        if (persistent) {
            if (run == 0) {
                rc = block ? pcoll_reduce_scatter_block_init(inplace ? MPI_IN_PLACE : sb.p, rb.p,
                                                             c, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                             info, &plan)
                           : pcoll_reduce_scatter_init(inplace ? MPI_IN_PLACE : sb.p, rb.p,
                                                       counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                                       info, &plan);
                if (rc != PCOLL_SUCCESS) {
                    fail("%s: init: %s (%s)", what, pcoll_err_name(rc), pcoll_last_error());
                    break;
                }
                check_algorithm(plan, a, kind, inplace, total > 0, what);
            }
            rc = run_plan(plan);
        } else {
            rc = block ? pcoll_reduce_scatter_block(inplace ? MPI_IN_PLACE : sb.p, rb.p, c,
                                                    MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                       : pcoll_reduce_scatter(inplace ? MPI_IN_PLACE : sb.p, rb.p, counts,
                                              MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        if (!check_run(rc, run, &rb, rimg, want, sizeof(int) * (size_t)mine, what))
            break;
    }
    case_end(&plan, &info, &sb, &rb);
    free(simg), free(rimg), free(want), free(counts);
    pcoll__gpu_pretend = 0;
}

/* reduce_scatter_block with `type` and `op` on device buffers of every
 * rank (persistent, c elements a rank, run twice with new input) against
 * the MPI's own call on host copies: the device reduction kernel's
 * operations and types under gpu_ipc (and what falls back to gpu_staged:
 * a user op, several virtual nodes). */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;
    (void)type;
    for (i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

static void case_rs_op(MPI_Datatype type, MPI_Op op, const char *name, const algo_t *a)
{
    enum { C = 5 };
    pcoll_plan_t *plan = NULL;
    MPI_Info info = info_of(a);
    buf_t sb, rb;
    int size = 0, run, rc;
    size_t i, sbytes, rbytes;
    unsigned char *simg, *rimg, *want;
    char what[160];
    MPI_Type_size(type, &size);
    sbytes = (size_t)size * C * (size_t)np, rbytes = (size_t)size * C;
    simg = malloc(sbytes), rimg = malloc(rbytes), want = malloc(rbytes);
    snprintf(what, sizeof what, "reduce_scatter_block init %s %s%s%s", name,
             a->name ? a->name : "auto", a->vnode ? " nodes of " : "", a->vnode ? a->vnode : "");
    case_begin(ALL_DD, &sb, sbytes, &rb, rbytes, NULL, NULL);
    for (run = 0; run < 2; run++) {
        /* Small values, 1..3 in the low byte: products stay in range, floats exact. */
        for (i = 0; i < sbytes; i++)
            simg[i] = (unsigned char)(i % (size_t)size
                                          ? 0
                                          : 1 + (i / (size_t)size + (size_t)rank + (size_t)run) % 3);
        memset(rimg, POISON, rbytes);
        if (type == MPI_FLOAT || type == MPI_DOUBLE) /* as numbers, not bytes */
            for (i = 0; i < sbytes / (size_t)size; i++) {
                double v = (double)(1 + (i + (size_t)rank + (size_t)run) % 3);
                if (type == MPI_FLOAT)
                    ((float *)simg)[i] = (float)v;
                else
                    ((double *)simg)[i] = v;
            }
        MPI_Reduce_scatter_block(simg, want, C, type, op, MPI_COMM_WORLD);
        buf_put(&sb, simg);
        buf_put(&rb, rimg);
        if (run == 0) {
            rc = pcoll_reduce_scatter_block_init(sb.p, rb.p, C, type, op, MPI_COMM_WORLD, info,
                                                 &plan);
            if (rc != PCOLL_SUCCESS) {
                fail("%s: init: %s (%s)", what, pcoll_err_name(rc), pcoll_last_error());
                break;
            }
            check_algorithm(plan, a, ALL_DD, 0, 1, what);
        }
        rc = run_plan(plan);
        if (!check_run(rc, run, &rb, rimg, want, rbytes, what))
            break;
    }
    case_end(&plan, &info, &sb, &rb);
    free(simg), free(rimg), free(want);
    pcoll__gpu_pretend = 0;
}

static void cases_rs_ops(void)
{
    static const algo_t algos[] = {{"gpu_ipc", NULL, NULL, 1}, {NULL, NULL, NULL, 1},
                                   {"gpu_ipc", NULL, "2", 1}};
    struct {
        MPI_Datatype type;
        MPI_Op op;
        const char *name;
    } pairs[] = {
        {MPI_INT, MPI_SUM, "int sum"},
        {MPI_DOUBLE, MPI_MAX, "double max"},
        {MPI_FLOAT, MPI_MIN, "float min"},
        {MPI_FLOAT, MPI_SUM, "float sum"},
        {MPI_SIGNED_CHAR, MPI_MIN, "signed char min"},
        {MPI_UNSIGNED_CHAR, MPI_BXOR, "unsigned char bxor"},
        {MPI_SHORT, MPI_LAND, "short land"},
        {MPI_UNSIGNED, MPI_LXOR, "unsigned lxor"},
        {MPI_LONG_LONG, MPI_PROD, "long long prod"},
        {MPI_INT64_T, MPI_MAX, "int64 max"},
        {MPI_UINT64_T, MPI_BOR, "uint64 bor"},
        {MPI_UINT16_T, MPI_LOR, "uint16 lor"},
        {MPI_BYTE, MPI_BAND, "byte band"},
        {MPI_INT, MPI_OP_NULL, "int user op (gpu_staged)"},
    };
    MPI_Op user;
    size_t i, k;
    MPI_Op_create(user_sum, 0, &user);
    pairs[sizeof pairs / sizeof *pairs - 1].op = user;
    for (k = 0; k < sizeof algos / sizeof *algos; k++)
        for (i = 0; i < sizeof pairs / sizeof *pairs; i++)
            if (k == 0 || i == 0 || i + 1 == sizeof pairs / sizeof *pairs)
                case_rs_op(pairs[i].type, pairs[i].op, pairs[i].name, &algos[k]);
    MPI_Op_free(&user);
}

/* ---- main ------------------------------------------------------------------- */

static int gpus(void)
{
    int n = 0, all = 0;
#ifdef PCOLL_HAVE_CUDA
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        n = 0;
#endif
    MPI_Allreduce(&n, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

int main(int argc, char **argv)
{
    static const algo_t a2a_algos[] = {
        {NULL, NULL, NULL, 0},
        {"gpu_staged", "pairwise", NULL, 0},
        {"gpu_staged", "bruck_zerocopy", NULL, 0},
        {"gpu_staged", "native", NULL, 0},
        {NULL, "hier", "2", 1},
        {"gpu_staged", "hier", "4", 1},
        {"gpu_ipc", NULL, "2", 1}, /* gpu_staged where not device everywhere, or in place */
    };
    static const algo_t rs_algos[] = {
        {NULL, NULL, NULL, 0},
        {"gpu_staged", "recursive_halving", NULL, 0},
        {"gpu_staged", "native", NULL, 0},
        {"gpu_ipc", NULL, NULL, 1}, /* gpu_staged where not device everywhere, or in place */
    };
    int i, k, l, ip, persistent, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (i = 1; i < argc; i++) {
        pretend |= strcmp(argv[i], "--pretend") == 0;
        quick |= strcmp(argv[i], "--quick") == 0;
    }
    if (!pretend) {
        if (gpus() == 0) {
            if (rank == 0)
                printf("skipped: no GPU\n");
            MPI_Finalize();
            return 77;
        }
#ifdef PCOLL_HAVE_CUDA
        cudaSetDevice(0);
#endif
    }
    layouts_make();
    if (pretend)
        arena_make();
    for (persistent = 1; persistent >= 0; persistent--)
        for (i = 0; i < (int)(sizeof a2a_algos / sizeof *a2a_algos); i++) {
            const algo_t *a = &a2a_algos[i];
            if (a->persistent_only && !persistent)
                continue;
            use_arena = a->name && strcmp(a->name, "gpu_ipc") == 0;
            if (use_arena && pretend && !arena)
                continue;
            if (quick && i > 1)
                continue;
            for (k = 0; k < NKINDS; k++)
                for (ip = 0; ip < 2; ip++) {
                    if (quick && (k == ALL_HD || k == ALL_DH))
                        continue;
                    case_alltoall(&layouts[0], &layouts[0], 3, k, ip, a, persistent);
                    if (i > 3)
                        continue; /* the types once, under the flat algorithms */
                    case_alltoall(&layouts[0], &layouts[0], 0, k, ip, a, persistent);
                    for (l = 1; l < 3; l++)
                        case_alltoall(ip ? &layouts[l] : &layouts[0], &layouts[l], 4, k, ip, a,
                                      persistent);
                    /* alltoallv's bruck_zerocopy needs nearly regular sizes. */
                    if (strcmp(a->host ? a->host : "", "bruck_zerocopy") == 0)
                        continue;
                    for (l = 0; l < 3; l++)
                        case_alltoallv(&layouts[l], k, ip, a, persistent);
                }
        }
    for (persistent = 1; persistent >= 0; persistent--)
        for (i = 0; i < (quick ? 1 : (int)(sizeof rs_algos / sizeof *rs_algos)); i++)
            for (k = 0; k < NKINDS; k++)
                for (ip = 0; ip < 2; ip++) {
                    use_arena = rs_algos[i].name && strcmp(rs_algos[i].name, "gpu_ipc") == 0;
                    if ((rs_algos[i].persistent_only && !persistent) ||
                        (use_arena && pretend && !arena))
                        continue;
                    case_reduce_scatter(1, 3, k, ip, &rs_algos[i], persistent);
                    case_reduce_scatter(1, 0, k, ip, &rs_algos[i], persistent);
                    case_reduce_scatter(0, 1, k, ip, &rs_algos[i], persistent);
                }
    /* gpu_ipc: device buffers on every rank, persistent, not in place; on
     * physical nodes and virtual nodes of 2 and 3. */
    if (!pretend || arena) {
        static const algo_t ipc[] = {{"gpu_ipc", NULL, NULL, 1}, {"gpu_ipc", NULL, "2", 1},
                                     {"gpu_ipc", NULL, "3", 1}};
        use_arena = 1;
        for (i = 0; i < 3; i++) {
            case_alltoall(&layouts[0], &layouts[0], 3, ALL_DD, 0, &ipc[i], 1);
            case_alltoall(&layouts[0], &layouts[0], 5000, ALL_DD, 0, &ipc[i], 1);
            for (l = 1; l < 3; l++)
                case_alltoall(&layouts[0], &layouts[l], 4, ALL_DD, 0, &ipc[i], 1);
            case_alltoall(&layouts[2], &layouts[1], 6, ALL_DD, 0, &ipc[i], 1);
            for (l = 0; l < 3; l++)
                case_alltoallv(&layouts[l], ALL_DD, 0, &ipc[i], 1);
            /* gpu_staged underneath: in place, and host buffers on even ranks */
            case_alltoallv(&layouts[1], ALL_DD, 1, &ipc[i], 1);
            case_alltoallv(&layouts[0], MIXED, 0, &ipc[i], 1);
        }
        cases_rs_ops();
        use_arena = 0;
    } else if (rank == 0) {
        printf("gpu_ipc cases skipped: no shared mapping at a fixed address\n");
    }
    for (l = 1; l < 3; l++)
        MPI_Type_free(&layouts[l].type);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("gpu%s: np %d, %d cases, %d failures\n", pretend ? " (pretend)" : "", np, cases,
               total);
    MPI_Finalize();
    return total ? 1 : 0;
}
