/*
 * Option parsing (see options.h).  Values are whole numbers >= 1 (strtoll
 * with nothing trailing); flags (pcoll_no_comm, pcoll_normalize, pcoll_verbose) are 0, 1,
 * true or false; algorithm names must be in the collective's table, and the
 * error message lists the valid ones.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/options.h"
#include "base/status.h"

typedef struct numeric_key {
    const char *info;        /* info key */
    const char *env;         /* environment variable */
    size_t offset;           /* field in pcoll__opts_t */
    int is_long;
} numeric_key_t;

#define KEY_(name, NAME, field, l) {name, NAME, offsetof(pcoll__opts_t, field), l}
static const numeric_key_t numeric_keys[] = {
    KEY_("pcoll_radix", "PCOLL_RADIX", radix, 0),
    KEY_("pcoll_ports", "PCOLL_PORTS", ports, 0),
    KEY_("pcoll_throttle", "PCOLL_THROTTLE", throttle, 0),
    KEY_("pcoll_cores_per_node", "PCOLL_CORES_PER_NODE", cores_per_node, 0),
    KEY_("pcoll_aux_buffers", "PCOLL_AUX_BUFFERS", aux_buffers, 0),
    KEY_("pcoll_aux_bytes", "PCOLL_AUX_BYTES", aux_bytes, 1),
    KEY_("pcoll_regular_ratio", "PCOLL_REGULAR_RATIO", regular_ratio, 0),
};
#undef KEY_

int pcoll__algo_find(const pcoll__algo_table_t *t, const char *name)
{
    int i;
    for (i = 0; i < t->count; i++)
        if (strcmp(t->algos[i].name, name) == 0)
            return i;
    return -1;
}

/* The value of key: the environment variable env if set, else the info
 * key.  Copies into buf (size n); returns 1 if found. */
static int lookup(MPI_Info info, const char *key, const char *env, char *buf, int n)
{
    const char *e = getenv(env);
    int flag = 0;
    if (e) {
        strncpy(buf, e, (size_t)n - 1);
        buf[n - 1] = '\0';
        return 1;
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_get(info, key, n - 1, buf, &flag);
    return flag;
}

static int parse_number(const char *key, const char *text, int is_long, long long *value)
{
    char *end;
    long long max = is_long ? (1LL << 50) : 1000000000LL;
    errno = 0;
    *value = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0' || *value < 1 || *value > max)
        return pcoll__error(PCOLL_ERR_ARG,
                            "option %s: malformed value \"%s\" (a whole number from 1 to %lld)",
                            key, text, max);
    return PCOLL_SUCCESS;
}

static int read_algorithm(MPI_Info info, const pcoll__algo_table_t *t, int *index)
{
    char buf[128], list[512] = "";
    int i, found = 0;
    const char *e = getenv(t->env);
    if (e) {
        strncpy(buf, e, sizeof buf - 1);
        buf[sizeof buf - 1] = '\0';
        found = 1;
    } else {
        found = lookup(info, "pcoll_algorithm", "PCOLL_ALGORITHM", buf, (int)sizeof buf);
    }
    *index = -1;
    if (!found)
        return PCOLL_SUCCESS;
    if ((*index = pcoll__algo_find(t, buf)) >= 0)
        return PCOLL_SUCCESS;
    for (i = 0; i < t->count; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, t->algos[i].name, sizeof list - strlen(list) - 1);
    }
    return pcoll__error(PCOLL_ERR_ARG, "unknown %s algorithm \"%s\"; valid: %s",
                        t->collective, buf, list);
}

/* A flag's text: 0, 1, true or false. */
static int parse_flag(const char *key, const char *text, int *value)
{
    if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0)
        *value = 1;
    else if (strcmp(text, "0") != 0 && strcmp(text, "false") != 0)
        return pcoll__error(PCOLL_ERR_ARG,
                            "option %s: malformed value \"%s\" (0, 1, true, false)", key, text);
    return PCOLL_SUCCESS;
}

int pcoll__opts_flag(MPI_Info info, const char *key, const char *env, int *value)
{
    char buf[16];
    *value = 0;
    return lookup(info, key, env, buf, (int)sizeof buf) ? parse_flag(key, buf, value)
                                                         : PCOLL_SUCCESS;
}

/* pcoll_verbose: the info key only (pcoll__error reads PCOLL_VERBOSE itself
 * when it has something to print, so the one-shot path reads no more of the
 * environment for it). */
static int read_verbose(MPI_Info info, int *value)
{
    char buf[16];
    int flag = 0;
    *value = 0;
    if (info != MPI_INFO_NULL)
        MPI_Info_get(info, "pcoll_verbose", (int)sizeof buf - 1, buf, &flag);
    return flag ? parse_flag("pcoll_verbose", buf, value) : PCOLL_SUCCESS;
}

int pcoll__opts_read(MPI_Info info, const pcoll__algo_table_t *table, pcoll__opts_t *opts)
{
    size_t k;
    int rc;
    memset(opts, 0, sizeof *opts);
    /* Verbosity first, so that the errors below are printed when asked. */
    rc = read_verbose(info, &opts->verbose);
    pcoll__set_verbose(opts->verbose);
    if (rc == PCOLL_SUCCESS)
        rc = read_algorithm(info, table, &opts->algorithm);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__opts_flag(info, "pcoll_no_comm", "PCOLL_NO_COMM", &opts->no_comm);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__opts_flag(info, "pcoll_normalize", "PCOLL_NORMALIZE", &opts->normalize);
    for (k = 0; rc == PCOLL_SUCCESS && k < sizeof numeric_keys / sizeof *numeric_keys; k++) {
        const numeric_key_t *nk = &numeric_keys[k];
        char buf[64];
        long long v;
        if (!lookup(info, nk->info, nk->env, buf, (int)sizeof buf))
            continue;
        rc = parse_number(nk->info, buf, nk->is_long, &v);
        if (rc != PCOLL_SUCCESS)
            break;
        if (nk->is_long)
            *(long long *)((char *)opts + nk->offset) = v;
        else
            *(int *)((char *)opts + nk->offset) = (int)v;
    }
    return rc;
}
