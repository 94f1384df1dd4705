/*
 * test_user_op.c -- a user-defined MPI_Op receives the datatype handle the
 * caller passed (MPI calls the op with the collective's datatype argument),
 * never a copy pcoll made of it, in every reduce_scatter algorithm (the
 * table's, auto included), both forms, persistent and one-shot.
 *
 * The op adds ints, but only when *datatype is the caller's handle; with
 * any other handle it counts the call and computes nothing, so the result
 * is wrong too.  The type is a contiguous of two ints (a derived type:
 * pcoll keeps a duplicate of it in every plan).  Input of rank r, int k:
 * r * 1000 + k + run; the result is the sum over ranks (closed form).
 *
 * A persistent plan must stay usable after the caller frees its type:
 * then the op gets a handle of the same type (include/pcoll.h, "User
 * ops"), whichever pcoll hands it, and the sums must be right.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define COLL "reduce_scatter"
enum { ITEM = 2, BLOCK = 3, RUNS = 2, POISON = -77 };

static MPI_Datatype expect_type = MPI_DATATYPE_NULL; /* NULL: any handle of ITEM ints */
static long wrong_handle;                             /* calls with another handle */

/* inout += in on ints, when *dt is the caller's handle. */
static void add_checked(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout, size = 0;
    if (expect_type != MPI_DATATYPE_NULL ? *dt != expect_type
                                         : MPI_Type_size(*dt, &size) != MPI_SUCCESS ||
                                               size != ITEM * (int)sizeof(int)) {
        wrong_handle++;
        return;
    }
    for (long j = 0; j < (long)*len * ITEM; j++)
        b[j] += a[j];
}

static int me, np;
static MPI_Op op;

static void fill(int *sb, long n, int run)
{
    for (long k = 0; k < n; k++)
        sb[k] = me * 1000 + (int)k + run;
}

/* My block (first int `first`, n ints) against the sums over ranks. */
static void check(const int *rb, long first, long n, int run, const char *what)
{
    for (long k = 0; k < n; k++) {
        long want = 0;
        for (int r = 0; r < np; r++)
            want += r * 1000 + first + k + run;
        pt_check_elem(what, me, k, (double)want, rb[k]);
    }
    PT_CHECK(rb[n] == POISON, "%s: the int after the block was written", what);
}

/* Block form: BLOCK items each; counts form: rank i gets i % 3 items. */
static int count_of(int block, int i)
{
    return block ? BLOCK : i % 3;
}

typedef struct form {
    int block;
    int *counts;
    long first, mine, total; /* in ints */
} form_t;

static void form_make(form_t *f, int block)
{
    f->block = block;
    f->counts = malloc(sizeof(int) * (size_t)np);
    f->first = f->total = 0;
    for (int i = 0; i < np; i++) {
        f->counts[i] = count_of(block, i);
        if (i < me)
            f->first += f->counts[i] * ITEM;
        f->total += f->counts[i] * ITEM;
    }
    f->mine = f->counts[me] * ITEM;
}

static int oneshot(const form_t *f, const int *sb, int *rb, MPI_Datatype t)
{
    return f->block ? pcoll_reduce_scatter_block(sb, rb, BLOCK, t, op, MPI_COMM_WORLD)
                    : pcoll_reduce_scatter(sb, rb, f->counts, t, op, MPI_COMM_WORLD);
}

static int init(const form_t *f, const int *sb, int *rb, MPI_Datatype t, const char *alg,
                int normalize, pcoll_plan_t **plan)
{
    MPI_Info info;
    int rc;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", alg));
    PT_MPI(MPI_Info_set(info, "pcoll_normalize", normalize ? "1" : "0"));
    rc = f->block ? pcoll_reduce_scatter_block_init(sb, rb, BLOCK, t, op, MPI_COMM_WORLD, info,
                                                    plan)
                  : pcoll_reduce_scatter_init(sb, rb, f->counts, t, op, MPI_COMM_WORLD, info,
                                              plan);
    MPI_Info_free(&info);
    return rc;
}

/* One run of what, checked: the handle the op saw and the sums. */
static void verdict(const form_t *f, const int *rb, int run, const char *what)
{
    long wrong = 0;
    PT_MPI(MPI_Allreduce(&wrong_handle, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    PT_CHECK(wrong == 0, "%s: the op got another datatype handle than the caller's %ld times",
             what, wrong);
    check(rb, f->first, f->mine, run, what);
    wrong_handle = 0;
}

static MPI_Datatype type_make(void)
{
    MPI_Datatype t;
    PT_MPI(MPI_Type_contiguous(ITEM, MPI_INT, &t));
    PT_MPI(MPI_Type_commit(&t));
    expect_type = t;
    return t;
}

static void run_oneshot(const char *alg, const form_t *f, int *sb, int *rb)
{
    MPI_Datatype t = type_make();
    pt_case(COLL " alg=%s %s one-shot (np %d)", alg, f->block ? "block" : "counts", np);
    setenv("PCOLL_REDUCE_SCATTER_ALGORITHM", alg, 1);
    for (int run = 0; run < RUNS; run++) {
        fill(sb, f->total, run);
        for (long k = 0; k <= f->mine; k++)
            rb[k] = POISON;
        PT_REQUIRE(oneshot(f, sb, rb, t));
        verdict(f, rb, run, "one-shot");
    }
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    PT_MPI(MPI_Type_free(&t));
}

/* Normalized: the plan's type no longer refers to the caller's, which MPI
 * then destroys at MPI_Type_free. */
static void run_persistent(const char *alg, const form_t *f, int *sb, int *rb, int normalize)
{
    MPI_Datatype t = type_make();
    pcoll_plan_t *plan = NULL;
    pt_case(COLL " alg=%s %s persistent%s (np %d)", alg, f->block ? "block" : "counts",
            normalize ? " normalized" : "", np);
    PT_REQUIRE(init(f, sb, rb, t, alg, normalize, &plan));
    for (int run = 0; run < RUNS + 1; run++) {
        if (run == RUNS) {
            /* The caller frees its type; the plan must run on. */
            PT_MPI(MPI_Type_free(&t));
            expect_type = MPI_DATATYPE_NULL;
        }
        fill(sb, f->total, run);
        for (long k = 0; k <= f->mine; k++)
            rb[k] = POISON;
        PT_REQUIRE(pcoll_start(plan));
        PT_REQUIRE(pcoll_wait(plan));
        verdict(f, rb, run, run == RUNS ? "persistent, type freed" : "persistent");
    }
    PT_OK(pcoll_plan_free(&plan));
}

static void run_form(const char *alg, int block)
{
    form_t f;
    int *sb, *rb;
    form_make(&f, block);
    sb = malloc(sizeof(int) * (size_t)(f.total + 1));
    rb = malloc(sizeof(int) * (size_t)(f.mine + 1));
    run_oneshot(alg, &f, sb, rb);
    for (int normalize = 0; normalize < 2; normalize++)
        run_persistent(alg, &f, sb, rb, normalize);
    pt_case_end();
    free(sb);
    free(rb);
    free(f.counts);
}

int main(int argc, char **argv)
{
    const char *alg;
    pt_init(&argc, &argv);
    unsetenv("PCOLL_REDUCE_SCATTER_ALGORITHM");
    unsetenv("PCOLL_ALGORITHM");
    me = pt_rank, np = pt_size;
    PT_MPI(MPI_Op_create(add_checked, 1, &op));
    for (int i = 0; (alg = pcoll_algorithm_name(COLL, i)) != NULL; i++)
        for (int block = 1; block >= 0; block--)
            run_form(alg, block);
    MPI_Op_free(&op);
    return pt_finish();
}
