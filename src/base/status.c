/*
 * Status codes and error messages.
 *
 * The names and messages come from PCOLL_STATUS_MAP in pcoll.h, the one table
 * of codes.  pcoll__error records a message explaining the last failure so
 * that every negative return can be explained with pcoll_last_error().  A
 * library is quiet: the message is printed where it is raised only when
 * asked (PCOLL_VERBOSE=1, or the info key pcoll_verbose of the call).
 *
 * Both the message and the verbosity belong to the calling thread
 * (PCOLL__THREAD_LOCAL, status.h): threads working on different
 * communicators each see their own last error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

/* The message of this thread's last error. */
static PCOLL__THREAD_LOCAL char last_error[512];
/* The info key pcoll_verbose of the call in progress on this thread. */
static PCOLL__THREAD_LOCAL int call_verbose;

const char *pcoll_strerror(int rc)
{
    switch (rc) {
#define PCOLL_STATUS_MSG_(name, value, msg) case value: return msg;
        PCOLL_STATUS_MAP(PCOLL_STATUS_MSG_)
#undef PCOLL_STATUS_MSG_
    }
    return "unknown status";
}

const char *pcoll_err_name(int rc)
{
    switch (rc) {
#define PCOLL_STATUS_NAME_(name, value, msg) case value: return #name;
        PCOLL_STATUS_MAP(PCOLL_STATUS_NAME_)
#undef PCOLL_STATUS_NAME_
    }
    return "UNKNOWN";
}

const char *pcoll_last_error(void)
{
    return last_error;
}

/* Rank in MPI_COMM_WORLD for message prefixes, or -1 outside MPI. */
static int world_rank(void)
{
    int init = 0, fini = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (init && !fini)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

void pcoll__set_verbose(int on)
{
    call_verbose = on;
}

/* PCOLL_VERBOSE: "1" or "true" turns printing on. */
static int env_verbose(void)
{
    const char *v = getenv("PCOLL_VERBOSE");
    return v && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0);
}

int pcoll__error(int rc, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(last_error, sizeof last_error, "%s: ", pcoll_err_name(rc));
    va_start(ap, fmt);
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    if (call_verbose || env_verbose())
        fprintf(stderr, "pcoll (rank %d): %s\n", world_rank(), last_error);
    return rc;
}

void pcoll__note(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (!call_verbose && !env_verbose())
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "pcoll (rank %d): %s\n", world_rank(), msg);
}
