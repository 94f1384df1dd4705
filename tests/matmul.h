/*
 * A non-commutative, associative user op for the reduce-scatter tests:
 * 2x2 matrix products mod MATMUL_PRIME, one matrix per element of 4 ints
 * (inout = in x inout, as MPI calls a user op: the lower ranks' operand on
 * the left).  Shared by the MPI tests (tests/mpi) and the drop-in tests
 * (tests/dropin), which link nothing in common.
 */
#ifndef PCOLL_TESTS_MATMUL_H
#define PCOLL_TESTS_MATMUL_H

#include <mpi.h>
#include <string.h>

enum { MATMUL_PRIME = 10007 };

static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const int *a = in;
    int *b = inout;
    (void)type;
    for (int e = 0; e < *len; e++, a += 4, b += 4) {
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) % MATMUL_PRIME,
                    (a[0] * b[1] + a[1] * b[3]) % MATMUL_PRIME,
                    (a[2] * b[0] + a[3] * b[2]) % MATMUL_PRIME,
                    (a[2] * b[1] + a[3] * b[3]) % MATMUL_PRIME};
        memcpy(b, c, sizeof c);
    }
}

#endif
