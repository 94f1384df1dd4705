/*
 * Plans that call the MPI's own collective: the algorithm `native` of every
 * table, chosen by auto where no pcoll algorithm is expected to be faster
 * (docs/algorithms.md, "native").  A collective gives its three calls; the
 * plan runs the blocking one for the one-shot path (nothing but the MPI
 * call), MPI-4's persistent request where the MPI has one and the plan was
 * made by every rank together (persistent init), else the non-blocking
 * call on every start.  All of them on the library's duplicate of the
 * communicator, by their profiling names (base/pmpi.h).
 *
 * Deferred plans: where the cost model says the MPI's started collectives
 * cost more than its blocking ones (pcoll__cost_t.defer: Open MPI 5), a
 * plan made together does nothing at pcoll_start and makes the blocking
 * call in the first pcoll_wait or pcoll_test after it (which then blocks
 * until every rank has made it too; computation between start and wait
 * does not overlap the exchange).  Every rank defers alike, since a
 * blocking collective does not match a started one.  A collective whose
 * MPI_*_init the MPI serves faster than its blocking call (keep_init) is
 * never deferred where the MPI has it.
 */
#ifndef PCOLL_CORE_NATIVE_H
#define PCOLL_CORE_NATIVE_H

#include <stddef.h>

#include "core/plan.h"

/* The MPI has persistent collectives (MPI_Alltoall_init ...): MPI-4, and
 * Open MPI 5, which says MPI 3.1. */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define PCOLL__NATIVE_HAVE_INIT 1
#define PCOLL__NATIVE_INIT(fn) fn
#else
#define PCOLL__NATIVE_INIT(fn) NULL
#endif

typedef struct pcoll__native_calls {
    int (*blocking)(const void *args, MPI_Comm comm);
    int (*nonblocking)(const void *args, MPI_Comm comm, MPI_Request *req);
    /* MPI-4's *_init (NULL: the MPI has none). */
    int (*init)(const void *args, MPI_Comm comm, MPI_Request *req);
    /* Never deferred where init exists: the MPI's persistent request beats
     * its blocking call even where the model defers (Open MPI 5's
     * MPI_Alltoallv_init at np 2: 0.21-0.45 us against MPI_Alltoallv's
     * 0.25-0.55 up to 1 KiB). */
    int keep_init;
} pcoll__native_calls_t;

/* Whether a plan with calls, made together (persistent init) or not, on a
 * communicator of size ranks (remote: an intercommunicator's remote group,
 * 0 for an intracommunicator) is deferred: its run is then the blocking
 * call, never a started one.  The same answer on every rank. */
int pcoll__native_defers(const pcoll__native_calls_t *calls, int together, int size, int remote);

/* Make plan call the MPI's collective with a copy of args (bytes of them,
 * owned by the plan; what they point to must live as long as the plan). */
int pcoll__native_plan(pcoll_plan_t *plan, const pcoll__native_calls_t *calls,
                       const void *args, size_t bytes);

#endif
