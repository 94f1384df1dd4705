/*
 * In-place alltoallv: its cost model, and the choice between it and
 * pairwise exchange for the standard MPI_IN_PLACE alltoallv (send layout =
 * receive layout on every rank).
 *
 * With equal layouts no receive set has free space until its own block has
 * left, so every item goes through an aux buffer: a pair moves at most a/b
 * items per phase, the b buffers together at most a bytes.  Phases:
 *     P = max(ceil(total / (min(b, peers) a/b)), ceil(maxblock / (a/b)))
 * each with a request exchange of 2 messages per peer; every byte is sent
 * once and copied once (aux to place):
 *     T_inplace = P 2 peers alpha + total (beta + gamma).
 * Pairwise exchange (alltoall's `pairwise`, in place) needs one block of
 * scratch: T_pairwise = (p - 1) (alpha + maxblock (beta + gamma)).
 *
 * Rule: in place when the largest block is larger than pcoll_aux_bytes (the
 * memory the user grants the in-place algorithm, default 1 MiB: pairwise's
 * scratch would exceed it), otherwise the smaller predicted time.
 */
#include "alltoallv/inplace/inplace.h"

/* a and b as the algorithm will use them. */
static void aux_of(const pcoll__opts_t *opts, int p, double *a, double *b)
{
    *a = (double)(opts->aux_bytes ? opts->aux_bytes : PCOLL__IP_AUX_BYTES);
    *b = opts->aux_buffers ? opts->aux_buffers : (p / 8 > 1 ? p / 8 : 1);
}

/* ceil(x / y) for x >= 0, y >= 1 */
static double ceil_div(double x, double y)
{
    double q = (double)(long long)(x / y);
    return q * y < x ? q + 1 : q;
}

double pcoll__alltoallv_inplace_cost(const pcoll__cost_t *c, int p, int peers, long long maxblock,
                                     long long total, const pcoll__opts_t *opts)
{
    double a, b, per_buffer, used, phases, by_block;
    aux_of(opts, p, &a, &b);
    per_buffer = a / b > 1 ? a / b : 1;
    used = (b < peers ? b : peers) * per_buffer;
    phases = ceil_div((double)total, used > 1 ? used : 1);
    by_block = ceil_div((double)maxblock, per_buffer);
    phases = phases > by_block ? phases : by_block;
    phases = phases > 1 ? phases : 1;
    return phases * 2.0 * peers * c->alpha + (double)total * (c->beta + c->gamma);
}

int pcoll__alltoallv_inplace_preferred(const pcoll__cost_t *c, int p, int peers, long long maxblock,
                                       long long total, const pcoll__opts_t *opts)
{
    double a, b, pairwise;
    aux_of(opts, p, &a, &b);
    if ((double)maxblock > a)
        return 1;
    pairwise = (p - 1) * (c->alpha + (double)maxblock * (c->beta + c->gamma));
    return pcoll__alltoallv_inplace_cost(c, p, peers, maxblock, total, opts) < pairwise;
}
