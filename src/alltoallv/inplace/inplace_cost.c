/*
 * In-place alltoallv: its cost model, and the choice between it and the
 * MPI's own in-place alltoallv (or pairwise exchange) for the standard
 * MPI_IN_PLACE alltoallv, where the send layout is the receive layout on
 * every rank, so the engine runs the swap of inplace_swap.c.
 *
 * The swap: R pairing rounds (p - 1, or p for odd p), `lanes` k of them at
 * once, each pair's block in chunks of h bytes through `depth` aux buffers
 * (pcoll__ip_swap_choose: the plan's own rule).  A lane is a chain of
 * chunks, each a message of latency alpha, the k lanes' messages of a step
 * in flight together (each beyond the first costs c->port alpha, as in a
 * round of several ports); the copy out of an aux buffer overlaps the next
 * chunk's transfer when depth is 2, so only the last one shows:
 *     steps  = ceil(R / k) ceil(maxblock / h),  step = alpha (1 + (k-1) port)
 *     moved  = total (p - 1) / p      (a rank's own block stays in place)
 *     T_swap = steps step + moved beta + h gamma         (depth 2)
 *              steps step + moved (beta + gamma)          (depth 1)
 * The MPI's in-place alltoallv (MPICH and Open MPI alike) and pcoll's
 * pairwise exchange run p - 1 steps, each copying its block into a scratch
 * block and exchanging it, nothing overlapped:
 *     T_mpi  = (p - 1) (alpha + maxblock (beta + gamma)).
 * Measured (docs/notes.md, one 16-core node, 1% aux): the
 * swap takes 0.62-0.89 of the MPI's time from 16 MiB per rank, 1.4-2.0x at
 * 1 MiB; the model puts the crossover between the two (np 16: 1.23x at
 * 1 MiB, 0.71x at 16 MiB).
 *
 * Rule: in place when the user set pcoll_aux_bytes and the largest block
 * exceeds it (the scratch block would exceed the memory the user allows),
 * else when T_swap (1 + margin) < T_mpi, aux = pcoll_aux_bytes or its
 * default; both agreed at init (the smallest setting of any rank, as the
 * swap's plan takes the smallest aux memory of all ranks).
 */
#include "alltoallv/inplace/inplace.h"
#include "patterns/pairing.h"

/* ceil(x / y) for x >= 0, y >= 1 */
static double ceil_div(double x, double y)
{
    double q = (double)(long long)(x / y);
    return q * y < x ? q + 1 : q;
}

double pcoll__alltoallv_inplace_cost(const pcoll__cost_t *c, int p, long long maxblock,
                                     long long total, long long aux)
{
    int rounds = pcoll__pairing_rounds(p > 0 ? p : 1);
    pcoll__ip_swap_t sw = {0};
    double steps, step, copy, moved = (double)total * (p - 1) / (p > 0 ? p : 1);
    if (maxblock <= 0)
        return 0.0;
    pcoll__ip_swap_choose(&sw, rounds, aux > 0 ? aux : PCOLL__IP_AUX_BYTES, maxblock, 1);
    if (sw.chunk < 1)
        sw.chunk = 1;
    steps = ceil_div(rounds, sw.lanes) * ceil_div((double)maxblock, (double)sw.chunk);
    step = c->alpha * (1.0 + (sw.lanes - 1) * (c->port > 0 ? c->port : 0.0));
    copy = sw.depth > 1 ? (double)sw.chunk : moved;
    return steps * step + moved * c->beta + copy * c->gamma;
}

int pcoll__alltoallv_inplace_preferred(const pcoll__cost_t *c, int p, long long maxblock,
                                       long long total, long long aux)
{
    double mpi;
    if (aux > 0 && maxblock > aux)
        return 1;
    mpi = (p - 1) * (c->alpha + (double)maxblock * (c->beta + c->gamma));
    return pcoll__alltoallv_inplace_cost(c, p, maxblock, total, aux) * (1.0 + c->margin) < mpi;
}
