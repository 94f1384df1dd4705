/*
 * MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init and their large-count
 * forms, served by pcoll.
 *
 * The int forms go to pcoll with MPI's own displacements, negative ones
 * included (pcoll__alltoallv_dropin accepts them; the public pcoll_alltoallv
 * refuses them as a likely mistake), so no rank has anything to rewrite that
 * could fail on it alone.  The large-count forms describe the layout from
 * the lowest displacement on (buffer moved by it, displacements shifted).
 *
 * Large counts: whether every count and displacement fits in an int is
 * known per rank only (a pair of ranks may exchange more than INT_MAX items
 * while the others do not), so the large-count forms agree on it with one
 * reduction over the communicator before choosing pcoll or MPI.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "pmpi/dropin.h"

#define COLL PCOLL__DROPIN_ALLTOALLV
#define BLOCKING PCOLL__DROPIN_BLOCKING
#define NONBLOCKING PCOLL__DROPIN_NONBLOCKING
#define PERSISTENT PCOLL__DROPIN_PERSISTENT

/* The arguments as pcoll takes them. */
typedef struct vargs {
    const void *sendbuf;
    const int *scounts, *sdispls;
    MPI_Datatype sendtype;
    const void *recvbuf;
    const int *rcounts, *rdispls;
    MPI_Datatype recvtype;
    int *own; /* arrays made here (4 blocks of p ints), or NULL */
} vargs_t;

/* Serve one alltoallv in form (request: NULL for the blocking form).
 * Returns 1 when the caller must make the MPI call instead, else 0 with
 * *err set. */
static int serve(const vargs_t *v, MPI_Comm comm, int form, MPI_Info info, MPI_Request *request,
                 int *err)
{
    static const pcoll__mode_t modes[] = {[BLOCKING] = PCOLL__ONESHOT,
                                          [NONBLOCKING] = PCOLL__LOCAL,
                                          [PERSISTENT] = PCOLL__PERSISTENT};
    pcoll_plan_t *plan = NULL;
    int rc = pcoll__alltoallv_dropin(modes[form], v->sendbuf, v->scounts, v->sdispls,
                                     v->sendtype, (void *)v->recvbuf, v->rcounts, v->rdispls,
                                     v->recvtype, comm, info,
                                     form == BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, COLL, form, request, err);
}

/* Serve the int forms (displacements as MPI gives them, negative ones too:
 * nothing to rewrite, so no rank can fail alone); 1 when the caller must make
 * the MPI call. */
static int serve_int(const void *sendbuf, const int *scounts, const int *sdispls,
                     MPI_Datatype sendtype, void *recvbuf, const int *rcounts,
                     const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm, int form,
                     MPI_Info info, MPI_Request *request, int *err)
{
    vargs_t v = {sendbuf, scounts, sdispls, sendtype, recvbuf, rcounts, rdispls, recvtype, NULL};
    if (!pcoll__dropin_serves(comm, COLL, form))
        return 1;
    return serve(&v, comm, form, info, request, err);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (serve_int(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                  recvtype, comm, BLOCKING, MPI_INFO_NULL, NULL, &err))
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    int err;
    if (serve_int(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                  recvtype, comm, NONBLOCKING, MPI_INFO_NULL, request, &err))
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_PERSISTENT
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    int err;
    if (serve_int(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                  recvtype, comm, PERSISTENT, info, request, &err))
        return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm, info, request);
    return err;
}
#endif

#ifdef PCOLL__DROPIN_HAVE_LARGE_COUNT
/* The n displacements as ints from 0 on, into out; *buf moves by the
 * lowest (negative) one.  0 if one does not fit in an int. */
static int shift(const void **buf, MPI_Datatype type, int n, const MPI_Aint *displs, int *out)
{
    MPI_Aint lb, extent, lo = 0;
    int i;
    for (i = 0; i < n; i++)
        lo = displs[i] < lo ? displs[i] : lo;
    for (i = 0; i < n; i++) {
        if (!pcoll__dropin_fits((long long)displs[i] - lo))
            return 0;
        out[i] = (int)(displs[i] - lo);
    }
    if (lo < 0) {
        PMPI_Type_get_extent(type, &lb, &extent);
        *buf = (const char *)*buf + lo * extent;
    }
    return 1;
}

static int comm_size(MPI_Comm comm)
{
    int p = 0;
    PMPI_Comm_size(comm, &p);
    return p;
}

static int counts_fit(const MPI_Count *counts, int n, int *out)
{
    int i;
    for (i = 0; i < n; i++) {
        if (!counts || !pcoll__dropin_fits(counts[i]))
            return 0;
        out[i] = (int)counts[i];
    }
    return 1;
}

/* *v from the large-count arguments (arrays always made); whether every
 * count and displacement of this rank fits in an int. */
static int from_c(vargs_t *v, const void *sendbuf, const MPI_Count *scounts,
                  const MPI_Aint *sdispls, MPI_Datatype sendtype, const void *recvbuf,
                  const MPI_Count *rcounts, const MPI_Aint *rdispls, MPI_Datatype recvtype,
                  int p)
{
    int ok;
    *v = (vargs_t){sendbuf, NULL, NULL, sendtype, recvbuf, NULL, NULL, recvtype, NULL};
    if (!(v->own = malloc(sizeof(int) * 4 * (size_t)(p > 0 ? p : 1))))
        return 0;
    v->scounts = v->own, v->sdispls = v->own + p;
    v->rcounts = v->own + 2 * p, v->rdispls = v->own + 3 * p;
    ok = rdispls && counts_fit(rcounts, p, v->own + 2 * p) &&
         shift(&v->recvbuf, recvtype, p, rdispls, v->own + 3 * p);
    if (sendbuf != MPI_IN_PLACE)
        ok = ok && sdispls && counts_fit(scounts, p, v->own) &&
             shift(&v->sendbuf, sendtype, p, sdispls, v->own + p);
    return ok;
}

/* Serve the large-count forms: every rank agrees whether all counts fit. */
static int serve_c(const void *sendbuf, const MPI_Count *scounts, const MPI_Aint *sdispls,
                   MPI_Datatype sendtype, void *recvbuf, const MPI_Count *rcounts,
                   const MPI_Aint *rdispls, MPI_Datatype recvtype, MPI_Comm comm, int form,
                   MPI_Info info, MPI_Request *request, int *err)
{
    vargs_t v;
    int large, fall = 1;
    if (!pcoll__dropin_serves(comm, COLL, form))
        return 1;
    large = !from_c(&v, sendbuf, scounts, sdispls, sendtype, recvbuf, rcounts, rdispls,
                    recvtype, comm_size(comm));
    if (PMPI_Allreduce(MPI_IN_PLACE, &large, 1, MPI_INT, MPI_MAX, comm) == MPI_SUCCESS &&
        !large)
        fall = serve(&v, comm, form, info, request, err);
    else
        pcoll__dropin_log_fell(COLL, form, PCOLL__DROPIN_FELL_LARGE);
    free(v.own);
    return fall;
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int err;
    if (serve_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, BLOCKING, MPI_INFO_NULL, NULL, &err))
        return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
    return err;
}

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING
int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                     const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, NONBLOCKING, MPI_INFO_NULL, request, &err))
        return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, request);
    return err;
}
#endif

int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    int err;
    if (serve_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, PERSISTENT, info, request, &err))
        return PMPI_Alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                     recvcounts, rdispls, recvtype, comm, info, request);
    return err;
}
#endif
