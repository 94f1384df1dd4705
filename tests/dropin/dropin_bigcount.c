/*
 * MPI-4's large-count alltoall forms through the drop-in: MPI_Alltoall_c,
 * MPI_Ialltoall_c and MPI_Alltoall_init_c with small counts on
 * MPI_COMM_WORLD (closed-form values), and MPI_Alltoall_c with a count over
 * INT_MAX (2^31 + 8 bytes) on MPI_COMM_SELF at np 1 with calloc'd buffers
 * (skipped where memory is short), which pcoll serves instead of passing it
 * on.  An MPI without the _c forms (MPI-3) has nothing to test.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../memavail.h"

#if MPI_VERSION >= 4

static int rank, size;

static void small(void)
{
    const MPI_Count cnt = 2;
    int *sb = malloc(sizeof(int) * 2 * (size_t)size), *rb = malloc(sizeof(int) * 2 * (size_t)size);
    MPI_Request req;
    for (int form = 0; form < 3; form++) {
        for (int i = 0; i < 2 * size; i++)
            sb[i] = 1000 * form + 100 * rank + i, rb[i] = -1;
        if (form == 0) {
            CHECK_MPI(MPI_Alltoall_c(sb, cnt, MPI_INT, rb, cnt, MPI_INT, MPI_COMM_WORLD));
        } else if (form == 1) {
            CHECK_MPI(MPI_Ialltoall_c(sb, cnt, MPI_INT, rb, cnt, MPI_INT, MPI_COMM_WORLD, &req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Alltoall_init_c(sb, cnt, MPI_INT, rb, cnt, MPI_INT, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &req));
            CHECK_MPI(MPI_Start(&req));
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            MPI_Request_free(&req);
        }
        for (int s = 0; s < size; s++)
            for (int k = 0; k < 2; k++)
                check_value(form == 0 ? "MPI_Alltoall_c" : form == 1 ? "MPI_Ialltoall_c"
                                                                      : "MPI_Alltoall_init_c",
                            2 * s + k, 1000 * form + 100 * s + 2 * rank + k, rb[2 * s + k]);
    }
    free(sb), free(rb);
}

static void big(void)
{
    const MPI_Count count = ((MPI_Count)1 << 31) + 8;
    const MPI_Count at[] = {0, 1, INT32_MAX - 1, INT32_MAX, (MPI_Count)INT32_MAX + 1, count - 1};
    if (size != 1)
        return;
    if (mem_available() < (6LL << 30)) {
        printf("dropin_bigcount: count over INT_MAX skipped: under 6 GiB of memory available\n");
        return;
    }
    unsigned char *sb = calloc((size_t)count, 1), *rb = calloc((size_t)count, 1);
    if (!sb || !rb) {
        printf("dropin_bigcount: count over INT_MAX skipped: calloc failed\n");
    } else {
        for (int k = 0; k < 6; k++)
            sb[at[k]] = (unsigned char)(11 * k + 5);
        const MPI_Aint zero = 0;
        for (int form = 0; form < 3; form++) {
            static const char *const what[] = {"MPI_Alltoall_c 2^31+8 bytes",
                                               "MPI_Alltoallv_c 2^31+8 bytes",
                                               "MPI_Reduce_scatter_block_c 2^31+8 bytes"};
            for (int k = 0; k < 6; k++)
                sb[at[k]] = (unsigned char)(11 * k + form + 5), rb[at[k]] = 0;
            if (form == 0)
                CHECK_MPI(MPI_Alltoall_c(sb, count, MPI_BYTE, rb, count, MPI_BYTE, MPI_COMM_SELF));
            else if (form == 1)
                CHECK_MPI(MPI_Alltoallv_c(sb, &count, &zero, MPI_BYTE, rb, &count, &zero, MPI_BYTE,
                                          MPI_COMM_SELF));
            else
                CHECK_MPI(MPI_Reduce_scatter_block_c(sb, rb, count, MPI_UINT8_T, MPI_SUM,
                                                     MPI_COMM_SELF));
            for (int k = 0; k < 6; k++)
                check_value(what[form], k, sb[at[k]], rb[at[k]]);
        }
    }
    free(sb), free(rb);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, &rank, &size);
    /* The drop-in's log counts each _c form under its int form's name. */
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoall MPI_Ialltoall MPI_Alltoall_init%s\n",
               size == 1 && mem_available() >= (6LL << 30)
                   ? " MPI_Alltoallv MPI_Reduce_scatter_block"
                   : "");
    small();
    big();
    int rc = check_finish("dropin_bigcount");
    MPI_Finalize();
    return rc;
}

#else

int main(int argc, char **argv)
{
    return check_skipped(&argc, &argv, "dropin_bigcount", "the MPI has no large-count forms (MPI-3)");
}

#endif
