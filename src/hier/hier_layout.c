/*
 * The node-aware all-to-all engine, planning half (see hier.h): the nodes,
 * the size of every bundle, the radix, where each slot lives in the shared
 * segment, the datatypes of several-step Bruck, and the choice of `auto`.
 *
 * Segment per node: W + R.  One step: W = every byte the node sends
 * (n m p for alltoall, m ranks of p per node: the multicore paper's equation
 * (1), n m^2 N) and R = every byte it receives from other nodes (n m (p - m));
 * several steps: W = N zmax (equation (1) again when nodes are equal), R = the
 * most slots one step receives (at most about N zmax (r-1)/r).  The node's
 * first rank counts the segment in pcoll_mem_current (node_shm.c), and
 * pcoll_plan_print reports W and R ("node memory: ...").
 */
#include <limits.h>

#include "alltoall/bruck.h"
#include "hier/hier.h"
#include "core/check.h"
#include "base/mem.h"
#include "base/status.h"
#include "patterns/bruck.h"
#include "model/cost.h"

int pcoll__hier_nodes(pcoll__ctx_t *ctx, const pcoll__opts_t *opts, const pcoll__node_t **node)
{
    static const char *const what[] = {"pcoll_cores_per_node", "pcoll_ports", "pcoll_radix"};
    long long vals[3];
    int rc;
    vals[0] = opts->cores_per_node, vals[1] = opts->ports, vals[2] = opts->radix;
    rc = pcoll__agree(ctx->dup, PCOLL_SUCCESS, vals, what, 3, "hier");
    return rc == PCOLL_SUCCESS ? pcoll__node_get(ctx, opts->cores_per_node, node) : rc;
}

long long pcoll__hier_weight(int r, int s)
{
    long long w = 1;
    while (s-- > 0)
        w *= r;
    return w;
}

int pcoll__hier_ports(const pcoll__hier_t *g, int k)
{
    int m = pcoll__node_size(g->t, k), ports = g->h->a->opts.ports;
    return ports > 0 && ports < m ? ports : m;
}

int pcoll__hier_radix(const pcoll__opts_t *opts, int N, int m, long long z)
{
    pcoll__cost_t c = pcoll__cost_params();
    int r = opts->radix > 0 ? opts->radix : pcoll__cost_hier_radix(&c, N, m, opts->ports, z);
    return r < 2 ? 2 : r > N ? N : r;
}

int pcoll__hier_pays(pcoll__ctx_t *ctx, const pcoll__opts_t *opts, long long n, double flat)
{
    pcoll__cost_t c = pcoll__cost_params();
    const pcoll__node_t *t, *phys;
    long long z;
    int m;
    if (pcoll__hier_nodes(ctx, opts, &t) != PCOLL_SUCCESS)
        return 0;
    m = t->maxlocal;
    if (m < 2)
        return 0;
    /* One node: no messages, only the copies through the segment and the
     * node's barriers. */
    if (t->nnodes == 1)
        return pcoll__cost_hier_node(&c, m, n, pcoll__hier_flips((long long)m * m * n) ? 1 : 2) <
               flat;
    /* Virtual nodes (pcoll_cores_per_node) inside one shared-memory node:
     * the traffic between them costs what the traffic within them costs, so
     * bundling buys nothing (np 16 as 4 virtual nodes on one GPU machine:
     * hier under gpu_staged took 0.83x of the staged alltoall's speed at
     * 2 KiB; docs/gpu.md).  The same on every rank (collective, cached). */
    if (opts->cores_per_node > 0 &&
        (pcoll__node_get(ctx, 0, &phys) != PCOLL_SUCCESS || phys->nnodes == 1))
        return 0;
    z = (long long)m * m * n;
    return pcoll__cost_hier(&c, t->nnodes, m, opts->ports, z,
                            pcoll__hier_radix(opts, t->nnodes, m, z)) < flat;
}

/* ---- bundle sizes ----------------------------------------------------------- */

static int member(const pcoll__hier_t *g, int k, int i)
{
    return g->t->members[g->t->first[k] + i];
}

/* Bytes this node sends to node k (send side) or receives from it. */
static long long bundle(const pcoll__hier_t *g, int k, int send)
{
    int i, x, mk = pcoll__node_size(g->t, k);
    long long z = 0;
    for (x = 0; x < g->m; x++)
        for (i = 0; i < mk; i++)
            z += send ? g->h->bytes(g->h, member(g, g->A, x), member(g, k, i))
                      : g->h->bytes(g->h, member(g, k, i), member(g, g->A, x));
    return z;
}

/* The largest bundle between any two nodes (a MAX reduction). */
static int largest_bundle(pcoll_plan_t *plan, pcoll__hier_t *g)
{
    int k;
    g->zmax = 0;
    for (k = 0; k < g->N; k++) {
        long long z = bundle(g, k, 1);
        g->zmax = z > g->zmax ? z : g->zmax;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, &g->zmax, 1, MPI_LONG_LONG, MPI_MAX, plan->comm) !=
        MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "hier: MPI_Allreduce failed");
    if (g->zmax > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "hier: %lld bytes between two nodes (over 2 GiB)", g->zmax);
    return PCOLL_SUCCESS;
}

/* ---- offsets, types, segment ---------------------------------------------- */

/* One step: slots packed tight.  Returns the bytes of R. */
static MPI_Aint tight_offsets(pcoll__hier_t *g)
{
    int j;
    g->woff[0] = g->roff[0] = g->roff[1] = 0;
    for (j = 0; j < g->N; j++) {
        g->woff[j + 1] = g->woff[j] + (MPI_Aint)bundle(g, (g->A + j) % g->N, 1);
        if (j > 0)
            g->roff[j + 1] = g->roff[j] + (MPI_Aint)bundle(g, (g->A - j + g->N) % g->N, 0);
    }
    return g->roff[g->N];
}

/* Several steps: slot j at j*zmax; the digit-set types.  Returns R's bytes:
 * the most slots one step receives. */
static int bruck_offsets(pcoll_plan_t *plan, pcoll__hier_t *g, MPI_Aint *rbytes)
{
    int j, s, d, rc = PCOLL_SUCCESS;
    for (j = 0; j <= g->N; j++)
        g->woff[j] = (MPI_Aint)j * g->zmax;
    if (MPI_Type_contiguous((int)g->zmax, MPI_BYTE, &g->slot) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "hier: slot type");
    PCOLL_CHECK(pcoll__plan_own_type(plan, &g->slot), rc, out);
    *rbytes = 0;
    for (s = 0; s < g->steps; s++) {
        long long w = pcoll__hier_weight(g->r, s);
        for (d = 1; d < g->r && d * w < g->N; d++) {
            MPI_Datatype *type = &g->set[s * g->r + d];
            PCOLL_CHECK(pcoll__bruck_set_bounded(g->N - (int)(d * w), (int)w, (int)(w * g->r),
                                                 g->slot, type), rc, out);
            PCOLL_CHECK(pcoll__plan_own_type(plan, type), rc, out);
        }
        if (pcoll__hier_region(g, s, g->r) > *rbytes)
            *rbytes = pcoll__hier_region(g, s, g->r);
    }
out:
    return rc;
}

MPI_Aint pcoll__hier_region(const pcoll__hier_t *g, int s, int d)
{
    long long w = pcoll__hier_weight(g->r, s), slots = 0;
    int e;
    if (g->steps == 1)
        return g->roff[d < g->N ? d : g->N];
    for (e = 1; e < d; e++)
        slots += pcoll__bruck_digit_count(g->N, g->r, w, e);
    return (MPI_Aint)(slots * g->zmax);
}

char *pcoll__hier_final(const pcoll__hier_t *g, int j)
{
    long long w = pcoll__hier_weight(g->r, g->steps - 1);
    int d = g->steps > 0 ? (int)(j / w) : 0;
    if (d == 0)
        return g->W + g->woff[j];
    return g->R + pcoll__hier_region(g, g->steps - 1, d) + (MPI_Aint)((j - d * w) * g->zmax);
}

static int init_state(pcoll_plan_t *plan, const pcoll__hier_args_t *h, const pcoll__node_t *t,
                      pcoll__hier_t *g)
{
    g->h = h, g->t = t, g->p = plan->size, g->N = t->nnodes, g->A = t->node, g->l = t->local;
    g->me = plan->rank, g->m = pcoll__node_size(t, t->node), g->flip = 0;
    g->ports = pcoll__hier_ports(g, g->A);
    g->throttle = h->a->opts.throttle > 0 ? h->a->opts.throttle : PCOLL__A2A_THROTTLE;
    g->woff = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * (size_t)(g->N + 1));
    g->roff = pcoll__plan_alloc(plan, sizeof(MPI_Aint) * (size_t)(g->N + 1));
    if (!g->woff || !g->roff)
        return pcoll__error(PCOLL_ERR_NOMEM, "hier: slot offsets");
    return PCOLL_SUCCESS;
}

/* Everything but the segment for topology t; *bytes: the segment's size. */
static int layout(pcoll_plan_t *plan, const pcoll__hier_args_t *h, const pcoll__node_t *t,
                  pcoll__hier_t *g, size_t *bytes)
{
    MPI_Aint rbytes = 0;
    int rc;
    PCOLL_CHECK(init_state(plan, h, t, g), rc, out);
    PCOLL_CHECK(largest_bundle(plan, g), rc, out);
    g->r = g->N < 2 || g->zmax == 0 ? (g->N > 2 ? g->N : 2)
                                    : pcoll__hier_radix(&h->a->opts, g->N, t->maxlocal, g->zmax);
    g->steps = pcoll__bruck_steps(g->N, g->r);
    if (g->steps == 1) {
        rbytes = tight_offsets(g);
    } else if (g->steps > 1) {
        g->set = pcoll__plan_alloc(plan, sizeof(MPI_Datatype) * (size_t)(g->steps * g->r + 1));
        if (!g->set)
            return pcoll__error(PCOLL_ERR_NOMEM, "hier: digit-set types");
        PCOLL_CHECK(bruck_offsets(plan, g, &rbytes), rc, out);
    } else {
        g->woff[0] = 0, g->woff[1] = (MPI_Aint)bundle(g, g->A, 1);
        /* One node (the same sum on every rank of it); a schedule flips
         * one range (the multiple all-to-all's later dimensions keep one
         * copy). */
        g->flip = t->maxlocal > 1 && pcoll__hier_flips(g->woff[1]) && !plan->sched.flip;
    }
    *bytes = (size_t)(g->woff[g->N] * (g->flip ? 2 : 1) + rbytes);
out:
    return rc;
}

/* ---- what pcoll_plan_print reports ------------------------------------------ */

typedef struct mem_note {
    long long w, r;          /* bytes of W (both copies) and R */
    int N, m, ports, radix, steps, shared, flip;
} mem_note_t;

static void describe(const void *arg, FILE *out)
{
    const mem_note_t *n = arg;
    fprintf(out,
            "  node memory: %lld bytes send segment W + %lld bytes receive segment R = %lld "
            "bytes, %s (equation (1))%s\n",
            n->w, n->r, n->w + n->r,
            n->shared ? "shared by the node's ranks" : "this rank's own (no shared window)",
            n->flip ? "; W twice, runs take the copies in turn" : "");
    fprintf(out, "  nodes: %d of up to %d ranks, %d ports here, radix %d, Bruck steps %d\n",
            n->N, n->m, n->ports, n->radix, n->steps);
}

/* Keep the segment's sizes for pcoll_plan_print. */
static int note_memory(pcoll_plan_t *plan, const pcoll__hier_t *g)
{
    mem_note_t *n = pcoll__plan_alloc(plan, sizeof *n);
    if (!n)
        return pcoll__error(PCOLL_ERR_NOMEM, "hier: plan description");
    long long w = (long long)g->woff[g->N] * (g->flip ? 2 : 1);
    *n = (mem_note_t){w, (long long)g->shm->bytes - w, g->N, g->t->maxlocal, g->ports, g->r,
                      g->steps, g->shm->shared, g->flip};
    plan->describe = describe;
    plan->describe_arg = n;
    return PCOLL_SUCCESS;
}

int pcoll__hier_layout(pcoll_plan_t *plan, const pcoll__hier_args_t *h, pcoll__hier_t *g)
{
    const pcoll__node_t *t = h->node;
    size_t bytes;
    int ok, rc;
    PCOLL_CHECK(layout(plan, h, t, g, &bytes), rc, out);
    PCOLL_CHECK(pcoll__node_shm_create(plan, t, bytes, &g->shm, &ok), rc, out);
    PCOLL_CHECK(pcoll__node_shm_ready(plan->comm, g->shm, &ok), rc, out);
    if (!ok) {
        /* The fallback: every rank its own node, private memory, no barrier. */
        pcoll__node_shm_drop(g->shm);
        PCOLL_CHECK(pcoll__node_get(plan->ctx, 1, &t), rc, out);
        PCOLL_CHECK(layout(plan, h, t, g, &bytes), rc, out);
        PCOLL_CHECK(pcoll__node_shm_create(plan, t, bytes, &g->shm, &ok), rc, out);
    }
    g->W = g->shm->seg;
    g->R = g->W + g->woff[g->N];
    rc = note_memory(plan, g);
out:
    return rc;
}
