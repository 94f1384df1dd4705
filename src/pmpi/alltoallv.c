/*
 * MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init and their large-count
 * forms, served by pcoll.
 *
 * Every form goes to pcoll with MPI's own counts and displacements, negative
 * displacements included (pcoll__alltoallv_dropin and _dropin_c accept them;
 * the public pcoll_alltoallv refuses them as a likely mistake), and the
 * large-count forms with their MPI_Count / MPI_Aint arrays as they are, so
 * no rank has anything to rewrite or to fit in an int that could fail on it
 * alone.
 */

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
    vargs_t v = {sendbuf, scounts, sdispls, sendtype, recvbuf, rcounts, rdispls, recvtype};
    if (!pcoll__dropin_serves(comm))
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
/* Serve the large-count forms: any count and displacement; 1 when the
 * caller must make the MPI call. */
static int serve_c(const void *sendbuf, const MPI_Count *scounts, const MPI_Aint *sdispls,
                   MPI_Datatype sendtype, void *recvbuf, const MPI_Count *rcounts,
                   const MPI_Aint *rdispls, MPI_Datatype recvtype, MPI_Comm comm, int form,
                   MPI_Info info, MPI_Request *request, int *err)
{
    static const pcoll__mode_t modes[] = {[BLOCKING] = PCOLL__ONESHOT,
                                          [NONBLOCKING] = PCOLL__LOCAL,
                                          [PERSISTENT] = PCOLL__PERSISTENT};
    pcoll_plan_t *plan = NULL;
    int rc;
    if (!pcoll__dropin_serves(comm))
        return 1;
    rc = pcoll__alltoallv_dropin_c(modes[form], sendbuf, scounts, sdispls, sendtype, recvbuf,
                                   rcounts, rdispls, recvtype, comm, info,
                                   form == BLOCKING ? NULL : &plan);
    return pcoll__dropin_finish(rc, plan, comm, COLL, form, request, err);
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
