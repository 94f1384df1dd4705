/*
 * An alltoallv shape decided again (src/api/entry.c, next_recheck) while
 * non-blocking calls hold leases on its plan: a rules file (written by rank
 * 0, PCOLL_TUNING_FILE set on every rank) names `hier` for alltoallv blocks
 * up to 64 B and `native` above; blocking MPI_Alltoallv calls of 8 B blocks,
 * then 4 KiB, then 8 B again, with an MPI_Ialltoallv of 8 B blocks in flight
 * across every seventh blocking call (and across the calls where the shape
 * is looked at again: its 64th and 512th call, non-blocking lookups
 * counted).  The shape holds a kept `hier` plan at first and loses it when
 * the 4 KiB blocks are seen (the plan is freed while a lease is in flight:
 * its run finishes first, and the lease, completed later by MPI_Wait, must
 * not reach the freed record).  Every result is checked.
 */
/* setenv; mkstemp and fdopen (rules_file.h) */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check.h"
#include "rules_file.h"

#define SHORT 2   /* ints per peer: 8 B */
#define LONG 1024 /* 4 KiB */

static int rank, size;
static int sb[64 * LONG], rb[64 * LONG], isb[64 * SHORT], irb[64 * SHORT];

static void fill(int *s, int n, int tag)
{
    for (int i = 0; i < size; i++)
        for (int k = 0; k < n; k++)
            s[i * n + k] = rank * 100000 + i * 1000 + k + tag;
}

static void expect(const int *r, int n, int tag, const char *what)
{
    for (int s = 0; s < size; s++)
        for (int k = 0; k < n; k++)
            check_value(what, s * n + k, s * 100000 + rank * 1000 + k + tag, r[s * n + k]);
}

/* The rules file; its path on every rank. */
static void rules(char *path, int len)
{
    if (rank == 0)
        check_true("rules file", rules_file_write(path, (size_t)len, size) == 0);
    CHECK_MPI(MPI_Bcast(path, len, MPI_CHAR, 0, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    char path[512];
    int sc[64], sd[64], isc[64], isd[64], failed;
    check_init(&argc, &argv, &rank, &size);
    if (size > 64) {
        MPI_Finalize();
        return 0;
    }
    rules(path, (int)sizeof path);
    setenv("PCOLL_TUNING_FILE", path, 1);
    for (int i = 0; i < size; i++)
        isc[i] = SHORT, isd[i] = i * SHORT;
    for (int call = 1; call <= 600; call++) {
        int n = call < 64 || call >= 460 ? SHORT : LONG;
        MPI_Request req = MPI_REQUEST_NULL;
        for (int i = 0; i < size; i++)
            sc[i] = n, sd[i] = i * n;
        if (call % 7 == 0) {
            fill(isb, SHORT, -call);
            CHECK_MPI(MPI_Ialltoallv(isb, isc, isd, MPI_INT, irb, isc, isd, MPI_INT,
                                     MPI_COMM_WORLD, &req));
        }
        fill(sb, n, call);
        CHECK_MPI(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, sc, sd, MPI_INT, MPI_COMM_WORLD));
        expect(rb, n, call, "blocking");
        if (req != MPI_REQUEST_NULL) {
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            expect(irb, SHORT, -call, "in flight");
        }
    }
    unsetenv("PCOLL_TUNING_FILE");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        remove(path);
        printf("dropin-expect: MPI_Alltoallv MPI_Ialltoallv\n");
        fflush(stdout);
    }
    failed = check_finish("dropin_recheck");
    MPI_Finalize();
    return failed;
}
