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
#include "alltoallv/alltoallv.h"
#include "reduce_scatter/reduce_scatter.h"

extern const pcoll__algo_table_t pcoll__alltoall_table;
extern const pcoll__algo_table_t pcoll__alltoall_multi_table;
extern const pcoll__algo_table_t pcoll__alltoallv_table;
extern const pcoll__algo_table_t pcoll__alltoallv_inplace_table;
extern const pcoll__algo_table_t pcoll__reduce_scatter_table;

/* alltoall: requested, else by cost; in place, large buffers go `pairwise`
 * (one block of scratch instead of a staged copy of everything). */
int pcoll__select_alltoall(const pcoll__a2a_args_t *a, int p);
/* Persistent auto: `hier` when there are several nodes of several ranks and
 * the cost model prefers it to chosen (collective over ctx->dup). */
int pcoll__select_alltoall_hier(pcoll__ctx_t *ctx, const pcoll__a2a_args_t *a, int p,
                                int chosen);
/* The multiple all-to-all has one algorithm, `hier`. */
int pcoll__select_alltoall_multi(void);

/* alltoallv: requested, else by the sizes every rank agreed on (persistent)
 * or a direct exchange (one-shot and local: the sizes are not known). */
int pcoll__select_alltoallv(const pcoll__a2av_args_t *v, int p);
/* Persistent auto: as pcoll__select_alltoall_hier (collective). */
int pcoll__select_alltoallv_hier(pcoll__ctx_t *ctx, const pcoll__a2av_args_t *v, int p,
                                 int chosen);

/* reduce_scatter (both forms): requested, else by cost among the
 * algorithms the op allows. */
int pcoll__select_reduce_scatter(const pcoll__rs_args_t *a, int p);

#endif
