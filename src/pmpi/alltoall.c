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
static int serve(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                 int form, MPI_Info info, MPI_Request *request, int *err)
{
    static const pcoll__mode_t modes[] = {[BLOCKING] = PCOLL__ONESHOT,
                                          [NONBLOCKING] = PCOLL__LOCAL,
                                          [PERSISTENT] = PCOLL__PERSISTENT};
    pcoll_plan_t *plan = NULL;
    int rc = pcoll__alltoall_dropin(modes[form], sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, comm, info,
                                    form == BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, COLL, form, request, err);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
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
    if (!pcoll__dropin_serves(comm) ||
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
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PERSISTENT,
              info, request, &err))
        return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm, info, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
/* Counts of any size: pcoll serves them (a count over INT_MAX as one item
 * of a type of that many items). */
int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, BLOCKING,
              MPI_INFO_NULL, NULL, &err))
        return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                               comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NONBLOCKING,
              MPI_INFO_NULL, request, &err))
        return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm, request);
    return err;
}
#endif

int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, PERSISTENT,
              info, request, &err))
        return PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm, info, request);
    return err;
}
#endif
