/*
 * Unit tests of the MPI-free pattern math: pairings (patterns/pairing.h).
 * For every p up to 70: each round is an involution (my partner's partner is
 * me), at most one rank idles per round and only when p is odd, and over all
 * rounds every pair of distinct ranks meets exactly once.
 */
#include <stdio.h>
#include <stdlib.h>

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

int main(void)
{
    int p;
    check(pcoll__pairing_rounds(1) == 0, "no rounds for p=1", 1, -1, -1);
    for (p = 2; p <= 70; p++)
        check_pairing(p);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
