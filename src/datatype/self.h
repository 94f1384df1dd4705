/*
 * The library's communicator of this process alone, whose errors return:
 * the communicator argument of MPI_Pack and friends, and of local probes
 * that may fail.  MPI_COMM_SELF exists only after MPI_Init; a process that
 * uses MPI sessions alone has none, so the library makes its own (see
 * self.c).
 */
#ifndef PCOLL_DATATYPE_SELF_H
#define PCOLL_DATATYPE_SELF_H

#include "pcoll.h"

/* MPI sessions (MPI_Comm_create_from_group): MPI-4, and Open MPI 5 (which
 * says MPI 3.1).  Without them every communicator comes after MPI_Init. */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define PCOLL__HAVE_SESSIONS 1
#endif

/* Make the communicator once per process (any thread; the first call
 * wins): after MPI_Init a copy of MPI_COMM_SELF, else (sessions) one made
 * with MPI_Comm_create_from_group from this process's rank in from's group,
 * which MPI_Comm_create_from_group ties to from's session.  PCOLL_ERR_MPI
 * if MPI refuses. */
int pcoll__self_make(MPI_Comm from);

/* The communicator, made from MPI_COMM_SELF when missing after MPI_Init;
 * MPI_COMM_NULL where none can be had (sessions, before the first
 * communicator pcoll saw). */
MPI_Comm pcoll__self(void);

/* Free it (before MPI_Finalize or MPI_Session_finalize end MPI); the next
 * pcoll__self_make makes a new one. */
void pcoll__self_free(void);

#endif
