/*
 * The circulant pattern of Träff's reduce-scatter ("Optimal, Non-pipelined
 * Reduce-scatter and Allreduce Algorithms", 2025): skips s_q = p,
 * s_k = ceil(s_(k+1) / 2), ..., s_0 = 1, with q = ceil(log2 p).  In the round
 * from window S = s_(k+1) to s = s_k every rank i sends S - s blocks to
 * i + s and receives from i - s (mod p); over all q rounds that is
 * s_q - s_0 = p - 1 blocks.
 *
 * Radix r > 2 (pcoll's multi-port form, as radix-r Bruck generalizes Bruck):
 * s_k = ceil(s_(k+1) / r), q = ceil(log_r p) rounds, and in each round port
 * j = 1..r-1 sends the window's blocks [j s, min((j+1) s, S)) to i + j s.
 * Still p - 1 blocks in all.  MPI-free header math.
 */
#ifndef PCOLL_PATTERNS_CIRCULANT_H
#define PCOLL_PATTERNS_CIRCULANT_H

/* Rounds for p ranks at radix r >= 2: ceil(log_r p) (0 for p <= 1). */
static inline int pcoll__circulant_rounds(int p, int r)
{
    int q = 0;
    while (p > 1) {
        p = (p + r - 1) / r;
        q++;
    }
    return q;
}

/* Skip k (0 <= k <= rounds): skip[rounds] = p, divided by r (rounding up)
 * down to skip[0] = 1. */
static inline int pcoll__circulant_skip(int p, int r, int k)
{
    int s = p, j;
    for (j = pcoll__circulant_rounds(p, r); j > k; j--)
        s = (s + r - 1) / r;
    return s;
}

/* Blocks port j (1 <= j < r) moves in the round from window S to s. */
static inline int pcoll__circulant_port(int S, int s, int j)
{
    long long left = (long long)S - (long long)j * s;
    return left <= 0 ? 0 : left < s ? (int)left : s;
}

#endif
