/* Internal error reporting: see status.c. */
#ifndef PCOLL_BASE_STATUS_H
#define PCOLL_BASE_STATUS_H

#include "pcoll.h"

/* Storage of one per thread, for the library's per-thread state (the last
 * error, the verbosity of the call in progress, the last one-shot algorithm;
 * include/pcoll.h "Threads").  Under SimGrid SMPI (its mpi.h defines SMPI_H)
 * the simulated ranks are not threads of their own: they take turns on the
 * same OS thread(s) and switch inside MPI calls, and SMPI privatizes the data
 * segments per rank (smpi/privatization, which make sim turns on) but not
 * thread-local storage, which all ranks on a thread would share.  There a
 * plain global is the one that is per rank, and ranks are single-threaded. */
#ifdef SMPI_H
#define PCOLL__THREAD_LOCAL
#else
#define PCOLL__THREAD_LOCAL _Thread_local
#endif

/* A function kept out of its callers: code that takes a thread-local
 * variable's address once and hands it on, so that a shared library does
 * not ask the dynamic linker for it again after every call it makes. */
#if defined(__clang__)
#define PCOLL__NOINLINE __attribute__((noinline))
#elif defined(__GNUC__) && __GNUC__ >= 8
#define PCOLL__NOINLINE __attribute__((noipa)) /* not inlined, arguments not propagated */
#elif defined(__GNUC__)
#define PCOLL__NOINLINE __attribute__((noinline))
#else
#define PCOLL__NOINLINE
#endif

/* Record a message for rc (pcoll_last_error) and return rc.  The library
 * prints nothing by default: the message goes to stderr only when
 * PCOLL_VERBOSE is set to 1/true in the environment, or the call in progress
 * on this thread asked for it with the info key pcoll_verbose. */
int pcoll__error(int rc, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Print a note (counters, what a plan chose) to stderr under the same
 * switch as pcoll__error's messages (PCOLL_VERBOSE, pcoll_verbose); by
 * default nothing.  Nothing is recorded. */
void pcoll__note(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
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
