/*
 * test_hier.c -- the node-aware algorithms: alltoall `hier`, alltoallv `hier`
 * and pcoll_alltoall_multi_init, against closed-form values.
 *
 * Configurations (info keys; every rank of this one machine is a physical
 * node, so virtual nodes make the topology): pcoll_cores_per_node in
 * {1, 2, 3, 4, p} x pcoll_ports in {1, 2, all}, and on some of them
 * pcoll_radix 2 (several Bruck steps between nodes), pcoll_throttle 1,
 * PCOLL_HIER_SHM=0 (no shared memory: the fallback) and PCOLL_HIER_BARRIER=mpi
 * (the node barrier by MPI_Ibarrier).  For each:
 *   alltoall    one persistent plan, three starts with new input (wait, wait,
 *               a pcoll_test loop); the type pair and count change with the
 *               configuration (MPI_INT; strided doubles into doubles with a
 *               negative lower bound; two structs with different layouts),
 *               in place on some;
 *   alltoallv   the same with counts (s + 2d) mod 4 (zeros included), send
 *               blocks in reverse peer order, receive blocks with gaps (which
 *               must stay untouched); in place (symmetric counts) on some.
 * Overlap: a plan is started, the rank computes and calls pcoll_test between
 * slices of work until the run completes, then checks the result.
 * A run ahead (every rank on one node): rank 0 finishes a run and starts the
 * next while the others have yet to wait for the first (pt_run_ahead).
 * Multiple all-to-all: process grids 2x2, 2x3, 3x4 and 4x4 (those that fit;
 * the other ranks stay out), rows contiguous (row = rank / C) and strided
 * (row = rank mod R), column communicators ranked in reverse, against
 * MPI_Alltoall on every row; and comm_column = MPI_COMM_NULL (2x2).
 * Node memory (even p): the segment's bytes that pcoll_plan_print reports and
 * pcoll_mem_current counts equal equation (1)'s closed form.
 *
 * Usage: test_hier
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct config {
    int cores, ports, radix, throttle, noshm, mpibar;
} config;

static pt_layout layouts[PT_L_COUNT];

/* A persistent plan's three runs: pcoll_wait twice, then a pcoll_test loop. */
static void run_plan(pcoll_plan_t *plan, int run)
{
    PT_REQUIRE(pcoll_start(plan));
    if (run == 2)
        pt_test_loop(plan);
    else
        PT_REQUIRE(pcoll_wait(plan));
}

static MPI_Info make_info(const config *c)
{
    MPI_Info info;
    char v[32];
    PT_MPI(MPI_Info_create(&info));
    PT_MPI(MPI_Info_set(info, "pcoll_algorithm", "hier"));
    snprintf(v, sizeof v, "%d", c->cores);
    PT_MPI(MPI_Info_set(info, "pcoll_cores_per_node", v));
    if (c->ports > 0) {
        snprintf(v, sizeof v, "%d", c->ports);
        PT_MPI(MPI_Info_set(info, "pcoll_ports", v));
    }
    if (c->radix > 0) {
        snprintf(v, sizeof v, "%d", c->radix);
        PT_MPI(MPI_Info_set(info, "pcoll_radix", v));
    }
    if (c->throttle > 0) {
        snprintf(v, sizeof v, "%d", c->throttle);
        PT_MPI(MPI_Info_set(info, "pcoll_throttle", v));
    }
    if (c->noshm)
        setenv("PCOLL_HIER_SHM", "0", 1);
    else
        unsetenv("PCOLL_HIER_SHM");
    if (c->mpibar)
        setenv("PCOLL_HIER_BARRIER", "mpi", 1);
    else
        unsetenv("PCOLL_HIER_BARRIER");
    return info;
}

static void fill(const pt_buf *b, int me, int run)
{
    for (long k = 0; k < b->nitems * b->lay->nelem; k++)
        pt_put(b, k, pt_val(me, (long)pt_off(b, k), run));
}

/* Element k of a run of items starting at item `first` came from element k
 * of the run starting at item `sfirst` of rank s's send layout sl. */
static void check_run(const pt_buf *rb, long first, const pt_layout *sl, long sfirst, long items,
                      int s, int run)
{
    int ne = sl->nelem;
    for (long k = 0; k < items * ne; k++) {
        double want = pt_val(s, (long)pt_elem_off(sl, sfirst + k / ne, (int)(k % ne)), run);
        double got = pt_get(rb, first * rb->lay->nelem + k);
        if (want != got)
            pt_check_elem("received", s, k, want, got);
    }
}

/* ---- alltoall ------------------------------------------------------------------- */

static const enum pt_layout_kind a2a_types[3][2] = {
    {PT_L_INT, PT_L_INT}, {PT_L_VEC, PT_L_NEGLB}, {PT_L_STRUCT_A, PT_L_STRUCT_B}};

static void alltoall_case(const config *c, int which, int inplace)
{
    const pt_layout *sl = &layouts[a2a_types[which][0]], *rl = &layouts[a2a_types[which][1]];
    int sc = which == 0 ? 3 : 2, rc = sc * sl->nelem / rl->nelem;
    pt_buf sb = {0}, rb;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = make_info(c);
    if (inplace)
        sl = rl, sc = rc;
    pt_buf_alloc(&rb, rl, (long)rc * pt_size);
    if (!inplace)
        pt_buf_alloc(&sb, sl, (long)sc * pt_size);
    PT_REQUIRE(pcoll_alltoall_init(inplace ? MPI_IN_PLACE : sb.base, sc, sl->type, rb.base, rc,
                                   rl->type, MPI_COMM_WORLD, info, &plan));
    MPI_Info_free(&info);
    PT_CHECK(strcmp(pcoll_plan_algorithm(plan), "hier") == 0, "plan runs %s",
             pcoll_plan_algorithm(plan));
    for (int run = 0; run < 3; run++) {
        pt_buf_poison(&rb);
        fill(inplace ? &rb : &sb, pt_rank, run + 10);
        run_plan(plan, run);
        for (int s = 0; s < pt_size; s++)
            check_run(&rb, (long)s * rc, sl, (long)pt_rank * sc, sc, s, run + 10);
        pt_check_untouched(&rb, "receive gaps");
    }
    PT_OK(pcoll_plan_free(&plan));
    pt_buf_free(&rb);
    if (!inplace)
        pt_buf_free(&sb);
}

/* ---- alltoallv -------------------------------------------------------------------- */

/* Items rank s sends to rank d (symmetric in place, as MPI requires). */
static int vcount(int s, int d, int sym)
{
    return sym ? (s + d) % 4 : (s + 2 * d) % 4;
}

/* Rank s's send blocks in reverse peer order. */
static int sdispl(int s, int d, int sym)
{
    int x = 0;
    for (int e = pt_size - 1; e > d; e--)
        x += vcount(s, e, sym);
    return x;
}

/* Rank r's receive blocks in peer order, one item of gap before each. */
static int rdispl(int r, int s, int sym)
{
    int x = 1;
    for (int e = 0; e < s; e++)
        x += vcount(e, r, sym) + 1;
    return x;
}

static void alltoallv_case(const config *c, int which, int inplace)
{
    const pt_layout *sl = &layouts[which ? PT_L_STRUCT_A : PT_L_INT];
    const pt_layout *rl = &layouts[which ? PT_L_STRUCT_B : PT_L_INT];
    int np = pt_size, me = pt_rank, *sc = malloc(sizeof(int) * 4 * (size_t)np);
    int *sd = sc + np, *rc = sc + 2 * np, *rd = sc + 3 * np;
    pt_buf sb = {0}, rb;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = make_info(c);
    for (int x = 0; x < np; x++) {
        sc[x] = vcount(me, x, inplace), sd[x] = sdispl(me, x, inplace);
        rc[x] = vcount(x, me, inplace), rd[x] = rdispl(me, x, inplace);
    }
    if (inplace)
        sl = rl, sd = rd;
    pt_buf_alloc(&rb, rl, rdispl(me, np, inplace));
    if (!inplace)
        pt_buf_alloc(&sb, sl, sdispl(me, -1, 0));
    PT_REQUIRE(pcoll_alltoallv_init(inplace ? MPI_IN_PLACE : sb.base, sc, sd, sl->type, rb.base,
                                    rc, rd, rl->type, MPI_COMM_WORLD, info, &plan));
    MPI_Info_free(&info);
    for (int run = 0; run < 3; run++) {
        pt_buf_poison(&rb);
        fill(inplace ? &rb : &sb, me, run + 20);
        run_plan(plan, run);
        for (int s = 0; s < np; s++)
            check_run(&rb, rd[s], sl, inplace ? rdispl(s, me, 1) : sdispl(s, me, 0), rc[s], s,
                      run + 20);
        if (!inplace)
            pt_check_untouched(&rb, "receive gaps");
    }
    PT_OK(pcoll_plan_free(&plan));
    pt_buf_free(&rb);
    if (!inplace)
        pt_buf_free(&sb);
    free(sc);
}

/* ---- overlap -------------------------------------------------------------------- */

/* Start, compute in slices with pcoll_test between them, check. */
static void overlap_case(void)
{
    config c = {.cores = 2};
    int n = 64, tests = 0, flag = 0, *s = malloc(sizeof(int) * 2 * (size_t)(n * pt_size));
    int *r = s + n * pt_size;
    volatile double work = 0;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = make_info(&c);
    pt_case("overlap: pcoll_start, computation with pcoll_test, result");
    PT_REQUIRE(pcoll_alltoall_init(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD, info, &plan));
    MPI_Info_free(&info);
    for (int i = 0; i < n * pt_size; i++)
        s[i] = pt_rank * 100000 + i, r[i] = -1;
    PT_REQUIRE(pcoll_start(plan));
    while (!flag) {
        for (int i = 0; i < 20000; i++)
            work += i * 0.5;
        PT_REQUIRE(pcoll_test(plan, &flag));
        tests++;
    }
    for (int j = 0; j < pt_size; j++)
        for (int i = 0; i < n; i++)
            if (r[j * n + i] != j * 100000 + pt_rank * n + i)
                pt_check_elem("overlapped run", j, i, j * 100000 + pt_rank * n + i, r[j * n + i]);
    PT_RC(pcoll_wait(plan), PCOLL_ERR_STATE);
    pt_note("overlap: %d pcoll_test calls on rank 0 until done", tests);
    PT_OK(pcoll_plan_free(&plan));
    free(s);
}

/* ---- a run ahead ------------------------------------------------------------------ */

static void printed_memory(const pcoll_plan_t *plan, long long *w, long long *r, int *shared);

typedef struct ahead {
    int n, *s, *r;
} ahead_t;

static void ahead_prepare(int run, void *arg)
{
    ahead_t *a = arg;
    for (int i = 0; i < a->n * pt_size; i++)
        a->s[i] = run * 1000000 + pt_rank * 10000 + i, a->r[i] = -1;
}

static void ahead_check(int run, void *arg)
{
    const ahead_t *a = arg;
    for (int j = 0; j < pt_size; j++)
        for (int i = 0; i < a->n; i++) {
            int want = run * 1000000 + j * 10000 + pt_rank * a->n + i;
            if (a->r[j * a->n + i] != want)
                pt_check_elem("run ahead", j, i, want, a->r[j * a->n + i]);
        }
}

/* Every rank on one node (its segment's W in two copies, one barrier a
 * run): rank 0 finishes run 0 and writes run 1's blocks while the others
 * have still to copy run 0's out. */
static void ahead_case(void)
{
    config c = {.cores = pt_size};
    ahead_t a = {.n = 5};
    long long w, r;
    int shared;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = make_info(&c);
    a.s = malloc(sizeof(int) * 2 * (size_t)(a.n * pt_size));
    a.r = a.s + a.n * pt_size;
    pt_case("one node: rank 0 a run ahead of the others");
    PT_REQUIRE(pcoll_alltoall_init(a.s, a.n, MPI_INT, a.r, a.n, MPI_INT, MPI_COMM_WORLD, info,
                                   &plan));
    MPI_Info_free(&info);
    /* Without a shared window (PCOLL_HIER_SHM=0 set by the user) every
     * rank is a node of its own, whose messages need every rank in
     * pcoll's calls. */
    printed_memory(plan, &w, &r, &shared);
    if (shared)
        pt_run_ahead(plan, ahead_prepare, ahead_check, &a);
    PT_OK(pcoll_plan_free(&plan));
    free(a.s);
}

/* ---- node memory ------------------------------------------------------------------ */

/* W and R from the "node memory:" line of pcoll_plan_print (-1: no line). */
static void printed_memory(const pcoll_plan_t *plan, long long *w, long long *r, int *shared)
{
    FILE *f = tmpfile();
    char line[512];
    *w = *r = -1;
    *shared = 0;
    if (!f)
        return;
    PT_OK(pcoll_plan_print(plan, f));
    rewind(f);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, " node memory: %lld bytes send segment W + %lld", w, r) == 2) {
            *shared = strstr(line, "shared by") != NULL;
            break;
        }
    fclose(f);
}

/* cores_per_node 2 (m = 2, N = p/2 nodes), one step between nodes (pcoll_radix
 * >= N), blocks of n ints: the segment is W = 4n m p bytes (the paper's
 * equation (1), 4n m^2 N) and R = 4n m (p - m); on one node (p = 2) W
 * twice, which the runs take in turn, and no R; pcoll_plan_print reports
 * them, and the node's first rank counts them (plus the barrier's cache
 * line) in pcoll_mem_current, the other rank not. */
static void memory_case(void)
{
    config c = {.cores = 2, .radix = pt_size};
    int n = 1000, m = 2, shared, *buf = malloc(sizeof(int) * 2 * (size_t)(n * pt_size));
    long long w, r, want_w = 4LL * n * m * pt_size * (pt_size == 2 ? 2 : 1),
                    want_r = 4LL * n * m * (pt_size - m);
    long long before = pcoll_mem_current(), delta;
    pcoll_plan_t *plan = NULL;
    MPI_Info info = make_info(&c);
    pt_case("node memory: cores_per_node 2, one step, %d ints per block", n);
    PT_REQUIRE(pcoll_alltoall_init(buf, n, MPI_INT, buf + n * pt_size, n, MPI_INT,
                                   MPI_COMM_WORLD, info, &plan));
    MPI_Info_free(&info);
    delta = pcoll_mem_current() - before;
    printed_memory(plan, &w, &r, &shared);
    PT_CHECK(w == want_w && r == want_r, "printed W %lld R %lld, closed form W %lld R %lld", w,
             r, want_w, want_r);
    PT_CHECK(shared, "the segment is shared");
    if (pt_rank % 2 == 0)
        PT_CHECK(delta >= want_w + want_r + 64, "node's first rank counts %lld bytes < %lld",
                 delta, want_w + want_r + 64);
    else
        PT_CHECK(delta < want_w + want_r, "second rank counts %lld bytes", delta);
    PT_OK(pcoll_plan_free(&plan));
    free(buf);
}

/* ---- multiple all-to-all ---------------------------------------------------------- */

/* Rank s of the grid puts value(s, d, i) in element i of the block for d. */
static int mval(int s, int d, int i, int run)
{
    return run * 1000000 + s * 10000 + d * 100 + i;
}

static void multi_run(MPI_Comm row, MPI_Comm col, int count, int cores)
{
    int nc, me, wr = pt_rank, n = count;
    config c = {.cores = cores};
    MPI_Info info = make_info(&c);
    pcoll_plan_t *plan = NULL;
    MPI_Comm_size(row, &nc);
    MPI_Comm_rank(row, &me);
    int *s = malloc(sizeof(int) * 3 * (size_t)(n * nc)), *r = s + n * nc, *ref = r + n * nc;
    int *world = malloc(sizeof(int) * (size_t)nc);
    PT_MPI(MPI_Allgather(&wr, 1, MPI_INT, world, 1, MPI_INT, row));
    PT_REQUIRE(pcoll_alltoall_multi_init(s, n, MPI_INT, r, n, MPI_INT, row, col, info, &plan));
    MPI_Info_free(&info);
    for (int run = 0; run < 2; run++) {
        for (int d = 0; d < nc; d++)
            for (int i = 0; i < n; i++)
                s[d * n + i] = mval(wr, world[d], i, run), r[d * n + i] = -1;
        run_plan(plan, run);
        PT_MPI(MPI_Alltoall(s, n, MPI_INT, ref, n, MPI_INT, row));
        for (int j = 0; j < nc * n; j++)
            if (r[j] != ref[j] || r[j] != mval(world[j / n], wr, j % n, run))
                pt_check_elem("multi vs MPI_Alltoall", world[j / n], j % n, ref[j], r[j]);
    }
    PT_OK(pcoll_plan_free(&plan));
    free(s);
    free(world);
}

static void multi_case(int R, int C, int strided, int cores, int nocol)
{
    int in = pt_rank < R * C;
    int row = strided ? pt_rank % R : pt_rank / C, colx = strided ? pt_rank / R : pt_rank % C;
    MPI_Comm crow, ccol;
    pt_case("multi grid %dx%d rows %s cores_per_node %d", R, C, strided ? "strided" : "contiguous",
            cores);
    PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? row : MPI_UNDEFINED, colx, &crow));
    /* Columns ranked in reverse: the library must order rows itself. */
    PT_MPI(MPI_Comm_split(MPI_COMM_WORLD, in ? colx : MPI_UNDEFINED, R - row, &ccol));
    if (in) {
        multi_run(crow, ccol, 1 + (R + C) % 3, cores);
        /* Without a column: one row's alltoall. */
        if (nocol)
            multi_run(crow, MPI_COMM_NULL, 2, cores);
        MPI_Comm_free(&crow);
        MPI_Comm_free(&ccol);
    }
}

/* ---- the sweep ---------------------------------------------------------------------- */

static void sweep(void)
{
    const int cores[] = {1, 2, 3, 4, pt_size}, ports[] = {1, 2, 0};
    int i = 0;
    for (int ci = 0; ci < 5; ci++)
        for (int pi = 0; pi < 3; pi++, i++) {
            config c = {.cores = cores[ci], .ports = ports[pi], .radix = i % 4 == 1 ? 2 : 0,
                        .throttle = i % 5 == 2 ? 1 : 0, .noshm = i == 7,
                        .mpibar = i % 7 == 4};
            pt_case("alltoall hier cores %d ports %d radix %d throttle %d%s%s types %d%s",
                    c.cores, c.ports, c.radix, c.throttle, c.noshm ? " no-shm" : "",
                    c.mpibar ? " mpi-barrier" : "", i % 3, i % 4 == 3 ? " in place" : "");
            alltoall_case(&c, i % 3, i % 4 == 3);
            pt_case("alltoallv hier cores %d ports %d radix %d throttle %d%s%s types %d%s",
                    c.cores, c.ports, c.radix, c.throttle, c.noshm ? " no-shm" : "",
                    c.mpibar ? " mpi-barrier" : "", i % 2, i % 6 == 4 ? " in place" : "");
            alltoallv_case(&c, i % 2, i % 6 == 4);
        }
    unsetenv("PCOLL_HIER_SHM");
    unsetenv("PCOLL_HIER_BARRIER");
}

int main(int argc, char **argv)
{
    static const int grids[][2] = {{2, 2}, {2, 3}, {3, 4}, {4, 4}};
    pt_init(&argc, &argv);
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_make(&layouts[k], (enum pt_layout_kind)k);
    sweep();
    overlap_case();
    ahead_case();
    if (pt_size % 2 == 0)
        memory_case();
    for (int g = 0; g < 4; g++) {
        int R = grids[g][0], C = grids[g][1];
        if (R * C > pt_size)
            continue;
        multi_case(R, C, 0, 2 + g % 3, g == 0);
        multi_case(R, C, 1, 2 + g % 3, 0);
    }
    for (int k = 0; k < PT_L_COUNT; k++)
        pt_layout_free(&layouts[k]);
    return pt_finish();
}
