/*
 * MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init and their large-count
 * forms, served by pcoll.
 *
 * Every form goes to pcoll with MPI's own counts, byte displacements
 * (negative ones too) and type arrays as they are (pcoll__alltoallw_dropin
 * and _dropin_c), so no rank has anything to rewrite that could fail on it
 * alone.  (mpi4py 4 calls the large-count forms wherever the MPI has them.)
 */

#include "api/api.h"
#include "pmpi/dropin.h"

#define COLL PCOLL__DROPIN_ALLTOALLW

/* Serve one alltoallw in form (request: NULL for the blocking form).
 * Returns 1 when the caller must make the MPI call instead, else 0 with
 * *err set. */
static int serve(const void *sendbuf, const int *scounts, const int *sdispls,
                 const MPI_Datatype *stypes, void *recvbuf, const int *rcounts,
                 const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm, int form,
                 MPI_Info info, MPI_Request *request, int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    if (!pcoll__dropin_serves(comm))
        return 1;
    rc = pcoll__alltoallw_dropin(pcoll__dropin_mode(form), sendbuf, scounts, sdispls, stypes,
                                 recvbuf, rcounts, rdispls, rtypes, comm, info,
                                 form == PCOLL__DROPIN_BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, COLL, form, request, err);
}

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
/* The same for the large-count forms. */
static int serve_c(const void *sendbuf, const MPI_Count *scounts, const MPI_Aint *sdispls,
                   const MPI_Datatype *stypes, void *recvbuf, const MPI_Count *rcounts,
                   const MPI_Aint *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm, int form,
                   MPI_Info info, MPI_Request *request, int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    if (!pcoll__dropin_serves(comm))
        return 1;
    rc = pcoll__alltoallw_dropin_c(pcoll__dropin_mode(form), sendbuf, scounts, sdispls, stypes,
                                   recvbuf, rcounts, rdispls, rtypes, comm, info,
                                   form == PCOLL__DROPIN_BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, COLL, form, request, err);
}
#endif

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int err;
    if (serve(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
              comm, PCOLL__DROPIN_BLOCKING, MPI_INFO_NULL, NULL, &err))
        return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                              rdispls, recvtypes, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    int err;
    if (serve(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
              comm, PCOLL__DROPIN_NONBLOCKING, MPI_INFO_NULL, request, &err))
        return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    int err;
    if (serve(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
              comm, PCOLL__DROPIN_PERSISTENT, info, request, &err))
        return PMPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, comm, info, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int err;
    if (serve_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                recvtypes, comm, PCOLL__DROPIN_BLOCKING, MPI_INFO_NULL, NULL, &err))
        return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                rdispls, recvtypes, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                recvtypes, comm, PCOLL__DROPIN_NONBLOCKING, MPI_INFO_NULL, request, &err))
        return PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, request);
    return err;
}
#endif

int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                         void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                recvtypes, comm, PCOLL__DROPIN_PERSISTENT, info, request, &err))
        return PMPI_Alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes, comm, info, request);
    return err;
}
#endif
