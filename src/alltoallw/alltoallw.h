/*
 * alltoallw: a send and a receive type per peer, displacements in bytes.
 * Its builders take alltoallv's arguments (pcoll__a2av_args_t) with the
 * type arrays set (pcoll__a2a_args_t's stypes and rtypes, sext = rext = 1),
 * so the direct builders of alltoall (linear, pairwise, scattered) and
 * alltoallv's zero-copy Bruck, whose struct types already take one type
 * per element, serve it unchanged; only `native` is its own.
 */
#ifndef PCOLL_ALLTOALLW_ALLTOALLW_H
#define PCOLL_ALLTOALLW_ALLTOALLW_H

#include "alltoallv/alltoallv.h"

/* The MPI's own MPI_Alltoallw (core/native.h), and whether it may run on
 * these arguments (0 where the running MPI is known to get them wrong,
 * core/defects.h; the same answer on every rank). */
int pcoll__alltoallw_native(pcoll_plan_t *plan, const void *args);
int pcoll__alltoallw_native_ok(const pcoll__a2av_args_t *v);

#endif
