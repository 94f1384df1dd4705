/*
 * The radix-r Bruck engine behind bruck_basic, bruck_basic_ix and bruck_radix
 * (zero-copy Bruck paper section 2 and Listing 1; multicore paper II-B).
 *
 * R is the receive buffer.  Phase 1 rotates: R[j] = send block (i+j) mod p.
 * Phase 2, step s (weight w = r^s): for every digit d = 1..r-1, the blocks
 * whose digit s is d are sent straight out of R (one datatype describes them)
 * to rank i + d*w, and the same set arrives from rank i - d*w as a contiguous
 * run of signature-typed blocks in an intermediate buffer; the next round
 * unpacks it into R with the same datatype.  Two intermediate buffers
 * alternate, so a step's receives are posted before the previous step is
 * unpacked.  Phase 3: R[j] holds the block from rank (i-j) mod p; it is copied
 * out and back into receive block (i-j) mod p.
 */
#include "alltoall/bruck.h"
#include "base/status.h"
#include "patterns/bruck.h"

typedef struct digits {
    const pcoll__a2a_args_t *a;
    pcoll__bruck_types_t t;
    int p, i, r, steps;
    MPI_Datatype *set;  /* set[s*r + d]: blocks of digit d in step s, relative to block d*w */
    char *buf[2];       /* intermediate buffers (buf[steps % 2] also serves phase 3) */
} digits_t;

static long long weight(int r, int s)
{
    long long w = 1;
    while (s-- > 0)
        w *= r;
    return w;
}

/* Make every step's set types; return the most blocks one step receives. */
static int make_sets(pcoll_plan_t *plan, digits_t *g, pcoll__bruck_settype_fn settype,
                     int *most)
{
    int s, d, rc = PCOLL_SUCCESS;
    *most = 0;
    for (s = 0; s < g->steps && rc == PCOLL_SUCCESS; s++) {
        long long w = weight(g->r, s);
        int sum = 0;
        for (d = 1; d < g->r && rc == PCOLL_SUCCESS; d++) {
            MPI_Datatype *type = &g->set[s * g->r + d];
            int n = pcoll__bruck_digit_count(g->p, g->r, w, d);
            if (n == 0)
                continue;
            sum += n;
            rc = settype(g->p - (int)(d * w), (int)w, (int)(w * g->r), g->t.rblk, type);
            if (rc == PCOLL_SUCCESS)
                rc = pcoll__plan_own_type(plan, type);
        }
        *most = sum > *most ? sum : *most;
    }
    return rc;
}

/* Add step s's receives (into buf[s%2]), or with unpack set, the unpacking of
 * those blocks into R. */
static int step_in(pcoll_plan_t *plan, const digits_t *g, int s, int unpack)
{
    long long w = weight(g->r, s);
    int d, rc = PCOLL_SUCCESS, off = 0;
    for (d = 1; d < g->r && rc == PCOLL_SUCCESS; d++) {
        int n = pcoll__bruck_digit_count(g->p, g->r, w, d);
        char *in = g->buf[s % 2] + (MPI_Aint)off * g->t.sigext;
        if (n == 0)
            continue;
        if (unpack)
            rc = pcoll__sched_copy(&plan->sched, in, n, g->t.sig,
                                   pcoll__a2a_rbuf(g->a, (int)(d * w)), 1,
                                   g->set[s * g->r + d]);
        else
            rc = pcoll__sched_recv(&plan->sched, in, n, g->t.sig,
                                   (int)((g->i - d * w % g->p + g->p) % g->p));
        off += n;
    }
    return rc;
}

/* Add step s's sends, straight out of R. */
static int step_out(pcoll_plan_t *plan, const digits_t *g, int s)
{
    long long w = weight(g->r, s);
    int d, rc = PCOLL_SUCCESS;
    for (d = 1; d < g->r && rc == PCOLL_SUCCESS; d++)
        if (pcoll__bruck_digit_count(g->p, g->r, w, d) > 0)
            rc = pcoll__sched_send(&plan->sched, pcoll__a2a_rbuf(g->a, (int)(d * w)), 1,
                                   g->set[s * g->r + d], (int)((g->i + d * w) % g->p));
    return rc;
}

/* Phase 3: receive block (i-j) mod p = R[j], through the big buffer. */
static int final_permutation(pcoll_plan_t *plan, const digits_t *g)
{
    MPI_Datatype perm;
    char *tmp = g->buf[g->steps % 2];
    int rc = pcoll__bruck_perm_type(plan, g->t.rblk, -1, g->i, &perm);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__sched_copy(&plan->sched, pcoll__a2a_rbuf(g->a, 0), g->p, g->t.rblk, tmp,
                               g->p, g->t.sig);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__sched_copy(&plan->sched, tmp, g->p, g->t.sig, pcoll__a2a_rbuf(g->a, 0), 1,
                               perm);
    return rc;
}

static int alloc_buffers(pcoll_plan_t *plan, digits_t *g, int most)
{
    int big = most > g->p ? most : g->p;
    char *mem = pcoll__plan_alloc(plan, (size_t)(most + big) * (size_t)g->t.sigext);
    if (!mem)
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck: %d intermediate blocks", most + big);
    g->buf[g->steps % 2] = mem;
    g->buf[(g->steps + 1) % 2] = mem + (MPI_Aint)big * g->t.sigext;
    return PCOLL_SUCCESS;
}

int pcoll__bruck_digits(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int radix,
                        pcoll__bruck_settype_fn settype)
{
    digits_t g = {.a = a, .p = plan->size, .i = plan->rank, .r = radix};
    int s, most, rc;

    g.steps = pcoll__bruck_steps(g.p, g.r);
    g.set = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * (size_t)(g.steps * g.r + 1));
    if (!g.set)
        return pcoll__error(PCOLL_ERR_NOMEM, "bruck: set type table");
    PCOLL_CHECK(pcoll__bruck_types(plan, a, &g.t), rc, out);
    PCOLL_CHECK(make_sets(plan, &g, settype, &most), rc, out);
    PCOLL_CHECK(alloc_buffers(plan, &g, most), rc, out);
    PCOLL_CHECK(pcoll__bruck_rotate(plan, a, &g.t, g.i), rc, out);
    for (s = 0; s <= g.steps; s++) {
        /* Post this step's receives, unpack the previous step, then send. */
        PCOLL_CHECK(pcoll__sched_round(&plan->sched), rc, out);
        if (s < g.steps)
            PCOLL_CHECK(step_in(plan, &g, s, 0), rc, out);
        if (s > 0)
            PCOLL_CHECK(step_in(plan, &g, s - 1, 1), rc, out);
        if (s < g.steps)
            PCOLL_CHECK(step_out(plan, &g, s), rc, out);
    }
    rc = final_permutation(plan, &g);
out:
    return rc;
}
