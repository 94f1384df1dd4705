/*
 * The algorithm tables of every collective, for pcoll_algorithm_name and
 * pcoll_algorithm_description (tests, benchmarks and docs iterate them).
 */
#include <string.h>

#include "select/select.h"

static const pcoll__algo_table_t *const tables[] = {&pcoll__alltoall_table,
                                                    &pcoll__alltoall_multi_table,
                                                    &pcoll__alltoallv_table,
                                                    &pcoll__alltoallv_inplace_table,
                                                    &pcoll__alltoallw_table,
                                                    &pcoll__neighbor_table,
                                                    &pcoll__neighbor_inplace_table,
                                                    &pcoll__reduce_scatter_table};

static const pcoll__algo_t *lookup(const char *collective, int index)
{
    size_t i;
    if (!collective || index < 0)
        return NULL;
    if (strcmp(collective, "reduce_scatter_block") == 0)
        collective = "reduce_scatter"; /* both forms share one table */
    if (strcmp(collective, "neighbor_alltoallv") == 0 ||
        strcmp(collective, "neighbor_alltoallw") == 0)
        collective = "neighbor_alltoall"; /* the three forms share one table */
    for (i = 0; i < sizeof tables / sizeof *tables; i++)
        if (strcmp(tables[i]->collective, collective) == 0)
            return index < tables[i]->count ? &tables[i]->algos[index] : NULL;
    return NULL;
}

const char *pcoll_algorithm_name(const char *collective, int index)
{
    const pcoll__algo_t *a = lookup(collective, index);
    return a ? a->name : NULL;
}

const char *pcoll_algorithm_description(const char *collective, int index)
{
    const pcoll__algo_t *a = lookup(collective, index);
    return a ? a->desc : NULL;
}
