/*
 * Shared by the drop-in tests: programs that call MPI functions only (no
 * pcoll header), run with libpcoll_mpi preloaded or linked first.  Every
 * check compares with a closed-form value; a failure names rank, what,
 * index, expected and got, and the program exits non-zero.
 */
#ifndef PCOLL_TESTS_DROPIN_CHECK_H
#define PCOLL_TESTS_DROPIN_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;

/* Compare one element; report the first few failures. */
static inline void check_value(const char *what, int index, long long expected, long long got)
{
    int rank;
    if (expected == got)
        return;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (check_failures++ < 10)
        fprintf(stderr, "FAIL rank %d: %s[%d]: expected %lld, got %lld\n", rank, what, index,
                expected, got);
}

/* A condition that must hold. */
static inline void check_true(const char *what, int cond)
{
    check_value(what, 0, 1, cond != 0);
}

/* MPI calls must succeed (MPI_ERRORS_RETURN is set on the communicators
 * the tests use, so a failure is reported here rather than aborting). */
#define CHECK_MPI(call) check_value(#call, 0, MPI_SUCCESS, (call))

/* Sum the failures over all ranks; rank 0 prints the verdict. */
static inline int check_finish(const char *program)
{
    int rank, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s (%d failures)\n", program, total ? "FAILED" : "passed", total);
    return total ? 1 : 0;
}

/* MPI_Init, errors returned on MPI_COMM_WORLD and MPI_COMM_SELF (a test
 * checks the codes), and this rank and the size of MPI_COMM_WORLD. */
static inline void check_init(int *argc, char ***argv, int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* The whole program of a test this MPI has nothing for: rank 0 says why. */
static inline int check_skipped(int *argc, char ***argv, const char *program, const char *why)
{
    int rank;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("%s: skipped: %s\n", program, why);
    MPI_Finalize();
    return 0;
}

#endif
