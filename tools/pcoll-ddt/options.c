/*
 * pcoll-ddt's command line: --n, --stride, --type, --reps, --csv, --help.
 * Every value is validated; a bad option is a message (and usage, exit 2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ddt.h"

static const struct {
    const char *name;
    MPI_Datatype type;
} types[] = {{"double", MPI_DOUBLE}, {"float", MPI_FLOAT}, {"int", MPI_INT},
             {"long", MPI_LONG},     {"short", MPI_SHORT}, {"char", MPI_CHAR}};

void ddt_usage(FILE *out)
{
    fputs("usage: mpiexec -n 2 pcoll-ddt [options]\n"
          "\n"
          "Checks the MPI's datatype performance against the guidelines (1)-(6) of\n"
          "Gropp, Hoefler, Thakur, Traeff (Benchmarks 1-6), for the user's types and\n"
          "after pcoll_type_normalize.\n"
          "\n"
          "  --n N          elements of the layout (default 32768, at least 24)\n"
          "  --stride LIST  comma-separated strides in elements (default 1,16)\n"
          "  --type NAME    double (default), float, int, long, short, char\n"
          "  --reps N       timed repetitions per measurement (default 20, at least 3)\n"
          "  --csv FILE     write every measurement as CSV\n"
          "  --help         this message\n"
          "\n"
          "Exit status: 0, 1 if a datatype moved the wrong data, 2 for bad options.\n",
          out);
}

/* A whole number in [lo, hi]. */
static int number(const char *text, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

static int parse_strides(const char *arg, ddt_opts_t *o)
{
    char buf[128], *save = NULL, *item;
    long v;
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    o->nstrides = 0;
    for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (o->nstrides == DDT_MAX_STRIDES || number(item, 1, 1024, &v) != 0)
            return -1;
        o->strides[o->nstrides++] = (int)v;
    }
    return o->nstrides > 0 ? 0 : -1;
}

static int parse_type(const char *arg, ddt_opts_t *o)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(arg, types[i].name) == 0) {
            o->type_name = types[i].name;
            o->type = types[i].type;
            return 0;
        }
    return -1;
}

/* One option with its value; -1 when the value is bad. */
static int parse_one(const char *opt, const char *val, ddt_opts_t *o)
{
    long v;
    if (strcmp(opt, "--n") == 0 && number(val, 24, 1L << 24, &v) == 0)
        o->n = (int)v;
    else if (strcmp(opt, "--reps") == 0 && number(val, 3, 100000, &v) == 0)
        o->reps = (int)v;
    else if (strcmp(opt, "--stride") == 0)
        return parse_strides(val, o);
    else if (strcmp(opt, "--type") == 0)
        return parse_type(val, o);
    else if (strcmp(opt, "--csv") == 0)
        o->csv = val;
    else
        return -1;
    return 0;
}

/* The options that take a value, and what the value must be. */
static const struct {
    const char *name, *wants;
} known[] = {
    {"--n", "a whole number from 24 to 16777216"},
    {"--stride", "1 to 8 comma-separated whole numbers from 1 to 1024"},
    {"--type", "double, float, int, long, short or char"},
    {"--reps", "a whole number from 3 to 100000"},
    {"--csv", "a file name"},
};

int ddt_options_parse(int argc, char **argv, ddt_opts_t *o, char *err, size_t errlen)
{
    *o = (ddt_opts_t){32768, {1, 16}, 2, "double", MPI_DOUBLE, 20, NULL, 0};
    for (int i = 1; i < argc; i++) {
        size_t k = 0;
        if (strcmp(argv[i], "--help") == 0) {
            o->help = 1;
            continue;
        }
        while (k < sizeof known / sizeof known[0] && strcmp(argv[i], known[k].name) != 0)
            k++;
        if (k == sizeof known / sizeof known[0]) {
            snprintf(err, errlen, "unknown option \"%s\"", argv[i]);
            return -1;
        }
        if (i + 1 == argc || parse_one(argv[i], argv[i + 1], o) != 0) {
            snprintf(err, errlen, "bad value for %s: \"%s\" (%s)", argv[i],
                     i + 1 < argc ? argv[i + 1] : "", known[k].wants);
            return -1;
        }
        i++;
    }
    return 0;
}
