/*
 * Non-blocking calls that the MPI's own call serves (src/api/entry.c,
 * "Local repeats"): where the choice of an MPI_Ialltoall or MPI_Ialltoallv
 * is `native`, the drop-in makes the MPI's call itself, and the next call
 * with the same arguments gets that answer without checks or choice, until
 * something changes it.  PCOLL_COST_TESTED=0 and PCOLL_COST_PCALL=0 (set
 * here) put every MPI on that path for 8 B blocks.  In turn, every result
 * checked against a closed form in a poisoned buffer:
 *  1. MPI_Ialltoallv, the same arguments 5 times, then 4 times on two
 *     buffers in turn (remembered too: the buffers are compared by kind):
 *     `native`;
 *  2. blocking MPI_Alltoallv of that shape (a rules file names `hier` up to
 *     64 B): the shape keeps a node plan, and from then on
 *  3. MPI_Ialltoallv with the arguments of 1 leases it: `hier` (a call
 *     still answered from memory would be `native` again);
 *  4. MPI_Ialltoall under PCOLL_ALLTOALL_ALGORITHM=native, then =pairwise
 *     (the environment changed: `pairwise`), then native again; calls on a
 *     duplicate of the world and with a derived type between them; and
 *  5. requests of both kinds completed together by MPI_Waitall and by
 *     MPI_Testall loops: the MPI's (MPI_Ialltoallv on the duplicate, no
 *     shape there: `native`) and pcoll's (MPI_Ialltoall, `pairwise`).
 * The log must show `native`, `pairwise` and `hier` (from step 3 alone).
 */
/* setenv; mkstemp and fdopen (rules_file.h) */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check.h"
#include "rules_file.h"

#define MAXP 64
#define N 2 /* ints per peer: 8 B */

static int rank, size;
static int sb[MAXP * N], rb[MAXP * N], sb2[MAXP * N], rb2[MAXP * N];
static int counts[MAXP], displs[MAXP];

static void fill(int *s, int tag)
{
    for (int i = 0; i < size; i++)
        for (int k = 0; k < N; k++)
            s[i * N + k] = rank * 100000 + i * 1000 + k + tag;
}

static void poison(int *r)
{
    for (int i = 0; i < size * N; i++)
        r[i] = -7;
}

static void expect(const int *r, int tag, const char *what)
{
    for (int s = 0; s < size; s++)
        for (int k = 0; k < N; k++)
            check_value(what, s * N + k, s * 100000 + rank * 1000 + k + tag, r[s * N + k]);
}

/* One MPI_Ialltoallv of the fixed arguments (other: on sb2 and rb2),
 * waited. */
static void ialltoallv_on(int other, int tag, const char *what)
{
    MPI_Request req;
    int *s = other ? sb2 : sb, *r = other ? rb2 : rb;
    fill(s, tag);
    poison(r);
    CHECK_MPI(MPI_Ialltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT,
                             MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect(r, tag, what);
}

static void ialltoallv(int tag, const char *what)
{
    ialltoallv_on(0, tag, what);
}

/* One MPI_Ialltoall of 8 B blocks (type: MPI_INT or a derived pair), waited. */
static void ialltoall(MPI_Comm comm, MPI_Datatype type, int tag, const char *what)
{
    MPI_Request req;
    int n = type == MPI_INT ? N : 1;
    fill(sb, tag);
    poison(rb);
    CHECK_MPI(MPI_Ialltoall(sb, n, type, rb, n, type, comm, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect(rb, tag, what);
}

/* Both kinds in flight together: pcoll's request (MPI_Ialltoall, under
 * PCOLL_ALLTOALL_ALGORITHM=pairwise) and the MPI's (MPI_Ialltoallv on
 * comm); tested, or waited. */
static void together(MPI_Comm comm, int tag, int test)
{
    MPI_Request req[2];
    int done = 0;
    fill(sb, tag);
    fill(sb2, -tag);
    poison(rb);
    poison(rb2);
    CHECK_MPI(MPI_Ialltoall(sb2, N, MPI_INT, rb2, N, MPI_INT, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(
        MPI_Ialltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, comm, &req[1]));
    if (test)
        while (!done)
            CHECK_MPI(MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE));
    else
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    expect(rb, tag, "together: MPI_Ialltoallv");
    expect(rb2, -tag, "together: MPI_Ialltoall");
}

int main(int argc, char **argv)
{
    char path[512];
    MPI_Comm dup;
    MPI_Datatype pair;
    setenv("PCOLL_COST_TESTED", "0", 1);
    setenv("PCOLL_COST_PCALL", "0", 1);
    check_init(&argc, &argv, &rank, &size);
    if (size > MAXP) {
        MPI_Finalize();
        return 0;
    }
    if (rank == 0)
        check_true("rules file", rules_file_write(path, sizeof path, size) == 0);
    CHECK_MPI(MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
    setenv("PCOLL_TUNING_FILE", path, 1);
    for (int i = 0; i < size; i++)
        counts[i] = N, displs[i] = i * N;

    for (int call = 0; call < 5; call++)
        ialltoallv(call, "1. MPI_Ialltoallv, the MPI's call");
    for (int call = 5; call < 9; call++)
        ialltoallv_on(call % 2, call, "1. MPI_Ialltoallv on two buffers in turn");
    for (int call = 0; call < 3; call++) {
        fill(sb, 10 + call);
        poison(rb);
        CHECK_MPI(MPI_Alltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT,
                                MPI_COMM_WORLD));
        expect(rb, 10 + call, "2. MPI_Alltoallv");
    }
    for (int call = 0; call < 3; call++)
        ialltoallv(20 + call, "3. MPI_Ialltoallv, after the shape's plan");

    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Type_contiguous(N, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    setenv("PCOLL_ALLTOALL_ALGORITHM", "native", 1);
    for (int call = 0; call < 3; call++)
        ialltoall(MPI_COMM_WORLD, MPI_INT, 30 + call, "4. MPI_Ialltoall, native");
    ialltoall(dup, MPI_INT, 33, "4. MPI_Ialltoall on a duplicate");
    ialltoall(MPI_COMM_WORLD, pair, 34, "4. MPI_Ialltoall of a derived type");
    ialltoall(MPI_COMM_WORLD, MPI_INT, 35, "4. MPI_Ialltoall, native again");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "pairwise", 1);
    for (int call = 0; call < 2; call++)
        ialltoall(MPI_COMM_WORLD, MPI_INT, 40 + call, "4. MPI_Ialltoall, pairwise");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "native", 1);
    ialltoall(MPI_COMM_WORLD, MPI_INT, 42, "4. MPI_Ialltoall, native at last");

    setenv("PCOLL_ALLTOALL_ALGORITHM", "pairwise", 1);
    for (int call = 0; call < 4; call++)
        together(dup, 50 + call, call % 2);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    unsetenv("PCOLL_TUNING_FILE");
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        remove(path);
        printf("dropin-expect: MPI_Alltoallv MPI_Ialltoallv MPI_Ialltoall\n");
        printf("dropin-expect-some: MPI_Ialltoallv=native MPI_Ialltoall=native "
               "MPI_Ialltoallv=hier MPI_Ialltoall=pairwise\n");
        fflush(stdout);
    }
    {
        int failed = check_finish("dropin_forward");
        MPI_Finalize();
        return failed;
    }
}
