/*
 * The outcome of one pcoll call in a wrapper: whether pcoll serves the
 * communicator, and what to do with pcoll's answer (fall through to MPI,
 * raise an error, or log the call served and track its plan).
 */
#include <stdatomic.h>
#include <stdio.h>

#include "base/options.h"
#include "core/plan.h"
#include "pmpi/dropin.h"
#include "select/select.h"

atomic_int pcoll__dropin_plain;

int pcoll__dropin_serves_slow(MPI_Comm comm)
{
    /* MPI_COMM_NULL: MPI reports the error.  Any other handle goes to pcoll,
     * which checks it where it has no context for it (an invalid one is
     * PCOLL_ERR_ARG: the MPI's call then reports it); every collective the
     * drop-in wraps serves intercommunicators too. */
    int on = pcoll__dropin_enabled();
    if (on && !pcoll__dropin_logging())
        atomic_store_explicit(&pcoll__dropin_plain, 1, memory_order_relaxed);
    return on && comm != MPI_COMM_NULL;
}

/* Refusals that depend only on arguments every rank shares (or that every
 * rank learns through pcoll's agreement): the MPI call is safe then. */
static int refusal(int rc)
{
    switch (rc) {
    case PCOLL_ERR_ARG: return PCOLL__DROPIN_FELL_ARG;
    case PCOLL_ERR_UNSUPPORTED: return PCOLL__DROPIN_FELL_UNSUPPORTED;
    case PCOLL_ERR_MISMATCH: return PCOLL__DROPIN_FELL_MISMATCH;
    case PCOLL_ERR_STATE: return PCOLL__DROPIN_FELL_STATE;
    default: return -1;
    }
}

static const pcoll__algo_table_t *table_of(int coll)
{
    switch (coll) {
    case PCOLL__DROPIN_ALLTOALL: return &pcoll__alltoall_table;
    case PCOLL__DROPIN_ALLTOALLV: return &pcoll__alltoallv_table;
    case PCOLL__DROPIN_ALLTOALLW: return &pcoll__alltoallw_table;
    case PCOLL__DROPIN_NEIGHBOR_ALLTOALL:
    case PCOLL__DROPIN_NEIGHBOR_ALLTOALLV:
    case PCOLL__DROPIN_NEIGHBOR_ALLTOALLW: return &pcoll__neighbor_table;
    default: return &pcoll__reduce_scatter_table;
    }
}

/* A refusal with PCOLL_ERR_ARG that the environment explains (an unknown
 * algorithm or a malformed value in a PCOLL_ variable, a tuning file that
 * cannot be read or is refused) sends every such call to the MPI library
 * for the whole run: a setting of the job, not of one call.  Said once per
 * job on stderr, by rank 0 of MPI_COMM_WORLD (without MPI_Init: of the
 * first communicator that meets it), although the library is otherwise
 * quiet: a drop-in that silently serves nothing would look like one that
 * serves everything. */
static void say_setting(MPI_Comm comm, int coll)
{
    static atomic_int said;
    pcoll__opts_t opts;
    int init = 0, fini = 0, rank = -1;
    if (atomic_load(&said) ||
        pcoll__opts_read(MPI_INFO_NULL, table_of(coll), &opts) != PCOLL_ERR_ARG ||
        atomic_exchange(&said, 1))
        return;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fini);
    PMPI_Comm_rank(init && !fini ? MPI_COMM_WORLD : comm, &rank);
    if (rank == 0)
        fprintf(stderr, "pcoll-dropin: %s; these calls go to the MPI library\n",
                pcoll_last_error());
}

int pcoll__dropin_finish_slow(int rc, pcoll_plan_t *plan, MPI_Comm comm, int coll, int form,
                              MPI_Request *request, int *err)
{
    int reason;
    *err = MPI_SUCCESS;
    if (rc == PCOLL_SUCCESS && form == PCOLL__DROPIN_BLOCKING) {
        pcoll__dropin_log_served(coll, form, plan);
        return 0;
    }
    if (rc == PCOLL__LOCAL_NATIVE) {
        pcoll__dropin_log_served(coll, form, NULL);
        return 1;
    }
    if ((reason = refusal(rc)) >= 0) {
        if (reason == PCOLL__DROPIN_FELL_ARG)
            say_setting(comm, coll);
        pcoll__dropin_log_fell(coll, form, reason);
        return 1;
    }
    if (rc != PCOLL_SUCCESS) {
        *err = pcoll__dropin_raise(comm, rc);
        return 0;
    }
    pcoll__dropin_log_served(coll, form, plan);
    if (form == PCOLL__DROPIN_NONBLOCKING)
        *err = pcoll__dropin_track_nonblocking(plan, comm, request);
    else if (form == PCOLL__DROPIN_PERSISTENT)
        *err = pcoll__dropin_track_persistent(plan, comm, request);
    return 0;
}
