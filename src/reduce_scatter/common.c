/*
 * The steps every reduce-scatter builder shares: scratch addressed like the
 * input vector, and the reduce, send, receive and copy of a run of
 * elements.  A run of more than INT_MAX elements (spans of several blocks
 * may have that many, though each count is an int) becomes several steps of
 * at most INT_MAX elements each, split the same way on both sides of a
 * message, so nothing is cut short by an int count.  And the shared
 * segment of the node algorithms.
 */
#include <limits.h>

#include "reduce_scatter/reduce_scatter.h"
#include "core/check.h"
#include "core/optype.h"
#include "datatype/size.h"

void *pcoll__rs_scratch(pcoll_plan_t *plan, const pcoll__rs_args_t *a, long long count)
{
    MPI_Aint true_lb, true_extent;
    char *mem;
    if (pcoll__type_true_extent(a->type, &true_lb, &true_extent) != PCOLL_SUCCESS)
        return NULL;
    if (count <= 0)
        count = 1;
    mem = pcoll__plan_alloc(plan, (size_t)((count - 1) * a->extent + true_extent));
    return mem ? mem - true_lb : NULL;
}

/* Elements [done, done + piece(count, done)) form the next step. */
static int piece(long long count, long long done)
{
    return count - done > INT_MAX ? INT_MAX : (int)(count - done);
}

/* Element e of a vector at base (base may be MPI_BOTTOM). */
static void *at(const pcoll__rs_args_t *a, const void *base, long long e)
{
    return pcoll__addr(base, (MPI_Aint)e * a->extent);
}

int pcoll__rs_reduce(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *in, void *inout,
                     long long count)
{
    long long done;
    int rc = PCOLL_SUCCESS;
    if (a->optype != a->type && count > 0)
        rc = pcoll__optype_watch(plan, a->optype, a->type, NULL);
    for (done = 0; done < count && rc == PCOLL_SUCCESS; done += piece(count, done))
        rc = pcoll__sched_reduce(&plan->sched, at(a, in, done), at(a, inout, done),
                                 piece(count, done), a->optype, a->op);
    return rc;
}

int pcoll__rs_send(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *buf,
                   long long count, int peer)
{
    long long done;
    int rc = PCOLL_SUCCESS;
    for (done = 0; done < count && rc == PCOLL_SUCCESS; done += piece(count, done))
        rc = pcoll__sched_send(&plan->sched, at(a, buf, done), piece(count, done), a->type, peer);
    return rc;
}

int pcoll__rs_recv(pcoll_plan_t *plan, const pcoll__rs_args_t *a, void *buf, long long count,
                   int peer)
{
    long long done;
    int rc = PCOLL_SUCCESS;
    for (done = 0; done < count && rc == PCOLL_SUCCESS; done += piece(count, done))
        rc = pcoll__sched_recv(&plan->sched, at(a, buf, done), piece(count, done), a->type, peer);
    return rc;
}

int pcoll__rs_copy(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *src, void *dst,
                   long long count)
{
    long long done;
    int rc = PCOLL_SUCCESS;
    for (done = 0; done < count && rc == PCOLL_SUCCESS; done += piece(count, done))
        rc = pcoll__sched_copy(&plan->sched, at(a, src, done), piece(count, done), a->type,
                               at(a, dst, done), piece(count, done), a->type);
    return rc;
}

int pcoll__rs_node_segment(pcoll_plan_t *plan, size_t bytes, pcoll__node_shm_t **shm, int *ok)
{
    const pcoll__node_t *t;
    int rc;
    *ok = 0;
    PCOLL_CHECK(pcoll__node_get(plan->ctx, 0, &t), rc, out);
    if (t->nnodes != 1)
        return PCOLL_SUCCESS;
    PCOLL_CHECK(pcoll__node_shm_create(plan, t, bytes, shm, ok), rc, out);
    PCOLL_CHECK(pcoll__node_shm_ready(plan->comm, *shm, ok), rc, out);
    if (!*ok)
        pcoll__node_shm_drop(*shm);
out:
    return rc;
}

int pcoll__rs_node_layout(pcoll_plan_t *plan, const pcoll__rs_args_t *a, MPI_Aint *true_lb,
                          MPI_Aint *true_extent, int *same)
{
    long long v[3], lo[3], hi[3];
    int rc, i;
    *same = 0;
    PCOLL_CHECK(pcoll__type_true_extent(a->type, true_lb, true_extent), rc, out);
    v[0] = a->extent, v[1] = *true_lb, v[2] = *true_extent;
    PCOLL_CHECK(pcoll__agree_range(plan->comm, PCOLL_SUCCESS, v, 3, lo, hi, "reduce_scatter"), rc,
                out);
    for (*same = 1, i = 0; i < 3; i++)
        *same = *same && lo[i] == hi[i];
out:
    return rc;
}
