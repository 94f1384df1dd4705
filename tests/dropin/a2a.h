/*
 * An alltoall of n ints per block for the drop-in tests, with closed-form
 * values: element k of the block that rank `from` sends to rank `to` in
 * round `round`.  The including file defines `rank` and `size` (of
 * MPI_COMM_WORLD) before it includes this.
 */
#ifndef PCOLL_TESTS_DROPIN_A2A_H
#define PCOLL_TESTS_DROPIN_A2A_H

#include "check.h"

static int value(int from, int to, int k, int round)
{
    return from * 1000 + to * 10 + k + round * 100000;
}

/* An alltoall of n ints per block: buffers filled and poisoned. */
typedef struct a2a {
    int n, round, *send, *recv;
} a2a_t;

static void a2a_setup(a2a_t *a, int n, int round)
{
    int i, k;
    a->n = n, a->round = round;
    a->send = malloc(sizeof(int) * (size_t)(n * size + 1));
    a->recv = malloc(sizeof(int) * (size_t)(n * size + 1));
    for (i = 0; i < size; i++)
        for (k = 0; k < n; k++)
            a->send[i * n + k] = value(rank, i, k, round), a->recv[i * n + k] = -1;
}

static void a2a_check(a2a_t *a, const char *what)
{
    int i, k;
    for (i = 0; i < size; i++)
        for (k = 0; k < a->n; k++)
            check_value(what, i * a->n + k, value(i, rank, k, a->round), a->recv[i * a->n + k]);
    free(a->send);
    free(a->recv);
}

#endif
