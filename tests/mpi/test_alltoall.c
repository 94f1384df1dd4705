/*
 * test_alltoall.c -- every alltoall algorithm against closed-form values.
 *
 * Sweep: algorithms (the library's table, whatever it holds) x communicators
 * (world, reversed, split by rank % 3, odd/even, halves) x type pairs (MPI_INT;
 * strided doubles sent into doubles with a negative lower bound; two structs
 * with gaps and different layouts; overlapping send items) x counts (0, 1, 7,
 * 1000 on a subset) x modes:
 *   oneshot     pcoll_alltoall, algorithm from PCOLL_ALLTOALL_ALGORITHM;
 *               also compared with MPI_Alltoall where the entry asks for it
 *   persistent  pcoll_alltoall_init with info pcoll_algorithm; three runs with
 *               pcoll_wait and one with a pcoll_test loop, new input each time;
 *               the info and duplicates of the datatypes passed to init are
 *               freed as soon as init returns (the header allows it)
 *   inplace     MPI_IN_PLACE one-shot (receive layout both ways)
 *   inplace_p   MPI_IN_PLACE persistent, one run with pcoll_wait and one
 *               with pcoll_test, new input each time
 *
 * Values: the element at byte offset `off` of rank s's send buffer holds
 * pt_val(s, off, run), so the receiver knows exactly which sender, block, item,
 * element and run must land in every element.  Every receive buffer is
 * poisoned before every run, and the bytes outside the receive type map
 * (gaps, the hole below a negative lower bound, guards) must stay poisoned;
 * the send buffer must come back unchanged.
 *
 * The default sweep is a covering subset of that product (see default_sweep);
 * PT_FULL=1 in the environment runs all of it.
 *
 * Usage: test_alltoall [algorithm]   (default: every algorithm in the table)
 */
#include <stdlib.h>
#include <string.h>

#include "core/defects.h"
#include "datatype/signature.h"
#include "harness.h"

enum mode { M_ONESHOT = 1, M_PERSIST = 2, M_INPLACE = 4, M_INPLACE_P = 8, M_ALL = 15 };

typedef struct type_pair {
    const char *name;
    enum pt_layout_kind send, recv;
} type_pair;

enum { T_INT, T_VEC, T_STRUCT, T_OVERLAP, T_COUNT };
static const type_pair pairs[T_COUNT] = {
    [T_INT] = {"int/int", PT_L_INT, PT_L_INT},
    [T_VEC] = {"vec2x2d/neglb_d", PT_L_VEC, PT_L_NEGLB},
    [T_STRUCT] = {"structA/structB", PT_L_STRUCT_A, PT_L_STRUCT_B},
    [T_OVERLAP] = {"overlap2d/double", PT_L_OVERLAP, PT_L_DOUBLE},
};

/* One entry of the sweep: every algorithm runs `modes` on it. */
typedef struct entry {
    enum pt_comm_kind comm;
    int pair;
    int count; /* sendcount; recvcount follows from the signatures */
    int modes;
    int reference; /* also compare the one-shot result with MPI_Alltoall */
} entry;

static pt_layout layouts[PT_L_COUNT];

/* Everything one run needs to know. */
typedef struct setup {
    const char *alg;
    MPI_Comm comm;
    int me, np;
    const pt_layout *s, *r; /* send and receive layouts (r both ways in place) */
    int scount, rcount;
} setup;

/* Where the MPI's own alltoall is known to be wrong on np ranks
 * (core/defects.h): no comparison with it, and `native` refuses. */
static int mpi_wrong(int np)
{
    return np > 12 && pcoll__mpi_defect(PCOLL__DEFECT_OMPI_ALLTOALL_BRUCK);
}

/* Every alltoall algorithm must accept every valid argument: none may answer
 * PCOLL_ERR_UNSUPPORTED here (the sweep has no block over 2 GiB), but
 * `native` where the MPI is known to fail it (core/defects.h), which auto
 * then never picks. */
static int must_support(const setup *u, int inplace)
{
    if (strcmp(u->alg, "native") != 0)
        return 1;
    return !mpi_wrong(u->np) &&
           (!inplace || !pcoll__mpi_defect(PCOLL__DEFECT_UCX_SPLIT_UNPACK) ||
            pcoll__sig_aligned(u->r->type, u->rcount));
}

static int is_concrete(const char *name)
{
    const char *n;
    if (strcmp(name, "auto") == 0)
        return 0;
    for (int i = 0; (n = pcoll_algorithm_name("alltoall", i)) != NULL; i++)
        if (strcmp(n, name) == 0)
            return 1;
    return 0;
}

/* Fill every element of b (laid out as lay) with this rank's run values. */
static void fill(const pt_buf *b, int me, int run)
{
    long nk = b->nitems * b->lay->nelem;
    for (long k = 0; k < nk; k++)
        pt_put(b, k, pt_val(me, (long)pt_off(b, k), run));
}

/* The receive buffer after a run: block s element k came from element k of
 * block `me` of rank s's send layout `sl` (sendcount sc). */
static void check_recv(const setup *u, const pt_buf *rb, const pt_layout *sl, int sc, int run,
                       const char *what)
{
    long per_block = (long)u->rcount * u->r->nelem;
    for (int s = 0; s < u->np; s++) {
        for (long k = 0; k < per_block; k++) {
            MPI_Aint off = pt_elem_off(sl, (long)u->me * sc + k / sl->nelem,
                                       (int)(k % sl->nelem));
            double want = pt_val(s, (long)off, run);
            double got = pt_get(rb, s * per_block + k);
            if (want != got)
                pt_check_elem(what, s, k, want, got);
        }
    }
    pt_check_untouched(rb, what);
}

/* The send buffer must be exactly as it was filled. */
static void check_send_intact(const pt_buf *sb, int me, int run)
{
    long nk = sb->nitems * sb->lay->nelem;
    for (long k = 0; k < nk; k++) {
        double want = pt_val(me, (long)pt_off(sb, k), run);
        double got = pt_get(sb, k);
        if (want != got)
            pt_check_elem("send buffer modified", me, k, want, got);
    }
    pt_check_untouched(sb, "send buffer gaps modified");
}

/* A derived type is duplicated so that the plan's copy can be checked to
 * survive the caller freeing its own right after init. */
static MPI_Datatype dup_type(const pt_layout *lay)
{
    MPI_Datatype t = lay->type;
    if (lay->owned)
        PT_MPI(MPI_Type_dup(lay->type, &t));
    return t;
}

static void free_dup(const pt_layout *lay, MPI_Datatype *t)
{
    if (lay->owned)
        MPI_Type_free(t);
}

/* An error from a call with valid arguments: UNSUPPORTED is a skip for
 * specialised algorithms; anything else aborts (the peers may be blocked).
 * Returns 1 when the case goes on. */
static int accept_rc(const setup *u, int inplace, int rc, const char *what)
{
    if (rc == PCOLL_ERR_UNSUPPORTED && !must_support(u, inplace)) {
        pt_skip("algorithm answered PCOLL_ERR_UNSUPPORTED");
        return 0;
    }
    pt_require_(rc, what, __FILE__, __LINE__);
    return 1;
}

static void run_oneshot(const setup *u, int inplace, const pt_buf *ref)
{
    pt_buf sb = {0}, rb;
    int rc, run = inplace ? 6 : 1;
    pt_buf_alloc(&rb, u->r, (long)u->rcount * u->np);
    if (inplace) {
        fill(&rb, u->me, run);
    } else {
        pt_buf_alloc(&sb, u->s, (long)u->scount * u->np);
        fill(&sb, u->me, run);
    }
    setenv("PCOLL_ALLTOALL_ALGORITHM", u->alg, 1);
    if (inplace)
        rc = pcoll_alltoall(MPI_IN_PLACE, u->rcount, u->r->type, rb.base, u->rcount,
                            u->r->type, u->comm);
    else
        rc = pcoll_alltoall(sb.base, u->scount, u->s->type, rb.base, u->rcount, u->r->type,
                            u->comm);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    if (accept_rc(u, inplace, rc, "pcoll_alltoall")) {
        if (inplace) {
            check_recv(u, &rb, u->r, u->rcount, run, "in-place one-shot");
        } else {
            check_recv(u, &rb, u->s, u->scount, run, "one-shot");
            check_send_intact(&sb, u->me, run);
            if (ref)
                pt_compare(&rb, ref, "one-shot vs MPI_Alltoall");
        }
    }
    pt_buf_free(&rb);
    if (!inplace)
        pt_buf_free(&sb);
}

/* Init a plan with info pcoll_algorithm = alg and freshly duplicated types
 * that are freed at once; NULL if the algorithm declined. */
static pcoll_plan_t *make_plan(const setup *u, const pt_buf *sb, const pt_buf *rb)
{
    pcoll_plan_t *plan = NULL;
    MPI_Info info;
    MPI_Datatype st = MPI_DATATYPE_NULL, rt = dup_type(u->r);
    int rc;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", u->alg));
    if (sb) {
        st = dup_type(u->s);
        rc = pcoll_alltoall_init(sb->base, u->scount, st, rb->base, u->rcount, rt, u->comm,
                                 info, &plan);
        free_dup(u->s, &st);
    } else {
        /* MPI ignores sendcount and sendtype in place: pass nonsense. */
        rc = pcoll_alltoall_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb->base, u->rcount, rt,
                                 u->comm, info, &plan);
    }
    free_dup(u->r, &rt);
    MPI_Info_free(&info);
    if (!accept_rc(u, sb == NULL, rc, "pcoll_alltoall_init")) {
        PT_CHECK(plan == NULL, "plan not NULL after a failed init");
        return NULL;
    }
    if (strcmp(u->alg, "auto") == 0)
        PT_CHECK(is_concrete(pcoll_plan_algorithm(plan)),
                 "auto plan runs \"%s\", not a concrete algorithm", pcoll_plan_algorithm(plan));
    else
        PT_CHECK(strcmp(pcoll_plan_algorithm(plan), u->alg) == 0,
                 "plan runs \"%s\", requested \"%s\"", pcoll_plan_algorithm(plan), u->alg);
    return plan;
}

/* One run of a plan: pcoll_wait, or pcoll_test until done. */
static void run_plan(pcoll_plan_t *plan, int use_test)
{
    PT_REQUIRE(pcoll_start(plan));
    if (use_test)
        pt_test_loop(plan);
    else
        PT_REQUIRE(pcoll_wait(plan));
}

static void free_plan(pcoll_plan_t **plan)
{
    PT_OK(pcoll_plan_free(plan));
    PT_CHECK(*plan == NULL, "pcoll_plan_free did not set the plan to NULL");
}

static void run_persistent(const setup *u)
{
    pt_buf sb, rb;
    pcoll_plan_t *plan;
    char what[64];
    pt_buf_alloc(&sb, u->s, (long)u->scount * u->np);
    pt_buf_alloc(&rb, u->r, (long)u->rcount * u->np);
    plan = make_plan(u, &sb, &rb);
    for (int run = 0; plan && run < 4; run++) {
        fill(&sb, u->me, run + 2);
        pt_buf_poison(&rb);
        run_plan(plan, run == 3);
        snprintf(what, sizeof what, "persistent run %d (%s)", run, run == 3 ? "test" : "wait");
        check_recv(u, &rb, u->s, u->scount, run + 2, what);
        check_send_intact(&sb, u->me, run + 2);
    }
    if (plan)
        free_plan(&plan);
    pt_buf_free(&sb);
    pt_buf_free(&rb);
}

static void run_inplace_persistent(const setup *u)
{
    pt_buf rb;
    pcoll_plan_t *plan;
    char what[64];
    pt_buf_alloc(&rb, u->r, (long)u->rcount * u->np);
    plan = make_plan(u, NULL, &rb);
    for (int run = 0; plan && run < 2; run++) {
        pt_buf_poison(&rb);
        fill(&rb, u->me, run + 7);
        run_plan(plan, run == 1);
        snprintf(what, sizeof what, "in-place persistent run %d (%s)", run,
                 run == 1 ? "test" : "wait");
        check_recv(u, &rb, u->r, u->rcount, run + 7, what);
    }
    if (plan)
        free_plan(&plan);
    pt_buf_free(&rb);
}

/* MPI_Alltoall's answer for the one-shot input (checked against the closed
 * form too, which validates the harness's own arithmetic). */
static void make_reference(const setup *u, pt_buf *ref)
{
    pt_buf sb;
    pt_buf_alloc(&sb, u->s, (long)u->scount * u->np);
    pt_buf_alloc(ref, u->r, (long)u->rcount * u->np);
    fill(&sb, u->me, 1);
    PT_MPI(MPI_Alltoall(sb.base, u->scount, u->s->type, ref->base, u->rcount, u->r->type,
                        u->comm));
    check_recv(u, ref, u->s, u->scount, 1, "MPI_Alltoall (harness self-check)");
    pt_buf_free(&sb);
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

static void run_entry(const entry *e, const char *only)
{
    const type_pair *tp = &pairs[e->pair];
    MPI_Comm comm = pt_comm_make(e->comm);
    setup u = {.comm = comm, .s = &layouts[tp->send], .r = &layouts[tp->recv],
               .scount = e->count};
    pt_buf ref = {0};
    const char *alg;
    int reference;
    MPI_Comm_rank(comm, &u.me);
    MPI_Comm_size(comm, &u.np);
    u.rcount = e->count * u.s->nelem / u.r->nelem;
    reference = e->reference && !mpi_wrong(u.np);
    if (reference) {
        pt_case("alltoall reference comm=%s(np %d) types=%s count=%d", pt_comm_name(e->comm),
                u.np, tp->name, e->count);
        make_reference(&u, &ref);
    }
    for (int i = 0; (alg = pcoll_algorithm_name("alltoall", i)) != NULL; i++) {
        if (only && strcmp(only, alg) != 0)
            continue;
        u.alg = alg;
        for (int m = M_ONESHOT; m <= M_INPLACE_P; m <<= 1) {
            if (!(e->modes & m))
                continue;
            pt_case("alltoall alg=%s comm=%s(np %d) types=%s count=%d mode=%s", alg,
                    pt_comm_name(e->comm), u.np, tp->name, e->count, mode_name(m));
            if (m == M_ONESHOT)
                run_oneshot(&u, 0, reference ? &ref : NULL);
            else if (m == M_PERSIST)
                run_persistent(&u);
            else if (m == M_INPLACE)
                run_oneshot(&u, 1, NULL);
            else
                run_inplace_persistent(&u);
        }
    }
    pt_case_end();
    if (reference)
        pt_buf_free(&ref);
    pt_comm_free(&comm);
}

/* The full product: every communicator x type pair x count 0/1/7 in every
 * mode, plus the large counts.  Run it with PT_FULL=1. */
static int full_sweep(entry *list)
{
    static const enum pt_comm_kind comms[] = {PT_C_WORLD, PT_C_REVERSED, PT_C_MOD3,
                                              PT_C_PARITY, PT_C_HALVES};
    int n = 0;
    for (size_t c = 0; c < sizeof comms / sizeof comms[0]; c++) {
        for (int t = T_INT; t <= T_STRUCT; t++) {
            list[n++] = (entry){comms[c], t, 0, M_ALL, 0};
            list[n++] = (entry){comms[c], t, 1, M_ALL, 0};
            list[n++] = (entry){comms[c], t, 7, M_ALL, 1};
        }
        list[n++] = (entry){comms[c], T_OVERLAP, 7, M_ONESHOT | M_PERSIST, 1};
        list[n++] = (entry){comms[c], T_INT, 1000, M_ALL, 1};
    }
    return n;
}

/* The default sweep, small enough for np 16 on two oversubscribed cores:
 * every communicator meets every type pair, every type pair every count and
 * mode, and the odd count 7 is compared with MPI_Alltoall everywhere. */
static int default_sweep(entry *list)
{
    static const entry sweep[] = {
        {PT_C_WORLD, T_INT, 0, M_ALL, 0},
        {PT_C_WORLD, T_VEC, 0, M_PERSIST | M_INPLACE, 0},
        {PT_C_WORLD, T_STRUCT, 0, M_ONESHOT | M_INPLACE_P, 0},
        {PT_C_WORLD, T_INT, 1, M_ALL, 0},
        {PT_C_WORLD, T_VEC, 7, M_ALL, 1},
        {PT_C_WORLD, T_STRUCT, 7, M_ALL, 1},
        {PT_C_WORLD, T_OVERLAP, 7, M_ONESHOT | M_PERSIST, 1},
        {PT_C_WORLD, T_INT, 1000, M_ALL, 1},
        {PT_C_REVERSED, T_INT, 7, M_ALL, 1},
        {PT_C_REVERSED, T_VEC, 1, M_ALL, 0},
        {PT_C_REVERSED, T_STRUCT, 7, M_ONESHOT | M_PERSIST, 1},
        {PT_C_MOD3, T_INT, 1, M_ALL, 0},
        {PT_C_MOD3, T_VEC, 7, M_ALL, 1},
        {PT_C_MOD3, T_STRUCT, 1, M_ALL, 0},
        {PT_C_MOD3, T_VEC, 1000, M_ONESHOT | M_PERSIST, 0},
        {PT_C_PARITY, T_INT, 7, M_ALL, 1},
        {PT_C_PARITY, T_STRUCT, 7, M_ALL, 1},
        {PT_C_PARITY, T_VEC, 1, M_ONESHOT | M_INPLACE, 0},
        {PT_C_HALVES, T_STRUCT, 1000, M_ONESHOT | M_INPLACE, 0},
        {PT_C_HALVES, T_INT, 7, M_PERSIST | M_INPLACE_P, 1},
    };
    memcpy(list, sweep, sizeof sweep);
    return (int)(sizeof sweep / sizeof sweep[0]);
}

int main(int argc, char **argv)
{
    entry list[128];
    const char *only = argc > 1 ? argv[1] : NULL;
    int n;
    pt_init(&argc, &argv);
    /* The user's environment must not override the algorithm under test. */
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    unsetenv("PCOLL_ALGORITHM");
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_make(&layouts[k], (enum pt_layout_kind)k);
    pt_case("alltoall algorithm table");
    PT_CHECK(pcoll_algorithm_name("alltoall", 0) != NULL, "the alltoall table is empty");
    if (only)
        PT_CHECK(strcmp(only, "auto") == 0 || is_concrete(only),
                 "\"%s\" is not in the alltoall table", only);
    n = getenv("PT_FULL") ? full_sweep(list) : default_sweep(list);
    for (int i = 0; i < n; i++)
        run_entry(&list[i], only);
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_free(&layouts[k]);
    return pt_finish();
}
