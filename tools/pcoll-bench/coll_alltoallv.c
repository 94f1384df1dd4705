/*
 * alltoallv for pcoll-bench: a size is the mean bytes per destination, sent
 * as MPI_BYTE.  Counts are a function of (source, destination, size), so
 * every rank knows the sizes of both directions: uniform (all equal), random
 * (size +-50%), sparse (each rank sends to about a quarter of the ranks,
 * 4x the size), powerlaw (size * 2 / (1 + (d - s) mod p)), normal (mean
 * size, standard deviation size / 2, cut at 0: Box-Muller on a hash of
 * (s, d), so that bruck_radix meets sizes off by a factor of 3 or more).
 * Displacements are in destination order with no gaps.  The reference is MPI_Alltoallv.
 * Folded (fold.c): shared buffers, no content, no reference, no check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct bench_case {
    MPI_Comm comm;
    int p, rank;
    int *sc, *sd, *rc, *rd;    /* counts and displacements */
    long long stotal, rtotal;
    unsigned char *send, *recv, *ref;
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

static int count_of(int s, int d, int p, long size, bench_pattern_t pattern)
{
    unsigned h = ((unsigned)s * 2654435761u) ^ ((unsigned)d * 40503u + 0x9e37u);
    switch (pattern) {
    case BENCH_RANDOM:
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
    free(c->sc);
    bench_big_free(c->fold, c->send);
    bench_big_free(c->fold, c->recv);
    bench_big_free(c->fold, c->ref);
    free(c);
}

static int allocate(MPI_Comm comm, long size, bench_pattern_t pattern, bench_case_t *c)
{
    int j;
    c->comm = comm, c->pattern = pattern;
    MPI_Comm_size(comm, &c->p);
    MPI_Comm_rank(comm, &c->rank);
    if (!(c->sc = malloc(sizeof(int) * 4 * (size_t)c->p)))
        return PCOLL_ERR_NOMEM;
    c->sd = c->sc + c->p, c->rc = c->sc + 2 * c->p, c->rd = c->sc + 3 * c->p;
    for (j = 0; j < c->p; j++) {
        c->sc[j] = count_of(c->rank, j, c->p, size, pattern);
        c->rc[j] = count_of(j, c->rank, c->p, size, pattern);
        c->sd[j] = (int)c->stotal, c->rd[j] = (int)c->rtotal;
        c->stotal += c->sc[j], c->rtotal += c->rc[j];
    }
    c->fold = bench_fold(size);
    c->send = bench_big_alloc(c->fold, (size_t)c->stotal);
    c->recv = bench_big_alloc(c->fold, (size_t)c->rtotal);
    c->ref = c->fold ? NULL : malloc((size_t)c->rtotal + 1);
    return c->send && c->recv && (c->ref || c->fold) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
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
    return MPI_Alltoallv(c->send, c->sc, c->sd, MPI_BYTE, c->ref, c->rc, c->rd, MPI_BYTE,
                         comm) == MPI_SUCCESS ? PCOLL_SUCCESS : PCOLL_ERR_MPI;
}

static long long bytes(const bench_case_t *c) { return c->stotal; }

static void poison(bench_case_t *c)
{
    if (!c->fold)
        memset(c->recv, 0xA5, (size_t)c->rtotal);
}

static int check(const bench_case_t *c)
{
    return c->fold ? BENCH_UNCHECKED : memcmp(c->recv, c->ref, (size_t)c->rtotal) == 0;
}

static int unchecked(const bench_case_t *c, bench_kind_t kind)
{
    (void)kind;
    return c->fold;
}

static int run_native(bench_case_t *c)
{
    return MPI_Alltoallv(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd, MPI_BYTE,
                         c->comm);
}

#if BENCH_HAVE_MPI_PERSISTENT
static int native_persistent(bench_case_t *c, MPI_Request *req)
{
    return MPI_Alltoallv_init(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd, MPI_BYTE,
                              c->comm, MPI_INFO_NULL, req);
}
#endif

static int plan_init(bench_case_t *c, MPI_Info info, pcoll_plan_t **plan)
{
    return pcoll_alltoallv_init(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd,
                                MPI_BYTE, c->comm, info, plan);
}

static int run_oneshot(bench_case_t *c)
{
    return pcoll_alltoallv(c->send, c->sc, c->sd, MPI_BYTE, c->recv, c->rc, c->rd, MPI_BYTE,
                           c->comm);
}

const bench_coll_t bench_coll_alltoallv = {
    .name = "alltoallv",
    .native = "MPI_Alltoallv",
    .native_init = "MPI_Alltoallv_init",
    .env_algorithm = "PCOLL_ALLTOALLV_ALGORITHM",
    .patterns = 1,
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
