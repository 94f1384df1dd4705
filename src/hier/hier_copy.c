/*
 * The node-aware engine's copies in and out of the segment, merged into runs
 * (see hier.h): pieces that are plain byte ranges (pcoll__copy_prepare says
 * memcpy) and follow each other at fixed strides on both sides become one
 * copy op -- a memcpy when both sides are dense, else an hvector of bytes on
 * each side, which the typed copy runs as a memmove per piece (datatype/
 * typed_copy.c, PCOLL__COPY_STRIDED) -- instead of one op per block.  Copy-in
 * of alltoall with contiguous types and nodes of consecutive ranks then takes
 * a few memcpys per rank instead of p, copy-out one op per source node.  Other pieces
 * are typed copies of their own.  Types are made at init and owned by the
 * plan.
 */
#include <limits.h>

#include "hier/hier.h"
#include "base/status.h"

/* One side of a run: dense bytes, or an hvector of count pieces. */
static int side_type(pcoll_plan_t *plan, const pcoll__hier_run_t *run, MPI_Aint stride,
                     MPI_Datatype *type)
{
    int err = stride == (MPI_Aint)run->bytes
                  ? MPI_Type_contiguous(run->count * (int)run->bytes, MPI_BYTE, type)
                  : MPI_Type_create_hvector(run->count, (int)run->bytes, stride, MPI_BYTE, type);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "hier: copy run type");
    return pcoll__plan_own_type(plan, type);
}

int pcoll__hier_flush(pcoll_plan_t *plan, pcoll__hier_run_t *run)
{
    MPI_Datatype st, dt;
    int rc = PCOLL_SUCCESS, n = run->count;
    if (n == 1 || (n > 1 && run->sstride == run->bytes && run->dstride == run->bytes)) {
        rc = pcoll__sched_copy(&plan->sched, run->src, n * (int)run->bytes, MPI_BYTE, run->dst,
                               n * (int)run->bytes, MPI_BYTE);
    } else if (n > 1) {
        rc = side_type(plan, run, run->sstride, &st);
        if (rc == PCOLL_SUCCESS)
            rc = side_type(plan, run, run->dstride, &dt);
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__sched_copy(&plan->sched, run->src, 1, st, run->dst, 1, dt);
    }
    run->count = 0;
    return rc;
}

/* Does the piece (s, d, bytes) continue the run at its strides? */
static int extends(pcoll__hier_run_t *run, const char *s, char *d, long long bytes)
{
    if (run->count == 0 || run->bytes != bytes || (run->count + 1) * bytes > INT_MAX)
        return 0;
    if (run->count == 1) {
        if (s - run->src < (MPI_Aint)bytes || d - run->dst < (MPI_Aint)bytes)
            return 0;
        run->sstride = s - run->src;
        run->dstride = d - run->dst;
        return 1;
    }
    return s == run->src + run->count * run->sstride && d == run->dst + run->count * run->dstride;
}

int pcoll__hier_copy(pcoll_plan_t *plan, pcoll__hier_run_t *run, const void *src, int scount,
                     MPI_Datatype stype, void *dst, int dcount, MPI_Datatype dtype)
{
    pcoll__copy_t c;
    const char *s;
    char *d;
    int rc = pcoll__copy_prepare(scount, stype, dcount, dtype, &c);
    if (rc != PCOLL_SUCCESS || c.mode == PCOLL__COPY_NONE)
        return rc;
    pcoll__copy_free(&c); /* only its mode and offsets are needed here */
    if (c.mode != PCOLL__COPY_MEMCPY) {
        rc = pcoll__hier_flush(plan, run);
        return rc == PCOLL_SUCCESS
                   ? pcoll__sched_copy(&plan->sched, src, scount, stype, dst, dcount, dtype)
                   : rc;
    }
    s = pcoll__addr(src, c.src_offset); /* src or dst may be MPI_BOTTOM */
    d = pcoll__addr(dst, c.dst_offset);
    if (extends(run, s, d, (long long)c.bytes)) {
        run->count++;
        return PCOLL_SUCCESS;
    }
    rc = pcoll__hier_flush(plan, run);
    run->src = s, run->dst = d, run->bytes = (long long)c.bytes, run->count = 1;
    return rc;
}
