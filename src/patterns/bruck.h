/*
 * Bruck all-to-all pattern math (zero-copy Bruck paper section 2; multicore
 * paper section II-B for radix r).  MPI-free.
 *
 * Rank i keeps a vector R of p blocks.  Radix r: write the distance j of an
 * element in base r; in step s (weight w = r^s) every element whose digit s is
 * d != 0 travels d*w ranks.  The elements of digit d in step s are the blocks
 * j = d*w + m*r*w + t (m >= 0, 0 <= t < w, j < p): blocks of w every r*w
 * starting at d*w, cut at p -- a bounded vector.  Radix 2 is Bruck et al.'s
 * algorithm (one message per step); radix p is a direct exchange.
 */
#ifndef PCOLL_PATTERNS_BRUCK_H
#define PCOLL_PATTERNS_BRUCK_H

/* Steps of radix-r Bruck on p ranks: the number of base-r digits of p-1. */
static inline int pcoll__bruck_steps(int p, int r)
{
    long long w = 1;
    int s = 0;
    while (w < p) {
        w *= r;
        s++;
    }
    return s;
}

/* Number of blocks j < p whose base-r digit at weight w equals d (1 <= d < r). */
static inline int pcoll__bruck_digit_count(int p, int r, long long w, int d)
{
    long long period = w * r, full = p / period, rest = p % period, n = full * w;
    long long lo = d * w;
    if (rest > lo)
        n += (rest - lo < w) ? rest - lo : w;
    return (int)n;
}

/* Number of set bits of j at positions >= the position of bit k (k a power of
 * two); its parity decides where zero-copy Bruck keeps element j. */
static inline int pcoll__bits_from(unsigned j, unsigned k)
{
    unsigned x = j & ~(k - 1u);
    int n = 0;
    while (x) {
        x &= x - 1u;
        n++;
    }
    return n;
}

#endif
