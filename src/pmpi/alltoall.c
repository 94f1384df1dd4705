/*
 * MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init and their large-count
 * forms, served by pcoll (blocking: the one-shot call and its plan cache;
 * non-blocking: a plan built locally; persistent: pcoll_alltoall_init).
 */
#include "api/api.h"
#include "pmpi/dropin.h"

#define COLL PCOLL__DROPIN_ALLTOALL
#define BLOCKING PCOLL__DROPIN_BLOCKING
#define NONBLOCKING PCOLL__DROPIN_NONBLOCKING
#define PERSISTENT PCOLL__DROPIN_PERSISTENT

/* Serve one alltoall in form (request: NULL for the blocking form).  Returns
 * 1 when the caller must make the MPI call instead, else 0 with *err set. */
static int serve(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, int form, MPI_Info info,
                 MPI_Request *request, int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    if (form == BLOCKING)
        rc = pcoll_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    else if (form == NONBLOCKING)
        rc = pcoll__alltoall_plan_local(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, &plan);
    else
        rc = pcoll_alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, info, &plan);
    return pcoll__dropin_finish(rc, plan, comm, COLL, form, request, err);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm, COLL, BLOCKING) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, BLOCKING,
              MPI_INFO_NULL, NULL, &err))
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm, COLL, NONBLOCKING) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NONBLOCKING,
              MPI_INFO_NULL, request, &err))
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm, COLL, PERSISTENT) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PERSISTENT,
              info, request, &err))
        return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm, info, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
/* Int counts for pcoll when a block holds at most INT_MAX bytes: a rule
 * every rank evaluates alike, since MPI makes the block size in bytes equal
 * on all ranks.  Otherwise the call is logged as falling through. */
static int small_counts(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        MPI_Count recvcount, MPI_Datatype recvtype, int *sc, int *rc, int form)
{
    int ok = pcoll__dropin_small(recvcount, recvtype, rc);
    *sc = 0;
    if (ok && sendbuf != MPI_IN_PLACE)
        ok = pcoll__dropin_small(sendcount, sendtype, sc);
    if (!ok)
        pcoll__dropin_log_fell(COLL, form, PCOLL__DROPIN_FELL_LARGE);
    return ok;
}

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int sc, rc, err;
    if (!pcoll__dropin_serves(comm, COLL, BLOCKING) ||
        !small_counts(sendbuf, sendcount, sendtype, recvcount, recvtype, &sc, &rc, BLOCKING) ||
        serve(sendbuf, sc, sendtype, recvbuf, rc, recvtype, comm, BLOCKING, MPI_INFO_NULL,
              NULL, &err))
        return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                               comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    int sc, rc, err;
    if (!pcoll__dropin_serves(comm, COLL, NONBLOCKING) ||
        !small_counts(sendbuf, sendcount, sendtype, recvcount, recvtype, &sc, &rc,
                      NONBLOCKING) ||
        serve(sendbuf, sc, sendtype, recvbuf, rc, recvtype, comm, NONBLOCKING, MPI_INFO_NULL,
              request, &err))
        return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm, request);
    return err;
}
#endif

int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    int sc, rc, err;
    if (!pcoll__dropin_serves(comm, COLL, PERSISTENT) ||
        !small_counts(sendbuf, sendcount, sendtype, recvcount, recvtype, &sc, &rc,
                      PERSISTENT) ||
        serve(sendbuf, sc, sendtype, recvbuf, rc, recvtype, comm, PERSISTENT, info, request,
              &err))
        return PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm, info, request);
    return err;
}
#endif
