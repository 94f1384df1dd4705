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
    int no_comm;         /* pcoll_no_comm: build and free plans, never communicate */
} pcoll__opts_t;

/* Read every option for table's collective.  Errors (unknown algorithm,
 * malformed values) return PCOLL_ERR_ARG and are printed when print is set. */
int pcoll__opts_read(MPI_Info info, const pcoll__algo_table_t *table, int print,
                     pcoll__opts_t *opts);

#endif
