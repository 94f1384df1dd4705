/* Internal error reporting: see status.c. */
#ifndef PCOLL_CORE_STATUS_H
#define PCOLL_CORE_STATUS_H

#include "pcoll.h"

/* Record (and, when print is non-zero, print) a message for rc; returns rc. */
int pcoll__error(int rc, int print, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Evaluate call; on a non-zero result store it in rc and jump to label. */
#define PCOLL_CHECK(call, rc, label) \
    do {                             \
        (rc) = (call);               \
        if ((rc) != PCOLL_SUCCESS)   \
            goto label;              \
    } while (0)

/* Evaluate an MPI call; on failure store PCOLL_ERR_MPI in rc and jump. */
#define PCOLL_CHECK_MPI(call, rc, label)                                       \
    do {                                                                       \
        int mpi_rc_ = (call);                                                  \
        if (mpi_rc_ != MPI_SUCCESS) {                                          \
            (rc) = pcoll__error(PCOLL_ERR_MPI, 1, "%s failed (MPI error %d)", \
                                #call, mpi_rc_);                               \
            goto label;                                                        \
        }                                                                      \
    } while (0)

#endif
