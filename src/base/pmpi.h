/*
 * The MPI functions pcoll calls that the drop-in (src/pmpi, libpcoll_mpi)
 * also defines: MPI_Start, the Wait and Test families, MPI_Request_free,
 * MPI_Alltoall ...  pcoll calls them by their profiling names, so that its
 * own traffic goes straight to the MPI library and never enters the
 * drop-in's wrappers (nor a tool's that interposes MPI_*):
 *
 *     PCOLL__MPI(Waitall)(n, reqs, MPI_STATUSES_IGNORE)   -> PMPI_Waitall(...)
 *
 * Use it for every call in src/ (outside src/pmpi) of a function the drop-in
 * defines; other MPI functions keep their MPI_ names.  (src/api calls
 * PMPI_Alltoall and PMPI_Allgather by name.)  tests/dropin/pmpi_traffic.c
 * fails when such a call reaches an MPI_ definition.
 *
 * Under SimGrid SMPI (its mpi.h defines SMPI_H) the MPI_ names stay:
 * bench/sim/smpi_compat.c interposes MPI_Start, MPI_Request_free ... with
 * the linker's --wrap of the MPI_ names (bench/sim/build.mk), which PMPI_
 * calls would bypass.  (Extending the --wrap to the PMPI_ names would let
 * SMPI use them too; not done, as it cannot be checked without SimGrid.)
 * A drop-in linked into an SMPI program serves the blocking collectives
 * only, so these calls pass its wrappers straight on to PMPI there.
 */
#ifndef PCOLL_BASE_PMPI_H
#define PCOLL_BASE_PMPI_H

#include <mpi.h>

#ifdef SMPI_H
#define PCOLL__MPI(name) MPI_##name
#else
#define PCOLL__MPI(name) PMPI_##name
#endif

#endif
