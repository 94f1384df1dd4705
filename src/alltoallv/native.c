/*
 * alltoallv `native`: the MPI's own MPI_Alltoallv (core/native.h), with the
 * counts and displacements as ints where they fit, else MPI-4's
 * MPI_Alltoallv_c (an MPI without it cannot serve such sizes: refused).
 * alltoallw's native plans the same way with its own calls.  Refused in
 * place where the MPI is known to fail it (pcoll__a2av_native_inplace_ok).
 */
#include <limits.h>

#include "alltoallv/alltoallv.h"
#include "base/status.h"
#include "core/defects.h"
#include "core/native.h"
#include "base/pmpi.h"

typedef pcoll__a2av_native_t vargs_t;

static const void *send_of(const vargs_t *v)
{
    return v->a.inplace ? MPI_IN_PLACE : v->a.sendbuf;
}

#define INTS(v, k) ((v)->ints + (size_t)(k) * (size_t)(v)->p)

static int blocking(const void *args, MPI_Comm comm)
{
    const vargs_t *v = args;
#if MPI_VERSION >= 4
    if (!v->ints)
        return PCOLL__MPI(Alltoallv_c)(send_of(v), v->a.scounts, v->a.sdispls, v->a.sendtype,
                                       v->a.recvbuf, v->a.rcounts, v->a.rdispls, v->a.recvtype,
                                       comm);
#endif
    return PCOLL__MPI(Alltoallv)(send_of(v), INTS(v, 0), INTS(v, 1), v->a.sendtype,
                                 v->a.recvbuf, INTS(v, 2), INTS(v, 3), v->a.recvtype, comm);
}

static int nonblocking(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const vargs_t *v = args;
#if MPI_VERSION >= 4
    if (!v->ints)
        return PCOLL__MPI(Ialltoallv_c)(send_of(v), v->a.scounts, v->a.sdispls, v->a.sendtype,
                                        v->a.recvbuf, v->a.rcounts, v->a.rdispls,
                                        v->a.recvtype, comm, req);
#endif
    return PCOLL__MPI(Ialltoallv)(send_of(v), INTS(v, 0), INTS(v, 1), v->a.sendtype,
                                  v->a.recvbuf, INTS(v, 2), INTS(v, 3), v->a.recvtype, comm,
                                  req);
}

#ifdef PCOLL__NATIVE_HAVE_INIT
static int init(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const vargs_t *v = args;
#if MPI_VERSION >= 4
    if (!v->ints)
        return PCOLL__MPI(Alltoallv_init_c)(send_of(v), v->a.scounts, v->a.sdispls,
                                            v->a.sendtype, v->a.recvbuf, v->a.rcounts,
                                            v->a.rdispls, v->a.recvtype, comm, MPI_INFO_NULL,
                                            req);
#endif
    return PCOLL__MPI(Alltoallv_init)(send_of(v), INTS(v, 0), INTS(v, 1), v->a.sendtype,
                                      v->a.recvbuf, INTS(v, 2), INTS(v, 3), v->a.recvtype, comm,
                                      MPI_INFO_NULL, req);
}
#endif

static const pcoll__native_calls_t calls = {blocking, nonblocking, PCOLL__NATIVE_INIT(init), 1};

/* The four arrays as ints into v->ints, or 0 when one does not fit. */
static int as_ints(pcoll_plan_t *plan, vargs_t *v)
{
    const pcoll__a2a_args_t *a = &v->a;
    int i, p = v->p;
    if (!(v->ints = pcoll__plan_alloc(plan, sizeof(int) * 4 * (size_t)p)))
        return -1;
    for (i = 0; i < p; i++) {
        MPI_Count sc = a->inplace ? 0 : a->scounts[i], rc = a->rcounts[i];
        MPI_Aint sd = a->inplace ? 0 : a->sdispls[i], rd = a->rdispls[i];
        if (sc > INT_MAX || rc > INT_MAX || sd > INT_MAX || rd > INT_MAX || sd < INT_MIN ||
            rd < INT_MIN)
            return 0;
        INTS(v, 0)[i] = (int)sc, INTS(v, 1)[i] = (int)sd;
        INTS(v, 2)[i] = (int)rc, INTS(v, 3)[i] = (int)rd;
    }
    return 1;
}

int pcoll__a2av_native_inplace_ok(const pcoll__a2a_args_t *a)
{
    return !a->inplace || !pcoll__mpi_defect(PCOLL__DEFECT_UCX_SPLIT_UNPACK);
}

int pcoll__a2av_native_plan(pcoll_plan_t *plan, const void *args,
                            const pcoll__native_calls_t *c, const char *coll)
{
    /* One count per peer: the remote group's on an intercommunicator. */
    vargs_t v = {.a = ((const pcoll__a2av_args_t *)args)->a,
                 .p = plan->ctx->remote ? plan->ctx->remote : plan->size};
    int fit;
    if (!pcoll__a2av_native_inplace_ok(&v.a))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "%s native: this MPI's in-place exchange fails on packed messages "
                            "(MPI defect %s, docs/troubleshooting.md)",
                            coll, pcoll__defect_name(PCOLL__DEFECT_UCX_SPLIT_UNPACK));
    fit = as_ints(plan, &v);
    if (fit < 0)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s native: counts", coll);
    if (!fit) {
#if MPI_VERSION >= 4
        v.ints = NULL;
#else
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "%s native: counts or displacements past INT_MAX need MPI-4's "
                            "large-count call",
                            coll);
#endif
    }
    return pcoll__native_plan(plan, c, &v, sizeof v);
}

int pcoll__alltoallv_native(pcoll_plan_t *plan, const void *args)
{
    return pcoll__a2av_native_plan(plan, args, &calls, "alltoallv");
}
