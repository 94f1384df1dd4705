/*
 * test_bench_options.c -- pcoll-bench's command line
 * (tools/pcoll-bench/options.c, sizes.c): defaults, every option with valid
 * values, the size grammar, the algorithm list, and invalid input, which
 * must be an error with a message, never a crash.  No MPI calls.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static int passed, failed;

static void is(int ok, const char *what)
{
    passed += ok != 0;
    failed += !ok;
    if (!ok)
        printf("FAIL: %s\n", what);
}

/* Parse the NULL-terminated words after the program name. */
static int parse(bench_opts_t *o, char *err, const char *const *words)
{
    char *argv[32] = {"pcoll-bench"};
    int argc = 1;
    while (words[argc - 1] && argc < 31) {
        argv[argc] = (char *)words[argc - 1];
        argc++;
    }
    err[0] = '\0';
    return bench_options_parse(argc, argv, o, err, 256);
}

#define PARSE(o, err, ...) parse(o, err, (const char *const[]){__VA_ARGS__, NULL})

static void test_defaults(void)
{
    bench_opts_t o;
    char err[256];
    is(PARSE(&o, err, NULL) == 0, "no options parse");
    is(strcmp(o.coll, "alltoall") == 0 && o.mode == BENCH_PERSISTENT, "default coll, mode");
    is(o.nsizes == 7 && o.sizes[0] == 8 && o.sizes[6] == 32768, "default sizes 8:65536:x4");
    is(o.reps == 0 && o.warmup == 5 && o.max_time > 0, "default reps automatic");
    is(!o.csv && !o.json && !o.plot && !o.native_sweep, "no files by default");
}

static void test_every_option(void)
{
    bench_opts_t o;
    char err[256];
    is(PARSE(&o, err, "--coll", "alltoallv", "--reps", "5", "--warmup", "0", "--max-time",
             "0.5", "--mode", "blocking", "--pattern", "sparse", "--csv", "a.csv", "--json",
             "a.json", "--plot", "a.png", "--progress", "--native-sweep") == 0,
       "every option parses");
    is(strcmp(o.coll, "alltoallv") == 0, "--coll");
    is(o.reps == 5 && o.warmup == 0 && o.max_time == 0.5, "--reps, --warmup, --max-time");
    is(o.mode == BENCH_BLOCKING && o.pattern == BENCH_SPARSE, "--mode, --pattern");
    is(strcmp(o.csv, "a.csv") == 0 && strcmp(o.json, "a.json") == 0 &&
           strcmp(o.plot, "a.png") == 0, "--csv, --json, --plot");
    is(o.progress && o.native_sweep, "flags");
    is(PARSE(&o, err, "--reps=7", "--mode=nocomm", "--help") == 0 && o.reps == 7 &&
           o.mode == BENCH_NOCOMM && o.help, "--name=value form and --help");
    is(PARSE(&o, err, "--native-only", "--reps", "1000000") == 0 && o.native_only &&
           o.reps == 1000000, "hidden --native-only; largest --reps");
}

/* --sizes arg gives exactly the n sizes want[]. */
static void sizes_are(const char *arg, const long *want, int n)
{
    long sizes[BENCH_MAX_SIZES];
    char err[256], what[128];
    int got = -1, ok = bench_parse_sizes(arg, sizes, &got, err, sizeof err) == 0 && got == n;
    for (int i = 0; ok && i < n; i++)
        ok = sizes[i] == want[i];
    snprintf(what, sizeof what, "--sizes %s", arg);
    is(ok, what);
}

static void test_sizes(void)
{
    long sizes[BENCH_MAX_SIZES];
    char err[256];
    int n;
    sizes_are("8:65536:x2", (const long[]){8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
                                           8192, 16384, 32768, 65536}, 14);
    sizes_are("8:100:x3", (const long[]){8, 24, 72}, 3);
    sizes_are("0:100:+25", (const long[]){0, 25, 50, 75, 100}, 5);
    sizes_are("1k,4k,1m", (const long[]){1024, 4096, 1048576}, 3);
    sizes_are("4:16", (const long[]){4, 8, 16}, 3);
    sizes_are("0", (const long[]){0}, 1);
    sizes_are("5:5:x2", (const long[]){5}, 1);
    sizes_are("1024m", (const long[]){1L << 30}, 1);
    sizes_are("512m:1024m", (const long[]){1L << 29, 1L << 30}, 2);
    sizes_are("1:64,100", (const long[]){1, 2, 4, 8, 16, 32, 64, 100}, 8);
    is(bench_parse_sizes("1:64:+1", sizes, &n, err, sizeof err) == 0 && n == 64,
       "--sizes: exactly BENCH_MAX_SIZES sizes");
}

/* Each argument vector must fail with a message. */
static void test_invalid(void)
{
    static const char *const bad[][4] = {
        {"--reps", "0"}, {"--reps", "-1"}, {"--reps", "abc"}, {"--reps", ""},
        {"--reps", "99999999999999999999"}, {"--reps", "1000001"}, {"--reps", "5x"},
        {"--reps", " "}, {"--warmup", "-1"}, {"--max-time", "0"}, {"--max-time", "nan"},
        {"--max-time", "1e400"}, {"--max-time", "3601"}, {"--mode", "fast"},
        {"--pattern", "zipf"}, {"--coll", "allgather"}, {"--sizes", ""}, {"--sizes", "8:4"},
        {"--sizes", "0:8"}, {"--sizes", "8:16:x1"}, {"--sizes", "8:16:+0"},
        {"--sizes", "8:16:y2"}, {"--sizes", "1:2:x2:4"}, {"--sizes", "8,,16"},
        {"--sizes", "8,"}, {"--sizes", ",8"}, {"--sizes", "8,8"}, {"--sizes", "2g"},
        {"--sizes", "1073741825"}, {"--sizes", "1:65:+1"}, {"--sizes", "-8"},
        {"--sizes", "8k8"}, {"--csv"}, {"--csv", "--json", "x"}, {"--json", ""},
        {"--native-sweep", "--mode", "nocomm"}, {"--native-sweep", "--native-only"},
        {"--choice", "--csv", "x"}, {"--choice", "--native-sweep"}, {"--choice=1"},
        {"--overlap", "--mode", "blocking"}, {"--overlap", "--choice"}, {"--overlap", "--csv", "x"},
        {"--progress=1"}, {"--unknown"}, {"positional"}, {"-x"}, {"--reps"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bench_opts_t o;
        char err[256], what[160];
        int rc = parse(&o, err, bad[i]);
        snprintf(what, sizeof what, "rejected: %s %s %s", bad[i][0], bad[i][1] ? bad[i][1] : "",
                 bad[i][2] ? bad[i][2] : "");
        is(rc == -1 && err[0] != '\0', what);
    }
}

/* Position of name in the alltoall table (-1: not there). */
static int table_index(const char *name)
{
    const char *t;
    for (int i = 0; (t = pcoll_algorithm_name("alltoall", i)) != NULL; i++)
        if (strcmp(t, name) == 0)
            return i;
    return -1;
}

static void test_algorithms(void)
{
    bench_opts_t o;
    char err[256];
    int n = 0, host = 0, i, order = 1;
    const char *name;
    for (; (name = pcoll_algorithm_name("alltoall", n)) != NULL; n++)
        host += strncmp(name, "gpu_", 4) != 0;
    PARSE(&o, err, NULL);
    is(bench_options_algorithms(&o, err, sizeof err) == 0 && o.nalgos == host && host > 0,
       "--algorithms all: the alltoall table but the gpu_ algorithms");
    for (i = 0; i < o.nalgos; i++)
        order &= strncmp(o.algos[i], "gpu_", 4) != 0 &&
                 (i == 0 || table_index(o.algos[i]) > table_index(o.algos[i - 1]));
    is(order, "in table order, no gpu_ algorithm");
    PARSE(&o, err, "--gpu");
    is(bench_options_algorithms(&o, err, sizeof err) == 0 && o.nalgos == n,
       "--gpu --algorithms all: the whole alltoall table");
    PARSE(&o, err, "--algorithms", "pairwise,linear");
    is(bench_options_algorithms(&o, err, sizeof err) == 0 && o.nalgos == 2 &&
           strcmp(o.algos[0], "pairwise") == 0 && strcmp(o.algos[1], "linear") == 0,
       "--algorithms pairwise,linear");
    PARSE(&o, err, "--algorithms", "linear,nope");
    is(bench_options_algorithms(&o, err, sizeof err) == -1 && strstr(err, "nope"),
       "--algorithms: an unknown name is named");
    PARSE(&o, err, "--algorithms", "linear,linear");
    is(bench_options_algorithms(&o, err, sizeof err) == -1, "--algorithms: twice");
    PARSE(&o, err, "--algorithms", "linear,");
    is(bench_options_algorithms(&o, err, sizeof err) == -1, "--algorithms: empty name");
    PARSE(&o, err, "--algorithms", "all,linear");
    is(bench_options_algorithms(&o, err, sizeof err) == -1, "--algorithms: all is alone");
}

static void test_list_items(void)
{
    const char *p = "a,bb,c";
    char item[3];
    is(bench_next_item(&p, item, sizeof item) == 1 && strcmp(item, "a") == 0, "item a");
    is(bench_next_item(&p, item, sizeof item) == 1 && strcmp(item, "bb") == 0, "item bb");
    is(bench_next_item(&p, item, sizeof item) == 1 && strcmp(item, "c") == 0, "item c");
    is(bench_next_item(&p, item, sizeof item) == 0, "end of list");
    p = "abc";
    is(bench_next_item(&p, item, sizeof item) == -1, "overlong item");
    is(bench_coll_known("reduce_scatter_block") && !bench_coll_known("bcast"), "collectives");
    is(bench_coll_find("alltoall") != NULL && bench_coll_find("alltoallv") != NULL &&
           bench_coll_find("reduce_scatter") != NULL &&
           bench_coll_find("reduce_scatter_block") != NULL && bench_coll_find("nonsense") == NULL,
       "every collective available, unknown ones not");
}

int main(void)
{
    test_defaults();
    test_every_option();
    test_sizes();
    test_invalid();
    test_algorithms();
    test_list_items();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
