/*
 * pcoll-probe: measure the parameters of pcoll's cost model on this machine
 * and MPI, and print them as environment settings for `auto`.
 *
 *   mpiexec -n 2 pcoll-probe [--reps N]
 *
 * alpha: half the round trip of a 1-byte ping-pong between ranks 0 and 1.
 * beta:  (half round trip of 1 MiB - alpha) / 1 MiB.
 * gamma: memcpy time per byte over 1 MiB.
 * delta: per block, packing 4096 single-int blocks described by an indexed
 *        type, minus the same bytes as one contiguous run.
 * Each value is the median of N repetitions (default 50).  Ranks other than
 * 0 and 1 only wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define BIG (1 << 20)
#define BLOCKS 4096

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

/* Half round trip of `bytes` between ranks 0 and 1. */
static double pingpong(char *buf, int bytes, int reps, int rank, double *t)
{
    int i;
    for (i = 0; i < reps; i++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        t[i] = (MPI_Wtime() - t0) / 2;
    }
    return median(t, reps);
}

static double copy_time(char *dst, const char *src, int reps, double *t)
{
    int i;
    for (i = 0; i < reps; i++) {
        double t0 = MPI_Wtime();
        memcpy(dst, src, BIG);
        t[i] = MPI_Wtime() - t0;
    }
    return median(t, reps) / BIG;
}

/* Time to pack count items of type into out, median of reps. */
static double pack_time(const void *in, int count, MPI_Datatype type, char *out, int reps,
                        double *t)
{
    int i, pos;
    for (i = 0; i < reps; i++) {
        double t0 = MPI_Wtime();
        pos = 0;
        MPI_Pack(in, count, type, out, BIG, &pos, MPI_COMM_SELF);
        t[i] = MPI_Wtime() - t0;
    }
    return median(t, reps);
}

static double block_time(const char *src, char *dst, int reps, double *t)
{
    int *displs = malloc(sizeof(int) * BLOCKS), i;
    MPI_Datatype idx;
    double tidx, tcontig;
    for (i = 0; i < BLOCKS; i++)
        displs[i] = 2 * i;
    MPI_Type_create_indexed_block(BLOCKS, 1, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    tidx = pack_time(src, 1, idx, dst, reps, t);
    tcontig = pack_time(src, BLOCKS, MPI_INT, dst, reps, t);
    MPI_Type_free(&idx);
    free(displs);
    return tidx > tcontig ? (tidx - tcontig) / BLOCKS : 0.0;
}

int main(int argc, char **argv)
{
    int rank, size, reps = 50, i;
    char *a, *b;
    double *t, alpha, big, gamma, delta;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            reps = atoi(argv[++i]);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpiexec -n 2 pcoll-probe [--reps N]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pcoll-probe: run it on at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    a = calloc(BIG, 1);
    b = calloc(BIG, 1);
    t = malloc(sizeof(double) * (size_t)reps);
    pingpong(a, 1, reps < 10 ? reps : 10, rank, t); /* warm-up */
    alpha = pingpong(a, 1, reps, rank, t);
    big = pingpong(a, BIG, reps, rank, t);
    gamma = copy_time(b, a, reps, t);
    delta = block_time(a, b, reps, t);
    if (rank == 0) {
        printf("# pcoll cost model parameters measured by pcoll-probe (%d reps, medians)\n",
               reps);
        printf("export PCOLL_COST_ALPHA=%.3e  # s per message\n", alpha);
        printf("export PCOLL_COST_BETA=%.3e   # s per byte sent\n",
               big > alpha ? (big - alpha) / BIG : 0.0);
        printf("export PCOLL_COST_GAMMA=%.3e  # s per byte copied\n", gamma);
        printf("export PCOLL_COST_DELTA=%.3e  # s per datatype block\n", delta);
    }
    free(a);
    free(b);
    free(t);
    MPI_Finalize();
    return 0;
}
