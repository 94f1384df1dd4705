/*
 * PCOLL_DROPIN_LOG: per MPI function, how many calls pcoll served with which
 * algorithm and how many went to the MPI library and why, summed over the
 * ranks of MPI_COMM_WORLD and printed by rank 0 in MPI_Finalize.  A
 * process that uses MPI sessions alone (no MPI_Init) prints it in its first
 * MPI_Session_finalize, summed over the session's "mpi://WORLD".
 *
 * PCOLL_DROPIN_LOG=1 prints to stderr; any other value but 0 is a file the
 * lines are appended to.  Every rank must see the same setting (the sums
 * are a reduction), set before the first wrapped call (unset, calls are not
 * counted).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/dropin.h"

/* Algorithm slots per row (the last one collects names not in the table),
 * then one slot per reason for falling through. */
#define ALGO_SLOTS 32
#define SLOTS (ALGO_SLOTS + PCOLL__DROPIN_NREASONS)

static long long counts[PCOLL__DROPIN_NCOLL][PCOLL__DROPIN_NFORMS][SLOTS];

static const char *const functions[PCOLL__DROPIN_NCOLL][PCOLL__DROPIN_NFORMS] = {
    {"MPI_Alltoall", "MPI_Ialltoall", "MPI_Alltoall_init"},
    {"MPI_Alltoallv", "MPI_Ialltoallv", "MPI_Alltoallv_init"},
    {"MPI_Reduce_scatter", "MPI_Ireduce_scatter", "MPI_Reduce_scatter_init"},
    {"MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block", "MPI_Reduce_scatter_block_init"},
    {"MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Alltoallw_init"},
    {"MPI_Neighbor_alltoall", "MPI_Ineighbor_alltoall", "MPI_Neighbor_alltoall_init"},
    {"MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv", "MPI_Neighbor_alltoallv_init"},
    {"MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw", "MPI_Neighbor_alltoallw_init"},
};
/* pcoll's algorithm table of each collective. */
static const char *const tables[PCOLL__DROPIN_NCOLL] = {"alltoall", "alltoallv",
                                                       "reduce_scatter", "reduce_scatter",
                                                       "alltoallw", "neighbor_alltoall",
                                                       "neighbor_alltoall", "neighbor_alltoall"};
static const char *const reasons[PCOLL__DROPIN_NREASONS] = {
    "pcoll ERR_ARG",
    "pcoll ERR_UNSUPPORTED", "pcoll ERR_MISMATCH", "pcoll ERR_STATE"};

static int algorithm_slot(int coll, const char *algorithm)
{
    const char *name;
    int i;
    for (i = 0; i < ALGO_SLOTS - 1 && (name = pcoll_algorithm_name(tables[coll], i)); i++)
        if (!strcmp(name, algorithm))
            return i;
    return ALGO_SLOTS - 1;
}

/* Where the log goes: NULL when PCOLL_DROPIN_LOG is unset, empty or 0. */
static const char *log_target(void)
{
    const char *v = getenv("PCOLL_DROPIN_LOG");
    return v && *v && strcmp(v, "0") ? v : NULL;
}

/* Whether calls are counted: PCOLL_DROPIN_LOG as the first wrapped call
 * found it (unset, a call costs nothing here); -1 before. */
static atomic_int logging = -1;
static pthread_once_t logging_once = PTHREAD_ONCE_INIT;

static void read_logging(void)
{
    atomic_store_explicit(&logging, log_target() != NULL, memory_order_release);
}

static int counting(void)
{
    int on = atomic_load_explicit(&logging, memory_order_acquire);
    if (on < 0) {
        pthread_once(&logging_once, read_logging);
        on = atomic_load_explicit(&logging, memory_order_acquire);
    }
    return on;
}

int pcoll__dropin_logging(void)
{
    return counting();
}

void pcoll__dropin_log_served(int coll, int form, const pcoll_plan_t *plan)
{
    int slot;
    if (!counting())
        return;
    slot = algorithm_slot(coll, plan ? pcoll_plan_algorithm(plan) : pcoll__last_run_algorithm);
    pcoll__dropin_lock();
    counts[coll][form][slot]++;
    pcoll__dropin_unlock();
}

void pcoll__dropin_log_fell(int coll, int form, int reason)
{
    if (!counting())
        return;
    pcoll__dropin_lock();
    counts[coll][form][ALGO_SLOTS + reason]++;
    pcoll__dropin_unlock();
}

/* Append "name n" for every non-zero slot in [first, last) to line. */
static void list_slots(char *line, size_t size, const long long *row, int first, int last,
                       int coll)
{
    int i, any = 0;
    for (i = first; i < last; i++) {
        const char *name;
        size_t len = strlen(line);
        if (!row[i])
            continue;
        if (i >= ALGO_SLOTS)
            name = reasons[i - ALGO_SLOTS];
        else
            name = i < ALGO_SLOTS - 1 ? pcoll_algorithm_name(tables[coll], i) : "other";
        snprintf(line + len, size - len, "%s%s %lld", any ? ", " : " (", name, row[i]);
        any = 1;
    }
    if (any)
        strncat(line, ")", size - strlen(line) - 1);
}

static long long sum(const long long *row, int first, int last)
{
    long long s = 0;
    int i;
    for (i = first; i < last; i++)
        s += row[i];
    return s;
}

/* One line per MPI function that was called. */
static void print_rows(FILE *out, const long long (*all)[PCOLL__DROPIN_NFORMS][SLOTS], int np)
{
    char line[1024];
    int c, f, any = 0;
    fprintf(out, "pcoll-dropin: calls summed over %d rank%s\n", np, np == 1 ? "" : "s");
    for (c = 0; c < PCOLL__DROPIN_NCOLL; c++)
        for (f = 0; f < PCOLL__DROPIN_NFORMS; f++) {
            const long long *row = all[c][f];
            long long served = sum(row, 0, ALGO_SLOTS), fell = sum(row, ALGO_SLOTS, SLOTS);
            if (!served && !fell)
                continue;
            snprintf(line, sizeof line, "pcoll-dropin: %-29s %6lld calls: pcoll %lld",
                     functions[c][f], served + fell, served);
            list_slots(line, sizeof line, row, 0, ALGO_SLOTS, c);
            snprintf(line + strlen(line), sizeof line - strlen(line), ", MPI %lld", fell);
            list_slots(line, sizeof line, row, ALGO_SLOTS, SLOTS, c);
            fprintf(out, "%s\n", line);
            any = 1;
        }
    if (!any)
        fprintf(out, "pcoll-dropin: no call of the functions it serves\n");
}

static void print_log(const char *target, const long long (*all)[PCOLL__DROPIN_NFORMS][SLOTS],
                      int np)
{
    int to_stderr = !strcmp(target, "1");
    FILE *out = to_stderr ? stderr : fopen(target, "a");
    if (!out) {
        fprintf(stderr, "pcoll-dropin: cannot open PCOLL_DROPIN_LOG=%s\n", target);
        return;
    }
    if (pcoll__dropin_enabled())
        print_rows(out, all, np);
    else
        fprintf(out, "pcoll-dropin: off (PCOLL_DROPIN=off): every call went to MPI\n");
    if (to_stderr)
        fflush(out);
    else
        fclose(out);
}

/* Sum the counts over comm (every process of the job); rank 0 prints them. */
static void report(MPI_Comm comm)
{
    static long long all[PCOLL__DROPIN_NCOLL][PCOLL__DROPIN_NFORMS][SLOTS];
    const char *target = log_target();
    int rank = 0, np = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &np);
    PMPI_Reduce(counts, all, (int)(sizeof counts / sizeof(long long)), MPI_LONG_LONG, MPI_SUM,
                0, comm);
    if (rank == 0)
        print_log(target, (const long long (*)[PCOLL__DROPIN_NFORMS][SLOTS])all, np);
}

int MPI_Finalize(void)
{
    if (pcoll__dropin_enabled())
        pcoll__dropin_release_all();
    if (log_target())
        report(MPI_COMM_WORLD);
    return PMPI_Finalize();
}

#ifdef PCOLL__DROPIN_HAVE_SESSIONS
/* Sessions alone: the requests' pairs go before the session does (they are
 * its communicator's), and the first session to end prints the log over a
 * communicator of the session's "mpi://WORLD" (made and freed here, as
 * MPI_Session_finalize may synchronize every process of it anyway). */
int MPI_Session_finalize(MPI_Session *session)
{
    static int reported;
    MPI_Group world;
    MPI_Comm comm;
    int init = 0;
    PMPI_Initialized(&init);
    if (!init && pcoll__dropin_enabled())
        pcoll__dropin_release_all();
    if (!init && !reported && log_target() &&
        PMPI_Group_from_session_pset(*session, "mpi://WORLD", &world) == MPI_SUCCESS) {
        if (PMPI_Comm_create_from_group(world, "org.pcoll.dropin.log", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &comm) == MPI_SUCCESS) {
            report(comm);
            PMPI_Comm_free(&comm);
            reported = 1;
        }
        PMPI_Group_free(&world);
    }
    return PMPI_Session_finalize(session);
}
#endif
