/*
 * alltoall and the multiple all-to-all: the algorithm tables and the
 * automatic choice (docs/algorithms.md, "auto").
 */
#include "alltoall/bruck.h"
#include "gpu/gpu.h"
#include "hier/hier.h"
#include "model/cost.h"
#include "select/select.h"

enum {
    ALGO_LINEAR,
    ALGO_PAIRWISE,
    ALGO_SCATTERED,
    ALGO_BRUCK_BASIC,
    ALGO_BRUCK_BASIC_IX,
    ALGO_BRUCK_MODIFIED,
    ALGO_BRUCK_MODIFIED_IX,
    ALGO_BRUCK_ZEROCOPY,
    ALGO_BRUCK_ZEROCOPY_BLOCKS,
    ALGO_BRUCK_RADIX,
    ALGO_HIER,
    ALGO_NATIVE,
    ALGO_GPU_STAGED,
    ALGO_GPU_IPC,
    ALGO_INTER,
    ALGO_AUTO
};

static const pcoll__algo_t algos[] = {
    [ALGO_LINEAR] = {"linear", "all receives preposted, then all sends; 1 round",
                     pcoll__alltoall_linear, 0},
    [ALGO_PAIRWISE] = {"pairwise",
                       "p-1 exchange rounds (XOR partners for powers of two); "
                       "in place with one block of scratch",
                       pcoll__alltoall_pairwise, PCOLL__ALGO_INPLACE},
    [ALGO_SCATTERED] = {"scattered",
                        "cyclic order, at most pcoll_throttle exchanges in flight",
                        pcoll__alltoall_scattered, 0},
    [ALGO_BRUCK_BASIC] = {"bruck_basic",
                          "Basic Bruck: rotate, log2 p rounds with bounded vectors, "
                          "reverse-rotate",
                          pcoll__alltoall_bruck_basic, 0},
    [ALGO_BRUCK_BASIC_IX] = {"bruck_basic_ix", "Basic Bruck with MPI indexed types",
                             pcoll__alltoall_bruck_basic_ix, 0},
    [ALGO_BRUCK_MODIFIED] = {"bruck_modified",
                             "Modified Bruck: no final permutation, circular vectors",
                             pcoll__alltoall_bruck_modified, 0},
    [ALGO_BRUCK_MODIFIED_IX] = {"bruck_modified_ix",
                                "Modified Bruck with MPI indexed-block types",
                                pcoll__alltoall_bruck_modified_ix, 0},
    [ALGO_BRUCK_ZEROCOPY] = {"bruck_zerocopy",
                             "Zero-copy Bruck: per-round struct types, no local copies",
                             pcoll__alltoall_bruck_zerocopy, 0},
    [ALGO_BRUCK_ZEROCOPY_BLOCKS] = {"bruck_zerocopy_blocks",
                                    "Zero-copy Bruck with runs collapsed into blocks",
                                    pcoll__alltoall_bruck_zerocopy_blocks, 0},
    [ALGO_BRUCK_RADIX] = {"bruck_radix",
                          "radix-r Bruck, r-1 ports per step (pcoll_radix or cost model)",
                          pcoll__alltoall_bruck_radix, 0},
    /* hier copies every block in before any is copied out: in place as is. */
    [ALGO_HIER] = {"hier",
                   "node-aware: blocks bundled per node pair in shared memory, radix-r Bruck "
                   "between nodes on pcoll_ports ranks per node (pcoll_cores_per_node)",
                   pcoll__alltoall_hier,
                   PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_INPLACE | PCOLL__ALGO_REBIND},
    [ALGO_NATIVE] = {"native",
                     "the MPI's own MPI_Alltoall: auto's choice where no pcoll algorithm is "
                     "expected to be faster",
                     pcoll__alltoall_native, PCOLL__ALGO_INPLACE | PCOLL__ALGO_INTER},
    [ALGO_GPU_STAGED] = {"gpu_staged",
                     "device buffers: this rank's device input to pinned host memory in one "
                     "copy, a host algorithm (pcoll_gpu_host_algorithm, else auto's), the "
                     "result back in one copy; auto's choice for device buffers",
                     pcoll__alltoall_gpu_staged, PCOLL__ALGO_INPLACE},
    [ALGO_GPU_IPC] = {"gpu_ipc",
                      "device buffers on every rank: IPC handles exchanged on each (virtual) "
                      "node at init, one copy-kernel launch bundles the node's blocks, leaders "
                      "exchange bundles, one launch distributes them (one node: one launch "
                      "user to user); auto's choice on one node (persistent)",
                      pcoll__alltoall_gpu_ipc, PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_INPLACE},
    [ALGO_INTER] = {"inter",
                    "intercommunicators: each rank exchanges one block with every rank of "
                    "the other group directly, in one round; auto's choice there (on an "
                    "intracommunicator: linear, the own block a message too)",
                    pcoll__alltoall_inter, PCOLL__ALGO_INTER},
    [ALGO_AUTO] = {"auto",
                   "a tuning file's rule (pcoll_tuning_file), else the cost model over every "
                   "algorithm and native (docs/algorithms.md)",
                   NULL, 0},
};

const pcoll__algo_table_t pcoll__alltoall_table = {
    "alltoall", "PCOLL_ALLTOALL_ALGORITHM", algos, (int)(sizeof algos / sizeof *algos)};

/* The multiple all-to-all (pcoll_alltoall_multi_init). */
static const pcoll__algo_t multi_algos[] = {
    {"hier", "node-aware: the blocks of every row between two nodes in one message",
     pcoll__alltoall_multi_hier, PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_INPLACE},
    {"auto", "hier", NULL, 0},
};

const pcoll__algo_table_t pcoll__alltoall_multi_table = {
    "alltoall_multi", "PCOLL_ALLTOALL_MULTI_ALGORITHM", multi_algos,
    (int)(sizeof multi_algos / sizeof *multi_algos)};

int pcoll__select_alltoall_multi(void)
{
    return 0;
}

int (*pcoll__select_bruck(int p, long long n))(pcoll_plan_t *plan, const void *args)
{
    static const int variants[4] = {ALGO_BRUCK_BASIC, ALGO_BRUCK_MODIFIED, ALGO_BRUCK_ZEROCOPY,
                                    ALGO_BRUCK_RADIX};
    pcoll__cost_t c = pcoll__cost_params();
    double t[4];
    int i, best = 0;
    t[0] = pcoll__cost_bruck(&c, p, n, 2);
    t[1] = pcoll__cost_bruck_modified(&c, p, n);
    t[2] = pcoll__cost_bruck_zerocopy(&c, p, n);
    t[3] = pcoll__cost_bruck(&c, p, n, pcoll__cost_best_radix(&c, p, n));
    for (i = 1; i < 4; i++)
        if (t[i] < t[best])
            best = i;
    return algos[variants[best]].build;
}

/* Predicted times of the candidates of the automatic choice (-1: none). */
static void predict(const pcoll__a2a_args_t *a, int p, double *t)
{
    pcoll__cost_t c = pcoll__cost_params();
    long long n = a->blockbytes;
    int r = pcoll__cost_best_radix(&c, p, n), i;
    for (i = 0; i < ALGO_AUTO; i++)
        t[i] = -1.0;
    t[ALGO_SCATTERED] = pcoll__cost_direct(&c, p, n);
    t[ALGO_BRUCK_BASIC] = pcoll__cost_bruck(&c, p, n, 2);
    t[ALGO_BRUCK_MODIFIED] = pcoll__cost_bruck_modified(&c, p, n);
    t[ALGO_BRUCK_ZEROCOPY] = pcoll__cost_bruck_zerocopy(&c, p, n);
    if (r > 2)
        t[ALGO_BRUCK_RADIX] = pcoll__cost_bruck(&c, p, n, r);
}

/* The fastest predicted pcoll algorithm, or native when none is predicted
 * faster than the MPI's own collective by the model's margin (and the MPI
 * is not known to fail these arguments).  In place,
 * large buffers weigh only pairwise (one block of scratch instead of a
 * staged copy of everything). */
static int choose_by_cost(const pcoll__a2a_args_t *a, const pcoll__shape_t *s)
{
    pcoll__cost_t c = pcoll__select_cost(s);
    int p = s->p;
    long long n = a->blockbytes;
    int i, best = ALGO_SCATTERED;
    double t[ALGO_AUTO];
    predict(a, p, t);
    if (a->inplace && n * p > PCOLL__A2A_INPLACE_STAGE_MAX) {
        t[ALGO_PAIRWISE] = t[ALGO_SCATTERED];
        best = ALGO_PAIRWISE;
    } else {
        for (i = 0; i < ALGO_AUTO; i++)
            if (t[i] >= 0 && t[i] < t[best])
                best = i;
    }
    if (pcoll__alltoall_native_ok(a, p) &&
        !(t[best] * (1.0 + c.margin) < pcoll__cost_native_alltoall(&c, p, n)))
        return ALGO_NATIVE;
    if (best == ALGO_SCATTERED && pcoll__select_pairwise(s, n))
        best = ALGO_PAIRWISE;
    return best;
}

int pcoll__select_alltoall(const pcoll__a2a_args_t *a, const pcoll__shape_t *s,
                           pcoll__opts_t *tuned)
{
    int ruled;
    if (!pcoll__algo_is_auto(&pcoll__alltoall_table, a->opts.algorithm))
        return a->opts.algorithm;
    ruled = pcoll__select_rule(&pcoll__alltoall_table, "alltoall", &a->opts, s, a->blockbytes,
                               NULL, NULL, tuned);
    if (ruled == ALGO_NATIVE && !pcoll__alltoall_native_ok(a, s->p))
        ruled = -1; /* a rule cannot know the MPI's defects */
    return ruled >= 0 ? ruled : choose_by_cost(a, s);
}

int pcoll__select_alltoall_hier(pcoll__ctx_t *ctx, const pcoll__a2a_args_t *a, int chosen)
{
    pcoll__shape_t s = pcoll__shape_of(ctx, 1, 1);
    pcoll__cost_t c = pcoll__select_cost(&s);
    double t[ALGO_AUTO], flat;
    int i, p = ctx->size;
    if (!pcoll__algo_is_auto(&pcoll__alltoall_table, a->opts.algorithm) || a->blockbytes == 0 ||
        (a->inplace && chosen == ALGO_PAIRWISE))
        return chosen;
    predict(a, p, t);
    flat = pcoll__cost_native_alltoall(&c, p, a->blockbytes);
    for (i = 0; i < ALGO_AUTO; i++)
        if (t[i] >= 0 && t[i] < flat)
            flat = t[i];
    return pcoll__select_hier(ctx, &pcoll__alltoall_table, "alltoall", &a->opts, a->blockbytes,
                              NULL, NULL, a->blockbytes, flat)
               ? ALGO_HIER
               : chosen;
}
