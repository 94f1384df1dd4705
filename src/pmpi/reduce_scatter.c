/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block, blocking, non-blocking
 * (MPI_Ireduce_scatter*), persistent (*_init) and large-count, served by
 * pcoll.  MPI makes the counts, type and op equal on every rank, so each
 * rank alone decides alike whether the counts fit in an int.
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

/* The block form; the non-blocking one runs the counts form's local plan. */
static int serve_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                       int *err)
{
    pcoll_plan_t *plan = NULL;
    int rc, *counts = NULL;
    if (form == BLOCKING)
        rc = pcoll_reduce_scatter_block(sendbuf, recvbuf, count, type, op, comm);
    else if (form == PERSISTENT)
        rc = pcoll_reduce_scatter_block_init(sendbuf, recvbuf, count, type, op, comm, info,
                                             &plan);
    else if ((counts = pcoll__dropin_block_counts(comm, count)))
        rc = pcoll__reduce_scatter_plan_local(sendbuf, recvbuf, counts, type, op, comm, &plan);
    else
        rc = PCOLL_ERR_NOMEM;
    free(counts);
    return pcoll__dropin_finish(rc, plan, comm, RSB, form, request, err);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm, RS, BLOCKING) ||
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
    if (!pcoll__dropin_serves(comm, RS, NONBLOCKING) ||
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
    if (!pcoll__dropin_serves(comm, RSB, BLOCKING) ||
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
    if (!pcoll__dropin_serves(comm, RSB, NONBLOCKING) ||
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
    if (!pcoll__dropin_serves(comm, RS, PERSISTENT) ||
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
    if (!pcoll__dropin_serves(comm, RSB, PERSISTENT) ||
        serve_block(sendbuf, recvbuf, recvcount, datatype, op, comm, PERSISTENT, info, request,
                    &err))
        return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                              info, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
/* The counts as ints (malloc'd), or NULL when one does not fit (logged). */
static int *int_counts(const MPI_Count *counts, MPI_Comm comm, int form)
{
    int p, i, *out;
    PMPI_Comm_size(comm, &p);
    for (i = 0; i < p && counts; i++)
        if (!pcoll__dropin_fits(counts[i]))
            break;
    if (!counts || i < p || !(out = malloc(sizeof(int) * (size_t)(p > 0 ? p : 1)))) {
        pcoll__dropin_log_fell(RS, form, PCOLL__DROPIN_FELL_LARGE);
        return NULL;
    }
    for (i = 0; i < p; i++)
        out[i] = (int)counts[i];
    return out;
}

/* Serve the counts form's large-count calls; 1 when the caller must make
 * the MPI call. */
static int serve_c(const void *sendbuf, void *recvbuf, const MPI_Count *counts,
                   MPI_Datatype type, MPI_Op op, MPI_Comm comm, int form, MPI_Info info,
                   MPI_Request *request, int *err)
{
    int *small, fall = 1;
    if (!pcoll__dropin_serves(comm, RS, form) || !(small = int_counts(counts, comm, form)))
        return 1;
    fall = serve(sendbuf, recvbuf, small, type, op, comm, form, info, request, err);
    free(small);
    return fall;
}

/* The block form's count: whether it fits (else logged). */
static int block_fits(MPI_Count count, int form)
{
    if (pcoll__dropin_fits(count))
        return 1;
    pcoll__dropin_log_fell(RSB, form, PCOLL__DROPIN_FELL_LARGE);
    return 0;
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (serve_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, BLOCKING, MPI_INFO_NULL, NULL,
                &err))
        return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, NONBLOCKING, MPI_INFO_NULL,
                request, &err))
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
    if (serve_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, PERSISTENT, info, request,
                &err))
        return PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                          info, request);
    return err;
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int err;
    if (!pcoll__dropin_serves(comm, RSB, BLOCKING) || !block_fits(recvcount, BLOCKING) ||
        serve_block(sendbuf, recvbuf, (int)recvcount, datatype, op, comm, BLOCKING,
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
    if (!pcoll__dropin_serves(comm, RSB, NONBLOCKING) || !block_fits(recvcount, NONBLOCKING) ||
        serve_block(sendbuf, recvbuf, (int)recvcount, datatype, op, comm, NONBLOCKING,
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
    if (!pcoll__dropin_serves(comm, RSB, PERSISTENT) || !block_fits(recvcount, PERSISTENT) ||
        serve_block(sendbuf, recvbuf, (int)recvcount, datatype, op, comm, PERSISTENT, info,
                    request, &err))
        return PMPI_Reduce_scatter_block_init_c(sendbuf, recvbuf, recvcount, datatype, op,
                                                comm, info, request);
    return err;
}
#endif
