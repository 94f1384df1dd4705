/*
 * Resident memory of this process (Linux): the peak since a reset.  Writing
 * "5" to /proc/self/clear_refs sets the peak (VmHWM) back to the current
 * resident size (VmRSS); /proc/self/status shows both in KiB.  What an MPI
 * call allocates and touches inside the MPI raises the peak, so the growth
 * over one call measures the memory the call needed -- to the page, and
 * only pages touched for the first time: a heap block reused from earlier
 * calls does not show, pools the MPI makes on first use do.  Elsewhere, or
 * where the file cannot be written, there is no measurement (-1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* A "Name:   123 kB" line of /proc/self/status in bytes, or -1. */
static long long status_bytes(const char *name)
{
    char line[256];
    size_t n = strlen(name);
    long long v = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (v < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, name, n) == 0 && line[n] == ':')
            v = strtoll(line + n + 1, NULL, 10) * 1024;
    fclose(f);
    return v;
}

long long bench_rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok = f && fputs("5", f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? status_bytes("VmRSS") : -1;
}

long long bench_rss_peak(void)
{
    return status_bytes("VmHWM");
}
