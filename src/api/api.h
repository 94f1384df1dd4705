/*
 * What the api layer offers the drop-in above it, and what its descriptors
 * share.  The drop-in's non-blocking calls (MPI_Ialltoall, ...) get a plan
 * from local checks only (no agreement, no cache) on a fresh tag, which every
 * rank takes in the same order because MPI orders non-blocking collectives
 * alike on all ranks; algorithms whose planning communicates are refused
 * there (PCOLL_ERR_UNSUPPORTED), and where the choice is `native` no plan
 * is made: PCOLL__LOCAL_NATIVE tells the drop-in to make the MPI's call.
 */
#ifndef PCOLL_API_API_H
#define PCOLL_API_API_H

#include "alltoall/alltoall.h"
#include "api/entry.h"
#include "neighbor/neighbor.h"

/* alltoall in any mode with counts of any size (the int forms widen). */
int pcoll__alltoall_dropin(pcoll__mode_t mode, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          pcoll_plan_t **plan);
/* alltoallv in any mode with MPI's own arguments: negative displacements
 * accepted (blocks below the buffer pointers, as MPI allows), so no rank has
 * to rewrite them and possibly fail alone. */
int pcoll__alltoallv_dropin(pcoll__mode_t mode, const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);
/* The same with the large-count forms' arrays. */
int pcoll__alltoallv_dropin_c(pcoll__mode_t mode, const void *sendbuf,
                              const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Info info, pcoll_plan_t **plan);
/* Either reduce-scatter form (block: recvcount, else recvcounts) with the
 * large-count forms' counts, in any mode. */
int pcoll__reduce_scatter_dropin_c(pcoll__mode_t mode, const void *sendbuf, void *recvbuf,
                                    const MPI_Count recvcounts[], MPI_Count recvcount, int block,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    pcoll_plan_t **plan);
int pcoll__reduce_scatter_plan_local(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                     pcoll_plan_t **plan);

/* alltoallw in any mode with MPI's own arguments (negative displacements
 * accepted, as for alltoallv). */
int pcoll__alltoallw_dropin(pcoll__mode_t mode, const void *sendbuf, const int sendcounts[],
                            const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const int rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                            pcoll_plan_t **plan);
/* The same with the large-count forms' arrays. */
int pcoll__alltoallw_dropin_c(pcoll__mode_t mode, const void *sendbuf,
                              const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                              pcoll_plan_t **plan);

/* The neighbourhood all-to-alls' arguments as a public call gives them
 * (api/neighbor.c): form (PCOLL__NBR_*), the int arrays or (wide, the
 * large-count forms) the MPI_Count / MPI_Aint ones; alltoallw's int form
 * has MPI_Aint displacements (wsdispls, wrdispls) with int counts. */
typedef struct pcoll__nbr_raw {
    int form, wide;
    const void *sendbuf;
    void *recvbuf;
    MPI_Count sendcount, recvcount;       /* alltoall */
    MPI_Datatype sendtype, recvtype;      /* alltoall, alltoallv */
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Count *wscounts, *wrcounts;
    const MPI_Aint *wsdispls, *wrdispls;
    const MPI_Datatype *stypes, *rtypes;  /* alltoallw */
    /* Negative displacements accepted (the drop-in: MPI's own arguments). */
    int negative_ok;
} pcoll__nbr_raw_t;

/* The raw arguments of each public form, from the names of MPI's own
 * parameters in scope (sendbuf, sendcount(s), sdispls, sendtype(s), ...):
 * the public calls' and the drop-in's wrappers' one spelling of them.
 * Every member named (PCOLL__NBR_RAW): a call's arguments are stored once,
 * with no zeroing of the whole structure first. */
#define PCOLL__NBR_RAW(form_, wide_, scount, rcount, stype, rtype, sc, sd, rc, rd, wsc, wsd, wrc, \
                       wrd, stypes_, rtypes_)                                                      \
    (pcoll__nbr_raw_t)                                                                            \
    {                                                                                             \
        .form = (form_), .wide = (wide_), .sendbuf = sendbuf, .recvbuf = recvbuf,                 \
        .sendcount = (scount), .recvcount = (rcount), .sendtype = (stype), .recvtype = (rtype),   \
        .scounts = (sc), .sdispls = (sd), .rcounts = (rc), .rdispls = (rd), .wscounts = (wsc),    \
        .wrcounts = (wrc), .wsdispls = (wsd), .wrdispls = (wrd), .stypes = (stypes_),             \
        .rtypes = (rtypes_), .negative_ok = 0                                                     \
    }
#define PCOLL__NBR_RAW_A2A(w)                                                                     \
    PCOLL__NBR_RAW(PCOLL__NBR_ALLTOALL, (w), sendcount, recvcount, sendtype, recvtype, NULL,      \
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
#define PCOLL__NBR_RAW_A2AV                                                                       \
    PCOLL__NBR_RAW(PCOLL__NBR_ALLTOALLV, 0, 0, 0, sendtype, recvtype, sendcounts, sdispls,        \
                   recvcounts, rdispls, NULL, NULL, NULL, NULL, NULL, NULL)
#define PCOLL__NBR_RAW_A2AV_C                                                                     \
    PCOLL__NBR_RAW(PCOLL__NBR_ALLTOALLV, 1, 0, 0, sendtype, recvtype, NULL, NULL, NULL, NULL,     \
                   sendcounts, sdispls, recvcounts, rdispls, NULL, NULL)
#define PCOLL__NBR_RAW_A2AW                                                                       \
    PCOLL__NBR_RAW(PCOLL__NBR_ALLTOALLW, 0, 0, 0, (MPI_Datatype)0, (MPI_Datatype)0,           \
                   sendcounts, NULL, recvcounts, NULL, NULL, sdispls, NULL, rdispls, sendtypes,   \
                   recvtypes)
#define PCOLL__NBR_RAW_A2AW_C                                                                     \
    PCOLL__NBR_RAW(PCOLL__NBR_ALLTOALLW, 1, 0, 0, (MPI_Datatype)0, (MPI_Datatype)0, NULL,     \
                   NULL, NULL, NULL, sendcounts, sdispls, recvcounts, rdispls, sendtypes,         \
                   recvtypes)

/* Any neighbourhood all-to-all in any mode (the drop-in's). */
int pcoll__neighbor_dropin(pcoll__mode_t mode, const pcoll__nbr_raw_t *r, MPI_Comm comm,
                           MPI_Info info, pcoll_plan_t **plan);
/* Collective over comm, which has a topology (the drop-in, when the call
 * that made it returns): the shapes of comm's MPI_Neighbor_alltoall, _v and
 * _w calls (not the large-count forms) decided on a stand-in call of 8
 * bytes an edge (entry.c "Prepared shapes"), so that non-blocking calls of
 * them lease the plan kept for them (`node`) from their first call. */
int pcoll__neighbor_prepare(MPI_Comm comm);
/* Collective over the intracommunicator comm (the drop-in, when the call
 * that made it returns): the shape of its MPI_Alltoallv calls (not in
 * place) decided on a stand-in call of 8 bytes a block, so that
 * MPI_Ialltoallv (and MPI_Ialltoall) lease the plan kept for it (`hier`)
 * from their first call. */
int pcoll__alltoallv_prepare(MPI_Comm comm);
/* alltoall's checked call a (not in place) on comm, p blocks, as the
 * alltoallv it is (block i at i counts, the arrays in room: 2 p MPI_Count
 * then 2 p MPI_Aint), leased from alltoallv's shape: PCOLL__LEASE_NONE
 * where that shape holds no plan. */
int pcoll__alltoallv_lease_uniform(const pcoll__a2a_args_t *a, int p, MPI_Comm comm,
                                   void *room, pcoll_plan_t **plan);

/* ---- shared by the descriptors ----------------------------------------- */

/* alltoallv's and alltoallw's arguments as the public call gives them. */
typedef struct pcoll__a2av_raw {
    const void *sendbuf;
    const int *scounts, *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *rcounts, *rdispls;
    MPI_Datatype recvtype;
    /* Negative displacements accepted (the drop-in: MPI's own arguments,
     * whose buffers reach below the pointer); the public calls refuse them,
     * since a block below the buffer is most often a mistake. */
    int negative_ok;
    /* The large-count forms: their arrays instead of the four above. */
    int wide;
    const MPI_Count *wscounts, *wrcounts;
    const MPI_Aint *wsdispls, *wrdispls;
    /* alltoallw: a type per peer instead of sendtype and recvtype, and the
     * displacements in bytes. */
    int w;
    const MPI_Datatype *stypes, *rtypes;
    int gpu_kinds; /* in the one-shot key only: device memory (gpu/gpu.h) */
} pcoll__a2av_raw_t;

/* The hooks alltoallv's descriptor lends alltoallw's (api/alltoallv.c):
 * checks, agreement, one-shot key and preparation of pcoll__a2av_raw_t
 * into pcoll__a2av_args_t. */
int pcoll__a2av_check(pcoll__call_t *c);
int pcoll__a2av_agree(pcoll__call_t *c, int local);
int pcoll__a2av_key(pcoll__call_t *c, pcoll__key_t *k);
int pcoll__a2av_prepare(pcoll__call_t *c, pcoll_plan_t *plan);

/* alltoall's local checks of the call's arguments (r, as the public call
 * gives them) into *a (MPI_IN_PLACE resolved); nothing is allocated.  The multiple all-to-all checks its
 * blocks the same way. */
int pcoll__alltoall_check(const pcoll__a2a_raw_t *r, int inter, const char *fn,
                          pcoll__a2a_args_t *a);
/* Before building: keep the types (the caller may free its own); in
 * alltoallv.c, which alltoall.c calls, not the other way round. */
int pcoll__alltoall_keep_types(pcoll_plan_t *plan, pcoll__a2a_args_t *a);

#endif
