/*
 * The outcome of one pcoll call in a wrapper: whether pcoll serves the
 * communicator, and what to do with pcoll's answer (fall through to MPI,
 * raise an error, or log the call served and track its plan).
 */
#include "core/plan.h"
#include "pmpi/dropin.h"

int pcoll__dropin_serves(MPI_Comm comm, int coll, int form)
{
    int inter = 1;
    if (!pcoll__dropin_enabled())
        return 0;
    /* MPI_COMM_NULL or an invalid handle: MPI reports the error. */
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
        pcoll__dropin_log_fell(coll, form, PCOLL__DROPIN_FELL_INTER);
        return 0;
    }
    return 1;
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

int pcoll__dropin_finish(int rc, pcoll_plan_t *plan, MPI_Comm comm, int coll, int form,
                         MPI_Request *request, int *err)
{
    int reason = refusal(rc);
    *err = MPI_SUCCESS;
    if (reason >= 0) {
        pcoll__dropin_log_fell(coll, form, reason);
        return 1;
    }
    if (rc != PCOLL_SUCCESS) {
        *err = pcoll__dropin_raise(comm, rc);
        return 0;
    }
    pcoll__dropin_log_served(coll, form, plan ? pcoll_plan_algorithm(plan)
                                              : pcoll__last_run_algorithm);
    if (form == PCOLL__DROPIN_NONBLOCKING)
        *err = pcoll__dropin_track_nonblocking(plan, comm, request);
    else if (form == PCOLL__DROPIN_PERSISTENT)
        *err = pcoll__dropin_track_persistent(plan, comm, request);
    return 0;
}
