/*
 * --plot: run tools/pcoll-plot.py on the CSV.  The python is $PCOLL_PYTHON
 * (the Makefile points it at .venv, where `make plot-deps` installs
 * matplotlib), else python3; the script is $PCOLL_PLOT_SCRIPT, else the
 * source tree's (PCOLL_BENCH_PLOT_SCRIPT, set by CMake).
 */
#include <stdlib.h>

#include "bench.h"

#ifndef PCOLL_BENCH_PLOT_SCRIPT
#define PCOLL_BENCH_PLOT_SCRIPT "tools/pcoll-plot.py"
#endif

/* $name if set and not empty, else fallback. */
static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && v[0] ? v : fallback;
}

int bench_plot(const char *csv, const char *png)
{
    char *argv[] = {(char *)env_or("PCOLL_PYTHON", "python3"),
                    (char *)env_or("PCOLL_PLOT_SCRIPT", PCOLL_BENCH_PLOT_SCRIPT), (char *)csv,
                    (char *)png, NULL};
    int status = bench_spawn(argv, NULL);
    if (status == 0)
        return 0;
    fprintf(stderr, "pcoll-bench: no plot: `%s %s %s %s` exited with status %d (matplotlib "
            "missing? `make plot-deps` installs it into .venv; set PCOLL_PYTHON to that "
            "python)\n", argv[0], argv[1], csv, png, status);
    return -1;
}
