/*
 * Stand-in buffers (see region.h).
 */
/* MAP_ANONYMOUS and MAP_NORESERVE are not POSIX. */
#define _DEFAULT_SOURCE 1
#include <sys/mman.h>

#include "core/region.h"
#include "base/mem.h"
#include "base/status.h"
#include "datatype/size.h"

/* Room around the items for what builders add to a block's address (a
 * lower bound, a run's first piece): never read, only compared. */
#define PAD ((size_t)1 << 16)

static MPI_Aint mag(MPI_Aint x)
{
    return x < 0 ? -x : x;
}

int pcoll__view_span(const pcoll__view_t *v, MPI_Aint *lo, size_t *len)
{
    MPI_Aint lb, ext, tlb, text, last;
    if (pcoll__type_extent(v->type, &lb, &ext) != PCOLL_SUCCESS ||
        pcoll__type_true_extent(v->type, &tlb, &text) != PCOLL_SUCCESS)
        return PCOLL_ERR_MPI;
    if (v->count <= 0) {
        *lo = 0, *len = 0;
        return PCOLL_SUCCESS;
    }
    last = (MPI_Aint)(v->count - 1) * ext;
    *lo = tlb + (last < 0 ? last : 0);
    *len = (size_t)(mag(last) + text);
    return PCOLL_SUCCESS;
}

int pcoll__blocks_span(const pcoll__blocks_view_t *b, MPI_Aint *lo, size_t *len)
{
    MPI_Aint first = 0, last = 0;
    int i, any = 0, rc;
    for (i = 0; i < b->n; i++) {
        pcoll__view_t v = {1, NULL, b->counts[i], b->types ? b->types[i] : b->type};
        MPI_Aint at;
        size_t n;
        if (!b->counts[i] || (b->peers && b->peers[i] == MPI_PROC_NULL))
            continue;
        if ((rc = pcoll__view_span(&v, &at, &n)) != PCOLL_SUCCESS)
            return rc;
        at += b->displs[i] * b->ext;
        first = any && first < at ? first : at;
        last = any && last > at + (MPI_Aint)n ? last : at + (MPI_Aint)n;
        any = 1;
    }
    *lo = first, *len = (size_t)(last - first);
    return PCOLL_SUCCESS;
}

int pcoll__region_reserve(const pcoll__view_t *v, pcoll__region_t *r)
{
    MPI_Aint lb, ext, tlb, text, lo;
    size_t span, pad;
    void *a;
    r->addr = NULL;
    if (pcoll__view_span(v, &lo, &span) != PCOLL_SUCCESS ||
        pcoll__type_extent(v->type, &lb, &ext) != PCOLL_SUCCESS ||
        pcoll__type_true_extent(v->type, &tlb, &text) != PCOLL_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "stand-in buffer: datatype");
    pad = PAD + (size_t)(mag(lb) + mag(ext) + mag(tlb) + mag(text));
    r->len = span + (size_t)mag(lo) + 2 * pad;
    a = mmap(NULL, r->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED)
        return pcoll__error(PCOLL_ERR_NOMEM, "stand-in buffer: %zu bytes of address space",
                            r->len);
    r->addr = a;
    r->base = (char *)a + pad + (size_t)mag(lo);
    return PCOLL_SUCCESS;
}

void pcoll__region_release(pcoll__region_t *r)
{
    if (r->addr) {
        pcoll__mem_handed_back();
        munmap(r->addr, r->len);
    }
    r->addr = NULL;
}

static void release_owned(void *arg)
{
    pcoll__region_release(arg);
    pcoll__free(arg);
}

int pcoll__region_bind(pcoll_plan_t *plan, int k, pcoll__region_t *r)
{
    pcoll__region_t *own = pcoll__malloc(sizeof *own);
    if (!own) {
        pcoll__region_release(r);
        return pcoll__error(PCOLL_ERR_NOMEM, "stand-in buffer");
    }
    *own = *r;
    r->addr = NULL;
    pcoll__sched_bind(&plan->sched, k, own->addr, (char *)own->addr + own->len, own->base);
    return pcoll__plan_on_free(plan, release_owned, own);
}
