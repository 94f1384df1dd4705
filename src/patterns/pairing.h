/*
 * Pairings: rounds in which every rank exchanges with one partner, so that
 * over all rounds each pair of ranks meets exactly once (a 1-factorization of
 * the complete graph).  MPI-free header math.
 *
 * - p a power of two: p-1 rounds, partner = rank XOR (k+1).
 * - p even otherwise: p-1 rounds of the round-robin ("circle") tournament on
 *   m = p-1 ranks, rank m taking the place that would pair a rank with itself.
 * - p odd: p rounds, partner = (k - rank) mod p; the rank whose partner is
 *   itself sits the round out.
 */
#ifndef PCOLL_PATTERNS_PAIRING_H
#define PCOLL_PATTERNS_PAIRING_H

static inline int pcoll__is_pow2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

static inline int pcoll__pairing_rounds(int p)
{
    if (p <= 1)
        return 0;
    return (p % 2 == 1) ? p : p - 1;
}

/* Partner of rank in round k (0 <= k < pcoll__pairing_rounds(p)); rank
 * itself means the rank is idle in that round. */
static inline int pcoll__pairing_partner(int rank, int p, int k)
{
    int m = p - 1, partner;
    if (pcoll__is_pow2(p))
        return rank ^ (k + 1);
    if (p % 2 == 1)
        return ((k - rank) % p + p) % p;
    if (rank == m)
        return (int)(((long long)k * ((m + 1) / 2)) % m);
    partner = ((k - rank) % m + m) % m;
    return partner == rank ? m : partner;
}

#endif
