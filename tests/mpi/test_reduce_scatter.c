/*
 * test_reduce_scatter.c -- every reduce_scatter algorithm, both forms (block
 * and counts), against closed-form values and MPI_Reduce_scatter(_block).
 *
 * Sweep: algorithms (the library's table, auto included) x entries; an entry
 * is an op on a type, a shape of the counts, a communicator (world,
 * reversed, split by rank % 3, halves) and a set of modes:
 *   oneshot     pcoll_reduce_scatter(_block), algorithm from
 *               PCOLL_REDUCE_SCATTER_ALGORITHM; also compared byte for byte
 *               with MPI_Reduce_scatter(_block) on the same input (for a
 *               derived type of doubles MPI reduces plain doubles: MPI
 *               defines predefined ops on predefined types only)
 *   persistent  *_init with info pcoll_algorithm; three starts with new input
 *               each time, the last completed by a pcoll_test loop; the info
 *               and a duplicate of a derived type are freed right after init
 *   inplace     MPI_IN_PLACE one-shot: the input in recvbuf, which holds the
 *               whole vector; the result at its start
 *   inplace_p   MPI_IN_PLACE persistent, three starts (wait, wait, test)
 *
 * Ops (all data integer-valued, so every result is exact): MPI_SUM on int,
 * double, a vector of doubles with gaps and a double with a negative lower
 * bound; MPI_MAX on double; MPI_BAND on int; MPI_MAXLOC on MPI_DOUBLE_INT
 * (with ties); a commutative user op a+b+1 on int; a non-commutative user op,
 * the product of 2x2 integer matrices mod a prime (a contiguous of 4 ints),
 * whose closed form is M(0) M(1) ... M(p-1) in rank order.  ring and
 * ring_prepost must answer PCOLL_ERR_UNSUPPORTED for it on every rank and
 * leave the receive buffer alone; auto must pick an order-keeping algorithm.
 *
 * Counts: block 0, 1, 5, 400; counts form (3i+1)%4 (zeros every fourth
 * rank), all zero, ((5i+2)%7)*13 (zeros every seventh), only the last rank.
 *
 * A run ahead: node_direct with rank 0 finishing a run and starting the
 * next before the others wait for the first (pt_run_ahead).
 *
 * Every receive buffer is poisoned before every run; the bytes outside the
 * type map (gaps, guards, the hole below a negative lower bound) must stay
 * poison; the send buffer must come back unchanged.  Bad input comes first:
 * each returns its code on every rank with a NULL plan.
 *
 * The default sweep is a covering subset (see default_sweep); PT_FULL=1 in
 * the environment runs every op x shape x communicator in every mode.  A
 * case that makes no progress for a minute, or an MPI error, aborts the job
 * with the case named.
 *
 * Usage: test_reduce_scatter [algorithm [long]]   (default: every algorithm;
 * long: only vectors of 70000-item blocks, persistent)
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define COLL "reduce_scatter"
#define PRIME 65521 /* matrix entries live mod PRIME: products fit in 64 bits */

enum mode { M_ONESHOT = 1, M_PERSIST = 2, M_INPLACE = 4, M_INPLACE_P = 8, M_ALL = 15 };
enum { RUNS = 3 }; /* starts of a persistent plan; the last one uses pcoll_test */

/* ---- watchdog: a hung case names itself instead of running into the
 * test driver's timeout ------------------------------------------------------ */

#define WATCHDOG_S 60 /* seconds: far above any case's time, even at np 16 */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Append text to line at *n (async-signal-safe, no libc formatting). */
static void append(char *line, size_t cap, size_t *n, const char *text)
{
    while (*text && *n + 1 < cap)
        line[(*n)++] = *text++;
}

/* One line in one write(), so that the ranks' lines do not interleave. */
static void on_alarm(int sig)
{
    char line[640], digits[16];
    size_t n = 0;
    int d = (int)sizeof digits - 1, r = pt_rank;
    (void)sig;
    digits[d] = '\0';
    do {
        digits[--d] = (char)('0' + r % 10);
        r /= 10;
    } while (r && d > 0);
    append(line, sizeof line, &n, "rank ");
    append(line, sizeof line, &n, digits + d);
    append(line, sizeof line, &n, ": no progress for " STR(WATCHDOG_S) " s, aborting (a hang?) [");
    append(line, sizeof line, &n, pt_context());
    append(line, sizeof line, &n, "]");
    line[n++] = '\n';
    if (write(STDOUT_FILENO, line, n) < 0)
        _exit(6);
    _exit(5);
}

static void watchdog_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
}

/* An MPI error (inside pcoll too: an op MPI refuses, say) stays fatal, as
 * by default, but names the case first.  (Not MPI_ERRORS_RETURN: with it,
 * MPICH's MPI_Abort on MPI_COMM_WORLD returns instead of aborting.) */
static void on_mpi_error(MPI_Comm *comm, int *code, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    (void)comm;
    MPI_Error_string(*code, text, &len);
    pt_fail("MPI error, aborting: %.300s", text);
    MPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

static void errhandler_install(void)
{
    MPI_Errhandler eh;
    PT_MPI(MPI_Comm_create_errhandler(on_mpi_error, &eh));
    PT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    PT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
    PT_MPI(MPI_Errhandler_free(&eh));
}

/* Open a case and rearm the watchdog. */
#define CASE(...) (pt_case(__VA_ARGS__), (void)alarm(WATCHDOG_S))

/* ---- layouts: the harness's plus MPI_DOUBLE_INT and a 2x2 int matrix ---- */

enum lay { L_INT, L_DOUBLE, L_VEC, L_NEGLB, L_DINT, L_MAT, L_STRUCT, L_COUNT };
static pt_layout lays[L_COUNT];

struct dint {
    double d;
    int i;
};

static void make_dint(pt_layout *lay)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
    *lay = (pt_layout){.name = "double_int", .type = MPI_DOUBLE_INT, .nelem = 2, .lb = lb,
                       .extent = extent, .disp = {offsetof(struct dint, d),
                                                  offsetof(struct dint, i)},
                       .kind = {'d', 'i'}};
    if (lb != 0 || extent != (MPI_Aint)sizeof(struct dint)) {
        pt_fail("MPI_DOUBLE_INT has lb %ld extent %ld, not struct {double; int}", (long)lb,
                (long)extent);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

static void make_mat(pt_layout *lay)
{
    *lay = (pt_layout){.name = "mat2x2i", .nelem = 4, .extent = 4 * sizeof(int),
                       .disp = {0, sizeof(int), 2 * sizeof(int), 3 * sizeof(int)},
                       .kind = {'i', 'i', 'i', 'i'}, .owned = 1};
    PT_MPI(MPI_Type_contiguous(4, MPI_INT, &lay->type));
    PT_MPI(MPI_Type_commit(&lay->type));
}

static void layouts_make(void)
{
    pt_layout_make(&lays[L_INT], PT_L_INT);
    pt_layout_make(&lays[L_DOUBLE], PT_L_DOUBLE);
    pt_layout_make(&lays[L_VEC], PT_L_VEC);
    pt_layout_make(&lays[L_NEGLB], PT_L_NEGLB);
    pt_layout_make(&lays[L_STRUCT], PT_L_STRUCT_A);
    make_dint(&lays[L_DINT]);
    make_mat(&lays[L_MAT]);
}

static void layouts_free(void)
{
    for (int k = 0; k < L_COUNT; k++)
        pt_layout_free(&lays[k]);
}

/* ---- user ops (on contiguous ints: MPI_INT, or the matrix type) -------- */

/* inout = in + inout + 1 on ints (commutative and associative). */
static void add_plus_one(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size;
    const int *a = in;
    int *b = inout;
    MPI_Type_size(*type, &size);
    for (long j = 0; j < (long)*len * size / (long)sizeof(int); j++)
        b[j] = a[j] + b[j] + 1;
}

static void mat_mul(const long long *a, const long long *b, long long *c)
{
    c[0] = (a[0] * b[0] + a[1] * b[2]) % PRIME;
    c[1] = (a[0] * b[1] + a[1] * b[3]) % PRIME;
    c[2] = (a[2] * b[0] + a[3] * b[2]) % PRIME;
    c[3] = (a[2] * b[1] + a[3] * b[3]) % PRIME;
}

/* inout = in * inout on 2x2 int matrices mod PRIME (not commutative).  The
 * count is taken in ints, so it works whatever type carries the matrices. */
static void mat_product(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size;
    const int *a = in;
    int *b = inout;
    MPI_Type_size(*type, &size);
    for (long m = 0; m < (long)*len * size / (long)(4 * sizeof(int)); m++) {
        long long x[4], y[4], z[4];
        for (int e = 0; e < 4; e++) {
            x[e] = a[4 * m + e];
            y[e] = b[4 * m + e];
        }
        mat_mul(x, y, z);
        for (int e = 0; e < 4; e++)
            b[4 * m + e] = (int)z[e];
    }
}

/* ---- ops and their closed forms ----------------------------------------- */

enum opkind {
    O_SUM_INT, O_SUM_DOUBLE, O_SUM_VEC, O_SUM_NEGLB, O_MAX, O_BAND, O_MAXLOC, O_USER,
    O_MATRIX, O_COUNT
};

typedef struct opdef {
    const char *name;
    enum lay lay;
    enum lay mpi_lay; /* the layout MPI's reference reduces (see make_reference) */
    MPI_Op op;        /* user ops are created in main */
    int commutative;
} opdef;

static opdef ops[O_COUNT] = {
    [O_SUM_INT] = {"sum/int", L_INT, L_INT, MPI_SUM, 1},
    [O_SUM_DOUBLE] = {"sum/double", L_DOUBLE, L_DOUBLE, MPI_SUM, 1},
    [O_SUM_VEC] = {"sum/vec2x2d", L_VEC, L_DOUBLE, MPI_SUM, 1},
    [O_SUM_NEGLB] = {"sum/neglb_d", L_NEGLB, L_DOUBLE, MPI_SUM, 1},
    [O_MAX] = {"max/double", L_DOUBLE, L_DOUBLE, MPI_MAX, 1},
    [O_BAND] = {"band/int", L_INT, L_INT, MPI_BAND, 1},
    [O_MAXLOC] = {"maxloc/double_int", L_DINT, L_DINT, MPI_MAXLOC, 1},
    [O_USER] = {"user_add1/int", L_INT, L_INT, MPI_OP_NULL, 1},
    [O_MATRIX] = {"user_matprod/mat2x2i", L_MAT, L_MAT, MPI_OP_NULL, 0},
};

static unsigned mix(int r, long k, int run)
{
    unsigned h = (unsigned)r * 2654435761u ^ (unsigned)k * 40503u ^ (unsigned)run * 2246822519u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return h;
}

/* The elements of item `item` of rank r's input vector at run `run`. */
static void input(enum opkind o, int r, long item, int run, double v[PT_MAX_ELEM])
{
    int n = lays[ops[o].lay].nelem;
    switch (o) {
    case O_MAX:
        v[0] = (double)(mix(r, item, run) % 30011) - 15000.0;
        break;
    case O_BAND: /* every rank clears a different bit (np < 31) */
        v[0] = (double)~(1 << (int)((3L * r + item + run) % 31));
        break;
    case O_MAXLOC: /* few distinct values, so ties are common */
        v[0] = (double)(mix(r, item, run) % 5);
        v[1] = 10.0 * r + run;
        break;
    case O_MATRIX:
        for (int e = 0; e < 4; e++)
            v[e] = (double)(mix(r, 4 * item + e, run) % PRIME);
        break;
    default:
        for (int e = 0; e < n; e++)
            v[e] = 1.0 + (double)(mix(r, n * item + e, run) % 30011);
        break;
    }
}

/* acc = acc op x, where acc holds the lower ranks' partial. */
static void combine(enum opkind o, double acc[PT_MAX_ELEM], const double x[PT_MAX_ELEM])
{
    long long a[4], b[4], c[4];
    switch (o) {
    case O_MAX:
        acc[0] = x[0] > acc[0] ? x[0] : acc[0];
        break;
    case O_BAND:
        acc[0] = (double)((int)acc[0] & (int)x[0]);
        break;
    case O_MAXLOC:
        if (x[0] > acc[0] || (x[0] == acc[0] && x[1] < acc[1])) {
            acc[0] = x[0];
            acc[1] = x[1];
        }
        break;
    case O_USER:
        acc[0] += x[0] + 1;
        break;
    case O_MATRIX:
        for (int e = 0; e < 4; e++) {
            a[e] = (long long)acc[e];
            b[e] = (long long)x[e];
        }
        mat_mul(a, b, c);
        for (int e = 0; e < 4; e++)
            acc[e] = (double)c[e];
        break;
    default:
        for (int e = 0; e < lays[ops[o].lay].nelem; e++)
            acc[e] += x[e];
        break;
    }
}

/* The reduction of item `item` over ranks 0..np-1, in rank order. */
static void expected(enum opkind o, int np, long item, int run, double v[PT_MAX_ELEM])
{
    double x[PT_MAX_ELEM];
    input(o, 0, item, run, v);
    for (int r = 1; r < np; r++) {
        input(o, r, item, run, x);
        combine(o, v, x);
    }
}

/* ---- shapes of the counts ------------------------------------------------- */

enum shape { S_B0, S_B1, S_B5, S_B400, S_IRREG, S_ZERO, S_SPARSE, S_LAST, S_LONG, S_LONGV, S_COUNT };

static const struct {
    const char *name;
    int block; /* block form with this recvcount; -1: counts form */
} shapes[S_COUNT] = {
    [S_B0] = {"block 0", 0},
    [S_B1] = {"block 1", 1},
    [S_B5] = {"block 5", 5},
    [S_B400] = {"block 400", 400},
    [S_IRREG] = {"counts (3i+1)%4", -1},
    [S_ZERO] = {"counts all 0", -1},
    [S_SPARSE] = {"counts ((5i+2)%7)*13", -1},
    [S_LAST] = {"counts 3 on the last rank only", -1},
    /* Longer than node_ring's chunk of 256 KiB per block (in ints, doubles
     * or larger): several chunks, some blocks with none in the last. */
    [S_LONG] = {"block 70000", 70000},
    [S_LONGV] = {"counts 70000, 30000, 0 by i%3", -1},
};

static int shape_count(enum shape s, int i, int np)
{
    switch (s) {
    case S_IRREG: return (3 * i + 1) % 4;
    case S_ZERO: return 0;
    case S_SPARSE: return ((5 * i + 2) % 7) * 13;
    case S_LAST: return i == np - 1 ? 3 : 0;
    case S_LONGV: return i % 3 == 0 ? 70000 : i % 3 == 1 ? 30000 : 0;
    default: return shapes[s].block;
    }
}

/* ---- one configuration ----------------------------------------------------- */

/* Stored in a plan handle before init: init must overwrite it (with NULL
 * on error).  Never dereferenced. */
static char sentinel_byte;
#define SENTINEL ((pcoll_plan_t *)(void *)&sentinel_byte)

typedef struct entry {
    enum pt_comm_kind comm;
    enum opkind op;
    enum shape shape;
    int modes;
} entry;

typedef struct setup {
    const char *alg;
    const char *radix;  /* info pcoll_radix of persistent plans, or NULL */
    enum opkind o;
    const pt_layout *lay;
    MPI_Op op;
    MPI_Comm comm;
    int me, np;
    int block;   /* block form: recvcount is counts[0] */
    int *counts; /* np entries */
    long first;  /* my block's first item in the vector */
    long total;  /* items in the vector */
} setup;

static int is_concrete(const char *name)
{
    const char *n;
    if (strcmp(name, "auto") == 0)
        return 0;
    for (int i = 0; (n = pcoll_algorithm_name(COLL, i)) != NULL; i++)
        if (strcmp(n, name) == 0)
            return 1;
    return 0;
}

static int is_ring(const char *alg)
{
    return strcmp(alg, "ring") == 0 || strcmp(alg, "ring_prepost") == 0;
}

/* Whether the op is predefined and the type derived: MPI's own
 * reduce-scatter refuses that pair (MPICH does), so `native` must decline. */
static int predefined_op_on_derived(const setup *u)
{
    int ni, na, nd, combiner;
    if (ops[u->o].op == MPI_OP_NULL || u->o == O_USER || u->o == O_MATRIX)
        return 0;
    MPI_Type_get_envelope(lays[ops[u->o].lay].type, &ni, &na, &nd, &combiner);
    return combiner != MPI_COMBINER_NAMED;
}

/* ring and ring_prepost cannot keep the rank order; native cannot take a
 * predefined op on a derived type; everything else must accept every valid
 * argument. */
static int supported(const setup *u)
{
    if (strcmp(u->alg, "native") == 0 && predefined_op_on_derived(u))
        return 0;
    return ops[u->o].commutative || !is_ring(u->alg);
}

/* Fill the whole input vector of b with this rank's values of run `run`. */
static void fill(const setup *u, const pt_buf *b, int run)
{
    double v[PT_MAX_ELEM];
    for (long i = 0; i < b->nitems; i++) {
        input(u->o, u->me, i, run, v);
        for (int e = 0; e < u->lay->nelem; e++)
            pt_put(b, i * u->lay->nelem + e, v[e]);
    }
}

/* One element against its closed form, reported in the harness's words but
 * without its decoding of pt_val values (reduced values are not those). */
static void check_value(const pt_buf *b, long k, double want, int me, const char *what)
{
    unsigned char poison[sizeof(double)];
    double got = pt_get(b, k);
    if (got == want)
        return;
    memset(poison, PT_POISON, sizeof poison);
    pt_fail("%s peer %d index %ld expected %.17g got %.17g%s", what, me, k, want, got,
            memcmp(b->base + pt_off(b, k), poison,
                   b->lay->kind[k % b->lay->nelem] == 'i' ? sizeof(int) : sizeof(double)) == 0
                ? " (poison)" : "");
}

/* My block of the result at the start of b; nothing outside the type map
 * touched. */
static void check_result(const setup *u, const pt_buf *b, int run, const char *what)
{
    double v[PT_MAX_ELEM];
    for (long j = 0; j < u->counts[u->me]; j++) {
        expected(u->o, u->np, u->first + j, run, v);
        for (int e = 0; e < u->lay->nelem; e++)
            check_value(b, j * u->lay->nelem + e, v[e], u->me, what);
    }
    pt_check_untouched(b, what);
}

static void check_send_intact(const setup *u, const pt_buf *sb, int run)
{
    double v[PT_MAX_ELEM];
    for (long i = 0; i < sb->nitems; i++) {
        input(u->o, u->me, i, run, v);
        for (int e = 0; e < u->lay->nelem; e++)
            check_value(sb, i * u->lay->nelem + e, v[e], u->me, "send buffer modified");
    }
    pt_check_untouched(sb, "send buffer gaps modified");
}

/* After a refusal the receive buffer must still be poison, every byte. */
static void check_all_poison(const pt_buf *b, const char *what)
{
    for (size_t i = 0; i < b->len; i++) {
        if (b->alloc[i] != PT_POISON) {
            pt_fail("%s: receive buffer written at byte %ld", what,
                    (long)((char *)b->alloc + i - b->base));
            return;
        }
    }
}

/* The outcome of a call with valid arguments.  Returns 1 when it ran and the
 * result is to be checked; an unexpected error aborts (peers may block). */
static int accept_rc(const setup *u, int rc, const char *what, const pt_buf *rb)
{
    if (!supported(u)) {
        PT_RC(rc, PCOLL_ERR_UNSUPPORTED);
        if (rc == PCOLL_ERR_UNSUPPORTED)
            check_all_poison(rb, what);
        return 0;
    }
    pt_require_(rc, what, __FILE__, __LINE__);
    return 1;
}

static int oneshot_call(const setup *u, const void *sbuf, void *rbuf)
{
    int rc;
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", u->alg, 1);
    if (u->block)
        rc = pcoll_reduce_scatter_block(sbuf, rbuf, u->counts[0], u->lay->type, u->op, u->comm);
    else
        rc = pcoll_reduce_scatter(sbuf, rbuf, u->counts, u->lay->type, u->op, u->comm);
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    return rc;
}

static void run_oneshot(const setup *u, const pt_buf *ref)
{
    pt_buf sb, rb;
    pt_buf_alloc(&sb, u->lay, u->total);
    pt_buf_alloc(&rb, u->lay, u->counts[u->me]);
    fill(u, &sb, 1);
    if (accept_rc(u, oneshot_call(u, sb.base, rb.base), "one-shot", &rb)) {
        check_result(u, &rb, 1, "one-shot");
        check_send_intact(u, &sb, 1);
        pt_compare(&rb, ref, "one-shot vs MPI");
    }
    pt_buf_free(&sb);
    pt_buf_free(&rb);
}

static void run_inplace(const setup *u)
{
    pt_buf rb;
    pt_buf_alloc(&rb, u->lay, u->total);
    fill(u, &rb, 5);
    if (!supported(u))
        pt_buf_poison(&rb); /* a refusal must leave it alone: poison shows that */
    if (accept_rc(u, oneshot_call(u, MPI_IN_PLACE, rb.base), "in-place one-shot", &rb))
        check_result(u, &rb, 5, "in-place one-shot");
    pt_buf_free(&rb);
}

static void check_plan_algorithm(const setup *u, const pcoll_plan_t *plan)
{
    const char *got = pcoll_plan_algorithm(plan);
    const char *shm = getenv("PCOLL_HIER_SHM");
    int node = strcmp(u->alg, "node_ring") == 0 || strcmp(u->alg, "node_direct") == 0;
    if (node && shm && strcmp(shm, "0") == 0 && u->np > 1 && u->total > 0) {
        /* No shared window: circulant on every rank (recursive_halving for a
         * non-commutative op), and the plan says so. */
        const char *want = ops[u->o].commutative ? "circulant" : "recursive_halving";
        PT_CHECK(strcmp(got, want) == 0, "%s without a shared window runs \"%s\", not %s",
                 u->alg, got, want);
        return;
    }
    if ((strcmp(u->alg, "circulant") == 0 || strcmp(u->alg, "node_ring") == 0) &&
        !ops[u->o].commutative) {
        /* circulant and node_ring need commutativity: they build
         * recursive_halving and say so. */
        PT_CHECK(strcmp(got, "recursive_halving") == 0,
                 "%s with a non-commutative op runs \"%s\", not recursive_halving", u->alg, got);
        return;
    }
    if (strcmp(u->alg, "auto") != 0) {
        PT_CHECK(strcmp(got, u->alg) == 0, "plan runs \"%s\", requested \"%s\"", got, u->alg);
        return;
    }
    PT_CHECK(is_concrete(got), "auto plan runs \"%s\", not a concrete algorithm", got);
    if (!ops[u->o].commutative)
        PT_CHECK(!is_ring(got), "auto picked \"%s\" for a non-commutative op", got);
}

/* Init with info pcoll_algorithm = alg and a duplicate of a derived type,
 * both freed at once.  NULL when the algorithm (rightly) declined. */
static pcoll_plan_t *make_plan(const setup *u, const void *sbuf, const pt_buf *rb)
{
    pcoll_plan_t *plan = SENTINEL;
    MPI_Datatype t = u->lay->type;
    MPI_Info info;
    int rc;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", u->alg));
    if (u->radix)
        PT_MPI(MPI_Info_set(info, "pcoll_radix", u->radix));
    if (u->lay->owned)
        PT_MPI(MPI_Type_dup(u->lay->type, &t));
    if (u->block)
        rc = pcoll_reduce_scatter_block_init(sbuf, rb->base, u->counts[0], t, u->op, u->comm,
                                             info, &plan);
    else
        rc = pcoll_reduce_scatter_init(sbuf, rb->base, u->counts, t, u->op, u->comm, info,
                                       &plan);
    if (u->lay->owned)
        MPI_Type_free(&t);
    MPI_Info_free(&info);
    if (!accept_rc(u, rc, "init", rb)) {
        if (rc != PCOLL_SUCCESS)
            PT_CHECK(plan == NULL, "plan not NULL after a failed init");
        else
            PT_OK(pcoll_plan_free(&plan));
        return NULL;
    }
    check_plan_algorithm(u, plan);
    return plan;
}

static void run_plan(pcoll_plan_t *plan, int use_test)
{
    PT_REQUIRE(pcoll_start(plan));
    if (use_test)
        pt_test_loop(plan);
    else
        PT_REQUIRE(pcoll_wait(plan));
}

/* Three starts, new input before each; in place the input goes into rb. */
static void run_persistent(const setup *u, int inplace)
{
    pt_buf sb = {0}, rb;
    pcoll_plan_t *plan;
    char what[64];
    int base = inplace ? 6 : 2;
    pt_buf_alloc(&rb, u->lay, inplace ? u->total : u->counts[u->me]);
    if (!inplace)
        pt_buf_alloc(&sb, u->lay, u->total);
    plan = make_plan(u, inplace ? MPI_IN_PLACE : sb.base, &rb);
    for (int run = 0; plan && run < RUNS; run++) {
        pt_buf_poison(&rb);
        fill(u, inplace ? &rb : &sb, base + run);
        run_plan(plan, run == RUNS - 1);
        snprintf(what, sizeof what, "%s run %d (%s)", inplace ? "in-place persistent" :
                 "persistent", run, run == RUNS - 1 ? "test" : "wait");
        check_result(u, &rb, base + run, what);
        if (!inplace)
            check_send_intact(u, &sb, base + run);
    }
    if (plan) {
        PT_OK(pcoll_plan_free(&plan));
        PT_CHECK(plan == NULL, "pcoll_plan_free did not set the plan to NULL");
    }
    pt_buf_free(&rb);
    if (!inplace)
        pt_buf_free(&sb);
}

/* Copy every element of `from` into `to`, in order (layouts may differ). */
static void transfer(const pt_buf *from, const pt_buf *to)
{
    for (long k = 0; k < from->nitems * from->lay->nelem; k++)
        pt_put(to, k, pt_get(from, k));
}

/* MPI's answer for the one-shot input (run 1), itself checked against the
 * closed form, which validates the test's own arithmetic.  MPI defines
 * predefined ops on predefined types only (MPICH and Open MPI refuse
 * derived ones), so a derived type of doubles is reduced by MPI as plain
 * doubles, nelem per item, and the answer moved into the real layout. */
static void make_reference(const setup *u, pt_buf *ref)
{
    const pt_layout *ml = &lays[ops[u->o].mpi_lay];
    int scale = u->lay->nelem / ml->nelem, *counts = malloc(sizeof(int) * (size_t)u->np);
    pt_buf sb, msb, mref;
    if (!counts)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (int i = 0; i < u->np; i++)
        counts[i] = u->counts[i] * scale;
    pt_buf_alloc(&sb, u->lay, u->total);
    pt_buf_alloc(&msb, ml, u->total * scale);
    pt_buf_alloc(&mref, ml, (long)counts[u->me]);
    pt_buf_alloc(ref, u->lay, u->counts[u->me]);
    fill(u, &sb, 1);
    transfer(&sb, &msb);
    if (u->block)
        PT_MPI(MPI_Reduce_scatter_block(msb.base, mref.base, counts[0], ml->type, u->op,
                                        u->comm));
    else
        PT_MPI(MPI_Reduce_scatter(msb.base, mref.base, counts, ml->type, u->op, u->comm));
    transfer(&mref, ref);
    check_result(u, ref, 1, "MPI reference (self-check)");
    pt_buf_free(&sb);
    pt_buf_free(&msb);
    pt_buf_free(&mref);
    free(counts);
}

static const char *mode_name(int m)
{
    switch (m) {
    case M_ONESHOT: return "oneshot";
    case M_PERSIST: return "persistent";
    case M_INPLACE: return "inplace";
    default: return "inplace_persistent";
    }
}

static void setup_make(setup *u, const entry *e)
{
    memset(u, 0, sizeof *u);
    u->o = e->op;
    u->lay = &lays[ops[e->op].lay];
    u->op = ops[e->op].op;
    u->comm = pt_comm_make(e->comm);
    MPI_Comm_rank(u->comm, &u->me);
    MPI_Comm_size(u->comm, &u->np);
    u->block = shapes[e->shape].block >= 0;
    u->counts = malloc(sizeof(int) * (size_t)u->np);
    if (!u->counts)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (int i = 0; i < u->np; i++) {
        u->counts[i] = shape_count(e->shape, i, u->np);
        u->first += i < u->me ? u->counts[i] : 0;
        u->total += u->counts[i];
    }
}

static void run_entry(const entry *e, const char *only)
{
    setup u;
    pt_buf ref;
    const char *alg;
    setup_make(&u, e);
    CASE(COLL " reference op=%s %s comm=%s(np %d)", ops[e->op].name, shapes[e->shape].name,
         pt_comm_name(e->comm), u.np);
    make_reference(&u, &ref);
    for (int i = 0; (alg = pcoll_algorithm_name(COLL, i)) != NULL; i++) {
        if (only && strcmp(only, alg) != 0)
            continue;
        u.alg = alg;
        for (int m = M_ONESHOT; m <= M_INPLACE_P; m <<= 1) {
            if (!(e->modes & m))
                continue;
            CASE(COLL " alg=%s op=%s %s comm=%s(np %d) mode=%s", alg, ops[e->op].name,
                 shapes[e->shape].name, pt_comm_name(e->comm), u.np, mode_name(m));
            if (m == M_ONESHOT)
                run_oneshot(&u, &ref);
            else if (m == M_PERSIST)
                run_persistent(&u, 0);
            else if (m == M_INPLACE)
                run_inplace(&u);
            else
                run_persistent(&u, 1);
        }
    }
    /* circulant's other radices (r-1 ports per round), persistent. */
    for (int r = 0; r < 2 && (!only || strcmp(only, "circulant") == 0); r++) {
        static const char *const radices[] = {"3", "5"};
        if (!(e->modes & (M_PERSIST | M_INPLACE_P)))
            continue;
        u.alg = "circulant", u.radix = radices[r];
        CASE(COLL " alg=circulant radix=%s op=%s %s comm=%s(np %d)", u.radix, ops[e->op].name,
             shapes[e->shape].name, pt_comm_name(e->comm), u.np);
        run_persistent(&u, !(e->modes & M_PERSIST));
        u.radix = NULL;
    }
    pt_case_end();
    pt_buf_free(&ref);
    free(u.counts);
    pt_comm_free(&u.comm);
}

/* ---- bad input -------------------------------------------------------------- */

static MPI_Info info_alg(const char *alg)
{
    MPI_Info info;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
    return info;
}

/* An init that must fail with `want` on every rank and leave a NULL plan
 * (which pcoll_plan_free accepts). */
static int plan_was_built; /* by the last expect_init's call, wrongly */

static void expect_init(int rc, const char *what, int line, pcoll_plan_t **plan, int want)
{
    pt_check_rc_(rc, want, what, __FILE__, line);
    plan_was_built = rc == PCOLL_SUCCESS;
    if (rc == PCOLL_SUCCESS) {
        PT_OK(pcoll_plan_free(plan));
        return;
    }
    PT_CHECK(*plan == NULL, "plan not NULL after a failed %s", what);
    *plan = NULL;
    PT_OK(pcoll_plan_free(plan));
}

#define EXPECT_INIT(call, want)                                                               \
    do {                                                                                      \
        plan = SENTINEL;                                                                      \
        expect_init((call), #call, __LINE__, &plan, (want));                                  \
    } while (0)

/* A plain valid call: the communicator still works after the refusals. */
static void valid_call(MPI_Comm comm, int np, int me)
{
    int *send = malloc(sizeof(int) * (size_t)np), got = -1;
    if (!send)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (int i = 0; i < np; i++)
        send[i] = i + 1;
    PT_REQUIRE(pcoll_reduce_scatter_block(send, &got, 1, MPI_INT, MPI_SUM, comm));
    pt_check_elem("valid call after bad input", me, 0, (double)(me + 1) * np, got);
    free(send);
}

/* Each bad argument, in both forms and the one-shot calls where it applies. */
static void bad_input(enum pt_comm_kind kind)
{
    MPI_Comm comm = pt_comm_make(kind);
    MPI_Datatype sdt = lays[L_STRUCT].type, mat = lays[L_MAT].type;
    int me, np, *counts, accepted;
    pt_buf sb, rb;
    pcoll_plan_t *plan;
    MPI_Info info;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    counts = malloc(sizeof(int) * (size_t)np);
    if (!counts)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (int i = 0; i < np; i++)
        counts[i] = 1;
    pt_buf_alloc(&sb, &lays[L_STRUCT], 2L * np); /* large enough for every case */
    pt_buf_alloc(&rb, &lays[L_STRUCT], 2L * np);

    CASE(COLL " bad input comm=%s(np %d): negative recvcount", pt_comm_name(kind), np);
    EXPECT_INIT(pcoll_reduce_scatter_block_init(sb.base, rb.base, -1, MPI_INT, MPI_SUM, comm,
                                                MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    PT_RC(pcoll_reduce_scatter_block(sb.base, rb.base, -1, MPI_INT, MPI_SUM, comm),
          PCOLL_ERR_ARG);
    counts[np - 1] = -1;
    EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, counts, MPI_INT, MPI_SUM, comm,
                                          MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    PT_RC(pcoll_reduce_scatter(sb.base, rb.base, counts, MPI_INT, MPI_SUM, comm), PCOLL_ERR_ARG);
    counts[np - 1] = 1;

    CASE(COLL " bad input comm=%s(np %d): negative count on rank 0 only", pt_comm_name(kind),
         np);
    counts[0] = me == 0 ? -3 : 1;
    EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, counts, MPI_INT, MPI_SUM, comm,
                                          MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    counts[0] = 1;

    CASE(COLL " bad input comm=%s(np %d): MPI_OP_NULL", pt_comm_name(kind), np);
    EXPECT_INIT(pcoll_reduce_scatter_block_init(sb.base, rb.base, 1, MPI_INT, MPI_OP_NULL, comm,
                                                MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, counts, MPI_INT, MPI_OP_NULL, comm,
                                          MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    PT_RC(pcoll_reduce_scatter_block(sb.base, rb.base, 1, MPI_INT, MPI_OP_NULL, comm),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_reduce_scatter(sb.base, rb.base, counts, MPI_INT, MPI_OP_NULL, comm),
          PCOLL_ERR_ARG);

    CASE(COLL " bad input comm=%s(np %d): NULL recvcounts", pt_comm_name(kind), np);
    EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, NULL, MPI_INT, MPI_SUM, comm,
                                          MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    PT_RC(pcoll_reduce_scatter(sb.base, rb.base, NULL, MPI_INT, MPI_SUM, comm), PCOLL_ERR_ARG);

    CASE(COLL " bad input comm=%s(np %d): predefined op on struct {int; double}",
         pt_comm_name(kind), np);
    EXPECT_INIT(pcoll_reduce_scatter_block_init(sb.base, rb.base, 1, sdt, MPI_SUM, comm,
                                                MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    accepted = plan_was_built;
    EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, counts, sdt, MPI_MAX, comm,
                                          MPI_INFO_NULL, &plan), PCOLL_ERR_ARG);
    accepted |= plan_was_built;
    /* Had init accepted it, a one-shot call would run the op on the struct,
     * which MPI answers with a fatal error: check the one-shot calls only
     * when init refused. */
    if (!accepted) {
        PT_RC(pcoll_reduce_scatter_block(sb.base, rb.base, 1, sdt, MPI_SUM, comm),
              PCOLL_ERR_ARG);
        PT_RC(pcoll_reduce_scatter(sb.base, rb.base, counts, sdt, MPI_BAND, comm),
              PCOLL_ERR_ARG);
    }

    CASE(COLL " bad input comm=%s(np %d): unknown algorithm", pt_comm_name(kind), np);
    info = info_alg("no_such_algorithm");
    EXPECT_INIT(pcoll_reduce_scatter_block_init(sb.base, rb.base, 1, MPI_INT, MPI_SUM, comm,
                                                info, &plan), PCOLL_ERR_ARG);
    EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, counts, MPI_INT, MPI_SUM, comm,
                                          info, &plan), PCOLL_ERR_ARG);
    MPI_Info_free(&info);
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", "no_such_algorithm", 1);
    PT_RC(pcoll_reduce_scatter_block(sb.base, rb.base, 1, MPI_INT, MPI_SUM, comm),
          PCOLL_ERR_ARG);
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");

    for (int k = 0; k < 2; k++) {
        const char *alg = k ? "ring_prepost" : "ring";
        CASE(COLL " bad input comm=%s(np %d): %s with a non-commutative op",
             pt_comm_name(kind), np, alg);
        info = info_alg(alg);
        EXPECT_INIT(pcoll_reduce_scatter_block_init(sb.base, rb.base, 1, mat, ops[O_MATRIX].op,
                                                    comm, info, &plan), PCOLL_ERR_UNSUPPORTED);
        EXPECT_INIT(pcoll_reduce_scatter_init(sb.base, rb.base, counts, mat, ops[O_MATRIX].op,
                                              comm, info, &plan), PCOLL_ERR_UNSUPPORTED);
        MPI_Info_free(&info);
        setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", alg, 1);
        PT_RC(pcoll_reduce_scatter(sb.base, rb.base, counts, mat, ops[O_MATRIX].op, comm),
              PCOLL_ERR_UNSUPPORTED);
        unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    }

    CASE(COLL " bad input comm=%s(np %d): a valid call afterwards", pt_comm_name(kind), np);
    valid_call(comm, np, me);
    pt_case_end();
    pt_buf_free(&sb);
    pt_buf_free(&rb);
    free(counts);
    pt_comm_free(&comm);
}

/* ---- sweeps ----------------------------------------------------------------- */

/* Every op x shape x communicator in every mode.  Run it with PT_FULL=1. */
static int full_sweep(entry *list, int cap)
{
    static const enum pt_comm_kind comms[] = {PT_C_WORLD, PT_C_REVERSED, PT_C_MOD3,
                                              PT_C_HALVES};
    int n = 0;
    for (size_t c = 0; c < sizeof comms / sizeof comms[0]; c++)
        for (int o = 0; o < O_COUNT; o++)
            for (int s = 0; s < S_COUNT && n < cap; s++)
                list[n++] = (entry){comms[c], (enum opkind)o, (enum shape)s, M_ALL};
    return n;
}

/* The default sweep, small enough for np 16 on two oversubscribed cores:
 * every op in both forms, each entry compared with MPI; every op one-shot
 * and persistent or in place; every mode in both forms; irregular and zero
 * counts, a long vector; every communicator several times. */
static int default_sweep(entry *list)
{
    static const entry sweep[] = {
        {PT_C_WORLD, O_SUM_INT, S_B5, M_ONESHOT | M_PERSIST},
        {PT_C_MOD3, O_SUM_INT, S_ZERO, M_ONESHOT | M_INPLACE_P},
        {PT_C_WORLD, O_SUM_DOUBLE, S_B400, M_ONESHOT | M_INPLACE},
        {PT_C_HALVES, O_SUM_DOUBLE, S_IRREG, M_ONESHOT | M_PERSIST},
        {PT_C_REVERSED, O_MAX, S_B1, M_ONESHOT | M_INPLACE_P},
        {PT_C_WORLD, O_MAX, S_SPARSE, M_ONESHOT | M_INPLACE},
        {PT_C_MOD3, O_BAND, S_B0, M_ONESHOT | M_PERSIST},
        {PT_C_WORLD, O_BAND, S_IRREG, M_ONESHOT | M_INPLACE_P},
        {PT_C_WORLD, O_MAXLOC, S_B5, M_ONESHOT | M_INPLACE},
        {PT_C_REVERSED, O_MAXLOC, S_IRREG, M_ONESHOT | M_PERSIST},
        {PT_C_HALVES, O_USER, S_B5, M_ONESHOT | M_INPLACE_P},
        {PT_C_MOD3, O_USER, S_SPARSE, M_ONESHOT | M_PERSIST},
        {PT_C_WORLD, O_MATRIX, S_B5, M_ALL},
        {PT_C_REVERSED, O_MATRIX, S_IRREG, M_ALL},
        {PT_C_MOD3, O_MATRIX, S_LAST, M_ONESHOT | M_PERSIST},
        /* Derived types last: they need pcoll to reduce them as their one
         * predefined type (MPI refuses predefined ops on derived types). */
        {PT_C_WORLD, O_SUM_VEC, S_B5, M_ONESHOT | M_INPLACE_P},
        {PT_C_MOD3, O_SUM_VEC, S_IRREG, M_ONESHOT | M_PERSIST | M_INPLACE},
        {PT_C_REVERSED, O_SUM_NEGLB, S_SPARSE, M_ONESHOT | M_INPLACE_P},
        {PT_C_HALVES, O_SUM_NEGLB, S_LAST, M_ONESHOT | M_PERSIST},
    };
    memcpy(list, sweep, sizeof sweep);
    return (int)(sizeof sweep / sizeof sweep[0]);
}

/* ---- a run ahead: node plans' shared memory between runs ------------------- */

typedef struct ahead {
    int n, *s, *r;
} ahead_t;

/* Element j of rank x's run-`run` vector. */
static int ahead_val(int x, int j, int run)
{
    return run * 100000 + x * 100 + j;
}

static void ahead_prepare(int run, void *arg)
{
    ahead_t *a = arg;
    for (int j = 0; j < a->n * pt_size; j++)
        a->s[j] = ahead_val(pt_rank, j, run);
    for (int j = 0; j < a->n; j++)
        a->r[j] = -1;
}

static void ahead_check(int run, void *arg)
{
    const ahead_t *a = arg;
    for (int j = 0; j < a->n; j++) {
        int want = 0, k = pt_rank * a->n + j;
        for (int x = 0; x < pt_size; x++)
            want += ahead_val(x, k, run);
        if (a->r[j] != want)
            pt_check_elem("run ahead", pt_rank, j, want, a->r[j]);
    }
}

/* node_direct (every rank of this machine on one node; its slots in two
 * copies, one barrier a run): rank 0 finishes run 0 and writes run 1's
 * vector while the others have still to read run 0's (pt_run_ahead).  Not
 * node_ring: its hand-offs need every rank in pcoll_test or pcoll_wait
 * (the progress rule of pcoll.h), which the others, blocked in MPI_Recv,
 * are not. */
static void run_ahead(const char *only)
{
    ahead_t a = {.n = 3};
    pcoll_plan_t *plan = NULL;
    MPI_Info info;
    if (only && strcmp(only, "node_direct") != 0)
        return;
    CASE(COLL " node_direct: rank 0 a run ahead of the others");
    a.s = malloc(sizeof(int) * (size_t)(a.n * (pt_size + 1)));
    a.r = a.s + a.n * pt_size;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", "node_direct"));
    PT_REQUIRE(pcoll_reduce_scatter_block_init(a.s, a.r, a.n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                               info, &plan));
    MPI_Info_free(&info);
    /* Without a shared window (PCOLL_HIER_SHM=0) the plan is circulant,
     * whose rounds of messages need every rank in pcoll's calls. */
    if (strcmp(pcoll_plan_algorithm(plan), "node_direct") == 0)
        pt_run_ahead(plan, ahead_prepare, ahead_check, &a);
    PT_OK(pcoll_plan_free(&plan));
    free(a.s);
}

/* Types whose extents differ between ranks (equal signatures, as MPI
 * allows): odd ranks' ints lie 8 bytes apart.  The node algorithms lay out
 * their shared segment by extent, so they must notice and all take another
 * way together; every algorithm must give the sums. */
static void mixed_extents(const char *only)
{
    const int c = 3;
    int me, np;
    MPI_Datatype wide, t;
    const char *alg;
    PT_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    PT_MPI(MPI_Comm_size(MPI_COMM_WORLD, &np));
    PT_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &wide));
    PT_MPI(MPI_Type_commit(&wide));
    t = me % 2 ? wide : MPI_INT;
    const int step = me % 2 ? 2 : 1;
    int *sb = malloc(sizeof(int) * (size_t)(np * c * step));
    int *rb = malloc(sizeof(int) * (size_t)(c * step));
    for (int i = 0; (alg = pcoll_algorithm_name(COLL, i)) != NULL; i++) {
        pcoll_plan_t *plan = NULL;
        MPI_Info info;
        if ((only && strcmp(only, alg) != 0) || strcmp(alg, "native") == 0)
            continue; /* native: the MPI's own, checked by the MPI */
        CASE(COLL " alg=%s extents differ between ranks (np %d)", alg, np);
        PT_MPI(MPI_Info_create(&info));
        PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
        PT_OK(pcoll_reduce_scatter_block_init(sb, rb, c, t, MPI_SUM, MPI_COMM_WORLD, info, &plan));
        MPI_Info_free(&info);
        for (int run = 0; run < 2 && plan; run++) {
            for (int k = 0; k < np * c; k++)
                sb[k * step] = 1000 * me + 10 * k + run;
            for (int k = 0; k < c * step; k++)
                rb[k] = -1;
            PT_OK(pcoll_start(plan));
            PT_OK(pcoll_wait(plan));
            for (int j = 0; j < c; j++) {
                long long want = 0;
                for (int r = 0; r < np; r++)
                    want += 1000 * r + 10 * (me * c + j) + run;
                PT_CHECK(rb[j * step] == want, "block item %d: got %d, expected %lld", j,
                         rb[j * step], want);
            }
        }
        PT_OK(pcoll_plan_free(&plan));
        pt_case_end();
    }
    free(sb);
    free(rb);
    MPI_Type_free(&wide);
}

/* Long vectors only, persistent (three starts each): the node algorithms'
 * chunks and flags across runs (`test_reduce_scatter ALG long`). */
static int long_sweep(entry *list)
{
    static const entry sweep[] = {
        {PT_C_WORLD, O_SUM_INT, S_LONG, M_PERSIST},
        {PT_C_REVERSED, O_SUM_DOUBLE, S_LONGV, M_PERSIST | M_INPLACE_P},
        {PT_C_MOD3, O_MATRIX, S_LONGV, M_PERSIST},
    };
    memcpy(list, sweep, sizeof sweep);
    return (int)(sizeof sweep / sizeof sweep[0]);
}

int main(int argc, char **argv)
{
    entry list[O_COUNT * S_COUNT * 4];
    const char *only = argc > 1 ? argv[1] : NULL;
    int n;
    pt_init(&argc, &argv);
    errhandler_install();
    /* The user's environment must not override the algorithm under test. */
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    unsetenv("PCOLL_ALGORITHM");
    watchdog_install();
    layouts_make();
    PT_MPI(MPI_Op_create(add_plus_one, 1, &ops[O_USER].op));
    PT_MPI(MPI_Op_create(mat_product, 0, &ops[O_MATRIX].op));
    CASE(COLL " algorithm table");
    PT_CHECK(pcoll_algorithm_name(COLL, 0) != NULL, "the " COLL " table is empty");
    if (only)
        PT_CHECK(strcmp(only, "auto") == 0 || is_concrete(only), "\"%s\" is not in the "
                 COLL " table", only);
    pt_case_end();
    bad_input(PT_C_WORLD);
    bad_input(PT_C_MOD3);
    if (argc > 2 && strcmp(argv[2], "long") == 0)
        n = long_sweep(list);
    else
        n = getenv("PT_FULL") ? full_sweep(list, (int)(sizeof list / sizeof list[0]))
                              : default_sweep(list);
    for (int i = 0; i < n; i++)
        run_entry(&list[i], only);
    mixed_extents(only);
    run_ahead(only);
    MPI_Op_free(&ops[O_USER].op);
    MPI_Op_free(&ops[O_MATRIX].op);
    layouts_free();
    alarm(0);
    return pt_finish();
}
