/*
 * Timing (DESIGN.md, section 5): the items of one benchmark are
 * interleaved -- every repetition runs each item once, DDT_WARMUP untimed
 * repetitions first -- so that a busy spell of the machine slows all of them
 * alike instead of one description; each run is timed on its own on rank 0
 * and the samples go through the bench statistics (tools/pcoll-bench/stats.c:
 * Tukey's filter, median, 95% confidence interval of the mean).  A
 * ping-pong's round trip is halved.  Local operations (MPI_Pack, the user
 * loop) run on rank 0 only; type construction (Benchmark 6) is timed apart.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ddt.h"
#include "pcoll.h"
#include "stats.h"

enum { TAG = 77 };

typedef void (*op_fn)(const ddt_ctx_t *c, const ddt_dt_t *d);

/* Median and the 95% CI of the mean of x[0..n) (x is reordered). */
static ddt_time_t summarize(double *x, int n)
{
    bench_stats_t st;
    double ci;
    bench_stats_compute(x, n, &st);
    ci = isnan(st.ci95) ? 0 : st.ci95;
    return (ddt_time_t){st.median, st.mean - ci, st.mean + ci};
}

static void op_pack(const ddt_ctx_t *c, const ddt_dt_t *d)
{
    int pos = 0;
    if (c->rank == 0)
        MPI_Pack(c->src, d->count, d->type, c->packed, (int)c->packed_bytes, &pos, MPI_COMM_SELF);
}

/* Copy n elements of size bytes, step bytes apart (inlined per size). */
static inline void copy_loop(char *dst, const char *src, int n, MPI_Aint step, size_t size)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + (size_t)i * size, src + i * step, size);
}

static void op_userpack(const ddt_ctx_t *c, const ddt_dt_t *d)
{
    MPI_Aint step = (MPI_Aint)c->stride * c->ext;
    (void)d;
    if (c->rank != 0)
        return;
    if (c->size == 8)
        copy_loop(c->packed, c->src, c->n, step, 8);
    else if (c->size == 4)
        copy_loop(c->packed, c->src, c->n, step, 4);
    else
        copy_loop(c->packed, c->src, c->n, step, (size_t)c->size);
}

static void op_send(const ddt_ctx_t *c, const ddt_dt_t *d)
{
    if (c->rank == 0) {
        MPI_Send(c->src, d->count, d->type, 1, TAG, c->comm);
        MPI_Recv(c->dst, d->count, d->type, 1, TAG, c->comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(c->dst, d->count, d->type, 0, TAG, c->comm, MPI_STATUS_IGNORE);
        MPI_Send(c->dst, d->count, d->type, 0, TAG, c->comm);
    }
}

/* Pack from buf, send the packed bytes to peer. */
static void pack_send(const ddt_ctx_t *c, const ddt_dt_t *d, const char *buf, int peer)
{
    int pos = 0;
    MPI_Pack(buf, d->count, d->type, c->packed, (int)c->packed_bytes, &pos, MPI_COMM_SELF);
    MPI_Send(c->packed, pos, MPI_PACKED, peer, TAG, c->comm);
}

/* Receive packed bytes from peer and unpack them into dst. */
static void recv_unpack(const ddt_ctx_t *c, const ddt_dt_t *d, int peer)
{
    int pos = 0, bytes;
    MPI_Status st;
    MPI_Recv(c->packed, (int)c->packed_bytes, MPI_PACKED, peer, TAG, c->comm, &st);
    MPI_Get_count(&st, MPI_PACKED, &bytes);
    MPI_Unpack(c->packed, bytes, &pos, c->dst, d->count, d->type, MPI_COMM_SELF);
}

static void op_packsend(const ddt_ctx_t *c, const ddt_dt_t *d)
{
    if (c->rank == 0) {
        pack_send(c, d, c->src, 1);
        recv_unpack(c, d, 1);
    } else {
        recv_unpack(c, d, 0);
        pack_send(c, d, c->dst, 0);
    }
}

/* The operation and round-trip factor of each item kind. */
static const struct {
    op_fn op;
    double scale;
} kinds[] = {[DDT_PACK] = {op_pack, 1.0},
             [DDT_SEND] = {op_send, 0.5},
             [DDT_PACKSEND] = {op_packsend, 0.5},
             [DDT_ITEM_USERPACK] = {op_userpack, 1.0}};

void ddt_measure(const ddt_ctx_t *c, const ddt_item_t *items, int n)
{
    double *x = malloc((size_t)c->reps * (size_t)n * sizeof *x);
    MPI_Barrier(c->comm);
    for (int r = -DDT_WARMUP; r < c->reps; r++)
        for (int k = 0; k < n; k++) {
            double t0 = MPI_Wtime();
            kinds[items[k].kind].op(c, &items[k].dt);
            if (r >= 0)
                x[(size_t)k * c->reps + r] = (MPI_Wtime() - t0) * kinds[items[k].kind].scale;
        }
    for (int k = 0; k < n; k++)
        *items[k].out = c->rank == 0 ? summarize(x + (size_t)k * c->reps, c->reps)
                                     : (ddt_time_t){NAN, NAN, NAN};
    free(x);
}

/* One construction, commit and normalization of desc: the three times. */
static void build_once(const ddt_ctx_t *c, int desc, double t[3])
{
    ddt_dt_t d, n;
    double t0 = MPI_Wtime(), t1, t2;
    ddt_make_b1(c, desc, &d);
    t1 = MPI_Wtime();
    ddt_commit(&d);
    t2 = MPI_Wtime();
    ddt_normalized(&d, &n);
    t[0] = t1 - t0;
    t[1] = t2 - t1;
    t[2] = MPI_Wtime() - t2;
    ddt_dt_free(&n);
    ddt_dt_free(&d);
}

void ddt_time_build(const ddt_ctx_t *c, int desc, ddt_time_t *construct, ddt_time_t *commit,
                    ddt_time_t *normalize)
{
    double *x = malloc((size_t)c->reps * 3 * sizeof *x), t[3];
    ddt_time_t *out[3] = {construct, commit, normalize};
    MPI_Barrier(c->comm);
    for (int k = 0; k < 3; k++)
        *out[k] = (ddt_time_t){NAN, NAN, NAN};
    for (int i = -DDT_WARMUP; c->rank == 0 && i < c->reps; i++) {
        build_once(c, desc, t);
        for (int k = 0; i >= 0 && k < 3; k++)
            x[k * c->reps + i] = t[k];
    }
    for (int k = 0; c->rank == 0 && k < 3; k++)
        *out[k] = summarize(x + k * c->reps, c->reps);
    free(x);
}
