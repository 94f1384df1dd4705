/*
 * MPI_Alltoallw with MPI_DATATYPE_NULL as the type of every zero count
 * (MPI accepts it, MPICH does, and programs rely on it) through the
 * drop-in: blocking (twice: the second a cached plan), non-blocking and
 * persistent (MPI-4, Open MPI 5), every count zero on some pairs; every
 * element checked against a closed form, the rest of the receive buffer
 * untouched.  pcoll must serve every call (no refusal in the log).
 */
#include <string.h>

#include "check.h"

#define MAXP 64
enum { POISON = -3 };

static int rank, size;

static int value(int from, int to, int k, int round)
{
    return from * 1000 + to * 10 + k + round * 100000;
}

/* Ints from rank `from` to rank `to`: none on every other pair. */
static int ints(int from, int to)
{
    return (from + to) % 2 ? 0 : 1 + (from + 2 * to) % 3;
}

typedef struct side {
    int counts[MAXP], displs[MAXP];
    MPI_Datatype types[MAXP];
} side_t;

/* Blocks of 4 ints per peer, MPI_DATATYPE_NULL where the count is 0. */
static void make(side_t *s, int send)
{
    for (int j = 0; j < size; j++) {
        s->counts[j] = send ? ints(rank, j) : ints(j, rank);
        s->displs[j] = j * 4 * (int)sizeof(int);
        s->types[j] = s->counts[j] ? MPI_INT : MPI_DATATYPE_NULL;
    }
}

static void check(const side_t *r, const int *rbuf, int round, const char *what)
{
    for (int j = 0; j < size; j++)
        for (int k = 0; k < 4; k++)
            check_value(what, j * 4 + k, k < r->counts[j] ? value(j, rank, k, round) : POISON,
                        rbuf[j * 4 + k]);
}

int main(int argc, char **argv)
{
    side_t s, r;
    int sbuf[4 * MAXP], rbuf[4 * MAXP], rc;
    MPI_Request req;
    check_init(&argc, &argv, &rank, &size);
    if (size > MAXP) {
        MPI_Finalize();
        return 0;
    }
    make(&s, 1);
    make(&r, 0);
    for (int round = 0; round < 5; round++) {
        for (int j = 0; j < size; j++)
            for (int k = 0; k < 4; k++)
                sbuf[j * 4 + k] = value(rank, j, k, round);
        for (int k = 0; k < 4 * size; k++)
            rbuf[k] = POISON;
        if (round < 2) {
            CHECK_MPI(MPI_Alltoallw(sbuf, s.counts, s.displs, s.types, rbuf, r.counts, r.displs,
                                    r.types, MPI_COMM_WORLD));
        } else if (round == 2) {
            CHECK_MPI(MPI_Ialltoallw(sbuf, s.counts, s.displs, s.types, rbuf, r.counts,
                                     r.displs, r.types, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
            if (round == 3)
                CHECK_MPI(MPI_Alltoallw_init(sbuf, s.counts, s.displs, s.types, rbuf, r.counts,
                                             r.displs, r.types, MPI_COMM_WORLD, MPI_INFO_NULL,
                                             &req));
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            if (round == 4)
                CHECK_MPI(MPI_Request_free(&req));
#else
            break;
#endif
        }
        check(&r, rbuf, round, "MPI_Alltoallw with MPI_DATATYPE_NULL");
    }
    if (rank == 0)
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
        printf("dropin-expect: MPI_Alltoallw MPI_Ialltoallw MPI_Alltoallw_init\n");
#else
        printf("dropin-expect: MPI_Alltoallw MPI_Ialltoallw\n");
#endif
    rc = check_finish("dropin_null_types");
    MPI_Finalize();
    return rc;
}
