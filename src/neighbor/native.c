/*
 * neighbor `native`: the MPI's own MPI_Neighbor_alltoall, _alltoallv or
 * _alltoallw (the form the call came in; core/native.h runs the blocking,
 * non-blocking or persistent call), with the counts (and alltoallv's
 * displacements) as ints where every one fits, else MPI-4's large-count
 * call (an MPI without it cannot serve such sizes: refused).  Refused on a
 * Cartesian communicator with a periodic dimension of 1 or 2 ranks for
 * plans that start the MPI's call (not the deferred ones, whose run is the
 * blocking call), where the MPI's started calls fill the wrong slots, and
 * everywhere on an MPI whose calls match a repeated neighbour's messages in
 * the wrong order (core/defects.h); auto then takes `direct`.
 *
 * Cost: the MPI's (MPICH and Open MPI: one Isend and one Irecv per edge).
 */
#include <limits.h>

#include "base/status.h"
#include "core/defects.h"
#include "core/native.h"
#include "base/pmpi.h"
#include "neighbor/neighbor.h"

typedef struct nargs {
    pcoll__nbr_args_t a;
    /* The counts and displacements as ints: send counts and displacements
     * (outdegree each), then receive ones (indegree each); NULL: the
     * large-count call. */
    int *ints;
} nargs_t;

#define SC(n) ((n)->ints)
#define SD(n) ((n)->ints + (n)->a.outdegree)
#define RC(n) ((n)->ints + 2 * (n)->a.outdegree)
#define RD(n) ((n)->ints + 2 * (n)->a.outdegree + (n)->a.indegree)

static int blocking(const void *args, MPI_Comm comm)
{
    const nargs_t *n = args;
    const pcoll__nbr_args_t *a = &n->a;
#if MPI_VERSION >= 4
    if (!n->ints && a->form == PCOLL__NBR_ALLTOALL)
        return PCOLL__MPI(Neighbor_alltoall_c)(a->sendbuf, a->sendcount, a->sendtype,
                                               a->recvbuf, a->recvcount, a->recvtype, comm);
    if (!n->ints && a->form == PCOLL__NBR_ALLTOALLV)
        return PCOLL__MPI(Neighbor_alltoallv_c)(a->sendbuf, a->scounts, a->sdispls, a->sendtype,
                                                a->recvbuf, a->rcounts, a->rdispls, a->recvtype,
                                                comm);
    if (!n->ints)
        return PCOLL__MPI(Neighbor_alltoallw_c)(a->sendbuf, a->scounts, a->sdispls, a->stypes,
                                                a->recvbuf, a->rcounts, a->rdispls, a->rtypes,
                                                comm);
#endif
    if (a->form == PCOLL__NBR_ALLTOALL)
        return PCOLL__MPI(Neighbor_alltoall)(a->sendbuf, (int)a->sendcount, a->sendtype,
                                             a->recvbuf, (int)a->recvcount, a->recvtype, comm);
    if (a->form == PCOLL__NBR_ALLTOALLV)
        return PCOLL__MPI(Neighbor_alltoallv)(a->sendbuf, SC(n), SD(n), a->sendtype, a->recvbuf,
                                              RC(n), RD(n), a->recvtype, comm);
    return PCOLL__MPI(Neighbor_alltoallw)(a->sendbuf, SC(n), a->sdispls, a->stypes, a->recvbuf,
                                          RC(n), a->rdispls, a->rtypes, comm);
}

static int nonblocking(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const nargs_t *n = args;
    const pcoll__nbr_args_t *a = &n->a;
#if MPI_VERSION >= 4
    if (!n->ints && a->form == PCOLL__NBR_ALLTOALL)
        return PCOLL__MPI(Ineighbor_alltoall_c)(a->sendbuf, a->sendcount, a->sendtype,
                                                a->recvbuf, a->recvcount, a->recvtype, comm, req);
    if (!n->ints && a->form == PCOLL__NBR_ALLTOALLV)
        return PCOLL__MPI(Ineighbor_alltoallv_c)(a->sendbuf, a->scounts, a->sdispls,
                                                 a->sendtype, a->recvbuf, a->rcounts, a->rdispls,
                                                 a->recvtype, comm, req);
    if (!n->ints)
        return PCOLL__MPI(Ineighbor_alltoallw_c)(a->sendbuf, a->scounts, a->sdispls, a->stypes,
                                                 a->recvbuf, a->rcounts, a->rdispls, a->rtypes,
                                                 comm, req);
#endif
    if (a->form == PCOLL__NBR_ALLTOALL)
        return PCOLL__MPI(Ineighbor_alltoall)(a->sendbuf, (int)a->sendcount, a->sendtype,
                                              a->recvbuf, (int)a->recvcount, a->recvtype, comm,
                                              req);
    if (a->form == PCOLL__NBR_ALLTOALLV)
        return PCOLL__MPI(Ineighbor_alltoallv)(a->sendbuf, SC(n), SD(n), a->sendtype,
                                               a->recvbuf, RC(n), RD(n), a->recvtype, comm, req);
    return PCOLL__MPI(Ineighbor_alltoallw)(a->sendbuf, SC(n), a->sdispls, a->stypes, a->recvbuf,
                                           RC(n), a->rdispls, a->rtypes, comm, req);
}

#ifdef PCOLL__NATIVE_HAVE_INIT
static int init(const void *args, MPI_Comm comm, MPI_Request *req)
{
    const nargs_t *n = args;
    const pcoll__nbr_args_t *a = &n->a;
#if MPI_VERSION >= 4
    if (!n->ints && a->form == PCOLL__NBR_ALLTOALL)
        return PCOLL__MPI(Neighbor_alltoall_init_c)(a->sendbuf, a->sendcount, a->sendtype,
                                                    a->recvbuf, a->recvcount, a->recvtype, comm,
                                                    MPI_INFO_NULL, req);
    if (!n->ints && a->form == PCOLL__NBR_ALLTOALLV)
        return PCOLL__MPI(Neighbor_alltoallv_init_c)(a->sendbuf, a->scounts, a->sdispls,
                                                     a->sendtype, a->recvbuf, a->rcounts,
                                                     a->rdispls, a->recvtype, comm,
                                                     MPI_INFO_NULL, req);
    if (!n->ints)
        return PCOLL__MPI(Neighbor_alltoallw_init_c)(a->sendbuf, a->scounts, a->sdispls,
                                                     a->stypes, a->recvbuf, a->rcounts,
                                                     a->rdispls, a->rtypes, comm, MPI_INFO_NULL,
                                                     req);
#endif
    if (a->form == PCOLL__NBR_ALLTOALL)
        return PCOLL__MPI(Neighbor_alltoall_init)(a->sendbuf, (int)a->sendcount, a->sendtype,
                                                  a->recvbuf, (int)a->recvcount, a->recvtype,
                                                  comm, MPI_INFO_NULL, req);
    if (a->form == PCOLL__NBR_ALLTOALLV)
        return PCOLL__MPI(Neighbor_alltoallv_init)(a->sendbuf, SC(n), SD(n), a->sendtype,
                                                   a->recvbuf, RC(n), RD(n), a->recvtype, comm,
                                                   MPI_INFO_NULL, req);
    return PCOLL__MPI(Neighbor_alltoallw_init)(a->sendbuf, SC(n), a->sdispls, a->stypes,
                                               a->recvbuf, RC(n), a->rdispls, a->rtypes, comm,
                                               MPI_INFO_NULL, req);
}
#endif

static const pcoll__native_calls_t calls = {blocking, nonblocking, PCOLL__NATIVE_INIT(init), 0};

/* Whether v fits an int. */
static int fits(MPI_Count v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

/* The counts and displacements as ints in plan scratch (alltoallw's
 * displacements stay MPI_Aint): 1, or 0 when one does not fit, -1 out of
 * memory. */
static int as_ints(pcoll_plan_t *plan, nargs_t *n)
{
    const pcoll__nbr_args_t *a = &n->a;
    int in = a->indegree, out = a->outdegree, i, ok = fits(a->sendcount) && fits(a->recvcount);
    if (!(n->ints = pcoll__plan_alloc(plan, sizeof(int) * (2 * (size_t)(in + out) + 1))))
        return -1;
    for (i = 0; i < out && ok; i++) {
        ok = fits(a->scounts[i]) && (a->form == PCOLL__NBR_ALLTOALLW || fits(a->sdispls[i]));
        SC(n)[i] = (int)a->scounts[i], SD(n)[i] = (int)a->sdispls[i];
    }
    for (i = 0; i < in && ok; i++) {
        ok = fits(a->rcounts[i]) && (a->form == PCOLL__NBR_ALLTOALLW || fits(a->rdispls[i]));
        RC(n)[i] = (int)a->rcounts[i], RD(n)[i] = (int)a->rdispls[i];
    }
    return ok;
}

int pcoll__nbr_native_defers(int together, int p)
{
    return pcoll__native_defers(&calls, together, p, 0);
}

/* SimGrid's SMPI has no neighbourhood calls (bench/sim/smpi_compat.c
 * emulates the blocking one on the program's own communicators, not on
 * pcoll's duplicates). */
#ifdef SMPI_H
#define NO_NEIGHBOR_CALLS 1
#else
#define NO_NEIGHBOR_CALLS 0
#endif

int pcoll__nbr_native_usable(const pcoll__nbr_args_t *a)
{
    return !NO_NEIGHBOR_CALLS && a->native_ok &&
           !pcoll__mpi_defect(PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER) &&
           !(a->folded && a->started && pcoll__mpi_defect(PCOLL__DEFECT_OMPI_NEIGHBOR_CART));
}

int pcoll__nbr_native(pcoll_plan_t *plan, const void *args)
{
    nargs_t n = {.a = *(const pcoll__nbr_args_t *)args};
    int fit;
    if (!pcoll__nbr_native_usable(&n.a))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            NO_NEIGHBOR_CALLS ? "neighbor native: SMPI has no neighbourhood calls"
                            : !n.a.native_ok
                                ? "neighbor native: counts or displacements past INT_MAX need "
                                  "MPI-4's large-count calls"
                            : pcoll__mpi_defect(PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER)
                                ? "neighbor native: this MPI's neighbourhood calls match a "
                                  "repeated neighbour's messages in the wrong order (MPI defect "
                                  "mpich-neighbor-order, docs/troubleshooting.md)"
                                : "neighbor native: this MPI's started neighbourhood calls fill "
                                  "the wrong slots on a periodic dimension of 1 or 2 ranks (MPI "
                                  "defect ompi-neighbor-cart-folded, docs/troubleshooting.md)");
    if ((fit = as_ints(plan, &n)) < 0)
        return pcoll__error(PCOLL_ERR_NOMEM, "neighbor native: counts");
    /* Without MPI-4, native_ok holds only where every value fits. */
    if (!fit)
        n.ints = NULL;
    return pcoll__native_plan(plan, &calls, &n, sizeof n);
}
