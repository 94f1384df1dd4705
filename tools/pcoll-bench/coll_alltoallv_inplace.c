/*
 * alltoallv_inplace for pcoll-bench: pcoll_alltoallv_inplace_init on one
 * buffer whose outgoing blocks are replaced by the incoming ones.
 *
 * A size is the bytes each rank sends in all (items of MPI_INT).  The
 * pattern decides the counts, the same draw on every rank:
 *   uniform   size/p bytes to every rank, and the receive layout equals the
 *             send layout (rank order), so MPI's own MPI_IN_PLACE can run;
 *   random    weights 0..2 per pair; sparse: p/8 (at least 1) random peers;
 *   powerlaw  weight 1/(1+d)^1.5 for the peer d ranks away;
 * and for every pattern but uniform each rank puts its send blocks and its
 * receive blocks in two independent random orders, so the layouts differ.
 * PCOLL_BENCH_SEED=s (default 0) draws another set of counts and orders,
 * the same on every rank, to see how much a result owes to one draw.
 *
 * Rows: the native MPI_Alltoallv, out of place (it needs a second buffer as
 * large as the receive layout); MPI-4's MPI_Alltoallv_init (persistent
 * mode), with MPI_IN_PLACE where the layouts are equal (uniform) and out of
 * place otherwise; pcoll's `inplace` (one-shot mode: plan, run and free per
 * call).  The aux memory is pcoll's usual PCOLL_AUX_BYTES /
 * PCOLL_AUX_BUFFERS, or PCOLL_BENCH_AUX_PERCENT: that percentage of the
 * size (at least one item per buffer).
 *
 * Extra memory of the native rows: out of place, the second buffer the
 * caller must hold (the receive layout's extent); MPI_IN_PLACE, what the MPI
 * allocates inside (MPICH and Open MPI: a temporary buffer as large as the
 * largest block), measured by the driver as the growth of the resident
 * memory's peak (rss.c; n/a where that is not possible).
 *
 * The in-place rows consume their input: `poison` restores it (and poisons
 * the out-of-place output), and `check` compares the receive blocks of
 * whichever output the checked row wrote with their closed form: item k of
 * the block from rank j is item sdispl + k of rank j's input, whose value is
 * a function of j and the index (fill()), and every rank can draw rank j's
 * send layout.  No reference buffer is kept.
 *
 * PCOLL_BENCH_FOLD (fold.c), in the simulated build only (SimGrid SMPI;
 * ignored elsewhere): the native rows' buffers (input and out-of-place output) are
 * SMPI_SHARED_MALLOC'd, one memory folded under every rank, so a rank holds
 * only the in-place buffer and sizes several times larger fit.  The native
 * rows then send and receive meaningless bytes (their time is the same) and
 * their output is not checked; the in-place rows are checked as always
 * (their buffer is the rank's own, filled by fill()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_case {
    MPI_Comm comm;
    int p, rank, same; /* same: receive layout == send layout */
    int fold;          /* PCOLL_BENCH_FOLD: input and recv in folded memory */
    long long size;    /* bytes sent per rank, as asked */
    int *sc, *sd, *rc, *rd;
    int *from; /* from[j]: displacement of this rank's block in j's send layout */
    long items;  /* the buffer's extent in items */
    int *buf;    /* the in-place rows' buffer */
    int *input;  /* its content before a run; the native row's send buffer */
    int *recv;   /* the native row's output */
};

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    free(c->sc);
    free(c->buf);
    bench_big_free(c->fold, c->input);
    bench_big_free(c->fold, c->recv);
    free(c);
}

/* splitmix64, as a double in [0, 1) */
static double draw(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* Rank i's weight for peer j. */
static double weight(bench_pattern_t pat, int p, int i, int j, unsigned long long *s)
{
    double d = (j - i + p) % p, u = draw(s);
    switch (pat) {
    case BENCH_RANDOM:
        return 2 * u;
    case BENCH_SPARSE:
        return u * p < (p / 8 > 1 ? p / 8 : 1) ? 1 : 0;
    case BENCH_POWERLAW:
        return 1 / pow(1 + d, 1.5);
    default:
        return 1;
    }
}

/* The draw's offset from PCOLL_BENCH_SEED (0 if unset). */
static unsigned long long seed_offset(void)
{
    const char *e = getenv("PCOLL_BENCH_SEED");
    return e ? 1000003ULL * strtoull(e, NULL, 10) : 0;
}

/* Rank i's counts (w: p doubles of scratch): `items` in all, split by the
 * weights; the rounding rest goes to itself. */
static void counts_of(bench_pattern_t pat, int p, int i, long items, double *w, int *out)
{
    unsigned long long s = 12345 + (unsigned long long)i + seed_offset();
    double sum = 0;
    long given = 0;
    int j;
    for (j = 0; j < p; j++)
        sum += w[j] = weight(pat, p, i, j, &s);
    for (j = 0; j < p; j++) {
        out[j] = sum > 0 ? (int)((double)items * (w[j] / sum)) : 0;
        given += out[j];
    }
    out[i] += (int)(items - given);
}

/* Blocks back to back, in rank order or in a random order (seed s). */
static long place(int p, const int *counts, int *displs, unsigned long long s, int shuffle)
{
    long pos = 0;
    int *order = malloc((size_t)p * sizeof *order), i;
    for (i = 0; i < p; i++)
        order[i] = i;
    for (i = p - 1; shuffle && i > 0; i--) {
        int k = (int)(draw(&s) * (i + 1)), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    for (i = 0; i < p; i++) {
        displs[order[i]] = (int)pos;
        pos += counts[order[i]];
    }
    free(order);
    return pos;
}

/* Rank j's send layout (counts and displacements into cnt and dsp, p
 * ints each): the same draw on every rank. */
static void send_layout(bench_pattern_t pat, int p, int j, long items, double *w, int *cnt,
                        int *dsp)
{
    counts_of(pat, p, j, items, w, cnt);
    place(p, cnt, dsp, 777 + (unsigned long long)j + seed_offset(), pat != BENCH_UNIFORM);
}

/* Counts and layouts of this rank, and where its blocks lie in the other
 * ranks' send layouts; 0 or PCOLL_ERR_NOMEM. */
static int layout(bench_case_t *c, bench_pattern_t pat)
{
    long items = (long)(c->size / (long long)sizeof(int)), send_end = 0, recv_end;
    double *w = malloc((size_t)c->p * sizeof *w);
    int *row = malloc(2 * (size_t)c->p * sizeof *row), j;
    c->sc = malloc(5 * (size_t)c->p * sizeof *c->sc);
    if (!w || !row || !c->sc) {
        free(w);
        free(row);
        return PCOLL_ERR_NOMEM;
    }
    c->sd = c->sc + c->p, c->rc = c->sd + c->p, c->rd = c->rc + c->p, c->from = c->rd + c->p;
    for (j = 0; j < c->p; j++) {
        send_layout(pat, c->p, j, items, w, row, row + c->p);
        c->rc[j] = row[c->rank];
        c->from[j] = row[c->p + c->rank];
    }
    send_layout(pat, c->p, c->rank, items, w, c->sc, c->sd);
    for (j = 0; j < c->p; j++)
        if (c->sd[j] + (long)c->sc[j] > send_end)
            send_end = c->sd[j] + (long)c->sc[j];
    c->same = pat == BENCH_UNIFORM;
    recv_end = place(c->p, c->rc, c->rd, 999 + (unsigned long long)c->rank + seed_offset(),
                     !c->same);
    c->items = send_end > recv_end ? send_end : recv_end;
    free(w);
    free(row);
    return PCOLL_SUCCESS;
}

/* Item i of rank r's input. */
static int input_value(int r, long i)
{
    return (int)(((unsigned)r << 24) + (unsigned)(i & 0xFFFFFF));
}

/* This rank's input, n items, into out. */
static void fill(const bench_case_t *c, int *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = input_value(c->rank, (long)i);
}

/* Buffers of c->items ints (+1: malloc(0) may return NULL) and the input. */
static int allocate(bench_case_t *c)
{
    size_t n = (size_t)c->items + 1;
    c->fold = bench_fold((long)c->size);
    c->buf = malloc(n * sizeof(int));
    c->input = bench_big_alloc(c->fold, n * sizeof(int));
    c->recv = bench_big_alloc(c->fold, n * sizeof(int));
    if (!c->buf || !c->input || !c->recv)
        return PCOLL_ERR_NOMEM;
    fill(c, c->input, n);
    fill(c, c->buf, n);
    return PCOLL_SUCCESS;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
    *out = c;
    if (c) {
        c->comm = comm;
        c->size = size;
        MPI_Comm_size(comm, &c->p);
        MPI_Comm_rank(comm, &c->rank);
        rc = layout(c, pattern);
    }
    if (rc == PCOLL_SUCCESS)
        rc = allocate(c);
    /* Agree: a rank without memory must not leave the others waiting in
     * the first collective row. */
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    return rc;
}

static long long bytes(const bench_case_t *c)
{
    long long n = 0;
    int j;
    for (j = 0; j < c->p; j++)
        n += c->sc[j];
    return n * (long long)sizeof(int);
}

static void poison(bench_case_t *c)
{
    fill(c, c->buf, (size_t)c->items);
    if (!c->fold)
        memset(c->recv, 0xA5, (size_t)c->items * sizeof(int));
}

/* Whether the receive blocks of out hold what the other ranks sent. */
static int blocks_right(const bench_case_t *c, const int *out)
{
    long k;
    int j;
    for (j = 0; j < c->p; j++)
        for (k = 0; k < c->rc[j]; k++)
            if (out[c->rd[j] + k] != input_value(j, c->from[j] + k))
                return 0;
    return 1;
}

/* The output the checked row wrote: the out-of-place one if it is not all
 * poison, else the in-place buffer.  Folded, the out-of-place output is
 * shared by every rank and cannot be checked: a row that left the in-place
 * buffer as it was (a native out-of-place row) passes. */
static int check(const bench_case_t *c)
{
    long i;
    if (c->fold) {
        for (i = 0; i < c->items; i++)
            if (c->buf[i] != input_value(c->rank, i))
                return blocks_right(c, c->buf);
        return BENCH_UNCHECKED;
    }
    for (i = 0; i < c->items; i++)
        if (c->recv[i] != (int)0xA5A5A5A5)
            return blocks_right(c, c->recv);
    return blocks_right(c, c->buf);
}

/* Folded, the native rows' output is shared by every rank; the in-place
 * rows' buffer is the rank's own and is checked. */
static int unchecked(const bench_case_t *c, bench_kind_t kind)
{
    return c->fold && kind != BENCH_ROW_PCOLL;
}

static int run_native(bench_case_t *c)
{
    return MPI_Alltoallv(c->input, c->sc, c->sd, MPI_INT, c->recv, c->rc, c->rd, MPI_INT, c->comm);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    if (c->same)
        return MPI_Alltoallv_init(MPI_IN_PLACE, NULL, NULL, MPI_INT, c->buf, c->rc, c->rd, MPI_INT,
                                  c->comm, MPI_INFO_NULL, req);
    return MPI_Alltoallv_init(c->input, c->sc, c->sd, MPI_INT, c->recv, c->rc, c->rd, MPI_INT,
                              c->comm, MPI_INFO_NULL, req);
}
#endif

/* The out-of-place rows' second buffer: the receive layout's extent. */
static long long native_extra(const bench_case_t *c, bench_kind_t kind)
{
    long long end = 0;
    int j;
    if (kind == BENCH_ROW_NATIVE_PERSISTENT && c->same)
        return BENCH_EXTRA_MEASURE; /* MPI_IN_PLACE: inside the MPI */
    for (j = 0; j < c->p; j++)
        if (c->rc[j] > 0 && (long long)c->rd[j] + c->rc[j] > end)
            end = (long long)c->rd[j] + c->rc[j];
    return end * (long long)sizeof(int);
}

MPI_Info bench_aux_info(MPI_Info info, long long bytes, int p)
{
    const char *pct = getenv("PCOLL_BENCH_AUX_PERCENT"), *b = getenv("PCOLL_AUX_BUFFERS");
    long long nbuf = b ? atoll(b) : (p / 8 > 1 ? p / 8 : 1), aux;
    MPI_Info out;
    char v[32];
    MPI_Info_dup(info, &out);
    if (!pct)
        return out;
    aux = (long long)(atof(pct) / 100.0 * (double)bytes);
    aux = aux > nbuf * (long long)sizeof(int) ? aux : nbuf * (long long)sizeof(int);
    snprintf(v, sizeof v, "%lld", aux);
    MPI_Info_set(out, "pcoll_aux_bytes", v);
    return out;
}

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    MPI_Info aux = bench_aux_info(info, c->size, c->p);
    int rc = pcoll_alltoallv_inplace_init(c->buf, c->sc, c->sd, c->rc, c->rd, MPI_INT, c->comm, aux,
                                          plan);
    MPI_Info_free(&aux);
    return rc;
}

int bench_plan_once(bench_case_t *c,
                    int (*plan_init)(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan))
{
    MPI_Info info;
    pcoll_plan_t *plan = NULL;
    int rc;
    MPI_Info_create(&info);
    rc = plan_init(c, info, &plan);
    MPI_Info_free(&info);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll_start(plan);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll_wait(plan);
    pcoll_plan_free(&plan);
    return rc;
}

/* No one-shot call has arbitrary layouts: plan, run and free per call. */
static int run_oneshot(bench_case_t *c) { return bench_plan_once(c, plan_init); }

const bench_coll_t bench_coll_alltoallv_inplace = {
    .name = "alltoallv_inplace",
    .native = "MPI_Alltoallv",
    .native_init = "MPI_Alltoallv_init",
    .env_algorithm = "PCOLL_ALLTOALLV_INPLACE_ALGORITHM",
    .patterns = BENCH_PATTERNS_SIZES,
    .mpich_algorithms = "pairwise_sendrecv_replace,scattered",
    .ompi_algorithms = "1|basic_linear, 2|pairwise",
    .setup = setup,
    .bytes = bytes,
    .poison = poison,
    .check = check,
    .unchecked = unchecked,
    .run_native = run_native,
#if BENCH_HAVE_MPI_PERSISTENT
    .native_persistent = native_persistent,
#endif
    .plan_init = plan_init,
    .run_oneshot = run_oneshot,
    .teardown = teardown,
    .native_extra = native_extra,
};
