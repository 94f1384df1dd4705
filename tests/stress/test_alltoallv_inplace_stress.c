/*
 * test_alltoallv_inplace_stress.c -- thousands of random cases of the
 * in-place alltoallv (the generator and checks of
 * tests/mpi/test_alltoallv_inplace.c, which this file includes).
 *
 * Registered only when CMake's PCOLL_STRESS option is on (label "stress",
 * np 3..8; `make stress`).  The seed comes from the command line, else from
 * PCOLL_STRESS_SEED, else from the clock; rank 0 prints it first and, on
 * failure, the command that repeats the run.  Every failing case also names
 * its own seed and index in its context line.
 *
 * Usage: test_alltoallv_inplace_stress [cases [seed]]   (default 1000 cases)
 */
#define PT_INPLACE_STRESS 1
#include "../mpi/test_alltoallv_inplace.c"

#include <time.h>

/* The seed, the same on every rank. */
static unsigned long long stress_seed(int argc, char **argv)
{
    unsigned long long seed = (unsigned long long)time(NULL);
    const char *env = getenv("PCOLL_STRESS_SEED");
    if (argc > 2)
        seed = strtoull(argv[2], NULL, 10);
    else if (env)
        seed = strtoull(env, NULL, 10);
    PT_MPI(MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
    return seed;
}

int main(int argc, char **argv)
{
    static const enum pt_layout_kind kinds[] = {PT_L_INT, PT_L_DOUBLE, PT_L_STRUCT_A, PT_L_VEC,
                                                PT_L_NEGLB};
    enum { NL = sizeof kinds / sizeof *kinds };
    pt_layout lays[NL];
    unsigned long long seed;
    long n;
    int rc;
    pt_init(&argc, &argv);
    n = argc > 1 ? atol(argv[1]) : 1000;
    seed = stress_seed(argc, argv);
    if (pt_rank == 0)
        printf("stress: %ld cases on %d ranks, seed %llu\n", n, pt_size, seed);
    for (int i = 0; i < NL; i++)
        pt_layout_make(&lays[i], kinds[i]);
    sweep(seed, 0, n - n / 8, PT_C_WORLD, lays, NL);
    sweep(seed, n, n / 8, PT_C_PARITY, lays, NL);
    for (int i = 0; i < NL; i++)
        pt_layout_free(&lays[i]);
    rc = pt_finish();
    if (rc && pt_rank == 0)
        printf("stress FAILED: repeat with  mpiexec -n %d %s %ld %llu\n", pt_size, argv[0], n,
               seed);
    return rc;
}
