/*
 * --native-sweep: time the native call under each algorithm the MPI can be
 * forced to use.  Rank 0, after MPI_Finalize, relaunches this program through
 * the MPI's launcher once per algorithm, with the MPI's switch in the
 * environment and the hidden option --native-only (the child times only the
 * native call, with the same sizes and repetitions, and writes CSV); its rows
 * join the table as "MPI(<algorithm>)".
 *   MPICH:    MPIR_CVAR_<COLL>_INTRA_ALGORITHM=<name>, with
 *             MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE=0 (the device must not
 *             override it) and MPIR_CVAR_COLLECTIVE_FALLBACK=error (an
 *             algorithm that cannot run fails instead of silently falling back).
 *   Open MPI: OMPI_MCA_coll_tuned_use_dynamic_rules=1 and
 *             OMPI_MCA_coll_tuned_<coll>_algorithm=<N>, N from ompi_info.
 * The launcher is $PCOLL_BENCH_MPIEXEC (words split at blanks, e.g.
 * "/path/mpiexec --oversubscribe"; the Makefile sets it), else mpiexec from
 * PATH.  The launcher's own variables (PMI_*, PMIX_*, OMPI_COMM_WORLD_*, ...)
 * are removed from the environment first, or the child would believe it is
 * part of this job.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

enum { MAX_WORDS = 16 };

typedef struct sweep {
    bench_run_t *run;
    char words[1024];          /* the launcher command, split in place */
    char *launcher[MAX_WORDS]; /* its words */
    int nwords;
    char lower[32], upper[32]; /* "alltoall", "ALLTOALL" (from "MPI_Alltoall") */
    char csv[PATH_MAX];        /* the children's CSV file */
    char self[PATH_MAX], np[16], warmup[16], reps[16], max_time[32];
    char *argv[MAX_WORDS + 24]; /* the children's command line */
} sweep_t;

/* Rows of a forced algorithm whose run failed: one per size. */
static void failed_rows(sweep_t *s, const char *label, int exit_status)
{
    bench_result_t r;
    int i;
    memset(&r, 0, sizeof r);
    r.kind = BENCH_ROW_NATIVE_FORCED;
    snprintf(r.name, sizeof r.name, "%s", label);
    snprintf(r.status, sizeof r.status, "FAILED(exit %d)", exit_status);
    bench_stats_compute(NULL, 0, &r.st);
    r.init_us = NAN;
    r.extra = -1;
    for (i = 0; i < s->run->opts.nsizes; i++) {
        r.size = s->run->opts.sizes[i];
        bench_run_add(s->run, &r);
    }
}

/* This program's path. */
static void self_path(const bench_run_t *run, char *out, size_t size)
{
    ssize_t len = readlink("/proc/self/exe", out, size - 1);
    if (len > 0)
        out[len] = '\0';
    else
        snprintf(out, size, "%s", run->argv0);
}

/* The children's command line (the same for every forced algorithm). */
static void build_argv(sweep_t *s)
{
    const bench_opts_t *o = &s->run->opts;
    char *args[] = {"-n", s->np, s->self, "--native-only", "--mode", "blocking", "--coll",
                    (char *)o->coll, "--sizes", (char *)o->sizes_arg, "--warmup", s->warmup,
                    "--max-time", s->max_time, "--csv", s->csv, "--reps", s->reps};
    int n = 0, i, nargs = (int)(sizeof args / sizeof *args) - (o->reps > 0 ? 0 : 2);
    self_path(s->run, s->self, sizeof s->self);
    snprintf(s->np, sizeof s->np, "%d", s->run->nprocs);
    snprintf(s->warmup, sizeof s->warmup, "%d", o->warmup);
    snprintf(s->reps, sizeof s->reps, "%d", o->reps);
    snprintf(s->max_time, sizeof s->max_time, "%g", o->max_time);
    for (i = 0; i < s->nwords; i++)
        s->argv[n++] = s->launcher[i];
    for (i = 0; i < nargs; i++)
        s->argv[n++] = args[i];
    s->argv[n] = NULL;
}

/* Run the child under the current environment; its rows join as label. */
static void relaunch(sweep_t *s, const char *label)
{
    int status;
    fprintf(stderr, "pcoll-bench: native sweep: %s\n", label);
    status = bench_spawn(s->argv, "/dev/null");
    if (status != 0 || bench_read_csv(s->csv, label, BENCH_ROW_NATIVE_FORCED, s->run) != 0)
        failed_rows(s, label, status);
}

/* MPICH: each algorithm of MPIR_CVAR_<COLL>_INTRA_ALGORITHM. */
static void sweep_mpich(sweep_t *s)
{
    char var[96], alg[BENCH_NAME_LEN], label[BENCH_NAME_LEN + 8];
    const char *p = s->run->coll->mpich_algorithms;
    snprintf(var, sizeof var, "MPIR_CVAR_%s_DEVICE_COLLECTIVE", s->upper);
    setenv(var, "0", 1);
    setenv("MPIR_CVAR_COLLECTIVE_FALLBACK", "error", 1);
    snprintf(var, sizeof var, "MPIR_CVAR_%s_INTRA_ALGORITHM", s->upper);
    while (bench_next_item(&p, alg, sizeof alg) > 0) {
        setenv(var, alg, 1);
        snprintf(label, sizeof label, "MPI(%s)", alg);
        relaunch(s, label);
    }
}

/* ompi_info's "Valid values:" of coll_tuned_<coll>_algorithm into out
 * ("0|ignore, 1|linear, ..."); 0, or -1 when ompi_info cannot tell. */
static int ompi_values(sweep_t *s, char *out, size_t size)
{
    char tool[PATH_MAX], param[96], line[1024];
    char *argv[] = {tool, "--param", "coll", "tuned", "--level", "9", NULL};
    const char *slash = strrchr(s->launcher[0], '/');
    FILE *f;
    int found = 0, rc = -1;
    snprintf(tool, sizeof tool, "%.*s/ompi_info",
             slash ? (int)(slash - s->launcher[0]) : 1, slash ? s->launcher[0] : ".");
    if (access(tool, X_OK) != 0 && bench_find_in_path("ompi_info", tool, sizeof tool) != 0)
        return -1;
    if (bench_spawn(argv, s->csv) != 0 || !(f = fopen(s->csv, "r")))
        return -1;
    snprintf(param, sizeof param, "\"coll_tuned_%s_algorithm\"", s->lower);
    while (rc != 0 && fgets(line, sizeof line, f)) {
        char *v = strstr(line, "Valid values:");
        found |= strstr(line, param) != NULL;
        if (found && v) {
            v[strcspn(v, "\r\n")] = '\0';
            snprintf(out, size, "%s", v + strlen("Valid values:"));
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* Open MPI: each value N|name of coll_tuned_<coll>_algorithm but 0 (the
 * default) and two_proc (meant for 2 ranks only) on other than 2 ranks. */
static void sweep_ompi(sweep_t *s)
{
    char values[512], var[96], item[BENCH_NAME_LEN], label[BENCH_NAME_LEN + 8];
    const char *p = values;
    if (ompi_values(s, values, sizeof values) != 0)
        snprintf(values, sizeof values, "%s", s->run->coll->ompi_algorithms);
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
    snprintf(var, sizeof var, "OMPI_MCA_coll_tuned_%s_algorithm", s->lower);
    while (bench_next_item(&p, item, sizeof item) > 0) {
        char *number = item + strspn(item, " "), *bar = strchr(number, '|');
        if (!bar || strcmp(number, "0|ignore") == 0 ||
            (strcmp(bar, "|two_proc") == 0 && s->run->nprocs != 2))
            continue;
        *bar = '\0';
        setenv(var, number, 1);
        snprintf(label, sizeof label, "MPI(%s)", bar + 1);
        relaunch(s, label);
    }
}

/* s->lower and s->upper from the native call's name ("MPI_Alltoall"). */
static void collective_names(sweep_t *s)
{
    const char *name = s->run->coll->native + strlen("MPI_");
    size_t i;
    for (i = 0; name[i] && i + 1 < sizeof s->lower; i++) {
        s->lower[i] = (char)tolower((unsigned char)name[i]);
        s->upper[i] = (char)toupper((unsigned char)name[i]);
    }
    s->lower[i] = s->upper[i] = '\0';
}

int bench_native_sweep(bench_run_t *run)
{
    int mpich = strncmp(run->mpi, "MPICH", 5) == 0, ompi = strstr(run->mpi, "Open MPI") != NULL;
    const char *tmp = getenv("TMPDIR");
    sweep_t s;
    int fd;
    memset(&s, 0, sizeof s);
    s.run = run;
    if (!mpich && !ompi) {
        bench_run_note(run, "--native-sweep: no known way to force the algorithms of this MPI");
        return -1;
    }
    s.nwords = bench_launcher(run, s.words, sizeof s.words, s.launcher, MAX_WORDS);
    if (s.nwords <= 0)
        return -1;
    snprintf(s.csv, sizeof s.csv, "%s/pcoll-bench-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if ((fd = mkstemp(s.csv)) < 0) {
        bench_run_note(run, "--native-sweep: cannot create a temporary file");
        return -1;
    }
    close(fd);
    collective_names(&s);
    bench_scrub_launcher_env();
    build_argv(&s);
    if (mpich)
        sweep_mpich(&s);
    else
        sweep_ompi(&s);
    unlink(s.csv);
    return 0;
}
