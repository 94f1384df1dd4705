/*
 * The ways a row is run (methods.h).  Every run returns a pcoll status; MPI
 * errors become PCOLL_ERR_MPI.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static int mpi_status(int mpi_rc) { return mpi_rc == MPI_SUCCESS ? 0 : PCOLL_ERR_MPI; }

static int nothing(bench_target_t *t)
{
    (void)t;
    return PCOLL_SUCCESS;
}

static void release_nothing(bench_target_t *t) { (void)t; }

MPI_Info bench_make_info(const char *algorithm, int no_comm)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", algorithm);
    if (no_comm)
        MPI_Info_set(info, "pcoll_no_comm", "1");
    return info;
}

/* The native call, MPI's own choice of algorithm. */
static int native_run(bench_target_t *t) { return mpi_status(t->coll->run_native(t->c)); }

const bench_method_t bench_method_native = {
    .kind = BENCH_ROW_NATIVE,
    .prepare = nothing,
    .check_run = native_run,
    .timed_run = native_run,
    .release = release_nothing};

/* MPI-4 persistent collective: *_init once, MPI_Start + MPI_Wait per run. */
static int native_init_prepare(bench_target_t *t)
{
    t->req = MPI_REQUEST_NULL;
    if (!t->coll->native_persistent)
        return PCOLL_ERR_UNSUPPORTED;
    return mpi_status(t->coll->native_persistent(t->c, &t->req));
}

static int native_init_run(bench_target_t *t)
{
    int rc = MPI_Start(&t->req);
    return mpi_status(rc == MPI_SUCCESS ? MPI_Wait(&t->req, MPI_STATUS_IGNORE) : rc);
}

static void native_init_release(bench_target_t *t)
{
    if (t->req != MPI_REQUEST_NULL)
        MPI_Request_free(&t->req);
}

const bench_method_t bench_method_native_init = {
    .kind = BENCH_ROW_NATIVE_PERSISTENT,
    .init_timed = 1,
    .prepare = native_init_prepare,
    .check_run = native_init_run,
    .timed_run = native_init_run,
    .release = native_init_release};

/* pcoll's one-shot call; the algorithm comes from the environment, set
 * only when it names another (a changed environment makes the next call
 * read the options again, which a program that sets it once never pays:
 * a run with one one-shot row keeps it as it is). */
static int oneshot_prepare(bench_target_t *t)
{
    const char *now = getenv(t->coll->env_algorithm);
    if (now && strcmp(now, t->algorithm) == 0)
        return PCOLL_SUCCESS;
    return setenv(t->coll->env_algorithm, t->algorithm, 1) == 0 ? PCOLL_SUCCESS
                                                                : PCOLL_ERR_NOMEM;
}

static int oneshot_run(bench_target_t *t) { return t->coll->run_oneshot(t->c); }

static void oneshot_release(bench_target_t *t) { unsetenv(t->coll->env_algorithm); }

static void oneshot_after(bench_target_t *t) { t->ran = pcoll__last_run_algorithm; }

const bench_method_t bench_method_oneshot = {
    .kind = BENCH_ROW_PCOLL,
    .prepare = oneshot_prepare,
    .check_run = oneshot_run,
    .timed_run = oneshot_run,
    .release = oneshot_release,
    .select = oneshot_prepare,
    .after = oneshot_after};

/* A pcoll plan made once, started and waited for per run. */
static int planned_prepare(bench_target_t *t)
{
    MPI_Info info = bench_make_info(t->algorithm, 0);
    int rc = t->coll->plan_init(t->c, info, &t->plan);
    MPI_Info_free(&info);
    return rc;
}

static int planned_run(bench_target_t *t)
{
    int rc = pcoll_start(t->plan);
    return rc == PCOLL_SUCCESS ? pcoll_wait(t->plan) : rc;
}

static void planned_release(bench_target_t *t) { pcoll_plan_free(&t->plan); }

const bench_method_t bench_method_planned = {
    .kind = BENCH_ROW_PCOLL,
    .init_timed = 1,
    .prepare = planned_prepare,
    .check_run = planned_run,
    .timed_run = planned_run,
    .release = planned_release};

/* Plan creation and destruction with pcoll_no_comm=1; the output is checked
 * with a communicating plan of the same algorithm. */
static int nocomm_prepare(bench_target_t *t)
{
    t->info = bench_make_info(t->algorithm, 1);
    return planned_prepare(t);
}

static int nocomm_run(bench_target_t *t)
{
    pcoll_plan_t *plan = NULL;
    int rc = t->coll->plan_init(t->c, t->info, &plan);
    int rc_free = pcoll_plan_free(&plan);
    return rc != PCOLL_SUCCESS ? rc : rc_free;
}

static void nocomm_release(bench_target_t *t)
{
    planned_release(t);
    if (t->info != MPI_INFO_NULL)
        MPI_Info_free(&t->info);
}

const bench_method_t bench_method_nocomm = {
    .kind = BENCH_ROW_PCOLL,
    .prepare = nocomm_prepare,
    .check_run = planned_run,
    .timed_run = nocomm_run,
    .release = nocomm_release};
