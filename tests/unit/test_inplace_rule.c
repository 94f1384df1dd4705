/*
 * Unit test of the choice for MPI_IN_PLACE alltoallv between the in-place
 * engine's swap and the MPI's own in-place call
 * (src/alltoallv/inplace/inplace_cost.c), with the default cost parameters,
 * at the cells measured on one 16-core node (docs/notes.md, "Equal
 * layouts"): the swap lost at 1 MiB per rank (1.4-2.0x) and won from
 * 16 MiB (0.62-0.89x).  A pcoll_aux_bytes smaller than the largest block
 * forces the engine (the MPI's scratch block would exceed it), and the model
 * follows the plan's own lanes and chunks.
 */
#include <stdio.h>

#include "alltoallv/inplace/inplace.h"

static int passed, failed;

static void expect(int p, long long per_rank, long long aux, int want)
{
    pcoll__cost_t c = pcoll__cost_for(1, 1, 1);
    c.port = PCOLL__COST_PORT_NODE;
    long long block = per_rank / p;
    int got = pcoll__alltoallv_inplace_preferred(&c, p, block, per_rank, aux);
    if (got == want) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL p %d, %lld B per rank, aux %lld: %s, want %s (swap %.1f us)\n", p, per_rank,
           aux, got ? "in place" : "MPI", want ? "in place" : "MPI",
           1e6 * pcoll__alltoallv_inplace_cost(&c, p, block, per_rank, aux));
}

int main(void)
{
    const long long MiB = 1 << 20;
    pcoll__cost_t c = pcoll__cost_for(1, 1, 1);
    /* aux left to its default (1 MiB): by time */
    expect(2, MiB, 0, 0);
    expect(2, 16 * MiB, 0, 1);
    expect(2, 64 * MiB, 0, 1);
    expect(16, 16 * MiB, 0, 1);
    expect(16, 64 * MiB, 0, 1);
    /* 1% aux set: the largest block exceeds it, in place whatever the time */
    expect(16, MiB, MiB / 100, 1);
    expect(2, MiB, MiB / 100, 1);
    /* aux set above the largest block: by time again */
    expect(2, MiB, 2 * MiB, 0);
    /* nothing to move costs nothing */
    if (pcoll__alltoallv_inplace_cost(&c, 16, 0, 0, 0) == 0.0)
        passed++;
    else
        failed++, printf("FAIL empty exchange has a cost\n");
    printf("inplace rule: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
