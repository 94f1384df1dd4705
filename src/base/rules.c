/*
 * Tuning rules (see rules.h; the format is in docs/tuning.md).
 *
 * A file is read whole, parsed into a JSON tree (base/json.c), and each rule
 * checked and copied into a flat array; the tree is then dropped.  Loaded
 * files form a list that only grows: a new file is parsed and pushed under
 * load_lock, and its head is published with a release store, so that a
 * thread looking up a path walks the list without the lock (acquire load;
 * nodes never change once published).  Which algorithm tables a file's
 * rules were checked against is remembered per file the same way (slots
 * written under the lock, read with acquire loads), so the one-shot calls,
 * which load the file on every call, check it once per table.
 *
 * Memory comes from the counted allocator (pcoll_mem_current counts a
 * loaded file like the library's other caches) and is never freed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/mem.h"
#include "base/rules.h"
#include "base/status.h"

#define MAX_FILE_BYTES (16L << 20)
#define MAX_TABLES 8 /* tables remembered as checked per file */
#define MSG_BYTES 640

/* The collective names a rule may give; reduce_scatter_block rules belong
 * to the reduce_scatter table. */
enum { COLL_ALLTOALL, COLL_ALLTOALLV, COLL_ALLTOALLV_INPLACE, COLL_RS, COLL_RS_BLOCK,
       COLL_ALLTOALL_MULTI, COLL_ALLTOALLW, NCOLLS };
static const char *const coll_names[NCOLLS] = {
    "alltoall", "alltoallv", "alltoallv_inplace", "reduce_scatter", "reduce_scatter_block",
    "alltoall_multi", "alltoallw"};

/* The ranges of a rule. */
enum { RANGE_COMM_SIZE, RANGE_RPN, RANGE_BYTES, NRANGES };
static const char *const range_names[NRANGES] = {"comm_size", "ranks_per_node", "bytes"};

/* The parameters of a rule: whole numbers from 1 to max (the bounds of the
 * same options in base/options.c). */
typedef struct param_key {
    const char *name;
    size_t offset;  /* in pcoll__rule_t */
    int is_long;
} param_key_t;

#define PARAM_(field, l) {#field, offsetof(pcoll__rule_t, field), l}
static const param_key_t param_keys[] = {
    PARAM_(radix, 0),          PARAM_(ports, 0),       PARAM_(throttle, 0),
    PARAM_(cores_per_node, 0), PARAM_(aux_buffers, 0), PARAM_(aux_bytes, 1),
};
#undef PARAM_

typedef struct stored_rule {
    int coll;                      /* index in coll_names */
    int line;                      /* of its algorithm name */
    char *algorithm;
    long long range[NRANGES][2];   /* inclusive [lo, hi] where given */
    int given[NRANGES];
    pcoll__rule_t params;          /* algorithm unused (-1) */
} stored_rule_t;

struct pcoll__rules {
    pcoll__rules_t *next;          /* the next loaded file; fixed once published */
    char *path;
    stored_rule_t *rules;
    int nrules;
    _Atomic(const pcoll__algo_table_t *) checked[MAX_TABLES];
};

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(pcoll__rules_t *) loaded;

/* Where a fault's message goes: "<path>:<line>: <reason>". */
typedef struct fault {
    const char *path;
    char *msg;
    size_t n;
} fault_t;

static int bad(const fault_t *f, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int bad(const fault_t *f, int line, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(f->msg, f->n, "%s:%d: ", f->path, line);
    if (k >= 0 && (size_t)k < f->n) {
        va_start(ap, fmt);
        vsnprintf(f->msg + k, f->n - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return PCOLL_ERR_ARG;
}

static int coll_index(const char *name)
{
    int i;
    for (i = 0; i < NCOLLS; i++)
        if (strcmp(coll_names[i], name) == 0)
            return i;
    return -1;
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = pcoll__malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static void rules_free(pcoll__rules_t *r)
{
    int i;
    if (!r)
        return;
    for (i = 0; i < r->nrules; i++)
        pcoll__free(r->rules[i].algorithm);
    pcoll__free(r->rules);
    pcoll__free(r->path);
    pcoll__free(r);
}

/* ---- one rule --------------------------------------------------------------- */

/* "key": [lo, hi], two whole numbers, 0 <= lo <= hi. */
static int read_range(const fault_t *f, const char *key, const pcoll__json_t *v, long long *lo,
                      long long *hi)
{
    int i;
    if (v->kind != PCOLL__JSON_ARRAY || v->n != 2)
        return bad(f, v->line, "\"%s\" must be [lo, hi] (two whole numbers)", key);
    for (i = 0; i < 2; i++) {
        const pcoll__json_t *x = &v->items[i];
        if (x->kind != PCOLL__JSON_NUMBER || !x->integer)
            return bad(f, x->line, "\"%s\" must be [lo, hi] (two whole numbers)", key);
        if (x->ival < 0)
            return bad(f, x->line, "\"%s\": negative number %lld", key, x->ival);
    }
    *lo = v->items[0].ival, *hi = v->items[1].ival;
    if (*lo > *hi)
        return bad(f, v->line, "\"%s\": [%lld, %lld] has lo > hi", key, *lo, *hi);
    return PCOLL_SUCCESS;
}

/* A parameter: a whole number from 1 to max, stored in rule->params. */
static int read_param(const fault_t *f, const param_key_t *k, const pcoll__json_t *v,
                      pcoll__rule_t *params)
{
    long long max = k->is_long ? (1LL << 50) : 1000000000LL;
    if (v->kind != PCOLL__JSON_NUMBER || !v->integer)
        return bad(f, v->line, "\"%s\" must be a whole number", k->name);
    if (v->ival < 0)
        return bad(f, v->line, "\"%s\": negative number %lld", k->name, v->ival);
    if (v->ival < 1 || v->ival > max)
        return bad(f, v->line, "\"%s\": %lld is not from 1 to %lld", k->name, v->ival, max);
    if (k->is_long)
        *(long long *)((char *)params + k->offset) = v->ival;
    else
        *(int *)((char *)params + k->offset) = (int)v->ival;
    return PCOLL_SUCCESS;
}

static int read_collective(const fault_t *f, const pcoll__json_t *v, stored_rule_t *rule)
{
    if (v->kind != PCOLL__JSON_STRING)
        return bad(f, v->line, "\"collective\" must be a string");
    if ((rule->coll = coll_index(v->str)) < 0)
        return bad(f, v->line,
                   "unknown collective \"%s\" (alltoall, alltoallv, alltoallv_inplace, "
                   "reduce_scatter, reduce_scatter_block, alltoall_multi)",
                   v->str);
    return PCOLL_SUCCESS;
}

static int read_algorithm(const fault_t *f, const pcoll__json_t *v, stored_rule_t *rule)
{
    if (v->kind != PCOLL__JSON_STRING)
        return bad(f, v->line, "\"algorithm\" must be a string");
    if (strcmp(v->str, "auto") == 0)
        return bad(f, v->line, "a rule names an algorithm, not \"auto\"");
    rule->line = v->line;
    return (rule->algorithm = copy_string(v->str)) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

/* One member "key": value of a rule. */
static int read_rule_key(const fault_t *f, const char *key, const pcoll__json_t *v,
                         stored_rule_t *rule)
{
    size_t i;
    if (strcmp(key, "collective") == 0)
        return read_collective(f, v, rule);
    if (strcmp(key, "algorithm") == 0)
        return read_algorithm(f, v, rule);
    for (i = 0; i < NRANGES; i++)
        if (strcmp(key, range_names[i]) == 0) {
            rule->given[i] = 1;
            return read_range(f, key, v, &rule->range[i][0], &rule->range[i][1]);
        }
    for (i = 0; i < sizeof param_keys / sizeof *param_keys; i++)
        if (strcmp(key, param_keys[i].name) == 0)
            return read_param(f, &param_keys[i], v, &rule->params);
    return bad(f, v->line, "unknown key \"%s\" in a rule", key);
}

static int read_rule(const fault_t *f, const pcoll__json_t *v, stored_rule_t *rule)
{
    int i, rc;
    rule->coll = -1;
    rule->params.algorithm = -1;
    if (v->kind != PCOLL__JSON_OBJECT)
        return bad(f, v->line, "a rule must be an object");
    for (i = 0; i < v->n; i++)
        if ((rc = read_rule_key(f, v->keys[i], &v->items[i], rule)) != PCOLL_SUCCESS)
            return rc;
    if (rule->coll < 0)
        return bad(f, v->line, "a rule without \"collective\"");
    if (!rule->algorithm)
        return bad(f, v->line, "a rule without \"algorithm\"");
    return PCOLL_SUCCESS;
}

/* ---- the file --------------------------------------------------------------- */

/* "pcoll_tuning": 1, first, so that a newer file is told apart from a
 * malformed one. */
static int read_version(const fault_t *f, const pcoll__json_t *root)
{
    const pcoll__json_t *v = pcoll__json_get(root, "pcoll_tuning");
    if (!v)
        return bad(f, root->line, "no \"pcoll_tuning\": 1 (not a pcoll tuning file?)");
    if (v->kind != PCOLL__JSON_NUMBER || !v->integer)
        return bad(f, v->line, "\"pcoll_tuning\" must be a whole number (the version, 1)");
    if (v->ival != 1)
        return bad(f, v->line, "\"pcoll_tuning\" version %lld (this library reads version 1)",
                   v->ival);
    return PCOLL_SUCCESS;
}

/* The top-level keys other than the rules: known, of the right type. */
static int read_header(const fault_t *f, const pcoll__json_t *root)
{
    static const char *const strings[] = {"mpi", "host", "created"};
    int i, known;
    size_t k;
    for (i = 0; i < root->n; i++) {
        const char *key = root->keys[i];
        known = strcmp(key, "pcoll_tuning") == 0 || strcmp(key, "rules") == 0;
        for (k = 0; !known && k < sizeof strings / sizeof *strings; k++)
            if (strcmp(key, strings[k]) == 0) {
                if (root->items[i].kind != PCOLL__JSON_STRING)
                    return bad(f, root->items[i].line, "\"%s\" must be a string", key);
                known = 1;
            }
        if (!known)
            return bad(f, root->items[i].line, "unknown key \"%s\"", key);
    }
    return PCOLL_SUCCESS;
}

static int read_rules(const fault_t *f, const pcoll__json_t *root, pcoll__rules_t *r)
{
    const pcoll__json_t *list = pcoll__json_get(root, "rules");
    int rc;
    if (!list)
        return bad(f, root->line, "no \"rules\" array");
    if (list->kind != PCOLL__JSON_ARRAY)
        return bad(f, list->line, "\"rules\" must be an array");
    if (list->n && !(r->rules = pcoll__calloc((size_t)list->n, sizeof *r->rules)))
        return PCOLL_ERR_NOMEM;
    for (; r->nrules < list->n; r->nrules++)
        if ((rc = read_rule(f, &list->items[r->nrules], &r->rules[r->nrules])) != PCOLL_SUCCESS) {
            r->nrules++; /* so that rules_free sees its algorithm name */
            return rc;
        }
    return PCOLL_SUCCESS;
}

static int read_tree(const fault_t *f, const pcoll__json_t *root, pcoll__rules_t *r)
{
    int rc;
    if (root->kind != PCOLL__JSON_OBJECT)
        return bad(f, root->line, "the file must hold one JSON object");
    if ((rc = read_version(f, root)) != PCOLL_SUCCESS ||
        (rc = read_header(f, root)) != PCOLL_SUCCESS)
        return rc;
    return read_rules(f, root, r);
}

/* The whole file into *text (NUL-ended, the caller frees it). */
static int read_text(const fault_t *f, char **text, size_t *len)
{
    FILE *fp = fopen(f->path, "rb");
    size_t cap = 4096, got;
    char *p = NULL, *q, why[128] = "";
    *text = NULL, *len = 0;
    if (!fp) {
        strerror_r(errno, why, sizeof why);
        snprintf(f->msg, f->n, "%s: cannot open: %s", f->path, why);
        return PCOLL_ERR_ARG;
    }
    for (;;) {
        if (!(q = pcoll__realloc(p, cap + 1))) {
            pcoll__free(p), fclose(fp);
            return PCOLL_ERR_NOMEM;
        }
        p = q;
        got = fread(p + *len, 1, cap - *len, fp);
        *len += got;
        if (*len < cap || cap >= (size_t)MAX_FILE_BYTES)
            break;
        cap *= 2;
    }
    if (ferror(fp) || *len >= (size_t)MAX_FILE_BYTES) {
        snprintf(f->msg, f->n, "%s: %s", f->path,
                 ferror(fp) ? "read error" : "larger than 16 MiB: not a tuning file");
        pcoll__free(p), fclose(fp);
        *len = 0;
        return PCOLL_ERR_ARG;
    }
    p[*len] = '\0', *text = p;
    fclose(fp);
    return PCOLL_SUCCESS;
}

/* Read and check the file at f->path into a new *out (not yet published). */
static int parse_file(const fault_t *f, pcoll__rules_t **out)
{
    pcoll__json_t root;
    pcoll__rules_t *r;
    char *text, reason[256];
    size_t len;
    int line, rc, i;
    *out = NULL;
    memset(&root, 0, sizeof root);
    if ((rc = read_text(f, &text, &len)) != PCOLL_SUCCESS)
        return rc;
    r = pcoll__calloc(1, sizeof *r);
    rc = r && (r->path = copy_string(f->path)) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
    if (rc == PCOLL_SUCCESS &&
        (rc = pcoll__json_parse(text, len, &root, &line, reason, sizeof reason)) ==
            PCOLL_ERR_ARG)
        bad(f, line, "%s", reason);
    if (rc == PCOLL_SUCCESS)
        rc = read_tree(f, &root, r);
    pcoll__json_free(&root);
    pcoll__free(text);
    if (rc != PCOLL_SUCCESS) {
        rules_free(r);
        return rc;
    }
    for (i = 0; i < MAX_TABLES; i++)
        atomic_init(&r->checked[i], NULL);
    *out = r;
    return PCOLL_SUCCESS;
}

/* ---- checks against a table ----------------------------------------------- */

/* Whether a rule of collective c belongs to the table of collective t. */
static int of_table(int c, int t)
{
    return c == t || (t == COLL_RS && c == COLL_RS_BLOCK);
}

/* Every rule of table's collective names one of its algorithms. */
static int check_table(const fault_t *f, const pcoll__rules_t *r, const pcoll__algo_table_t *table)
{
    char list[400] = "";
    int i, t = coll_index(table->collective);
    const stored_rule_t *bad_rule = NULL;
    for (i = 0; t >= 0 && i < r->nrules && !bad_rule; i++)
        if (of_table(r->rules[i].coll, t) && pcoll__algo_find(table, r->rules[i].algorithm) < 0)
            bad_rule = &r->rules[i];
    if (!bad_rule)
        return PCOLL_SUCCESS;
    for (i = 0; i < table->count; i++)
        if (strcmp(table->algos[i].name, "auto") != 0) {
            strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, table->algos[i].name, sizeof list - strlen(list) - 1);
        }
    return bad(f, bad_rule->line, "unknown %s algorithm \"%s\" (valid: %s)",
               coll_names[bad_rule->coll], bad_rule->algorithm, list);
}

static int was_checked(pcoll__rules_t *r, const pcoll__algo_table_t *table)
{
    int i;
    for (i = 0; i < MAX_TABLES; i++)
        if (atomic_load_explicit(&r->checked[i], memory_order_acquire) == table)
            return 1;
    return 0;
}

/* Remember table as checked (under load_lock: one writer at a time). */
static void mark_checked(pcoll__rules_t *r, const pcoll__algo_table_t *table)
{
    int i;
    pthread_mutex_lock(&load_lock);
    for (i = 0; i < MAX_TABLES && !was_checked(r, table); i++)
        if (!atomic_load_explicit(&r->checked[i], memory_order_relaxed))
            atomic_store_explicit(&r->checked[i], table, memory_order_release);
    pthread_mutex_unlock(&load_lock);
}

/* ---- the list of loaded files ------------------------------------------- */

static pcoll__rules_t *find_loaded(const char *path)
{
    pcoll__rules_t *r = atomic_load_explicit(&loaded, memory_order_acquire);
    for (; r; r = r->next)
        if (strcmp(r->path, path) == 0)
            return r;
    return NULL;
}

/* The loaded file at f->path, parsed now if it is new. */
static int get_file(const fault_t *f, pcoll__rules_t **out)
{
    int rc = PCOLL_SUCCESS;
    if ((*out = find_loaded(f->path)) != NULL)
        return PCOLL_SUCCESS;
    pthread_mutex_lock(&load_lock);
    if (!(*out = find_loaded(f->path)) && (rc = parse_file(f, out)) == PCOLL_SUCCESS) {
        (*out)->next = atomic_load_explicit(&loaded, memory_order_relaxed);
        atomic_store_explicit(&loaded, *out, memory_order_release);
    }
    pthread_mutex_unlock(&load_lock);
    return rc;
}

int pcoll__rules_load(const char *path, const pcoll__algo_table_t *table,
                      const pcoll__rules_t **out)
{
    char msg[MSG_BYTES] = "";
    fault_t f = {path, msg, sizeof msg};
    pcoll__rules_t *r = NULL;
    int rc;
    *out = NULL;
    if (!path || !path[0])
        return pcoll__error(PCOLL_ERR_ARG, "tuning file: empty path");
    rc = get_file(&f, &r);
    if (rc == PCOLL_SUCCESS && !was_checked(r, table)) {
        if ((rc = check_table(&f, r, table)) == PCOLL_SUCCESS)
            mark_checked(r, table);
    }
    if (rc == PCOLL_ERR_NOMEM)
        return pcoll__error(rc, "%s: out of memory reading the tuning file", path);
    if (rc != PCOLL_SUCCESS)
        return pcoll__error(rc, "%s", msg);
    *out = r;
    return PCOLL_SUCCESS;
}

/* ---- lookups -------------------------------------------------------------- */

static int covers(const stored_rule_t *rule, int k, long long value)
{
    return !rule->given[k] || (rule->range[k][0] <= value && value <= rule->range[k][1]);
}

int pcoll__rules_find(const pcoll__rules_t *r, const pcoll__algo_table_t *table,
                      const char *coll, int p, int rpn, long long bytes, pcoll__rule_t *out)
{
    int i, a, want = coll ? coll_index(coll) : -1;
    if (!r || want < 0)
        return 0;
    for (i = 0; i < r->nrules; i++) {
        const stored_rule_t *rule = &r->rules[i];
        /* The block form also takes the rules of both forms. */
        if (rule->coll != want && !(want == COLL_RS_BLOCK && rule->coll == COLL_RS))
            continue;
        if (!covers(rule, RANGE_COMM_SIZE, p) || !covers(rule, RANGE_RPN, rpn > 0 ? rpn : p) ||
            !covers(rule, RANGE_BYTES, bytes))
            continue;
        if ((a = pcoll__algo_find(table, rule->algorithm)) < 0)
            continue;
        *out = rule->params;
        out->algorithm = a;
        return 1;
    }
    return 0;
}
