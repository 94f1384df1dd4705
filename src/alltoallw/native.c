/*
 * alltoallw `native`: the MPI's own MPI_Alltoallw (core/native.h), planned
 * as alltoallv's native is: the counts and byte displacements as ints where
 * they fit, else MPI-4's MPI_Alltoallw_c (an MPI without it cannot serve
 * such sizes: refused).  The types are the plan's copies.  Refused in place
 * on an MPI whose in-place MPI_Alltoallw_init and MPI_Ialltoallw are wrong
 * (core/defects.h): auto then takes `pairwise`.
 */
#include "alltoallw/alltoallw.h"
#include "base/status.h"
#include "core/defects.h"
#include "core/native.h"
#include "base/pmpi.h"

typedef pcoll__a2av_native_t wargs_t;

#define INTS(w, k) ((w)->ints + (size_t)(k) * (size_t)(w)->p)
#define SEND(w) ((w)->a.inplace ? MPI_IN_PLACE : (w)->a.sendbuf)

static int blocking(const void *args, MPI_Comm comm)
{
    const wargs_t *w = args;
#if MPI_VERSION >= 4
    if (!w->ints)
        return PCOLL__MPI(Alltoallw_c)(SEND(w), w->a.scounts, w->a.sdispls, w->a.stypes,
                                       w->a.recvbuf, w->a.rcounts, w->a.rdispls, w->a.rtypes,
                                       comm);
#endif
    return PCOLL__MPI(Alltoallw)(SEND(w), INTS(w, 0), INTS(w, 1), w->a.stypes, w->a.recvbuf,
                                 INTS(w, 2), INTS(w, 3), w->a.rtypes, comm);
}

static int nonblocking(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const wargs_t *w = args;
#if MPI_VERSION >= 4
    if (!w->ints)
        return PCOLL__MPI(Ialltoallw_c)(SEND(w), w->a.scounts, w->a.sdispls, w->a.stypes,
                                        w->a.recvbuf, w->a.rcounts, w->a.rdispls, w->a.rtypes,
                                        comm, req);
#endif
    return PCOLL__MPI(Ialltoallw)(SEND(w), INTS(w, 0), INTS(w, 1), w->a.stypes, w->a.recvbuf,
                                  INTS(w, 2), INTS(w, 3), w->a.rtypes, comm, req);
}

#ifdef PCOLL__NATIVE_HAVE_INIT
static int init(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const wargs_t *w = args;
#if MPI_VERSION >= 4
    if (!w->ints)
        return PCOLL__MPI(Alltoallw_init_c)(SEND(w), w->a.scounts, w->a.sdispls, w->a.stypes,
                                            w->a.recvbuf, w->a.rcounts, w->a.rdispls,
                                            w->a.rtypes, comm, MPI_INFO_NULL, req);
#endif
    return PCOLL__MPI(Alltoallw_init)(SEND(w), INTS(w, 0), INTS(w, 1), w->a.stypes,
                                      w->a.recvbuf, INTS(w, 2), INTS(w, 3), w->a.rtypes, comm,
                                      MPI_INFO_NULL, req);
}
#endif

static const pcoll__native_calls_t calls = {blocking, nonblocking, PCOLL__NATIVE_INIT(init), 0};

static int inplace_wrong(const pcoll__a2av_args_t *v)
{
    return v->a.inplace && pcoll__mpi_defect(PCOLL__DEFECT_ALLTOALLW_INPLACE);
}

int pcoll__alltoallw_native_ok(const pcoll__a2av_args_t *v)
{
    return pcoll__a2av_native_inplace_ok(&v->a) && !inplace_wrong(v);
}

int pcoll__alltoallw_native(pcoll_plan_t *plan, const void *args)
{
    if (inplace_wrong(args))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "alltoallw native: this MPI's non-blocking and persistent in-place "
                            "alltoallw move wrong bytes (MPI defect %s, docs/troubleshooting.md)",
                            pcoll__defect_name(PCOLL__DEFECT_ALLTOALLW_INPLACE));
    return pcoll__a2av_native_plan(plan, args, &calls, "alltoallw");
}
