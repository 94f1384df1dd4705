/*
 * MemAvailable from /proc/meminfo in bytes (-1 when unknown): the tests
 * whose buffers pass 2 GiB skip themselves, with a message, where memory is
 * short.  Shared by the MPI tests (tests/mpi) and the drop-in tests
 * (tests/dropin), which link nothing in common.
 */
#ifndef PCOLL_TESTS_MEMAVAIL_H
#define PCOLL_TESTS_MEMAVAIL_H

#include <stdio.h>

static inline long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

#endif
