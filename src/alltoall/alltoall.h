/*
 * All-to-all: the arguments every builder receives and the helpers they
 * share.  Block b of the send (receive) buffer is the data for (from) rank b.
 */
#ifndef PCOLL_ALLTOALL_ALLTOALL_H
#define PCOLL_ALLTOALL_ALLTOALL_H

#include "base/algo.h"
#include "base/options.h"
#include "core/plan.h"
#include "datatype/size.h"

/* Default number of exchanges in flight for `scattered`. */
#define PCOLL__A2A_THROTTLE 32
/* Auto: blocks up to this many bytes use `scattered`, larger ones `pairwise`. */
#define PCOLL__A2A_SCATTERED_MAX 32768
/* Auto, in place: above this many bytes in all, use `pairwise` (one block of
 * scratch) rather than staging a copy of the whole buffer. */
#define PCOLL__A2A_INPLACE_STAGE_MAX (1 << 20)

/* A public alltoall call's arguments, as the entry path gets them (a count
 * over INT_MAX already made one item of a type of that many: refuse says
 * when that failed). */
typedef struct pcoll__a2a_raw {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int refuse;
} pcoll__a2a_raw_t;

typedef struct pcoll__a2a_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int inplace;            /* the caller passed MPI_IN_PLACE */
    MPI_Aint sblock;        /* extent of one send block in bytes */
    MPI_Aint rblock;        /* extent of one receive block in bytes */
    long long blockbytes;   /* payload bytes of one block (alltoallv: of the largest) */
    long long sendbytes;    /* alltoall: of one send block (blockbytes but on an
                             * intercommunicator, where the remote group's
                             * receive blocks match it) */
    /* alltoallv: per-peer counts and displacements in items (NULL for
     * alltoall), of any size (the int forms widen them); sext and rext are
     * the item extents. */
    const MPI_Count *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls;
    MPI_Aint sext, rext;
    /* alltoallw: a send and a receive type per peer (NULL otherwise), used
     * instead of sendtype / recvtype; the displacements are then in bytes
     * (sext = rext = 1). */
    const MPI_Datatype *stypes, *rtypes;
    pcoll__opts_t opts;
    /* A code the public call's own preparation failed with (the large-count
     * forms), reported by the check so that every rank hears of it. */
    int refuse;
} pcoll__a2a_args_t;

/* Builders (one file each; the Bruck family in bruck.h). */
int pcoll__alltoall_linear(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_pairwise(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_scattered(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_inter(pcoll_plan_t *plan, const void *args);
/* The MPI's own MPI_Alltoall (core/native.h), and whether it may run on
 * these arguments on p ranks (0 where the running MPI is known to fail them,
 * core/defects.h; the same answer on every rank). */
int pcoll__alltoall_native(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_native_ok(const pcoll__a2a_args_t *a, int p);

/* Where block `peer` starts in the send / receive buffer, and its count.
 * The buffer may be MPI_BOTTOM (NULL): addresses are added as integers. */
static inline const void *pcoll__a2a_sbuf(const pcoll__a2a_args_t *a, int peer)
{
    if (a->sdispls)
        return pcoll__addr(a->sendbuf, a->sdispls[peer] * a->sext);
    return pcoll__addr(a->sendbuf, (MPI_Aint)peer * a->sblock);
}

static inline void *pcoll__a2a_rbuf(const pcoll__a2a_args_t *a, int peer)
{
    if (a->rdispls)
        return pcoll__addr(a->recvbuf, a->rdispls[peer] * a->rext);
    return pcoll__addr(a->recvbuf, (MPI_Aint)peer * a->rblock);
}

static inline MPI_Count pcoll__a2a_scount(const pcoll__a2a_args_t *a, int peer)
{
    return a->scounts ? a->scounts[peer] : a->sendcount;
}

static inline MPI_Count pcoll__a2a_rcount(const pcoll__a2a_args_t *a, int peer)
{
    return a->rcounts ? a->rcounts[peer] : a->recvcount;
}

/* The type of peer's send / receive block. */
static inline MPI_Datatype pcoll__a2a_stype(const pcoll__a2a_args_t *a, int peer)
{
    return a->stypes ? a->stypes[peer] : a->sendtype;
}

static inline MPI_Datatype pcoll__a2a_rtype(const pcoll__a2a_args_t *a, int peer)
{
    return a->rtypes ? a->rtypes[peer] : a->recvtype;
}

/* count items of type as an int count and a type for the schedule: count
 * and type themselves, or (over INT_MAX) one item of a type of that many
 * items, which the plan owns. */
int pcoll__a2a_items(pcoll_plan_t *plan, MPI_Count count, MPI_Datatype type, int *n,
                     MPI_Datatype *t);

/* Add the receive of peer's block, or the send of ours to it. */
int pcoll__a2a_recv(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer);
int pcoll__a2a_send(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int peer);

/* Add the exchange with one peer: receive its block, send it ours. */
int pcoll__a2a_exchange(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int sendto,
                        int recvfrom);
/* Add the copy of this rank's own block (nothing when in place). */
int pcoll__a2a_self_copy(pcoll_plan_t *plan, const pcoll__a2a_args_t *a);

#endif
