/*
 * Options from MPI_Info keys and PCOLL_* environment variables (DESIGN.md).
 * The environment overrides info; the per-collective variable
 * (PCOLL_ALLTOALL_ALGORITHM) overrides PCOLL_ALGORITHM.  0 means "not set".
 */
#ifndef PCOLL_CORE_OPTIONS_H
#define PCOLL_CORE_OPTIONS_H

#include "core/algo.h"
#include "pcoll.h"

typedef struct pcoll__opts {
    int algorithm;       /* index in the collective's table; -1 = not set */
    int radix;
    int ports;
    int throttle;
    int cores_per_node;
    int aux_buffers;
    long long aux_bytes;
    int regular_ratio;   /* alltoallv: zero-copy Bruck needs max <= ratio * min */
    int no_comm;         /* pcoll_no_comm: build and free plans, never communicate */
    int normalize;       /* pcoll_normalize: plans keep user types normalized */
} pcoll__opts_t;

/* A flag option: the environment variable env, else the info key; "1",
 * "true", "0" or "false" (anything else is PCOLL_ERR_ARG, printed when print
 * is set); *value is 0 when neither is set. */
int pcoll__opts_flag(MPI_Info info, const char *key, const char *env, int print, int *value);

/* Read every option for table's collective.  Errors (unknown algorithm,
 * malformed values) return PCOLL_ERR_ARG and are printed when print is set. */
int pcoll__opts_read(MPI_Info info, const pcoll__algo_table_t *table, int print,
                     pcoll__opts_t *opts);

#endif
