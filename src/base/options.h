/*
 * Options from MPI_Info keys and PCOLL_* environment variables (DESIGN.md).
 * The environment overrides info; the per-collective variable
 * (PCOLL_ALLTOALL_ALGORITHM) overrides PCOLL_ALGORITHM.  0 means "not set".
 */
#ifndef PCOLL_BASE_OPTIONS_H
#define PCOLL_BASE_OPTIONS_H

#include "base/algo.h"
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
    int verbose;         /* pcoll_verbose: print errors where they are raised */
    int progress_thread; /* pcoll_progress: 0 "wait" (the default), 1 "thread" */
    /* pcoll_tuning_file: the loaded rules file (base/rules.h), checked for
     * the collective's table; NULL when no tuning file is named or the
     * algorithm is named (then the file is not read).  Lives
     * until the process ends (never freed). */
    const struct pcoll__rules *rules;
    /* pcoll_gpu_host_algorithm: the host algorithm gpu_staged runs on its
     * host copies (index in the collective's table; -1 = the host auto
     * choice).  gpu_child: the one chosen, set by the choice (not an option). */
    int gpu_host_algorithm;
    const pcoll__algo_t *gpu_child;
} pcoll__opts_t;

/* A flag option: the environment variable env, else the info key; "1",
 * "true", "0" or "false" (anything else is PCOLL_ERR_ARG); *value is 0 when
 * neither is set. */
int pcoll__opts_flag(MPI_Info info, const char *key, const char *env, int *value);

/* Read every option for table's collective.  Errors (unknown algorithm,
 * malformed values, a tuning file that cannot be read or is refused:
 * pcoll__rules_load) return PCOLL_ERR_ARG.  Sets this thread's verbosity
 * (pcoll__set_verbose) from pcoll_verbose for the rest of the call. */
int pcoll__opts_read(MPI_Info info, const pcoll__algo_table_t *table, pcoll__opts_t *opts);
/* A count that moves whenever the calling thread finds the environment
 * changed since it last read it (so options read before may no longer
 * hold). */
unsigned long pcoll__opts_epoch(void);

#endif
