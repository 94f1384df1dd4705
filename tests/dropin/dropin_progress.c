/*
 * Progress across requests through the drop-in: two MPI_Alltoall_init
 * requests on MPI_COMM_WORLD, served by pcoll's multi-round algorithms
 * (pairwise, then bruck_basic: PCOLL_ALLTOALL_ALGORITHM, set before the
 * init calls), started in the same order on every rank and completed in
 * opposite orders: even ranks MPI_Wait a then b, odd ranks b then a; then
 * MPI_Waitall on the pair reversed on odd ranks.  MPI requires every order
 * to complete.  Results against closed-form values, outputs poisoned before
 * each run.  Without persistent collectives in the MPI the program only
 * says so.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <stdlib.h>

#include "check.h"

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define COUNT 100 /* ints per block: 400 bytes */
#define RUNS 2

static int rank, size;

static int value(int from, int to, int k, int run)
{
    return (run * 64 + from) * 100000 + to * 200 + k;
}

static void fill(int *send, int *recv, int run)
{
    for (int i = 0; i < size; i++)
        for (int k = 0; k < COUNT; k++)
            send[i * COUNT + k] = value(rank, i, k, run), recv[i * COUNT + k] = -1;
}

static void verify(const int *recv, int run, const char *what)
{
    for (int i = 0; i < size; i++)
        for (int k = 0; k < COUNT; k++)
            check_value(what, i * COUNT + k, value(i, rank, k, run), recv[i * COUNT + k]);
}

/* Complete both requests: odd ranks begin with the second. */
static void complete(MPI_Request reqs[2], int waitall)
{
    MPI_Request pair[2];
    int first = rank % 2;
    if (!waitall) {
        CHECK_MPI(MPI_Wait(&reqs[first], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&reqs[1 - first], MPI_STATUS_IGNORE));
        return;
    }
    pair[0] = reqs[first], pair[1] = reqs[1 - first];
    CHECK_MPI(MPI_Waitall(2, pair, MPI_STATUSES_IGNORE));
}

static void two_requests(const char *algorithm)
{
    int *send[2], *recv[2];
    MPI_Request reqs[2];
    int j, run;
    setenv("PCOLL_ALLTOALL_ALGORITHM", algorithm, 1);
    for (j = 0; j < 2; j++) {
        send[j] = malloc(sizeof(int) * COUNT * (size_t)size);
        recv[j] = malloc(sizeof(int) * COUNT * (size_t)size);
        CHECK_MPI(MPI_Alltoall_init(send[j], COUNT, MPI_INT, recv[j], COUNT, MPI_INT,
                                    MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[j]));
    }
    for (run = 0; run < RUNS; run++) {
        for (j = 0; j < 2; j++)
            fill(send[j], recv[j], run * 2 + j);
        CHECK_MPI(MPI_Start(&reqs[0]));
        CHECK_MPI(MPI_Start(&reqs[1]));
        complete(reqs, run % 2);
        for (j = 0; j < 2; j++)
            verify(recv[j], run * 2 + j, algorithm);
    }
    for (j = 0; j < 2; j++) {
        CHECK_MPI(MPI_Request_free(&reqs[j]));
        free(send[j]), free(recv[j]);
    }
}

int main(int argc, char **argv)
{
    int rc;
    check_init(&argc, &argv, &rank, &size);
    two_requests("pairwise");
    two_requests("bruck_basic");
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoall_init\n");
    rc = check_finish("dropin_progress");
    MPI_Finalize();
    return rc;
}
#else
int main(int argc, char **argv)
{
    return check_skipped(&argc, &argv, "dropin_progress", "no persistent collectives in this MPI");
}
#endif
