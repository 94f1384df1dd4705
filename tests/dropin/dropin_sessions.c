/*
 * The drop-in under MPI sessions alone (no MPI_Init, no MPI_Finalize): on
 * a communicator made by MPI_Session_init -> MPI_Group_from_session_pset
 * ("mpi://WORLD") -> MPI_Comm_create_from_group, MPI_Alltoall,
 * MPI_Ialltoall, MPI_Alltoall_init and the three forms of
 * MPI_Reduce_scatter_block, three rounds each with new input, checked
 * against closed forms on poisoned buffers, by pcoll's own schedules
 * (pairwise and ring, set in the environment).  Open MPI 5's
 * MPI_Reduce_local fails without MPI_Init, so there pcoll's reduce-scatter
 * schedules refuse and auto (set instead of ring) serves the reduce-scatter
 * through `native`, which the log must show (docs/dropin.md).  The communicator and the
 * persistent requests are freed before MPI_Session_finalize, where the
 * drop-in prints its log (run.cmake checks that pcoll served every call).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#if !(MPI_VERSION >= 4 || (defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5))
/* MPI-3 has no sessions: nothing to serve (the log comes at MPI_Finalize). */
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("dropin-expect:\ndropin_sessions: skipped: this MPI has no sessions\n");
    MPI_Finalize();
    return 0;
}
#else

enum { BLOCK = 3, ROUNDS = 3, POISON = -1 };

/* The reduce-scatter's algorithm: Open MPI 5 under sessions alone has only
 * its own. */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5
#define RS_SET "auto"
#define RS_ALGO "native"
#else
#define RS_SET "ring"
#define RS_ALGO "ring"
#endif

static int rank, size, failures;

static void check_value(const char *what, int index, long long expected, long long got)
{
    if (expected != got && failures++ < 10)
        fprintf(stderr, "FAIL rank %d: %s[%d]: expected %lld, got %lld\n", rank, what, index,
                expected, got);
}

#define CHECK_MPI(call) check_value(#call, 0, MPI_SUCCESS, (call))

/* Input of rank r, int k of the send buffer, in round t. */
static int value(int r, int k, int t)
{
    return r * 1000 + k + t * 100000;
}

static void fill(int *send, int *recv, int round)
{
    for (int k = 0; k < size * BLOCK; k++)
        send[k] = value(rank, k, round), recv[k] = POISON;
}

/* Alltoall: block i of the output is block rank of rank i's input. */
static void a2a_check(const int *recv, int round, const char *what)
{
    for (int i = 0; i < size; i++)
        for (int k = 0; k < BLOCK; k++)
            check_value(what, i * BLOCK + k, value(i, rank * BLOCK + k, round),
                        recv[i * BLOCK + k]);
}

/* Reduce_scatter_block with MPI_SUM: block rank summed over the ranks. */
static void rs_check(const int *recv, int round, const char *what)
{
    for (int k = 0; k < BLOCK; k++) {
        long long sum = 0;
        for (int r = 0; r < size; r++)
            sum += value(r, rank * BLOCK + k, round);
        check_value(what, k, sum, recv[k]);
    }
}

int main(void)
{
    MPI_Session session;
    MPI_Group world;
    MPI_Comm comm;
    int init = 1, total = 0;
    setenv("PCOLL_ALLTOALL_ALGORITHM", "pairwise", 1);
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", RS_SET, 1);
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS ||
        MPI_Group_from_session_pset(session, "mpi://WORLD", &world) != MPI_SUCCESS ||
        MPI_Comm_create_from_group(world, "org.pcoll.test.dropin.sessions", MPI_INFO_NULL,
                                   MPI_ERRORS_RETURN, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "cannot make a communicator from a session\n");
        return 1;
    }
    MPI_Group_free(&world);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Initialized(&init);
    check_value("MPI_Initialized", 0, 0, init);
    int *send = malloc(sizeof(int) * (size_t)size * BLOCK);
    int *recv = malloc(sizeof(int) * (size_t)size * BLOCK);
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
    /* MPICH before 4.1: pcoll refuses communicators without MPI_Init
     * (ERR_STATE), so the MPI serves (blocking forms only: its own
     * persistent requests crash there when freed). */
    for (int round = 0; round < ROUNDS; round++) {
        fill(send, recv, round);
        CHECK_MPI(MPI_Alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, comm));
        a2a_check(recv, round, "MPI_Alltoall");
        fill(send, recv, round);
        CHECK_MPI(MPI_Reduce_scatter_block(send, recv, BLOCK, MPI_INT, MPI_SUM, comm));
        rs_check(recv, round, "MPI_Reduce_scatter_block");
    }
    free(send), free(recv);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) {
        printf("dropin-expect:\ndropin-expect-refused: STATE\n");
        printf("dropin_sessions: %s (%d failures; MPICH before 4.1: served by the MPI)\n",
               total ? "FAILED" : "passed", total);
    }
#else
    MPI_Request a2a, rs, req;
    CHECK_MPI(MPI_Alltoall_init(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, comm,
                                MPI_INFO_NULL, &a2a));
    CHECK_MPI(MPI_Reduce_scatter_block_init(send, recv, BLOCK, MPI_INT, MPI_SUM, comm,
                                            MPI_INFO_NULL, &rs));
    for (int round = 0; round < ROUNDS; round++) {
        fill(send, recv, round);
        CHECK_MPI(MPI_Alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, comm));
        a2a_check(recv, round, "MPI_Alltoall");
        fill(send, recv, round);
        CHECK_MPI(MPI_Ialltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, comm, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        a2a_check(recv, round, "MPI_Ialltoall");
        fill(send, recv, round);
        CHECK_MPI(MPI_Start(&a2a));
        CHECK_MPI(MPI_Wait(&a2a, MPI_STATUS_IGNORE));
        a2a_check(recv, round, "MPI_Alltoall_init");
        fill(send, recv, round);
        CHECK_MPI(MPI_Reduce_scatter_block(send, recv, BLOCK, MPI_INT, MPI_SUM, comm));
        rs_check(recv, round, "MPI_Reduce_scatter_block");
        fill(send, recv, round);
        CHECK_MPI(MPI_Ireduce_scatter_block(send, recv, BLOCK, MPI_INT, MPI_SUM, comm, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        rs_check(recv, round, "MPI_Ireduce_scatter_block");
        fill(send, recv, round);
        CHECK_MPI(MPI_Start(&rs));
        CHECK_MPI(MPI_Wait(&rs, MPI_STATUS_IGNORE));
        rs_check(recv, round, "MPI_Reduce_scatter_block_init");
    }
    CHECK_MPI(MPI_Request_free(&a2a));
    CHECK_MPI(MPI_Request_free(&rs));
    free(send), free(recv);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) {
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall MPI_Alltoall_init "
               "MPI_Reduce_scatter_block MPI_Ireduce_scatter_block "
               "MPI_Reduce_scatter_block_init\n");
        printf("dropin-expect-algorithm: MPI_Alltoall=pairwise MPI_Ialltoall=pairwise "
               "MPI_Alltoall_init=pairwise MPI_Reduce_scatter_block=" RS_ALGO
               " MPI_Ireduce_scatter_block=" RS_ALGO " MPI_Reduce_scatter_block_init=" RS_ALGO
               "\n");
        printf("dropin_sessions: %s (%d failures)\n", total ? "FAILED" : "passed", total);
    }
#endif
    fflush(stdout);
    MPI_Comm_free(&comm);
    CHECK_MPI(MPI_Session_finalize(&session));
    return total || failures ? 1 : 0;
}
#endif
