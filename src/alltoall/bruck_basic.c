/*
 * alltoall `bruck_basic` and `bruck_basic_ix`: Basic Bruck (zero-copy Bruck
 * paper section 2, Listing 1): rotate, ceil(log2 p) rounds, reverse-rotate.
 * Round k (k = 1, 2, 4, ...) sends the blocks R[j] whose bit k is set to rank
 * i+k and receives the same set from rank i-k into an intermediate buffer,
 * unpacked into R before the next round.  bruck_basic describes the set with
 * a bounded vector (blocks of k every 2k, cut at p), bruck_basic_ix with an
 * MPI indexed type.  Engine: bruck_digits.c with radix 2.
 *
 * Cost (Theorem 1): ceil(log2 p) rounds; at most floor(p/2) blocks sent and
 * received per round, ceil(log2 p) floor(p/2) n bytes in all; local copies:
 * p blocks (rotation) + the unpack of every round + 2p (final permutation).
 * Scratch: max(p, floor(p/2)) + floor(p/2) blocks.  Types per round: one
 * (created at init).  In place: a staged copy of the buffer (p blocks more).
 */
#include "alltoall/bruck.h"

int pcoll__alltoall_bruck_basic(pcoll_plan_t *plan, const void *args)
{
    return pcoll__bruck_digits(plan, args, 2, pcoll__bruck_set_bounded);
}

int pcoll__alltoall_bruck_basic_ix(pcoll_plan_t *plan, const void *args)
{
    return pcoll__bruck_digits(plan, args, 2, pcoll__bruck_set_indexed);
}
