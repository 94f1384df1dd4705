/*
 * Shared pieces of the Bruck family: block datatypes, index-set types, the
 * local rotation before the rounds and permutation types (see bruck.h).
 */
#include "alltoall/bruck.h"
#include "base/mem.h"
#include "base/status.h"

int pcoll__bruck_types(pcoll_plan_t *plan, const pcoll__a2a_args_t *a,
                       pcoll__bruck_types_t *t)
{
    MPI_Aint lb;
    int rc;
    if (MPI_Type_contiguous(a->sendcount, a->sendtype, &t->sblk) != MPI_SUCCESS ||
        MPI_Type_contiguous(a->recvcount, a->recvtype, &t->rblk) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "bruck: block types");
    PCOLL_CHECK(pcoll__plan_own_type(plan, &t->sblk), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &t->rblk), rc, out);
    PCOLL_CHECK(pcoll_type_signature(t->rblk, &t->sig), rc, out);
    PCOLL_CHECK(pcoll__plan_own_type(plan, &t->sig), rc, out);
    rc = pcoll__type_extent(t->sig, &lb, &t->sigext);
out:
    return rc;
}

int pcoll__bruck_set_bounded(int bound, int bl, int st, MPI_Datatype blk, MPI_Datatype *type)
{
    return pcoll_type_create_bounded_vector(bound, bl, st, blk, type);
}

int pcoll__bruck_set_indexed(int bound, int bl, int st, MPI_Datatype blk, MPI_Datatype *type)
{
    int n = (bound + st - 1) / st, i, err;
    int *lens = pcoll__malloc(sizeof(int) * (size_t)n), *displs = pcoll__malloc(sizeof(int) * (size_t)n);
    if (!lens || !displs) {
        pcoll__free(lens);
        pcoll__free(displs);
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck: indexed type arrays");
    }
    for (i = 0; i < n; i++) {
        displs[i] = i * st;
        lens[i] = bound - displs[i] < bl ? bound - displs[i] : bl;
    }
    err = MPI_Type_indexed(n, lens, displs, blk, type);
    pcoll__free(lens);
    pcoll__free(displs);
    return err == MPI_SUCCESS ? PCOLL_SUCCESS
                              : pcoll__error(PCOLL_ERR_MPI, "bruck: MPI_Type_indexed");
}

int pcoll__bruck_rotate(pcoll_plan_t *plan, const pcoll__a2a_args_t *a,
                        const pcoll__bruck_types_t *t, int shift)
{
    int p = plan->size, rc;
    /* Send blocks shift..p-1 become receive blocks 0..p-shift-1, the rest follow. */
    rc = pcoll__sched_copy(&plan->sched, pcoll__a2a_sbuf(a, shift), p - shift, t->sblk,
                           pcoll__a2a_rbuf(a, 0), p - shift, t->rblk);
    if (rc == PCOLL_SUCCESS && shift > 0)
        rc = pcoll__sched_copy(&plan->sched, pcoll__a2a_sbuf(a, 0), shift, t->sblk,
                               pcoll__a2a_rbuf(a, p - shift), shift, t->rblk);
    return rc;
}

int pcoll__bruck_perm_type(pcoll_plan_t *plan, MPI_Datatype blk, int mul, int add,
                           MPI_Datatype *type)
{
    int p = plan->size, j, err;
    int *displs = pcoll__malloc(sizeof(int) * (size_t)p);
    if (!displs)
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck: permutation displacements");
    for (j = 0; j < p; j++)
        displs[j] = (int)((((long long)mul * j + add) % p + p) % p);
    err = MPI_Type_create_indexed_block(p, 1, displs, blk, type);
    pcoll__free(displs);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "bruck: permutation type");
    return pcoll__plan_own_type(plan, type);
}
