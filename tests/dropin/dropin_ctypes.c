/*
 * Datatypes of MPI-4's large-count constructors (MPI_Type_contiguous_c,
 * MPI_Type_vector_c, MPI_Type_create_resized_c; small counts) in plain MPI
 * calls through the drop-in: MPI completes them, so the drop-in must too
 * (before, the library's int envelope query made MPI abort the program).
 * MPI_Alltoall (also in place), MPI_Alltoallv, MPI_Ialltoall and
 * MPI_Alltoall_init, the types on every rank or on rank 0 only, closed-form
 * values, gaps of the receive type untouched.  An MPI without the _c
 * constructors (MPI-3) has nothing to test.
 */
#include "check.h"

#if MPI_VERSION >= 4

enum { ITEM = 3, REXT = 7, CNT = 2, POISON = -77 };

static int rank, size;

static int value(int from, int to, int k, int round)
{
    return from * 100000 + to * 1000 + k * 10 + round;
}

/* 3 dense ints to send; 3 ints at stride 2, extent 7, to receive. */
static void make_types(int large, MPI_Datatype *send, MPI_Datatype *recv)
{
    MPI_Datatype v;
    if (large) {
        CHECK_MPI(MPI_Type_contiguous_c(ITEM, MPI_INT, send));
        CHECK_MPI(MPI_Type_vector_c(ITEM, 1, 2, MPI_INT, &v));
        CHECK_MPI(MPI_Type_create_resized_c(v, 0, REXT * (MPI_Count)sizeof(int), recv));
    } else {
        CHECK_MPI(MPI_Type_contiguous(ITEM, MPI_INT, send));
        CHECK_MPI(MPI_Type_vector(ITEM, 1, 2, MPI_INT, &v));
        CHECK_MPI(MPI_Type_create_resized(v, 0, REXT * (MPI_Aint)sizeof(int), recv));
    }
    MPI_Type_free(&v);
    MPI_Type_commit(send);
    MPI_Type_commit(recv);
}

/* CNT items of the send type to every peer: block to d, item j, int k. */
static void fill(int *sb, int round)
{
    for (int d = 0; d < size; d++)
        for (int k = 0; k < CNT * ITEM; k++)
            sb[d * CNT * ITEM + k] = value(rank, d, k, round);
}

/* Received from peer s at item offset off (in receive-type items): its ints
 * at even positions, the odd ones and the tail of each extent untouched. */
static void check_block(const char *what, const int *rb, int s, int off, int round)
{
    const int *b = rb + (size_t)off * REXT;
    for (int j = 0; j < CNT; j++)
        for (int x = 0; x < REXT; x++) {
            int k = j * ITEM + x / 2;
            int want = (x % 2 == 0 && x / 2 < ITEM) ? value(s, rank, k, round) : POISON;
            check_value(what, off * REXT + j * REXT + x, want, b[j * REXT + x]);
        }
}

static void poison(int *rb, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rb[i] = POISON;
}

static void run(int only0)
{
    MPI_Datatype st, rt;
    const size_t rn = (size_t)size * (CNT + 1) * REXT;
    int *sb = malloc(sizeof(int) * (size_t)size * CNT * ITEM), *rb = malloc(sizeof(int) * rn);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size,
        *rd = sc + 3 * size;
    MPI_Request req;
    make_types(!only0 || rank == 0, &st, &rt);
    for (int round = 0; round < 2; round++) {
        fill(sb, round);
        poison(rb, rn);
        CHECK_MPI(MPI_Alltoall(sb, CNT, st, rb, CNT, rt, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++)
            check_block("MPI_Alltoall", rb, s, s * CNT, round);

        poison(rb, rn);
        CHECK_MPI(MPI_Ialltoall(sb, CNT, st, rb, CNT, rt, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int s = 0; s < size; s++)
            check_block("MPI_Ialltoall", rb, s, s * CNT, round);

        /* alltoallv: a gap of one receive item between peers. */
        for (int i = 0; i < size; i++) {
            sc[i] = rc[i] = CNT;
            sd[i] = i * CNT;
            rd[i] = i * (CNT + 1);
        }
        poison(rb, rn);
        CHECK_MPI(MPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++) {
            check_block("MPI_Alltoallv", rb, s, s * (CNT + 1), round);
            for (int x = 0; x < REXT; x++)
                check_value("MPI_Alltoallv gap", x, POISON, rb[(s * (CNT + 1) + CNT) * REXT + x]);
        }

        /* In place: the receive buffer's own blocks, in the receive type. */
        poison(rb, rn);
        for (int d = 0; d < size; d++)
            for (int j = 0; j < CNT; j++)
                for (int x = 0; x < ITEM; x++)
                    rb[(size_t)(d * CNT + j) * REXT + 2 * x] = value(rank, d, j * ITEM + x, round);
        CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, CNT, rt, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++)
            check_block("MPI_Alltoall in place", rb, s, s * CNT, round);
    }
    MPI_Request p;
    CHECK_MPI(MPI_Alltoall_init(sb, CNT, st, rb, CNT, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &p));
    for (int round = 0; round < 2; round++) {
        fill(sb, round + 10);
        poison(rb, rn);
        CHECK_MPI(MPI_Start(&p));
        CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
        for (int s = 0; s < size; s++)
            check_block("MPI_Alltoall_init", rb, s, s * CNT, round + 10);
    }
    MPI_Request_free(&p);
    MPI_Type_free(&st);
    MPI_Type_free(&rt);
    free(sb), free(rb), free(sc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoall MPI_Alltoallv MPI_Ialltoall MPI_Alltoall_init\n");
    run(0);
    run(1);
    int rc = check_finish("dropin_ctypes");
    MPI_Finalize();
    return rc;
}

#else

int main(int argc, char **argv)
{
    return check_skipped(&argc, &argv, "dropin_ctypes", "the MPI has no large-count constructors (MPI-3)");
}

#endif
