/*
 * Correctness before timing: one run of a row, compared with the native
 * collective's result, and the verdict agreed by every rank.
 */
#include <stdio.h>

#include "driver.h"

/* pcoll_last_error() of this rank when its own status in the last
 * bench_agree was an error; "" otherwise. */
static char own_reason[512];

const char *bench_agreed_reason(void) { return own_reason; }

int bench_agree(int status, MPI_Comm comm)
{
    /* One reduction: the minimum of status and of -status (= -maximum). */
    int v[2] = {status, -status};
    snprintf(own_reason, sizeof own_reason, "%s", status < 0 ? pcoll_last_error() : "");
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, comm);
    if (v[0] < 0)
        return v[0];
    return -v[1] > 0 ? 1 : 0;
}

int bench_check(const bench_method_t *m, bench_target_t *t, MPI_Comm comm)
{
    int rc;
    /* Folded: no run to check (the simulation's time is better spent on
     * the timed ones); the same answer on every rank. */
    if (t->coll->unchecked && t->coll->unchecked(t->c, m->kind)) {
        t->unchecked = 1;
        return PCOLL_SUCCESS;
    }
    t->coll->poison(t->c);
    rc = m->check_run(t);
    if (rc == PCOLL_SUCCESS) {
        int verdict = t->coll->check(t->c);
        t->unchecked = verdict == BENCH_UNCHECKED;
        rc = verdict ? 0 : 1;
    }
    return bench_agree(rc, comm);
}

const char *bench_row_status_name(int status, const bench_target_t *t)
{
    return status == 0 && t->unchecked ? "folded" : bench_status_name(status);
}

const char *bench_status_name(int status)
{
    if (status == 0)
        return "ok";
    return status > 0 ? "WRONG" : pcoll_err_name(status);
}
