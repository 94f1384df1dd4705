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
 * ddt:   per byte, the 1 MiB ping-pong with the bytes described by a struct
 *        type of 16 runs of MPI_BYTE (the kind pcoll's zero-copy Bruck sends), minus the contiguous one (the MPI's datatype engine).
 * call:  MPI_Alltoall of 1 byte on every rank minus the same exchange made
 *        of MPI_Irecv, MPI_Isend and MPI_Waitall (the collective's own cost);
 * pcall: the same with MPI_Alltoall_init's start and wait (MPI_Ialltoall
 *        where the MPI has no persistent collectives).
 * barrier, shm: the node's terms, for pcoll's plans on one node (node_cost.h
 *        in tools/pcoll-bench): a node barrier per rank and a byte of a typed
 *        copy through the shared segment, as a persistent `hier` alltoall on
 *        the node's ranks pays them; the largest over the nodes.
 * Each value is the median of N repetitions (default 50).  Ranks other than
 * 0 and 1 only wait, but for call, barrier and shm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "node_cost.h"

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

/* Half round trip of count items of type between ranks 0 and 1. */
static double pingpong_type(char *buf, int count, MPI_Datatype type, int reps, int rank,
                            double *t)
{
    int i;
    for (i = 0; i < reps; i++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, count, type, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, count, type, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, count, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, count, type, 0, 0, MPI_COMM_WORLD);
        }
        t[i] = (MPI_Wtime() - t0) / 2;
    }
    return median(t, reps);
}

/* Half round trip of `bytes` between ranks 0 and 1. */
static double pingpong(char *buf, int bytes, int reps, int rank, double *t)
{
    return pingpong_type(buf, bytes, MPI_BYTE, reps, rank, t);
}

/* ddt: per byte, a BIG-byte message described by a struct type (DDT_RUNS
 * runs of bytes with gaps between them, as pcoll's zero-copy algorithms send) minus
 * the same bytes as one contiguous run.  buf holds 2 * BIG bytes. */
#define DDT_RUNS 16
static double ddt_time(char *buf, double contiguous, int reps, int rank, double *t)
{
    MPI_Datatype runs, types[DDT_RUNS];
    MPI_Aint displs[DDT_RUNS];
    int lens[DDT_RUNS], k;
    double derived;
    for (k = 0; k < DDT_RUNS; k++) {
        types[k] = MPI_BYTE;
        lens[k] = BIG / DDT_RUNS;
        displs[k] = (MPI_Aint)k * 2 * (BIG / DDT_RUNS);
    }
    MPI_Type_create_struct(DDT_RUNS, lens, displs, types, &runs);
    MPI_Type_commit(&runs);
    pingpong_type(buf, 1, runs, reps < 5 ? reps : 5, rank, t);
    derived = pingpong_type(buf, 1, runs, reps, rank, t);
    MPI_Type_free(&runs);
    return derived > contiguous ? (derived - contiguous) / BIG : 0.0;
}

/* The MPI has persistent collectives: MPI-4, and Open MPI 5 (MPI 3.1). */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_PERSISTENT 1
#endif

/* call (persistent 0) and pcall (persistent 1): MPI_Alltoall of 1 byte per
 * peer on every rank (or MPI_Alltoall_init's start and wait; the
 * non-blocking MPI_Ialltoall without them), minus the same exchange made of
 * MPI_Irecv, MPI_Isend and one MPI_Waitall: what the MPI's collective costs
 * beyond its messages.  The maximum over ranks of each. */
static double call_time(int size, int reps, double *t, int persistent)
{
    char *s = calloc((size_t)size, 1), *r = calloc((size_t)size, 1);
    MPI_Request *req = malloc(sizeof *req * 2 * (size_t)size);
    MPI_Request one = MPI_REQUEST_NULL;
    double native, manual, v[2];
    int i, k;
#ifdef HAVE_PERSISTENT
    if (persistent)
        MPI_Alltoall_init(s, 1, MPI_BYTE, r, 1, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL, &one);
#endif
    for (i = 0; i < reps; i++) {
        double t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        if (!persistent) {
            MPI_Alltoall(s, 1, MPI_BYTE, r, 1, MPI_BYTE, MPI_COMM_WORLD);
        } else {
            if (one != MPI_REQUEST_NULL)
                MPI_Start(&one);
            else
                MPI_Ialltoall(s, 1, MPI_BYTE, r, 1, MPI_BYTE, MPI_COMM_WORLD, &req[0]);
            MPI_Wait(one != MPI_REQUEST_NULL ? &one : &req[0], MPI_STATUS_IGNORE);
        }
        t[i] = MPI_Wtime() - t0;
    }
    if (one != MPI_REQUEST_NULL)
        MPI_Request_free(&one);
    native = median(t, reps);
    for (i = 0; i < reps; i++) {
        double t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (k = 0; k < size; k++)
            MPI_Irecv(r + k, 1, MPI_BYTE, k, 1, MPI_COMM_WORLD, &req[k]);
        for (k = 0; k < size; k++)
            MPI_Isend(s + k, 1, MPI_BYTE, k, 1, MPI_COMM_WORLD, &req[size + k]);
        MPI_Waitall(2 * size, req, MPI_STATUSES_IGNORE);
        t[i] = MPI_Wtime() - t0;
    }
    manual = median(t, reps);
    v[0] = native, v[1] = manual;
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(s);
    free(r);
    free(req);
    return v[0] > v[1] ? v[0] - v[1] : 0.0;
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
    double *t, alpha, big, gamma, delta, ddt, call, pcall, barrier, shm;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;

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
    a = calloc(2 * BIG, 1);
    b = calloc(BIG, 1);
    t = malloc(sizeof(double) * (size_t)reps);
    pingpong(a, 1, reps < 10 ? reps : 10, rank, t); /* warm-up */
    alpha = pingpong(a, 1, reps, rank, t);
    big = pingpong(a, BIG, reps, rank, t);
    gamma = copy_time(b, a, reps, t);
    delta = block_time(a, b, reps, t);
    ddt = ddt_time(a, big, reps, rank, t);
    call = call_time(size, reps, t, 0);
    pcall = call_time(size, reps, t, 1);
    bench_node_cost(MPI_COMM_WORLD, reps, &barrier, &shm);
    MPI_Get_library_version(version, &vlen);
    version[strcspn(version, "\n")] = '\0';
    if (rank == 0) {
        printf("# pcoll cost model parameters measured by pcoll-probe (%d reps, medians)\n",
               reps);
        printf("export PCOLL_COST_ALPHA=%.3e  # s per message\n", alpha);
        printf("export PCOLL_COST_BETA=%.3e   # s per byte sent\n",
               big > alpha ? (big - alpha) / BIG : 0.0);
        printf("export PCOLL_COST_GAMMA=%.3e  # s per byte copied\n", gamma);
        printf("export PCOLL_COST_DELTA=%.3e  # s per datatype block\n", delta);
        printf("export PCOLL_COST_DDT=%.3e    # s per byte sent with a derived type, "
               "beyond beta\n",
               ddt);
        printf("export PCOLL_COST_CALL=%.3e   # s the MPI's MPI_Alltoall costs beyond its "
               "messages (np %d)\n",
               call, size);
        printf("export PCOLL_COST_PCALL=%.3e  # the same for its persistent (else non-blocking) "
               "form\n",
               pcall);
        if (barrier > 0)
            printf("export PCOLL_COST_BARRIER=%.3e  # s per rank of a node barrier (one node)\n",
                   barrier);
        if (shm > 0)
            printf("export PCOLL_COST_SHM=%.3e  # s per byte copied through a node's shared "
                   "memory\n",
                   shm);
        printf("# MPI: %s\n", version);
    }
    free(a);
    free(b);
    free(t);
    MPI_Finalize();
    return 0;
}
