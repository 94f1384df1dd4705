/*
 * pcoll-overhead: what pcoll's own paths cost per call, against the MPI's
 * alltoall, interleaved in one run:
 *
 *   mpiexec -n P pcoll-overhead [--bytes N] [--batches B] [--calls C] [--algorithm A]
 *
 * Each batch times C calls of each of the MPI's own alltoall (PMPI_Alltoall),
 * a persistent plan's pcoll_start + pcoll_wait, and the one-shot
 * pcoll_alltoall (which looks its plan up in the cache, or repeats the
 * thread's last call), in turn, after a barrier; the medians over the
 * batches (rank 0's clock) and the one-shot path's own cost (one-shot minus
 * persistent) are printed.  --algorithm names the plans' algorithm (info
 * pcoll_algorithm for the plan, PCOLL_ALLTOALL_ALGORITHM for the one-shot
 * call; default: auto for both).
 *
 * Then a shape's first calls (src/api/entry.c "Shapes"): on a new duplicate
 * of the world each time (its context made by a call of another size), the
 * first one-shot call of the size, the second (which decides for every rank
 * and may make a plan together), and the third; the maximum over the ranks
 * of each, medians over the duplicates.
 *
 * pcoll-overhead-mpi is the same source without pcoll (linked with the MPI
 * alone): PMPI_Alltoall against MPI_Alltoall, which is the drop-in's where
 * libpcoll_mpi is preloaded (Open MPI: mpiexec -x LD_PRELOAD=...; MPICH:
 * -env LD_PRELOAD ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#ifndef PCOLL_OVERHEAD_MPI_ONLY
#include "pcoll.h"
#else
typedef struct pcoll_plan pcoll_plan_t;
#endif

/* New communicators on which a shape's first calls are timed. */
#define FIRST_ROUNDS 15

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* One batch of calls of kind k (0 MPI, 1 persistent, 2 one-shot, 3 drop-in);
 * us per call. */
static double batch(int k, int calls, pcoll_plan_t *plan, char *s, char *r, int n)
{
    double t0;
    int i, rc = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (i = 0; i < calls && rc == 0; i++)
        if (k == 0)
            rc = PMPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
        else if (k == 3)
            rc = MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
#ifndef PCOLL_OVERHEAD_MPI_ONLY
        else if (k == 1)
            rc = pcoll_start(plan) == PCOLL_SUCCESS ? pcoll_wait(plan) : PCOLL_ERR_STATE;
        else
            rc = pcoll_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
    if (rc != PCOLL_SUCCESS) {
        fprintf(stderr, "pcoll-overhead: call failed: %s\n", pcoll_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#else
        (void)plan;
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    return (MPI_Wtime() - t0) / calls * 1e6;
}

#ifndef PCOLL_OVERHEAD_MPI_ONLY
/* The first, second and third one-shot calls of n bytes on a new
 * communicator (us, the slowest rank's). */
static void first_calls(char *s, char *r, int n, double us[3])
{
    MPI_Comm c;
    int i;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    pcoll_alltoall(s, n + 1, MPI_BYTE, r, n + 1, MPI_BYTE, c);
    for (i = 0; i < 3; i++) {
        double t0;
        MPI_Barrier(c);
        t0 = MPI_Wtime();
        if (pcoll_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, c) != PCOLL_SUCCESS) {
            fprintf(stderr, "pcoll-overhead: call failed: %s\n", pcoll_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        us[i] = (MPI_Wtime() - t0) * 1e6;
        MPI_Allreduce(MPI_IN_PLACE, &us[i], 1, MPI_DOUBLE, MPI_MAX, c);
    }
    MPI_Comm_free(&c);
}

#endif

int main(int argc, char **argv)
{
    static const char *const names[] = {"MPI_Alltoall", "persistent", "one-shot",
                                        "MPI_Alltoall*"};
    /* The kinds timed: the MPI's own call, then pcoll's or the wrapper's. */
#ifndef PCOLL_OVERHEAD_MPI_ONLY
    static const int kinds[] = {0, 1, 2};
#else
    static const int kinds[] = {0, 3};
#endif
    const int nk = (int)(sizeof kinds / sizeof *kinds);
    int n = 8, batches = 100, calls = 200, p, rank, b, k, i;
    const char *algorithm = NULL;
    double *t[4], med[4];
    pcoll_plan_t *plan = NULL;
    char *s, *r;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--bytes") == 0)
            n = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--batches") == 0)
            batches = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--calls") == 0)
            calls = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--algorithm") == 0)
            algorithm = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpiexec -n P %s [--bytes N] [--batches B] "
                                "[--calls C] [--algorithm A]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 0 || batches < 1 || calls < 1) {
        if (rank == 0)
            fprintf(stderr, "pcoll-overhead: --bytes >= 0, --batches and --calls >= 1\n");
        MPI_Finalize();
        return 2;
    }
    s = calloc((size_t)n * (size_t)p + 1, 1);
    r = calloc((size_t)n * (size_t)p + 1, 1);
    if (!s || !r) {
        fprintf(stderr, "pcoll-overhead: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#ifndef PCOLL_OVERHEAD_MPI_ONLY
    {
        MPI_Info info;
        MPI_Info_create(&info);
        if (algorithm) {
            MPI_Info_set(info, "pcoll_algorithm", algorithm);
            setenv("PCOLL_ALLTOALL_ALGORITHM", algorithm, 1);
        }
        if (pcoll_alltoall_init(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, info, &plan) !=
            PCOLL_SUCCESS) {
            fprintf(stderr, "pcoll-overhead: %s\n", pcoll_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Info_free(&info);
    }
#else
    (void)algorithm;
#endif
    for (k = 0; k < 4; k++)
        t[k] = malloc(sizeof(double) * (size_t)batches);
    for (b = -2; b < batches; b++) /* two batches of warm-up */
        for (k = 0; k < nk; k++) {
            double us = batch(kinds[k], calls, plan, s, r, n);
            if (b >= 0)
                t[kinds[k]][b] = us;
        }
    for (k = 0; k < nk; k++)
        med[kinds[k]] = median(t[kinds[k]], batches);
    if (rank == 0) {
#ifndef PCOLL_OVERHEAD_MPI_ONLY
        printf("# pcoll-overhead: np %d, %d B per peer, plan %s, %d batches of %d calls, "
               "medians, us per call\n",
               p, n, pcoll_plan_algorithm(plan), batches, calls);
#else
        printf("# pcoll-overhead-mpi: np %d, %d B per peer, %d batches of %d calls, medians, "
               "us per call; MPI_Alltoall* is the drop-in's where it is preloaded\n",
               p, n, batches, calls);
#endif
        for (k = 0; k < nk; k++)
            printf("%-14s %9.3f\n", names[kinds[k]], med[kinds[k]]);
        for (k = 1; k < nk; k++)
            printf("ratio %-8s %9.3f\n", names[kinds[k]], med[kinds[k]] / med[0]);
#ifndef PCOLL_OVERHEAD_MPI_ONLY
        printf("%-14s %9.3f\n", "one-shot path", med[2] - med[1]);
#endif
    }
#ifndef PCOLL_OVERHEAD_MPI_ONLY
    for (b = 0; b < batches && b < FIRST_ROUNDS; b++) {
        double us[3];
        first_calls(s, r, n, us);
        for (k = 0; k < 3; k++)
            t[k][b] = us[k];
    }
    if (rank == 0) {
        static const char *const first[] = {"first call", "deciding call", "third call"};
        for (k = 0; k < 3; k++)
            printf("%-14s %9.3f\n", first[k], median(t[k], b));
    }
    pcoll_plan_free(&plan);
#endif
    for (k = 0; k < 4; k++)
        free(t[k]);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
