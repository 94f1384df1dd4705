/*
 * The algorithm tables of every collective and their automatic choices.
 * A choice returns an index in its collective's table: the requested
 * algorithm when the options name one, else the cost model's (src/model)
 * pick.  The *_hier functions weigh the node-aware engine for persistent
 * plans; they are collective over the context's communicator (finding the
 * nodes), so only the persistent path calls them.
 */
#ifndef PCOLL_SELECT_SELECT_H
#define PCOLL_SELECT_SELECT_H

#include "alltoall/alltoall.h"
#include "base/rules.h"
#include "core/native.h"
#include "model/cost.h"
#include "alltoallv/alltoallv.h"
#include "alltoallw/alltoallw.h"
#include "neighbor/neighbor.h"
#include "reduce_scatter/reduce_scatter.h"

/* The job's shape as the choices see it: the communicator size and the
 * most ranks on one node (0: unknown), for the tuning rules; and whether
 * the plan is started (persistent and local plans: `native` would start a
 * persistent or non-blocking request, whose cost differs from the blocking
 * call's, pcoll__cost_for); and whether every rank plans together
 * (persistent init), without which an algorithm whose planning communicates
 * cannot run, whatever a tuning rule says. */
typedef struct pcoll__shape {
    int p, rpn;
    int started;
    int together;
} pcoll__shape_t;

extern const pcoll__algo_table_t pcoll__alltoall_table;
extern const pcoll__algo_table_t pcoll__alltoall_multi_table;
extern const pcoll__algo_table_t pcoll__alltoallv_table;
extern const pcoll__algo_table_t pcoll__alltoallv_inplace_table;
extern const pcoll__algo_table_t pcoll__alltoallw_table;
extern const pcoll__algo_table_t pcoll__neighbor_table;
extern const pcoll__algo_table_t pcoll__neighbor_inplace_table;
extern const pcoll__algo_table_t pcoll__reduce_scatter_table;

/* alltoall: requested, else a tuning file's rule, else by cost (native
 * where no pcoll algorithm is predicted faster by the model's margin).
 * tuned (NULL: not wanted) receives the parameters of the rule that decided
 * (pcoll__select_rule_apply), for the builder. */
int pcoll__select_alltoall(const pcoll__a2a_args_t *a, const pcoll__shape_t *s,
                           pcoll__opts_t *tuned);
/* Persistent auto: `hier` when there are several nodes of several ranks, or
 * one node of several, and the cost model prefers it to chosen (collective
 * over ctx->dup). */
int pcoll__select_alltoall_hier(pcoll__ctx_t *ctx, const pcoll__a2a_args_t *a, int chosen);
/* On an intercommunicator: requested, else the table's `inter` (inter.c). */
int pcoll__select_inter(const pcoll__algo_table_t *t, int requested);
/* The multiple all-to-all has one algorithm, `hier`. */
int pcoll__select_alltoall_multi(void);

/* alltoallv: requested, else by the sizes every rank agreed on (persistent)
 * or a direct exchange (one-shot and local: the sizes are not known). */
int pcoll__select_alltoallv(const pcoll__a2av_args_t *v, const pcoll__shape_t *s,
                            pcoll__opts_t *tuned);
/* Persistent auto and a one-shot shape's plan (kept 1: hier_alltoallv_kept.c,
 * which sends a piece over pcoll__alltoallv_hier_piece's alone, so it is
 * weighed only where no block is longer; steady: the share of its calls that skip
 * pcoll's checks of the arguments, per mille): as pcoll__select_alltoall_hier
 * (collective), one node included. */
int pcoll__select_alltoallv_hier(pcoll__ctx_t *ctx, const pcoll__a2av_args_t *v, int chosen,
                                 int kept, int steady);

/* The builder of the alltoall Bruck variant the cost model predicts
 * fastest for p ranks and blocks of n bytes (alltoallv's padded_bruck runs
 * it on the padded blocks). */
int (*pcoll__select_bruck(int p, long long n))(pcoll_plan_t *plan, const void *args);

/* Whether alltoallv's Bruck variants (and alltoallw's zero-copy Bruck) can
 * count an element in basic items (ints): the same on every rank (maxbytes
 * and basic are agreed). */
int pcoll__select_bruck_fits(const pcoll__a2av_args_t *v);

/* alltoallw: requested, else by the sizes every rank agreed on (persistent:
 * a direct exchange, zero-copy Bruck or native by the cost model) or by p
 * and the MPI (one-shot and local); in place the MPI's own. */
int pcoll__select_alltoallw(const pcoll__a2av_args_t *v, const pcoll__shape_t *s,
                            pcoll__opts_t *tuned);

/* The neighbourhood all-to-alls (all three forms): requested, else for
 * plans made together (persistent init) `node` where the cost model
 * predicts it faster by its margin, else `direct`; `native` for the rest,
 * where it may run (select/neighbor.c). */
int pcoll__select_neighbor(const pcoll__nbr_args_t *a, const pcoll__shape_t *s);

/* reduce_scatter (both forms): requested, else by cost among the
 * algorithms the op allows. */
int pcoll__select_reduce_scatter(const pcoll__rs_args_t *a, const pcoll__shape_t *s,
                                 pcoll__opts_t *tuned);

/* Device buffers (gpu.c).  The host algorithm to plan (the child of
 * gpu_staged, or the plan itself): opts->algorithm when it names a host
 * algorithm, else pcoll_gpu_host_algorithm when set, else -1 (auto). */
int pcoll__select_gpu_host(const pcoll__algo_table_t *t, const pcoll__opts_t *opts);
/* The algorithm to build: requested (the options' algorithm, -1: none)
 * when it is a GPU algorithm, else gpu_staged when device (memory-kind flags
 * of this rank or, planned together, of every rank) is non-zero, else host
 * (the host choice).  Sets opts->gpu_child to the host algorithm a GPU
 * algorithm runs (NULL otherwise). */
int pcoll__select_gpu(const pcoll__algo_table_t *t, int requested, int host, int device,
                      pcoll__opts_t *opts);
/* Persistent plans, auto (requested) chose algo on table t (alltoall,
 * alltoallv, reduce_scatter): gpu_ipc instead when every rank's buffers
 * are device memory (device: the flags of every rank), not in place, the
 * blocks non-empty (bytes > 0, the same on every rank), the communicator
 * one node (for opts' pcoll_cores_per_node) and this process has a GPU;
 * with device buffers and no gpu_ipc, gpu_staged runs scattered where the
 * host choice in opts->gpu_child was native (tables that have it).
 * Collective over ctx->dup where the first conditions hold. */
int pcoll__select_gpu_ipc(pcoll__ctx_t *ctx, const pcoll__algo_table_t *t, pcoll__opts_t *opts,
                          int inplace, long long bytes, int requested, int algo, int device);

/* Tuning rules (tuned.c): the index of the algorithm the tuning file in
 * opts names for this case (coll: the table's collective, or
 * "reduce_scatter_block"), its parameters written into *tuned (NULL: not
 * wanted) where the options set none; -1 when there is no file, the options
 * name an algorithm, no rule covers the case, or the rule's algorithm cannot
 * serve it (planned collectively outside a persistent init, or usable(algo,
 * args) says no; usable NULL: any). */
int pcoll__select_rule(const pcoll__algo_table_t *t, const char *coll,
                       const pcoll__opts_t *opts, const pcoll__shape_t *s, long long bytes,
                       int (*usable)(int algo, const void *args), const void *args,
                       pcoll__opts_t *tuned);
/* Every rank on one node (ranks per node known and covering p). */
static inline int pcoll__select_one_node(const pcoll__shape_t *s)
{
    return s->rpn >= s->p;
}

/* Whether a direct exchange of blocks of n bytes (alltoallv: the largest)
 * goes one partner at a time (pairwise) rather than scattered: long blocks
 * across nodes.  On one node scattered at every size: there pairwise's p-1
 * rounds, each waiting for the slowest pair, cost more than the links they
 * spare (np 16 on 16 cores, MPICH, alltoallv random sizes, 32 KiB mean:
 * pairwise 187 us, scattered 118.8, MPI_Alltoallv 129.4). */
static inline int pcoll__select_pairwise(const pcoll__shape_t *s, long long n)
{
    return n > PCOLL__A2A_SCATTERED_MAX && !pcoll__select_one_node(s);
}

/* The cost model's parameters for a choice of this shape. */
static inline pcoll__cost_t pcoll__select_cost(const pcoll__shape_t *s)
{
#ifdef PCOLL__NATIVE_HAVE_INIT
    pcoll__cost_t c = pcoll__cost_for(s->started, s->together, 1);
#else
    pcoll__cost_t c = pcoll__cost_for(s->started, s->together, 0);
#endif
    /* Unless PCOLL_COST_PORT set it: all ranks on one node, where the CPUs
     * copy every message, overlap fewer of them. */
    if (c.port < 0)
        c.port = pcoll__select_one_node(s) ? PCOLL__COST_PORT_NODE : PCOLL__COST_PORT_NETWORK;
    return c;
}

/* The shape of ctx's communicator for a started plan or a blocking call,
 * planned together or by each rank alone. */
static inline pcoll__shape_t pcoll__shape_of(const pcoll__ctx_t *ctx, int started, int together)
{
    pcoll__shape_t s = {ctx->size, ctx->ranks_per_node, started, together};
    return s;
}
/* Persistent auto (hier.c): whether to run hier instead of a flat choice
 * predicted to take flat seconds for blocks of n bytes: no tuning rule
 * decides the case (bytes per peer rule_bytes, usable and args as for
 * pcoll__select_rule) and the model predicts hier faster by its margin.
 * Collective over ctx->dup. */
int pcoll__select_hier(pcoll__ctx_t *ctx, const pcoll__algo_table_t *t, const char *coll,
                       const pcoll__opts_t *opts, long long rule_bytes,
                       int (*usable)(int algo, const void *args), const void *args, long long n,
                       double flat);

#endif
