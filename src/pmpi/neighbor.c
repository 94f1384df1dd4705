/*
 * MPI_Neighbor_alltoall, MPI_Neighbor_alltoallv, MPI_Neighbor_alltoallw,
 * their non-blocking (MPI_Ineighbor_*) and persistent (MPI_Neighbor_*_init)
 * forms and their large-count forms, served by pcoll.
 *
 * Every form goes to pcoll with MPI's own arguments as they are
 * (pcoll__neighbor_dropin; negative displacements accepted).  A
 * communicator without a topology is refused by pcoll on every rank alike
 * and goes to the MPI, which raises its MPI_ERR_TOPOLOGY.
 */

#include "api/api.h"
#include "pmpi/dropin.h"

/* Serve one call of collective coll in form (request: NULL for the
 * blocking form).  Returns 1 when the caller must make the MPI call
 * instead, else 0 with *err set. */
static int serve(pcoll__nbr_raw_t *r, MPI_Comm comm, int coll, int form, MPI_Info info,
                 MPI_Request *request, int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    if (!pcoll__dropin_serves(comm))
        return 1;
    r->negative_ok = 1;
    rc = pcoll__neighbor_dropin(pcoll__dropin_mode(form), r, comm, info,
                                form == PCOLL__DROPIN_BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, coll, form, request, err);
}

#define NA PCOLL__DROPIN_NEIGHBOR_ALLTOALL
#define NV PCOLL__DROPIN_NEIGHBOR_ALLTOALLV
#define NW PCOLL__DROPIN_NEIGHBOR_ALLTOALLW
#define BLOCKING(coll, raw) \
    serve(&raw, comm, coll, PCOLL__DROPIN_BLOCKING, MPI_INFO_NULL, NULL, &err)
#define NONBLOCKING(coll, raw) \
    serve(&raw, comm, coll, PCOLL__DROPIN_NONBLOCKING, MPI_INFO_NULL, request, &err)
#define PERSISTENT(coll, raw) serve(&raw, comm, coll, PCOLL__DROPIN_PERSISTENT, info, request, &err)

/* ---- MPI_Neighbor_alltoall ----------------------------------------------------- */

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (BLOCKING(NA, PCOLL__NBR_RAW_A2A(0)))
        return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    int err;
    if (NONBLOCKING(NA, PCOLL__NBR_RAW_A2A(0)))
        return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                       recvtype, comm, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request)
{
    int err;
    if (PERSISTENT(NA, PCOLL__NBR_RAW_A2A(0)))
        return PMPI_Neighbor_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, comm, info, request);
    return err;
}
#endif

/* ---- MPI_Neighbor_alltoallv ---------------------------------------------------- */

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (BLOCKING(NV, PCOLL__NBR_RAW_A2AV))
        return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                       recvcounts, rdispls, recvtype, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    int err;
    if (NONBLOCKING(NV, PCOLL__NBR_RAW_A2AV))
        return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                        recvcounts, rdispls, recvtype, comm, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    int err;
    if (PERSISTENT(NV, PCOLL__NBR_RAW_A2AV))
        return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                            recvcounts, rdispls, recvtype, comm, info, request);
    return err;
}
#endif

/* ---- MPI_Neighbor_alltoallw ---------------------------------------------------- */

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm)
{
    int err;
    if (BLOCKING(NW, PCOLL__NBR_RAW_A2AW))
        return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                       recvcounts, rdispls, recvtypes, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (NONBLOCKING(NW, PCOLL__NBR_RAW_A2AW))
        return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, comm, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    int err;
    if (PERSISTENT(NW, PCOLL__NBR_RAW_A2AW))
        return PMPI_Neighbor_alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                            recvcounts, rdispls, recvtypes, comm, info, request);
    return err;
}
#endif

/* ---- large-count forms (MPI-4) ------------------------------------------------- */

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    int err;
    if (BLOCKING(NA, PCOLL__NBR_RAW_A2A(1)))
        return PMPI_Neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm);
    return err;
}

int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int err;
    if (PERSISTENT(NA, PCOLL__NBR_RAW_A2A(1)))
        return PMPI_Neighbor_alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                             recvtype, comm, info, request);
    return err;
}

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (BLOCKING(NV, PCOLL__NBR_RAW_A2AV_C))
        return PMPI_Neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                         recvcounts, rdispls, recvtype, comm);
    return err;
}

int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    int err;
    if (PERSISTENT(NV, PCOLL__NBR_RAW_A2AV_C))
        return PMPI_Neighbor_alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                              recvcounts, rdispls, recvtype, comm, info,
                                              request);
    return err;
}

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm)
{
    int err;
    if (BLOCKING(NW, PCOLL__NBR_RAW_A2AW_C))
        return PMPI_Neighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                         recvcounts, rdispls, recvtypes, comm);
    return err;
}

int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int err;
    if (PERSISTENT(NW, PCOLL__NBR_RAW_A2AW_C))
        return PMPI_Neighbor_alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                              recvcounts, rdispls, recvtypes, comm, info,
                                              request);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (NONBLOCKING(NA, PCOLL__NBR_RAW_A2A(1)))
        return PMPI_Ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         recvtype, comm, request);
    return err;
}

int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (NONBLOCKING(NV, PCOLL__NBR_RAW_A2AV_C))
        return PMPI_Ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                          recvcounts, rdispls, recvtype, comm, request);
    return err;
}

int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (NONBLOCKING(NW, PCOLL__NBR_RAW_A2AW_C))
        return PMPI_Ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                          recvcounts, rdispls, recvtypes, comm, request);
    return err;
}
#endif
#endif
