/*
 * Option parsing (see options.h).  Values are whole numbers >= 1 (strtoll
 * with nothing trailing); flags (pcoll_no_comm, pcoll_normalize, pcoll_verbose) are 0, 1,
 * true or false; algorithm names must be in the collective's table, and the
 * error message lists the valid ones; pcoll_progress is wait or thread.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/options.h"
#include "base/rules.h"
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

/* The PCOLL_ variables of the environment, found in one pass over it:
 * every call reads its options, and a getenv per option (each a pass over
 * the whole environment) was most of the one-shot path's own time.  A
 * variable set between two calls is seen by the second: the pass is made
 * again only when the environment may have changed since this thread's last
 * one.  setenv, unsetenv and putenv either append an entry (the array grows
 * or its last entry changes), remove one (the array shrinks or entries move
 * down: a PCOLL_ entry's slot or the last entry changes) or put a new
 * string into an entry's slot, so the check is the array, its length (its
 * end is where it was), its last entry and the slots of the PCOLL_ entries,
 * O(1) in the size of the environment.  (putenv of a string that is later
 * changed in place is not seen.) */
#define ENV_MAX 64
typedef struct env_view {
    int n;                    /* first: a repeat reads it (env_same) */
    const char *var[ENV_MAX]; /* "PCOLL_NAME=value" */
    size_t slot[ENV_MAX];     /* its index in environ */
} env_view_t;

typedef struct env_print {
    char **at;
    size_t count;
    const char *last;
} env_print_t;

/* This thread's last view, and the options it gave with no info for the
 * last table (the one-shot path's calls repeat them). */
typedef struct env_memo {
    env_print_t print;
    unsigned long epoch; /* how many times the environment was found changed */
    env_view_t view;
    const pcoll__algo_table_t *table; /* NULL: no options kept */
    pcoll__opts_t opts;
} env_memo_t;

static PCOLL__THREAD_LOCAL env_memo_t memo;

extern char **environ;

static env_print_t env_print(void)
{
    env_print_t p = {environ, 0, NULL};
    if (p.at)
        for (; p.at[p.count]; p.count++)
            ;
    p.last = p.count ? p.at[p.count - 1] : NULL;
    return p;
}

/* Whether the environment is still the one the memo's view was taken of. */
static int env_same(const env_memo_t *m)
{
    char **e = environ;
    int k;
    if (!m->print.at || e != m->print.at || e[m->print.count] ||
        (m->print.count && e[m->print.count - 1] != m->print.last))
        return 0;
    for (k = 0; k < m->view.n; k++)
        if (e[m->view.slot[k]] != m->view.var[k])
            return 0;
    return 1;
}

static int is_pcoll(const char *var)
{
    static const char prefix[] = "PCOLL_";
    int i;
    for (i = 0; prefix[i]; i++)
        if (var[i] != prefix[i])
            return 0;
    return 1;
}

static void env_scan(env_view_t *v)
{
    char **e = environ;
    size_t i;
    v->n = 0;
    for (i = 0; e && e[i] && v->n < ENV_MAX; i++)
        if (is_pcoll(e[i])) {
            v->slot[v->n] = i;
            v->var[v->n++] = e[i];
        }
}

/* The view of the environment now; 1 if it is the one memo holds. */
static int env_take(const env_view_t **v)
{
    env_memo_t *m = &memo;
    int same = env_same(m);
    if (!same) {
        m->epoch++;
        m->print = env_print();
        m->table = NULL;
        env_scan(&m->view);
    }
    *v = &m->view;
    return same;
}

/* The value of the variable name in the view, or NULL. */
static const char *env_get(const env_view_t *v, const char *name)
{
    size_t len = v->n ? strlen(name) : 0;
    int i;
    for (i = 0; i < v->n; i++)
        if (strncmp(v->var[i], name, len) == 0 && v->var[i][len] == '=')
            return v->var[i] + len + 1;
    return NULL;
}

/* The value of key: the environment variable env if set, else the info
 * key.  Copies into buf (size n); returns 1 if found.  v: the environment
 * (NULL: read it now). */
static int lookup_in(const env_view_t *v, MPI_Info info, const char *key, const char *env,
                     char *buf, int n)
{
    const char *e = v ? env_get(v, env) : getenv(env);
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

/* An algorithm of t named by env_coll (NULL: none), else the info key or
 * environment variable key / env, into *index (-1: not named). */
static int read_algorithm_key(const env_view_t *v, MPI_Info info, const pcoll__algo_table_t *t,
                              const char *env_coll, const char *key, const char *env,
                              int *index)
{
    char buf[128], list[512] = "";
    int i, found = 0;
    const char *e = env_coll ? env_get(v, env_coll) : NULL;
    if (e) {
        strncpy(buf, e, sizeof buf - 1);
        buf[sizeof buf - 1] = '\0';
        found = 1;
    } else {
        found = lookup_in(v, info, key, env, buf, (int)sizeof buf);
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

static int read_algorithm(const env_view_t *v, MPI_Info info, const pcoll__algo_table_t *t,
                          int *index)
{
    return read_algorithm_key(v, info, t, t->env, "pcoll_algorithm", "PCOLL_ALGORITHM", index);
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

static int flag_in(const env_view_t *v, MPI_Info info, const char *key, const char *env,
                   int *value)
{
    char buf[16];
    *value = 0;
    return lookup_in(v, info, key, env, buf, (int)sizeof buf) ? parse_flag(key, buf, value)
                                                               : PCOLL_SUCCESS;
}

int pcoll__opts_flag(MPI_Info info, const char *key, const char *env, int *value)
{
    return flag_in(NULL, info, key, env, value);
}

/* pcoll_progress / PCOLL_PROGRESS: "wait" (0, the default) or "thread" (1). */
static int read_progress(const env_view_t *v, MPI_Info info, int *thread)
{
    char buf[16];
    *thread = 0;
    if (!lookup_in(v, info, "pcoll_progress", "PCOLL_PROGRESS", buf, (int)sizeof buf) ||
        strcmp(buf, "wait") == 0)
        return PCOLL_SUCCESS;
    if (strcmp(buf, "thread") == 0)
        *thread = 1;
    else
        return pcoll__error(PCOLL_ERR_ARG,
                            "option pcoll_progress: malformed value \"%s\" (wait, thread)", buf);
    return PCOLL_SUCCESS;
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

/* pcoll_tuning_file / PCOLL_TUNING_FILE: the rules file (base/rules.h),
 * loaded and checked for table's collective; an empty value means none.
 * Only the automatic choice reads it: an algorithm named explicitly wins
 * over the file, which is then not read (a bad file fails only the calls
 * that would follow it).  A device-buffer algorithm (gpu_*) runs a host
 * choice, which may follow the file. */
static int read_tuning(const env_view_t *v, MPI_Info info, const pcoll__algo_table_t *table,
                       int algorithm, const struct pcoll__rules **rules)
{
    char path[4096];
    *rules = NULL;
    if (!pcoll__algo_is_auto(table, algorithm) &&
        strncmp(table->algos[algorithm].name, "gpu_", 4) != 0)
        return PCOLL_SUCCESS;
    if (!lookup_in(v, info, "pcoll_tuning_file", "PCOLL_TUNING_FILE", path, (int)sizeof path) ||
        !path[0])
        return PCOLL_SUCCESS;
    return pcoll__rules_load(path, table, rules);
}

unsigned long pcoll__opts_epoch(void)
{
    env_memo_t *m = &memo;
    if (!env_same(m)) {
        const env_view_t *v;
        env_take(&v);
    }
    return m->epoch;
}

int pcoll__opts_read(MPI_Info info, const pcoll__algo_table_t *table, pcoll__opts_t *opts)
{
    const env_view_t *v;
    size_t k;
    int rc, same = env_take(&v);
    if (same && info == MPI_INFO_NULL && memo.table == table) {
        *opts = memo.opts;
        pcoll__set_verbose(0);
        return PCOLL_SUCCESS;
    }
    memset(opts, 0, sizeof *opts);
    /* Verbosity first, so that the errors below are printed when asked. */
    rc = read_verbose(info, &opts->verbose);
    pcoll__set_verbose(opts->verbose);
    if (rc == PCOLL_SUCCESS)
        rc = read_algorithm(v, info, table, &opts->algorithm);
    if (rc == PCOLL_SUCCESS)
        rc = read_algorithm_key(v, info, table, NULL, "pcoll_gpu_host_algorithm",
                                "PCOLL_GPU_HOST_ALGORITHM", &opts->gpu_host_algorithm);
    if (rc == PCOLL_SUCCESS)
        rc = flag_in(v, info, "pcoll_no_comm", "PCOLL_NO_COMM", &opts->no_comm);
    if (rc == PCOLL_SUCCESS)
        rc = flag_in(v, info, "pcoll_normalize", "PCOLL_NORMALIZE", &opts->normalize);
    if (rc == PCOLL_SUCCESS)
        rc = read_progress(v, info, &opts->progress_thread);
    for (k = 0; rc == PCOLL_SUCCESS && k < sizeof numeric_keys / sizeof *numeric_keys; k++) {
        const numeric_key_t *nk = &numeric_keys[k];
        char buf[64];
        long long num;
        if (!lookup_in(v, info, nk->info, nk->env, buf, (int)sizeof buf))
            continue;
        rc = parse_number(nk->info, buf, nk->is_long, &num);
        if (rc != PCOLL_SUCCESS)
            break;
        if (nk->is_long)
            *(long long *)((char *)opts + nk->offset) = num;
        else
            *(int *)((char *)opts + nk->offset) = (int)num;
    }
    if (rc == PCOLL_SUCCESS)
        rc = read_tuning(v, info, table, opts->algorithm, &opts->rules);
    if (rc == PCOLL_SUCCESS && info == MPI_INFO_NULL) {
        memo.table = table;
        memo.opts = *opts;
    }
    return rc;
}
