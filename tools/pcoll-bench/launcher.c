/*
 * The MPI launcher, for --native-sweep's relaunches: which one, and an
 * environment cleaned of what the launcher gave this process.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

/* Variables that a launcher gives its processes. */
static int launcher_variable(const char *name)
{
    static const char *const prefixes[] = {
        "PMI_", "PMIX_", "HYDI_", "HYDRA_", "MPI_LOCALNRANKS", "MPI_LOCALRANKID",
        "PRTE_LAUNCHED", "PRTE_SHARED_FS", "OPAL_USER_PARAMS_GIVEN", "OMPI_MCA_PREFIXES",
        "OMPI_MCA_cpu_type", "OMPI_MCA_initial_wdir", "OMPI_MCA_num_procs"};
    size_t i;
    /* Open MPI's OMPI_* except user settings (OMPI_MCA_*, OMPI_ALLOW_*). */
    if (strncmp(name, "OMPI_", 5) == 0 && strncmp(name, "OMPI_MCA_", 9) != 0 &&
        strncmp(name, "OMPI_ALLOW_", 11) != 0)
        return 1;
    for (i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* The name of the first launcher variable in the environment, or 0. */
static int first_launcher_variable(char *name, size_t size)
{
    int i;
    for (i = 0; environ[i]; i++) {
        size_t len = strcspn(environ[i], "=");
        if (len >= size)
            continue;
        snprintf(name, size, "%.*s", (int)len, environ[i]);
        if (launcher_variable(name))
            return 1;
    }
    return 0;
}

/* Remove the launcher's variables from this process's environment. */
void bench_scrub_launcher_env(void)
{
    char name[256];
    while (first_launcher_variable(name, sizeof name))
        unsetenv(name);
}

/* dir/name for the first PATH directory that has an executable name. */
int bench_find_in_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        int len = (int)strcspn(path, ":");
        snprintf(out, size, "%.*s/%s", len ? len : 1, len ? path : ".", name);
        if (access(out, X_OK) == 0)
            return 0;
        path += len + (path[len] == ':');
    }
    return -1;
}

/* The launcher's words: $PCOLL_BENCH_MPIEXEC, else mpiexec from PATH (with a
 * note); their number, or -1 (with a note) when there is none. */
int bench_launcher(bench_run_t *run, char *words, size_t size, char **argv, int max)
{
    const char *env = getenv("PCOLL_BENCH_MPIEXEC");
    char *save = NULL, *w, msg[PATH_MAX + 128];
    int n = 0;
    if (env && env[0])
        snprintf(words, size, "%s", env);
    else if (bench_find_in_path("mpiexec", words, size) == 0) {
        snprintf(msg, sizeof msg, "--native-sweep: PCOLL_BENCH_MPIEXEC is not set, relaunching "
                 "with %s from PATH", words);
        bench_run_note(run, msg);
    } else {
        bench_run_note(run, "--native-sweep impossible: no launcher (PCOLL_BENCH_MPIEXEC is not "
                            "set and there is no mpiexec on PATH); set PCOLL_BENCH_MPIEXEC="
                            "\"/path/to/mpiexec [flags]\"");
        return -1;
    }
    for (w = strtok_r(words, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    return n;
}
