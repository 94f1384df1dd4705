/*
 * alltoall `native`: the MPI's own MPI_Alltoall (core/native.h).  In place
 * it passes MPI_IN_PLACE on; a count over INT_MAX arrives as one item of a
 * type of that many (the large-count forms), which the MPI takes as is.
 * Refused where the MPI is known to get it wrong (pcoll__alltoall_native_ok).
 */
#include "alltoall/alltoall.h"
#include "base/status.h"
#include "core/defects.h"
#include "core/native.h"
#include "base/pmpi.h"
#include "datatype/signature.h"

/* MPICH's in-place alltoall sends every block as packed bytes and receives
 * it with the receive type, which an MPI with UCX_SPLIT_UNPACK fails when a
 * fragment cuts an element (the signature decides); Open MPI's Bruck with
 * OMPI_ALLTOALL_BRUCK serves more than 12 ranks.  Both answers are the same
 * on every rank. */
int pcoll__alltoall_native_ok(const pcoll__a2a_args_t *a, int p)
{
    if (p > 12 && pcoll__mpi_defect(PCOLL__DEFECT_OMPI_ALLTOALL_BRUCK))
        return 0;
    return !a->inplace || !pcoll__mpi_defect(PCOLL__DEFECT_UCX_SPLIT_UNPACK) ||
           pcoll__sig_aligned(a->recvtype, a->recvcount);
}

static const void *send_of(const pcoll__a2a_args_t *a)
{
    return a->inplace ? MPI_IN_PLACE : a->sendbuf;
}

static int blocking(const void *args, MPI_Comm comm)
{
    const pcoll__a2a_args_t *a = args;
    return PCOLL__MPI(Alltoall)(send_of(a), a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                                a->recvtype, comm);
}

static int nonblocking(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const pcoll__a2a_args_t *a = args;
    return PCOLL__MPI(Ialltoall)(send_of(a), a->sendcount, a->sendtype, a->recvbuf,
                                 a->recvcount, a->recvtype, comm, req);
}

#ifdef PCOLL__NATIVE_HAVE_INIT
static int init(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const pcoll__a2a_args_t *a = args;
    return PCOLL__MPI(Alltoall_init)(send_of(a), a->sendcount, a->sendtype, a->recvbuf,
                                     a->recvcount, a->recvtype, comm, MPI_INFO_NULL, req);
}
#endif

static const pcoll__native_calls_t calls = {blocking, nonblocking, PCOLL__NATIVE_INIT(init), 0};

int pcoll__alltoall_native(pcoll_plan_t *plan, const void *args)
{
    if (!pcoll__alltoall_native_ok(args, plan->size))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "alltoall native: this MPI's alltoall is wrong on these arguments "
                            "(docs/troubleshooting.md, \"Known MPI defects\")");
    return pcoll__native_plan(plan, &calls, args, sizeof(pcoll__a2a_args_t));
}
