/*
 * alltoallw: every algorithm of the table against the MPI's own
 * MPI_Alltoallw on the same input, byte for byte (both receive buffers
 * poisoned alike, so bytes outside the type maps must stay poison).
 *
 * Each rank uses a different type per peer and a different one for sending
 * and receiving (contiguous, vector, resized with a negative lower bound,
 * struct), blocks placed in reverse peer order with gaps, byte
 * displacements; sizes with zero counts (irregular) and nearly regular
 * ones (zero-copy Bruck); persistent plans restarted with new input;
 * one-shot calls (cached, and with too many derived types to cache);
 * MPI_IN_PLACE; the large-count forms; MPI_BOTTOM with absolute addresses; reversed and split
 * communicators; MPI_DATATYPE_NULL for the types of zero counts; bad input
 * on one rank only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/defects.h"
#include "harness.h"

#define NTYPES 4
#define MARGIN 32 /* bytes before and after every block (negative lower bounds) */

/* Ints per item of each type: int; vector of 2 ints, stride 2; 2 ints
 * resized to lb -8, extent 16; struct {int @0, int @12}. */
static const int units[NTYPES] = {1, 2, 2, 2};
static MPI_Datatype types[NTYPES];

static void make_types(void)
{
    MPI_Datatype c2;
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 12};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    types[0] = MPI_INT;
    PT_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &types[1]));
    PT_MPI(MPI_Type_contiguous(2, MPI_INT, &c2));
    PT_MPI(MPI_Type_create_resized(c2, -8, 16, &types[2]));
    PT_MPI(MPI_Type_free(&c2));
    PT_MPI(MPI_Type_create_struct(2, lens, disps, ints, &types[3]));
    for (int t = 1; t < NTYPES; t++)
        PT_MPI(MPI_Type_commit(&types[t]));
}

/* One side's arguments and buffer on one communicator. */
typedef struct side {
    int *counts, *displs;
    MPI_Datatype *types;
    char *buf;
    size_t bytes;
} side_t;

typedef struct args {
    int p, me;
    side_t s, r;
} args_t;

enum { SIZES_IRREGULAR, SIZES_REGULAR, SIZES_ZERO, SIZES_SYMMETRIC };

/* Ints that rank i sends to rank j (even, so every type divides it). */
static int ints_of(int sizes, int i, int j, int run)
{
    switch (sizes) {
    case SIZES_IRREGULAR:
        return 2 * ((i + 2 * j + run) % 4);
    case SIZES_REGULAR:
        return 2 + 2 * ((i + j + run) % 2);
    case SIZES_SYMMETRIC:
        return 2 * ((i + j + run) % 4);
    default:
        return 0;
    }
}

/* The type rank i uses for peer j: send and receive layouts differ. */
static int stype_of(int i, int j) { return (i + j) % NTYPES; }
static int rtype_of(int i, int j) { return (2 * j + i + 1) % NTYPES; }

static size_t extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return (size_t)ext;
}

/* Counts, types and byte displacements of one side: blocks in reverse peer
 * order, each with MARGIN bytes around it. */
static void side_make(side_t *sd, int p, int me, int send, int sizes, int run)
{
    size_t off = 0;
    sd->counts = calloc((size_t)p, sizeof(int));
    sd->displs = calloc((size_t)p, sizeof(int));
    sd->types = calloc((size_t)p, sizeof(MPI_Datatype));
    for (int j = p - 1; j >= 0; j--) {
        int t = send ? stype_of(me, j) : rtype_of(me, j);
        int n = send ? ints_of(sizes, me, j, run) : ints_of(sizes, j, me, run);
        sd->types[j] = types[t];
        sd->counts[j] = n / units[t];
        sd->displs[j] = (int)(off + MARGIN);
        off += MARGIN * 2 + (size_t)sd->counts[j] * extent_of(types[t]);
    }
    sd->bytes = off + 8;
    sd->buf = malloc(sd->bytes);
}

static void side_free(side_t *sd)
{
    free(sd->counts);
    free(sd->displs);
    free(sd->types);
    free(sd->buf);
}

/* Fill the send buffer with values that tell rank, offset and run apart. */
static void fill(side_t *sd, int me, int run)
{
    int *v = (int *)(void *)sd->buf;
    for (size_t k = 0; k < sd->bytes / sizeof(int); k++)
        v[k] = (int)pt_val(me, (long)k, run);
}

/* Set: every type of a zero count is MPI_DATATYPE_NULL (MPI_Alltoallw
 * accepts that, MPICH does). */
static int null_zero_types;

static void null_types(side_t *sd, int p)
{
    for (int j = 0; j < p && null_zero_types; j++)
        if (sd->counts[j] == 0)
            sd->types[j] = MPI_DATATYPE_NULL;
}

static void args_make(args_t *a, MPI_Comm comm, int sizes, int run)
{
    MPI_Comm_size(comm, &a->p);
    MPI_Comm_rank(comm, &a->me);
    side_make(&a->s, a->p, a->me, 1, sizes, run);
    side_make(&a->r, a->p, a->me, 0, sizes, run);
    null_types(&a->s, a->p);
    null_types(&a->r, a->p);
    fill(&a->s, a->me, run);
}

static void args_free(args_t *a)
{
    side_free(&a->s);
    side_free(&a->r);
}

/* The MPI's answer for a (in place: from a copy of init, the buffer's
 * contents before the call) into a fresh poisoned buffer. */
static char *reference(const args_t *a, MPI_Comm comm, int inplace, const char *init)
{
    char *ref = malloc(a->r.bytes);
    if (a->p == 1) {
        /* One rank: the own block by MPI_Sendrecv (Open MPI 5's blocking
         * MPI_Alltoallw moves nothing on a communicator of one rank). */
        if (inplace) {
            memcpy(ref, init, a->r.bytes);
        } else {
            pt_poison(ref, a->r.bytes);
            if (a->r.counts[0] > 0)
                PT_MPI(MPI_Sendrecv(a->s.buf + a->s.displs[0], a->s.counts[0], a->s.types[0], 0,
                                    0, ref + a->r.displs[0], a->r.counts[0], a->r.types[0], 0, 0,
                                    comm, MPI_STATUS_IGNORE));
        }
    } else {
        /* The reference call gets MPI_BYTE for a zero count's
         * MPI_DATATYPE_NULL: Open MPI refuses the null type there. */
        MPI_Datatype *st = malloc(sizeof *st * 2 * (size_t)a->p), *rt = st + a->p;
        for (int j = 0; j < a->p; j++) {
            st[j] = a->s.types[j] == MPI_DATATYPE_NULL ? MPI_BYTE : a->s.types[j];
            rt[j] = a->r.types[j] == MPI_DATATYPE_NULL ? MPI_BYTE : a->r.types[j];
        }
        if (inplace) {
            memcpy(ref, init, a->r.bytes);
            PT_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, ref, a->r.counts, a->r.displs,
                                 rt, comm));
        } else {
            pt_poison(ref, a->r.bytes);
            PT_MPI(MPI_Alltoallw(a->s.buf, a->s.counts, a->s.displs, st, ref, a->r.counts,
                                 a->r.displs, rt, comm));
        }
        free(st);
    }
    return ref;
}

static void compare(const args_t *a, const char *ref, const char *what)
{
    size_t k;
    for (k = 0; k < a->r.bytes && a->r.buf[k] == ref[k]; k++)
        ;
    PT_CHECK(k == a->r.bytes, "%s: receive buffer differs from MPI_Alltoallw at byte %zu", what,
             k);
}

static MPI_Info info_for(const char *algo)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "pcoll_algorithm", algo);
    return info;
}

/* What the algorithm must answer for these sizes: zero-copy Bruck refuses
 * irregular sizes, and only pairwise and native serve MPI_IN_PLACE (native
 * not on an MPI known to get it wrong, core/defects.h). */
static int expected(const char *algo, int sizes, int inplace)
{
    int native = !strcmp(algo, "native") && !pcoll__mpi_defect(PCOLL__DEFECT_ALLTOALLW_INPLACE);
    if (inplace)
        return !strcmp(algo, "pairwise") || native || !strcmp(algo, "auto")
                   ? PCOLL_SUCCESS
                   : PCOLL_ERR_UNSUPPORTED;
    /* (All counts zero: no type names the basic type.) */
    if (!strcmp(algo, "bruck_zerocopy") && sizes != SIZES_REGULAR)
        return PCOLL_ERR_UNSUPPORTED;
    return PCOLL_SUCCESS;
}

/* Persistent plan of algo, run twice with new input each time. */
static void persistent(const char *algo, MPI_Comm comm, const char *cname, int sizes,
                       int inplace)
{
    MPI_Info info = info_for(algo);
    pcoll_plan_t *plan = NULL;
    args_t a;
    char *init = NULL;
    int rc, want = expected(algo, sizes, inplace);
    args_make(&a, comm, sizes, 0);
    pt_case("persistent %s sizes %d %s%s", algo, sizes, cname, inplace ? " in place" : "");
    if (inplace) {
        init = malloc(a.r.bytes);
        fill(&a.r, a.me, 0);
        memcpy(init, a.r.buf, a.r.bytes);
    } else {
        pt_poison(a.r.buf, a.r.bytes);
    }
    rc = pcoll_alltoallw_init(inplace ? MPI_IN_PLACE : a.s.buf, a.s.counts, a.s.displs,
                              a.s.types, a.r.buf, a.r.counts, a.r.displs, a.r.types, comm, info,
                              &plan);
    if (PT_RC(rc, want) && rc == PCOLL_SUCCESS) {
        for (int run = 0; run < 2; run++) {
            char *ref;
            /* New input for the restarted plan, same layout. */
            if (inplace) {
                fill(&a.r, a.me, run);
                memcpy(init, a.r.buf, a.r.bytes);
            } else {
                fill(&a.s, a.me, run);
                pt_poison(a.r.buf, a.r.bytes);
            }
            PT_REQUIRE(pcoll_start(plan));
            pt_test_loop(plan);
            ref = reference(&a, comm, inplace, init);
            compare(&a, ref, algo);
            free(ref);
        }
        if (strcmp(algo, "auto"))
            PT_CHECK(!strcmp(pcoll_plan_algorithm(plan), algo), "algorithm %s",
                     pcoll_plan_algorithm(plan));
    }
    pcoll_plan_free(&plan);
    MPI_Info_free(&info);
    free(init);
    args_free(&a);
}

/* One-shot calls (auto), twice on the same buffers (the second one a cache
 * hit), with the shared types or with a duplicate per peer (more derived
 * types than the cache watches: planned on every call). */
static void oneshot(MPI_Comm comm, const char *cname, int dup)
{
    args_t a;
    args_make(&a, comm, SIZES_IRREGULAR, 0);
    pt_case("one-shot%s %s", dup ? " (a type per peer)" : "", cname);
    if (dup)
        for (int j = 0; j < a.p; j++) {
            PT_MPI(MPI_Type_dup(a.s.types[j], &a.s.types[j]));
            PT_MPI(MPI_Type_dup(a.r.types[j], &a.r.types[j]));
        }
    for (int run = 0; run < 2; run++) {
        char *ref;
        fill(&a.s, a.me, run);
        pt_poison(a.r.buf, a.r.bytes);
        PT_REQUIRE(pcoll_alltoallw(a.s.buf, a.s.counts, a.s.displs, a.s.types, a.r.buf,
                                   a.r.counts, a.r.displs, a.r.types, comm));
        ref = reference(&a, comm, 0, NULL);
        compare(&a, ref, "one-shot");
        free(ref);
    }
    if (dup)
        for (int j = 0; j < a.p; j++) {
            MPI_Type_free(&a.s.types[j]);
            MPI_Type_free(&a.r.types[j]);
        }
    args_free(&a);
}

/* The large-count forms, persistent (algo) and one-shot, on the same input
 * with the arrays widened. */
static void large_count(const char *algo)
{
    MPI_Info info = info_for(algo);
    pcoll_plan_t *plan = NULL;
    args_t a;
    MPI_Count *counts;
    MPI_Aint *displs;
    char *ref;
    args_make(&a, MPI_COMM_WORLD, SIZES_IRREGULAR, 0);
    pt_case("large-count forms %s", algo);
    counts = malloc(sizeof *counts * 2 * (size_t)a.p);
    displs = malloc(sizeof *displs * 2 * (size_t)a.p);
    for (int j = 0; j < a.p; j++) {
        counts[j] = a.s.counts[j], counts[a.p + j] = a.r.counts[j];
        displs[j] = a.s.displs[j], displs[a.p + j] = a.r.displs[j];
    }
    pt_poison(a.r.buf, a.r.bytes);
    if (PT_OK(pcoll_alltoallw_init_c(a.s.buf, counts, displs, a.s.types, a.r.buf, counts + a.p,
                                     displs + a.p, a.r.types, MPI_COMM_WORLD, info, &plan))) {
        PT_REQUIRE(pcoll_start(plan));
        PT_REQUIRE(pcoll_wait(plan));
        ref = reference(&a, MPI_COMM_WORLD, 0, NULL);
        compare(&a, ref, "pcoll_alltoallw_init_c");
        free(ref);
    }
    pt_poison(a.r.buf, a.r.bytes);
    PT_REQUIRE(pcoll_alltoallw_c(a.s.buf, counts, displs, a.s.types, a.r.buf, counts + a.p,
                                 displs + a.p, a.r.types, MPI_COMM_WORLD));
    ref = reference(&a, MPI_COMM_WORLD, 0, NULL);
    compare(&a, ref, "pcoll_alltoallw_c");
    free(ref);
    pcoll_plan_free(&plan);
    free(counts);
    free(displs);
    MPI_Info_free(&info);
    args_free(&a);
}

/* MPI_BOTTOM: every block described by a type of absolute addresses. */
static void bottom(const char *algo)
{
    MPI_Info info = info_for(algo);
    pcoll_plan_t *plan = NULL;
    args_t a;
    MPI_Datatype *abs[2];
    int *zeros, rc;
    char *ref;
    args_make(&a, MPI_COMM_WORLD, SIZES_IRREGULAR, 0);
    pt_case("MPI_BOTTOM %s", algo);
    zeros = calloc((size_t)a.p, sizeof(int));
    for (int k = 0; k < 2; k++) {
        side_t *sd = k ? &a.r : &a.s;
        abs[k] = calloc((size_t)a.p, sizeof(MPI_Datatype));
        for (int j = 0; j < a.p; j++) {
            int one = 1;
            MPI_Aint addr;
            MPI_Datatype t;
            PT_MPI(MPI_Get_address(sd->buf + sd->displs[j], &addr));
            PT_MPI(MPI_Type_contiguous(sd->counts[j], sd->types[j], &t));
            PT_MPI(MPI_Type_create_hindexed(1, &one, &addr, t, &abs[k][j]));
            PT_MPI(MPI_Type_commit(&abs[k][j]));
            MPI_Type_free(&t);
        }
    }
    for (int j = 0; j < a.p; j++)
        a.r.counts[j] = a.r.counts[j] > 0, a.s.counts[j] = a.s.counts[j] > 0;
    pt_poison(a.r.buf, a.r.bytes);
    rc = pcoll_alltoallw_init(MPI_BOTTOM, a.s.counts, zeros, abs[0], MPI_BOTTOM, a.r.counts,
                              zeros, abs[1], MPI_COMM_WORLD, info, &plan);
    if (PT_OK(rc)) {
        PT_REQUIRE(pcoll_start(plan));
        PT_REQUIRE(pcoll_wait(plan));
        /* The reference with the same types (the arrays stay as given). */
        {
            char *got = malloc(a.r.bytes);
            memcpy(got, a.r.buf, a.r.bytes);
            pt_poison(a.r.buf, a.r.bytes);
            if (a.p == 1) /* (as in reference()) */
                PT_MPI(MPI_Sendrecv(MPI_BOTTOM, a.s.counts[0], abs[0][0], 0, 0, MPI_BOTTOM,
                                    a.r.counts[0], abs[1][0], 0, 0, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
            else
                PT_MPI(MPI_Alltoallw(MPI_BOTTOM, a.s.counts, zeros, abs[0], MPI_BOTTOM,
                                     a.r.counts, zeros, abs[1], MPI_COMM_WORLD));
            ref = malloc(a.r.bytes);
            memcpy(ref, a.r.buf, a.r.bytes);
            memcpy(a.r.buf, got, a.r.bytes);
            compare(&a, ref, "MPI_BOTTOM");
            free(ref);
            free(got);
        }
    }
    pcoll_plan_free(&plan);
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < a.p; j++)
            MPI_Type_free(&abs[k][j]);
        free(abs[k]);
    }
    free(zeros);
    MPI_Info_free(&info);
    args_free(&a);
}

/* Bad input on the last rank only: every rank must get the same code. */
static void bad_input(void)
{
    pcoll_plan_t *plan = NULL;
    args_t a;
    int last = pt_size - 1;
    args_make(&a, MPI_COMM_WORLD, SIZES_REGULAR, 0);

    pt_case("negative count on rank %d only", last);
    if (pt_rank == last)
        a.s.counts[0] = -1;
    PT_RC(pcoll_alltoallw_init(a.s.buf, a.s.counts, a.s.displs, a.s.types, a.r.buf, a.r.counts,
                               a.r.displs, a.r.types, MPI_COMM_WORLD, MPI_INFO_NULL, &plan),
          PCOLL_ERR_ARG);
    PT_CHECK(plan == NULL, "plan not NULL after a failed init");
    a.s.counts[0] = a.s.counts[0] < 0 ? 2 / units[stype_of(pt_rank, 0)] : a.s.counts[0];

    pt_case("MPI_DATATYPE_NULL receive type on rank %d only", last);
    {
        MPI_Datatype keep = a.r.types[0];
        if (pt_rank == last)
            a.r.types[0] = MPI_DATATYPE_NULL;
        PT_RC(pcoll_alltoallw_init(a.s.buf, a.s.counts, a.s.displs, a.s.types, a.r.buf,
                                   a.r.counts, a.r.displs, a.r.types, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &plan),
              PCOLL_ERR_ARG);
        a.r.types[0] = keep;
    }

    if (pt_size > 1) {
        /* The last rank expects twice the bytes from rank 0: the pair disagrees. */
        pt_case("signatures of one pair disagree on rank %d only", last);
        if (pt_rank == last)
            a.r.counts[0] *= 2;
        PT_RC(pcoll_alltoallw_init(a.s.buf, a.s.counts, a.s.displs, a.s.types, a.r.buf,
                                   a.r.counts, a.r.displs, a.r.types, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &plan),
              PCOLL_ERR_MISMATCH);
    }
    pt_case("NULL type array");
    PT_RC(pcoll_alltoallw(a.s.buf, a.s.counts, a.s.displs, a.s.types, a.r.buf, a.r.counts,
                          a.r.displs, NULL, MPI_COMM_WORLD),
          PCOLL_ERR_ARG);
    args_free(&a);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {SIZES_IRREGULAR, SIZES_REGULAR, SIZES_ZERO};
    const char *algo;
    pt_init(&argc, &argv);
    make_types();
    for (int i = 0; (algo = pcoll_algorithm_name("alltoallw", i)); i++) {
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            persistent(algo, MPI_COMM_WORLD, "world", sizes[s], 0);
        persistent(algo, MPI_COMM_WORLD, "world", SIZES_SYMMETRIC, 1);
    }
    for (int k = PT_C_REVERSED; k <= PT_C_MOD3; k++) {
        MPI_Comm comm = pt_comm_make((enum pt_comm_kind)k);
        persistent("auto", comm, pt_comm_name((enum pt_comm_kind)k), SIZES_IRREGULAR, 0);
        persistent("scattered", comm, pt_comm_name((enum pt_comm_kind)k), SIZES_IRREGULAR, 0);
        persistent("bruck_zerocopy", comm, pt_comm_name((enum pt_comm_kind)k), SIZES_REGULAR,
                   0);
        oneshot(comm, pt_comm_name((enum pt_comm_kind)k), 0);
        pt_comm_free(&comm);
    }
    oneshot(MPI_COMM_WORLD, "world", 0);
    oneshot(MPI_COMM_WORLD, "world", 1);
    null_zero_types = 1;
    for (int i = 0; (algo = pcoll_algorithm_name("alltoallw", i)); i++) {
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            persistent(algo, MPI_COMM_WORLD, "world, MPI_DATATYPE_NULL at zero counts", sizes[s],
                       0);
        persistent(algo, MPI_COMM_WORLD, "world, MPI_DATATYPE_NULL at zero counts",
                   SIZES_SYMMETRIC, 1);
    }
    oneshot(MPI_COMM_WORLD, "world, MPI_DATATYPE_NULL at zero counts", 0);
    null_zero_types = 0;
    large_count("scattered");
    large_count("native");
    bottom("linear");
    bottom("native");
    bad_input();
    for (int t = 1; t < NTYPES; t++)
        MPI_Type_free(&types[t]);
    return pt_finish();
}
