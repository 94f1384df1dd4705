/* Idle ranks yield the core under an MPICH that polls UCX without pause
 * (MPICH before 5 with the ch4:ucx device, such as Debian 12's 4.0.2).
 *
 * A rank waiting in such an MPICH calls ucp_worker_progress in a tight loop
 * and has no setting that makes it back off.  With more ranks than cores the
 * rank that could move a message then waits for the spinning ranks' time
 * slices to run out: a test at np 7 on 2 cores takes minutes instead of
 * seconds.  Preloaded into the tests (cmake/PcollTesting.cmake,
 * PCOLL_TEST_YIELD), this library stands in front of ucp_worker_progress:
 * after IDLE_POLLS calls in a row that found nothing to do, the calling
 * thread yields its core (sched_yield), as Open MPI's mpi_yield_when_idle
 * and later MPICH's MPIR_CVAR_CH4_PROGRESS_THROTTLE make idle ranks do.
 * Every call returns what UCX's returned: results do not change, only who
 * runs when.  In a process that never loads UCX it is never called.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Calls in a row that found nothing to do before the thread yields. */
enum { IDLE_POLLS = 16 };

struct ucp_worker;
typedef unsigned (*progress_fn)(struct ucp_worker *worker);

/* UCX's function, found at the first call (the MPI may be loaded late, by
 * dlopen); finding it twice finds the same, so a race only repeats work. */
static _Atomic(progress_fn) ucx_progress;
static _Thread_local unsigned idle_polls;

/* The next definition after this library, or, where the MPI was loaded
 * outside the global scope (dlopen without RTLD_GLOBAL), libucp's own. */
static progress_fn find_ucx_progress(void)
{
    void *sym = dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (!sym) {
        void *ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
        sym = ucp ? dlsym(ucp, "ucp_worker_progress") : NULL;
    }
    if (!sym) {
        fprintf(stderr, "pcoll_test_yield: ucp_worker_progress called, but UCX's is not found\n");
        abort();
    }
    return (progress_fn)sym;
}

unsigned ucp_worker_progress(struct ucp_worker *worker)
{
    progress_fn progress = atomic_load_explicit(&ucx_progress, memory_order_relaxed);
    if (!progress) {
        progress = find_ucx_progress();
        atomic_store_explicit(&ucx_progress, progress, memory_order_relaxed);
    }
    unsigned events = progress(worker);
    if (events != 0) {
        idle_polls = 0;
    } else if (++idle_polls == IDLE_POLLS) {
        idle_polls = 0;
        sched_yield();
    }
    return events;
}
