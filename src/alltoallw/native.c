/*
 * alltoallw `native`: the MPI's own MPI_Alltoallw (core/native.h).  The
 * public calls take int counts and displacements, so they go back to ints
 * as the MPI call wants them; the types are the plan's copies.
 */
#include "alltoallw/alltoallw.h"
#include "base/status.h"
#include "core/native.h"
#include "core/pmpi.h"

typedef struct wargs {
    const void *sendbuf;  /* MPI_IN_PLACE or the send buffer */
    void *recvbuf;
    int *ints;            /* scounts, sdispls, rcounts, rdispls (p each) */
    const MPI_Datatype *stypes, *rtypes;
    int p;
} wargs_t;

#define INTS(w, k) ((w)->ints + (size_t)(k) * (size_t)(w)->p)

static int blocking(const void *args, MPI_Comm comm)
{
    const wargs_t *w = args;
    return PCOLL__MPI(Alltoallw)(w->sendbuf, INTS(w, 0), INTS(w, 1), w->stypes, w->recvbuf,
                                 INTS(w, 2), INTS(w, 3), w->rtypes, comm);
}

static int nonblocking(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const wargs_t *w = args;
    return PCOLL__MPI(Ialltoallw)(w->sendbuf, INTS(w, 0), INTS(w, 1), w->stypes, w->recvbuf,
                                  INTS(w, 2), INTS(w, 3), w->rtypes, comm, req);
}

#ifdef PCOLL__NATIVE_HAVE_INIT
static int init(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const wargs_t *w = args;
    return PCOLL__MPI(Alltoallw_init)(w->sendbuf, INTS(w, 0), INTS(w, 1), w->stypes,
                                      w->recvbuf, INTS(w, 2), INTS(w, 3), w->rtypes, comm,
                                      MPI_INFO_NULL, req);
}
#endif

static const pcoll__native_calls_t calls = {blocking, nonblocking, PCOLL__NATIVE_INIT(init)};

int pcoll__alltoallw_native(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = &((const pcoll__a2av_args_t *)args)->a;
    wargs_t w = {a->inplace ? MPI_IN_PLACE : a->sendbuf, a->recvbuf, NULL, a->stypes,
                 a->rtypes, plan->size};
    int i;
    if (!(w.ints = pcoll__plan_alloc(plan, sizeof(int) * 4 * (size_t)w.p)))
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallw native: counts");
    /* Widened from the caller's ints: they fit. */
    for (i = 0; i < w.p; i++) {
        INTS(&w, 0)[i] = a->inplace ? 0 : (int)a->scounts[i];
        INTS(&w, 1)[i] = a->inplace ? 0 : (int)a->sdispls[i];
        INTS(&w, 2)[i] = (int)a->rcounts[i];
        INTS(&w, 3)[i] = (int)a->rdispls[i];
    }
    return pcoll__native_plan(plan, &calls, &w, sizeof w);
}
