/*
 * The node-aware engine in the automatic choice of persistent plans: hier
 * instead of the flat choice where no tuning rule decides the case and the
 * model predicts hier faster by its margin (collective over ctx->dup: it
 * finds the nodes).
 */
#include "hier/hier.h"
#include "model/cost.h"
#include "select/select.h"

int pcoll__select_hier(pcoll__ctx_t *ctx, const pcoll__algo_table_t *t, const char *coll,
                       const pcoll__opts_t *opts, long long rule_bytes,
                       int (*usable)(int algo, const void *args), const void *args, long long n,
                       double flat)
{
    pcoll__shape_t s = pcoll__shape_of(ctx, 1, 1);
    pcoll__cost_t c = pcoll__select_cost(&s);
    if (pcoll__select_rule(t, coll, opts, &s, rule_bytes, usable, args, NULL) >= 0)
        return 0;
    return pcoll__hier_pays(ctx, opts, n, flat / (1.0 + c.margin));
}
