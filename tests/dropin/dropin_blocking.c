/*
 * The blocking collectives through the drop-in: MPI_Alltoall, MPI_Alltoallv,
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block (and their large-count forms
 * where the MPI has them), on the world and a reversed communicator, in
 * place, with derived types, negative displacements, a non-commutative op,
 * repeated calls (the plan cache) with new input; and one alltoall on an
 * intercommunicator (pcoll's `inter`: dropin_intercomm.c).
 */
#include <string.h>

#include "check.h"

static int rank, size;

/* ---- alltoall ---------------------------------------------------------------------- */

static int a2a_value(int from, int to, int k, int round)
{
    return from * 1000 + to * 10 + k + round * 100000;
}

static void alltoall(MPI_Comm comm, int n, int round, int inplace)
{
    int me, p, i, k, *send = malloc(sizeof(int) * (size_t)(n * size + 1));
    int *recv = malloc(sizeof(int) * (size_t)(n * size + 1));
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < p; i++)
        for (k = 0; k < n; k++) {
            send[i * n + k] = a2a_value(me, i, k, round);
            recv[i * n + k] = -1;
        }
    if (inplace) {
        memcpy(recv, send, sizeof(int) * (size_t)(n * p));
        CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm));
    } else {
        CHECK_MPI(MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, comm));
    }
    for (i = 0; i < p; i++)
        for (k = 0; k < n; k++)
            check_value("alltoall", i * n + k, a2a_value(i, me, k, round), recv[i * n + k]);
    free(send);
    free(recv);
}

/* Send blocks as pairs (a contiguous type), receive as ints. */
static void alltoall_derived(MPI_Comm comm)
{
    MPI_Datatype pair;
    int i, k, n = 4, *send = malloc(sizeof(int) * (size_t)(n * size));
    int *recv = malloc(sizeof(int) * (size_t)(n * size));
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            send[i * n + k] = a2a_value(rank, i, k, 7), recv[i * n + k] = -1;
    CHECK_MPI(MPI_Alltoall(send, n / 2, pair, recv, n, MPI_INT, comm));
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            check_value("alltoall derived", i * n + k, a2a_value(i, rank, k, 7), recv[i * n + k]);
    MPI_Type_free(&pair);
    free(send);
    free(recv);
}

/* ---- alltoallv ----------------------------------------------------------------------- */

/* Items rank `from` sends to rank `to`. */
static int v_count(int from, int to)
{
    return (from + 2 * to) % 4;
}

/* Counts and packed displacements (one item of gap between blocks) of this
 * rank, as sender (send = 1) or receiver. */
static int v_layout(int me, int p, int send, int *counts, int *displs)
{
    int i, at = 0;
    for (i = 0; i < p; i++) {
        counts[i] = send ? v_count(me, i) : v_count(i, me);
        displs[i] = at;
        at += counts[i] + 1;
    }
    return at;
}

/* shift: the send buffer is addressed from its end (negative displacements). */
static void alltoallv(MPI_Comm comm, int round, int shift)
{
    int me, p, i, k, *sc, *sd, *rc, *rd, slen, rlen, *send, *recv;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    sc = malloc(sizeof(int) * 4 * (size_t)p);
    sd = sc + p, rc = sc + 2 * p, rd = sc + 3 * p;
    slen = v_layout(me, p, 1, sc, sd);
    rlen = v_layout(me, p, 0, rc, rd);
    send = malloc(sizeof(int) * (size_t)(slen + 1));
    recv = malloc(sizeof(int) * (size_t)(rlen + 1));
    for (i = 0; i < p; i++)
        for (k = 0; k < sc[i]; k++)
            send[sd[i] + k] = a2a_value(me, i, k, round);
    for (i = 0; i < rlen; i++)
        recv[i] = -1;
    if (shift)
        for (i = 0; i < p; i++)
            sd[i] -= slen;
    CHECK_MPI(MPI_Alltoallv(shift ? send + slen : send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT,
                            comm));
    for (i = 0; i < p; i++)
        for (k = 0; k < rc[i]; k++)
            check_value("alltoallv", rd[i] + k, a2a_value(i, me, k, round), recv[rd[i] + k]);
    free(sc);
    free(send);
    free(recv);
}

/* In place: every pair exchanges the same counts (symmetric v_count). */
static void alltoallv_inplace(MPI_Comm comm)
{
    int i, k, *c = malloc(sizeof(int) * 2 * (size_t)size), *d = c + size, at = 0, *buf;
    for (i = 0; i < size; i++) {
        c[i] = (rank + i) % 3 + 1;
        d[i] = at;
        at += c[i];
    }
    buf = malloc(sizeof(int) * (size_t)at);
    for (i = 0; i < size; i++)
        for (k = 0; k < c[i]; k++)
            buf[d[i] + k] = a2a_value(rank, i, k, 3);
    CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, c, d, MPI_INT,
                            comm));
    for (i = 0; i < size; i++)
        for (k = 0; k < c[i]; k++)
            check_value("alltoallv in place", d[i] + k, a2a_value(i, rank, k, 3), buf[d[i] + k]);
    free(c);
    free(buf);
}

/* ---- reduce-scatter -------------------------------------------------------------------- */

static int rs_count(int i)
{
    return i % 3 + 1;
}

/* The "left" op: in op inout = in, associative but not commutative, so the
 * result is rank 0's input. */
static void left(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

static void reduce_scatter(MPI_Comm comm, int inplace, MPI_Op op, int round)
{
    int i, me, total = 0, first = 0, *counts = malloc(sizeof(int) * (size_t)size), *send, *recv;
    int commutes = op == MPI_SUM;
    MPI_Comm_rank(comm, &me);
    for (i = 0; i < size; i++) {
        counts[i] = rs_count(i);
        first += i < me ? counts[i] : 0;
        total += counts[i];
    }
    send = malloc(sizeof(int) * (size_t)total);
    recv = malloc(sizeof(int) * (size_t)total);
    for (i = 0; i < total; i++)
        send[i] = me + i + round, recv[i] = -1;
    if (inplace) {
        memcpy(recv, send, sizeof(int) * (size_t)total);
        CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, recv, counts, MPI_INT, op, comm));
    } else {
        CHECK_MPI(MPI_Reduce_scatter(send, recv, counts, MPI_INT, op, comm));
    }
    for (i = 0; i < counts[me]; i++) {
        long long e = first + i + round;
        check_value(commutes ? "reduce_scatter sum" : "reduce_scatter left", i,
                    commutes ? size * e + (long long)size * (size - 1) / 2 : e, recv[i]);
    }
    free(counts);
    free(send);
    free(recv);
}

static void reduce_scatter_block(MPI_Comm comm, int n, int inplace)
{
    int i, total = n * size;
    double *send = malloc(sizeof(double) * (size_t)(total + 1));
    double *recv = malloc(sizeof(double) * (size_t)(total + 1));
    for (i = 0; i < total; i++)
        send[i] = rank * 0.5 + i, recv[i] = -1;
    if (inplace) {
        memcpy(recv, send, sizeof(double) * (size_t)total);
        CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, n, MPI_DOUBLE, MPI_SUM, comm));
    } else {
        CHECK_MPI(MPI_Reduce_scatter_block(send, recv, n, MPI_DOUBLE, MPI_SUM, comm));
    }
    for (i = 0; i < n; i++)
        check_value("reduce_scatter_block", i,
                    (long long)(2 * (size * (double)(rank * n + i) + 0.25 * size * (size - 1))),
                    (long long)(2 * recv[i]));
    free(send);
    free(recv);
}

/* ---- large-count forms --------------------------------------------------------------------- */

#if MPI_VERSION >= 4
static void large_count_forms(MPI_Comm comm)
{
    MPI_Count *c = malloc(sizeof(MPI_Count) * 2 * (size_t)size), *rcnt = c + size;
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * 2 * (size_t)size), *rd = d + size;
    int i, *send = malloc(sizeof(int) * 2 * (size_t)size), *recv = send + size;
    for (i = 0; i < size; i++) {
        send[i] = a2a_value(rank, i, 0, 9), recv[i] = -1;
        c[i] = rcnt[i] = 1, d[i] = rd[i] = i;
    }
    CHECK_MPI(MPI_Alltoall_c(send, 1, MPI_INT, recv, 1, MPI_INT, comm));
    for (i = 0; i < size; i++)
        check_value("alltoall_c", i, a2a_value(i, rank, 0, 9), recv[i]);
    for (i = 0; i < size; i++)
        recv[i] = -1;
    CHECK_MPI(MPI_Alltoallv_c(send, c, d, MPI_INT, recv, rcnt, rd, MPI_INT, comm));
    for (i = 0; i < size; i++)
        check_value("alltoallv_c", i, a2a_value(i, rank, 0, 9), recv[i]);
    for (i = 0; i < size; i++)
        send[i] = rank + i;
    CHECK_MPI(MPI_Reduce_scatter_c(send, recv, c, MPI_INT, MPI_SUM, comm));
    check_value("reduce_scatter_c", 0, size * rank + size * (size - 1) / 2, recv[0]);
    CHECK_MPI(MPI_Reduce_scatter_block_c(send, recv, 1, MPI_INT, MPI_SUM, comm));
    check_value("reduce_scatter_block_c", 0, size * rank + size * (size - 1) / 2, recv[0]);
    free(c);
    free(d);
    free(send);
}
#endif

/* ---- an intercommunicator ------------------------------------------------------------------- */

static void intercomm_alltoall(void)
{
    MPI_Comm half, inter;
    int color = rank % 2, me, remote, j, *send, *recv;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    MPI_Comm_rank(half, &me);
    MPI_Comm_remote_size(inter, &remote);
    send = malloc(sizeof(int) * 2 * (size_t)remote);
    recv = send + remote;
    /* Local rank l of group c is world rank 2l + c. */
    for (j = 0; j < remote; j++)
        send[j] = rank * 100 + j, recv[j] = -1;
    CHECK_MPI(MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, inter));
    for (j = 0; j < remote; j++)
        check_value("intercomm alltoall", j, (2 * j + 1 - color) * 100 + me, recv[j]);
    free(send);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Comm reversed;
    MPI_Op left_op;
    int round, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Op_create(left, 0, &left_op);
    for (round = 0; round < 3; round++) {
        alltoall(MPI_COMM_WORLD, 3, round, 0);
        alltoall(reversed, 1, round, 0);
        alltoallv(MPI_COMM_WORLD, round, 0);
        reduce_scatter(MPI_COMM_WORLD, 0, MPI_SUM, round);
    }
    alltoall(MPI_COMM_WORLD, 0, 0, 0);
    alltoall(MPI_COMM_WORLD, 2, 0, 1);
    alltoall_derived(MPI_COMM_WORLD);
    alltoallv(reversed, 5, 1);
    alltoallv_inplace(MPI_COMM_WORLD);
    reduce_scatter(MPI_COMM_WORLD, 1, MPI_SUM, 4);
    reduce_scatter(reversed, 0, left_op, 0);
    reduce_scatter_block(MPI_COMM_WORLD, 3, 0);
    reduce_scatter_block(MPI_COMM_WORLD, 2, 1);
#if MPI_VERSION >= 4
    large_count_forms(MPI_COMM_WORLD);
#endif
#ifndef SMPI_H /* SimGrid's SMPI 3.32 has no MPI_Intercomm_create */
    if (size >= 2)
        intercomm_alltoall();
#endif
    MPI_Op_free(&left_op);
    MPI_Comm_free(&reversed);
    if (rank == 0)
        printf("dropin-expect: MPI_Alltoall MPI_Alltoallv MPI_Reduce_scatter "
               "MPI_Reduce_scatter_block\n");
    rc = check_finish("dropin_blocking");
    MPI_Finalize();
    return rc;
}
