/*
 * A plan's node-level shared segment and node barrier (see node.h).
 *
 * One window per plan and node: the barrier's arrival counter and the
 * node signal's two counters (one cache line) followed by the segment,
 * allocated by the node's local rank 0 with MPI_Win_allocate_shared on the
 * topology's node communicator and mapped by the others with
 * MPI_Win_shared_query.  It is locked once (MPI_Win_lock_all)
 * so that MPI_Win_sync can order the plain loads and stores of the segment
 * around the barrier (the unified memory model, MPI-3.1 section 11.4).  A
 * one-rank node uses private memory and needs no barrier.  MPI_Win_free is
 * collective over the node, so plans holding windows must be freed in the
 * same order on every rank (include/pcoll.h says so).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "core/node.h"
#include "base/pmpi.h"
#include "base/status.h"

#define CTL_BYTES 64 /* one cache line: the counter, then the signal's two */

#ifdef SMPI_H
#include <simgrid/host.h>

/* Simulated time a waiting rank lets pass between two looks at the shared
 * counter: about what a cache line takes from one core to another. */
#define SIM_POLL_SECONDS 1e-7

/* SimGrid SMPI runs the simulated ranks one at a time, in one address space,
 * and switches only inside the simulator: a rank waiting at the barrier lets
 * SIM_POLL_SECONDS of simulated time pass, as a computation of that many
 * seconds of its core (smpi_execute would drop one shorter than
 * smpi/cpu-threshold, 1 us); MPI_Win_sync is not needed (nor implemented).
 * With smpi/simulate-computation the real time between two MPI calls is
 * charged as computation; the wait is not computation, and while this rank
 * is switched out the other ranks' real time would be charged to it, so the
 * measurement is stopped around the wait. */
static void spin(void)
{
    smpi_bench_end();
    smpi_execute_flops(SIM_POLL_SECONDS * sg_host_get_speed(sg_host_self()));
    smpi_bench_begin();
}

static void sync_segment(const pcoll__node_shm_t *s)
{
    (void)s;
}
#else
static void spin(void)
{
}

static void sync_segment(const pcoll__node_shm_t *s)
{
    if (s->win != MPI_WIN_NULL)
        MPI_Win_sync(s->win);
}
#endif

void pcoll__node_shm_drop(pcoll__node_shm_t *s)
{
    int fini = 0;
    MPI_Finalized(&fini);
    if (fini)
        return;
    if (s->req != MPI_REQUEST_NULL)
        PCOLL__MPI(Wait)(&s->req, MPI_STATUS_IGNORE);
    if (s->win != MPI_WIN_NULL) {
        pcoll__mem_handed_back();
        MPI_Win_unlock_all(s->win);
        MPI_Win_free(&s->win);
        if (s->ctl)
            pcoll__mem_note(-(long long)(s->bytes + CTL_BYTES));
    }
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->comm);
    s->ctl = NULL;
    s->seg = NULL;
}

static void shm_free(void *arg)
{
    pcoll__node_shm_drop(arg);
    pcoll__free(arg);
}

/* The barrier by MPI_Ibarrier: where C11 atomics are not lock-free (so not
 * usable between processes), or when PCOLL_HIER_BARRIER=mpi asks for it
 * (tests use it). */
static int wants_mpi_barrier(void)
{
    const char *env = getenv("PCOLL_HIER_BARRIER");
    return ATOMIC_LLONG_LOCK_FREE != 2 || (env && strcmp(env, "mpi") == 0);
}

/* The window on local rank 0, mapped everywhere, locked, zeroed there. */
static int map_window(pcoll__node_shm_t *s, MPI_Comm comm)
{
    const char *env = getenv("PCOLL_HIER_SHM");
    size_t bytes = s->bytes + CTL_BYTES;
    MPI_Aint size;
    int local, unit;
    char *base;
    MPI_Comm_rank(comm, &local);
    if ((env && strcmp(env, "0") == 0) ||
        MPI_Win_allocate_shared(local == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, comm, &base,
                                &s->win) != MPI_SUCCESS) {
        s->win = MPI_WIN_NULL;
        return 0;
    }
    MPI_Win_shared_query(s->win, 0, &size, &unit, &base);
    pcoll__mem_handed_over();
    MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win);
    if (local == 0) {
        memset(base, 0, bytes);
        pcoll__mem_note((long long)bytes);
        s->ctl = base; /* marks the rank that counts the bytes */
    }
    sync_segment(s);
    s->seg = base + CTL_BYTES;
    return 1;
}

int pcoll__node_shm_create(pcoll_plan_t *plan, const pcoll__node_t *t, size_t bytes,
                           pcoll__node_shm_t **shm, int *ok)
{
    pcoll__node_shm_t *s = pcoll__calloc(1, sizeof *s);
    int rc;
    if (!s)
        return pcoll__error(PCOLL_ERR_NOMEM, "node: segment state");
    s->comm = MPI_COMM_NULL;
    s->win = MPI_WIN_NULL;
    s->req = MPI_REQUEST_NULL;
    s->bytes = bytes;
    s->nlocal = pcoll__node_size(t, t->node);
    if ((rc = pcoll__plan_on_free(plan, shm_free, s)) != PCOLL_SUCCESS)
        return rc;
    *shm = s;
    *ok = 1;
    if (s->nlocal == 1) {
        s->seg = pcoll__plan_alloc(plan, bytes);
        return s->seg ? PCOLL_SUCCESS
                      : pcoll__error(PCOLL_ERR_NOMEM, "node: %zu bytes of segment", bytes);
    }
    s->mpi_barrier = wants_mpi_barrier();
    if (s->mpi_barrier && PCOLL__MPI(Comm_dup)(t->comm, &s->comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "node: MPI_Comm_dup failed");
    *ok = s->shared = map_window(s, t->comm);
    return PCOLL_SUCCESS;
}

int pcoll__node_shm_ready(MPI_Comm comm, pcoll__node_shm_t *s, int *all_ok)
{
    *all_ok = s->nlocal == 1 || s->shared;
    if (MPI_Allreduce(MPI_IN_PLACE, all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "node: MPI_Allreduce failed");
    sync_segment(s);
    return PCOLL_SUCCESS;
}

/* ---- the barrier ---------------------------------------------------------- */

static atomic_llong *counter(const pcoll__node_shm_t *s)
{
    return (atomic_llong *)(void *)(s->seg - CTL_BYTES);
}


static void arrive(void *arg)
{
    pcoll__node_shm_t *s = arg;
    s->arrivals++;
    sync_segment(s);
    if (!s->mpi_barrier) {
        atomic_fetch_add_explicit(counter(s), 1, memory_order_acq_rel);
    } else if (MPI_Ibarrier(s->comm, &s->req) != MPI_SUCCESS) {
        s->req = MPI_REQUEST_NULL;
        pcoll__error(PCOLL_ERR_MPI, "node barrier: MPI_Ibarrier failed");
    }
}

/* Have all ranks of the node arrived as often as this one? */
static int reached(void *arg)
{
    pcoll__node_shm_t *s = arg;
    int flag = 1;
    if (s->mpi_barrier) {
        if (s->req != MPI_REQUEST_NULL &&
            PCOLL__MPI(Test)(&s->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            flag = 1; /* reported nowhere better; do not hang */
    } else {
        flag = atomic_load_explicit(counter(s), memory_order_acquire) >= s->arrivals * s->nlocal;
    }
    if (flag)
        sync_segment(s);
    else
        spin();
    return flag;
}

static int at_once(void *arg)
{
    (void)arg;
    return 1;
}

static void stay(void *arg)
{
    (void)arg;
}

pcoll__poll_t pcoll__node_barrier(pcoll__node_shm_t *shm)
{
    return (pcoll__poll_t){arrive, reached, shm};
}

pcoll__poll_t pcoll__node_barrier_arrive(pcoll__node_shm_t *shm)
{
    return (pcoll__poll_t){arrive, at_once, shm};
}

pcoll__poll_t pcoll__node_barrier_wait(pcoll__node_shm_t *shm)
{
    return (pcoll__poll_t){stay, reached, shm};
}

int pcoll__node_barrier_step(pcoll__node_shm_t *shm, int *waiting, int arrive_only)
{
    if (shm->nlocal == 1)
        return 1;
    if (!*waiting) {
        arrive(shm);
        *waiting = 1;
    }
    if (!arrive_only && !reached(shm))
        return 0;
    *waiting = 0;
    return 1;
}

/* ---- the signal ------------------------------------------------------------- */

/* After the barrier's counter, in its cache line; this rank's own on a node
 * of one; none with the MPI's barrier. */
static atomic_llong *signal_counter(pcoll__node_shm_t *s, long long run)
{
    if (s->nlocal == 1)
        return &s->own_signal[run & 1];
    return s->mpi_barrier ? NULL : counter(s) + 1 + (run & 1);
}

/* Relaxed: the arrival at the barrier after it releases it, and passing the
 * barrier acquires it. */
void pcoll__node_raise(pcoll__node_shm_t *s, long long run)
{
    atomic_llong *c = signal_counter(s, run);
    if (c)
        atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

int pcoll__node_raised(pcoll__node_shm_t *s, long long run, long long seen[2])
{
    atomic_llong *c = signal_counter(s, run);
    long long now = c ? atomic_load_explicit(c, memory_order_relaxed) : 0;
    int raised = now != seen[run & 1];
    seen[run & 1] = now;
    return raised;
}

/* ---- flags ------------------------------------------------------------------ */

static void begin_run(void *arg)
{
    ((pcoll__node_shm_t *)arg)->runs++;
}

static atomic_llong *flag_counter(const pcoll__node_flag_t *f)
{
    return (atomic_llong *)(void *)(f->shm->seg + f->off);
}

static long long flag_value(const pcoll__node_flag_t *f)
{
    return (f->shm->runs - 1) * f->per_run + f->at;
}

static void flag_store(void *arg)
{
    pcoll__node_flag_t *f = arg;
    sync_segment(f->shm);
    atomic_store_explicit(flag_counter(f), flag_value(f), memory_order_release);
}

static int flag_reached(void *arg)
{
    pcoll__node_flag_t *f = arg;
    if (atomic_load_explicit(flag_counter(f), memory_order_acquire) < flag_value(f)) {
        spin();
        return 0;
    }
    sync_segment(f->shm);
    return 1;
}

pcoll__poll_t pcoll__node_flag(pcoll__node_flag_t *flag, pcoll__node_flag_op_t op)
{
    switch (op) {
    case PCOLL__FLAG_RUN_BEGIN:
        return (pcoll__poll_t){begin_run, at_once, flag->shm};
    case PCOLL__FLAG_SET:
        return (pcoll__poll_t){flag_store, at_once, flag};
    default:
        return (pcoll__poll_t){stay, flag_reached, flag};
    }
}
