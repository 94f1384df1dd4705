/*
 * reduce_scatter `native`: the MPI's own MPI_Reduce_scatter_block or
 * MPI_Reduce_scatter, the form the caller used (core/native.h); counts past
 * INT_MAX through MPI-4's _c forms (refused by an MPI without them).
 */
#include <limits.h>

#include "base/status.h"
#include "core/check.h"
#include "core/comm.h"
#include "core/defects.h"
#include "core/native.h"
#include "core/optype.h"
#include "datatype/contents.h"
#include "base/pmpi.h"
#include "reduce_scatter/reduce_scatter.h"

typedef struct rargs {
    const void *sendbuf;     /* MPI_IN_PLACE in place */
    void *recvbuf;
    const MPI_Datatype *type; /* the op's (core/optype.h), in plan scratch */
    MPI_Op op;
    int block;
    int wide;                /* counts past INT_MAX: the _c forms */
    int *counts;             /* p; the block form uses counts[0] */
    MPI_Count *wcounts;
} rargs_t;

static int blocking(const void *args, MPI_Comm comm)
{
    const rargs_t *r = args;
#if MPI_VERSION >= 4
    if (r->wide)
        return r->block ? PCOLL__MPI(Reduce_scatter_block_c)(r->sendbuf, r->recvbuf,
                                                             r->wcounts[0], *r->type, r->op, comm)
                        : PCOLL__MPI(Reduce_scatter_c)(r->sendbuf, r->recvbuf, r->wcounts,
                                                       *r->type, r->op, comm);
#endif
    return r->block ? PCOLL__MPI(Reduce_scatter_block)(r->sendbuf, r->recvbuf, r->counts[0],
                                                       *r->type, r->op, comm)
                    : PCOLL__MPI(Reduce_scatter)(r->sendbuf, r->recvbuf, r->counts, *r->type,
                                                 r->op, comm);
}

static int nonblocking(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const rargs_t *r = args;
#if MPI_VERSION >= 4
    if (r->wide)
        return r->block ? PCOLL__MPI(Ireduce_scatter_block_c)(r->sendbuf, r->recvbuf,
                                                              r->wcounts[0], *r->type, r->op,
                                                              comm, req)
                        : PCOLL__MPI(Ireduce_scatter_c)(r->sendbuf, r->recvbuf, r->wcounts,
                                                        *r->type, r->op, comm, req);
#endif
    return r->block ? PCOLL__MPI(Ireduce_scatter_block)(r->sendbuf, r->recvbuf, r->counts[0],
                                                        *r->type, r->op, comm, req)
                    : PCOLL__MPI(Ireduce_scatter)(r->sendbuf, r->recvbuf, r->counts, *r->type,
                                                  r->op, comm, req);
}

#ifdef PCOLL__NATIVE_HAVE_INIT
static int init(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const rargs_t *r = args;
#if MPI_VERSION >= 4
    if (r->wide)
        return r->block ? PCOLL__MPI(Reduce_scatter_block_init_c)(r->sendbuf, r->recvbuf,
                                                                  r->wcounts[0], *r->type, r->op,
                                                                  comm, MPI_INFO_NULL, req)
                        : PCOLL__MPI(Reduce_scatter_init_c)(r->sendbuf, r->recvbuf, r->wcounts,
                                                            *r->type, r->op, comm,
                                                            MPI_INFO_NULL, req);
#endif
    return r->block ? PCOLL__MPI(Reduce_scatter_block_init)(r->sendbuf, r->recvbuf, r->counts[0],
                                                            *r->type, r->op, comm,
                                                            MPI_INFO_NULL, req)
                    : PCOLL__MPI(Reduce_scatter_init)(r->sendbuf, r->recvbuf, r->counts,
                                                      *r->type, r->op, comm, MPI_INFO_NULL, req);
}
#endif

static const pcoll__native_calls_t calls = {blocking, nonblocking, PCOLL__NATIVE_INIT(init), 0};
/* Where the MPI's persistent form is wrong on an intercommunicator
 * (core/defects.h): the non-blocking call at every start. */
static const pcoll__native_calls_t calls_started = {blocking, nonblocking, NULL, 0};

int pcoll__reduce_scatter_native(pcoll_plan_t *plan, const void *args)
{
    const pcoll__rs_args_t *a = args;
    rargs_t r = {.sendbuf = a->inplace ? MPI_IN_PLACE : a->sendbuf, .recvbuf = a->recvbuf,
                 .op = a->op, .block = a->block};
    MPI_Datatype *type;
    int i, rc, p = plan->size;
    if (pcoll__op_predefined(a->op) && !pcoll__type_predefined(a->type))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "reduce_scatter native: the MPI's own reduction takes a predefined "
                            "op on predefined types only");
    r.counts = pcoll__plan_alloc(plan, sizeof(int) * (size_t)p);
    r.wcounts = pcoll__plan_alloc(plan, sizeof(MPI_Count) * (size_t)p);
    r.type = type = pcoll__plan_alloc(plan, sizeof *type);
    if (!r.counts || !r.wcounts || !type)
        return pcoll__error(PCOLL_ERR_NOMEM, "reduce_scatter native: counts");
    /* The MPI calls a user-defined op with the handle it is given. */
    *type = a->optype;
    if (a->optype != a->type &&
        (rc = pcoll__optype_watch(plan, a->optype, a->type, type)) != PCOLL_SUCCESS)
        return rc;
    for (i = 0; i < p; i++) {
        r.wcounts[i] = a->counts[i];
        r.wide |= a->counts[i] > INT_MAX;
        r.counts[i] = a->counts[i] > INT_MAX ? 0 : (int)a->counts[i];
    }
#if MPI_VERSION < 4
    if (r.wide)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "reduce_scatter native: counts past INT_MAX need MPI-4's _c forms");
#endif
    return pcoll__native_plan(plan,
                              plan->ctx->remote &&
                                      pcoll__mpi_defect(PCOLL__DEFECT_MPICH_INTER_RS_INIT)
                                  ? &calls_started
                                  : &calls,
                              &r, sizeof r);
}
