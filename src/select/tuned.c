/*
 * The automatic choice from a tuning file (base/rules.h, docs/tuning.md):
 * where a rule of the file covers the case, it decides, and the parameters
 * it names are used where the options set none.  An algorithm the options
 * name wins over the file; a rule naming an algorithm whose planning
 * communicates (hier, the alltoallv Bruck variants, inplace) decides only
 * for plans made by every rank together (persistent init): elsewhere the
 * cost model decides.
 */
#include "base/rules.h"
#include "select/select.h"

/* The rule's parameters into opts where the options set none. */
static void apply(const pcoll__rule_t *rule, pcoll__opts_t *opts)
{
#define TAKE(field) \
    if (!opts->field) \
    opts->field = rule->field
    TAKE(radix);
    TAKE(ports);
    TAKE(throttle);
    TAKE(cores_per_node);
    TAKE(aux_buffers);
    TAKE(aux_bytes);
#undef TAKE
}

int pcoll__select_rule(const pcoll__algo_table_t *t, const char *coll,
                       const pcoll__opts_t *opts, const pcoll__shape_t *s, long long bytes,
                       int (*usable)(int algo, const void *args), const void *args,
                       pcoll__opts_t *tuned)
{
    pcoll__rule_t rule;
    if (!opts->rules || !pcoll__algo_is_auto(t, opts->algorithm) ||
        !pcoll__rules_find(opts->rules, t, coll, s->p, s->rpn, bytes, &rule))
        return -1;
    /* One-shot and local plans are made by each rank alone. */
    if ((t->algos[rule.algorithm].flags & PCOLL__ALGO_COLLECTIVE) && !s->together)
        return -1;
    if (usable && !usable(rule.algorithm, args))
        return -1;
    if (tuned)
        apply(&rule, tuned);
    return rule.algorithm;
}
