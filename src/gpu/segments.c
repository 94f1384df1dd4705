/*
 * Segment lists of the multi-buffer copy kernel (gpu.h): (source,
 * destination, length) triples that one kernel launch copies at once, the
 * paper's copy "from multiple source buffers to multiple destination
 * buffers" (shared/papers/multicore-alltoall-pencil-fft.txt, section III-C).
 * Built on the host at init, from plain buffers or from pcoll's flattened
 * type maps (derived datatypes are packed by the same kernel); host code
 * only, so it is tested without a GPU (tests/unit/test_gpu_segments.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "gpu/gpu.h"

static int push_one(pcoll__gpu_segs_t *l, long long src, long long dst, long long len)
{
    if (l->n == l->cap) {
        long cap = l->cap ? 2 * l->cap : 16;
        pcoll__gpu_seg_t *s = pcoll__realloc(l->s, (size_t)cap * sizeof *s);
        if (!s)
            return pcoll__error(PCOLL_ERR_NOMEM, "device buffers: segment list of %ld entries",
                                cap);
        l->s = s;
        l->cap = cap;
    }
    l->s[l->n++] = (pcoll__gpu_seg_t){src, dst, len};
    return PCOLL_SUCCESS;
}

int pcoll__gpu_segs_push(pcoll__gpu_segs_t *l, long long src, long long dst, long long len)
{
    int rc = PCOLL_SUCCESS;
    if (len <= 0)
        return PCOLL_SUCCESS;
    /* Continue the last segment up to a whole chunk. */
    if (l->n) {
        pcoll__gpu_seg_t *last = &l->s[l->n - 1];
        if (last->src + last->len == src && last->dst + last->len == dst &&
            last->len < PCOLL__GPU_SEG_CHUNK) {
            long long add = PCOLL__GPU_SEG_CHUNK - last->len;
            if (add > len)
                add = len;
            last->len += add;
            src += add, dst += add, len -= add;
        }
    }
    while (len > 0 && rc == PCOLL_SUCCESS) {
        long long take = len < PCOLL__GPU_SEG_CHUNK ? len : PCOLL__GPU_SEG_CHUNK;
        rc = push_one(l, src, dst, take);
        src += take, dst += take, len -= take;
    }
    return rc;
}

/* A walk over a type map's bytes: one run of contiguous bytes at a time. */
typedef struct walk {
    const pcoll__blocks_t *b;
    long long base;
    long blk;          /* current block */
    long long item;    /* item within it */
    long long off;     /* bytes of the item (run) already taken */
    long long isize;   /* bytes of one item of the current block */
    int contig;        /* the block's items touch: the block is one run */
} walk_t;

static void walk_enter(walk_t *w)
{
    while (w->blk < w->b->n && w->b->b[w->blk].len == 0)
        w->blk++;
    if (w->blk < w->b->n) {
        const pcoll__block_t *k = &w->b->b[w->blk];
        int size = 0;
        MPI_Type_size(k->type, &size);
        w->isize = size;
        w->contig = k->ext == size;
    }
}

/* Bytes left in the current run and its address; 0 at the end. */
static long long walk_run(const walk_t *w, long long *addr)
{
    const pcoll__block_t *k;
    if (w->blk >= w->b->n)
        return 0;
    k = &w->b->b[w->blk];
    *addr = w->base + k->disp + w->item * k->ext + w->off;
    return w->contig ? k->len * w->isize - w->off : w->isize - w->off;
}

static void walk_take(walk_t *w, long long n)
{
    const pcoll__block_t *k = &w->b->b[w->blk];
    long long run = w->contig ? k->len * w->isize : w->isize;
    w->off += n;
    if (w->off < run)
        return;
    w->off = 0;
    if (!w->contig && ++w->item < k->len)
        return;
    w->item = 0;
    w->blk++;
    walk_enter(w);
}

int pcoll__gpu_segs_zip(pcoll__gpu_segs_t *l, const pcoll__blocks_t *from, long long from_base,
                        const pcoll__blocks_t *to, long long to_base)
{
    walk_t f = {from, from_base, 0, 0, 0, 0, 0}, t = {to, to_base, 0, 0, 0, 0, 0};
    long long fa = 0, ta = 0, fn, tn;
    int rc = PCOLL_SUCCESS;
    walk_enter(&f);
    walk_enter(&t);
    for (;;) {
        fn = walk_run(&f, &fa);
        tn = walk_run(&t, &ta);
        if (!fn || !tn)
            break;
        if (fn > tn)
            fn = tn;
        if ((rc = pcoll__gpu_segs_push(l, fa, ta, fn)) != PCOLL_SUCCESS)
            return rc;
        walk_take(&f, fn);
        walk_take(&t, fn);
    }
    if (fn || tn)
        return pcoll__error(PCOLL_ERR_MISMATCH,
                            "device buffers: the two type maps hold different byte counts");
    return rc;
}

static int by_src(const void *x, const void *y)
{
    long long a = ((const pcoll__gpu_seg_t *)x)->src, b = ((const pcoll__gpu_seg_t *)y)->src;
    return a < b ? -1 : a > b;
}

/* The index of the last segment of sorted (by src) starting at or before
 * addr, -1 if none. */
static long at_or_before(const pcoll__gpu_seg_t *sorted, long n, long long addr)
{
    long lo = 0, hi = n; /* first with src > addr */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (sorted[mid].src <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

int pcoll__gpu_segs_compose(pcoll__gpu_segs_t *l, const pcoll__gpu_segs_t *first,
                            const pcoll__gpu_segs_t *second)
{
    pcoll__gpu_seg_t *sorted = NULL;
    long i, k;
    int rc = PCOLL_SUCCESS;
    if (!first->n)
        return PCOLL_SUCCESS;
    if (!(sorted = pcoll__malloc(sizeof *sorted * (size_t)(second->n ? second->n : 1))))
        return pcoll__error(PCOLL_ERR_NOMEM, "device buffers: segment list of %ld entries",
                            second->n);
    if (second->n)
        memcpy(sorted, second->s, sizeof *sorted * (size_t)second->n);
    qsort(sorted, (size_t)second->n, sizeof *sorted, by_src);
    for (i = 0; i < first->n && rc == PCOLL_SUCCESS; i++) {
        long long src = first->s[i].src, mid = first->s[i].dst, len = first->s[i].len;
        k = at_or_before(sorted, second->n, mid);
        while (len > 0 && rc == PCOLL_SUCCESS) {
            long long skip, take;
            if (k < 0 || k >= second->n || mid < sorted[k].src ||
                mid >= sorted[k].src + sorted[k].len) {
                rc = pcoll__error(PCOLL_ERR_INTERNAL,
                                  "device buffers: composed segment lists do not meet");
                break;
            }
            skip = mid - sorted[k].src;
            take = sorted[k].len - skip < len ? sorted[k].len - skip : len;
            rc = pcoll__gpu_segs_push(l, src, sorted[k].dst + skip, take);
            src += take, mid += take, len -= take;
            k++;
        }
    }
    pcoll__free(sorted);
    return rc;
}

void pcoll__gpu_segs_free(pcoll__gpu_segs_t *l)
{
    pcoll__free(l->s);
    l->s = NULL;
    l->n = l->cap = 0;
}
