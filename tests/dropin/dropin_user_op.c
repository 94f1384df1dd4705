/*
 * A user-defined MPI_Op through the drop-in receives the datatype handle
 * the program passed: MPI_Reduce_scatter_block, MPI_Reduce_scatter, their
 * non-blocking forms and (MPI-4, Open MPI 5) persistent forms, on a
 * contiguous of two ints.  The op adds ints only when *datatype is the
 * program's handle, else counts the call and computes nothing; every
 * result is the closed-form sum over the ranks.  A persistent request runs
 * once more after the program freed the type: the op then gets a handle of
 * the same type.
 */
#include "check.h"

enum { ITEM = 2, BLOCK = 3, POISON = -77 };

static int rank, size;
static MPI_Datatype expect_type = MPI_DATATYPE_NULL; /* NULL: any handle of ITEM ints */
static int wrong_handle;

static void add_checked(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout, bytes = 0, ok;
    if (expect_type != MPI_DATATYPE_NULL)
        ok = *dt == expect_type;
    else
        ok = MPI_Type_size(*dt, &bytes) == MPI_SUCCESS && bytes == ITEM * (int)sizeof(int);
    if (!ok) {
        wrong_handle++;
        return;
    }
    for (int j = 0; j < *len * ITEM; j++)
        b[j] += a[j];
}

/* Rank r's int k at round: the sum over ranks of my block is closed-form. */
static void fill(int *send, int n, int round)
{
    for (int k = 0; k < n; k++)
        send[k] = rank * 1000 + k + round;
}

/* n ints of my block, the first at int first. */
static void check_sums(const char *what, const int *recv, int first, int n, int round)
{
    for (int k = 0; k < n; k++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += r * 1000 + first + k + round;
        check_value(what, k, want, recv[k]);
    }
    check_value(what, n, POISON, recv[n]);
    check_value(what, -1, 0, wrong_handle);
    wrong_handle = 0;
}

static void poison(int *recv, int n)
{
    for (int k = 0; k <= n; k++)
        recv[k] = POISON;
}

int main(int argc, char **argv)
{
    MPI_Datatype t;
    MPI_Op op;
    MPI_Request req;
    int *send, *recv, *counts, n = BLOCK * ITEM, rc;
    check_init(&argc, &argv, &rank, &size);
    send = malloc(sizeof(int) * (size_t)(size * n));
    recv = malloc(sizeof(int) * (size_t)(n + 1));
    counts = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        counts[i] = BLOCK;
    CHECK_MPI(MPI_Op_create(add_checked, 1, &op));
    CHECK_MPI(MPI_Type_contiguous(ITEM, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    expect_type = t;

    fill(send, size * n, 0), poison(recv, n);
    CHECK_MPI(MPI_Reduce_scatter_block(send, recv, BLOCK, t, op, MPI_COMM_WORLD));
    check_sums("MPI_Reduce_scatter_block", recv, rank * n, n, 0);
    fill(send, size * n, 1), poison(recv, n);
    CHECK_MPI(MPI_Reduce_scatter(send, recv, counts, t, op, MPI_COMM_WORLD));
    check_sums("MPI_Reduce_scatter", recv, rank * n, n, 1);
    fill(send, size * n, 2), poison(recv, n);
    CHECK_MPI(MPI_Ireduce_scatter_block(send, recv, BLOCK, t, op, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_sums("MPI_Ireduce_scatter_block", recv, rank * n, n, 2);
    fill(send, size * n, 3), poison(recv, n);
    CHECK_MPI(MPI_Ireduce_scatter(send, recv, counts, t, op, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_sums("MPI_Ireduce_scatter", recv, rank * n, n, 3);
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
    CHECK_MPI(MPI_Reduce_scatter_block_init(send, recv, BLOCK, t, op, MPI_COMM_WORLD,
                                            MPI_INFO_NULL, &req));
    for (int round = 4; round < 7; round++) {
        if (round == 6) {
            /* The program frees its type; the request runs on. */
            CHECK_MPI(MPI_Type_free(&t));
            expect_type = MPI_DATATYPE_NULL;
        }
        fill(send, size * n, round), poison(recv, n);
        CHECK_MPI(MPI_Start(&req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check_sums("MPI_Reduce_scatter_block_init", recv, rank * n, n, round);
    }
    CHECK_MPI(MPI_Request_free(&req));
    if (rank == 0)
        printf("dropin-expect: MPI_Reduce_scatter_block MPI_Reduce_scatter "
               "MPI_Ireduce_scatter_block MPI_Ireduce_scatter MPI_Reduce_scatter_block_init\n");
#else
    MPI_Type_free(&t);
    if (rank == 0)
        printf("dropin-expect: MPI_Reduce_scatter_block MPI_Reduce_scatter "
               "MPI_Ireduce_scatter_block MPI_Ireduce_scatter\n");
#endif
    MPI_Op_free(&op);
    free(send), free(recv), free(counts);
    rc = check_finish("dropin_user_op");
    MPI_Finalize();
    return rc;
}
