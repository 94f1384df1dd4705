/*
 * What the api layer offers the drop-in above it, and what its descriptors
 * share.  The drop-in's non-blocking calls (MPI_Ialltoall, ...) get a plan
 * from local checks only (no agreement, no cache) on a fresh tag, which every
 * rank takes in the same order because MPI orders non-blocking collectives
 * alike on all ranks; algorithms whose planning communicates are refused
 * there (PCOLL_ERR_UNSUPPORTED).
 */
#ifndef PCOLL_API_API_H
#define PCOLL_API_API_H

#include "alltoall/alltoall.h"
#include "api/entry.h"

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

/* ---- shared by the descriptors ----------------------------------------- */

/* alltoall's local checks of the call's six arguments (the first six
 * fields of r, as the public call gives them) into *a (MPI_IN_PLACE
 * resolved); nothing is allocated.  The multiple all-to-all checks its
 * blocks the same way. */
int pcoll__alltoall_check(const pcoll__a2a_args_t *r, const char *fn, pcoll__a2a_args_t *a);
/* Before building: keep the types (the caller may free its own). */
int pcoll__alltoall_keep_types(pcoll_plan_t *plan, pcoll__a2a_args_t *a);

#endif
