/*
 * The drop-in's switch (PCOLL_DROPIN), its lock, errors raised on a
 * communicator's handler, and argument conversions.
 *
 * pcoll's own MPI calls never reach the wrappers: the library calls the MPI
 * functions the drop-in defines by their PMPI_ names (src/base/pmpi.h).
 */
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "pmpi/dropin.h"

enum { UNKNOWN, ON, OFF };

static atomic_int state = UNKNOWN;
static pthread_once_t switch_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

int pcoll__dropin_env_off(const char *name)
{
    const char *v = getenv(name);
    return v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no"));
}

/* Read PCOLL_DROPIN once. */
static void read_switch(void)
{
    atomic_store_explicit(&state, pcoll__dropin_env_off("PCOLL_DROPIN") ? OFF : ON,
                          memory_order_release);
}

int pcoll__dropin_enabled(void)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s == UNKNOWN) {
        pthread_once(&switch_once, read_switch);
        s = atomic_load_explicit(&state, memory_order_acquire);
    }
    return s == ON;
}

static void make_lock(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

void pcoll__dropin_lock(void)
{
    pthread_once(&lock_once, make_lock);
    pthread_mutex_lock(&lock);
}

void pcoll__dropin_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

int pcoll__dropin_error(MPI_Comm comm, int code, const char *fmt, ...)
{
    const char *v = getenv("PCOLL_VERBOSE");
    va_list ap;
    if (v && (!strcmp(v, "1") || !strcmp(v, "true"))) {
        va_start(ap, fmt);
        fputs("pcoll-dropin: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

int pcoll__dropin_raise(MPI_Comm comm, int rc)
{
    return pcoll__dropin_error(comm, rc == PCOLL_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER, "%s",
                               pcoll_last_error());
}
