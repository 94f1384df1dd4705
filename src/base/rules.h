/*
 * Tuning rules: the JSON file that pcoll-tune writes (docs/tuning.md), named
 * by the info key pcoll_tuning_file or PCOLL_TUNING_FILE.  A rule says which
 * algorithm (and which parameters) to take for one collective over a range
 * of communicator sizes, ranks per node and bytes per peer; the automatic
 * choice asks for the first rule that covers its case.
 *
 * Lifetime and threads: a file is read and parsed once per path per process
 * (the first load; later changes to the file are not seen) and the result
 * lives until the process ends, immutable, so any thread may use it without
 * a lock.  The list of loaded files is published under a mutex (rules.c).
 */
#ifndef PCOLL_BASE_RULES_H
#define PCOLL_BASE_RULES_H

#include "base/algo.h"

/* What a rule asks for: an algorithm and the parameters the rule names. */
typedef struct pcoll__rule {
    int algorithm;       /* index in the table passed to pcoll__rules_find */
    int radix;           /* the parameters, 0 where the rule does not set them */
    int ports;
    int throttle;
    int cores_per_node;
    int aux_buffers;
    long long aux_bytes;
} pcoll__rule_t;

/* A parsed file (opaque; immutable once loaded; never freed). */
typedef struct pcoll__rules pcoll__rules_t;

/* Load the rules file at path: parsed at the first call for that path (the
 * path as given, not resolved), then the same pointer for every later call.
 * The rules of table's collective (for the reduce_scatter table also those
 * of "reduce_scatter_block") must name algorithms of the table other than
 * "auto"; rules of other collectives are checked when their table loads the
 * file.  A file that cannot be read, is not valid JSON, or breaks a rule of
 * the format (unknown key or collective, wrong type, negative number,
 * lo > hi, duplicate key, text after the end, "pcoll_tuning" other than 1)
 * is refused whole: PCOLL_ERR_ARG with the message "<path>:<line>: <reason>"
 * (pcoll__error), *out NULL.  PCOLL_ERR_NOMEM when memory runs out.  A
 * refused file is read again at the next call. */
int pcoll__rules_load(const char *path, const pcoll__algo_table_t *table,
                      const pcoll__rules_t **out);

/* The first rule, in file order, for collective coll (table->collective, or
 * "reduce_scatter_block" for the block form, which the rules of
 * "reduce_scatter" serve as well) whose ranges contain the communicator size
 * p, the ranks per node rpn and bytes.  rpn 0 means unknown: a rule with a
 * ranks_per_node range then matches only if that range contains p (one node
 * holds every rank).  Returns 1 and fills *out (the algorithm as an index in
 * table), else 0.  r NULL: 0. */
int pcoll__rules_find(const pcoll__rules_t *r, const pcoll__algo_table_t *table,
                      const char *coll, int p, int rpn, long long bytes, pcoll__rule_t *out);

#endif
