/*
 * demo: plan an all-to-all once, run it many times, check it against
 * MPI_Alltoall and print the time per call of every pcoll algorithm next to
 * the native MPI_Alltoall, for a few block sizes.
 *
 *   mpiexec -n 4 ./demo [reps]
 *
 * Timing: per size and algorithm, `reps` barrier-separated runs; the time of
 * a run is the maximum over ranks; the median is shown.  This is a quick look,
 * not the benchmark (tools/pcoll-bench does warm-up, outlier filtering and
 * confidence intervals).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcoll.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over reps of the per-run maximum over ranks. */
static double median_max(double *t, int reps, MPI_Comm comm)
{
    MPI_Allreduce(MPI_IN_PLACE, t, reps, MPI_DOUBLE, MPI_MAX, comm);
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

static double time_native(const char *s, char *r, int n, int reps, double *t)
{
    int i;
    for (i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t[i] = MPI_Wtime();
        MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
        t[i] = MPI_Wtime() - t[i];
    }
    return median_max(t, reps, MPI_COMM_WORLD);
}

/* Time a persistent plan; returns a negative value if planning failed. */
static double time_plan(pcoll_plan_t *plan, int reps, double *t)
{
    int i;
    for (i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t[i] = MPI_Wtime();
        pcoll_start(plan);
        pcoll_wait(plan);
        t[i] = MPI_Wtime() - t[i];
    }
    return median_max(t, reps, MPI_COMM_WORLD);
}

static void fill(char *s, int n, int p, int rank)
{
    int i;
    for (i = 0; i < n * p; i++)
        s[i] = (char)(rank * 31 + i * 7);
}

static void run_size(int n, int reps, int rank, int p)
{
    char *s = malloc((size_t)n * p + 1), *r = malloc((size_t)n * p + 1);
    char *ref = malloc((size_t)n * p + 1);
    double *t = malloc(sizeof(double) * (size_t)reps), native;
    int a, ok;
    const char *name;

    fill(s, n, p, rank);
    MPI_Alltoall(s, n, MPI_BYTE, ref, n, MPI_BYTE, MPI_COMM_WORLD);
    native = time_native(s, r, n, reps, t);
    if (rank == 0)
        printf("%8d B  %-10s %10.2f us  %6s\n", n, "MPI", native * 1e6, "1.00");
    for (a = 0; (name = pcoll_algorithm_name("alltoall", a)) != NULL; a++) {
        pcoll_plan_t *plan = NULL;
        MPI_Info info;
        double us;
        MPI_Info_create(&info);
        MPI_Info_set(info, "pcoll_algorithm", name);
        pcoll_alltoall_init(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, info, &plan);
        MPI_Info_free(&info);
        memset(r, 0, (size_t)n * p);
        pcoll_start(plan);
        pcoll_wait(plan);
        ok = memcmp(r, ref, (size_t)n * p) == 0;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        us = time_plan(plan, reps, t) * 1e6;
        if (rank == 0) {
            int is_auto = strcmp(name, "auto") == 0;
            printf("%8d B  %-10s %10.2f us  %6.2f  %s%s%s%s\n", n, name, us, native * 1e6 / us,
                   ok ? "ok" : "WRONG", is_auto ? " (runs " : "",
                   is_auto ? pcoll_plan_algorithm(plan) : "", is_auto ? ")" : "");
        }
        pcoll_plan_free(&plan);
    }
    free(s);
    free(r);
    free(ref);
    free(t);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 1024, 65536};
    int reps = argc > 1 ? atoi(argv[1]) : 200, rank, p, i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (reps < 1)
        reps = 1;
    if (rank == 0)
        printf("pcoll demo: all-to-all on %d ranks, %d runs per point, median of the\n"
               "per-run maximum over ranks; speed-up = MPI time / pcoll time\n\n"
               "%10s  %-10s %13s  %6s\n",
               p, reps, "block", "algorithm", "time", "speed-up");
    for (i = 0; i < (int)(sizeof sizes / sizeof *sizes); i++)
        run_size(sizes[i], sizes[i] > 4096 ? (reps + 9) / 10 : reps, rank, p);
    MPI_Finalize();
    return 0;
}
