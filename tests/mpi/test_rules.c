/*
 * test_rules.c -- the tuning rules file (pcoll_tuning_file /
 * PCOLL_TUNING_FILE, docs/tuning.md) through the public calls.
 *
 * A file with rules for this communicator size steers the automatic choice
 * (alltoall at three block sizes, one rule with a radix; reduce_scatter_block
 * and reduce_scatter, whose rules differ), through the info key on the
 * persistent inits and through the environment on the one-shot calls, and
 * the results stay right; an algorithm named explicitly wins over the file;
 * malformed files (syntax, unknown algorithm, lo > hi, unknown key, each
 * wrong on line 3) are refused with PCOLL_ERR_ARG on every rank, the message
 * naming file and line, and leave nothing behind; rules for another
 * communicator size change nothing.  Rank 0 writes the files into a fresh
 * directory that every rank reads.  Without a file, with the cost model's
 * parameters set (PCOLL_COST_*), auto's choice on one node: hier for short
 * alltoall and alltoallv blocks and not for long ones, nor when the node
 * barrier is dear; node_direct and node_ring for the reduce-scatter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "core/plan.h" /* pcoll__last_run_algorithm */

#define MAX_FILES 16

static char dir[256];
static char written[MAX_FILES][300];
static int nwritten;

/* Rank 0 writes the printf-style text to dir/name; every rank gets the path
 * once it is there. */
static const char *put(const char *name, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static const char *put(const char *name, const char *fmt, ...)
{
    char *path = written[nwritten];
    va_list ap;
    FILE *f;
    snprintf(path, sizeof written[0], "%s/%s", dir, name);
    if (pt_rank == 0) {
        if (!(f = fopen(path, "w")))
            PT_MPI(MPI_ERR_OTHER);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        if (fclose(f) != 0)
            PT_MPI(MPI_ERR_OTHER);
    }
    PT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (nwritten < MAX_FILES - 1)
        nwritten++;
    return path;
}

static MPI_Info info_with(const char *key, const char *value)
{
    MPI_Info info;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, key, value));
    return info;
}

/* ---- an int alltoall with closed-form values ------------------------------ */

typedef struct a2a {
    int count, *send, *recv;
} a2a_t;

static void a2a_make(a2a_t *x, int count)
{
    x->count = count;
    x->send = malloc((size_t)count * pt_size * sizeof(int));
    x->recv = malloc((size_t)count * pt_size * sizeof(int));
    if (!x->send || !x->recv)
        PT_MPI(MPI_ERR_NO_MEM);
}

static void a2a_free(a2a_t *x)
{
    free(x->send), free(x->recv);
}

/* Element k of the block from src to dst at run `run`. */
static int a2a_val(int src, int dst, int k, int run)
{
    return ((run * 17 + src) * 64 + dst) * 64 + k;
}

static void a2a_fill(a2a_t *x, int run)
{
    for (int d = 0; d < pt_size; d++)
        for (int k = 0; k < x->count; k++)
            x->send[d * x->count + k] = a2a_val(pt_rank, d, k, run);
    pt_poison(x->recv, (size_t)x->count * pt_size * sizeof(int));
}

static void a2a_check(const a2a_t *x, int run, const char *what)
{
    for (int s = 0; s < pt_size; s++)
        for (int k = 0; k < x->count; k++)
            if (x->recv[s * x->count + k] != a2a_val(s, pt_rank, k, run))
                pt_check_elem(what, s, k, a2a_val(s, pt_rank, k, run), x->recv[s * x->count + k]);
}

static int a2a_init(a2a_t *x, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoall_init(x->send, x->count, MPI_INT, x->recv, x->count, MPI_INT,
                               MPI_COMM_WORLD, info, plan);
}

static int a2a_oneshot(a2a_t *x)
{
    return pcoll_alltoall(x->send, x->count, MPI_INT, x->recv, x->count, MPI_INT,
                          MPI_COMM_WORLD);
}

/* The plan's schedule as pcoll_plan_print writes it, without its first
 * line (which names the plan's own tag); the caller frees it. */
static char *schedule(const pcoll_plan_t *plan)
{
    char *text = NULL, *body;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        PT_MPI(MPI_ERR_NO_MEM);
    PT_OK(pcoll_plan_print(plan, f));
    fclose(f);
    body = strchr(text, '\n');
    memmove(text, body ? body + 1 : text + len, strlen(body ? body + 1 : text + len) + 1);
    return text;
}

/* The algorithm a persistent alltoall plans with info, after checking two
 * runs; into name (size n), and its schedule into *sched unless NULL. */
static void a2a_planned(int count, MPI_Info info, char *name, size_t n, char **sched)
{
    pcoll_plan_t *plan = NULL;
    a2a_t x;
    a2a_make(&x, count);
    name[0] = '\0';
    if (sched)
        *sched = NULL;
    if (PT_OK(a2a_init(&x, info, &plan))) {
        snprintf(name, n, "%s", pcoll_plan_algorithm(plan));
        if (sched)
            *sched = schedule(plan);
        for (int run = 1; run <= 2; run++) {
            a2a_fill(&x, run);
            PT_REQUIRE(pt_run(PCOLL_SUCCESS, plan));
            a2a_check(&x, run, name);
        }
    }
    pcoll_plan_free(&plan);
    a2a_free(&x);
}

/* ---- reduce-scatter of doubles ------------------------------------------- */

/* count doubles per rank; block form, or the irregular form with equal
 * counts.  Element j of rank r's input is r + j; the sum is closed-form. */
static int rs_init(int block, int count, double *send, double *recv, int *counts, MPI_Info info,
                   pcoll_plan_t **plan)
{
    if (block)
        return pcoll_reduce_scatter_block_init(send, recv, count, MPI_DOUBLE, MPI_SUM,
                                               MPI_COMM_WORLD, info, plan);
    return pcoll_reduce_scatter_init(send, recv, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                                     info, plan);
}

static void rs_fill(double *send, double *recv, int count)
{
    for (int j = 0; j < count * pt_size; j++)
        send[j] = pt_rank + j;
    pt_poison(recv, (size_t)count * sizeof(double));
}

static void rs_check(const double *recv, int count, const char *what)
{
    for (int k = 0; k < count; k++) {
        double want = (double)pt_size * (pt_rank * count + k) + pt_size * (pt_size - 1) / 2.0;
        if (recv[k] != want)
            pt_check_elem(what, -1, k, want, recv[k]);
    }
}

/* Plan with info (or run the one-shot call), check, and give the algorithm. */
static void rs_planned(int block, int count, int oneshot, MPI_Info info, char *name, size_t n)
{
    double *send = malloc((size_t)count * pt_size * sizeof(double));
    double *recv = malloc((size_t)count * sizeof(double));
    int *counts = malloc((size_t)pt_size * sizeof(int));
    pcoll_plan_t *plan = NULL;
    name[0] = '\0';
    for (int i = 0; i < pt_size; i++)
        counts[i] = count;
    rs_fill(send, recv, count);
    if (oneshot) {
        PT_REQUIRE(block ? pcoll_reduce_scatter_block(send, recv, count, MPI_DOUBLE, MPI_SUM,
                                                      MPI_COMM_WORLD)
                         : pcoll_reduce_scatter(send, recv, counts, MPI_DOUBLE, MPI_SUM,
                                                MPI_COMM_WORLD));
        snprintf(name, n, "%s", pcoll__last_run_algorithm);
        rs_check(recv, count, "one-shot");
    } else if (PT_OK(rs_init(block, count, send, recv, counts, info, &plan))) {
        snprintf(name, n, "%s", pcoll_plan_algorithm(plan));
        PT_REQUIRE(pt_run(PCOLL_SUCCESS, plan));
        rs_check(recv, count, name);
    }
    pcoll_plan_free(&plan);
    free(send), free(recv), free(counts);
}

static void is_algorithm(const char *got, const char *want, const char *how)
{
    PT_CHECK(strcmp(got, want) == 0, "%s: algorithm %s, want %s", how, got, want);
}

/* ---- the cases ------------------------------------------------------------- */

/* Rules for this size: 12 B pairwise, 20 B linear, 200 B bruck_radix with
 * radix 3 (p >= 3); reduce_scatter_block pairwise, reduce_scatter (both
 * forms, but the block form meets its own rule first) recursive_halving. */
static const char *steering_file(void)
{
    char radix[200] = "";
    if (pt_size >= 3)
        snprintf(radix, sizeof radix,
                 "  {\"collective\": \"alltoall\", \"comm_size\": [%d, %d], \"bytes\": [101, 1000],"
                 " \"algorithm\": \"bruck_radix\", \"radix\": 3},\n",
                 pt_size, pt_size);
    return put("steer.json",
               "{\"pcoll_tuning\": 1, \"mpi\": \"any\", \"host\": \"test\",\n \"rules\": [\n"
               "  {\"collective\": \"alltoall\", \"comm_size\": [%d, %d], \"bytes\": [0, 15],"
               " \"algorithm\": \"pairwise\"},\n"
               "  {\"collective\": \"alltoall\", \"comm_size\": [%d, %d], \"bytes\": [16, 100],"
               " \"algorithm\": \"linear\"},\n%s"
               "  {\"collective\": \"reduce_scatter_block\", \"comm_size\": [%d, %d],"
               " \"bytes\": [0, 1000], \"algorithm\": \"pairwise\"},\n"
               "  {\"collective\": \"reduce_scatter\", \"comm_size\": [%d, %d],"
               " \"algorithm\": \"recursive_halving\"}\n ]}\n",
               pt_size, pt_size, pt_size, pt_size, radix, pt_size, pt_size, pt_size, pt_size);
}

/* The rule's radix is applied: the plan the file gives at 200 B has the
 * schedule of bruck_radix asked for with pcoll_radix 3. */
static void same_as_radix3(MPI_Info file)
{
    MPI_Info info = info_with("pcoll_algorithm", "bruck_radix");
    char name[64], *ruled, *asked;
    pt_case("the rule's radix 3: the schedule of pcoll_radix=3");
    PT_MPI(MPI_Info_set(info, "pcoll_radix", "3"));
    a2a_planned(50, file, name, sizeof name, &ruled);
    a2a_planned(50, info, name, sizeof name, &asked);
    PT_CHECK(ruled && asked && strcmp(ruled, asked) == 0,
             "schedule from the rule:\n%s\nwith pcoll_radix=3:\n%s", ruled ? ruled : "-",
             asked ? asked : "-");
    free(ruled), free(asked);
    PT_MPI(MPI_Info_free(&info));
}

static void test_steer_persistent(const char *path)
{
    static const struct {
        int count;
        const char *want;
    } cases[] = {{3, "pairwise"}, {5, "linear"}, {50, "bruck_radix"}};
    MPI_Info info = info_with("pcoll_tuning_file", path);
    char name[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].count == 50 && pt_size < 3)
            continue;
        pt_case("info pcoll_tuning_file: alltoall %d B -> %s", cases[i].count * 4,
                cases[i].want);
        a2a_planned(cases[i].count, info, name, sizeof name, NULL);
        is_algorithm(name, cases[i].want, "persistent alltoall");
    }
    if (pt_size >= 3)
        same_as_radix3(info);
    pt_case("info pcoll_tuning_file: reduce_scatter_block 32 B -> pairwise");
    rs_planned(1, 4, 0, info, name, sizeof name);
    is_algorithm(name, "pairwise", "persistent reduce_scatter_block");
    pt_case("info pcoll_tuning_file: reduce_scatter 32 B -> recursive_halving");
    rs_planned(0, 4, 0, info, name, sizeof name);
    is_algorithm(name, "recursive_halving", "persistent reduce_scatter");
    PT_MPI(MPI_Info_free(&info));
}

static void test_steer_oneshot(const char *path)
{
    static const struct {
        int count;
        const char *want;
    } cases[] = {{3, "pairwise"}, {5, "linear"}, {50, "bruck_radix"}};
    char name[64];
    a2a_t x;
    setenv("PCOLL_TUNING_FILE", path, 1);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].count == 50 && pt_size < 3)
            continue;
        pt_case("PCOLL_TUNING_FILE: one-shot alltoall %d B -> %s", cases[i].count * 4,
                cases[i].want);
        a2a_make(&x, cases[i].count);
        a2a_fill(&x, 3);
        PT_REQUIRE(a2a_oneshot(&x));
        a2a_check(&x, 3, "one-shot");
        is_algorithm(pcoll__last_run_algorithm, cases[i].want, "one-shot alltoall");
        a2a_free(&x);
    }
    pt_case("PCOLL_TUNING_FILE: one-shot reduce_scatter_block -> pairwise");
    rs_planned(1, 4, 1, MPI_INFO_NULL, name, sizeof name);
    is_algorithm(name, "pairwise", "one-shot reduce_scatter_block");
    unsetenv("PCOLL_TUNING_FILE");
}

/* A rule naming hier (its planning communicates) decides for persistent
 * plans, but not for the one-shot call, which each rank plans alone (hier
 * there could hang ranks whose caches differ): the model decides. */
static void test_collective_rule(void)
{
    const char *path =
        put("hier.json",
            "{\"pcoll_tuning\": 1, \"rules\": [\n"
            "  {\"collective\": \"alltoall\", \"comm_size\": [%d, %d], \"algorithm\": \"hier\"}\n"
            " ]}\n",
            pt_size, pt_size);
    MPI_Info info = info_with("pcoll_tuning_file", path);
    char name[64];
    a2a_t x;
    pt_case("a rule naming hier: persistent alltoall -> hier");
    a2a_planned(6, info, name, sizeof name, NULL);
    is_algorithm(name, "hier", "persistent alltoall, hier rule");
    PT_MPI(MPI_Info_free(&info));
    pt_case("a rule naming hier: one-shot alltoall is not hier, and right");
    setenv("PCOLL_TUNING_FILE", path, 1);
    a2a_make(&x, 6);
    a2a_fill(&x, 4);
    PT_REQUIRE(a2a_oneshot(&x));
    a2a_check(&x, 4, "one-shot, hier rule");
    PT_CHECK(strcmp(pcoll__last_run_algorithm, "hier") != 0,
             "the one-shot call ran hier from a rule");
    a2a_free(&x);
    unsetenv("PCOLL_TUNING_FILE");
}

/* An alltoallw rule steers pcoll_alltoallw_init's automatic choice. */
static void test_alltoallw_rule(void)
{
    const char *path = put("w.json", "{\"pcoll_tuning\": 1, \"rules\": [\n"
                                     "  {\"collective\": \"alltoallw\", \"algorithm\": \"linear\"}\n"
                                     " ]}\n");
    MPI_Info info = info_with("pcoll_tuning_file", path);
    int *ints = malloc(sizeof(int) * 6 * (size_t)pt_size);
    int *sc = ints + 2 * pt_size, *sd = sc + pt_size, *rd = sd + pt_size, *recv = ints + pt_size;
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)pt_size);
    pcoll_plan_t *plan = NULL;
    pt_case("an alltoallw rule: persistent alltoallw -> linear");
    for (int i = 0; i < pt_size; i++) {
        ints[i] = pt_rank * 100 + i, recv[i] = -1, sc[i] = 1, types[i] = MPI_INT;
        sd[i] = rd[i] = i * (int)sizeof(int);
    }
    if (PT_OK(pcoll_alltoallw_init(ints, sc, sd, types, recv, sc, rd, types, MPI_COMM_WORLD,
                                   info, &plan))) {
        is_algorithm(pcoll_plan_algorithm(plan), "linear", "persistent alltoallw, rule");
        PT_REQUIRE(pcoll_start(plan));
        PT_REQUIRE(pcoll_wait(plan));
        for (int i = 0; i < pt_size; i++)
            pt_check_elem("alltoallw", i, 0, i * 100 + pt_rank, recv[i]);
    }
    pcoll_plan_free(&plan);
    PT_MPI(MPI_Info_free(&info));
    free(ints);
    free(types);
}

/* An algorithm named in the call (or PCOLL_ALGORITHM) overrides the file. */
static void test_explicit_wins(const char *path)
{
    MPI_Info info = info_with("pcoll_tuning_file", path);
    char name[64];
    pt_case("pcoll_algorithm=scattered with a file that says pairwise -> scattered");
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", "scattered"));
    a2a_planned(3, info, name, sizeof name, NULL);
    is_algorithm(name, "scattered", "explicit over the file");
    PT_MPI(MPI_Info_free(&info));
}

/* Refused on every rank, message naming file and line 3; then the same call
 * without the file (and the one-shot call) work. */
static void test_malformed(void)
{
    static const struct {
        const char *name, *rule, *reason;
    } bad[] = {
        {"syntax.json", "{\"collective\": \"alltoall\" \"algorithm\": \"linear\"}", "expected"},
        {"algo.json", "{\"collective\": \"alltoall\", \"algorithm\": \"quickest\"}",
         "unknown alltoall algorithm \"quickest\""},
        {"lohi.json",
         "{\"collective\": \"alltoall\", \"bytes\": [100, 10], \"algorithm\": \"linear\"}",
         "lo > hi"},
        {"key.json", "{\"collective\": \"alltoall\", \"algorithm\": \"linear\", \"fast\": true}",
         "unknown key \"fast\""},
    };
    char where[300], name[64];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *path =
            put(bad[i].name, "{\"pcoll_tuning\": 1,\n \"rules\": [\n  %s\n ]}\n", bad[i].rule);
        MPI_Info info = info_with("pcoll_tuning_file", path);
        pcoll_plan_t *plan = (pcoll_plan_t *)&plan;
        a2a_t x;
        pt_case("malformed %s: ERR_ARG on every rank, line 3 named", bad[i].name);
        a2a_make(&x, 3);
        PT_RC(a2a_init(&x, info, &plan), PCOLL_ERR_ARG);
        PT_CHECK(plan == NULL, "plan not NULL after a refused init");
        snprintf(where, sizeof where, "%s:3: ", path);
        PT_CHECK(strstr(pcoll_last_error(), where) && strstr(pcoll_last_error(), bad[i].reason),
                 "message \"%s\" lacks \"%s\" or \"%s\"", pcoll_last_error(), where,
                 bad[i].reason);
        pt_case("malformed %s: an algorithm named in the call never reads it", bad[i].name);
        PT_MPI(MPI_Info_set(info, "pcoll_algorithm", "pairwise"));
        a2a_planned(3, info, name, sizeof name, NULL);
        is_algorithm(name, "pairwise", "explicit with a refused file");
        setenv("PCOLL_TUNING_FILE", path, 1);
        PT_RC(a2a_oneshot(&x), PCOLL_ERR_ARG);
        setenv("PCOLL_ALLTOALL_ALGORITHM", "pairwise", 1);
        a2a_fill(&x, 5);
        PT_REQUIRE(a2a_oneshot(&x));
        a2a_check(&x, 5, "one-shot naming its algorithm with the refused file");
        unsetenv("PCOLL_ALLTOALL_ALGORITHM");
        unsetenv("PCOLL_TUNING_FILE");
        a2a_fill(&x, 4);
        PT_REQUIRE(a2a_oneshot(&x));
        a2a_check(&x, 4, "one-shot after the refused file");
        a2a_planned(3, MPI_INFO_NULL, name, sizeof name, NULL);
        a2a_free(&x);
        PT_MPI(MPI_Info_free(&info));
    }
}

/* Rules for p + 1 ranks (every size, every collective) change nothing. */
static void test_other_size(void)
{
    const char *path = put(
        "other.json",
        "{\"pcoll_tuning\": 1, \"rules\": [\n"
        "  {\"collective\": \"alltoall\", \"comm_size\": [%d, %d], \"algorithm\": \"linear\"},\n"
        "  {\"collective\": \"alltoall\", \"comm_size\": [%d, %d], \"algorithm\": \"pairwise\"},\n"
        "  {\"collective\": \"reduce_scatter\", \"comm_size\": [%d, %d], \"algorithm\": \"mst\"},\n"
        "  {\"collective\": \"reduce_scatter\", \"comm_size\": [%d, %d], \"algorithm\": \"ring\"}\n"
        " ]}\n",
        pt_size + 1, pt_size + 1, pt_size + 1, pt_size + 1, pt_size + 1, pt_size + 1,
        pt_size + 1, pt_size + 1);
    static const int counts[] = {1, 5, 50, 4000};
    MPI_Info info = info_with("pcoll_tuning_file", path);
    char with[64], without[64];
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        pt_case("rules for %d ranks: alltoall %d B as without the file", pt_size + 1,
                counts[i] * 4);
        a2a_planned(counts[i], info, with, sizeof with, NULL);
        a2a_planned(counts[i], MPI_INFO_NULL, without, sizeof without, NULL);
        is_algorithm(with, without, "another size's rules");
        pt_case("rules for %d ranks: reduce_scatter_block %d B as without", pt_size + 1,
                counts[i] * 8);
        rs_planned(1, counts[i], 0, info, with, sizeof with);
        rs_planned(1, counts[i], 0, MPI_INFO_NULL, without, sizeof without);
        is_algorithm(with, without, "another size's rules");
    }
    PT_MPI(MPI_Info_free(&info));
}

/* The algorithm a persistent alltoallv with count ints to every peer plans,
 * after checking one run. */
static void a2av_planned(int count, char *name, size_t n)
{
    int *ints = malloc(3 * sizeof(int) * (size_t)pt_size), *displs = ints + pt_size;
    int *counts = displs + pt_size;
    pcoll_plan_t *plan = NULL;
    a2a_t x;
    a2a_make(&x, count);
    name[0] = '\0';
    for (int i = 0; i < pt_size; i++)
        counts[i] = count, displs[i] = i * count;
    if (PT_OK(pcoll_alltoallv_init(x.send, counts, displs, MPI_INT, x.recv, counts, displs,
                                   MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &plan))) {
        snprintf(name, n, "%s", pcoll_plan_algorithm(plan));
        a2a_fill(&x, 5);
        PT_REQUIRE(pt_run(PCOLL_SUCCESS, plan));
        a2a_check(&x, 5, name);
    }
    pcoll_plan_free(&plan);
    a2a_free(&x);
    free(ints);
}

/* The model's parameters as PCOLL_COST_* (pcoll-probe's names): the
 * defaults of src/model written out, so that the choice does not depend on
 * the MPI's own defaults, and the node barrier's (s per rank) last. */
static const char *const cost_vars[][2] = {
    {"PCOLL_COST_ALPHA", "1e-6"}, {"PCOLL_COST_BETA", "2e-10"}, {"PCOLL_COST_GAMMA", "1e-10"},
    {"PCOLL_COST_DELTA", "2e-8"}, {"PCOLL_COST_CPU", "5e-8"},   {"PCOLL_COST_DDT", "3e-10"},
    {"PCOLL_COST_CALL", "5e-7"},  {"PCOLL_COST_PCALL", "8e-7"}, {"PCOLL_COST_MARGIN", "0.1"},
    {"PCOLL_COST_SHM", "4.5e-10"},  {"PCOLL_COST_BARRIER", NULL},
};

/* Set them, with barrier (NULL: unset them all). */
static void set_cost(const char *barrier)
{
    size_t n = sizeof cost_vars / sizeof *cost_vars;
    for (size_t i = 0; i < n; i++) {
        const char *v = i + 1 < n ? cost_vars[i][1] : barrier;
        if (barrier)
            setenv(cost_vars[i][0], v, 1);
        else
            unsetenv(cost_vars[i][0]);
    }
}

/* Every rank on one node, at least two: the one-node choices. */
static void test_one_node(void)
{
    MPI_Comm node;
    int m = 0;
    char name[64];
    PT_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    PT_MPI(MPI_Comm_size(node, &m));
    PT_MPI(MPI_Comm_free(&node));
    if (pt_size < 2 || m < pt_size)
        return;
    set_cost("9e-8");
    pt_case("one node, model: alltoall 8 B -> hier, 64 KiB -> not hier");
    a2a_planned(2, MPI_INFO_NULL, name, sizeof name, NULL);
    is_algorithm(name, "hier", "alltoall 8 B on one node");
    a2a_planned(16384, MPI_INFO_NULL, name, sizeof name, NULL);
    PT_CHECK(strcmp(name, "hier") != 0, "alltoall 64 KiB on one node: hier");
    pt_case("one node, model: alltoallv 8 B -> hier, 64 KiB -> not hier");
    a2av_planned(2, name, sizeof name);
    is_algorithm(name, "hier", "alltoallv 8 B on one node");
    a2av_planned(16384, name, sizeof name);
    PT_CHECK(strcmp(name, "hier") != 0, "alltoallv 64 KiB on one node: hier");
    pt_case("one node, model: reduce_scatter_block 8 B -> node_direct, 8 KiB -> node_ring");
    rs_planned(1, 1, 0, MPI_INFO_NULL, name, sizeof name);
    is_algorithm(name, "node_direct", "reduce_scatter_block 8 B on one node");
    rs_planned(1, 1024, 0, MPI_INFO_NULL, name, sizeof name);
    is_algorithm(name, "node_ring", "reduce_scatter_block 8 KiB on one node");
    pt_case("one node, model: a node barrier of 1 ms per rank -> alltoall 8 B not hier");
    set_cost("1e-3");
    a2a_planned(2, MPI_INFO_NULL, name, sizeof name, NULL);
    PT_CHECK(strcmp(name, "hier") != 0, "alltoall 8 B, dear barrier: hier");
    set_cost(NULL);
}

/* ---- main -------------------------------------------------------------------- */

static void make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    if (pt_rank == 0) {
        snprintf(dir, sizeof dir, "%s/pcoll-rules-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            PT_MPI(MPI_ERR_OTHER);
    }
    PT_MPI(MPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD));
}

static void remove_dir(void)
{
    PT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (pt_rank != 0)
        return;
    for (int i = 0; i < nwritten; i++)
        unlink(written[i]);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const char *steer;
    pt_init(&argc, &argv);
    unsetenv("PCOLL_TUNING_FILE");
    make_dir();
    steer = steering_file();
    test_steer_persistent(steer);
    test_steer_oneshot(steer);
    test_explicit_wins(steer);
    test_collective_rule();
    test_alltoallw_rule();
    test_malformed();
    test_other_size();
    test_one_node();
    pt_case_end();
    remove_dir();
    return pt_finish();
}
