/*
 * Algorithm tables.  Each collective has one table {name, description,
 * builder, flags}; tests, benchmarks, documentation and option parsing all
 * read it.  A builder fills a plan's schedule from the collective's argument
 * struct; it returns PCOLL_ERR_UNSUPPORTED for arguments it cannot handle.
 * The entry "auto" has no builder: the collective chooses.
 */
#ifndef PCOLL_BASE_ALGO_H
#define PCOLL_BASE_ALGO_H

#include "pcoll.h"

/* What the entry path must know of an algorithm. */
enum {
    /* Its planning communicates (collective over the communicator): never
     * cached by the one-shot calls (planned on every call instead), refused
     * where ranks plan alone (the drop-in's non-blocking calls). */
    PCOLL__ALGO_COLLECTIVE = 1u << 0,
    /* It serves MPI_IN_PLACE itself; others get a staged copy of the input
     * (or PCOLL_ERR_UNSUPPORTED where the collective cannot stage). */
    PCOLL__ALGO_INPLACE = 1u << 1,
    /* It needs a commutative reduction operation. */
    PCOLL__ALGO_COMMUTATIVE = 1u << 2,
    /* Its schedule touches the user's buffers by copies and reductions
     * only, and it has no engine or child plan of its own: built on
     * stand-in buffers (core/region.h), it serves any buffers.  Only these
     * of the collective ones serve the one-shot calls by shape (entry.c). */
    PCOLL__ALGO_REBIND = 1u << 3,
    /* It serves intercommunicators (the buffers' blocks are the remote
     * group's); on one, the entry path refuses every other algorithm. */
    PCOLL__ALGO_INTER = 1u << 4,
    /* A shape can keep it with no sizes in its key: the descriptor's keep
     * hook makes a plan whose runs take each call's sizes (entry.c). */
    PCOLL__ALGO_KEPT = 1u << 5
};

typedef struct pcoll__algo {
    const char *name;
    const char *desc;
    int (*build)(pcoll_plan_t *plan, const void *args);
    unsigned flags;
} pcoll__algo_t;

typedef struct pcoll__algo_table {
    const char *collective;   /* "alltoall" */
    const char *env;          /* "PCOLL_ALLTOALL_ALGORITHM" */
    const pcoll__algo_t *algos;
    int count;
} pcoll__algo_table_t;

/* Index of name in the table, or -1. */
int pcoll__algo_find(const pcoll__algo_table_t *t, const char *name);

/* Whether index (an option's value; -1: not set) leaves the choice to the
 * collective: not set, or the table's "auto" (the entry without a builder). */
static inline int pcoll__algo_is_auto(const pcoll__algo_table_t *t, int index)
{
    return index < 0 || index >= t->count || !t->algos[index].build;
}

#endif
