/*
 * Known defects of MPI libraries, and the running MPI's (the table is in
 * defects.c; docs/troubleshooting.md, "Known MPI defects", shows each with a
 * plain-MPI reproducer).  A defect is told by the library's name and version
 * range in MPI_Get_library_version's text: every rank of a job runs the same
 * library, so every rank takes the same decision.  The code that steps
 * around a defect asks pcoll__mpi_defect where it would otherwise take the
 * path the MPI gets wrong.
 */
#ifndef PCOLL_CORE_DEFECTS_H
#define PCOLL_CORE_DEFECTS_H

#include "pcoll.h"

typedef enum pcoll__defect {
    /* MPICH ch4:ucx before 4.2.0: a message sent from a contiguous buffer
     * and received with a non-contiguous datatype fails (MPI_ERR_TRUNCATE)
     * when a UCX fragment boundary falls inside a basic element, e.g. a
     * packed (int, double) stream received as structs.  pcoll then sends
     * in-place data from a copy in the receive layout (the same datatype on
     * both sides) instead of packed bytes, and never runs MPICH's own
     * in-place alltoall, which sends packed bytes. */
    PCOLL__DEFECT_UCX_SPLIT_UNPACK,
    /* MPICH before 4.1.1: MPI_Alltoallw_init (and MPI_Ialltoallw where it
     * takes the same schedule) with MPI_IN_PLACE and receive types that
     * differ between peers moves the wrong bytes, or aborts with a
     * truncation; the blocking MPI_Alltoallw is right.  pcoll's `native`
     * refuses in-place alltoallw there, and auto takes `pairwise`. */
    PCOLL__DEFECT_ALLTOALLW_INPLACE,
    /* Open MPI before 4.1.5: MPI_Alltoall's modified Bruck, which coll/tuned
     * takes for small blocks on more than 12 ranks, moves wrong bytes when
     * the send and receive types' layouts differ.  pcoll's `native` refuses
     * alltoall on more than 12 ranks there (the rank count decides: the
     * same on every rank), and auto takes a pcoll algorithm. */
    PCOLL__DEFECT_OMPI_ALLTOALL_BRUCK,
    /* Open MPI 5 (no release known to fix it): MPI_Reduce_local runs through
     * MPI_COMM_SELF's collective module, which only MPI_Init sets up: in a
     * process that uses MPI sessions alone it dereferences a null pointer
     * (SIGSEGV).  pcoll's own reduce-scatter schedules reduce with
     * MPI_Reduce_local, so on a communicator where some rank has not called
     * MPI_Init (agreed when the context is made, core/comm.h) they refuse
     * with PCOLL_ERR_UNSUPPORTED and auto takes `native` (the MPI's own
     * reduce-scatter reduces without MPI_Reduce_local). */
    PCOLL__DEFECT_OMPI_SESSIONS_REDUCE_LOCAL,
    /* MPICH before 4.1 (Debian 12: 4.0.2), MPI sessions alone: a session
     * started after every earlier one is finalized crashes in
     * MPI_Session_init, and freeing a persistent collective request
     * crashes in MPI_Request_free (SIGSEGV in UCX, plain MPI programs).
     * pcoll does not serve communicators without MPI_Init there
     * (PCOLL_ERR_STATE, as before sessions support; the drop-in hands the
     * calls to MPI). */
    PCOLL__DEFECT_MPICH_SESSIONS,
    /* MPICH before 5 (seen in Debian 12's 4.0.2; the 5.0 wheel is right):
     * a persistent MPI_Reduce_scatter_block_init on an intercommunicator
     * delivers nothing to the ranks but the first of a group after its
     * first start.  pcoll's `native` reduce-scatter on an
     * intercommunicator starts the non-blocking call at each start there
     * instead of a persistent request. */
    PCOLL__DEFECT_MPICH_INTER_RS_INIT,
    /* Open MPI (5.0.11 and every earlier release with them): the
     * non-blocking and persistent neighbourhood all-to-alls (libnbc) on a
     * Cartesian communicator whose periodic dimension has 1 or 2 ranks put
     * the block sent to the neighbour above into the receiver's slot of
     * the neighbour above instead of below; the blocking ones are right.
     * pcoll's `native` refuses such communicators for plans that start
     * (persistent and non-blocking), and auto takes `direct`. */
    PCOLL__DEFECT_OMPI_NEIGHBOR_CART,
    /* MPICH before 5 (seen in Debian 12's 4.0.2; the 5.0 wheel is right):
     * its neighbourhood all-to-alls, blocking ones too, match the messages
     * of a repeated neighbour (a periodic Cartesian dimension of 1 or 2
     * ranks, a repeated or self edge of a graph) in another order than
     * MPI's, so blocks land in the wrong slots (and the sizes of the
     * exchange then disagree: a hang or an abort).  pcoll's `native`
     * neighbourhood plans refuse on that MPI (the version decides, the same
     * on every rank) and auto takes `direct`. */
    PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER,
    PCOLL__DEFECT_COUNT
} pcoll__defect_t;

/* Whether the running MPI has defect d. */
int pcoll__mpi_defect(pcoll__defect_t d);

/* The defects of the library whose MPI_Get_library_version text is
 * version, as a set of bits 1 << d. */
unsigned pcoll__mpi_defects_of(const char *version);

/* A defect's short name ("mpich-ucx-split-unpack", ...). */
const char *pcoll__defect_name(pcoll__defect_t d);

#endif
