/*
 * MPI_Alltoallw, MPI_Ialltoallw and MPI_Alltoallw_init through the drop-in:
 * a type per peer (ints contiguous, or one int every 8 bytes), the send and
 * receive layouts of a pair differing, blocks in reverse peer order with
 * gaps, byte displacements; the blocking call twice (the second a cached
 * plan), with a duplicate type per peer (more derived types than pcoll's
 * plan cache watches), in place; the non-blocking call; the persistent one
 * started twice with new input; the large-count forms (MPI-4).  Every element is checked against a closed
 * form and every gap must keep its poison.
 */
#include <string.h>

#include "check.h"

#define MAXP 64

static int rank, size;
static MPI_Datatype spaced; /* one int every 8 bytes */

static int value(int from, int to, int k, int round)
{
    return from * 1000 + to * 10 + k + round * 100000;
}

/* Ints from rank `from` to rank `to` (in place: the same both ways). */
static int ints(int from, int to, int inplace)
{
    return inplace ? 1 + (from + to) % 3 : 1 + (from + 2 * to) % 3;
}

typedef struct layout {
    int counts[MAXP], displs[MAXP], stride[MAXP];
    MPI_Datatype types[MAXP];
    int nints;
} layout_t;

/* One side of this rank: peer j's block, in reverse peer order, two ints of
 * gap before each; the receive side uses the other type of the pair. */
static void make(layout_t *l, int send, int inplace)
{
    int j, off = 0;
    for (j = size - 1; j >= 0; j--) {
        int odd = send ? j % 2 : (j + 1) % 2;
        l->counts[j] = send ? ints(rank, j, inplace) : ints(j, rank, inplace);
        l->stride[j] = odd ? 2 : 1;
        l->types[j] = odd ? spaced : MPI_INT;
        l->displs[j] = (off + 2) * (int)sizeof(int);
        off += 2 + l->counts[j] * l->stride[j] + 1;
    }
    l->nints = off + 2;
}

/* The buffer of a side: poison, and block j's elements holding what this
 * rank sends to j (from = rank) or receives from j (from = j). */
static void fill(const layout_t *l, int *buf, int received, int round)
{
    int j, k;
    for (k = 0; k < l->nints; k++)
        buf[k] = -1;
    for (j = 0; j < size; j++)
        for (k = 0; k < l->counts[j]; k++)
            buf[l->displs[j] / (int)sizeof(int) + k * l->stride[j]] =
                received ? value(j, rank, k, round) : value(rank, j, k, round);
}

static void check(const layout_t *l, const int *got, int round, const char *what)
{
    int want[8 * MAXP * 4], k;
    fill(l, want, 1, round);
    for (k = 0; k < l->nints; k++)
        check_value(what, k, want[k], got[k]);
}

static void blocking(int dup)
{
    layout_t s, r;
    int sbuf[8 * MAXP * 4], rbuf[8 * MAXP * 4], round, j;
    make(&s, 1, 0);
    make(&r, 0, 0);
    if (dup)
        for (j = 0; j < size; j++) {
            CHECK_MPI(MPI_Type_dup(s.types[j], &s.types[j]));
            CHECK_MPI(MPI_Type_dup(r.types[j], &r.types[j]));
        }
    for (round = 0; round < 2; round++) {
        fill(&s, sbuf, 0, round);
        memset(rbuf, 0xff, sizeof rbuf);
        CHECK_MPI(MPI_Alltoallw(sbuf, s.counts, s.displs, s.types, rbuf, r.counts, r.displs,
                                r.types, MPI_COMM_WORLD));
        check(&r, rbuf, round, dup ? "MPI_Alltoallw (a type per peer)" : "MPI_Alltoallw");
    }
    if (dup)
        for (j = 0; j < size; j++) {
            MPI_Type_free(&s.types[j]);
            MPI_Type_free(&r.types[j]);
        }
}

static void in_place(void)
{
    layout_t r;
    int buf[8 * MAXP * 4];
    make(&r, 0, 1);
    fill(&r, buf, 0, 3);
    CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, r.counts, r.displs, r.types,
                            MPI_COMM_WORLD));
    check(&r, buf, 3, "MPI_Alltoallw in place");
}

static void nonblocking(void)
{
    layout_t s, r;
    int sbuf[8 * MAXP * 4], rbuf[8 * MAXP * 4];
    MPI_Request req;
    make(&s, 1, 0);
    make(&r, 0, 0);
    fill(&s, sbuf, 0, 4);
    memset(rbuf, 0xff, sizeof rbuf);
    CHECK_MPI(MPI_Ialltoallw(sbuf, s.counts, s.displs, s.types, rbuf, r.counts, r.displs,
                             r.types, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(&r, rbuf, 4, "MPI_Ialltoallw");
}

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
static void persistent(void)
{
    layout_t s, r;
    int sbuf[8 * MAXP * 4], rbuf[8 * MAXP * 4], round;
    MPI_Request req;
    make(&s, 1, 0);
    make(&r, 0, 0);
    fill(&s, sbuf, 0, 5);
    CHECK_MPI(MPI_Alltoallw_init(sbuf, s.counts, s.displs, s.types, rbuf, r.counts, r.displs,
                                 r.types, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (round = 5; round < 7; round++) {
        fill(&s, sbuf, 0, round);
        memset(rbuf, 0xff, sizeof rbuf);
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check(&r, rbuf, round, "MPI_Alltoallw_init");
    }
    CHECK_MPI(MPI_Request_free(&req));
}
#endif

#if MPI_VERSION >= 4
/* The large-count forms (mpi4py 4 calls these wherever the MPI has them). */
static void large_count_forms(void)
{
    layout_t s, r;
    MPI_Count sc[MAXP], rc[MAXP];
    MPI_Aint sd[MAXP], rd[MAXP];
    int sbuf[8 * MAXP * 4], rbuf[8 * MAXP * 4], j, round;
    MPI_Request req;
    make(&s, 1, 0);
    make(&r, 0, 0);
    for (j = 0; j < size; j++)
        sc[j] = s.counts[j], sd[j] = s.displs[j], rc[j] = r.counts[j], rd[j] = r.displs[j];
    for (round = 7; round < 10; round++) {
        fill(&s, sbuf, 0, round);
        memset(rbuf, 0xff, sizeof rbuf);
        if (round == 7)
            CHECK_MPI(MPI_Alltoallw_c(sbuf, sc, sd, s.types, rbuf, rc, rd, r.types,
                                      MPI_COMM_WORLD));
        if (round == 8) {
            CHECK_MPI(MPI_Ialltoallw_c(sbuf, sc, sd, s.types, rbuf, rc, rd, r.types,
                                       MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        if (round == 9) {
            CHECK_MPI(MPI_Alltoallw_init_c(sbuf, sc, sd, s.types, rbuf, rc, rd, r.types,
                                           MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Request_free(&req));
        }
        check(&r, rbuf, round, "MPI_Alltoallw_c forms");
    }
}
#endif

int main(int argc, char **argv)
{
    int rc;
    check_init(&argc, &argv, &rank, &size);
    if (size > MAXP) {
        MPI_Finalize();
        return 0;
    }
    MPI_Type_create_resized(MPI_INT, 0, 8, &spaced);
    MPI_Type_commit(&spaced);
    blocking(0);
    blocking(1);
    in_place();
    nonblocking();
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
    persistent();
#if MPI_VERSION >= 4
    large_count_forms();
#endif
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoallw MPI_Ialltoallw MPI_Alltoallw_init\n");
#else
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoallw MPI_Ialltoallw\n");
#endif
    MPI_Type_free(&spaced);
    rc = check_finish("dropin_alltoallw");
    MPI_Finalize();
    return rc;
}
