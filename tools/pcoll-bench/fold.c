/*
 * Folded buffers for simulation at scale (bench.h).  Under SimGrid's SMPI
 * every simulated rank lives in one process, so P ranks' buffers of P blocks
 * need P^2 blocks of memory.  PCOLL_BENCH_FOLD=1 (simulated build only;
 * ignored elsewhere) gives the collectives' data buffers from
 * SMPI_SHARED_MALLOC (PCOLL_BENCH_FOLD=N: sizes of N bytes and more only,
 * so that a smaller size is still checked): one memory mapped under every rank, whose bytes are
 * meaningless and which SMPI does not copy when a message goes from one
 * folded buffer to another.  The time of a call is the same (SMPI charges
 * messages, not their bytes); a folded case's output cannot be checked, so
 * its rows are reported "folded" instead of "ok" (check a small size
 * unfolded).  pcoll's own scratch memory is not folded.
 */
#include <stdlib.h>

#include "bench.h"

/* SMPI_SHARED_MALLOC exists where SimGrid's mpi.h is included. */
#ifdef SMPI_SHARED_MALLOC
#define BENCH_CAN_FOLD 1
#else
#define BENCH_CAN_FOLD 0
#endif

int bench_fold(long size)
{
    const char *e = getenv("PCOLL_BENCH_FOLD");
    char *end;
    long from;
    if (!BENCH_CAN_FOLD || !e || !*e)
        return 0;
    from = strtol(e, &end, 10);
    return *end == '\0' && from > 0 && size >= from;
}

void *bench_big_alloc(int fold, size_t bytes)
{
#if BENCH_CAN_FOLD
    if (fold)
        return SMPI_SHARED_MALLOC(bytes + 1);
#endif
    (void)fold;
    return malloc(bytes + 1); /* + 1: malloc(0) may return NULL */
}

void bench_big_free(int fold, void *p)
{
#if BENCH_CAN_FOLD
    if (fold && p) {
        SMPI_SHARED_FREE(p);
        return;
    }
#endif
    (void)fold;
    free(p);
}
