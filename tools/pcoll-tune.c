/*
 * pcoll-tune: time every algorithm of a collective, at this job's size, on a
 * range of message sizes, against the MPI's own collective, and write the
 * tuning rules file that `auto` reads (pcoll_tuning_file, docs/tuning.md).
 *
 *   mpiexec -n P pcoll-tune [--quick] [--colls LIST] [--sizes LIST] [--out FILE]
 *                           [--ranks-per-node N] [--reps N] [--max-time S] [--progress]
 *
 * For each collective and size (bytes per peer) every algorithm of the
 * collective's table but auto, with its parameter variants, is planned with
 * an MPI_Info naming it (persistent init; one that fails is left out), run
 * twice to warm up, then timed start+wait in rounds: a round runs every
 * candidate once, each after a barrier, and keeps the slowest rank's time
 * (MPI_Reduce MAX); a candidate's time is the median over the rounds.  Two
 * references run among them: the native collective, and auto as the cost
 * model chooses without a rules file.  The fastest wins where it beats both
 * by 3%, and does so again in a second set of rounds against them alone;
 * else the faster reference (the model's, unless native beats it by 3%).
 * Where the model's own choice wins, no rule is written (--every-size: one
 * naming the algorithm it ran), so a rules file never makes auto slower than
 * it is without one, by this measure.  Consecutive sizes with the same
 * winner become one rule; the rules cover bytes 0 to 2^50, the boundaries at the geometric
 * midpoints of the measured sizes, except the ranges of sizes whose times
 * spread too much to decide on (the winner's or native's 95% confidence
 * interval wider than --max-spread times its median: a loaded or
 * oversubscribed machine), which get no rule and a warning.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench.h" /* bench_json_string, bench_oversubscribed, bench_stats_compute */
#include "node_cost.h"
#include "pcoll.h"

#define MAX_SIZES 32
#define MAX_CANDS 64
#define MAX_COLLS 5
#define MAX_BUFFER (256LL << 20) /* bytes of one buffer; larger sizes are left out */
#define TOP_BYTES (1LL << 50)   /* the last rule's upper bound */
#define MARGIN 0.97             /* pcoll over native only when this much faster */
#define WARMUP 2

/* ---- options ------------------------------------------------------------------ */

typedef struct options {
    int quick, progress, verbose, every, reps, rpn;
    double max_time;                 /* seconds; 0: no limit */
    double max_spread;               /* widest CI / median a rule is made from */
    const char *out;
    long long sizes[MAX_SIZES];
    int nsizes;
    const char *colls[MAX_COLLS];
    int ncolls;
} options_t;

static const char usage[] =
    "usage: mpiexec -n P pcoll-tune [options]\n"
    "  --quick              8 B, 512 B, 32 KiB, 1 MiB; alltoall and reduce_scatter_block;\n"
    "                       5 rounds; at most 50 s unless --max-time\n"
    "  --colls LIST         collectives, comma-separated: alltoall, alltoallv,\n"
    "                       alltoallv_inplace, reduce_scatter_block, reduce_scatter\n"
    "                       (default alltoall,alltoallv,reduce_scatter_block)\n"
    "  --sizes LIST         bytes per peer, comma-separated, K and M suffixes allowed\n"
    "                       (default 8 to 2M, times 4)\n"
    "  --out FILE           the rules file (default pcoll-tuning.json)\n"
    "  --ranks-per-node N   ranks per node for the rules and hier (default: detected)\n"
    "  --reps N             timed rounds per size (default 15)\n"
    "  --max-time S         stop measuring after S seconds; the rules cover the sizes done\n"
    "  --max-spread F       no rule for a size where the winner's or native's 95%\n"
    "                       confidence interval is wider than F times its median\n"
    "                       (default 0.5; inf: a rule for every size)\n"
    "  --every-size         a rule also where auto's own choice wins (naming the\n"
    "                       algorithm it ran: a file that pins today's choices)\n"
    "  --progress           a progress line on stderr (automatic on a terminal)\n"
    "  --verbose            every candidate's time at every size on stdout\n";

/* A whole number with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, long long *v)
{
    char *end;
    long long mult = 1;
    *v = strtoll(s, &end, 10);
    if (end == s || *v < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        mult = 1LL << 10, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1LL << 20, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1LL << 30, end++;
    if (*end == 'i')
        end++;
    if (*end == 'B')
        end++;
    if (*end != '\0' || *v > LLONG_MAX / mult)
        return -1;
    *v *= mult;
    return 0;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* "8,4K,1M": sorted, duplicates dropped. */
static int parse_sizes(char *list, options_t *o)
{
    char *save = NULL, *tok;
    int i, n = 0;
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->nsizes == MAX_SIZES || parse_size(tok, &o->sizes[o->nsizes]) != 0)
            return -1;
        o->nsizes++;
    }
    qsort(o->sizes, (size_t)o->nsizes, sizeof *o->sizes, cmp_ll);
    for (i = 0; i < o->nsizes; i++)
        if (n == 0 || o->sizes[i] != o->sizes[n - 1])
            o->sizes[n++] = o->sizes[i];
    o->nsizes = n;
    return n > 0 ? 0 : -1;
}

static const char *const known_colls[] = {"alltoall", "alltoallv", "alltoallv_inplace",
                                          "reduce_scatter_block", "reduce_scatter"};

static int parse_colls(char *list, options_t *o)
{
    char *save = NULL, *tok;
    int k, i;
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (k = 0; k < MAX_COLLS && strcmp(tok, known_colls[k]) != 0; k++)
            ;
        if (k == MAX_COLLS)
            return -1;
        for (i = 0; i < o->ncolls && o->colls[i] != known_colls[k]; i++)
            ;
        if (i == o->ncolls)
            o->colls[o->ncolls++] = known_colls[k];
    }
    return o->ncolls > 0 ? 0 : -1;
}

static void set_defaults(options_t *o, int have_colls, int have_sizes, int have_reps,
                         int have_time)
{
    static const long long quick_sizes[] = {8, 512, 32 << 10, 1 << 20};
    int i;
    if (!have_sizes && o->quick)
        for (o->nsizes = 0; o->nsizes < 4; o->nsizes++)
            o->sizes[o->nsizes] = quick_sizes[o->nsizes];
    else if (!have_sizes)
        for (o->nsizes = 0; o->nsizes < 10; o->nsizes++)
            o->sizes[o->nsizes] = 8LL << (2 * o->nsizes);
    if (!have_colls) {
        o->colls[0] = "alltoall";
        o->colls[1] = o->quick ? "reduce_scatter_block" : "alltoallv";
        o->colls[2] = "reduce_scatter_block";
        o->ncolls = o->quick ? 2 : 3;
    }
    if (!have_reps)
        o->reps = o->quick ? 5 : 15;
    if (!have_time && o->quick)
        o->max_time = 50;
    for (i = 0; i < o->ncolls; i++) /* rules for both forms last: they serve the block form */
        if (strcmp(o->colls[i], "reduce_scatter") == 0 && i + 1 < o->ncolls) {
            memmove(&o->colls[i], &o->colls[i + 1], (size_t)(o->ncolls - i - 1) * sizeof *o->colls);
            o->colls[o->ncolls - 1] = "reduce_scatter";
            break;
        }
}

/* A whole number from lo to hi, or -1. */
static int parse_int(const char *s, int lo, int hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    return end != s && *end == '\0' && v >= lo && v <= hi ? (int)v : -1;
}

/* One option with a value; 0, or -1 for an unknown option or a bad value.
 * have[] notes which defaults the option replaces. */
static int parse_valued(const char *a, char *v, options_t *o, int *have)
{
    char *end;
    if (strcmp(a, "--colls") == 0) {
        have[0] = 1;
        return parse_colls(v, o);
    }
    if (strcmp(a, "--sizes") == 0) {
        have[1] = 1;
        return parse_sizes(v, o);
    }
    if (strcmp(a, "--reps") == 0) {
        have[2] = 1;
        return (o->reps = parse_int(v, 1, 1000)) < 0 ? -1 : 0;
    }
    if (strcmp(a, "--max-time") == 0) {
        have[3] = 1;
        o->max_time = strtod(v, &end);
        return end != v && *end == '\0' && o->max_time > 0 ? 0 : -1;
    }
    if (strcmp(a, "--max-spread") == 0) {
        o->max_spread = strtod(v, &end);
        return end != v && *end == '\0' && o->max_spread > 0 ? 0 : -1;
    }
    if (strcmp(a, "--ranks-per-node") == 0)
        return (o->rpn = parse_int(v, 1, 1 << 20)) < 0 ? -1 : 0;
    if (strcmp(a, "--out") != 0)
        return -1;
    o->out = v;
    return 0;
}

/* Returns 0, 1 for --help, -1 (with a message in why) for a bad option. */
static int parse_options(int argc, char **argv, options_t *o, char *why, size_t n)
{
    int i, have[4] = {0, 0, 0, 0};
    memset(o, 0, sizeof *o);
    o->out = "pcoll-tuning.json";
    o->max_spread = 0.5;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--progress") == 0) {
            o->progress = 1;
        } else if (strcmp(a, "--verbose") == 0) {
            o->verbose = 1;
        } else if (strcmp(a, "--every-size") == 0) {
            o->every = 1;
        } else if (i + 1 == argc) {
            snprintf(why, n, "%s: unknown option, or its value is missing", a);
            return -1;
        } else if (parse_valued(a, argv[++i], o, have) != 0) {
            snprintf(why, n, "%s %s: unknown option or bad value", a, argv[i]);
            return -1;
        }
    }
    set_defaults(o, have[0], have[1], have[2], have[3]);
    return 0;
}

/* Variables that would override the info keys the candidates are planned
 * with: unset (each rank its own environment), listed in note. */
static void clear_environment(char *note, size_t n)
{
    static const char *const vars[] = {
        "PCOLL_ALGORITHM",          "PCOLL_ALLTOALL_ALGORITHM",
        "PCOLL_ALLTOALLV_ALGORITHM", "PCOLL_ALLTOALLV_INPLACE_ALGORITHM",
        "PCOLL_REDUCE_SCATTER_ALGORITHM", "PCOLL_RADIX", "PCOLL_PORTS", "PCOLL_THROTTLE",
        "PCOLL_CORES_PER_NODE", "PCOLL_AUX_BYTES", "PCOLL_AUX_BUFFERS", "PCOLL_TUNING_FILE",
        "PCOLL_NO_COMM"};
    size_t i;
    note[0] = '\0';
    for (i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i])) {
            strncat(note, note[0] ? ", " : "", n - strlen(note) - 1);
            strncat(note, vars[i], n - strlen(note) - 1);
            unsetenv(vars[i]);
        }
}

/* ---- collectives ------------------------------------------------------------ */

/* The buffers of one collective at one size (uniform counts). */
typedef struct bufs {
    MPI_Comm comm;
    int p;
    int count;           /* items per peer */
    char *send, *recv;   /* p * count items each */
    int *counts, *displs;
} bufs_t;

typedef struct coll {
    const char *name;    /* --colls and the rules' collective */
    const char *table;   /* pcoll_algorithm_name's collective */
    int item;            /* bytes of one item (MPI_BYTE or MPI_DOUBLE) */
    int (*init)(const bufs_t *b, MPI_Info info, pcoll_plan_t **plan);
    int (*native)(const bufs_t *b);
} coll_t;

static int a2a_init(const bufs_t *b, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoall_init(b->send, b->count, MPI_BYTE, b->recv, b->count, MPI_BYTE, b->comm,
                               info, plan);
}

static int a2a_native(const bufs_t *b)
{
    return MPI_Alltoall(b->send, b->count, MPI_BYTE, b->recv, b->count, MPI_BYTE, b->comm);
}

static int a2av_init(const bufs_t *b, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoallv_init(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts,
                                b->displs, MPI_BYTE, b->comm, info, plan);
}

static int a2av_native(const bufs_t *b)
{
    return MPI_Alltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs,
                         MPI_BYTE, b->comm);
}

static int inplace_init(const bufs_t *b, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoallv_inplace_init(b->recv, b->counts, b->displs, b->counts, b->displs,
                                        MPI_BYTE, b->comm, info, plan);
}

static int inplace_native(const bufs_t *b)
{
    return MPI_Alltoallv(MPI_IN_PLACE, b->counts, b->displs, MPI_BYTE, b->recv, b->counts,
                         b->displs, MPI_BYTE, b->comm);
}

static int rsb_init(const bufs_t *b, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_reduce_scatter_block_init(b->send, b->recv, b->count, MPI_DOUBLE, MPI_SUM,
                                           b->comm, info, plan);
}

static int rsb_native(const bufs_t *b)
{
    return MPI_Reduce_scatter_block(b->send, b->recv, b->count, MPI_DOUBLE, MPI_SUM, b->comm);
}

static int rs_init(const bufs_t *b, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_reduce_scatter_init(b->send, b->recv, b->counts, MPI_DOUBLE, MPI_SUM, b->comm,
                                     info, plan);
}

static int rs_native(const bufs_t *b)
{
    return MPI_Reduce_scatter(b->send, b->recv, b->counts, MPI_DOUBLE, MPI_SUM, b->comm);
}

static const coll_t colls[] = {
    {"alltoall", "alltoall", 1, a2a_init, a2a_native},
    {"alltoallv", "alltoallv", 1, a2av_init, a2av_native},
    {"alltoallv_inplace", "alltoallv_inplace", 1, inplace_init, inplace_native},
    {"reduce_scatter_block", "reduce_scatter", 8, rsb_init, rsb_native},
    {"reduce_scatter", "reduce_scatter", 8, rs_init, rs_native},
};

static const coll_t *coll_named(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof colls / sizeof *colls; i++)
        if (strcmp(colls[i].name, name) == 0)
            return &colls[i];
    return NULL;
}

/* Items per peer for bytes per peer (reduce-scatter: doubles, rounded up). */
static long long items_for(const coll_t *c, long long bytes)
{
    return (bytes + c->item - 1) / c->item;
}

static void bufs_free(bufs_t *b)
{
    free(b->send), free(b->recv), free(b->counts), free(b->displs);
    memset(b, 0, sizeof *b);
}

/* Zeroed buffers for count items per peer; 0 on success. */
static int bufs_make(bufs_t *b, const coll_t *c, MPI_Comm comm, int p, long long count)
{
    size_t bytes = (size_t)count * (size_t)p * (size_t)c->item;
    int i;
    memset(b, 0, sizeof *b);
    b->comm = comm, b->p = p, b->count = (int)count;
    b->send = calloc(bytes ? bytes : 1, 1);
    b->recv = calloc(bytes ? bytes : 1, 1);
    b->counts = malloc((size_t)p * sizeof *b->counts);
    b->displs = malloc((size_t)p * sizeof *b->displs);
    if (!b->send || !b->recv || !b->counts || !b->displs)
        return -1;
    for (i = 0; i < p; i++)
        b->counts[i] = b->count, b->displs[i] = i * b->count;
    return 0;
}

/* ---- candidates ------------------------------------------------------------- */

typedef struct cand {
    char algo[40];        /* the table's name, or "native" */
    int radix, ports, throttle, cores_per_node; /* 0: not set */
    long long aux_bytes;
    int direct;           /* native through the MPI call itself, not a pcoll plan */
    int model;            /* auto without a rules file: the cost model's choice */
    char picked[40];      /* the model's: the algorithm its plan runs */
    pcoll_plan_t *plan;
    int ok;               /* planned (or direct) */
    double median;        /* rank 0: seconds */
    double spread;        /* rank 0: width of the 95% CI of the mean / median (0: unknown) */
} cand_t;

/* "bruck_radix r=4" */
static const char *label(const cand_t *c, char *buf, size_t n)
{
    int k = c->model ? snprintf(buf, n, "auto=%s", c->picked) : snprintf(buf, n, "%s", c->algo);
    if (c->model)
        return buf;
    if (c->radix)
        k += snprintf(buf + k, n - (size_t)k, " r=%d", c->radix);
    if (c->throttle)
        k += snprintf(buf + k, n - (size_t)k, " t=%d", c->throttle);
    if (c->cores_per_node)
        k += snprintf(buf + k, n - (size_t)k, " c=%d", c->cores_per_node);
    if (c->ports)
        k += snprintf(buf + k, n - (size_t)k, " p=%d", c->ports);
    if (c->aux_bytes)
        snprintf(buf + k, n - (size_t)k, " a=%lld", c->aux_bytes);
    return buf;
}

static cand_t *add(cand_t *list, int *n, const char *algo)
{
    cand_t *c = &list[*n];
    if (*n == MAX_CANDS)
        return NULL;
    memset(c, 0, sizeof *c);
    snprintf(c->algo, sizeof c->algo, "%s", algo);
    (*n)++;
    return c;
}

/* The parameter variants of one algorithm (docs/tuning.md). */
static void add_variants(cand_t *list, int *n, const char *algo, int p, int rpn,
                         long long rank_bytes)
{
    /* bruck_radix: alltoall's and alltoallv's, same parameter;
     * circulant: reduce-scatter's ports per round (radix - 1). */
    static const int radices[] = {2, 3, 4, 8, 16}, throttles[] = {1, 4, 16};
    int cpn[2] = {rpn, p >= 4 && rpn >= 4 ? rpn / 2 : 0}, i, j;
    cand_t *c;
    if (strcmp(algo, "bruck_radix") == 0 || strcmp(algo, "circulant") == 0) {
        for (i = 0; i < 5; i++)
            if (radices[i] <= p && (c = add(list, n, algo)))
                c->radix = radices[i];
    } else if (strcmp(algo, "scattered") == 0) {
        for (i = 0; i < 3; i++)
            if (throttles[i] <= p && (c = add(list, n, algo)))
                c->throttle = throttles[i];
    } else if (strcmp(algo, "hier") == 0) {
        for (i = 0; i < 2 && cpn[i]; i++)
            for (j = 0; j < (cpn[i] > 1 ? 2 : 1); j++)
                if ((c = add(list, n, algo)))
                    c->cores_per_node = cpn[i], c->ports = j ? cpn[i] : 1;
    } else if (strcmp(algo, "inplace") == 0) {
        for (i = 0; i < 2; i++)
            if ((c = add(list, n, algo)))
                c->aux_bytes = rank_bytes / (i ? 10 : 100) > 0 ? rank_bytes / (i ? 10 : 100) : 1;
    } else {
        add(list, n, algo);
    }
}

/* Every algorithm of c's table but auto and the device-buffer ones (gpu_*:
 * host buffers here; docs/gpu.md), with variants, then native, then auto
 * as the cost model chooses without a rules file (the reference a rule
 * must beat). */
static int make_cands(const coll_t *c, int p, int rpn, long long rank_bytes, cand_t *list)
{
    const char *name;
    int i, n = 0, native = 0;
    cand_t *k;
    for (i = 0; (name = pcoll_algorithm_name(c->table, i)) != NULL; i++) {
        if (strcmp(name, "auto") == 0 || strncmp(name, "gpu_", 4) == 0)
            continue;
        if (strcmp(name, "native") == 0)
            native = 1;
        add_variants(list, &n, name, p, rpn, rank_bytes);
    }
    if (!native && (k = add(list, &n, "native")))
        k->direct = 1;
    if ((k = add(list, &n, "auto")))
        k->model = 1;
    return n;
}

static void info_set_int(MPI_Info info, const char *key, long long v)
{
    char buf[32];
    if (v) {
        snprintf(buf, sizeof buf, "%lld", v);
        MPI_Info_set(info, key, buf);
    }
}

/* Plan candidate k (init is collective: every rank gets the same verdict).
 * native, where the table has it but planning fails, falls back to the
 * MPI call itself. */
static void plan(const coll_t *c, const bufs_t *b, cand_t *k)
{
    MPI_Info info;
    k->ok = k->direct;
    if (k->direct)
        return;
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", k->algo);
    info_set_int(info, "pcoll_radix", k->radix);
    info_set_int(info, "pcoll_ports", k->ports);
    info_set_int(info, "pcoll_throttle", k->throttle);
    info_set_int(info, "pcoll_cores_per_node", k->cores_per_node);
    info_set_int(info, "pcoll_aux_bytes", k->aux_bytes);
    k->ok = c->init(b, info, &k->plan) == PCOLL_SUCCESS;
    MPI_Info_free(&info);
    if (k->ok && k->model)
        snprintf(k->picked, sizeof k->picked, "%s", pcoll_plan_algorithm(k->plan));
    if (!k->ok && strcmp(k->algo, "native") == 0)
        k->direct = k->ok = 1;
}

/* One run; a failure ends the job (the other ranks may be waiting in it). */
static void run(const coll_t *c, const bufs_t *b, const cand_t *k, long long bytes)
{
    char buf[96];
    int rc;
    if (k->direct) {
        if ((rc = c->native(b)) == MPI_SUCCESS)
            return;
        fprintf(stderr, "pcoll-tune: %s %lld B: native: MPI error %d\n", c->name, bytes, rc);
    } else {
        rc = pcoll_start(k->plan);
        if (rc == PCOLL_SUCCESS && (rc = pcoll_wait(k->plan)) == PCOLL_SUCCESS)
            return;
        fprintf(stderr, "pcoll-tune: %s %lld B: %s: %s: %s\n", c->name, bytes,
                label(k, buf, sizeof buf), pcoll_err_name(rc), pcoll_last_error());
    }
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---- measuring ------------------------------------------------------------- */

/* The state of the whole run. */
typedef struct tuner {
    options_t o;
    MPI_Comm comm;
    int rank, p, rpn;
    char oversub[128];   /* bench_oversubscribed's line, or "" */
    double start;
    int tty, done, total;
} tuner_t;

/* Rank 0's verdict, shared: has the time limit passed? */
static int over_time(const tuner_t *t)
{
    int over = t->o.max_time > 0 && MPI_Wtime() - t->start > t->o.max_time;
    MPI_Bcast(&over, 1, MPI_INT, 0, t->comm);
    return over;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The width of the 95% confidence interval of the mean of v[0..n) (after
 * Tukey's filter, as pcoll-bench computes it) over median; 0 when it cannot
 * be known (fewer than two rounds kept).  Sorts v. */
static double spread(double *v, int n, double median)
{
    bench_stats_t st;
    bench_stats_compute(v, n, &st);
    return isnan(st.ci95) || median <= 0 ? 0 : 2 * st.ci95 / median;
}

/* Timed rounds over the planned candidates; rank 0 gets each median and
 * spread.  A round runs them all, starting one further along each time. */
static void rounds(const tuner_t *t, const coll_t *c, const bufs_t *b, cand_t *k, int n,
                   long long bytes)
{
    double *mine = calloc((size_t)n, sizeof *mine);
    double *all = calloc((size_t)t->o.reps * n, sizeof *all);
    double *col = calloc((size_t)t->o.reps, sizeof *col);
    int r, i, j, done = 0;
    if (!mine || !all || !col)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (r = 0; r < t->o.reps && !(r >= 3 && over_time(t)); r++, done++) {
        for (j = 0; j < n; j++) {
            cand_t *x = &k[(j + r) % n];
            double t0;
            if (!x->ok)
                continue;
            MPI_Barrier(t->comm);
            t0 = MPI_Wtime();
            run(c, b, x, bytes);
            mine[x - k] = MPI_Wtime() - t0;
        }
        MPI_Reduce(mine, all + (size_t)r * n, n, MPI_DOUBLE, MPI_MAX, 0, t->comm);
    }
    for (i = 0; t->rank == 0 && i < n; i++) {
        for (r = 0; r < done; r++)
            col[r] = all[(size_t)r * n + i];
        k[i].median = median(col, done);
        k[i].spread = spread(col, done, k[i].median);
    }
    free(mine), free(all), free(col);
}

/* What one size gave (rank 0). */
typedef struct result {
    long long bytes;
    cand_t best;
    double native;   /* seconds; 0: not measured */
    double native_spread;
    double model;    /* the cost model's choice (auto without rules), seconds; 0: none */
    int noisy;       /* the times spread too much: no rule (--max-spread) */
} result_t;

/* The fastest, where it is MARGIN faster than the reference (the cost
 * model's own choice, or native where that is MARGIN faster than the
 * model's) and than native; else the reference.  The model's choice makes
 * no rule: a rules file then never loses to auto without one.  Returns the
 * winner's index (-1: none). */
static int choose(const cand_t *k, int n, result_t *res)
{
    int i, best = -1, native = -1, model = -1, ref;
    for (i = 0; i < n; i++) {
        if (!k[i].ok)
            continue;
        if (k[i].model)
            model = i;
        else if (strcmp(k[i].algo, "native") == 0)
            native = i;
        if (best < 0 || k[i].median < k[best].median)
            best = i;
    }
    ref = model >= 0 && !(native >= 0 && k[native].median < MARGIN * k[model].median) ? model
                                                                                     : native;
    if (ref >= 0 && best != ref &&
        !(k[best].median < MARGIN * k[ref].median &&
          (native < 0 || best == native || k[best].median < MARGIN * k[native].median)))
        best = ref;
    if (best < 0) { /* nothing ran: cannot happen while native is a candidate */
        memset(&res->best, 0, sizeof res->best);
        snprintf(res->best.algo, sizeof res->best.algo, "native");
        return -1;
    }
    res->best = k[best];
    res->best.plan = NULL;
    res->native = native >= 0 ? k[native].median : 0;
    res->native_spread = native >= 0 ? k[native].spread : 0;
    res->model = model >= 0 ? k[model].median : 0;
    return best;
}

/* The index of native (model 0) or of the model's choice (model 1) among
 * the candidates (-1: none). */
static int reference_of(const cand_t *k, int n, int model)
{
    int i;
    for (i = 0; i < n; i++)
        if (k[i].ok && (model ? k[i].model : !k[i].model && strcmp(k[i].algo, "native") == 0))
            return i;
    return -1;
}

/* A winner that makes a rule must win again: a second set of rounds of it
 * against native and the model's choice alone, interleaved (a lucky first
 * set, such as a node-aware algorithm whose shared-memory barrier happened
 * to meet its peers at once, does not make a rule).  Collective; rank 0
 * updates *res. */
static void confirm(const tuner_t *t, const coll_t *c, const bufs_t *b, const cand_t *k, int n,
                    int best, long long bytes, result_t *res)
{
    int refs[2] = {reference_of(k, n, 0), reference_of(k, n, 1)}, i, m = 0;
    cand_t set[3];
    MPI_Bcast(&best, 1, MPI_INT, 0, t->comm);
    if (best < 0 || best == refs[1])
        return;
    set[m++] = k[best];
    for (i = 0; i < 2; i++)
        if (refs[i] >= 0 && refs[i] != best)
            set[m++] = k[refs[i]];
    if (m < 2)
        return;
    rounds(t, c, b, set, m, bytes);
    if (t->rank == 0)
        choose(set, m, res);
}

/* Rank 0: whether the winner's or native's times spread too much to make a
 * rule from (a warning on stderr then). */
static int too_spread(const tuner_t *t, const coll_t *c, const result_t *res)
{
    char buf[96];
    int native = res->native_spread > res->best.spread;
    double worst = native ? res->native_spread : res->best.spread;
    if (worst <= t->o.max_spread)
        return 0;
    fprintf(stderr,
            "%spcoll-tune: warning: %s %lld B: the 95%% confidence interval of %s is %.0f%% "
            "of its median (over %.0f%%): no rule for this size\n",
            t->tty ? "\n" : "", c->name, res->bytes,
            native ? "native" : label(&res->best, buf, sizeof buf), 100 * worst,
            100 * t->o.max_spread);
    return 1;
}

/* --verbose: what every candidate took (rank 0). */
static void report(const tuner_t *t, const coll_t *c, long long bytes, const cand_t *k, int n)
{
    char buf[96];
    int i;
    if (!t->o.verbose || t->rank != 0)
        return;
    printf("%s %lld B:\n", c->name, bytes);
    for (i = 0; i < n; i++)
        if (k[i].ok)
            printf("  %-28s %11.1f us\n", label(&k[i], buf, sizeof buf), k[i].median * 1e6);
        else
            printf("  %-28s %11s\n", label(&k[i], buf, sizeof buf), "not planned");
    fflush(stdout);
}

static void progress(tuner_t *t, const coll_t *c, const result_t *res)
{
    char buf[96];
    t->done++;
    if (t->rank != 0 || !t->tty)
        return;
    fprintf(stderr, "\r[%3d/%d] %s %lld B: %-40s", t->done, t->total, c->name, res->bytes,
            label(&res->best, buf, sizeof buf));
    fflush(stderr);
}

/* Measure one collective at one size into *res; 0, or -1 when left out. */
static int measure(tuner_t *t, const coll_t *c, long long bytes, result_t *res)
{
    cand_t k[MAX_CANDS];
    long long count = items_for(c, bytes);
    bufs_t b;
    int n, i, w, best;
    if (count * t->p * c->item > MAX_BUFFER || count > INT_MAX / t->p) {
        if (t->rank == 0)
            fprintf(stderr, "%spcoll-tune: %s %lld B: buffers over %lld MiB, left out\n",
                    t->tty ? "\n" : "", c->name, bytes, MAX_BUFFER >> 20);
        return -1;
    }
    if (bufs_make(&b, c, t->comm, t->p, count) != 0) {
        fprintf(stderr, "pcoll-tune: out of memory for %s %lld B\n", c->name, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    n = make_cands(c, t->p, t->rpn, count * t->p * c->item, k);
    for (i = 0; i < n; i++)
        plan(c, &b, &k[i]);
    for (i = 0; i < n; i++)
        for (w = 0; w < WARMUP && k[i].ok; w++)
            run(c, &b, &k[i], bytes);
    rounds(t, c, &b, k, n, bytes);
    res->bytes = bytes;
    best = t->rank == 0 ? choose(k, n, res) : -1;
    report(t, c, bytes, k, n);
    confirm(t, c, &b, k, n, best, bytes, res);
    res->noisy = t->rank == 0 && too_spread(t, c, res);
    for (i = 0; i < n; i++)
        pcoll_plan_free(&k[i].plan);
    bufs_free(&b);
    return 0;
}

/* ---- output ------------------------------------------------------------------ */

static int same_choice(const cand_t *a, const cand_t *b)
{
    return strcmp(a->model ? a->picked : a->algo, b->model ? b->picked : b->algo) == 0 && a->radix == b->radix && a->ports == b->ports &&
           a->throttle == b->throttle && a->cores_per_node == b->cores_per_node &&
           a->aux_bytes == b->aux_bytes;
}

/* The last byte count of size i's range: the geometric midpoint to the
 * next size, or TOP_BYTES for the last. */
static long long upper(const result_t *res, int n, int i)
{
    long long mid;
    if (i == n - 1)
        return TOP_BYTES;
    mid = (long long)floor(sqrt((double)res[i].bytes * (double)res[i + 1].bytes));
    return mid < res[i].bytes ? res[i].bytes : mid >= res[i + 1].bytes ? res[i + 1].bytes - 1 : mid;
}

static void write_param(FILE *f, const char *key, long long v)
{
    if (v)
        fprintf(f, ", \"%s\": %lld", key, v);
}

/* Whether size i makes no rule: its times spread, or the model's choice
 * won (but with --every-size). */
static int no_rule(const tuner_t *t, const result_t *r)
{
    return r->noisy || (r->best.model && !t->o.every);
}

/* One rule per run of sizes with the same choice, none where no_rule;
 * returns the rules written. */
static int write_rules(FILE *f, const tuner_t *t, const coll_t *c, const result_t *res, int n,
                       int first)
{
    int i, j, rules = 0;
    for (i = 0; i < n; i = j + 1) {
        const cand_t *b = &res[i].best;
        j = i;
        if (no_rule(t, &res[i]))
            continue;
        for (; j + 1 < n && !no_rule(t, &res[j + 1]) && same_choice(&res[j + 1].best, b); j++)
            ;
        fprintf(f, "%s\n  {\"collective\": \"%s\", \"comm_size\": [%d, %d], "
                   "\"ranks_per_node\": [%d, %d], \"bytes\": [%lld, %lld], \"algorithm\": \"%s\"",
                first && rules == 0 ? "" : ",", c->name, t->p, t->p, t->rpn, t->rpn,
                i ? upper(res, n, i - 1) + 1 : 0, upper(res, n, j), b->model ? b->picked : b->algo);
        write_param(f, "radix", b->radix);
        write_param(f, "ports", b->ports);
        write_param(f, "throttle", b->throttle);
        write_param(f, "cores_per_node", b->cores_per_node);
        write_param(f, "aux_bytes", b->aux_bytes);
        fputc('}', f);
        rules++;
    }
    return rules;
}

/* The first line of s, runs of blanks made one space, none at the ends. */
static void first_line(char *s)
{
    char *in = s, *out = s;
    for (; *in && *in != '\n'; in++)
        if (!(*in == ' ' || *in == '\t' || *in == '\r') || (out > s && out[-1] != ' '))
            *out++ = *in == '\t' || *in == '\r' ? ' ' : *in;
    while (out > s && (out[-1] == ' ' || out[-1] == ','))
        out--;
    *out = '\0';
}

static void header(FILE *f)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME], when[32];
    int len = 0;
    time_t now = time(NULL);
    struct tm tm;
    MPI_Get_library_version(lib, &len);
    first_line(lib);
    MPI_Get_processor_name(host, &len);
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("{\"pcoll_tuning\": 1, \"mpi\": ", f);
    bench_json_string(f, lib);
    fputs(", \"host\": ", f);
    bench_json_string(f, host);
    fprintf(f, ", \"created\": \"%s\",\n \"rules\": [", when);
}

/* Rank 0: the rules of every collective into o.out; 0, or -1. */
static int write_file(const tuner_t *t, const coll_t *const *cs, result_t (*res)[MAX_SIZES],
                      const int *nres, int *nrules)
{
    FILE *f = fopen(t->o.out, "w");
    int i;
    *nrules = 0;
    if (!f) {
        perror(t->o.out);
        return -1;
    }
    header(f);
    for (i = 0; i < t->o.ncolls; i++)
        *nrules += write_rules(f, t, cs[i], res[i], nres[i], *nrules == 0);
    fputs("\n ]}\n", f);
    if (ferror(f) | fclose(f)) {
        perror(t->o.out);
        return -1;
    }
    return 0;
}

/* The summary; barrier and shm: the node's terms of the cost model (0: not
 * measured), as environment settings for the cases no rule covers. */
static void summary(const tuner_t *t, const coll_t *const *cs, result_t (*res)[MAX_SIZES],
                    const int *nres, double barrier, double shm)
{
    char buf[96];
    int i, j;
    printf("pcoll-tune: %d ranks, %d per node, %d rounds per size\n", t->p, t->rpn, t->o.reps);
    if (t->oversub[0])
        printf("pcoll-tune: %s\n", t->oversub);
    printf("%-20s %12s  %-24s %11s %11s %11s %8s  %s\n", "collective", "bytes", "chosen",
           "time_us", "native_us", "auto_us", "speedup", "rule");
    for (i = 0; i < t->o.ncolls; i++)
        for (j = 0; j < nres[i]; j++) {
            const result_t *r = &res[i][j];
            printf("%-20s %12lld  %-24s %11.1f %11.1f %11.1f %8.2f  %s\n", cs[i]->name,
                   r->bytes, label(&r->best, buf, sizeof buf), r->best.median * 1e6,
                   r->native * 1e6, r->model * 1e6,
                   r->best.median > 0 && r->native > 0 ? r->native / r->best.median : 0.0,
                   r->noisy ? "none (times spread)" : no_rule(t, r) ? "none (auto's own)" : "yes");
        }
    if (barrier > 0)
        printf("cost model, one node (where no rule decides): export PCOLL_COST_BARRIER=%.3e%s",
               barrier, shm > 0 ? "" : "\n");
    if (barrier > 0 && shm > 0)
        printf(" PCOLL_COST_SHM=%.3e\n", shm);
}

/* ---- main ------------------------------------------------------------------ */

/* Ranks per node: the largest shared-memory group, or --ranks-per-node. */
static int ranks_per_node(MPI_Comm comm, int given)
{
    MPI_Comm node;
    int mine, most;
    if (given > 0)
        return given;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &mine);
    MPI_Comm_free(&node);
    MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, comm);
    return most;
}

/* Every size of every collective; returns 0, or 1 when writing failed. */
static int tune(tuner_t *t)
{
    static result_t res[MAX_COLLS][MAX_SIZES];
    const coll_t *cs[MAX_COLLS];
    int nres[MAX_COLLS] = {0}, i, j, nrules = 0, rc = 0;
    double t0, barrier, shm;
    for (i = 0; i < t->o.ncolls; i++)
        cs[i] = coll_named(t->o.colls[i]);
    for (i = 0; i < t->o.ncolls; i++) {
        t0 = MPI_Wtime();
        for (j = 0; j < t->o.nsizes && !(nres[i] && over_time(t)); j++)
            if (measure(t, cs[i], t->o.sizes[j], &res[i][nres[i]]) == 0)
                progress(t, cs[i], &res[i][nres[i]++]);
        if (t->rank == 0 && !t->tty)
            fprintf(stderr, "pcoll-tune: %s: %d of %d sizes measured, %.1f s\n", cs[i]->name,
                    nres[i], t->o.nsizes, MPI_Wtime() - t0);
    }
    bench_node_cost(t->comm, t->o.reps, &barrier, &shm);
    if (t->rank == 0) {
        if (t->tty)
            fputc('\n', stderr);
        rc = write_file(t, cs, res, nres, &nrules) != 0;
        summary(t, cs, res, nres, barrier, shm);
        if (!rc)
            printf("%d rules written to %s (%.1f s)\n", nrules, t->o.out, MPI_Wtime() - t->start);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, t->comm);
    return rc;
}

int main(int argc, char **argv)
{
    tuner_t t;
    char why[256], cleared[512];
    int rc;
    memset(&t, 0, sizeof t);
    clear_environment(cleared, sizeof cleared);
    MPI_Init(&argc, &argv);
    t.start = MPI_Wtime();
    MPI_Comm_dup(MPI_COMM_WORLD, &t.comm);
    MPI_Comm_rank(t.comm, &t.rank);
    MPI_Comm_size(t.comm, &t.p);
    rc = parse_options(argc, argv, &t.o, why, sizeof why);
    if (rc != 0) {
        if (t.rank == 0)
            fprintf(rc > 0 ? stdout : stderr, "%s%s%s", rc > 0 ? "" : "pcoll-tune: ",
                    rc > 0 ? "" : why, rc > 0 ? usage : "\n");
        MPI_Comm_free(&t.comm);
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }
    if (t.rank == 0 && cleared[0])
        fprintf(stderr, "pcoll-tune: ignoring %s (the candidates name their own)\n", cleared);
    t.rpn = ranks_per_node(t.comm, t.o.rpn);
    if (bench_oversubscribed(t.comm, t.oversub, sizeof t.oversub) && t.rank == 0)
        fprintf(stderr, "pcoll-tune: %s\n", t.oversub);
    t.tty = t.rank == 0 && (t.o.progress || isatty(STDERR_FILENO));
    t.total = t.o.ncolls * t.o.nsizes;
    rc = tune(&t);
    MPI_Comm_free(&t.comm);
    MPI_Finalize();
    return rc;
}
