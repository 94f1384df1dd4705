/*
 * The steps every reduce-scatter builder shares: scratch addressed like the
 * input vector, and the reduce, send, receive and copy of a run of
 * elements.
 */
#include "reduce_scatter/reduce_scatter.h"

void *pcoll__rs_scratch(pcoll_plan_t *plan, const pcoll__rs_args_t *a, long long count)
{
    MPI_Aint true_lb, true_extent;
    char *mem;
    MPI_Type_get_true_extent(a->type, &true_lb, &true_extent);
    if (count <= 0)
        count = 1;
    mem = pcoll__plan_alloc(plan, (size_t)((count - 1) * a->extent + true_extent));
    return mem ? mem - true_lb : NULL;
}

int pcoll__rs_reduce(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *in, void *inout,
                     long long count)
{
    return pcoll__sched_reduce(&plan->sched, in, inout, (int)count, a->type, a->op);
}

int pcoll__rs_send(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *buf,
                   long long count, int peer)
{
    return pcoll__sched_send(&plan->sched, buf, (int)count, a->type, peer);
}

int pcoll__rs_recv(pcoll_plan_t *plan, const pcoll__rs_args_t *a, void *buf, long long count,
                   int peer)
{
    return pcoll__sched_recv(&plan->sched, buf, (int)count, a->type, peer);
}

int pcoll__rs_copy(pcoll_plan_t *plan, const pcoll__rs_args_t *a, const void *src, void *dst,
                   long long count)
{
    return pcoll__sched_copy(&plan->sched, src, (int)count, a->type, dst, (int)count, a->type);
}
