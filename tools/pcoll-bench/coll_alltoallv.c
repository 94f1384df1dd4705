/*
 * alltoallv for pcoll-bench: a size is the mean bytes per destination, sent
 * as MPI_BYTE.  Counts are a function of (source, destination, size), so
 * every rank knows the sizes of both directions: uniform (all equal), random
 * (size +-50%), sparse (each rank sends to about a quarter of the ranks,
 * 4x the size), powerlaw (size * 2 / (1 + (d - s) mod p)), normal (mean
 * size, standard deviation size / 2, cut at 0: Box-Muller on a hash of
 * (s, d), so that bruck_radix meets sizes off by a factor of 3 or more),
 * shifting (as random, with two draws taken in turn by the calls, so that
 * every call's counts differ from the previous call's: what a one-shot
 * plan kept across calls pays for new counts; pcoll and the MPI alike).
 * Displacements are in destination order with no gaps.  The reference is MPI_Alltoallv.
 * Folded (fold.c): shared buffers, no content, no reference, no check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* One draw of the counts. */
typedef struct draw {
    int *sc, *sd, *rc, *rd;    /* counts and displacements */
    long long stotal, rtotal;
    unsigned char *ref;
} draw_t;

struct bench_case {
    MPI_Comm comm;
    int p, rank;
    draw_t draw[2];            /* shifting: both in turn; else draw[0] */
    int next, last;            /* the draw of the next call, of the last */
    long long stotal, rtotal;  /* the larger of the draws' */
    unsigned char *send, *recv;
    bench_pattern_t pattern;
    int fold;                  /* buffers folded (fold.c) */
};

/* A draw of the standard normal distribution from the hash h (Box-Muller). */
static double normal_of(unsigned h)
{
    unsigned h2 = (h ^ (h >> 15)) * 2246822519u;
    double u1 = ((h & 0xffffu) + 0.5) / 65536.0, u2 = ((h2 >> 16) + 0.5) / 65536.0;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int count_of(int s, int d, int p, long size, bench_pattern_t pattern, int salt)
{
    unsigned h = ((unsigned)s * 2654435761u) ^ ((unsigned)d * 40503u + 0x9e37u + (unsigned)salt);
    switch (pattern) {
    case BENCH_RANDOM:
    case BENCH_SHIFTING:
        return (int)(size / 2 + (long)(h % (unsigned)(size + 1)));
    case BENCH_SPARSE:
        return (s == d || h % 4u == 0) ? (int)(4 * size) : 0;
    case BENCH_POWERLAW:
        return (int)(2 * size / (1 + ((d - s) % p + p) % p));
    case BENCH_NORMAL: {
        double n = (double)size * (1.0 + 0.5 * normal_of(h));
        return n > 0 ? (int)(n + 0.5) : 0;
    }
    default:
        return (int)size;
    }
}

static void teardown(bench_case_t *c)
{
    if (!c)
        return;
    for (int k = 0; k < 2; k++) {
        free(c->draw[k].sc);
        free(c->draw[k].ref);
    }
    bench_big_free(c->fold, c->send);
    bench_big_free(c->fold, c->recv);
    free(c);
}

/* Draw k's counts (salt k) and its reference buffer. */
static int make_draw(bench_case_t *c, long size, int k)
{
    draw_t *w = &c->draw[k];
    int j;
    if (!(w->sc = malloc(sizeof(int) * 4 * (size_t)c->p)))
        return PCOLL_ERR_NOMEM;
    w->sd = w->sc + c->p, w->rc = w->sc + 2 * c->p, w->rd = w->sc + 3 * c->p;
    for (j = 0; j < c->p; j++) {
        w->sc[j] = count_of(c->rank, j, c->p, size, c->pattern, 7919 * k);
        w->rc[j] = count_of(j, c->rank, c->p, size, c->pattern, 7919 * k);
        w->sd[j] = (int)w->stotal, w->rd[j] = (int)w->rtotal;
        w->stotal += w->sc[j], w->rtotal += w->rc[j];
    }
    c->stotal = w->stotal > c->stotal ? w->stotal : c->stotal;
    c->rtotal = w->rtotal > c->rtotal ? w->rtotal : c->rtotal;
    return c->fold || (w->ref = malloc((size_t)w->rtotal + 1)) ? PCOLL_SUCCESS
                                                                : PCOLL_ERR_NOMEM;
}

static int allocate(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t *c)
{
    int k, rc = PCOLL_SUCCESS;
    c->comm = comm, c->pattern = pattern;
    MPI_Comm_size(comm, &c->p);
    MPI_Comm_rank(comm, &c->rank);
    c->fold = bench_fold(size);
    for (k = 0; k < (pattern == BENCH_SHIFTING ? 2 : 1) && rc == PCOLL_SUCCESS; k++)
        rc = make_draw(c, size, k);
    if (rc != PCOLL_SUCCESS)
        return rc;
    c->send = bench_big_alloc(c->fold, (size_t)c->stotal);
    c->recv = bench_big_alloc(c->fold, (size_t)c->rtotal);
    return c->send && c->recv ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

static int setup(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t **out)
{
    bench_case_t *c = calloc(1, sizeof *c);
    int rc = c ? allocate(comm, size, pattern, c) : PCOLL_ERR_NOMEM;
    long long i;
    *out = c;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != PCOLL_SUCCESS || c->fold)
        return rc;
    for (i = 0; i < c->stotal; i++)
        c->send[i] = (unsigned char)(c->rank * 29 + i * 13 + 1);
    for (int k = 0; k < 2 && rc == PCOLL_SUCCESS && c->draw[k].sc; k++) {
        const draw_t *w = &c->draw[k];
        if (MPI_Alltoallv(c->send, w->sc, w->sd, MPI_BYTE, w->ref, w->rc, w->rd, MPI_BYTE,
                          comm) != MPI_SUCCESS)
            rc = PCOLL_ERR_MPI;
    }
    return rc;
}

/* The draw of this call (the next one takes the other draw, if any). */
static const draw_t *take(bench_case_t *c)
{
    c->last = c->next;
    c->next = c->draw[1].sc ? 1 - c->next : 0;
    return &c->draw[c->last];
}

static long long bytes(const bench_case_t *c) { return c->stotal; }

static void poison(bench_case_t *c)
{
    if (!c->fold)
        memset(c->recv, 0xA5, (size_t)c->rtotal);
}

static int check(const bench_case_t *c)
{
    const draw_t *w = &c->draw[c->last];
    return c->fold ? BENCH_UNCHECKED : memcmp(c->recv, w->ref, (size_t)w->rtotal) == 0;
}

static int unchecked(const bench_case_t *c, bench_kind_t kind)
{
    (void)kind;
    return c->fold;
}

static int run_native(bench_case_t *c)
{
    const draw_t *w = take(c);
    return MPI_Alltoallv(c->send, w->sc, w->sd, MPI_BYTE, c->recv, w->rc, w->rd, MPI_BYTE,
                         c->comm);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    const draw_t *w = take(c);
    return MPI_Alltoallv_init(c->send, w->sc, w->sd, MPI_BYTE, c->recv, w->rc, w->rd, MPI_BYTE,
                              c->comm, MPI_INFO_NULL, req);
}
#endif

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    const draw_t *w = take(c);
    return pcoll_alltoallv_init(c->send, w->sc, w->sd, MPI_BYTE, c->recv, w->rc, w->rd,
                                MPI_BYTE, c->comm, info, plan);
}

static int run_oneshot(bench_case_t *c)
{
    const draw_t *w = take(c);
    return pcoll_alltoallv(c->send, w->sc, w->sd, MPI_BYTE, c->recv, w->rc, w->rd, MPI_BYTE,
                           c->comm);
}

const bench_coll_t bench_coll_alltoallv = {
    .name = "alltoallv",
    .native = "MPI_Alltoallv",
    .native_init = "MPI_Alltoallv_init",
    .env_algorithm = "PCOLL_ALLTOALLV_ALGORITHM",
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
};
