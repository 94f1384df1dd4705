/*
 * pcoll-bench's command line: a table of options, each with a setter that
 * validates its value completely (strtol/strtod, whole string, range).
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *const mode_names[] = {"blocking", "persistent", "nocomm"};
static const char *const pattern_names[BENCH_NPATTERNS] = {
    "uniform", "random",    "sparse",    "powerlaw", "normal",
    "shifting", "stencil2d", "stencil27", "randomk",  "spmv"};

const char *bench_mode_name(bench_mode_t m) { return mode_names[m]; }
const char *bench_pattern_name(bench_pattern_t p) { return pattern_names[p]; }

void bench_options_default(bench_opts_t *o)
{
    memset(o, 0, sizeof *o);
    strcpy(o->coll, "alltoall");
    o->algorithms = "all";
    o->sizes_arg = "8:65536:x4";
    o->warmup = 5;
    o->max_time = 0.2;
    o->mode = BENCH_PERSISTENT;
    o->pattern = BENCH_UNIFORM;
}

/* A whole decimal integer in [min, max]. */
static int parse_int(const char *what, const char *s, long min, long max, long *out, char *err,
                     size_t errlen)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return bench_fail(err, errlen, "%s: \"%s\" is not an integer", what, s);
    if (v < min || v > max)
        return bench_fail(err, errlen, "%s: %ld is out of range [%ld, %ld]", what, v, min, max);
    *out = v;
    return 0;
}

/* Index of s in names[0..n), or -1 with a message listing the choices. */
static int parse_enum(const char *what, const char *s, const char *const *names, int n,
                      char *err, size_t errlen)
{
    char list[128] = "";
    int i;
    for (i = 0; i < n; i++) {
        if (strcmp(s, names[i]) == 0)
            return i;
        bench_append(list, sizeof list, i ? ", " : "", names[i]);
    }
    return bench_fail(err, errlen, "%s: unknown value \"%s\" (choices: %s)", what, s, list);
}

static int set_coll(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    char list[256];
    bench_coll_list(list, sizeof list);
    if (!bench_coll_known(v))
        return bench_fail(err, errlen, "--coll: unknown collective \"%s\" (choices: %s)", v, list);
    snprintf(o->coll, sizeof o->coll, "%s", v);
    return 0;
}

static int set_sizes(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    o->sizes_arg = v;
    return bench_parse_sizes(v, o->sizes, &o->nsizes, err, errlen);
}

static int set_reps(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    long n;
    if (parse_int("--reps", v, 1, 1000000, &n, err, errlen))
        return -1;
    o->reps = (int)n;
    return 0;
}

static int set_warmup(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    long n;
    if (parse_int("--warmup", v, 0, 100000, &n, err, errlen))
        return -1;
    o->warmup = (int)n;
    return 0;
}

static int set_max_time(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    char *end;
    double t;
    errno = 0;
    t = strtod(v, &end);
    if (end == v || *end != '\0' || errno == ERANGE || !isfinite(t) || t <= 0 || t > 3600)
        return bench_fail(err, errlen, "--max-time: \"%s\" is not a number of seconds in (0, 3600]",
                    v);
    o->max_time = t;
    return 0;
}

static int set_mode(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    int i = parse_enum("--mode", v, mode_names, 3, err, errlen);
    o->mode = i < 0 ? o->mode : (bench_mode_t)i;
    return i < 0 ? -1 : 0;
}

static int set_pattern(bench_opts_t *o, const char *v, char *err, size_t errlen)
{
    int i = parse_enum("--pattern", v, pattern_names, BENCH_NPATTERNS, err, errlen);
    o->pattern = i < 0 ? o->pattern : (bench_pattern_t)i;
    return i < 0 ? -1 : 0;
}

/* Kinds of options: a value stored as a string, a flag, or a setter. */
enum { OPT_STRING, OPT_FLAG, OPT_SETTER };

typedef struct option_def {
    const char *name;
    int kind;
    size_t offset; /* of the const char * or int field (OPT_STRING, OPT_FLAG) */
    int (*set)(bench_opts_t *o, const char *v, char *err, size_t errlen);
} option_def_t;

#define STRING_OPT(name, field) {name, OPT_STRING, offsetof(bench_opts_t, field), NULL}
#define FLAG_OPT(name, field) {name, OPT_FLAG, offsetof(bench_opts_t, field), NULL}
#define SETTER_OPT(name, fn) {name, OPT_SETTER, 0, fn}

static const option_def_t option_defs[] = {
    SETTER_OPT("--coll", set_coll),         STRING_OPT("--algorithms", algorithms),
    SETTER_OPT("--sizes", set_sizes),       SETTER_OPT("--reps", set_reps),
    SETTER_OPT("--warmup", set_warmup),     SETTER_OPT("--max-time", set_max_time),
    SETTER_OPT("--mode", set_mode),         SETTER_OPT("--pattern", set_pattern),
    STRING_OPT("--csv", csv),               STRING_OPT("--json", json),
    STRING_OPT("--plot", plot),             FLAG_OPT("--native-sweep", native_sweep),
    FLAG_OPT("--native-only", native_only), FLAG_OPT("--progress", progress),
    FLAG_OPT("--sequential", sequential),  FLAG_OPT("--gpu", gpu),
    FLAG_OPT("--choice", choice),           FLAG_OPT("--overlap", overlap),
    FLAG_OPT("--help", help),               FLAG_OPT("-h", help),
};

static const option_def_t *find_option(const char *arg, size_t namelen)
{
    size_t i;
    for (i = 0; i < sizeof option_defs / sizeof *option_defs; i++)
        if (strlen(option_defs[i].name) == namelen &&
            strncmp(option_defs[i].name, arg, namelen) == 0)
            return &option_defs[i];
    return NULL;
}

/* Store value v for option d. */
static int apply(const option_def_t *d, bench_opts_t *o, const char *v, char *err,
                 size_t errlen)
{
    char *field = (char *)o + d->offset;
    if (d->kind == OPT_FLAG) {
        *(int *)field = 1;
        return 0;
    }
    if (v[0] == '\0')
        return bench_fail(err, errlen, "%s: empty value", d->name);
    if (d->kind == OPT_STRING) {
        *(const char **)field = v;
        return 0;
    }
    return d->set(o, v, err, errlen);
}

/* One option at argv[*i] ("--name value" or "--name=value"); advances *i. */
static int parse_one(int argc, char **argv, int *i, bench_opts_t *o, char *err,
                     size_t errlen)
{
    const char *arg = argv[*i], *eq = strchr(arg, '=');
    size_t namelen = eq ? (size_t)(eq - arg) : strlen(arg);
    const option_def_t *d = find_option(arg, namelen);
    const char *v = eq ? eq + 1 : NULL;

    if (!d)
        return bench_fail(err, errlen, "unknown option \"%s\"", arg);
    if (d->kind == OPT_FLAG && eq)
        return bench_fail(err, errlen, "%s takes no value", d->name);
    if (d->kind != OPT_FLAG && !eq) {
        if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
            return bench_fail(err, errlen, "%s needs a value", d->name);
        v = argv[++*i];
    }
    return apply(d, o, v ? v : "", err, errlen);
}

/* Combinations that make no sense. */
static int check_combination(const bench_opts_t *o, char *err, size_t errlen)
{
    if (o->native_sweep && o->mode == BENCH_NOCOMM)
        return bench_fail(err, errlen, "--native-sweep times native calls: not with --mode nocomm");
    if (o->gpu && (o->native_sweep || o->native_only))
        return bench_fail(err, errlen, "--gpu: the native row is the staged MPI call; no --native-sweep");
    if (o->choice && (o->native_sweep || o->csv || o->json || o->plot))
        return bench_fail(err, errlen,
                          "--choice times nothing: no --native-sweep, --csv, --json or --plot");
    if (o->overlap && (o->choice || o->gpu || o->native_sweep || o->csv || o->json || o->plot ||
                       o->mode != BENCH_PERSISTENT))
        return bench_fail(err, errlen,
                          "--overlap prints its own table of persistent plans: no --choice, "
                          "--gpu, --native-sweep, --csv, --json, --plot or --mode");
    if (o->native_sweep && o->native_only)
        return bench_fail(err, errlen, "--native-sweep and --native-only exclude each other");
    return 0;
}

int bench_options_parse(int argc, char **argv, bench_opts_t *o, char *err, size_t errlen)
{
    int i;
    bench_options_default(o);
    if (bench_parse_sizes(o->sizes_arg, o->sizes, &o->nsizes, err, errlen))
        return -1;
    for (i = 1; i < argc; i++)
        if (parse_one(argc, argv, &i, o, err, errlen))
            return -1;
    return check_combination(o, err, errlen);
}
