/*
 * test_oneshot_shape_v.c -- one-shot pcoll_alltoallv served by the plan its
 * shape keeps (src/api/entry.c "Shapes", src/hier/hier_alltoallv_kept.c):
 * `hier` requested on virtual nodes (pcoll_cores_per_node 2, or 1 below
 * np 4), counts that change every call, against MPI_Alltoallv on the same
 * arguments (both receive buffers poisoned alike, compared byte for byte,
 * gaps included).
 *
 * Counts: between 0 and 4 items per pair, some pairs empty, one rank
 * sending nothing on every other call, now and then a piece of 300 items
 * (over the 1 KiB that travels bundled between nodes: sent alone there;
 * bundled on one node, whose slots hold up to 16 KiB at np <= 8) and one
 * of 5000 (20 KB: alone on one node too).  Send blocks lie
 * in reverse order with gaps, receive blocks in order with gaps.
 * Cases (ints to device twice: on the virtual nodes, then with every rank
 * on one virtual node, where the kept plan gives every piece a slot and a
 * run has one node barrier):
 *   ints       MPI_INT both sides, new buffers each call;
 *   handles    even ranks send ints, odd ones pairs of ints (a new
 *              contiguous(2) handle every call on rank 1) in half the
 *              items: the ranks' decisions must not split;
 *   derived    every other double of the send buffer (a resized vector)
 *              into plain doubles;
 *   in place   MPI_IN_PLACE with counts symmetric between pairs;
 *   comms      a duplicate of the world freed after three calls, twice;
 *   one node   the world's shape, on virtual nodes so far, on one;
 *   reversed   the world in reverse rank order;
 *   device     odd ranks' buffers in "device memory" (host memory the
 *              library takes for it, pcoll__gpu_pretend) once the shape
 *              has its plan, out of place and in place: the plan runs on
 *              host mirrors of them, every rank alike;
 *   auto       the automatic choice (results only);
 *   auto, one node   every rank on one virtual node, 8 B blocks: with the
 *              node's terms cheap (PCOLL_COST_BARRIER, PCOLL_COST_SHM)
 *              the shape keeps hier, with the barrier dear it keeps none;
 *              with the MPI's messages on the node cheap (PCOLL_COST_LOCAL)
 *              none, dear hier;
 *   steady     every rank on one node, hier priced below the MPI's call
 *              only without pcoll's checks of changed arrays: arrays that
 *              repeat take hier from call 64, native again by call 512
 *              once one rank's change from call 450; arrays that change
 *              on rank 0 alone: native throughout;
 *   recheck    auto's shape decided again at calls 64 and 512 under a
 *              rules file naming hier for short blocks, the blocks long,
 *              then short, then long: native, hier, native, every rank
 *              alike, no agreement between decisions; blocks that stay
 *              short: one reduction at call 64, hier kept;
 *   signal     every rank on one node, the rules file's hier decided for
 *              short blocks; from call 100 the last rank alone receives
 *              long ones: it raises the node's signal and every rank runs
 *              native from call 101 (not only from the look at call 512);
 *   forms      the int and large-count forms (pcoll_alltoallv_c) with the
 *              MPI's call priced cheaper than pcoll's: the int form runs
 *              `native` on every MPI, the large-count form only with
 *              MPI-4 (`scattered` with MPI-3).
 * With `hier` requested every call must report it, and once a shape has
 * its plan a call must make no MPI_Allreduce (this file counts them): the
 * plan is kept, not made again with an agreement per call.
 *
 * Usage: test_oneshot_shape_v
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "gpu/gpu.h"
#include "harness.h"
#include "../dropin/rules_file.h"

static int me, np;
static long allreduces;

/* pcoll's agreements pass here (the MPI's own collectives do not). */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    allreduces++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

/* Items rank s sends to rank d in call `run`; sym: the same both ways. */
static int count_of(int s, int d, int run, int sym)
{
    int a = sym && d < s ? d : s, b = sym && d < s ? s : d;
    if (!sym && run % 2 && s == np - 1)
        return 0; /* one rank sends nothing */
    if ((a + 2 * b + run) % 11 == 3)
        return 300;
    if ((3 * a + b + run) % 13 == 7)
        return 5000; /* 20 KB: past the kept plan's piece on one node, alone */
    return (a * 7 + b * 13 + run * 5) % 5;
}

typedef struct layout {
    int sc[64], sd[64], rc[64], rd[64];
    int stotal, rtotal; /* items the buffers span */
} layout_t;

/* Send blocks in reverse order, receive blocks in order, a gap of one item
 * after each; unit: send items per receive item (1, or 2 for pairs). */
static void make_layout(layout_t *L, int p, int rank, int run, int sym, int unit)
{
    int at = 0;
    for (int i = p - 1; i >= 0; i--) {
        L->sc[i] = count_of(rank, i, run, sym) / unit;
        L->sd[i] = at;
        at += L->sc[i] + 1;
    }
    L->stotal = at;
    at = 0;
    for (int i = 0; i < p; i++) {
        L->rc[i] = count_of(i, rank, run, sym) / unit * unit;
        L->rd[i] = at;
        at += L->rc[i] + 1;
    }
    L->rtotal = at;
}

/* The layout the cases run on: "" (virtual nodes of 2, or 1 below np 4)
 * or " (one node)" (every rank on one virtual node: the kept plan's slots). */
static const char *where = "";

static void expect_algorithm(const char *want)
{
    if (want)
        PT_CHECK(strcmp(pcoll__last_run_algorithm, want) == 0, "ran %s, expected %s",
                 pcoll__last_run_algorithm, want);
}

/* Compare two receive buffers of bytes; report the first difference. */
static void compare(const unsigned char *got, const unsigned char *ref, size_t bytes,
                    const char *what)
{
    for (size_t i = 0; i < bytes; i++)
        if (got[i] != ref[i]) {
            pt_check_elem(what, -1, (long)i, ref[i], got[i]);
            return;
        }
}

/* Steady calls (after the shape decided) must not agree again. */
static void expect_quiet(long before, int steady, const char *want)
{
    if (want && steady)
        PT_CHECK(allreduces == before, "%ld MPI_Allreduce calls in a steady call",
                 allreduces - before);
}

/* One call of ints (unit 1) or pairs of ints on odd ranks (unit 2, type
 * pair) on comm, against MPI_Alltoallv. */
static void int_call(MPI_Comm comm, int run, int unit, MPI_Datatype pair, const char *want,
                     int steady)
{
    int p, rank;
    layout_t L;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    int odd = unit > 1 && rank % 2;
    make_layout(&L, p, rank, run, 0, odd ? 2 : 1);
    if (unit > 1) /* every count even: pairs on odd ranks, ints on even ones */
        for (int i = 0; i < p; i++) {
            L.rc[i] = count_of(i, rank, run, 0) / 2 * 2;
            if (!odd)
                L.sc[i] = count_of(rank, i, run, 0) / 2 * 2;
        }
    size_t sbytes = sizeof(int) * (size_t)(L.stotal * 2 + 1);
    size_t rbytes = sizeof(int) * (size_t)(L.rtotal + 1);
    int *sb = malloc(sbytes), *rb = malloc(rbytes), *ref = malloc(rbytes);
    MPI_Datatype st = odd ? pair : MPI_INT;
    int items = L.stotal * (odd ? 2 : 1);
    for (int i = 0; i < items; i++)
        sb[i] = rank * 100000 + i * 7 + run;
    pt_poison(rb, rbytes);
    pt_poison(ref, rbytes);
    PT_MPI(MPI_Alltoallv(sb, L.sc, L.sd, st, ref, L.rc, L.rd, MPI_INT, comm));
    long before = allreduces;
    PT_REQUIRE(pcoll_alltoallv(sb, L.sc, L.sd, st, rb, L.rc, L.rd, MPI_INT, comm));
    expect_quiet(before, steady, want);
    expect_algorithm(want);
    compare((unsigned char *)rb, (unsigned char *)ref, rbytes, "ints");
    free(sb);
    free(rb);
    free(ref);
}

static void case_ints(const char *want)
{
    pt_case("ints %s%s", want ? want : "auto", where);
    for (int run = 0; run < 6; run++)
        int_call(MPI_COMM_WORLD, run, 1, MPI_INT, want, run > 0);
    pt_case_end();
}

static void case_handles(void)
{
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    pt_case("handles%s", where);
    for (int run = 0; run < 4; run++) {
        if (me % 2 && (me == 1 || run == 0)) {
            PT_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
            PT_MPI(MPI_Type_commit(&pair));
        }
        int_call(MPI_COMM_WORLD, 10 + run, 2, pair, "hier", 1);
        if (me % 2 && (me == 1 || run == 3))
            MPI_Type_free(&pair);
    }
    pt_case_end();
}

/* Every other double (a vector resized to two doubles) into doubles. */
static void case_derived(void)
{
    MPI_Datatype vec, every;
    pt_case("derived%s", where);
    PT_MPI(MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &vec));
    PT_MPI(MPI_Type_create_resized(vec, 0, 2 * sizeof(double), &every));
    PT_MPI(MPI_Type_commit(&every));
    MPI_Type_free(&vec);
    for (int run = 20; run < 24; run++) {
        layout_t L;
        make_layout(&L, np, me, run, 0, 1);
        size_t rbytes = sizeof(double) * (size_t)L.rtotal + 1;
        double *sb = malloc(sizeof(double) * (size_t)(2 * L.stotal + 1));
        double *rb = malloc(rbytes), *ref = malloc(rbytes);
        for (int i = 0; i < 2 * L.stotal; i++)
            sb[i] = me * 1000.5 + i + run;
        pt_poison(rb, rbytes);
        pt_poison(ref, rbytes);
        PT_MPI(MPI_Alltoallv(sb, L.sc, L.sd, every, ref, L.rc, L.rd, MPI_DOUBLE,
                             MPI_COMM_WORLD));
        long before = allreduces;
        PT_REQUIRE(pcoll_alltoallv(sb, L.sc, L.sd, every, rb, L.rc, L.rd, MPI_DOUBLE,
                                   MPI_COMM_WORLD));
        expect_quiet(before, 1, "hier");
        expect_algorithm("hier");
        compare((unsigned char *)rb, (unsigned char *)ref, rbytes, "derived");
        free(sb);
        free(rb);
        free(ref);
    }
    MPI_Type_free(&every);
    pt_case_end();
}

/* In place, runs [first, last); on odd ranks from run `device` on with
 * device buffers. */
static void inplace_runs(int first, int last, int device)
{
    for (int run = first; run < last; run++) {
        layout_t L;
        make_layout(&L, np, me, run, 1, 1);
        size_t rbytes = sizeof(int) * (size_t)(L.rtotal + 1);
        int *rb = malloc(rbytes), *ref = malloc(rbytes);
        pt_poison(rb, rbytes);
        for (int i = 0; i < np; i++)
            for (int k = 0; k < L.rc[i]; k++)
                rb[L.rd[i] + k] = me * 100000 + i * 1000 + k + run;
        memcpy(ref, rb, rbytes);
        PT_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ref, L.rc, L.rd,
                             MPI_INT, MPI_COMM_WORLD));
        long before = allreduces;
        pcoll__gpu_pretend = run >= device && me % 2;
        PT_REQUIRE(pcoll_alltoallv(MPI_IN_PLACE, L.rc, L.rd, MPI_INT, rb, L.rc, L.rd, MPI_INT,
                                   MPI_COMM_WORLD));
        pcoll__gpu_pretend = 0;
        expect_quiet(before, run > 30, "hier");
        expect_algorithm("hier");
        compare((unsigned char *)rb, (unsigned char *)ref, rbytes, "in place");
        free(rb);
        free(ref);
    }
}

static void case_inplace(void)
{
    pt_case("in place%s", where);
    inplace_runs(30, 35, 35);
    pt_case_end();
}

static void case_device(void)
{
    pt_case("device%s", where);
    for (int run = 80; run < 83; run++) {
        pcoll__gpu_pretend = me % 2;
        int_call(MPI_COMM_WORLD, run, 1, MPI_INT, "hier", 1);
        pcoll__gpu_pretend = 0;
    }
    inplace_runs(31, 34, 31);
    pt_case_end();
}

static void case_comms(void)
{
    pt_case("comms%s", where);
    for (int i = 0; i < 2; i++) {
        MPI_Comm dup;
        PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        for (int run = 0; run < 3; run++)
            int_call(dup, 40 + 3 * i + run, 1, MPI_INT, "hier", run > 0);
        PT_MPI(MPI_Comm_free(&dup));
    }
    pt_case_end();
}

/* Every rank on one virtual node: no bundles between nodes, the pieces
 * through the node's segment alone. */
static void case_one_node(void)
{
    char all[16];
    snprintf(all, sizeof all, "%d", np);
    pt_case("one node");
    setenv("PCOLL_CORES_PER_NODE", all, 1);
    for (int run = 70; run < 73; run++)
        int_call(MPI_COMM_WORLD, run, 1, MPI_INT, "hier", run > 70);
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    pt_case_end();
}

static void case_reversed(void)
{
    MPI_Comm rev = pt_comm_make(PT_C_REVERSED);
    pt_case("reversed%s", where);
    for (int run = 50; run < 53; run++)
        int_call(rev, run, 1, MPI_INT, "hier", run > 50);
    pt_comm_free(&rev);
    pt_case_end();
}

/* One call of ints in the int form (wide 0) or the large-count form on the
 * world, against MPI_Alltoallv; the algorithm it ran must be want. */
static void form_call(int run, int wide, const char *want)
{
    layout_t L;
    MPI_Count wsc[64], wrc[64];
    MPI_Aint wsd[64], wrd[64];
    make_layout(&L, np, me, run, 0, 1);
    size_t sbytes = sizeof(int) * (size_t)(L.stotal + 1);
    size_t rbytes = sizeof(int) * (size_t)(L.rtotal + 1);
    int *sb = malloc(sbytes), *rb = malloc(rbytes), *ref = malloc(rbytes);
    for (int i = 0; i < L.stotal; i++)
        sb[i] = me * 100000 + i * 7 + run;
    for (int i = 0; i < np; i++)
        wsc[i] = L.sc[i], wrc[i] = L.rc[i], wsd[i] = L.sd[i], wrd[i] = L.rd[i];
    pt_poison(rb, rbytes);
    pt_poison(ref, rbytes);
    PT_MPI(MPI_Alltoallv(sb, L.sc, L.sd, MPI_INT, ref, L.rc, L.rd, MPI_INT, MPI_COMM_WORLD));
    if (wide)
        PT_REQUIRE(pcoll_alltoallv_c(sb, wsc, wsd, MPI_INT, rb, wrc, wrd, MPI_INT,
                                     MPI_COMM_WORLD));
    else
        PT_REQUIRE(pcoll_alltoallv(sb, L.sc, L.sd, MPI_INT, rb, L.rc, L.rd, MPI_INT,
                                   MPI_COMM_WORLD));
    expect_algorithm(want);
    compare((unsigned char *)rb, (unsigned char *)ref, rbytes, wide ? "large-count" : "int");
    free(sb);
    free(rb);
    free(ref);
}

/* The automatic choice of either form where the model prices the MPI's
 * call below pcoll's (no cost per MPI call, a high CPU cost per pcoll
 * message, a dear node barrier for hier): the int form runs the MPI's call on every MPI (one call is made
 * in one form on every rank), the large-count form too with MPI-4; with
 * MPI-3 (no MPI_Alltoallv_c) it must not, since another rank's counts may
 * not fit in an int. */
static void case_forms(void)
{
    pt_case("forms (auto, the MPI's call priced cheaper)");
    setenv("PCOLL_COST_CALL", "0", 1);
    setenv("PCOLL_COST_CPU", "1e-3", 1);
    setenv("PCOLL_COST_BARRIER", "1", 1);
    for (int run = 0; run < 4; run++) {
        form_call(run, 0, "native");
        form_call(run, 1, MPI_VERSION >= 4 ? "native" : "scattered");
    }
    unsetenv("PCOLL_COST_CALL");
    unsetenv("PCOLL_COST_CPU");
    unsetenv("PCOLL_COST_BARRIER");
    pt_case_end();
}

/* The rules file of tests/dropin/rules_file.h (hier for alltoallv blocks
 * up to 64 B, native above), written by rank 0; its path on every rank. */
static void recheck_rules(char *path, size_t n)
{
    if (me == 0 && rules_file_write(path, n, np) != 0)
        PT_MPI(MPI_ERR_OTHER);
    PT_MPI(MPI_Bcast(path, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD));
}

/* One auto call on comm of the arrays given (the send side's equal to the
 * receive side's of every peer), against the closed form; 1 where it ran
 * hier, the same on every rank (checked). */
static int checked_call(MPI_Comm comm, const int *sc, const int *sd, const int *rc,
                        const int *rd, int call, const char *what)
{
    static int sb[64 * 1024], rb[64 * 1024];
    int hier, lo, hi;
    for (int i = 0; i < np; i++)
        for (int k = 0; k < sc[i]; k++)
            sb[sd[i] + k] = me * 100000 + i * 1000 + k % 1000 + call;
    pt_poison(rb, sizeof(int) * (size_t)(rd[np - 1] + rc[np - 1]));
    PT_REQUIRE(pcoll_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm));
    for (int s = 0; s < np; s++)
        for (int k = 0; k < rc[s]; k++)
            if (rb[rd[s] + k] != s * 100000 + me * 1000 + k % 1000 + call) {
                pt_check_elem(what, s, k, s * 100000 + me * 1000 + k % 1000 + call,
                              rb[rd[s] + k]);
                s = np;
                break;
            }
    hier = lo = hi = strcmp(pcoll__last_run_algorithm, "hier") == 0;
    PT_MPI(PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm));
    PT_MPI(PMPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm));
    PT_CHECK(lo == hi, "call %d: hier on some ranks only", call);
    return hier;
}

/* n ints to every peer, the blocks gap ints apart. */
static int spaced_call(MPI_Comm comm, int n, int gap, int call)
{
    int c[64], d[64];
    for (int i = 0; i < np; i++)
        c[i] = n, d[i] = i * (n + gap);
    return checked_call(comm, c, d, c, d, call, "uniform");
}

static int uniform_call(MPI_Comm comm, int n, int call)
{
    return spaced_call(comm, n, 0, call);
}

/* auto's shape decided again as its calls go on (src/api/entry.c,
 * next_recheck: at calls 64 and 512, where some rank's volume moved),
 * under a rules file that names hier for short blocks only: 4 KiB blocks
 * when the shape is first decided (call 2: native), 8 B from call 64
 * (hier, kept), 4 KiB again from call 512 (native); then 8 B blocks
 * throughout, where call 64 only asks (one reduction) and keeps hier.
 * Every result checked; between decisions no call agrees (no
 * MPI_Allreduce of pcoll's). */
static void case_recheck(void)
{
    char path[512];
    MPI_Comm d;
    int last = np <= 8 ? 520 : 70;
    pt_case("auto decided again at calls 64 and 512");
    recheck_rules(path, sizeof path);
    setenv("PCOLL_TUNING_FILE", path, 1);
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= last; call++) {
        long before = allreduces;
        int small = call >= 64 && call < 512;
        int hier = uniform_call(d, small ? 2 : 1024, call);
        int decides = call == 2 || call == 64 || call == 512;
        PT_CHECK(hier == small, "call %d ran %s", call, pcoll__last_run_algorithm);
        PT_CHECK(decides || call == 1 || allreduces == before,
                 "call %d: %ld MPI_Allreduce calls between decisions", call,
                 allreduces - before);
        PT_CHECK(!decides || allreduces > before, "call %d: no agreement", call);
    }
    PT_MPI(MPI_Comm_free(&d));
    /* Blocks that stay short: at call 64 one reduction finds no rank's
     * volume moved, and nothing is decided (the plan stays). */
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= 70; call++) {
        long before = allreduces;
        int hier = uniform_call(d, 2, call);
        PT_CHECK(call < 2 || hier, "call %d ran %s", call, pcoll__last_run_algorithm);
        PT_CHECK(call <= 2 || allreduces - before == (call == 64),
                 "call %d: %ld MPI_Allreduce calls", call, allreduces - before);
    }
    PT_MPI(MPI_Comm_free(&d));
    unsetenv("PCOLL_TUNING_FILE");
    if (me == 0)
        remove(path);
    pt_case_end();
}

/* Looks at most 16384 calls apart (src/api/entry.c, next_recheck: calls
 * 64, 512, 4096, then 20480, where eightfold would be 32768), under the
 * rules file: 4 KiB blocks (native, forwarded) to call 4200, then 8 B
 * blocks, which the look at call 20480 finds moved and runs on hier.  The
 * calls between unchecked but for the algorithm (np <= 4: 20480 calls). */
static void case_looks_apart(void)
{
    static int sb[64 * 1024], rb[64 * 1024];
    int c[64], dl[64], big[64], dbig[64], small[64], dsmall[64];
    char path[512];
    MPI_Comm d;
    pt_case("auto looks at most 16384 calls apart");
    if (np > 4) {
        pt_case_end();
        return;
    }
    for (int i = 0; i < np; i++)
        big[i] = 1024, dbig[i] = i * 1024, small[i] = 2, dsmall[i] = i * 2;
    recheck_rules(path, sizeof path);
    setenv("PCOLL_TUNING_FILE", path, 1);
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= 20481; call++) {
        int late = call > 4200, hier;
        if (call == 4200 || call >= 20479) {
            memcpy(c, late ? small : big, sizeof(int) * (size_t)np);
            memcpy(dl, late ? dsmall : dbig, sizeof(int) * (size_t)np);
            hier = checked_call(d, c, dl, c, dl, call, "looks apart");
            PT_CHECK(hier == (call >= 20480), "call %d ran %s", call,
                     pcoll__last_run_algorithm);
            continue;
        }
        PT_REQUIRE(pcoll_alltoallv(sb, late ? small : big, late ? dsmall : dbig, MPI_INT, rb,
                                   late ? small : big, late ? dsmall : dbig, MPI_INT, d));
    }
    PT_MPI(MPI_Comm_free(&d));
    unsetenv("PCOLL_TUNING_FILE");
    if (me == 0)
        remove(path);
    pt_case_end();
}

/* Every rank sends `big` ints to the last rank and `small` to the others
 * (so only the last rank receives more when big grows). */
static int skewed_call(MPI_Comm comm, int small, int big, int call)
{
    int sc[64], sd[64], rc[64], rd[64], last = np - 1;
    for (int i = 0, at = 0, rat = 0; i < np; i++) {
        sc[i] = i == last ? big : small, sd[i] = at, at += sc[i];
        rc[i] = me == last ? big : small, rd[i] = rat, rat += rc[i];
    }
    return checked_call(comm, sc, sd, rc, rd, call, "skewed");
}

/* The node signal (src/api/entry.c "Shapes decided again"): every rank on
 * one node, the rules file naming hier for short blocks: 2 ints a block
 * decide hier at call 2; from call 100 every rank sends the last rank
 * 1024 ints, and only its volume moves.  It raises the node's signal in
 * that call's run, every rank looks at call 101 and runs native from there
 * on (without the signal: from call 512).  Calls 2-99 make no agreement. */
static void case_signal(void)
{
    char all[16], path[512];
    MPI_Comm d;
    pt_case("node signal");
    snprintf(all, sizeof all, "%d", np);
    setenv("PCOLL_CORES_PER_NODE", all, 1);
    recheck_rules(path, sizeof path);
    setenv("PCOLL_TUNING_FILE", path, 1);
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= 110; call++) {
        long before = allreduces;
        int hier = skewed_call(d, 2, call >= 100 ? 1024 : 2, call);
        PT_CHECK(call < 2 || hier == (call <= 100), "call %d ran %s", call,
                 pcoll__last_run_algorithm);
        PT_CHECK(call <= 2 || call == 64 || call == 101 || allreduces == before,
                 "call %d: %ld MPI_Allreduce calls", call, allreduces - before);
    }
    PT_MPI(MPI_Comm_free(&d));
    unsetenv("PCOLL_TUNING_FILE");
    if (me == 0)
        remove(path);
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    pt_case_end();
}

/* auto on one node: the shape keeps `hier` where the model prices the
 * node's copies and barriers and pcoll's checks of a call's changed arrays
 * below the flat exchange (cheap node terms in the environment), and keeps
 * none where they are dear; every rank alike. */
static void auto_one_node(const char *barrier, const char *shm, int want_hier)
{
    MPI_Comm d;
    setenv("PCOLL_COST_BARRIER", barrier, 1);
    setenv("PCOLL_COST_SHM", shm, 1);
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= 4; call++) {
        int hier = uniform_call(d, 2, call);
        PT_CHECK(call < 3 || hier == want_hier, "node terms %s, %s: call %d ran %s", barrier,
                 shm, call, pcoll__last_run_algorithm);
    }
    PT_MPI(MPI_Comm_free(&d));
    unsetenv("PCOLL_COST_BARRIER");
    unsetenv("PCOLL_COST_SHM");
}

/* Every rank on one virtual node, the MPI's calls priced by their messages
 * alone (no cost per MPI call, blocking or started, none for the own
 * block); off: the environment as main leaves it. */
static void one_node_pricing(int on)
{
    static const char *const keys[] = {"PCOLL_COST_CALL", "PCOLL_COST_PCALL",
                                       "PCOLL_COST_VSELF"};
    char all[16];
    snprintf(all, sizeof all, "%d", np);
    for (int i = 0; i < 3; i++)
        if (on)
            setenv(keys[i], "0", 1);
        else
            unsetenv(keys[i]);
    setenv("PCOLL_CORES_PER_NODE", on ? all : np > 3 ? "2" : "1", 1);
}

static void case_auto_one_node(void)
{
    char share[32];
    pt_case("auto on one node");
    /* The MPI's messages on one node at their local share of alpha: dear
     * (1) the shape keeps hier where the node terms are cheap, none where
     * they are dear; cheap (0.01) none. */
    one_node_pricing(1);
    setenv("PCOLL_COST_LOCAL", "1", 1);
    auto_one_node("1e-9", "1e-13", np > 1);
    auto_one_node("1e-3", "1e-13", 0);
    auto_one_node("1e-7", "1e-13", np > 1);
    setenv("PCOLL_COST_LOCAL", "0.01", 1);
    auto_one_node("1e-7", "1e-13", 0);
    /* The MPI's whole call 0.25 us (p - 1 messages), below pcoll's checks
     * of changed arrays (0.3 us and more): none, however cheap the node. */
    snprintf(share, sizeof share, "%g", 0.25 / (np > 1 ? np - 1 : 1));
    setenv("PCOLL_COST_LOCAL", share, 1);
    auto_one_node("1e-9", "1e-13", 0);
    unsetenv("PCOLL_COST_LOCAL");
    one_node_pricing(0);
    pt_case_end();
}

/* Steady calls (src/api/entry.c): every rank on one node, the MPI's
 * whole call priced 0.25 us and hier's run 0.1 us, so that hier pays only
 * where pcoll's checks of changed arrays (0.3 us and more) are not paid
 * on most calls.  Calls whose arrays repeat run the MPI's call until call
 * 64 decides hier for them; from call 450 the last rank's displacements
 * change every other call (so every call of its differs from the one
 * before): its signal, or the look at call 512 at the latest, decides
 * native again (np <= 8: 520 calls).  Calls whose arrays change on one
 * rank alone, every other call, run the MPI's call throughout.  Every
 * rank alike. */
static void case_steady(void)
{
    char share[32], barrier[32];
    int last = np <= 8 ? 520 : 70;
    MPI_Comm d;
    pt_case("steady calls");
    snprintf(share, sizeof share, "%g", 0.25 / (np > 1 ? np - 1 : 1));
    snprintf(barrier, sizeof barrier, "%g", 1e-7 / np);
    one_node_pricing(1);
    setenv("PCOLL_COST_LOCAL", share, 1);
    setenv("PCOLL_COST_BARRIER", barrier, 1);
    setenv("PCOLL_COST_SHM", "1e-13", 1);
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= last; call++) {
        int gap = me == np - 1 && call >= 450 && call % 2;
        int hier = spaced_call(d, 2, gap, call);
        int want = np > 1 && call >= 64 && call < 450;
        PT_CHECK(hier == want || (call >= 450 && call < 512), "steady: call %d ran %s", call,
                 pcoll__last_run_algorithm);
    }
    PT_MPI(MPI_Comm_free(&d));
    PT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    for (int call = 1; call <= 70; call++) {
        int hier = spaced_call(d, 2, me == 0 && call % 2, call);
        PT_CHECK(!hier, "changing on rank 0: call %d ran %s", call, pcoll__last_run_algorithm);
    }
    PT_MPI(MPI_Comm_free(&d));
    unsetenv("PCOLL_COST_SHM");
    unsetenv("PCOLL_COST_BARRIER");
    unsetenv("PCOLL_COST_LOCAL");
    one_node_pricing(0);
    pt_case_end();
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np > 64) {
        pt_skip("np > 64");
        return pt_finish();
    }
    setenv("PCOLL_ALLTOALLV_ALGORITHM", "hier", 1);
    for (int one = 0; one < 2; one++) {
        char all[16];
        snprintf(all, sizeof all, "%d", np);
        setenv("PCOLL_CORES_PER_NODE", one ? all : np > 3 ? "2" : "1", 1);
        where = one ? " (one node)" : "";
        case_ints("hier");
        case_handles();
        case_derived();
        case_inplace();
        case_comms();
        case_reversed();
        case_device();
    }
    where = "";
    setenv("PCOLL_CORES_PER_NODE", np > 3 ? "2" : "1", 1);
    case_one_node();
    unsetenv("PCOLL_ALLTOALLV_ALGORITHM");
    case_ints(NULL);
    case_auto_one_node();
    case_steady();
    case_recheck();
    case_looks_apart();
    case_signal();
    unsetenv("PCOLL_CORES_PER_NODE");
    case_forms();
    return pt_finish();
}
