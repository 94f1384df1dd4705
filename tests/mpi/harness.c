/*
 * harness.c -- see harness.h.
 *
 * Verdicts are kept per case in the order the cases were opened: 0 passed,
 * 1 skipped, 2 failed.  pt_finish takes the maximum over ranks element by
 * element, so a case fails if it failed on any rank, and every rank learns
 * the same totals (hence the same exit status).
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

enum { V_PASS = 0, V_SKIP = 1, V_FAIL = 2 };
enum { MAX_MSGS_PER_CASE = 8 };

int pt_rank = 0;
int pt_size = 1;
int pt_quiet = 0;

static unsigned char *verdicts;
static long ncases, cap;
static int case_open, case_verdict, case_msgs;
static char context[512];

/* One line "rank R: ...\n" in a single write(), so that the lines of
 * different ranks do not interleave in the launcher's output. */
static void say(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void say(const char *fmt, ...)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "rank %d: ", pt_rank);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    fflush(stdout);
    if (write(STDOUT_FILENO, line, (size_t)n) < 0)
        fputs(line, stderr);
}

static void record(int verdict)
{
    if (ncases == cap) {
        cap = cap ? 2 * cap : 256;
        verdicts = realloc(verdicts, (size_t)cap);
        if (!verdicts) {
            say("harness out of memory");
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    verdicts[ncases++] = (unsigned char)verdict;
}

static void setup(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &pt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pt_size);
    pt_quiet = getenv("PCOLL_TEST_QUIET") != NULL;
}

void pt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    setup();
}

int pt_init_thread(int *argc, char ***argv, int required)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, required, &provided);
    setup();
    return provided;
}

void pt_case(const char *fmt, ...)
{
    va_list ap;
    pt_case_end();
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    case_open = 1;
    case_verdict = V_PASS;
    case_msgs = 0;
}

void pt_case_end(void)
{
    if (case_open)
        record(case_verdict);
    case_open = 0;
    context[0] = '\0';
}

void pt_skip(const char *why)
{
    if (case_verdict == V_PASS)
        case_verdict = V_SKIP;
    if (!pt_quiet && case_msgs++ == 0)
        say("skipped (%s) [%s]", why, context);
}

const char *pt_context(void)
{
    return context;
}

void pt_note(const char *fmt, ...)
{
    va_list ap;
    if (pt_quiet || pt_rank != 0)
        return;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* Count one failure; return whether its message should still be printed. */
static int count_failure(void)
{
    if (!case_open) {
        record(V_FAIL);
        return 1;
    }
    case_verdict = V_FAIL;
    if (case_msgs == MAX_MSGS_PER_CASE)
        say("further failures suppressed [%s]", context);
    return case_msgs++ < MAX_MSGS_PER_CASE;
}

static void vfail(const char *fmt, va_list ap)
{
    char msg[768];
    if (!count_failure())
        return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    say("%s [%s]", msg, context);
}

int pt_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(fmt, ap);
    va_end(ap);
    return 0;
}

int pt_check_(int ok, const char *file, int line, const char *fmt, ...)
{
    char msg[640];
    va_list ap;
    if (ok) {
        if (!case_open)
            record(V_PASS);
        return 1;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pt_fail("%s (%s:%d)", msg, file, line);
}

/* A value in words: a pt_val is decoded into its sender, byte offset and run,
 * and poison is called poison. */
static const char *describe(double v, char *buf, size_t n)
{
    static const unsigned char poison[sizeof(double)] = {
        PT_POISON, PT_POISON, PT_POISON, PT_POISON, PT_POISON, PT_POISON, PT_POISON, PT_POISON};
    int ipoison;
    memset(&ipoison, PT_POISON, sizeof ipoison);
    if (memcmp(&v, poison, sizeof v) == 0 || v == (double)ipoison) {
        snprintf(buf, n, "%.17g (poison)", v);
    } else if (v >= 1 && v <= (double)(1L << 30) && v == (double)(long)v) {
        long x = (long)v - 1;
        snprintf(buf, n, "%ld (rank %ld byte %ld run %ld)", (long)v, (x >> 20) & 127,
                 ((x & 0xFFFFF) - 64) * 4, (x >> 27) & 7);
    } else {
        snprintf(buf, n, "%.17g", v);
    }
    return buf;
}

int pt_check_elem(const char *what, int peer, long index, double expected, double got)
{
    char e[96], g[96];
    if (expected == got) {
        if (!case_open)
            record(V_PASS);
        return 1;
    }
    return pt_fail("%s peer %d index %ld expected %s got %s", what, peer, index,
                   describe(expected, e, sizeof e), describe(got, g, sizeof g));
}

int pt_check_rc_(int rc, int expected, const char *what, const char *file, int line)
{
    if (rc == expected) {
        if (!case_open)
            record(V_PASS);
        return 1;
    }
    return pt_fail("%s expected %s (%d) got %s (%d): \"%s\" (%s:%d)", what,
                   pcoll_err_name(expected), expected, pcoll_err_name(rc), rc,
                   pcoll_last_error(), file, line);
}

void pt_require_(int rc, const char *what, const char *file, int line)
{
    if (rc == PCOLL_SUCCESS)
        return;
    say("%s returned %s (%d): \"%s\" (%s:%d) [%s] -- aborting, the peers may be blocked",
        what, pcoll_err_name(rc), rc, pcoll_last_error(), file, line, context);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void pt_mpi_(int rc, const char *what, const char *file, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    say("%s failed with MPI error %d (%s:%d) [%s] -- aborting", what, rc, file, line, context);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

void pt_test_loop(pcoll_plan_t *plan)
{
    int flag = 0;
    for (;;) {
        PT_REQUIRE(pcoll_test(plan, &flag));
        if (flag)
            return;
        sched_yield();
    }
}

void pt_run_ahead(pcoll_plan_t *plan, void (*prepare)(int run, void *arg),
                  void (*check)(int run, void *arg), void *arg)
{
    int token = 1, r;
    prepare(0, arg);
    PT_REQUIRE(pcoll_start(plan));
    if (pt_rank == 0) {
        PT_REQUIRE(pcoll_wait(plan));
        check(0, arg);
        prepare(1, arg);
        PT_REQUIRE(pcoll_start(plan));
        for (r = 1; r < pt_size; r++)
            PT_MPI(MPI_Send(&token, 1, MPI_INT, r, 77, MPI_COMM_WORLD));
    } else {
        PT_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        PT_REQUIRE(pcoll_wait(plan));
        check(0, arg);
        prepare(1, arg);
        PT_REQUIRE(pcoll_start(plan));
    }
    PT_REQUIRE(pcoll_wait(plan));
    check(1, arg);
}

int pt_finish(void)
{
    long n = 0, nmin = 0, passed = 0, failed = 0, skipped = 0;
    unsigned char *all;
    pt_case_end();
    MPI_Allreduce(&ncases, &n, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&ncases, &nmin, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    all = calloc((size_t)n + 1, 1);
    verdicts = realloc(verdicts, (size_t)n + 1);
    if (!all || !verdicts)
        MPI_Abort(MPI_COMM_WORLD, 4);
    memset(verdicts + ncases, V_PASS, (size_t)(n - ncases));
    MPI_Allreduce(verdicts, all, (int)n, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    for (long i = 0; i < n; i++) {
        passed += all[i] == V_PASS;
        skipped += all[i] == V_SKIP;
        failed += all[i] == V_FAIL;
    }
    if (pt_rank == 0) {
        if (nmin != n)
            printf("note: ranks ran between %ld and %ld cases\n", nmin, n);
        if (skipped)
            printf("%ld skipped\n", skipped);
        printf("%ld passed, %ld failed\n", passed, failed);
        fflush(stdout);
    }
    free(all);
    free(verdicts);
    verdicts = NULL;
    ncases = cap = 0;
    MPI_Finalize();
    return failed ? 1 : 0;
}

/* ---- values -------------------------------------------------------------- */

double pt_val(int src, long off, int run)
{
    long v = 1 + ((long)(run & 7) << 27) + ((long)(src & 127) << 20) +
             ((off / 4 + 64) & 0xFFFFF);
    return (double)v;
}

/* ---- layouts -------------------------------------------------------------- */

static size_t kind_size(char kind)
{
    return kind == 'i' ? sizeof(int) : sizeof(double);
}

static void set_elems(pt_layout *lay, const char *kinds, const MPI_Aint *disp)
{
    lay->nelem = (int)strlen(kinds);
    for (int e = 0; e < lay->nelem; e++) {
        lay->kind[e] = kinds[e];
        lay->disp[e] = disp[e];
    }
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Datatype r;
    PT_MPI(MPI_Type_create_resized(t, lb, extent, &r));
    PT_MPI(MPI_Type_free(&t));
    return r;
}

static MPI_Datatype int_double_struct(MPI_Aint int_disp, MPI_Aint double_disp)
{
    int blocklens[2] = {1, 1};
    MPI_Aint displs[2] = {int_disp, double_disp};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
    PT_MPI(MPI_Type_create_struct(2, blocklens, displs, types, &t));
    return t;
}

static MPI_Datatype stride2_doubles(void)
{
    MPI_Datatype t;
    PT_MPI(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t));
    return t;
}

/* Check the harness's description of a layout against MPI: size, extent and
 * the packed order of three items. */
static void self_check(const pt_layout *lay)
{
    int size = 0, pos = 0, ok = 1;
    size_t sum = 0;
    MPI_Aint lb, extent;
    pt_buf b;
    char packed[3 * PT_MAX_ELEM * sizeof(double)];
    MPI_Type_size(lay->type, &size);
    MPI_Type_get_extent(lay->type, &lb, &extent);
    for (int e = 0; e < lay->nelem; e++)
        sum += kind_size(lay->kind[e]);
    pt_buf_alloc(&b, lay, 3);
    for (long k = 0; k < 3L * lay->nelem; k++)
        pt_put(&b, k, (double)(k + 1));
    PT_MPI(MPI_Pack(b.base, 3, lay->type, packed, (int)sizeof packed, &pos, MPI_COMM_SELF));
    pos = 0;
    for (long k = 0; k < 3L * lay->nelem; k++) {
        char kind = lay->kind[k % lay->nelem];
        double v;
        if (kind == 'i') {
            int i;
            memcpy(&i, packed + pos, sizeof i);
            v = i;
        } else {
            memcpy(&v, packed + pos, sizeof v);
        }
        pos += (int)kind_size(kind);
        ok &= v == pt_get(&b, k); /* overlapping items share values */
    }
    pt_buf_free(&b);
    if (!ok || (size_t)size != sum || lb != lay->lb || extent != lay->extent) {
        say("harness layout %s disagrees with MPI", lay->name);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

void pt_layout_make(pt_layout *lay, enum pt_layout_kind kind)
{
    static const MPI_Aint zero[1] = {0};
    static const MPI_Aint vec[2] = {0, 16};
    static const MPI_Aint struct_a[2] = {0, 8};
    static const MPI_Aint struct_b[2] = {12, -8};
    memset(lay, 0, sizeof *lay);
    lay->owned = 1;
    switch (kind) {
    case PT_L_INT:
        *lay = (pt_layout){.name = "int", .type = MPI_INT, .extent = sizeof(int)};
        set_elems(lay, "i", zero);
        break;
    case PT_L_DOUBLE:
        *lay = (pt_layout){.name = "double", .type = MPI_DOUBLE, .extent = sizeof(double)};
        set_elems(lay, "d", zero);
        break;
    case PT_L_VEC:
        lay->name = "vec2x2d";
        lay->type = resized(stride2_doubles(), 0, 32);
        lay->extent = 32;
        set_elems(lay, "dd", vec);
        break;
    case PT_L_OVERLAP:
        lay->name = "overlap2d";
        lay->type = resized(stride2_doubles(), 0, 8);
        lay->extent = 8;
        set_elems(lay, "dd", vec);
        break;
    case PT_L_NEGLB:
        lay->name = "neglb_d";
        PT_MPI(MPI_Type_create_resized(MPI_DOUBLE, -8, 24, &lay->type));
        lay->lb = -8;
        lay->extent = 24;
        set_elems(lay, "d", zero);
        break;
    case PT_L_STRUCT_A:
        lay->name = "structA";
        lay->type = resized(int_double_struct(0, 8), 0, 24);
        lay->extent = 24;
        set_elems(lay, "id", struct_a);
        break;
    case PT_L_STRUCT_B:
        lay->name = "structB";
        lay->type = resized(int_double_struct(12, -8), -16, 40);
        lay->lb = -16;
        lay->extent = 40;
        set_elems(lay, "id", struct_b);
        break;
    default:
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    if (lay->owned)
        PT_MPI(MPI_Type_commit(&lay->type));
    self_check(lay);
}

void pt_layout_free(pt_layout *lay)
{
    if (lay->owned && lay->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&lay->type);
    lay->type = MPI_DATATYPE_NULL;
}

MPI_Aint pt_elem_off(const pt_layout *lay, long item, int e)
{
    return (MPI_Aint)item * lay->extent + lay->disp[e];
}

/* ---- buffers -------------------------------------------------------------- */

void pt_poison(void *p, size_t bytes)
{
    memset(p, PT_POISON, bytes);
}

void pt_buf_alloc(pt_buf *b, const pt_layout *lay, long nitems)
{
    MPI_Aint lo = 0, hi = 0, end = (MPI_Aint)nitems * lay->extent + lay->lb;
    lo = lay->lb < lo ? lay->lb : lo;
    hi = end > hi ? end : hi;
    for (int e = 0; nitems > 0 && e < lay->nelem; e++) {
        MPI_Aint first = pt_elem_off(lay, 0, e);
        MPI_Aint last = pt_elem_off(lay, nitems - 1, e) + (MPI_Aint)kind_size(lay->kind[e]);
        lo = first < lo ? first : lo;
        hi = last > hi ? last : hi;
    }
    b->len = (size_t)(hi - lo) + 2 * PT_GUARD;
    b->alloc = malloc(b->len);
    if (!b->alloc) {
        say("harness cannot allocate %zu bytes", b->len);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    b->base = (char *)b->alloc + PT_GUARD - lo;
    b->lay = lay;
    b->nitems = nitems;
    pt_buf_poison(b);
}

void pt_buf_free(pt_buf *b)
{
    free(b->alloc);
    b->alloc = NULL;
    b->base = NULL;
}

void pt_buf_poison(pt_buf *b)
{
    pt_poison(b->alloc, b->len);
}

MPI_Aint pt_off(const pt_buf *b, long k)
{
    return pt_elem_off(b->lay, k / b->lay->nelem, (int)(k % b->lay->nelem));
}

void pt_put(const pt_buf *b, long k, double value)
{
    char *p = b->base + pt_off(b, k);
    if (b->lay->kind[k % b->lay->nelem] == 'i') {
        int i = (int)value;
        memcpy(p, &i, sizeof i);
    } else {
        memcpy(p, &value, sizeof value);
    }
}

double pt_get(const pt_buf *b, long k)
{
    const char *p = b->base + pt_off(b, k);
    if (b->lay->kind[k % b->lay->nelem] == 'i') {
        int i;
        memcpy(&i, p, sizeof i);
        return i;
    }
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

long pt_check_untouched(const pt_buf *b, const char *what)
{
    long nk = b->nitems * b->lay->nelem, changed = 0, first = -1;
    unsigned char *mask = calloc(b->len, 1);
    if (!mask)
        MPI_Abort(MPI_COMM_WORLD, 4);
    for (long k = 0; k < nk; k++) {
        size_t at = (size_t)((b->base + pt_off(b, k)) - (char *)b->alloc);
        memset(mask + at, 1, kind_size(b->lay->kind[k % b->lay->nelem]));
    }
    for (size_t i = 0; i < b->len; i++) {
        if (!mask[i] && b->alloc[i] != PT_POISON) {
            if (first < 0)
                first = (long)i;
            changed++;
        }
    }
    free(mask);
    if (changed)
        pt_fail("%s: %ld bytes outside the type map changed, first at offset %ld (buffer "
                "spans %ld..%ld) expected 0x%02x got 0x%02x",
                what, changed, (long)((char *)b->alloc + first - b->base),
                (long)((char *)b->alloc - b->base),
                (long)((char *)b->alloc + b->len - b->base), PT_POISON, b->alloc[first]);
    else if (!case_open)
        record(V_PASS);
    return changed;
}

long pt_compare(const pt_buf *got, const pt_buf *ref, const char *what)
{
    long nk = got->nitems * got->lay->nelem, bad = 0;
    for (long k = 0; k < nk; k++) {
        size_t n = kind_size(got->lay->kind[k % got->lay->nelem]);
        if (memcmp(got->base + pt_off(got, k), ref->base + pt_off(ref, k), n) != 0) {
            char e[96], g[96];
            if (bad++ == 0)
                pt_fail("%s: element %ld differs from MPI's: expected %s got %s", what, k,
                        describe(pt_get(ref, k), e, sizeof e),
                        describe(pt_get(got, k), g, sizeof g));
        }
    }
    return bad;
}

/* ---- communicators ------------------------------------------------------- */

const char *pt_comm_name(enum pt_comm_kind kind)
{
    static const char *names[PT_C_COUNT] = {"world", "reversed", "mod3", "parity", "halves"};
    return (unsigned)kind < PT_C_COUNT ? names[kind] : "?";
}

MPI_Comm pt_comm_make(enum pt_comm_kind kind)
{
    MPI_Comm c = MPI_COMM_NULL;
    int r = pt_rank, n = pt_size;
    switch (kind) {
    case PT_C_WORLD:
        return MPI_COMM_WORLD;
    case PT_C_REVERSED:
        PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - r, &c));
        break;
    case PT_C_MOD3:
        PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, r % 3, n - 1 - r, &c));
        break;
    case PT_C_PARITY:
        PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &c));
        break;
    case PT_C_HALVES:
        PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, r < n / 2, r, &c));
        break;
    default:
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    return c;
}

void pt_comm_free(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_WORLD && *comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
    *comm = MPI_COMM_NULL;
}

int pt_run(int rc, pcoll_plan_t *plan)
{
    if (rc == PCOLL_SUCCESS && plan)
        rc = pcoll_start(plan);
    if (rc == PCOLL_SUCCESS && plan)
        rc = pcoll_wait(plan);
    return rc;
}
