/*
 * The active list and the progress thread (see progress.h).
 */
#include <pthread.h>

#include "base/status.h"
#include "core/plan.h"
#include "core/progress.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static pcoll_plan_t *head;
static atomic_int nactive;

/* The progress thread: wake is signalled (under list_lock) when the list
 * stops being empty and when the thread must stop.  start_lock is held while
 * a thread is started (MPI calls are made: it is not a leaf; no callback
 * takes it). */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t thread;
static atomic_int thread_on; /* changed under list_lock */
static int stopping;         /* under list_lock */
static int finalize_keyval = MPI_KEYVAL_INVALID;

/* One thread at a time: MPI was initialized below MPI_THREAD_MULTIPLE, so
 * MPI's rule for the level lets one thread at a time call pcoll (and no
 * progress thread runs).  The list then takes no lock and its counts no
 * atomic read-modify-write: a persistent plan's start and wait cost no more
 * than its own work (a `native` plan's is the MPI's call).  Asked once, when
 * the first plan starts (-1 before: MPI_Query_thread); a process that never
 * called MPI_Init (MPI sessions alone) locks. */
static atomic_int serial = -1;

static int one_thread(void)
{
    int s = atomic_load_explicit(&serial, memory_order_relaxed), init = 0;
    int level = MPI_THREAD_MULTIPLE;
    if (s >= 0)
        return s;
    MPI_Initialized(&init);
    if (init)
        MPI_Query_thread(&level);
    s = level < MPI_THREAD_MULTIPLE;
    atomic_store_explicit(&serial, s, memory_order_relaxed);
    return s;
}

int pcoll__progress_serial(void)
{
    return one_thread();
}

static int unlocked(void)
{
    return atomic_load_explicit(&serial, memory_order_relaxed) == 1;
}

static void lock_list(void)
{
    if (!unlocked())
        pthread_mutex_lock(&list_lock);
}

static void unlock_list(void)
{
    if (!unlocked())
        pthread_mutex_unlock(&list_lock);
}

static void count_active(int by)
{
    if (unlocked())
        atomic_store_explicit(&nactive, atomic_load_explicit(&nactive, memory_order_relaxed) + by,
                              memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&nactive, by, memory_order_relaxed);
}

/* Take plan's try-lock: 1 when this thread now holds it, 0 when another
 * thread does (acquire: what the last holder wrote is seen). */
static int try_hold(pcoll_plan_t *plan)
{
    int idle = 0;
    if (unlocked()) {
        if (atomic_load_explicit(&plan->active.busy, memory_order_relaxed))
            return 0;
        atomic_store_explicit(&plan->active.busy, 1, memory_order_relaxed);
        return 1;
    }
    return atomic_compare_exchange_strong_explicit(&plan->active.busy, &idle, 1,
                                                   memory_order_acquire, memory_order_relaxed);
}

/* Release it (release: what this thread wrote is seen by the next holder). */
static void let_go(pcoll_plan_t *plan)
{
    atomic_store_explicit(&plan->active.busy, 0, memory_order_release);
}

/* Take plan off the list (list_lock and its busy held). */
static void unlink_plan(pcoll_plan_t *plan)
{
    pcoll__active_t *a = &plan->active;
    if (a->prev)
        a->prev->active.next = a->next;
    else
        head = a->next;
    if (a->next)
        a->next->active.prev = a->prev;
    a->prev = a->next = NULL;
    a->listed = 0;
    count_active(-1);
}

/* The solo plan set aside (one thread at a time only: no lock; never set
 * otherwise). */
static pcoll_plan_t *aside;

int pcoll__progress_set_aside(pcoll_plan_t *plan)
{
    if (!plan->solo || one_thread() != 1 || head || aside)
        return 0;
    aside = plan;
    return 1;
}

int pcoll__progress_is_aside(const pcoll_plan_t *plan)
{
    return aside == plan;
}

int pcoll__progress_take_aside(pcoll_plan_t *plan)
{
    if (!aside || aside != plan)
        return 0;
    aside = NULL;
    return 1;
}

static void link_plan(pcoll_plan_t *plan);

void pcoll__progress_add(pcoll_plan_t *plan, int over)
{
    pcoll__active_t *a = &plan->active;
    a->over = over;
    a->rc = PCOLL_SUCCESS;
    if (over)
        return;
    if (one_thread() == 1 && aside) {
        pcoll_plan_t *first = aside;
        aside = NULL;
        first->active.over = 0;
        first->active.rc = PCOLL_SUCCESS;
        link_plan(first);
    }
    link_plan(plan);
}

/* Put plan at the head of the list. */
static void link_plan(pcoll_plan_t *plan)
{
    pcoll__active_t *a = &plan->active;
    lock_list();
    a->prev = NULL;
    a->next = head;
    if (head)
        head->active.prev = plan;
    else if (thread_on)
        pthread_cond_signal(&wake);
    head = plan;
    a->listed = 1;
    count_active(1);
    unlock_list();
}

/* One non-blocking step of a run this thread holds. */
static void step(pcoll_plan_t *plan)
{
    int done = 0, rc = plan->ops->test(plan, &done);
    if (rc != PCOLL_SUCCESS || done) {
        plan->active.over = 1;
        plan->active.rc = rc;
    }
}

void pcoll__progress_pass(void)
{
    pcoll_plan_t *p, *next;
    if (atomic_load_explicit(&nactive, memory_order_relaxed) == 0)
        return;
    lock_list();
    for (p = head; p; p = next) {
        if (!try_hold(p)) {
            next = p->active.next;
            continue;
        }
        /* Held, p stays listed while the list is unlocked for its step. */
        unlock_list();
        step(p);
        lock_list();
        next = p->active.next;
        if (p->active.over)
            unlink_plan(p);
        let_go(p);
    }
    unlock_list();
}

int pcoll__progress_active(void)
{
    return atomic_load_explicit(&nactive, memory_order_relaxed);
}

int pcoll__progress_collect(pcoll_plan_t *plan, int *flag)
{
    int rc = PCOLL_SUCCESS;
    *flag = 0;
    if (!try_hold(plan))
        return rc;
    if (plan->active.over) {
        *flag = 1;
        rc = plan->active.rc;
    }
    let_go(plan);
    return rc;
}

int pcoll__progress_claim_alone(pcoll_plan_t *plan)
{
    if (atomic_load_explicit(&nactive, memory_order_relaxed) != 1 || !try_hold(plan))
        return 0;
    if (plan->active.listed && atomic_load_explicit(&nactive, memory_order_relaxed) == 1)
        return 1;
    let_go(plan);
    return 0;
}

void pcoll__progress_release(pcoll_plan_t *plan, int rc)
{
    plan->active.over = 1;
    plan->active.rc = rc;
    lock_list();
    unlink_plan(plan);
    unlock_list();
    let_go(plan);
}

/* Passes while plans are active, asleep while none is, until stopped. */
static void *thread_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&list_lock);
    while (!stopping) {
        if (!head) {
            pthread_cond_wait(&wake, &list_lock);
            continue;
        }
        pthread_mutex_unlock(&list_lock);
        pcoll__progress_pass();
        pcoll__yield();
        pthread_mutex_lock(&list_lock);
    }
    pthread_mutex_unlock(&list_lock);
    return NULL;
}

/* Stop and join the thread (nothing when it does not run). */
static void thread_stop(void)
{
    int on;
    pthread_mutex_lock(&list_lock);
    on = thread_on;
    stopping = 1;
    atomic_store(&thread_on, 0);
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&list_lock);
    if (on)
        pthread_join(thread, NULL);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the thread stops
 * before MPI does. */
static int finalize_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    thread_stop();
    MPI_Comm_free_keyval(&finalize_keyval);
    return MPI_SUCCESS;
}

/* Start the thread, and the attribute that stops it (start_lock held). */
static int launch(void)
{
    int ok;
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &finalize_keyval,
                                NULL) != MPI_SUCCESS ||
         MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL) != MPI_SUCCESS))
        return pcoll__error(PCOLL_ERR_MPI, "pcoll_progress=thread: MPI_COMM_SELF attribute");
    pthread_mutex_lock(&list_lock);
    stopping = 0;
    ok = pthread_create(&thread, NULL, thread_main, NULL) == 0;
    atomic_store(&thread_on, ok);
    pthread_mutex_unlock(&list_lock);
    return ok ? PCOLL_SUCCESS
              : pcoll__error(PCOLL_ERR_INTERNAL, "pcoll_progress=thread: pthread_create failed");
}

int pcoll__progress_thread_start(void)
{
    int level = MPI_THREAD_SINGLE, init = 0, rc = PCOLL_SUCCESS;
    if (atomic_load_explicit(&thread_on, memory_order_acquire))
        return rc;
    /* Under MPI sessions alone (no MPI_Init) no MPI_COMM_SELF can carry the
     * attribute that stops the thread: refused, as a lower level is. */
    MPI_Initialized(&init);
    if (init)
        MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "pcoll_progress=thread: MPI provides thread level %d, not "
                            "MPI_THREAD_MULTIPLE (initialize it with MPI_Init_thread)",
                            level);
    pthread_mutex_lock(&start_lock);
    if (!atomic_load(&thread_on))
        rc = launch();
    pthread_mutex_unlock(&start_lock);
    return rc;
}
