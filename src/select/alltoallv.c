/*
 * alltoallv and the in-place alltoallv with differing layouts: the algorithm
 * tables and the automatic choice.
 *
 * Persistent init knows every rank's sizes (the agreement reduces them), so
 * its choice weighs zero-copy Bruck (nearly regular sizes, section 3.5 of
 * the zero-copy Bruck paper), padded Bruck and the direct exchanges with the
 * cost model.  The one-shot and local paths must not communicate to plan,
 * so their choice is a direct algorithm by a rule every rank evaluates alike
 * (scattered; pairwise in place, which needs one block of scratch).  The
 * in-place engine counts items in its protocol, so it needs every rank's
 * item size equal: it is planned collectively (the agreement tells), and
 * auto takes pairwise when the sizes differ.
 */
#include <limits.h>

#include "alltoallv/inplace/inplace.h"
#include "datatype/size.h"
#include "gpu/gpu.h"
#include "hier/hier.h"
#include "model/cost.h"
#include "select/select.h"

enum {
    V_LINEAR,
    V_PAIRWISE,
    V_SCATTERED,
    V_BRUCK_ZEROCOPY,
    V_PADDED_BRUCK,
    V_BRUCK_RADIX,
    V_HIER,
    V_INPLACE,
    V_NATIVE,
    V_GPU_STAGED,
    V_GPU_IPC,
    V_INTER,
    V_AUTO
};

static const pcoll__algo_t algos[] = {
    [V_LINEAR] = {"linear", "all receives preposted, then all sends; zero-size messages skipped",
                  pcoll__alltoall_linear, 0},
    [V_PAIRWISE] = {"pairwise", "p-1 exchange rounds; in place with one block of scratch",
                    pcoll__alltoall_pairwise, PCOLL__ALGO_INPLACE},
    [V_SCATTERED] = {"scattered", "cyclic order, at most pcoll_throttle exchanges in flight",
                     pcoll__alltoall_scattered, 0},
    [V_BRUCK_ZEROCOPY] = {"bruck_zerocopy",
                          "zero-copy Bruck with per-round count exchange at init and "
                          "bucket-typed intermediate buffers (nearly regular sizes)",
                          pcoll__alltoallv_bruck_zerocopy, PCOLL__ALGO_COLLECTIVE},
    [V_PADDED_BRUCK] = {"padded_bruck",
                        "every element padded to the largest, then the best alltoall Bruck",
                        pcoll__alltoallv_padded_bruck, PCOLL__ALGO_COLLECTIVE},
    [V_BRUCK_RADIX] = {"bruck_radix",
                       "radix-r Bruck on the real sizes (counts exchanged at init), messages "
                       "packed by local copies; r = pcoll_radix or the cost model's",
                       pcoll__alltoallv_bruck_radix, PCOLL__ALGO_COLLECTIVE},
    [V_HIER] = {"hier",
                "node-aware: messages bundled per node pair in shared memory (sizes gathered "
                "on the node at init), radix-r Bruck between nodes",
                pcoll__alltoallv_hier,
                PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_INPLACE | PCOLL__ALGO_KEPT},
    [V_INPLACE] = {"inplace",
                   "MPI_IN_PLACE with memory independent of the block sizes (aux buffers "
                   "pcoll_aux_bytes in pcoll_aux_buffers)",
                   pcoll__alltoallv_inplace, PCOLL__ALGO_INPLACE | PCOLL__ALGO_COLLECTIVE},
    [V_NATIVE] = {"native",
                  "the MPI's own MPI_Alltoallv: auto's choice where no pcoll algorithm is "
                  "expected to be faster, and on the one-shot path",
                  pcoll__alltoallv_native, PCOLL__ALGO_INPLACE | PCOLL__ALGO_INTER},
    [V_GPU_STAGED] = {"gpu_staged",
                     "device buffers: this rank's device input to pinned host memory in one "
                     "copy, a host algorithm (pcoll_gpu_host_algorithm, else auto's), the "
                     "result back in one copy; auto's choice for device buffers",
                     pcoll__alltoallv_gpu_staged, PCOLL__ALGO_INPLACE},
    [V_GPU_IPC] = {"gpu_ipc",
                   "device buffers on every rank: as alltoall's gpu_ipc, the block sizes of "
                   "each node's ranks gathered at init; auto's choice on one node "
                   "(persistent)",
                   pcoll__alltoallv_gpu_ipc, PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_INPLACE},
    [V_INTER] = {"inter",
                 "intercommunicators: each rank exchanges its blocks with every rank of the other "
                 "group directly, in one round (alltoall's inter); auto's choice there",
                 pcoll__alltoall_inter, PCOLL__ALGO_INTER},
    [V_AUTO] = {"auto",
                "persistent: a tuning file's rule, else the cost model over the sizes of "
                "every rank (p, sizes, regularity) and native; one-shot: by p and the MPI "
                "(scattered or native)",
                NULL, 0},
};

const pcoll__algo_table_t pcoll__alltoallv_table = {
    "alltoallv", "PCOLL_ALLTOALLV_ALGORITHM", algos, (int)(sizeof algos / sizeof *algos)};

/* pcoll_alltoallv_inplace_init (one algorithm), under the collective name
 * "alltoallv_inplace"; the same engine serves `inplace` above. */
static const pcoll__algo_t inplace_algos[] = {
    {"inplace",
     "limited memory (Hofmann and Ruenger): phases of requests and transfers into free "
     "space and b aux buffers of a/b bytes",
     pcoll__alltoallv_inplace_layouts, PCOLL__ALGO_INPLACE},
};

const pcoll__algo_table_t pcoll__alltoallv_inplace_table = {
    "alltoallv_inplace", "PCOLL_ALLTOALLV_INPLACE_ALGORITHM", inplace_algos, 1};

int pcoll__select_bruck_fits(const pcoll__a2av_args_t *v)
{
    MPI_Count bsize = 0;
    return v->basic != MPI_DATATYPE_NULL && pcoll__type_size(v->basic, &bsize) == PCOLL_SUCCESS &&
           bsize > 0 && v->maxbytes / bsize <= INT_MAX;
}

/* bruck_radix's predicted time for the mean element of the rank that
 * receives the most, at the radix it will run. */
static double radix_cost(const pcoll__cost_t *c, const pcoll__a2av_args_t *v, int p)
{
    double mean = (double)v->maxtotal / p;
    int r = v->a.opts.radix > 0 ? v->a.opts.radix : pcoll__cost_best_radix_v(c, p, mean);
    return pcoll__cost_bruck_v(c, p, mean, r > p ? p : r < 2 ? 2 : r);
}

/* Persistent auto: the cost model over the global sizes; a pcoll algorithm
 * only where it is predicted faster than the MPI's own by the margin.  A
 * direct exchange (and native) sends every rank's real bytes: priced for
 * the mean element of the rank that receives the most, as bruck_radix is;
 * the padded and zero-copy Bruck move slots of the largest element. */
static int choose_global(const pcoll__a2av_args_t *v, const pcoll__shape_t *s)
{
    pcoll__cost_t c = pcoll__select_cost(s);
    int p = s->p;
    long long mean = (v->maxtotal + p - 1) / p;
    double direct = pcoll__cost_direct(&c, p, mean);
    double padded =
        pcoll__cost_bruck_zerocopy(&c, p, v->maxbytes) + 2.0 * p * v->maxbytes * c.gamma;
    double native = pcoll__cost_native_alltoallv(&c, p, mean), best = direct;
    int algo = pcoll__select_pairwise(s, v->maxbytes) ? V_PAIRWISE : V_SCATTERED;
    if (v->a.inplace)
        return v->inplace_ok && pcoll__alltoallv_inplace_preferred(&c, p, v->maxbytes, v->maxtotal,
                                                                   v->aux_bytes)
                   ? V_INPLACE
                   : v->native_ok ? V_NATIVE : V_PAIRWISE;
    if (pcoll__select_bruck_fits(v) && pcoll__alltoallv_regular(v) &&
        pcoll__cost_bruck_zerocopy(&c, p, v->maxbytes) < best) {
        best = pcoll__cost_bruck_zerocopy(&c, p, v->maxbytes);
        algo = V_BRUCK_ZEROCOPY;
    } else if (pcoll__select_bruck_fits(v) && padded < best) {
        best = padded;
        algo = V_PADDED_BRUCK;
    }
    if (p > 1 && pcoll__alltoallv_radix_fits(v, p) && radix_cost(&c, v, p) < best) {
        best = radix_cost(&c, v, p);
        algo = V_BRUCK_RADIX;
    }
    return best * (1.0 + c.margin) < native || !v->native_ok ? algo : V_NATIVE;
}

/* Without the other ranks' sizes: a direct exchange where the MPI's cost
 * per call outweighs pcoll's per message (both predicted for empty
 * messages, pcoll's with the margin: MPICH at p <= 3), else the MPI's own;
 * in place the MPI's own.  With MPI-3 the MPI's own serves the int forms
 * alone (a large-count call may hold a count past INT_MAX on another rank):
 * pcoll's direct algorithms for the large-count forms. */
static int choose_blind(const pcoll__a2av_args_t *v, const pcoll__shape_t *s)
{
    pcoll__cost_t c = pcoll__select_cost(s);
    int p = s->p;
    if (v->a.inplace)
        return v->native_ok ? V_NATIVE : V_PAIRWISE;
    return !v->native_ok || pcoll__cost_direct(&c, p, 0) * (1.0 + c.margin) <
                                pcoll__cost_native_alltoallv(&c, p, 0)
               ? V_SCATTERED
               : V_NATIVE;
}

/* Whether a tuning rule's algorithm can serve these sizes (the engine in
 * place with equal item sizes, native where the MPI takes the counts). */
static int usable(int algo, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    if (algo == V_INPLACE)
        return v->a.inplace && v->inplace_ok;
    return algo != V_NATIVE || v->native_ok;
}

/* Bytes per peer for the tuning rules: the mean of the rank that receives
 * the most (known after the persistent agreement only). */
static long long mean_bytes(const pcoll__a2av_args_t *v, int p)
{
    return p > 0 ? v->maxtotal / p : 0;
}

int pcoll__select_alltoallv(const pcoll__a2av_args_t *v, const pcoll__shape_t *s,
                            pcoll__opts_t *tuned)
{
    int p = s->p;
    int ruled;
    if (!pcoll__algo_is_auto(&pcoll__alltoallv_table, v->a.opts.algorithm))
        return v->a.opts.algorithm;
    /* One-shot and local: the sizes of the other ranks are not known, and
     * every rank must choose alike: by p and the MPI alone. */
    if (v->maxbytes < 0)
        return choose_blind(v, s);
    ruled = pcoll__select_rule(&pcoll__alltoallv_table, "alltoallv", &v->a.opts, s,
                               mean_bytes(v, p), usable, v, tuned);
    return ruled >= 0 ? ruled : choose_global(v, s);
}

/* The largest block the kept plan bundles on ctx's nodes (0: none). */
static long long kept_piece(pcoll__ctx_t *ctx, const pcoll__a2av_args_t *v)
{
    const pcoll__node_t *t;
    if (pcoll__hier_nodes(ctx, &v->a.opts, &t) != PCOLL_SUCCESS)
        return 0;
    return pcoll__alltoallv_hier_piece(ctx->size, t->nnodes, t->maxlocal);
}

int pcoll__select_alltoallv_hier(pcoll__ctx_t *ctx, const pcoll__a2av_args_t *v, int chosen,
                                 int kept, int steady)
{
    pcoll__shape_t s = pcoll__shape_of(ctx, 1, 1);
    pcoll__cost_t c = pcoll__select_cost(&s);
    int p = ctx->size;
    double flat, native, args = 0.0;
    /* A kept plan on one node weighs the MPI's messages there at their
     * local share of alpha, as the neighbourhood calls' do, and pays for
     * itself pcoll's checks of a call's arrays where they changed, which
     * the MPI's call does not (pcoll__cost_args), on the calls that are
     * not steady (a repeat skips them): where the MPI's own call between
     * the ranks of a node is cheap (Open MPI: 0.26 us at np 2, 16 B) and
     * the counts change, the MPI's call stays; under MPICH (its call
     * 1.9 us), or where the calls repeat, hier is kept.  A one-shot call
     * keeping the MPI's call reaches it through pcoll's forward path
     * (PCOLL__COST_FORWARD). */
    if (kept && pcoll__select_one_node(&s)) {
        c.alpha *= c.local;
        args = pcoll__cost_args(p) * (1000 - steady) / 1000.0;
    }
    flat = pcoll__cost_direct(&c, p, v->maxbytes) - args;
    native = pcoll__cost_native_alltoallv(&c, p, v->maxbytes) - args +
             (kept ? PCOLL__COST_FORWARD : 0.0);
    if (v->maxbytes <= 0 || v->a.inplace || (kept && v->maxbytes > kept_piece(ctx, v)) ||
        !pcoll__algo_is_auto(&pcoll__alltoallv_table, v->a.opts.algorithm))
        return chosen;
    return pcoll__select_hier(ctx, &pcoll__alltoallv_table, "alltoallv", &v->a.opts,
                              mean_bytes(v, p), usable, v, v->maxbytes,
                              native < flat ? native : flat)
               ? V_HIER
               : chosen;
}
