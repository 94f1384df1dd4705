/*
 * The one entry path.  Every public collective call (persistent *_init,
 * one-shot, and the drop-in's non-blocking plans) runs through
 * pcoll__entry():
 *
 *   validate -> context -> cache lookup -> choose -> build -> commit
 *
 * A collective is a descriptor (pcoll__coll_t): how its arguments are
 * checked, how ranks agree on them, its one-shot cache key, its table of
 * algorithms and its choice.  The path owns everything else: the plan
 * pointer, the communicator check, the options, the context, the agreement
 * before anything is built, the tags, the one-shot cache, MPI_IN_PLACE
 * staging, building and committing the schedule, and running one-shot
 * plans.  Adding a collective means a descriptor (src/api/<name>.c) and its
 * algorithm files.
 */
#ifndef PCOLL_API_ENTRY_H
#define PCOLL_API_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "base/algo.h"
#include "base/options.h"
#include "core/comm.h"
#include "api/shape.h"
#include "core/plan.h"
#include "core/region.h"
#include "select/select.h"

/* The ways into the path. */
typedef enum pcoll__mode {
    PCOLL__PERSISTENT, /* *_init: collective; agreement first, a tag of its own */
    PCOLL__ONESHOT,    /* blocking call: cached plan, run once */
    PCOLL__LOCAL,      /* drop-in's non-blocking call: planned alone, fresh tag;
                          PCOLL__LOCAL_NATIVE where the MPI's own call serves it */
    PCOLL__PREPARE,    /* collective, no call run: the shape of a call like this one
                          decided now (entry.c "Prepared shapes") */
    PCOLL__LEASE       /* as LOCAL, but a lease on the shape's plan alone:
                          PCOLL__LEASE_NONE where the shape holds none */
} pcoll__mode_t;

/* The builder's argument struct lives in the call (no allocation on the
 * one-shot path); every collective's struct must fit. */
#define PCOLL__ARGS_MAX 512
/* Room in the call for each of the descriptor's two temporaries
 * (pcoll__call_scratch): the per-peer or per-edge arrays of a call on up
 * to 128 ranks or 170 edges need no allocation. */
#define PCOLL__CALL_ROOM 4096

/* A one-shot cache key: the path's part (the options) then the
 * collective's (arguments), and the derived datatypes it names, which the
 * cache watches.  A key naming more than the cache can watch sets ntypes to
 * PCOLL__KEY_UNCACHED: its plan is built, run and freed on every call. */
#define PCOLL__KEY_INLINE 512
#define PCOLL__KEY_UNCACHED (PCOLL__CACHE_TYPES + 1)
typedef struct pcoll__key {
    unsigned char *bytes;
    size_t len;
    MPI_Datatype types[PCOLL__CACHE_TYPES];
    int ntypes;
    _Alignas(max_align_t) unsigned char inline_bytes[PCOLL__KEY_INLINE];
} pcoll__key_t;

typedef struct pcoll__call pcoll__call_t;
typedef struct pcoll__coll pcoll__coll_t;

struct pcoll__call {
    const pcoll__coll_t *coll;
    pcoll__mode_t mode;
    const char *fn;       /* the public name, for messages */
    const void *raw;      /* the public call's arguments (the collective's struct) */
    MPI_Comm comm;        /* the communicator planned on */
    MPI_Info info;
    pcoll_plan_t **plan;  /* persistent and local: where the plan goes */
    int inter;            /* comm is an intercommunicator */
    int p, rank;          /* of comm; p: the peers of the buffers' blocks (on an
                           * intercommunicator the remote group's size, or the
                           * local group's: pcoll__coll_t's inter) */
    pcoll__ctx_t *ctx;
    pcoll__opts_t opts;   /* also copied into c->args at opts_offset */
    /* Filled by the descriptor's check. */
    int inplace;          /* the caller passed MPI_IN_PLACE */
    int empty;            /* nothing to move: no builder runs */
    int algo;             /* the chosen algorithm's index in the table */
    void *tmp[2];         /* the descriptor's temporaries, freed by the path */
    /* A shape's plan being made (entry.c "Shapes"): stand-in buffers to bind
     * before building (NULL: none), and stop before building unless the
     * choice plans collectively. */
    pcoll__region_t *regions;
    int shaping;
    /* A shape decided again: the algorithm of the plan it holds (NULL:
     * none); the same choice keeps that plan (nothing built). */
    const char *kept;
    /* One-shot: the plan the call runs is what any call with its arguments
     * would run until the cache or the environment changes (no shape, or a
     * shape decided for the cache by arguments: flat, that shape's entry). */
    int repeatable;
    pcoll__cache_entry_t *flat;
    /* The call decided its shape (by_shape). */
    int decided;
    /* A shape decided again: the share of its calls that repeated the call
     * before them, arrays and all, per mille, the least over the ranks (0:
     * unknown).  Those calls skip pcoll's checks of the arguments (entry.c
     * "Steady calls"). */
    int steady;
    _Alignas(max_align_t) unsigned char args[PCOLL__ARGS_MAX];
    _Alignas(max_align_t) unsigned char room[2][PCOLL__CALL_ROOM];
};

/* A collective.  Hooks get the call; NULL hooks are skipped. */
struct pcoll__coll {
    const char *name;                 /* plan->collective */
    const pcoll__algo_table_t *table;
    size_t opts_offset;               /* where pcoll__opts_t sits in the args */
    /* Local checks of c->raw (every rank alone, nothing communicated): fill
     * c->args, c->inplace and c->empty.  Allocations go to c->tmp. */
    int (*check)(pcoll__call_t *c);
    /* Collective, before the agreement (the multiple all-to-all: the
     * communicator to plan on, made from two).  Combines the verdict local
     * over the ranks; may replace c->comm.  Undone by close. */
    int (*open)(pcoll__call_t *c, int local);
    void (*close)(pcoll__call_t *c);
    /* Persistent init, collective over c->ctx->dup: combine every rank's
     * verdict (local) and make sure the ranks agree on what must be equal. */
    int (*agree)(pcoll__call_t *c, int local);
    /* The one-shot cache key of c->raw (pcoll__key_put). */
    int (*key)(pcoll__call_t *c, pcoll__key_t *k);
    /* The algorithm: the requested one, or the automatic choice (which may
     * communicate when c->mode is PCOLL__PERSISTENT and not no_comm). */
    int (*choose)(pcoll__call_t *c);
    /* On the new plan, before building: keep what the plan needs of the
     * caller's arrays and types (the caller may free them after init) and
     * refuse what the chosen algorithm cannot serve. */
    int (*prepare)(pcoll__call_t *c, pcoll_plan_t *plan);
    /* MPI_IN_PLACE for an algorithm without PCOLL__ALGO_INPLACE: a copy of
     * the input made at the start of every run (NULL: refused). */
    int (*stage)(pcoll__call_t *c, pcoll_plan_t *plan);
    /* One-shot calls by shape (entry.c "Shapes"; NULL: none).  shape: the
     * key of c->raw that every rank of the communicator computes alike
     * (sizes in bytes, no buffer, no local handle), or PCOLL_ERR_UNSUPPORTED
     * for a call that has none (the same on every rank).  views: the call's
     * send and receive buffers (v[0] absent in place; with MPI_IN_PLACE the
     * receive buffer is also the input).  rebase: a copy of raw, raw_size
     * bytes, with the buffers at bufs. */
    int (*shape)(pcoll__call_t *c, pcoll__key_t *k);
    void (*views)(const pcoll__call_t *c, const void *raw, pcoll__view_t v[2]);
    void (*rebase)(const void *raw, void *out, void *const bufs[2]);
    size_t raw_size;
    /* It serves intercommunicators (with its table's PCOLL__ALGO_INTER
     * algorithms; its hooks see as c->p the remote group's size,
     * PCOLL__INTER_REMOTE: the all-to-alls, whose blocks are the remote
     * ranks', or the local group's, PCOLL__INTER_LOCAL: reduce-scatter,
     * whose counts are); others (0) refuse them with PCOLL_ERR_UNSUPPORTED. */
    int inter;
    /* Its table's `native` makes the MPI's call on the call's arguments as
     * given (alltoallw's does not: it stands MPI_BYTE for MPI_DATATYPE_NULL):
     * the drop-in's non-blocking call may make it instead of a plan
     * (PCOLL__LOCAL_NATIVE). */
    int native_as_given;
    /* Shapes whose plan serves any sizes (alltoallv, the neighbourhood
     * calls: counts are not in the shape; views and rebase unused): keep
     * fills the shape's plan (made by the path, on a tag of its own) for
     * the chosen algorithm, one with PCOLL__ALGO_KEPT (collective, at the
     * deciding call, after the agreement and the choice, instead of
     * building on stand-in buffers); binder binds each call's checked
     * arguments (c->args) to it. */
    int (*keep)(pcoll__call_t *c, pcoll_plan_t *plan);
    const pcoll__shape_binder_t *binder;
    /* With keep: this rank's bytes as the choice weighs them, from the
     * checked arguments (c->args).  A shape is decided again (entry.c
     * next_recheck) only where some rank's left half to twice what it was
     * at the last decision. */
    long long (*volume)(pcoll__call_t *c);
    /* Repeated one-shot calls (entry.c "Repeats"; NULL: never repeated):
     * every argument of raw as words (pointers, counts, handles; at most
     * PCOLL__CALL_WORDS), the send and the receive buffer first: two calls
     * with equal words are the same call.  0 for a call never repeated. */
    int (*words)(const void *raw, uintptr_t w[]);
    /* Optional, with words: the arrays the call also reads (reduce_scatter's
     * counts, alltoallv's counts and displacements: p entries each, p the
     * blocks of a call on ctx's communicator; the neighbourhood calls':
     * the degrees of ctx's topology), at most PCOLL__CALL_ARRAYS, into at[]
     * and bytes[] (0: not read; at NULL with bytes: never repeated);
     * returns how many.  Two calls are the same call only where these
     * bytes are equal too (at most PCOLL__CALL_ARRAY in all: longer ones
     * are never repeated). */
    int (*arrays)(const void *raw, const pcoll__ctx_t *ctx, int p, const void *at[],
                  size_t bytes[]);
    /* Optional, with arrays, for a collective whose one-shot choice reads
     * none of them: a repeat whose plan is the table's `native` makes the
     * MPI's call with the call's own arrays on comm (the plan's), and
     * compares no array.  Returns the MPI's error code, or
     * PCOLL__FORWARD_DECLINED where it cannot (a negative count: the full
     * path then checks the call; a form it does not forward). */
    int (*forward)(const void *raw, const pcoll__ctx_t *ctx, MPI_Comm comm);
    /* Optional, for a collective that is a case of another (alltoall of
     * alltoallv): a local call whose own shape holds no plan and whose
     * choice is automatic is served, where the other's shape for the call
     * holds one, by a lease on it (the other's path in PCOLL__LEASE mode
     * into c->plan); PCOLL__LEASE_NONE where it holds none. */
    int (*lease_kin)(pcoll__call_t *c);
};

#define PCOLL__FORWARD_DECLINED (-1)

/* pcoll__entry in PCOLL__LOCAL mode: the choice is the table's `native`
 * and no plan was made; the caller makes the MPI's own non-blocking call
 * with the call's arguments (pcoll__last_run_algorithm names it). */
#define PCOLL__LOCAL_NATIVE 1

/* pcoll__entry in PCOLL__LEASE mode: the shape holds no plan (nothing
 * made). */
#define PCOLL__LEASE_NONE 2

/* For forward: whether n int counts are all >= 0, and n displacements too
 * unless negative ones are accepted (the checks' rule). */
static inline int pcoll__counts_ok(const int *counts, const int *displs, int n, int negative_ok)
{
    int i, bad = 0, mask = negative_ok ? 0 : -1;
    for (i = 0; i < n; i++)
        bad |= counts[i] | (displs[i] & mask);
    return bad >= 0;
}

#define PCOLL__CALL_WORDS 8
#define PCOLL__CALL_ARRAYS 6
#define PCOLL__CALL_ARRAY 512
/* One-shot calls this thread ran as repeats (entry.c "Repeats"). */
unsigned long pcoll__repeats(void);

enum { PCOLL__INTER_REMOTE = 1, PCOLL__INTER_LOCAL = 2 };

/* The largest raw argument struct a descriptor with shapes may have. */
#define PCOLL__RAW_MAX 256

/* Run one public call of coll: raw is the collective's own struct of the
 * call's arguments, fn the public name (for messages), plan the output of
 * the persistent and local modes (NULL for one-shot). */
/* n bytes for the descriptor's temporary k (0 or 1), which live until the
 * call returns, checks again or asks for k again: the call's room where
 * they fit, else c->tmp[k] (NULL: out of memory). */
void *pcoll__call_scratch(pcoll__call_t *c, int k, size_t n);

int pcoll__entry(const pcoll__coll_t *coll, pcoll__mode_t mode, const char *fn, const void *raw,
                 MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan);

/* The job's shape as the automatic choice sees it for this call: started
 * plans (persistent and local), planned together (persistent init). */
static inline pcoll__shape_t pcoll__call_shape(const pcoll__call_t *c)
{
    return pcoll__shape_of(c->ctx, c->mode != PCOLL__ONESHOT,
                           c->mode == PCOLL__PERSISTENT && !c->opts.no_comm);
}

/* Room for len bytes of the collective's part of the key (zeroed); NULL
 * when memory runs out (the hook answers PCOLL_ERR_NOMEM). */
void *pcoll__key_put(pcoll__key_t *k, size_t len);
/* Name type in the key's list of types the cache watches (predefined types
 * and MPI_DATATYPE_NULL are not watched); past the list's room the plan is
 * not cached (k->ntypes PCOLL__KEY_UNCACHED: many derived types). */
void pcoll__key_watch(pcoll__key_t *k, MPI_Datatype type);

#endif
