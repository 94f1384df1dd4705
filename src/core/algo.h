/*
 * Algorithm tables.  Each collective has one table {name, description,
 * builder}; tests, benchmarks, documentation and option parsing all read it.
 * A builder fills a plan's schedule from the collective's argument struct;
 * it returns PCOLL_ERR_UNSUPPORTED for arguments it cannot handle.  The entry
 * "auto" has no builder: the collective chooses.
 */
#ifndef PCOLL_CORE_ALGO_H
#define PCOLL_CORE_ALGO_H

#include "pcoll.h"

typedef struct pcoll__algo {
    const char *name;
    const char *desc;
    int (*build)(pcoll_plan_t *plan, const void *args);
} pcoll__algo_t;

typedef struct pcoll__algo_table {
    const char *collective;   /* "alltoall" */
    const char *env;          /* "PCOLL_ALLTOALL_ALGORITHM" */
    const pcoll__algo_t *algos;
    int count;
} pcoll__algo_table_t;

/* Index of name in the table, or -1. */
int pcoll__algo_find(const pcoll__algo_table_t *t, const char *name);

#endif
