/*
 * test_plan.c -- plan life cycle, misuse and bad input, with exact codes.
 *
 * State misuse (start twice, wait/test/free at the wrong time) must return
 * PCOLL_ERR_STATE and leave the plan usable; bad arguments return
 * PCOLL_ERR_ARG / PCOLL_ERR_MISMATCH on every rank, also when only one rank
 * is wrong; options from info and environment are validated; the one-shot
 * plan cache survives many buffers, recycled datatype handles and freed
 * communicators; pcoll_typed_copy; and pcoll's memory returns to where it
 * started once every plan and communicator is gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static pt_layout lay_int;

/* A world-wide int alltoall with `count` ints per block. */
typedef struct ints {
    MPI_Comm comm;
    int me, np, count;
    pt_buf sb, rb;
} ints;

static void ints_make(ints *x, MPI_Comm comm, int count)
{
    x->comm = comm;
    x->count = count;
    MPI_Comm_rank(comm, &x->me);
    MPI_Comm_size(comm, &x->np);
    pt_buf_alloc(&x->sb, &lay_int, (long)count * x->np);
    pt_buf_alloc(&x->rb, &lay_int, (long)count * x->np);
}

static void ints_free(ints *x)
{
    pt_buf_free(&x->sb);
    pt_buf_free(&x->rb);
}

/* New input for run `run`; receive buffer poisoned. */
static void ints_fill(ints *x, int run)
{
    for (long k = 0; k < x->sb.nitems; k++)
        pt_put(&x->sb, k, pt_val(x->me, (long)pt_off(&x->sb, k), run));
    pt_buf_poison(&x->rb);
}

/* Block s of the receive buffer holds block me of rank s's send buffer. */
static void ints_check(const ints *x, int run, const char *what)
{
    for (int s = 0; s < x->np; s++) {
        for (long k = 0; k < x->count; k++) {
            double want = pt_val(s, (long)((x->me * (long)x->count + k) * sizeof(int)), run);
            double got = pt_get(&x->rb, s * (long)x->count + k);
            if (want != got)
                pt_check_elem(what, s, k, want, got);
        }
    }
    pt_check_untouched(&x->rb, what);
}

static int ints_init(ints *x, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoall_init(x->sb.base, x->count, MPI_INT, x->rb.base, x->count, MPI_INT,
                               x->comm, info, plan);
}

static int ints_oneshot(ints *x)
{
    return pcoll_alltoall(x->sb.base, x->count, MPI_INT, x->rb.base, x->count, MPI_INT,
                          x->comm);
}

static MPI_Info info_with(const char *key, const char *value)
{
    MPI_Info info;
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, key, value));
    return info;
}

/* ---- state misuse ---------------------------------------------------------- */

static void test_start_twice(void)
{
    ints x;
    pcoll_plan_t *plan = NULL;
    pt_case("start on an active plan -> ERR_STATE, plan still usable");
    ints_make(&x, MPI_COMM_WORLD, 3);
    PT_REQUIRE(ints_init(&x, MPI_INFO_NULL, &plan));
    ints_fill(&x, 1);
    PT_REQUIRE(pcoll_start(plan));
    PT_RC(pcoll_start(plan), PCOLL_ERR_STATE);
    PT_REQUIRE(pcoll_wait(plan));
    ints_check(&x, 1, "after start/start/wait");
    ints_fill(&x, 2);
    PT_REQUIRE(pcoll_start(plan));
    PT_REQUIRE(pcoll_wait(plan));
    ints_check(&x, 2, "next run after the refused start");
    PT_OK(pcoll_plan_free(&plan));
    ints_free(&x);
}

static void test_inactive(void)
{
    ints x;
    pcoll_plan_t *plan = NULL;
    int flag = 7;
    pt_case("wait/test on an inactive plan -> ERR_STATE");
    ints_make(&x, MPI_COMM_WORLD, 2);
    PT_REQUIRE(ints_init(&x, MPI_INFO_NULL, &plan));
    PT_RC(pcoll_wait(plan), PCOLL_ERR_STATE);
    PT_RC(pcoll_test(plan, &flag), PCOLL_ERR_STATE);
    ints_fill(&x, 3);
    PT_REQUIRE(pcoll_start(plan));
    pt_test_loop(plan);
    ints_check(&x, 3, "pcoll_test loop");
    PT_RC(pcoll_test(plan, &flag), PCOLL_ERR_STATE);
    PT_RC(pcoll_wait(plan), PCOLL_ERR_STATE);
    ints_fill(&x, 4);
    PT_REQUIRE(pcoll_start(plan));
    PT_REQUIRE(pcoll_wait(plan));
    ints_check(&x, 4, "run after the refused wait/test");
    PT_RC(pcoll_wait(plan), PCOLL_ERR_STATE);
    PT_OK(pcoll_plan_free(&plan));
    ints_free(&x);
}

static void test_free_active(void)
{
    ints x;
    pcoll_plan_t *plan = NULL, *none = NULL;
    pt_case("free of an active plan -> ERR_STATE, plan kept; NULL frees are no-ops");
    ints_make(&x, MPI_COMM_WORLD, 2);
    PT_REQUIRE(ints_init(&x, MPI_INFO_NULL, &plan));
    ints_fill(&x, 5);
    PT_REQUIRE(pcoll_start(plan));
    PT_RC(pcoll_plan_free(&plan), PCOLL_ERR_STATE);
    PT_CHECK(plan != NULL, "pcoll_plan_free of an active plan cleared the pointer");
    if (plan) {
        PT_REQUIRE(pcoll_wait(plan));
        ints_check(&x, 5, "wait after the refused free");
    }
    PT_OK(pcoll_plan_free(&plan));
    PT_CHECK(plan == NULL, "pcoll_plan_free did not set the plan to NULL");
    PT_OK(pcoll_plan_free(&plan));
    PT_OK(pcoll_plan_free(&none));
    PT_OK(pcoll_plan_free(NULL));
    ints_free(&x);
}

static void test_null_plan(void)
{
    int flag = 0;
    pt_case("start/test/wait on NULL -> ERR_ARG; pcoll_plan_algorithm(NULL) is \"\"");
    PT_RC(pcoll_start(NULL), PCOLL_ERR_ARG);
    PT_RC(pcoll_wait(NULL), PCOLL_ERR_ARG);
    PT_RC(pcoll_test(NULL, &flag), PCOLL_ERR_ARG);
    PT_CHECK(pcoll_plan_algorithm(NULL) != NULL && pcoll_plan_algorithm(NULL)[0] == '\0',
             "pcoll_plan_algorithm(NULL) is not \"\"");
}

static void test_two_active(void)
{
    ints a, b;
    pcoll_plan_t *pa = NULL, *pb = NULL;
    pt_case("two plans active at once on one communicator");
    ints_make(&a, MPI_COMM_WORLD, 3);
    ints_make(&b, MPI_COMM_WORLD, 5);
    PT_REQUIRE(ints_init(&a, MPI_INFO_NULL, &pa));
    PT_REQUIRE(ints_init(&b, MPI_INFO_NULL, &pb));
    for (int run = 0; run < 2; run++) {
        ints_fill(&a, run);
        ints_fill(&b, run + 4);
        PT_REQUIRE(pcoll_start(pa));
        PT_REQUIRE(pcoll_start(pb));
        PT_REQUIRE(pcoll_wait(pb));
        PT_REQUIRE(pcoll_wait(pa));
        ints_check(&a, run, "first plan");
        ints_check(&b, run + 4, "second plan");
    }
    PT_OK(pcoll_plan_free(&pa));
    PT_OK(pcoll_plan_free(&pb));
    ints_free(&a);
    ints_free(&b);
}

/* ---- bad arguments ---------------------------------------------------------- */

/* Init with one argument changed on the ranks where `bad` is set; every rank
 * must fail, `bad` ranks with `code`, the others with any negative code, and
 * leave the plan NULL. */
typedef struct bad_args {
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    MPI_Comm comm;
    MPI_Info info;
    int null_plan;
} bad_args;

static void expect_init(const char *what, const bad_args *a, int bad, int code)
{
    ints x;
    pcoll_plan_t *plan;
    int rc;
    pt_case("%s", what);
    ints_make(&x, MPI_COMM_WORLD, 4);
    plan = (pcoll_plan_t *)&x; /* any non-NULL value: must come back NULL */
    rc = pcoll_alltoall_init(x.sb.base, a->sendcount, a->sendtype, x.rb.base, a->recvcount,
                             a->recvtype, a->comm, a->info, a->null_plan ? NULL : &plan);
    if (bad)
        PT_RC(rc, code);
    else
        PT_CHECK(rc < 0, "a good rank got %s (%d); another rank's bad input must fail it too",
                 pcoll_err_name(rc), rc);
    if (!a->null_plan) {
        PT_CHECK(plan == NULL, "plan not NULL after a failed init");
        if (rc == PCOLL_SUCCESS)
            pcoll_plan_free(&plan);
    }
    ints_free(&x);
}

static bad_args good_args(void)
{
    return (bad_args){4, 4, MPI_INT, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, 0};
}

static void test_bad_args_everywhere(void)
{
    bad_args a;
    MPI_Datatype uncommitted;
    a = good_args(), a.null_plan = 1;
    expect_init("init with plan == NULL -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    a = good_args(), a.sendcount = -1;
    expect_init("init with sendcount -1 -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    a = good_args(), a.recvcount = -4;
    expect_init("init with recvcount -4 -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    a = good_args(), a.sendtype = MPI_DATATYPE_NULL;
    expect_init("init with sendtype MPI_DATATYPE_NULL -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    a = good_args(), a.recvtype = MPI_DATATYPE_NULL;
    expect_init("init with recvtype MPI_DATATYPE_NULL -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    a = good_args(), a.comm = MPI_COMM_NULL;
    expect_init("init with MPI_COMM_NULL -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    a = good_args(), a.sendcount = 2;
    expect_init("init with send bytes != recv bytes -> ERR_MISMATCH", &a, 1,
                PCOLL_ERR_MISMATCH);
    a = good_args(), a.sendtype = MPI_DOUBLE, a.sendcount = 2, a.recvcount = 3;
    expect_init("init with 2 doubles sent, 3 ints received -> ERR_MISMATCH", &a, 1,
                PCOLL_ERR_MISMATCH);
    PT_MPI(MPI_Type_contiguous(4, MPI_INT, &uncommitted));
    a = good_args(), a.recvtype = uncommitted, a.recvcount = 1;
    expect_init("init with an uncommitted recvtype -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    MPI_Type_free(&uncommitted);
}

static void test_bad_args_one_rank(void)
{
    bad_args a;
    int last = pt_size - 1;
    char what[128];
    a = good_args();
    if (pt_rank == 0)
        a.sendcount = a.recvcount = -2;
    expect_init("rank 0 alone passes negative counts: all fail, rank 0 ERR_ARG", &a,
                pt_rank == 0, PCOLL_ERR_ARG);
    a = good_args();
    if (pt_rank == last)
        a.sendtype = MPI_DATATYPE_NULL;
    snprintf(what, sizeof what, "rank %d alone passes MPI_DATATYPE_NULL: all fail", last);
    expect_init(what, &a, pt_rank == last, PCOLL_ERR_ARG);
    a = good_args();
    if (pt_rank == last)
        a.info = info_with("pcoll_algorithm", "nonsense");
    snprintf(what, sizeof what, "rank %d alone names an unknown algorithm: all fail", last);
    expect_init(what, &a, pt_rank == last, PCOLL_ERR_ARG);
    if (a.info != MPI_INFO_NULL)
        MPI_Info_free(&a.info);
    a = good_args();
    if (pt_rank == pt_size / 2)
        a.info = info_with("pcoll_throttle", "abc");
    snprintf(what, sizeof what, "rank %d alone has a malformed throttle: all fail",
             pt_size / 2);
    expect_init(what, &a, pt_rank == pt_size / 2, PCOLL_ERR_ARG);
    if (a.info != MPI_INFO_NULL)
        MPI_Info_free(&a.info);
    if (pt_size > 1) {
        /* Locally consistent, but rank 0's blocks are twice as long as the
         * others': the signatures differ across ranks. */
        a = good_args();
        if (pt_rank == 0)
            a.sendcount = a.recvcount = 8;
        expect_init("rank 0 alone uses count 8, the others 4: all fail (ERR_MISMATCH)", &a,
                    1, PCOLL_ERR_MISMATCH);
    }
}

static void test_bad_info(void)
{
    static const char *const bad_throttle[] = {"abc", "0", "-3", "12abc"};
    static const char *const bad_radix[] = {"x", "-1"};
    bad_args a;
    char what[128];
    a = good_args();
    a.info = info_with("pcoll_algorithm", "nonsense");
    expect_init("info pcoll_algorithm=nonsense -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    MPI_Info_free(&a.info);
    for (size_t i = 0; i < sizeof bad_throttle / sizeof *bad_throttle; i++) {
        a = good_args();
        a.info = info_with("pcoll_throttle", bad_throttle[i]);
        snprintf(what, sizeof what, "info pcoll_throttle=\"%s\" -> ERR_ARG", bad_throttle[i]);
        expect_init(what, &a, 1, PCOLL_ERR_ARG);
        MPI_Info_free(&a.info);
    }
    for (size_t i = 0; i < sizeof bad_radix / sizeof *bad_radix; i++) {
        a = good_args();
        a.info = info_with("pcoll_radix", bad_radix[i]);
        snprintf(what, sizeof what, "info pcoll_radix=\"%s\" -> ERR_ARG", bad_radix[i]);
        expect_init(what, &a, 1, PCOLL_ERR_ARG);
        MPI_Info_free(&a.info);
    }
}

/* A plan built with info/environment: rc, algorithm and one correct run. */
static void expect_plan(MPI_Info info, const char *want_alg)
{
    ints x;
    pcoll_plan_t *plan = NULL;
    ints_make(&x, MPI_COMM_WORLD, 3);
    PT_REQUIRE(ints_init(&x, info, &plan));
    if (want_alg)
        PT_CHECK(strcmp(pcoll_plan_algorithm(plan), want_alg) == 0,
                 "plan runs \"%s\", expected \"%s\"", pcoll_plan_algorithm(plan), want_alg);
    ints_fill(&x, 6);
    PT_REQUIRE(pcoll_start(plan));
    PT_REQUIRE(pcoll_wait(plan));
    ints_check(&x, 6, "plan with options");
    PT_OK(pcoll_plan_free(&plan));
    ints_free(&x);
}

static void test_good_options(void)
{
    MPI_Info info;
    pt_case("info pcoll_throttle=2 is accepted and runs correctly");
    info = info_with("pcoll_throttle", "2");
    expect_plan(info, NULL);
    MPI_Info_free(&info);
    pt_case("info pcoll_algorithm=linear is honoured; info freed after init");
    info = info_with("pcoll_algorithm", "linear");
    expect_plan(info, "linear");
    MPI_Info_free(&info);
}

static void test_env(void)
{
    ints x;
    MPI_Info info;
    bad_args a;
    pt_case("env PCOLL_ALLTOALL_ALGORITHM=nonsense: one-shot -> ERR_ARG");
    ints_make(&x, MPI_COMM_WORLD, 2);
    ints_fill(&x, 0);
    setenv("PCOLL_ALLTOALL_ALGORITHM", "nonsense", 1);
    PT_RC(ints_oneshot(&x), PCOLL_ERR_ARG);
    pt_check_untouched(&x.rb, "receive buffer after a refused call");
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    ints_free(&x);

    setenv("PCOLL_ALLTOALL_ALGORITHM", "nonsense", 1);
    a = good_args();
    a.info = info_with("pcoll_algorithm", "linear");
    expect_init("env PCOLL_ALLTOALL_ALGORITHM=nonsense overrides a valid info: init ERR_ARG",
                &a, 1, PCOLL_ERR_ARG);
    MPI_Info_free(&a.info);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");

    setenv("PCOLL_THROTTLE", "-3", 1);
    a = good_args();
    expect_init("env PCOLL_THROTTLE=-3 -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    setenv("PCOLL_THROTTLE", "", 1); /* an empty info value is refused by Open MPI itself */
    expect_init("env PCOLL_THROTTLE=\"\" -> ERR_ARG", &a, 1, PCOLL_ERR_ARG);
    unsetenv("PCOLL_THROTTLE");

    pt_case("env PCOLL_ALLTOALL_ALGORITHM=pairwise overrides info linear");
    setenv("PCOLL_ALLTOALL_ALGORITHM", "pairwise", 1);
    info = info_with("pcoll_algorithm", "linear");
    expect_plan(info, "pairwise");
    MPI_Info_free(&info);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");

    pt_case("env PCOLL_ALGORITHM=scattered selects the algorithm");
    setenv("PCOLL_ALGORITHM", "scattered", 1);
    expect_plan(MPI_INFO_NULL, "scattered");
    unsetenv("PCOLL_ALGORITHM");

    pt_case("environment restored: the one-shot call works again");
    ints_make(&x, MPI_COMM_WORLD, 2);
    ints_fill(&x, 7);
    {
        MPI_Comm dup;
        PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        x.comm = dup;
        PT_REQUIRE(ints_oneshot(&x));
        ints_check(&x, 7, "one-shot after restoring the environment");
        MPI_Comm_free(&dup);
    }
    ints_free(&x);
}

static void test_oneshot_bad_args(void)
{
    ints x;
    pt_case("one-shot bad arguments (on every rank) -> exact codes");
    ints_make(&x, MPI_COMM_WORLD, 2);
    ints_fill(&x, 0);
    PT_RC(pcoll_alltoall(x.sb.base, -1, MPI_INT, x.rb.base, 2, MPI_INT, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_alltoall(x.sb.base, 2, MPI_DATATYPE_NULL, x.rb.base, 2, MPI_INT,
                         MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_alltoall(x.sb.base, 2, MPI_INT, x.rb.base, 2, MPI_INT, MPI_COMM_NULL),
          PCOLL_ERR_ARG);
    PT_RC(pcoll_alltoall(x.sb.base, 2, MPI_INT, x.rb.base, 1, MPI_INT, MPI_COMM_WORLD),
          PCOLL_ERR_MISMATCH);
    pt_check_untouched(&x.rb, "receive buffer after refused calls");
    ints_free(&x);
}

/* ---- names, messages, printing ---------------------------------------------- */

static void test_names(void)
{
    static const struct {
        int code;
        const char *name;
    } codes[] = {
#define PT_CODE_(name, value, msg) {PCOLL_##name, #name},
        PCOLL_STATUS_MAP(PT_CODE_)
#undef PT_CODE_
    };
    const int ncodes = (int)(sizeof codes / sizeof codes[0]);
    pt_case("pcoll_err_name / pcoll_strerror for every code and unknown ones");
    PT_CHECK(ncodes >= 8, "PCOLL_STATUS_MAP has %d codes, expected at least 8", ncodes);
    for (int i = 0; i < ncodes; i++) {
        const char *s = pcoll_strerror(codes[i].code);
        PT_CHECK(strcmp(pcoll_err_name(codes[i].code), codes[i].name) == 0,
                 "pcoll_err_name(%d) is \"%s\", expected \"%s\"", codes[i].code,
                 pcoll_err_name(codes[i].code), codes[i].name);
        PT_CHECK(s && s[0] && strcmp(s, "unknown status") != 0, "pcoll_strerror(%d) is \"%s\"",
                 codes[i].code, s ? s : "(null)");
    }
    PT_CHECK(strcmp(pcoll_err_name(PCOLL_ERR_ARG), "ERR_ARG") == 0, "ERR_ARG's name");
    PT_CHECK(strcmp(pcoll_err_name(PCOLL_ERR_STATE), "ERR_STATE") == 0, "ERR_STATE's name");
    PT_CHECK(strcmp(pcoll_err_name(PCOLL_ERR_MISMATCH), "ERR_MISMATCH") == 0,
             "ERR_MISMATCH's name");
    PT_CHECK(strcmp(pcoll_err_name(12345), "UNKNOWN") == 0, "pcoll_err_name(12345) is \"%s\"",
             pcoll_err_name(12345));
    PT_CHECK(strcmp(pcoll_err_name(-12345), "UNKNOWN") == 0,
             "pcoll_err_name(-12345) is \"%s\"", pcoll_err_name(-12345));
    PT_CHECK(strcmp(pcoll_strerror(12345), "unknown status") == 0,
             "pcoll_strerror(12345) is \"%s\"", pcoll_strerror(12345));
    PT_CHECK(pcoll_last_error() != NULL, "pcoll_last_error() is NULL");
}

static void test_algorithm_table(void)
{
    static const char *const required[] = {"linear", "pairwise", "scattered", "auto"};
    const char *n;
    int count = 0;
    pt_case("alltoall algorithm table: names, descriptions, required entries");
    for (int i = 0; (n = pcoll_algorithm_name("alltoall", i)) != NULL; i++) {
        const char *d = pcoll_algorithm_description("alltoall", i);
        count++;
        PT_CHECK(n[0] != '\0', "algorithm %d has an empty name", i);
        PT_CHECK(d && d[0], "algorithm %s has no description", n);
        for (int j = 0; j < i; j++)
            PT_CHECK(strcmp(n, pcoll_algorithm_name("alltoall", j)) != 0,
                     "algorithm name %s appears twice", n);
        PT_CHECK(i < 100, "the table does not end");
        if (i >= 100)
            break;
    }
    PT_CHECK(pcoll_algorithm_description("alltoall", count) == NULL,
             "description past the end is not NULL");
    for (size_t r = 0; r < sizeof required / sizeof *required; r++) {
        int found = 0;
        for (int i = 0; (n = pcoll_algorithm_name("alltoall", i)) != NULL && i < 100; i++)
            found |= strcmp(n, required[r]) == 0;
        PT_CHECK(found, "algorithm %s missing from the table", required[r]);
    }
    PT_CHECK(pcoll_algorithm_name("alltoall", -1) == NULL, "index -1 is not NULL");
    PT_CHECK(pcoll_algorithm_name("no_such_collective", 0) == NULL,
             "an unknown collective has algorithms");
}

static void test_print(void)
{
    ints x;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = info_with("pcoll_algorithm", "pairwise");
    FILE *f = tmpfile();
    char text[4096];
    size_t n = 0;
    pt_case("pcoll_plan_print writes text naming the algorithm");
    ints_make(&x, MPI_COMM_WORLD, 2);
    PT_REQUIRE(ints_init(&x, info, &plan));
    MPI_Info_free(&info);
    PT_CHECK(f != NULL, "tmpfile() failed");
    if (f) {
        PT_OK(pcoll_plan_print(plan, f));
        rewind(f);
        n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
        PT_CHECK(n > 0, "pcoll_plan_print wrote nothing");
        PT_CHECK(strstr(text, "pairwise") != NULL, "pcoll_plan_print does not mention "
                 "\"pairwise\": \"%.200s\"", text);
    }
    PT_OK(pcoll_plan_free(&plan));
    ints_free(&x);
}

/* ---- one-shot plan cache ---------------------------------------------------- */

static void test_cache_many_buffers(MPI_Comm comm)
{
    enum { NBUF = 100 };
    static ints x[NBUF];
    pt_case("one-shot cache: %d distinct buffer pairs, then reuse with new input", NBUF);
    for (int i = 0; i < NBUF; i++)
        ints_make(&x[i], comm, 1 + i % 3);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < NBUF; i++) {
            if (pass == 1 && i % 10 != 0)
                continue;
            ints_fill(&x[i], (i + pass) & 7);
            PT_REQUIRE(ints_oneshot(&x[i]));
            ints_check(&x[i], (i + pass) & 7, pass ? "buffer reused" : "new buffer");
        }
    }
    for (int i = 0; i < NBUF; i++)
        ints_free(&x[i]);
}

/* One double per item, at offset 0, with the given lb and extent. */
static void resized_double(pt_layout *lay, const char *name, MPI_Aint lb, MPI_Aint extent)
{
    memset(lay, 0, sizeof *lay);
    lay->name = name;
    lay->nelem = 1;
    lay->kind[0] = 'd';
    lay->lb = lb;
    lay->extent = extent;
    lay->owned = 1;
    PT_MPI(MPI_Type_create_resized(MPI_DOUBLE, lb, extent, &lay->type));
    PT_MPI(MPI_Type_commit(&lay->type));
}

/* Same buffers and counts, but the datatypes are freed and new ones with other
 * layouts created in between (MPI may hand out the same handles again): the
 * cache must not run a plan built for the old types. */
static void test_cache_recycled_types(MPI_Comm comm)
{
    const int count = 3;
    int me, np;
    pt_layout big, s, r;
    pt_buf sb, rb, sv, rv;
    MPI_Aint layouts[2][4] = {{0, 16, -8, 24}, {0, 24, 0, 16}}; /* s lb, ext, r lb, ext */
    pt_case("one-shot cache: datatypes freed and recreated with other layouts");
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    resized_double(&big, "big", -8, 32);
    pt_buf_alloc(&sb, &big, (long)count * np);
    pt_buf_alloc(&rb, &big, (long)count * np);
    for (int round = 0; round < 2; round++) {
        resized_double(&s, "send", layouts[round][0], layouts[round][1]);
        resized_double(&r, "recv", layouts[round][2], layouts[round][3]);
        sv = sb, sv.lay = &s;
        rv = rb, rv.lay = &r;
        pt_buf_poison(&sv);
        pt_buf_poison(&rv);
        for (long k = 0; k < sv.nitems; k++)
            pt_put(&sv, k, pt_val(me, (long)pt_off(&sv, k), round));
        PT_REQUIRE(pcoll_alltoall(sb.base, count, s.type, rb.base, count, r.type, comm));
        for (int src = 0; src < np; src++)
            for (long k = 0; k < count; k++) {
                double want = pt_val(src, (long)pt_elem_off(&s, (long)me * count + k, 0), round);
                double got = pt_get(&rv, src * (long)count + k);
                if (want != got)
                    pt_check_elem(round ? "second types" : "first types", src, k, want, got);
            }
        pt_check_untouched(&rv, round ? "second types" : "first types");
        pt_layout_free(&r);
        pt_layout_free(&s);
    }
    pt_buf_free(&sb);
    pt_buf_free(&rb);
    pt_layout_free(&big);
}

static void test_comm_free(void)
{
    MPI_Comm dup, part;
    ints x;
    long long before;
    pt_case("one-shot cache on a freed communicator, then on another one");
    before = pcoll_mem_current();
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int count = 1; count <= 3; count++) {
        ints_make(&x, dup, count);
        ints_fill(&x, count);
        PT_REQUIRE(ints_oneshot(&x));
        ints_check(&x, count, "dup communicator");
        ints_free(&x);
    }
    MPI_Comm_free(&dup);
    PT_CHECK(pcoll_mem_current() == before,
             "pcoll_mem_current() is %lld after freeing the communicator, was %lld",
             pcoll_mem_current(), before);
    PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, pt_rank % 2, -pt_rank, &part));
    for (int count = 1; count <= 3; count++) {
        ints_make(&x, part, count);
        ints_fill(&x, count + 3);
        PT_REQUIRE(ints_oneshot(&x));
        ints_check(&x, count + 3, "next communicator");
        ints_free(&x);
    }
    MPI_Comm_free(&part);
}

static void test_cache(void)
{
    MPI_Comm dup;
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    test_cache_many_buffers(dup);
    test_cache_recycled_types(dup);
    MPI_Comm_free(&dup);
    test_comm_free();
}

/* ---- typed copy --------------------------------------------------------------- */

static void test_typed_copy(void)
{
    /* 3 blocks of 2 ints every 3 ints (ints 0,1,3,4,6,7), extent 8 ints. */
    static const int pos[6] = {0, 1, 3, 4, 6, 7};
    MPI_Datatype vec;
    int src[16], dst[16], back[16];
    pt_case("pcoll_typed_copy vector <-> contiguous ints, mismatch, bad arguments");
    PT_MPI(MPI_Type_vector(3, 2, 3, MPI_INT, &vec));
    PT_MPI(MPI_Type_commit(&vec));
    for (int i = 0; i < 16; i++)
        src[i] = 100 + i;
    pt_poison(dst, sizeof dst);
    PT_OK(pcoll_typed_copy(src, 2, vec, dst, 12, MPI_INT));
    for (int j = 0; j < 12; j++)
        pt_check_elem("vector -> contiguous", 0, j, 100 + 8 * (j / 6) + pos[j % 6], dst[j]);
    for (int j = 12; j < 16; j++)
        pt_check_elem("contiguous tail untouched", 0, j, (int)0xA5A5A5A5, dst[j]);
    pt_poison(back, sizeof back);
    PT_OK(pcoll_typed_copy(dst, 12, MPI_INT, back, 2, vec));
    for (int i = 0; i < 16; i++) {
        int in_map = i < 16 && (i % 8 == 0 || i % 8 == 1 || i % 8 == 3 || i % 8 == 4 ||
                                i % 8 == 6 || i % 8 == 7);
        pt_check_elem(in_map ? "contiguous -> vector" : "vector gap untouched", 0, i,
                      in_map ? 100 + i : (int)0xA5A5A5A5, back[i]);
    }
    pt_poison(dst, sizeof dst);
    PT_RC(pcoll_typed_copy(src, 2, vec, dst, 11, MPI_INT), PCOLL_ERR_MISMATCH);
    PT_RC(pcoll_typed_copy(src, 1, vec, dst, 1, MPI_DOUBLE), PCOLL_ERR_MISMATCH);
    PT_RC(pcoll_typed_copy(src, -1, vec, dst, 12, MPI_INT), PCOLL_ERR_ARG);
    PT_RC(pcoll_typed_copy(src, 2, MPI_DATATYPE_NULL, dst, 12, MPI_INT), PCOLL_ERR_ARG);
    PT_OK(pcoll_typed_copy(src, 0, vec, dst, 0, MPI_INT));
    for (int j = 0; j < 16; j++)
        pt_check_elem("destination untouched by refused/empty copies", 0, j,
                      (int)0xA5A5A5A5, dst[j]);
    MPI_Type_free(&vec);
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    long long baseline;
    pt_init(&argc, &argv);
    unsetenv("PCOLL_ALLTOALL_ALGORITHM");
    unsetenv("PCOLL_ALGORITHM");
    unsetenv("PCOLL_THROTTLE");
    unsetenv("PCOLL_RADIX");
    pt_layout_make(&lay_int, PT_L_INT);

    /* The first plan on MPI_COMM_WORLD may leave per-communicator state that
     * lives until MPI_Finalize: measure from after it. */
    pt_case("a first plan on MPI_COMM_WORLD");
    {
        ints x;
        pcoll_plan_t *plan = NULL;
        ints_make(&x, MPI_COMM_WORLD, 1);
        PT_REQUIRE(ints_init(&x, MPI_INFO_NULL, &plan));
        PT_OK(pcoll_plan_free(&plan));
        ints_free(&x);
    }
    baseline = pcoll_mem_current();

    test_start_twice();
    test_inactive();
    test_free_active();
    test_null_plan();
    test_two_active();
    test_bad_args_everywhere();
    test_bad_args_one_rank();
    test_bad_info();
    test_good_options();
    test_env();
    test_oneshot_bad_args();
    test_names();
    test_algorithm_table();
    test_print();
    test_typed_copy();
    test_cache();

    pt_case("pcoll_mem_current() back to its starting value");
    PT_CHECK(pcoll_mem_current() == baseline,
             "pcoll_mem_current() is %lld, was %lld before the tests", pcoll_mem_current(),
             baseline);
    PT_CHECK(pcoll_mem_peak() >= baseline, "pcoll_mem_peak() %lld below current %lld",
             pcoll_mem_peak(), baseline);
    pt_layout_free(&lay_int);
    return pt_finish();
}
