/*
 * test_threads.c -- the thread contract of include/pcoll.h ("Threads").
 *
 * MPI is initialized with MPI_THREAD_MULTIPLE (an MPI that provides less
 * skips the test: "skipped: MPI_THREAD_MULTIPLE not provided", exit 0).  Each
 * rank duplicates MPI_COMM_WORLD once per thread before the threads start,
 * then NTHREADS threads run at the same time, each on its own communicator
 * only (the first pcoll call of every thread creates its context, so context
 * creation and the keyvals race too):
 *   - persistent alltoall, a Bruck variant per thread and linear (pcoll_wait
 *     and a pcoll_test loop);
 *   - one-shot alltoall (a miss, then cache hits);
 *   - one-shot alltoallv with MPI_INT, and with a derived type made and freed
 *     on every iteration (its delete callback marks cache entries stale in
 *     every context while the other threads use theirs);
 *   - one-shot reduce_scatter_block and persistent reduce_scatter;
 *   - the in-place alltoallv (pcoll_alltoallv_inplace_init);
 *   - the neighbourhood alltoallv on a ring: a persistent `node` plan and
 *     one-shot calls with equal arguments (their repeats);
 * every result checked against closed-form values.  Then each thread
 * provokes an error of its own (a negative count that names the thread) and,
 * once every thread has done so, checks that pcoll_last_error() still names
 * its own error and that the algorithm of its last one-shot run
 * (pcoll__last_run_algorithm) is still its own: both are per thread.  Each
 * thread frees its communicator (so contexts are unlinked concurrently), and
 * after the join pcoll_mem_current() must be back at its value from before
 * the threads: the counters are atomic.
 *
 * Small on purpose: it runs at np 16 on two oversubscribed cores, with
 * MPICH polling.  The checks go through this file's own per-thread
 * counters, not the harness (whose state is not per thread).
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/plan.h" /* pcoll__last_run_algorithm */
#include "pcoll.h"

#define NTHREADS 4
#define ITERS 2
#define COUNT 2 /* items per block of the alltoalls */

typedef struct worker {
    int id;
    MPI_Comm comm;
    int me, p;
    int failures;
} worker_t;

static const char *const bruck[NTHREADS] = {"bruck_basic", "bruck_modified", "bruck_zerocopy",
                                            "bruck_radix"};
static pthread_barrier_t all_erred;

static void fail(worker_t *w, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (w->failures++ < 8)
        fprintf(stderr, "rank %d thread %d: %s\n", w->me, w->id, msg);
}

/* A call whose failure would leave the peers blocked: abort the job. */
static void require(worker_t *w, int rc, const char *what)
{
    if (rc != PCOLL_SUCCESS) {
        fprintf(stderr, "rank %d thread %d: %s failed: %s (%s)\n", w->me, w->id, what,
                pcoll_err_name(rc), pcoll_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Item k of the block that src sends to dst, in run it of thread t. */
static int val(int t, int it, int src, int dst, int k)
{
    return (((t * 8 + it) * 64 + src) * 64 + dst) * 8 + k;
}

/* Items rank src sends to rank dst in the alltoallv cases. */
static int vcount(const worker_t *w, int src, int dst)
{
    return (src + 2 * dst + w->id) % 3;
}

static void run(worker_t *w, pcoll_plan_t *plan, int by_test)
{
    int flag = 0;
    require(w, pcoll_start(plan), "pcoll_start");
    if (!by_test) {
        require(w, pcoll_wait(plan), "pcoll_wait");
        return;
    }
    while (!flag) {
        require(w, pcoll_test(plan, &flag), "pcoll_test");
        if (!flag)
            sched_yield();
    }
}

static void fill_a2a(const worker_t *w, int *send, int *recv, int it)
{
    int j, k;
    for (j = 0; j < w->p; j++)
        for (k = 0; k < COUNT; k++) {
            send[j * COUNT + k] = val(w->id, it, w->me, j, k);
            recv[j * COUNT + k] = -1;
        }
}

static void check_a2a(worker_t *w, const int *recv, int it, const char *what)
{
    int j, k;
    for (j = 0; j < w->p; j++)
        for (k = 0; k < COUNT; k++)
            if (recv[j * COUNT + k] != val(w->id, it, j, w->me, k)) {
                fail(w, "%s run %d: from %d item %d expected %d got %d", what, it, j, k,
                     val(w->id, it, j, w->me, k), recv[j * COUNT + k]);
                return;
            }
}

/* Persistent alltoall with the given algorithm, then the one-shot form. */
static void alltoalls(worker_t *w, int *send, int *recv)
{
    const char *algos[2] = {bruck[w->id], "linear"};
    int a, it;
    for (a = 0; a < 2; a++) {
        pcoll_plan_t *plan = NULL;
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "pcoll_algorithm", algos[a]);
        require(w, pcoll_alltoall_init(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, w->comm, info,
                                       &plan),
                algos[a]);
        MPI_Info_free(&info);
        if (strcmp(pcoll_plan_algorithm(plan), algos[a]) != 0)
            fail(w, "alltoall plan runs %s, not %s", pcoll_plan_algorithm(plan), algos[a]);
        for (it = 0; it < ITERS; it++) {
            fill_a2a(w, send, recv, it);
            run(w, plan, it % 2);
            check_a2a(w, recv, it, algos[a]);
        }
        if (pcoll_plan_free(&plan) != PCOLL_SUCCESS)
            fail(w, "pcoll_plan_free: %s", pcoll_last_error());
    }
    for (it = 0; it < ITERS; it++) {
        fill_a2a(w, send, recv, it);
        require(w, pcoll_alltoall(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, w->comm),
                "pcoll_alltoall");
        check_a2a(w, recv, it, "one-shot alltoall");
    }
}

/* One-shot alltoallv of vcount items per pair, in items of MPI_INT or of a
 * derived type of two ints (made and freed here, so that its delete callback
 * runs while the other threads use their caches). */
static void alltoallvs(worker_t *w)
{
    int p = w->p, j, k, it, pass, ssum = 0, rsum = 0;
    int *sc = malloc(4 * sizeof(int) * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    int *send, *recv;
    for (j = 0; j < p; j++) {
        sc[j] = vcount(w, w->me, j);
        rc[j] = vcount(w, j, w->me);
        sd[j] = ssum;
        rd[j] = rsum;
        ssum += sc[j];
        rsum += rc[j];
    }
    send = malloc(2 * sizeof(int) * (size_t)(ssum + 1));
    recv = malloc(2 * sizeof(int) * (size_t)(rsum + 1));
    for (pass = 0; pass < 2; pass++)
        for (it = 0; it < ITERS; it++) {
            MPI_Datatype type = MPI_INT;
            int per = pass ? 2 : 1; /* ints per item */
            if (pass) {
                MPI_Type_contiguous(2, MPI_INT, &type);
                MPI_Type_commit(&type);
            }
            for (j = 0; j < p; j++)
                for (k = 0; k < sc[j] * per; k++)
                    send[sd[j] * per + k] = val(w->id, it, w->me, j, k);
            for (k = 0; k < rsum * per; k++)
                recv[k] = -1;
            require(w, pcoll_alltoallv(send, sc, sd, type, recv, rc, rd, type, w->comm),
                    "pcoll_alltoallv");
            for (j = 0; j < p; j++)
                for (k = 0; k < rc[j] * per; k++)
                    if (recv[rd[j] * per + k] != val(w->id, it, j, w->me, k)) {
                        fail(w, "alltoallv (%s) run %d: from %d item %d expected %d got %d",
                             pass ? "derived" : "MPI_INT", it, j, k, val(w->id, it, j, w->me, k),
                             recv[rd[j] * per + k]);
                        j = p;
                        break;
                    }
            if (pass)
                MPI_Type_free(&type);
        }
    free(send);
    free(recv);
    free(sc);
}

/* Neighbourhood all-to-alls on a ring of the thread's communicator (a
 * periodic 1-D grid: block 0 to the rank below, block 1 to the one above):
 * a persistent `node` plan (on one node the kept plan bound once) run
 * ITERS times, then one-shot calls with equal arguments under auto (the
 * shape is decided at the second call; a kept plan's repeats run on the
 * arguments its record holds).  Element k of block e sent by src is
 * val(id, it, src, e, k). */
static void neighbors(worker_t *w)
{
    int dims[1] = {w->p}, periods[1] = {1}, counts[2] = {COUNT, COUNT}, displs[2] = {0, COUNT};
    int send[2 * COUNT], recv[2 * COUNT], below, above, it, k, e;
    pcoll_plan_t *plan = NULL;
    MPI_Comm ring;
    MPI_Info info;
    MPI_Cart_create(w->comm, 1, dims, periods, 0, &ring);
    MPI_Cart_shift(ring, 0, 1, &below, &above);
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", "node");
    require(w, pcoll_neighbor_alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs,
                                             MPI_INT, ring, info, &plan),
            "pcoll_neighbor_alltoallv_init");
    MPI_Info_free(&info);
    for (it = 0; it < 2 * ITERS + 3; it++) {
        for (e = 0; e < 2; e++)
            for (k = 0; k < COUNT; k++)
                send[e * COUNT + k] = val(w->id, it % 8, w->me, e, k);
        for (k = 0; k < 2 * COUNT; k++)
            recv[k] = -1;
        if (it < ITERS && plan)
            run(w, plan, it % 2);
        else
            require(w, pcoll_neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts,
                                                displs, MPI_INT, ring),
                    "pcoll_neighbor_alltoallv");
        for (k = 0; k < COUNT; k++)
            if (recv[k] != val(w->id, it % 8, below, 1, k) ||
                recv[COUNT + k] != val(w->id, it % 8, above, 0, k)) {
                fail(w, "neighbor call %d: item %d got %d / %d", it, k, recv[k],
                     recv[COUNT + k]);
                break;
            }
    }
    if (plan)
        require(w, pcoll_plan_free(&plan), "pcoll_plan_free");
    MPI_Comm_free(&ring);
}

/* Reduce-scatter: element k of block j sent by src is src + j + k + id, so
 * rank me's element k of the sum is p(p-1)/2 + p(me + k + id). */
static void reduce_scatters(worker_t *w)
{
    int p = w->p, j, k, it, total = 0, *counts = malloc(sizeof(int) * (size_t)p), *send, *recv;
    pcoll_plan_t *plan = NULL;
    for (j = 0; j < p; j++) {
        counts[j] = 1 + j % 2;
        total += counts[j];
    }
    send = malloc(sizeof(int) * (size_t)(total > COUNT * p ? total : COUNT * p));
    recv = malloc(sizeof(int) * COUNT);
    /* One-shot, block form: COUNT elements per rank. */
    for (it = 0; it < ITERS; it++) {
        for (j = 0; j < p; j++)
            for (k = 0; k < COUNT; k++)
                send[j * COUNT + k] = w->me + j + k + w->id + it;
        require(w, pcoll_reduce_scatter_block(send, recv, COUNT, MPI_INT, MPI_SUM, w->comm),
                "pcoll_reduce_scatter_block");
        for (k = 0; k < COUNT; k++)
            if (recv[k] != p * (p - 1) / 2 + p * (w->me + k + w->id + it))
                fail(w, "reduce_scatter_block run %d: element %d expected %d got %d", it, k,
                     p * (p - 1) / 2 + p * (w->me + k + w->id + it), recv[k]);
    }
    /* Persistent, counts 1 or 2: element k of rank j's block is at offset
     * first(j) + k. */
    require(w, pcoll_reduce_scatter_init(send, recv, counts, MPI_INT, MPI_SUM, w->comm,
                                         MPI_INFO_NULL, &plan),
            "pcoll_reduce_scatter_init");
    for (it = 0; it < ITERS; it++) {
        int off = 0;
        for (j = 0; j < p; off += counts[j], j++)
            for (k = 0; k < counts[j]; k++)
                send[off + k] = w->me + j + k + w->id + it;
        run(w, plan, it % 2);
        for (k = 0; k < counts[w->me]; k++)
            if (recv[k] != p * (p - 1) / 2 + p * (w->me + k + w->id + it))
                fail(w, "reduce_scatter run %d: element %d expected %d got %d", it, k,
                     p * (p - 1) / 2 + p * (w->me + k + w->id + it), recv[k]);
    }
    if (pcoll_plan_free(&plan) != PCOLL_SUCCESS)
        fail(w, "pcoll_plan_free: %s", pcoll_last_error());
    free(send);
    free(recv);
    free(counts);
}

/* The in-place alltoallv: send blocks in rank order from the start of the
 * buffer, receive blocks in reverse rank order, also from the start. */
static void inplace(worker_t *w)
{
    int p = w->p, j, k, it, ssum = 0, rsum = 0;
    int *sc = malloc(4 * sizeof(int) * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    int *buf;
    pcoll_plan_t *plan = NULL;
    for (j = 0; j < p; j++) {
        sc[j] = vcount(w, w->me, j);
        sd[j] = ssum;
        ssum += sc[j];
    }
    for (j = p - 1; j >= 0; j--) {
        rc[j] = vcount(w, j, w->me);
        rd[j] = rsum;
        rsum += rc[j];
    }
    buf = malloc(sizeof(int) * (size_t)((ssum > rsum ? ssum : rsum) + 1));
    require(w, pcoll_alltoallv_inplace_init(buf, sc, sd, rc, rd, MPI_INT, w->comm, MPI_INFO_NULL,
                                            &plan),
            "pcoll_alltoallv_inplace_init");
    for (it = 0; it < ITERS; it++) {
        for (j = 0; j < p; j++)
            for (k = 0; k < sc[j]; k++)
                buf[sd[j] + k] = val(w->id, it, w->me, j, k);
        run(w, plan, it % 2);
        for (j = 0; j < p; j++)
            for (k = 0; k < rc[j]; k++)
                if (buf[rd[j] + k] != val(w->id, it, j, w->me, k)) {
                    fail(w, "inplace alltoallv run %d: from %d item %d expected %d got %d", it, j,
                         k, val(w->id, it, j, w->me, k), buf[rd[j] + k]);
                    j = p;
                    break;
                }
    }
    if (pcoll_plan_free(&plan) != PCOLL_SUCCESS)
        fail(w, "pcoll_plan_free: %s", pcoll_last_error());
    free(buf);
    free(sc);
}

/* Each thread's last one-shot call is an alltoall or a reduce_scatter_block
 * (different tables, so different algorithm names), then an error of its own; once every thread has erred, each must still see its own
 * message and its own last algorithm. */
static void own_state(worker_t *w, int *send, int *recv)
{
    const char *last;
    char expect[64];
    int rc;
    if (w->id % 2 == 0) {
        fill_a2a(w, send, recv, 0);
        require(w, pcoll_alltoall(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, w->comm),
                "pcoll_alltoall");
    } else {
        require(w, pcoll_reduce_scatter_block(send, recv, COUNT, MPI_INT, MPI_SUM, w->comm),
                "pcoll_reduce_scatter_block");
    }
    last = pcoll__last_run_algorithm;
    if (!last || !*last)
        fail(w, "no algorithm recorded after a one-shot call");
    rc = pcoll_alltoall(send, -(10 + w->id), MPI_INT, recv, COUNT, MPI_INT, w->comm);
    if (rc != PCOLL_ERR_ARG)
        fail(w, "negative count: %s, expected ERR_ARG", pcoll_err_name(rc));
    snprintf(expect, sizeof expect, "negative (%d)", -(10 + w->id));
    pthread_barrier_wait(&all_erred);
    if (!strstr(pcoll_last_error(), expect))
        fail(w, "pcoll_last_error() is \"%s\", not this thread's (%s)", pcoll_last_error(),
             expect);
    if (pcoll__last_run_algorithm != last)
        fail(w, "last run algorithm changed to %s (was %s) by another thread",
             pcoll__last_run_algorithm, last);
}

static void *work(void *arg)
{
    worker_t *w = arg;
    int *send = malloc(sizeof(int) * COUNT * (size_t)w->p);
    int *recv = malloc(sizeof(int) * COUNT * (size_t)w->p);
    alltoalls(w, send, recv);
    alltoallvs(w);
    neighbors(w);
    reduce_scatters(w);
    inplace(w);
    own_state(w, send, recv);
    /* The context goes with the communicator: cached plans, duplicates. */
    MPI_Comm_free(&w->comm);
    free(send);
    free(recv);
    return NULL;
}

/* One Cartesian communicator made and used before the threads start:
 * MPICH 5 makes the attribute key under which it keeps topologies at its
 * first MPI_Cart_create, and threads making their first ones at once could
 * each make one (a thread's MPI_Cart_shift then found no topology on its
 * new communicator now and then at np 1). */
static void warm_topology(void)
{
    int dims[1] = {1}, periods[1] = {1}, below, above;
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_SELF, 1, dims, periods, 0, &c);
    MPI_Cart_shift(c, 0, 1, &below, &above);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    worker_t w[NTHREADS];
    pthread_t tid[NTHREADS];
    int provided, me, p, t, failures = 0, all = 0;
    long long before, after;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (me == 0)
            printf("skipped: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Finalize();
        return 0;
    }
    for (t = 0; t < NTHREADS; t++) {
        w[t] = (worker_t){.id = t, .me = me, .p = p};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
    }
    warm_topology();
    pthread_barrier_init(&all_erred, NULL, NTHREADS);
    before = pcoll_mem_current();
    for (t = 0; t < NTHREADS; t++)
        if (pthread_create(&tid[t], NULL, work, &w[t]) != 0) {
            fprintf(stderr, "rank %d: pthread_create failed\n", me);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (t = 0; t < NTHREADS; t++) {
        pthread_join(tid[t], NULL);
        failures += w[t].failures;
    }
    pthread_barrier_destroy(&all_erred);
    after = pcoll_mem_current();
    if (after != before) {
        fprintf(stderr, "rank %d: pcoll_mem_current() %lld after the threads, %lld before\n",
                me, after, before);
        failures++;
    }
    if (pcoll_mem_peak() < after) {
        fprintf(stderr, "rank %d: pcoll_mem_peak() %lld below current %lld\n", me,
                pcoll_mem_peak(), after);
        failures++;
    }
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("threads: %d threads x %d ranks, %s (%d failures)\n", NTHREADS, p,
               all ? "FAILED" : "passed", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
