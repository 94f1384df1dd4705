/*
 * alltoall `bruck_radix`: radix-r Bruck (multicore paper section II-B).  The
 * distance j of every block is written in base r; step s sends, for every
 * digit value d = 1..r-1 at once (r-1 "ports"), the blocks whose digit s is d
 * to rank i + d r^s.  r = pcoll_radix, or the radix the cost model predicts
 * fastest (model/cost.c); r >= p is a one-step direct exchange.  Engine:
 * bruck_digits.c (rotation, steps, final permutation), which sends each
 * digit's blocks straight out of the receive buffer with one bounded vector
 * and receives them contiguously into one of two alternating buffers.
 *
 * Cost: S = ceil(log_r p) steps of up to r-1 concurrent messages; blocks sent
 * in all: sum over steps and digits of the blocks with that digit (about
 * S (r-1) p / r); local copies: 3p blocks + every received block once.
 * Scratch: max(p, B) + B blocks, B = the most blocks one step receives.
 */
#include "alltoall/bruck.h"
#include "model/cost.h"

int pcoll__alltoall_bruck_radix(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2a_args_t *a = args;
    pcoll__cost_t c = pcoll__cost_params();
    int r = a->opts.radix > 0 ? a->opts.radix
                              : pcoll__cost_best_radix(&c, plan->size, a->blockbytes);
    if (r > plan->size)
        r = plan->size;
    if (r < 2)
        r = 2;
    return pcoll__bruck_digits(plan, a, r, pcoll__bruck_set_bounded);
}
