/*
 * Unit tests of the MPI-free pattern math: pairings (patterns/pairing.h).
 * For every p up to 70: each round is an involution (my partner's partner is
 * me), at most one rank idles per round and only when p is odd, and over all
 * rounds every pair of distinct ranks meets exactly once.
 *
 * The circulant reduce-scatter (patterns/circulant.h), every p up to 64 and
 * radix 2..p+1: the rounds are ceil(log_r p), the skips end at 1, and the
 * reduce-scatter run on sets of contributors (bit masks) ends with every
 * rank's block holding every rank's input exactly once, each rank sending
 * p-1 blocks in all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "patterns/circulant.h"
#include "patterns/pairing.h"

static int passed, failed;

static void check(int ok, const char *what, int p, int k, int r)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    if (failed < 20)
        printf("FAIL %s: p %d round %d rank %d\n", what, p, k, r);
}

static void check_pairing(int p)
{
    int *met = calloc((size_t)p * p, sizeof *met), k, r, idle;
    for (k = 0; k < pcoll__pairing_rounds(p); k++) {
        idle = 0;
        for (r = 0; r < p; r++) {
            int q = pcoll__pairing_partner(r, p, k);
            int in_range = q >= 0 && q < p;
            check(in_range, "partner in range", p, k, r);
            if (!in_range)
                continue;
            check(pcoll__pairing_partner(q, p, k) == r, "involution", p, k, r);
            if (q == r)
                idle++;
            else
                met[r * p + q]++;
        }
        check(idle == (p % 2 == 1 ? 1 : 0), "idle ranks per round", p, k, -1);
    }
    for (r = 0; r < p * p; r++)
        check(r / p == r % p || met[r] == 1, "every pair meets once", p, -1, r);
    free(met);
}

/* One round of the circulant reduce-scatter on contributor sets: w[i*p+j]
 * is rank i's partial of window offset j.  Returns blocks each rank sent. */
static int circulant_round(int p, int r, int k, uint64_t *w, uint64_t *next)
{
    int S = pcoll__circulant_skip(p, r, k + 1), s = pcoll__circulant_skip(p, r, k);
    int i, j, o, sent = 0;
    for (i = 0; i < p * p; i++)
        next[i] = w[i];
    for (j = 1; j < r; j++) {
        int n = pcoll__circulant_port(S, s, j);
        check(n <= s, "port fits the window left", p, k, j);
        sent += n;
        for (i = 0; i < p && n > 0; i++) /* i receives from i - j s */
            for (o = 0; o < n; o++) {
                uint64_t in = w[((i - j * s % p + p) % p) * p + j * s + o];
                check((next[i * p + o] & in) == 0, "a contribution arrives twice", p, k, i);
                next[i * p + o] |= in;
            }
    }
    for (i = 0; i < p * p; i++)
        w[i] = next[i];
    return sent;
}

static void check_circulant(int p, int r)
{
    uint64_t *w = calloc((size_t)p * p, sizeof *w), *next = calloc((size_t)p * p, sizeof *w);
    uint64_t all = p == 64 ? ~(uint64_t)0 : ((uint64_t)1 << p) - 1;
    int q = pcoll__circulant_rounds(p, r), k, i, sent = 0, want = 0;
    for (i = 1; i < p; i *= r)
        want++;
    check(q == want, "ceil(log_r p) rounds", p, -1, r);
    check(pcoll__circulant_skip(p, r, 0) == 1 && pcoll__circulant_skip(p, r, q) == p,
          "skips from p down to 1", p, -1, r);
    for (i = 0; i < p; i++) /* rank i starts with its own input in every offset */
        for (k = 0; k < p; k++)
            w[i * p + k] = (uint64_t)1 << i;
    for (k = q - 1; k >= 0; k--)
        sent += circulant_round(p, r, k, w, next);
    check(sent == p - 1, "p-1 blocks sent", p, -1, r);
    for (i = 0; i < p; i++)
        check(w[i * p] == all, "every input reaches its block", p, -1, i);
    free(w);
    free(next);
}

int main(void)
{
    int p, r;
    check(pcoll__pairing_rounds(1) == 0, "no rounds for p=1", 1, -1, -1);
    for (p = 2; p <= 70; p++)
        check_pairing(p);
    check(pcoll__circulant_rounds(1, 2) == 0, "no circulant rounds for p=1", 1, -1, -1);
    for (p = 2; p <= 64; p++)
        for (r = 2; r <= p + 1; r++)
            check_circulant(p, r);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
