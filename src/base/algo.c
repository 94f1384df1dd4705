/*
 * Lookups in an algorithm table (algo.h).
 */
#include <string.h>

#include "base/algo.h"

int pcoll__algo_find(const pcoll__algo_table_t *t, const char *name)
{
    int i;
    for (i = 0; i < t->count; i++)
        if (strcmp(t->algos[i].name, name) == 0)
            return i;
    return -1;
}
