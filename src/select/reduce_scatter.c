/*
 * reduce_scatter (both forms): the algorithm table and the automatic choice
 * (the cost model of the reduce-scatter paper, section 4, among the
 * algorithms the op allows: ring and ring_prepost reorder the operands).
 */
#include <limits.h>
#include <math.h>

#include "core/check.h"
#include "datatype/size.h"
#include "gpu/gpu.h"
#include "model/cost.h"
#include "select/select.h"

enum {
    ALGO_MST,
    ALGO_RING,
    ALGO_RING_PREPOST,
    ALGO_RECURSIVE_HALVING,
    ALGO_PAIRWISE,
    ALGO_CIRCULANT,
    ALGO_NODE_RING,
    ALGO_NODE_DIRECT,
    ALGO_NATIVE,
    ALGO_GPU_STAGED,
    ALGO_GPU_IPC,
    ALGO_INTER,
    ALGO_AUTO
};

static const pcoll__algo_t algos[] = {
    [ALGO_MST] = {"mst", "binomial-tree reduce to rank 0, then binomial scatter (short vectors)",
                  pcoll__reduce_scatter_mst, 0},
    [ALGO_RING] = {"ring", "bucket algorithm: p-1 steps of n/p around a ring (long vectors)",
                   pcoll__reduce_scatter_ring, PCOLL__ALGO_COMMUTATIVE},
    [ALGO_RING_PREPOST] = {"ring_prepost",
                           "ring with every receive preposted, a handshake, ready-mode sends",
                           pcoll__reduce_scatter_ring_prepost, PCOLL__ALGO_COMMUTATIVE},
    [ALGO_RECURSIVE_HALVING] = {"recursive_halving",
                                "log2 p halving steps (fold-in for other p), order kept",
                                pcoll__reduce_scatter_recursive_halving, 0},
    [ALGO_PAIRWISE] = {"pairwise", "p-1 exchange rounds of one block each",
                       pcoll__reduce_scatter_pairwise, 0},
    [ALGO_CIRCULANT] = {"circulant",
                        "ceil(log2 p) rounds on a circulant graph, p-1 blocks per rank, any p "
                        "(commutative ops; others run recursive_halving)",
                        pcoll__reduce_scatter_circulant, 0},
    [ALGO_NODE_RING] = {"node_ring",
                        "one node: each rank adds its contributions into the others' "
                        "accumulators in shared memory, p-1 steps handed on by flags, no "
                        "messages (commutative ops; else, or on several nodes: circulant)",
                        pcoll__reduce_scatter_node_ring,
                        PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_REBIND},
    [ALGO_NODE_DIRECT] = {"node_direct",
                          "one node, short vectors: every rank's input in shared memory, a node "
                          "barrier, each rank reduces its block from all of them in rank order "
                          "(any op; longer vectors: node_ring, several nodes: circulant)",
                          pcoll__reduce_scatter_node_direct,
                          PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_REBIND},
    [ALGO_NATIVE] = {"native",
                     "the MPI's own MPI_Reduce_scatter(_block): auto's choice where no pcoll "
                     "algorithm is expected to be faster",
                     pcoll__reduce_scatter_native, PCOLL__ALGO_INPLACE | PCOLL__ALGO_INTER},
    [ALGO_GPU_STAGED] = {"gpu_staged",
                     "device buffers: this rank's device input to pinned host memory in one "
                     "copy, a host algorithm (pcoll_gpu_host_algorithm, else auto's), the "
                     "result back in one copy; auto's choice for device buffers",
                     pcoll__reduce_scatter_gpu_staged, PCOLL__ALGO_INPLACE},
    [ALGO_GPU_IPC] = {"gpu_ipc",
                      "device buffers on one node: each rank reduces its block from every "
                      "rank's input (CUDA IPC) with one launch of the device reduction kernel "
                      "(predefined ops and types; else gpu_staged); auto's choice there",
                      pcoll__reduce_scatter_gpu_ipc,
                      PCOLL__ALGO_COLLECTIVE | PCOLL__ALGO_INPLACE},
    [ALGO_INTER] = {"inter",
                    "intercommunicators: every rank's vector to the other group's first rank, "
                    "which reduces them in rank order and scatters the result in its group's "
                    "blocks (any op); auto's choice there (one group: linear reduce to rank "
                    "0 and scatter)",
                    pcoll__reduce_scatter_inter, PCOLL__ALGO_INTER},
    [ALGO_AUTO] = {"auto",
                   "a tuning file's rule, else the cost model (with the op's commutativity) "
                   "and native",
                   NULL, 0},
};

const pcoll__algo_table_t pcoll__reduce_scatter_table = {
    "reduce_scatter", "PCOLL_REDUCE_SCATTER_ALGORITHM", algos,
    (int)(sizeof algos / sizeof *algos)};

/* Bytes per peer for the tuning rules: the largest result block. */
static long long block_bytes(const pcoll__rs_args_t *a, int p, MPI_Count size)
{
    long long m = 0;
    int i;
    for (i = 0; i < p; i++)
        m = a->counts[i] > m ? a->counts[i] : m;
    return m * (long long)size;
}

/* Whether the MPI's own reduce-scatter can serve the call: not a predefined
 * op on a derived type (MPICH refuses it; persistent inits know whether any
 * rank's is), and counts past INT_MAX only with MPI-4's _c forms.  The
 * counts are the same on every rank. */
static int native_ok(const pcoll__rs_args_t *a, int p)
{
    int i;
    if (pcoll__op_predefined(a->op) && a->derived)
        return 0;
    for (i = 0; i < p && MPI_VERSION < 4; i++)
        if (a->counts[i] > INT_MAX)
            return 0;
    return 1;
}

/* Whether a tuning rule's algorithm can serve the call: the op's
 * commutativity, native's limits. */
typedef struct call {
    const pcoll__rs_args_t *a;
    int p;
} call_t;

static int usable(int algo, const void *args)
{
    const call_t *c = args;
    if (!c->a->commutative && (algos[algo].flags & PCOLL__ALGO_COMMUTATIVE))
        return 0;
    if (c->a->no_reduce_local && algo != ALGO_NATIVE)
        return 0;
    return algo != ALGO_NATIVE || native_ok(c->a, c->p);
}

int pcoll__select_reduce_scatter(const pcoll__rs_args_t *a, const pcoll__shape_t *s,
                                 pcoll__opts_t *tuned)
{
    int p = s->p;
    call_t call = {a, p};
    pcoll__cost_t c = pcoll__select_cost(s);
    MPI_Count size = 0;
    int i, best = ALGO_MST, ruled, radix, node;
    double t[ALGO_NATIVE], n;
    if (!pcoll__algo_is_auto(&pcoll__reduce_scatter_table, a->opts.algorithm))
        return a->opts.algorithm;
    /* Where MPI_Reduce_local fails, the MPI's own call alone can reduce. */
    if (a->no_reduce_local)
        return ALGO_NATIVE;
    pcoll__type_size(a->type, &size);
    ruled = pcoll__select_rule(&pcoll__reduce_scatter_table,
                               a->block ? "reduce_scatter_block" : "reduce_scatter", &a->opts,
                               s, block_bytes(a, p, size), usable, &call, tuned);
    if (ruled >= 0)
        return ruled;
    n = (double)a->total * (double)size;
    t[ALGO_MST] = pcoll__cost_rs_mst(&c, p, n);
    t[ALGO_RING] = pcoll__cost_rs_ring(&c, p, n, 0);
    t[ALGO_RING_PREPOST] = pcoll__cost_rs_ring(&c, p, n, 1);
    t[ALGO_RECURSIVE_HALVING] = pcoll__cost_rs_halving(&c, p, n);
    t[ALGO_PAIRWISE] = pcoll__cost_rs_ring(&c, p, n, 0) + c.alpha;
    /* Non-commutative ops: circulant builds recursive_halving. */
    radix = a->opts.radix >= 2 ? a->opts.radix : pcoll__cost_rs_circulant_radix(&c, p, n);
    t[ALGO_CIRCULANT] = a->commutative ? pcoll__cost_rs_circulant(&c, p, n, radix) : HUGE_VAL;
    /* node_ring, node_direct: planned together (a shared window), every
     * rank on one node; node_direct's slots hold p vectors. */
    node = s->together && s->rpn >= p && p > 1;
    t[ALGO_NODE_RING] = node && a->commutative
                            ? pcoll__cost_rs_node_ring(&c, p, n,
                                                       (double)pcoll__rs_node_ring_chunk(p))
                            : HUGE_VAL;
    t[ALGO_NODE_DIRECT] = node && n * p <= (double)PCOLL__NR_SEGMENT_BYTES
                              ? pcoll__cost_rs_node_direct(&c, p, n)
                              : HUGE_VAL;
    /* ring_prepost posts each block as one message: int counts only. */
    for (i = 0; i < p; i++)
        if (a->counts[i] > INT_MAX)
            t[ALGO_RING_PREPOST] = HUGE_VAL;
    for (i = 0; i < ALGO_NATIVE; i++)
        if ((a->commutative || !(algos[i].flags & PCOLL__ALGO_COMMUTATIVE)) && t[i] < t[best])
            best = i;
    if (native_ok(a, p) && t[best] * (1.0 + c.margin) >= pcoll__cost_native_rs(&c, p, n))
        return ALGO_NATIVE;
    if (best == ALGO_CIRCULANT && tuned)
        tuned->radix = radix;
    return best;
}
