/*
 * In-place alltoallv: its cost model, and the choice between it and
 * pairwise exchange for the standard MPI_IN_PLACE alltoallv (send layout =
 * receive layout on every rank).
 *
 * The model prices the grant engine; with equal layouts the engine now runs
 * the grant-free swap of inplace_swap.c instead (fewer messages, no slot
 * round trips), so T_inplace below over-estimates it and the rule errs
 * toward pairwise.
 *
 * With equal layouts R_j holds S_j, so a pair swaps its blocks: the first
 * slot's worth of j's items goes to an aux slot, and once our own items
 * have left, the room they free takes the next items directly and the slot
 * drains (inplace_phase.c).  Per rank every byte is sent once and received
 * once, half of them through a slot (copied once more), in transfers of a
 * slot's size s = a/k (k slots, inplace_aux.c) or of a whole block if
 * smaller; each transfer costs a grant and a data message, and the k slots
 * keep k transfers in flight:
 *     transfers X = sum over peers of ceil(block / s), at most
 *                   peers + total / s
 *     T_inplace = (X / min(k, peers)) 2 alpha + total (beta + gamma / 2).
 * The paper's static scheme (b buffers, peer j only in buffer j mod b, one
 * request exchange with every peer per phase) costs
 *     phases P = max(ceil(total / (min(b, peers) a/b)), ceil(maxblock / (a/b)))
 *     T_static = P 2 peers alpha + total (beta + gamma),
 * kept here for the comparison in docs/inplace-alltoallv.md; the engine
 * runs the slots, which are never costlier (X <= P peers, and the copies
 * are fewer).
 * Pairwise exchange (alltoall's `pairwise`, in place) needs one block of
 * scratch: T_pairwise = (p - 1) (alpha + maxblock (beta + gamma)).
 *
 * Rule: in place when the largest block is larger than pcoll_aux_bytes (the
 * memory the user grants the in-place algorithm, default 1 MiB: pairwise's
 * scratch would exceed it), otherwise the smaller predicted time.
 */
#include "alltoallv/inplace/inplace.h"

/* a, and the slots the engine makes of it (inplace_aux.c, for 1-byte
 * items: the model does not know the type). */
static void aux_of(const pcoll__opts_t *opts, int p, double *a, double *k)
{
    pcoll__opts_t o = *opts;
    long long cap = 0;
    int nbuf = 1;
    *a = (double)(opts->aux_bytes ? opts->aux_bytes : PCOLL__IP_AUX_BYTES);
    if (pcoll__ip_aux_config(p > 0 ? p : 1, 1, &o, "cost", &nbuf, &cap) != PCOLL_SUCCESS)
        nbuf = 1;
    *k = nbuf > 0 ? nbuf : 1;
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
    double a, k, slot, transfers, flight;
    aux_of(opts, p, &a, &k);
    slot = a / k > 1 ? a / k : 1;
    transfers = peers + ceil_div((double)total, slot);
    flight = k < peers ? k : peers;
    flight = flight > 1 ? flight : 1;
    (void)maxblock;
    return transfers / flight * 2.0 * c->alpha + (double)total * (c->beta + c->gamma / 2);
}

int pcoll__alltoallv_inplace_preferred(const pcoll__cost_t *c, int p, int peers, long long maxblock,
                                       long long total, const pcoll__opts_t *opts)
{
    double a, k, pairwise;
    aux_of(opts, p, &a, &k);
    if ((double)maxblock > a)
        return 1;
    pairwise = (p - 1) * (c->alpha + (double)maxblock * (c->beta + c->gamma));
    return pcoll__alltoallv_inplace_cost(c, p, peers, maxblock, total, opts) < pairwise;
}
