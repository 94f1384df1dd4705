/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block, blocking, non-blocking
 * (MPI_Ireduce_scatter*), persistent (*_init) and large-count, served by
 * pcoll.  The large-count forms go to pcoll with their MPI_Count counts as
 * they are (any size).
 */
#include <stdlib.h>

#include "pmpi/dropin.h"
#include "api/api.h"

#define RS PCOLL__DROPIN_REDUCE_SCATTER
#define RSB PCOLL__DROPIN_REDUCE_SCATTER_BLOCK
#define BLOCKING PCOLL__DROPIN_BLOCKING
#define NONBLOCKING PCOLL__DROPIN_NONBLOCKING
#define PERSISTENT PCOLL__DROPIN_PERSISTENT

/* Serve one reduce-scatter (counts form) in form; 1 when the caller must
 * make the MPI call instead, else 0 with *err set. */
static int serve(const void *sendbuf, void *recvbuf, const int *counts, MPI_Datatype type,
                 MPI_Op op, MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                 int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    if (form == BLOCKING)
        rc = pcoll_reduce_scatter(sendbuf, recvbuf, counts, type, op, comm);
    else if (form == NONBLOCKING)
        rc = pcoll__reduce_scatter_plan_local(sendbuf, recvbuf, counts, type, op, comm, &plan);
    else
        rc = pcoll_reduce_scatter_init(sendbuf, recvbuf, counts, type, op, comm, info, &plan);
    return pcoll__dropin_finish(rc, plan, comm, RS, form, request, err);
}

/* The block form. */
static int serve_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                       int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc;
    if (form == BLOCKING)
        rc = pcoll_reduce_scatter_block(sendbuf, recvbuf, count, type, op, comm);
    else if (form == PERSISTENT)
        rc = pcoll_reduce_scatter_block_init(sendbuf, recvbuf, count, type, op, comm, info,
                                             &plan);
    else
        rc = pcoll__reduce_scatter_dropin_c(PCOLL__LOCAL, sendbuf, recvbuf, NULL, count, 1, type,
                                            op, comm, MPI_INFO_NULL, &plan);
    return pcoll__dropin_finish(rc, plan, comm, RSB, form, request, err);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, recvbuf, recvcounts, datatype, op, comm, BLOCKING, MPI_INFO_NULL, NULL,
              &err))
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, recvbuf, recvcounts, datatype, op, comm, NONBLOCKING, MPI_INFO_NULL,
              request, &err))
        return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    return err;
}
#endif

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve_block(sendbuf, recvbuf, recvcount, datatype, op, comm, BLOCKING, MPI_INFO_NULL,
                    NULL, &err))
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve_block(sendbuf, recvbuf, recvcount, datatype, op, comm, NONBLOCKING,
                    MPI_INFO_NULL, request, &err))
        return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                          request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve(sendbuf, recvbuf, recvcounts, datatype, op, comm, PERSISTENT, info, request,
              &err))
        return PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info,
                                        request);
    return err;
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request)
{
    int err;
    if (!pcoll__dropin_serves(comm) ||
        serve_block(sendbuf, recvbuf, recvcount, datatype, op, comm, PERSISTENT, info, request,
                    &err))
        return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                              info, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
/* Serve a large-count call (block: the block form's recvcount, else
 * recvcounts), any count; 1 when the caller must make the MPI call. */
static int serve_c(const void *sendbuf, void *recvbuf, const MPI_Count *counts, MPI_Count count,
                   int block, MPI_Datatype type, MPI_Op op, MPI_Comm comm, int form,
                   MPI_Info info, MPI_Request *request, int *err)
{
    static const pcoll__mode_t modes[] = {[BLOCKING] = PCOLL__ONESHOT,
                                          [NONBLOCKING] = PCOLL__LOCAL,
                                          [PERSISTENT] = PCOLL__PERSISTENT};
    pcoll_plan_t *plan = NULL;
    int coll = block ? RSB : RS, rc;
    if (!pcoll__dropin_serves(comm))
        return 1;
    rc = pcoll__reduce_scatter_dropin_c(modes[form], sendbuf, recvbuf, counts, count, block, type,
                                        op, comm, info, form == BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, coll, form, request, err);
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (serve_c(sendbuf, recvbuf, recvcounts, 0, 0, datatype, op, comm, BLOCKING, MPI_INFO_NULL,
                NULL, &err))
        return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, recvbuf, recvcounts, 0, 0, datatype, op, comm, NONBLOCKING,
                MPI_INFO_NULL, request, &err))
        return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                      request);
    return err;
}
#endif

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, recvbuf, recvcounts, 0, 0, datatype, op, comm, PERSISTENT, info,
                request, &err))
        return PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                          info, request);
    return err;
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (serve_c(sendbuf, recvbuf, NULL, recvcount, 1, datatype, op, comm, BLOCKING,
                MPI_INFO_NULL, NULL, &err))
        return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, recvbuf, NULL, recvcount, 1, datatype, op, comm, NONBLOCKING,
                MPI_INFO_NULL, request, &err))
        return PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                            request);
    return err;
}
#endif

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, recvbuf, NULL, recvcount, 1, datatype, op, comm, PERSISTENT, info,
                request, &err))
        return PMPI_Reduce_scatter_block_init_c(sendbuf, recvbuf, recvcount, datatype, op,
                                                comm, info, request);
    return err;
}
#endif
