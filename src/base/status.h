/* Internal error reporting: see status.c. */
#ifndef PCOLL_BASE_STATUS_H
#define PCOLL_BASE_STATUS_H

#include "pcoll.h"

/* Record a message for rc (pcoll_last_error) and return rc.  The library
 * prints nothing by default: the message goes to stderr only when
 * PCOLL_VERBOSE is set to 1/true in the environment, or the call in progress
 * on this thread asked for it with the info key pcoll_verbose. */
int pcoll__error(int rc, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* This thread's verbosity for the rest of the current call (the info key
 * pcoll_verbose; the entry path sets it from the options). */
void pcoll__set_verbose(int on);

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
            (rc) = pcoll__error(PCOLL_ERR_MPI, "%s failed (MPI error %d)", \
                                #call, mpi_rc_);                               \
            goto label;                                                        \
        }                                                                      \
    } while (0)

#endif
