/*
 * Unit tests of the tuning rules file (base/rules.c, base/json.c): malformed
 * files are refused with PCOLL_ERR_ARG and a message naming the file, the
 * line and the reason; a valid file loads once per path (the same pointer
 * every time, also from several threads at once) and its lookups take the
 * first rule that covers the case, with its parameters.
 *
 * With arguments, it checks a file that pcoll-tune wrote (the test
 * tune_smoke): `unit_rules --check FILE P [COLL...]` loads FILE for every
 * table (accepting "native" also where a table lacks it) and requires a rule
 * at communicator size P, one node, for bytes 0 to 2^40 for each COLL
 * (default alltoall reduce_scatter_block), and none at size P + 1.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rules.h"
#include "select/select.h"

static int passed, failed;
static char dir[] = "/tmp/pcoll-rules-XXXXXX";

static int build_none(pcoll_plan_t *plan, const void *args)
{
    (void)plan, (void)args;
    return PCOLL_ERR_UNSUPPORTED;
}

static const pcoll__algo_t a2a_algos[] = {
    {"linear", "", build_none, 0},      {"pairwise", "", build_none, 0},
    {"bruck_radix", "", build_none, 0}, {"native", "", build_none, 0},
    {"auto", "", NULL, 0},
};
static const pcoll__algo_table_t a2a = {"alltoall", "X", a2a_algos, 5};
static const pcoll__algo_t rs_algos[] = {
    {"mst", "", build_none, 0},
    {"ring", "", build_none, 0},
    {"native", "", build_none, 0},
    {"auto", "", NULL, 0},
};
static const pcoll__algo_table_t rs = {"reduce_scatter", "X", rs_algos, 4};

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: %s\n", what, detail ? detail : "");
}

/* Write text to dir/name; returns the path (static storage, one at a time). */
static const char *put(const char *name, const char *text)
{
    static char path[256];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("cannot write %s\n", path);
        exit(1);
    }
    return path;
}

/* A file that must be refused: ERR_ARG, *out NULL, the message holds
 * "<path>:<line>: " and reason. */
static void refused(const char *name, const char *text, const pcoll__algo_table_t *t, int line,
                    const char *reason)
{
    const pcoll__rules_t *r = (const pcoll__rules_t *)&r;
    const char *path = put(name, text);
    char want[300];
    int rc = pcoll__rules_load(path, t, &r);
    const char *msg = pcoll_last_error();
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    check(rc == PCOLL_ERR_ARG && r == NULL, name, pcoll_err_name(rc));
    check(strstr(msg, want) != NULL, name, msg);
    check(strstr(msg, reason) != NULL, name, msg);
}

#define HEAD "{\"pcoll_tuning\": 1,\n \"rules\": [\n"

static void test_malformed(void)
{
    char deep[300];
    refused("empty", "", &a2a, 1, "unexpected end of file");
    refused("spaces", "  \n\n  ", &a2a, 3, "unexpected end of file");
    refused("syntax", HEAD "  {\"collective\": \"alltoall\" \"algorithm\": \"linear\"}\n]}",
            &a2a, 3, "expected ',' or '}'");
    refused("unknown_algo",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"linear\"},\n"
                 "  {\"collective\": \"alltoall\", \"algorithm\": \"fastest\"}\n]}",
            &a2a, 4, "unknown alltoall algorithm \"fastest\" (valid: linear, pairwise");
    refused("lo_hi",
            HEAD "  {\"collective\": \"alltoall\", \"bytes\": [10, 9],"
                 " \"algorithm\": \"linear\"}]}",
            &a2a, 3, "lo > hi");
    refused("unknown_key",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"linear\", \"speed\": 1}]}",
            &a2a, 3, "unknown key \"speed\"");
    refused("top_key", "{\"pcoll_tuning\": 1,\n \"rules\": [],\n \"extra\": true}", &a2a, 3,
            "unknown key \"extra\"");
    refused("duplicate",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"linear\",\n"
                 "   \"algorithm\": \"pairwise\"}]}",
            &a2a, 4, "duplicate key \"algorithm\"");
    refused("trailing", "{\"pcoll_tuning\": 1, \"rules\": []}\n\n}", &a2a, 3,
            "after the end of the JSON value");
    refused("version", "{\"rules\": [],\n\n \"pcoll_tuning\": 2}", &a2a, 3, "version 2");
    refused("no_version", "\n{\"rules\": []}", &a2a, 2, "no \"pcoll_tuning\"");
    refused("no_rules", "{\"pcoll_tuning\": 1}", &a2a, 1, "no \"rules\" array");
    refused("rules_type", "{\"pcoll_tuning\": 1, \"rules\":\n {}}", &a2a, 2,
            "\"rules\" must be an array");
    refused("not_object", "[1, 2]", &a2a, 1, "one JSON object");
    refused("range_type",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"linear\",\n"
                 "   \"bytes\": \"0-100\"}]}",
            &a2a, 4, "\"bytes\" must be [lo, hi]");
    refused("range_len", HEAD "\n  {\"collective\": \"alltoall\", \"comm_size\": [4]}]}", &a2a, 4,
            "\"comm_size\" must be [lo, hi]");
    refused("negative",
            HEAD "  {\"collective\": \"alltoall\", \"comm_size\": [-1, 4],"
                 " \"algorithm\": \"linear\"}]}",
            &a2a, 3, "negative number -1");
    refused("fraction",
            HEAD "  {\"collective\": \"alltoall\", \"bytes\": [0, 1.5],"
                 " \"algorithm\": \"linear\"}]}",
            &a2a, 3, "two whole numbers");
    refused("collective", HEAD "  {\"collective\": \"allgather\", \"algorithm\": \"linear\"}]}",
            &a2a, 3, "unknown collective \"allgather\"");
    refused("coll_type", HEAD "  {\"collective\": 1, \"algorithm\": \"linear\"}]}", &a2a, 3,
            "\"collective\" must be a string");
    refused("auto", HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"auto\"}]}", &a2a, 3,
            "not \"auto\"");
    refused("no_algo", HEAD "  {\"collective\": \"alltoall\",\n   \"bytes\": [0, 1]}]}", &a2a, 3,
            "without \"algorithm\"");
    refused("no_coll", HEAD "  {\"algorithm\": \"linear\"}]}", &a2a, 3, "without \"collective\"");
    refused("radix0",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"bruck_radix\", \"radix\": 0}]}",
            &a2a, 3, "\"radix\": 0 is not from 1 to");
    refused("radix_neg",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"bruck_radix\","
                 " \"radix\": -2}]}",
            &a2a, 3, "\"radix\": negative number -2");
    refused("radix_type",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"bruck_radix\","
                 " \"radix\": \"4\"}]}",
            &a2a, 3, "\"radix\" must be a whole number");
    refused("rule_type", HEAD "  [\"alltoall\"]]}", &a2a, 3, "a rule must be an object");
    refused("header_type", "{\"pcoll_tuning\": 1,\n \"mpi\": 5, \"rules\": []}", &a2a, 2,
            "\"mpi\" must be a string");
    refused("unterminated", "{\"pcoll_tuning\": 1, \"rules\": [],\n \"host\": \"abc", &a2a, 2,
            "unterminated string");
    refused("control", "{\"pcoll_tuning\": 1, \"rules\": [],\n \"host\": \"a\tb\"}", &a2a, 2,
            "control character 0x09");
    refused("escape", "{\"pcoll_tuning\": 1, \"rules\": [],\n\n \"host\": \"a\\qb\"}", &a2a, 3,
            "unexpected 'q'");
    refused("surrogate", "{\"pcoll_tuning\": 1, \"rules\": [],\n \"host\": \"\\udc00\"}", &a2a, 2,
            "low surrogate");
    refused("nul", "{\"pcoll_tuning\": 1, \"rules\": [],\n \"host\": \"\\u0000\"}", &a2a, 2,
            "\\u0000");
    refused("trailing_comma", "{\"pcoll_tuning\": 1,\n \"rules\": [\n],}", &a2a, 3,
            "expected a key string");
    refused("array_comma", "{\"pcoll_tuning\": 1,\n \"rules\": [1,\n]}", &a2a, 3,
            "expected a value");
    refused("overflow", "{\"pcoll_tuning\":\n 99999999999999999999, \"rules\": []}", &a2a, 2,
            "out of range");
    refused("bad_number", "{\"pcoll_tuning\": -, \"rules\": []}", &a2a, 1, "expected a digit");
    refused("literal", "{\"pcoll_tuning\": 1, \"rules\": [],\n \"host\": nope}", &a2a, 2,
            "unexpected 'n'");
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    refused("deep", deep, &a2a, 1, "nested deeper than 64");
    /* Rules of the reduce-scatter table are checked when it loads them. */
    refused("rs_algo",
            HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"linear\"},\n"
                 "  {\"collective\": \"reduce_scatter_block\", \"algorithm\": \"linear\"}]}",
            &rs, 4, "unknown reduce_scatter_block algorithm \"linear\"");
}

static void test_unreadable(void)
{
    const pcoll__rules_t *r = NULL;
    char path[300];
    snprintf(path, sizeof path, "%s/no-such-file.json", dir);
    check(pcoll__rules_load(path, &a2a, &r) == PCOLL_ERR_ARG && !r, "missing file", NULL);
    check(strstr(pcoll_last_error(), path) && strstr(pcoll_last_error(), "cannot open"),
          "missing file message", pcoll_last_error());
    check(pcoll__rules_load("", &a2a, &r) == PCOLL_ERR_ARG && !r, "empty path", NULL);
    check(pcoll__rules_load(dir, &a2a, &r) == PCOLL_ERR_ARG && !r, "a directory", NULL);
}

static const char valid[] =
    "\xef\xbb\xbf{\"pcoll_tuning\": 1, \"mpi\": \"MPI \\\"x\\\" \\u00e9\\ud83d\\ude00\\n\",\r\n"
    " \"host\": \"h\", \"created\": \"2026-11-26T03:00:00Z\",\r\n"
    " \"rules\": [\n"
    "  {\"collective\": \"alltoall\", \"comm_size\": [2, 2], \"ranks_per_node\": [1, 2], "
    "\"bytes\": [0, 4096], \"algorithm\": \"linear\"},\n"
    "  {\"collective\": \"alltoall\", \"comm_size\": [2, 2], \"ranks_per_node\": [1, 2], "
    "\"bytes\": [4097, 65536], \"algorithm\": \"bruck_radix\", \"radix\": 4},\n"
    "  {\"collective\": \"alltoall\", \"ranks_per_node\": [1, 2], \"bytes\": [0, 100],"
    " \"algorithm\": \"pairwise\", \"ports\": 2, \"throttle\": 3, \"cores_per_node\": 5,"
    " \"aux_buffers\": 6, \"aux_bytes\": 1125899906842624},\n"
    "  {\"collective\": \"alltoall\", \"comm_size\": [2, 2], \"algorithm\": \"native\"},\n"
    "  {\"collective\": \"reduce_scatter_block\", \"comm_size\": [3, 8], "
    "\"bytes\": [0, 1000000000000], \"algorithm\": \"native\"},\n"
    "  {\"collective\": \"reduce_scatter\", \"comm_size\": [3, 8], \"algorithm\": \"ring\"},\n"
    "  {\"collective\": \"alltoallv\", \"algorithm\": \"whatever_alltoallv_has\"}\n"
    " ]}\n";

/* The algorithm name of the rule found (or "-" for none), and its radix. */
static const char *found(const pcoll__rules_t *r, const pcoll__algo_table_t *t, const char *coll,
                         int p, int rpn, long long bytes, pcoll__rule_t *rule)
{
    memset(rule, 0x5a, sizeof *rule);
    if (!pcoll__rules_find(r, t, coll, p, rpn, bytes, rule))
        return "-";
    return t->algos[rule->algorithm].name;
}

static void expect(const pcoll__rules_t *r, const pcoll__algo_table_t *t, const char *coll, int p,
                   int rpn, long long bytes, const char *want)
{
    pcoll__rule_t rule;
    char what[160];
    const char *got = found(r, t, coll, p, rpn, bytes, &rule);
    snprintf(what, sizeof what, "%s p %d rpn %d bytes %lld: want %s", coll, p, rpn, bytes, want);
    check(strcmp(got, want) == 0, what, got);
}

static void test_valid(void)
{
    const pcoll__rules_t *r = NULL, *again = NULL;
    const char *path = put("valid.json", valid);
    pcoll__rule_t rule;
    check(pcoll__rules_load(path, &a2a, &r) == PCOLL_SUCCESS && r, "valid file",
          pcoll_last_error());
    check(pcoll__rules_load(path, &a2a, &again) == PCOLL_SUCCESS && again == r,
          "second load: same pointer", NULL);
    check(pcoll__rules_load(path, &rs, &again) == PCOLL_SUCCESS && again == r,
          "reduce_scatter table: same pointer", pcoll_last_error());
    expect(r, &a2a, "alltoall", 2, 2, 0, "linear");
    expect(r, &a2a, "alltoall", 2, 1, 4096, "linear");
    expect(r, &a2a, "alltoall", 2, 2, 4097, "bruck_radix");
    check(found(r, &a2a, "alltoall", 2, 2, 65536, &rule)[0] == 'b' && rule.radix == 4 &&
              rule.ports == 0 && rule.aux_bytes == 0,
          "bruck_radix's radix 4, nothing else set", NULL);
    expect(r, &a2a, "alltoall", 2, 2, 65537, "native");   /* no bytes range: any */
    expect(r, &a2a, "alltoall", 2, 3, 100, "native");     /* rpn outside [1, 2] */
    expect(r, &a2a, "alltoall", 2, 0, 100, "linear");     /* unknown rpn: p = 2 in [1, 2] */
    expect(r, &a2a, "alltoall", 5, 2, 100, "pairwise");   /* any comm_size */
    expect(r, &a2a, "alltoall", 5, 0, 100, "-");          /* unknown rpn: 5 not in [1, 2] */
    expect(r, &a2a, "alltoall", 5, 2, 101, "-");
    check(found(r, &a2a, "alltoall", 7, 1, 50, &rule)[0] == 'p' && rule.ports == 2 &&
              rule.throttle == 3 && rule.cores_per_node == 5 && rule.aux_buffers == 6 &&
              rule.aux_bytes == 1125899906842624LL && rule.radix == 0,
          "every parameter of the pairwise rule", NULL);
    /* The block form takes the rules of both forms; the irregular one only
     * the reduce_scatter ones. */
    expect(r, &rs, "reduce_scatter_block", 3, 0, 1000000000000LL, "native");
    expect(r, &rs, "reduce_scatter_block", 8, 4, 1000000000001LL, "ring");
    expect(r, &rs, "reduce_scatter", 3, 0, 8, "ring");
    expect(r, &rs, "reduce_scatter", 9, 0, 8, "-");
    expect(r, &rs, "reduce_scatter_block", 2, 0, 8, "-");
    expect(r, &a2a, "alltoall_multi", 2, 2, 8, "-");
    expect(r, &a2a, "nonsense", 2, 2, 8, "-");
    check(!pcoll__rules_find(NULL, &a2a, "alltoall", 2, 2, 8, &rule), "NULL rules", NULL);
}

/* A rule naming an algorithm another table lacks fails that table only,
 * every time, and the file stays loaded for the others. */
static void test_per_table(void)
{
    static const pcoll__algo_t v_algos[] = {{"pairwise", "", build_none, 0},
                                            {"auto", "", NULL, 0}};
    static const pcoll__algo_table_t v = {"alltoallv", "X", v_algos, 2};
    const pcoll__rules_t *r = NULL, *first = NULL;
    const char *path = put("per_table.json",
                           HEAD "  {\"collective\": \"alltoall\", \"algorithm\": \"linear\"},\n"
                                "  {\"collective\": \"alltoallv\", \"algorithm\": \"linear\"}]}");
    char copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    check(pcoll__rules_load(copy, &a2a, &first) == PCOLL_SUCCESS && first, "alltoall table",
          pcoll_last_error());
    check(pcoll__rules_load(copy, &v, &r) == PCOLL_ERR_ARG && !r, "alltoallv table refuses",
          NULL);
    check(strstr(pcoll_last_error(), ":4: unknown alltoallv algorithm \"linear\"") != NULL,
          "alltoallv table message", pcoll_last_error());
    check(pcoll__rules_load(copy, &v, &r) == PCOLL_ERR_ARG && !r, "alltoallv table again", NULL);
    check(pcoll__rules_load(copy, &a2a, &r) == PCOLL_SUCCESS && r == first,
          "alltoall table again", NULL);
}

/* A refused file is read again: fixed, it loads. */
static void test_fixed(void)
{
    const pcoll__rules_t *r = NULL;
    char path[256];
    snprintf(path, sizeof path, "%s", put("fixed.json", "{\"pcoll_tuning\": 1, \"rules\": [}"));
    check(pcoll__rules_load(path, &a2a, &r) == PCOLL_ERR_ARG, "broken", NULL);
    put("fixed.json", "{\"pcoll_tuning\": 1, \"rules\": []}");
    check(pcoll__rules_load(path, &a2a, &r) == PCOLL_SUCCESS && r, "fixed", pcoll_last_error());
}

typedef struct loader {
    const char *path;
    const pcoll__rules_t *got[50];
    int rc;
} loader_t;

static void *load_many(void *arg)
{
    loader_t *l = arg;
    int i;
    for (i = 0; i < 50 && l->rc == PCOLL_SUCCESS; i++)
        l->rc = pcoll__rules_load(l->path, i % 2 ? &rs : &a2a, &l->got[i]);
    return NULL;
}

/* Threads loading the same new file at once get one pointer. */
static void test_threads(void)
{
    loader_t l[4];
    pthread_t th[4];
    char path[256];
    int i, j, same = 1;
    snprintf(path, sizeof path, "%s", put("threads.json", valid));
    for (i = 0; i < 4; i++) {
        memset(&l[i], 0, sizeof l[i]);
        l[i].path = path;
        pthread_create(&th[i], NULL, load_many, &l[i]);
    }
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 50; j++)
            same = same && l[i].rc == PCOLL_SUCCESS && l[i].got[j] == l[0].got[0] && l[0].got[0];
    check(same, "four threads, one pointer", NULL);
}

/* ---- --check: a file from pcoll-tune ------------------------------------- */

/* table with "native" added where it lacks it, into algos (room for
 * count + 1). */
static pcoll__algo_table_t with_native(const pcoll__algo_table_t *t, pcoll__algo_t *algos)
{
    pcoll__algo_table_t c = *t;
    static const pcoll__algo_t native = {"native", "the MPI's own collective", build_none, 0};
    memcpy(algos, t->algos, (size_t)t->count * sizeof *algos);
    if (pcoll__algo_find(t, "native") < 0)
        algos[c.count++] = native;
    c.algos = algos;
    return c;
}

static int check_file(int argc, char **argv)
{
    static const pcoll__algo_table_t *const tables[] = {
        &pcoll__alltoall_table, &pcoll__alltoallv_table, &pcoll__alltoallv_inplace_table,
        &pcoll__reduce_scatter_table};
    static const long long sizes[] = {0, 1, 8, 100, 4096, 1 << 20, 1LL << 40};
    static const char *const def[] = {"alltoall", "reduce_scatter_block"};
    pcoll__algo_t algos[4][64];
    pcoll__algo_table_t t[4];
    const pcoll__rules_t *r = NULL;
    const char *const *colls = argc > 4 ? (const char *const *)argv + 4 : def;
    int ncolls = argc > 4 ? argc - 4 : 2, p = atoi(argv[3]), i, k;
    pcoll__rule_t rule;
    char what[200];
    for (i = 0; i < 4; i++) {
        t[i] = with_native(tables[i], algos[i]);
        check(pcoll__rules_load(argv[2], &t[i], &r) == PCOLL_SUCCESS && r, t[i].collective,
              pcoll_last_error());
    }
    for (k = 0; r && k < ncolls; k++) {
        const pcoll__algo_table_t *tk = strncmp(colls[k], "reduce_scatter", 14) == 0 ? &t[3]
                                        : strcmp(colls[k], "alltoallv") == 0         ? &t[1]
                                        : strcmp(colls[k], "alltoallv_inplace") == 0 ? &t[2]
                                                                                     : &t[0];
        for (i = 0; i < (int)(sizeof sizes / sizeof *sizes); i++) {
            snprintf(what, sizeof what, "%s: a rule at p %d, %lld bytes", colls[k], p, sizes[i]);
            check(pcoll__rules_find(r, tk, colls[k], p, 0, sizes[i], &rule), what, NULL);
        }
        snprintf(what, sizeof what, "%s: no rule at p %d", colls[k], p + 1);
        check(!pcoll__rules_find(r, tk, colls[k], p + 1, 0, 8, &rule), what, NULL);
    }
    printf("tuning file %s: %d passed, %d failed\n", argv[2], passed, failed);
    return failed ? 1 : 0;
}

/* Remove every file written into dir, then dir. */
static void remove_dir(void)
{
    struct dirent *e;
    char path[600];
    DIR *d = opendir(dir);
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--check") == 0)
        return check_file(argc, argv);
    if (argc > 1) {
        printf("usage: %s [--check FILE P [COLL...]]\n", argv[0]);
        return 2;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_malformed();
    test_unreadable();
    test_valid();
    test_per_table();
    test_fixed();
    test_threads();
    remove_dir();
    printf("rules: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
