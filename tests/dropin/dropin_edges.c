/*
 * Edge cases of the edges issue in plain MPI calls through the drop-in,
 * closed-form values:
 * - MPI_BOTTOM with types of absolute addresses (MPI_Alltoall,
 *   MPI_Alltoallv), on every rank and on rank 0 only;
 * - a user op freed and a non-commutative one created (MPI may hand out the
 *   same handle) between two MPI_Reduce_scatter_block calls: the second must
 *   not run the first one's cached plan;
 * - MPI_Alltoallv in place where rank 0 describes its blocks as 2 x MPI_INT
 *   and the others as 1 x contiguous(2, MPI_INT), also with all counts 0;
 * - at np 1: MPI_Alltoall of one item of 2049 MiB on MPI_COMM_SELF
 *   (MPI_Type_size says MPI_UNDEFINED), calloc'd, sampled (skipped where
 *   memory is short).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../memavail.h"

static int rank, size;

/* One int at the absolute address of p, extent one int. */
static MPI_Datatype abs_int(const void *p)
{
    MPI_Aint at;
    int one = 1;
    MPI_Datatype t, r;
    MPI_Get_address(p, &at);
    CHECK_MPI(MPI_Type_create_hindexed(1, &one, &at, MPI_INT, &t));
    CHECK_MPI(MPI_Type_create_resized(t, at, (MPI_Aint)sizeof(int), &r));
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_commit(&r));
    return r;
}

static void bottom(void)
{
    int *sb = malloc(sizeof(int) * (size_t)size), *rb = malloc(sizeof(int) * (size_t)size);
    int *c = malloc(sizeof(int) * 2 * (size_t)size), *d = c + size;
    for (int only0 = 0; only0 < 2; only0++) {
        int abs = !only0 || rank == 0;
        MPI_Datatype st = abs ? abs_int(sb) : MPI_INT, rt = abs ? abs_int(rb) : MPI_INT;
        void *sp = abs ? MPI_BOTTOM : sb, *rp = abs ? MPI_BOTTOM : rb;
        for (int i = 0; i < size; i++)
            sb[i] = 100 * rank + i + only0, rb[i] = -1, c[i] = 1, d[i] = i;
        CHECK_MPI(MPI_Alltoall(sp, 1, st, rp, 1, rt, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++)
            check_value("MPI_Alltoall MPI_BOTTOM", s, 100 * s + rank + only0, rb[s]);
        for (int i = 0; i < size; i++)
            sb[i] += 7, rb[i] = -1;
        CHECK_MPI(MPI_Alltoallv(sp, c, d, st, rp, c, d, rt, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++)
            check_value("MPI_Alltoallv MPI_BOTTOM", s, 100 * s + rank + only0 + 7, rb[s]);
        if (abs) {
            MPI_Type_free(&st);
            MPI_Type_free(&rt);
        }
    }
    free(sb), free(rb), free(c);
}

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* inout = in op inout with a op b = a: the result is rank 0's input. */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

static void recycled_op(void)
{
    int *sb = malloc(sizeof(int) * (size_t)size), rb = -1;
    MPI_Op op;
    for (int i = 0; i < size; i++)
        sb[i] = 10 * rank + i + 1;
    CHECK_MPI(MPI_Op_create(sum_fn, 1, &op));
    CHECK_MPI(MPI_Reduce_scatter_block(sb, &rb, 1, MPI_INT, op, MPI_COMM_WORLD));
    check_value("MPI_Reduce_scatter_block commutative sum", 0,
                10LL * size * (size - 1) / 2 + (long long)size * (rank + 1), rb);
    MPI_Op_free(&op);
    CHECK_MPI(MPI_Op_create(first_fn, 0, &op));
    rb = -1;
    CHECK_MPI(MPI_Reduce_scatter_block(sb, &rb, 1, MPI_INT, op, MPI_COMM_WORLD));
    check_value("MPI_Reduce_scatter_block non-commutative op", 0, rank + 1, rb);
    MPI_Op_free(&op);
    free(sb);
}

static void inplace_types(void)
{
    MPI_Datatype pair;
    int *buf = malloc(sizeof(int) * 2 * (size_t)size), *c = malloc(sizeof(int) * 2 * (size_t)size);
    int *d = c + size;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    for (int zero = 0; zero < 2; zero++) {
        int unit = rank == 0 ? 2 : 1;
        for (int i = 0; i < size; i++) {
            c[i] = zero ? 0 : unit;
            d[i] = i * unit;
            buf[2 * i] = 1000 * rank + 2 * i, buf[2 * i + 1] = 1000 * rank + 2 * i + 1;
        }
        CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, c, d,
                                rank == 0 ? MPI_INT : pair, MPI_COMM_WORLD));
        for (int s = 0; s < size; s++)
            for (int k = 0; k < 2; k++)
                check_value(zero ? "MPI_Alltoallv in place, counts 0" : "MPI_Alltoallv in place",
                            2 * s + k, zero ? 1000 * rank + 2 * s + k : 1000 * s + 2 * rank + k,
                            buf[2 * s + k]);
    }
    MPI_Type_free(&pair);
    free(buf), free(c);
}

static void huge_item(void)
{
    const size_t mib = (size_t)1 << 20, len = 2049 * mib;
    const size_t at[] = {0, 1, (size_t)INT32_MAX - 1, (size_t)INT32_MAX, (size_t)INT32_MAX + 1,
                         len - 1};
    MPI_Datatype m, item;
    if (size != 1)
        return;
    if (mem_available() < (6LL << 30)) {
        printf("dropin_edges: the 2049 MiB item skipped: under 6 GiB of memory available\n");
        return;
    }
    unsigned char *sb = calloc(len, 1), *rb = calloc(len, 1);
    if (sb && rb) {
        CHECK_MPI(MPI_Type_contiguous(1 << 20, MPI_BYTE, &m));
        CHECK_MPI(MPI_Type_contiguous(2049, m, &item));
        CHECK_MPI(MPI_Type_commit(&item));
        for (int k = 0; k < 6; k++)
            sb[at[k]] = (unsigned char)(13 * k + 1);
        CHECK_MPI(MPI_Alltoall(sb, 1, item, rb, 1, item, MPI_COMM_SELF));
        for (int k = 0; k < 6; k++)
            check_value("MPI_Alltoall one 2049 MiB item", k, sb[at[k]], rb[at[k]]);
        MPI_Type_free(&m);
        MPI_Type_free(&item);
    }
    free(sb), free(rb);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv, &rank, &size);
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoall MPI_Alltoallv MPI_Reduce_scatter_block\n");
    bottom();
    recycled_op();
    inplace_types();
    huge_item();
    int rc = check_finish("dropin_edges");
    MPI_Finalize();
    return rc;
}
