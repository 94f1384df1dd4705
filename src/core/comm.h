/*
 * Communicator contexts.  The first pcoll call on a communicator (collective)
 * duplicates it; the duplicate carries all library traffic.  The context is
 * stored as an attribute of the user's communicator and holds the one-shot
 * plan cache.  It is reference-counted: the attribute holds one reference and
 * every plan one more, so the duplicate lives until the user's communicator
 * is freed (or MPI is finalized) and the last plan on it is gone.
 *
 * Tags: one-shot plans are blocking and run one at a time, so they share
 * PCOLL__ONESHOT_TAG; each persistent plan gets its own tag from a counter
 * that advances identically on every rank, because init is collective.
 *
 * Threads (include/pcoll.h "Threads"): a context belongs to its communicator,
 * which one thread at a time uses, so what is per communicator (the cache's
 * keys, plans and clock, the tag counter, the reference count, the node
 * topologies, the neighbourhood topology) takes no lock.  What is per
 * process is synchronized in comm.c: the keyvals (made once), the list of
 * contexts, and the fields of every cache entry that a datatype's delete
 * callback, run by whichever thread frees the type, reads or writes in
 * every context (types, ntypes, stale).
 */
#ifndef PCOLL_CORE_COMM_H
#define PCOLL_CORE_COMM_H

#include <stdatomic.h>
#include <stddef.h>

#include "pcoll.h"

#define PCOLL__CACHE_SIZE 16
#define PCOLL__CACHE_TYPES 4
#define PCOLL__ONESHOT_TAG 0
/* Shapes (below): entries per communicator. */
#define PCOLL__SHAPES 8

typedef struct pcoll__cache_entry {
    void *key;               /* the collective's serialized arguments */
    size_t keylen;
    MPI_Datatype types[PCOLL__CACHE_TYPES]; /* derived types in the key */
    int ntypes;              /* types and ntypes: written under comm.c's lock */
    pcoll_plan_t *plan;
    void (*destroy)(pcoll_plan_t *plan); /* how the cache frees it */
    unsigned long long stamp; /* last use, for LRU eviction */
    atomic_int stale;        /* a datatype in the key was freed (any thread) */
    /* Shapes only: calls seen, the owner's verdict, the call at which the
     * owner may decide again (0: never) and what it weighs then, and its
     * record of the call the plan was built for (freed with aux_free). */
    unsigned long long calls;
    unsigned long long recheck;
    long long volume;         /* this rank's at the last decision (-1: none) */
    /* The calls noted since the last decision (entry.c "Steady calls"),
     * one bit each, the newest lowest: 1 where it repeated the call before
     * it, arrays and all; how many (at most 64); the share of such calls
     * the last decision weighed, per mille (0: none known). */
    unsigned long long recent;
    int noted;
    int steady_share;
    int verdict;
    unsigned long long born;  /* when the entry took its key */
    void *aux;
    void (*aux_free)(void *aux);
} pcoll__cache_entry_t;

/* A communicator's neighbourhood topology as the neighbourhood collectives
 * read it (neighbor/topo.c: at their first call with the context, then
 * never again: a communicator's topology never changes in its life).
 * kind: MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH; folded: Cartesian with a
 * periodic dimension of 1 or 2 ranks; ranks: the sources (indegree) then
 * the destinations (outdegree), in MPI's order, owned by the context. */
typedef struct pcoll__ctx_topo {
    int known; /* 0: not read yet (or the communicator has none) */
    int kind, indegree, outdegree, folded;
    int *ranks;
} pcoll__ctx_topo_t;

typedef struct pcoll__ctx {
    /* First, together: what a one-shot call's repeat reads and counts
     * (entry.c "Repeats"), so that it touches few cache lines.  Changes of
     * the entries below: one that held a key emptied (evicted, replaced,
     * dropped) or a type of one freed (any thread), a shape given a plan. */
    atomic_ulong changes;
    atomic_ulong planned; /* shapes given a plan (pcoll__ctx_change), ever */
    unsigned long long clock, shape_clock; /* the cache's and the shapes' uses */
    pcoll__ctx_topo_t topo;    /* the neighbourhood topology, once read */
    MPI_Comm user;           /* MPI_COMM_NULL once the user's comm is gone */
    MPI_Comm dup;
    MPI_Comm ctl;            /* a second duplicate for handshakes (never matches data) */
    int size, rank;          /* of the communicator (of the local group) */
    /* An intercommunicator: the remote group's size (0: an
     * intracommunicator), the two groups merged into one intracommunicator
     * for agreements (MPI_Intercomm_merge; an intracommunicator's whole is
     * dup), and whether this group comes second in it. */
    int remote;
    MPI_Comm whole;
    int high;
    int ranks_per_node;      /* the most ranks that share memory (MPI_COMM_TYPE_SHARED) */
    /* MPI_Reduce_local fails on some rank (core/defects.h: Open MPI 5 under
     * MPI sessions alone), agreed over every rank when the context is made:
     * the schedules that reduce locally refuse to plan here. */
    int no_reduce_local;
    int refs;
    int next_tag, tag_ub;
    pcoll__cache_entry_t cache[PCOLL__CACHE_SIZE];
    /* Shapes: one-shot calls keyed by what every rank of the communicator
     * knows alike (no buffer, no local handle), so that every rank finds or
     * misses an entry together: the one-shot calls' collectively made plans
     * live here.  Lookups and evictions follow the calls' order, which MPI
     * makes the same on every rank; a shape's plan is freed on every rank at
     * the same call (collective frees, such as a shared window's, are safe).
     * Their types are the local handles the plan was built for, watched as
     * the cache's are: stale says one was freed (the plan stays valid). */
    pcoll__cache_entry_t shape[PCOLL__SHAPES];
    /* The last call looked up by shape, keyed by its arguments as the cache
     * above keys them (every buffer and handle; its types watched): the
     * shape it had, as long as that entry keeps the key it had then. */
    pcoll__cache_entry_t memo;
    int memo_shape;
    unsigned long long memo_born;
    struct pcoll__node *nodes; /* cached node topologies (core/node.h) */
    struct pcoll__ctx *next;
} pcoll__ctx_t;

/* The context of comm, created (collectively) on first use. */
int pcoll__ctx_get(MPI_Comm comm, pcoll__ctx_t **ctx);
/* 1 and *ctx when MPI is up and comm already has a context (so it passed
 * pcoll__check_comm when the context was made), else 0; creates nothing. */
int pcoll__ctx_known(MPI_Comm comm, pcoll__ctx_t **ctx);
/* How many contexts have been detached from their communicators (freed, or
 * by MPI_Finalize): a context known for a communicator stays its context
 * while this count does not move. */
unsigned long pcoll__ctx_detached(void);
/* The count of ctx's changes (a repeated call's plan stands while it does
 * not move; read only while ctx lives: pcoll__ctx_detached unmoved). */
static inline unsigned long pcoll__ctx_changes(pcoll__ctx_t *ctx)
{
    return atomic_load_explicit(&ctx->changes, memory_order_acquire);
}
/* A change of ctx besides those the cache makes (a shape given a plan:
 * the drop-in's non-blocking calls remembered, entry.c, may lease it). */
static inline void pcoll__ctx_change(pcoll__ctx_t *ctx)
{
    atomic_fetch_add_explicit(&ctx->planned, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&ctx->changes, 1, memory_order_release);
}

/* Whether some shape of ctx has been given a plan. */
static inline int pcoll__ctx_planned(pcoll__ctx_t *ctx)
{
    return atomic_load_explicit(&ctx->planned, memory_order_relaxed) != 0;
}
void pcoll__ctx_retain(pcoll__ctx_t *ctx);
void pcoll__ctx_release(pcoll__ctx_t *ctx);   /* NULL-safe */
/* The tag for a new persistent plan. */
int pcoll__ctx_tag(pcoll__ctx_t *ctx);

/* The cached plan for key, or NULL. */
pcoll_plan_t *pcoll__cache_find(pcoll__ctx_t *ctx, const void *key, size_t keylen);

/* An entry of the cache or of the shapes as a repeated call holds it: the
 * entry and when it took its key (a count never reused, so an entry emptied
 * and filled again is not taken for the one remembered). */
typedef struct pcoll__cache_ref {
    pcoll__cache_entry_t *e;
    unsigned long long born;
} pcoll__cache_ref_t;

/* The cache entry holding plan ({NULL, 0} when none does). */
pcoll__cache_ref_t pcoll__cache_ref(pcoll__ctx_t *ctx, const pcoll_plan_t *plan);
/* The memo when it holds key ({NULL, 0} otherwise). */
pcoll__cache_ref_t pcoll__shape_memo_ref(pcoll__ctx_t *ctx, const void *key, size_t keylen);
/* A ref's entry holds what it held while ctx's changes (pcoll__ctx_changes)
 * stay as they were.  A use of a cache entry's ref, as pcoll__cache_find
 * counts one; of a shape's, as pcoll__shape_get and the shape's lookup do. */
static inline void pcoll__cache_ref_use(pcoll__ctx_t *ctx, pcoll__cache_ref_t r)
{
    r.e->stamp = ++ctx->clock;
}

static inline void pcoll__shape_ref_use(pcoll__ctx_t *ctx, pcoll__cache_ref_t r)
{
    r.e->stamp = ++ctx->shape_clock;
    r.e->calls++;
}

/* Hand plan to the cache under key; types are the datatypes the key names;
 * the cache frees the plan with destroy (given by the plan's owner, so that
 * contexts and plans, which hold each other, do not call each other). */
int pcoll__cache_add(pcoll__ctx_t *ctx, const void *key, size_t keylen,
                     const MPI_Datatype *types, int ntypes, pcoll_plan_t *plan,
                     void (*destroy)(pcoll_plan_t *plan));

/* The shape entry for key (the same bytes on every rank), made when missing
 * and add is set (evicting the least recently used one, whose record and
 * plan are freed: the same entry on every rank).  NULL when missing and not
 * added, or when memory runs out. */
pcoll__cache_entry_t *pcoll__shape_get(pcoll__ctx_t *ctx, const void *key, size_t keylen,
                                       int add);
/* The shape of the last call looked up by shape when this call's
 * arguments (key: the cache's key of them) are that call's, its use
 * counted as pcoll__shape_get counts it; else NULL. */
pcoll__cache_entry_t *pcoll__shape_memo(pcoll__ctx_t *ctx, const void *key, size_t keylen);
/* Remember that the call with arguments key (naming types) had shape e. */
void pcoll__shape_remember(pcoll__ctx_t *ctx, pcoll__cache_entry_t *e, const void *key,
                           size_t keylen, const MPI_Datatype *types, int ntypes);
/* Give the shape e its plan (freed with destroy), the record aux (freed
 * with aux_free) and the local types to watch; stale is cleared. */
int pcoll__shape_set(pcoll__cache_entry_t *e, pcoll_plan_t *plan,
                     void (*destroy)(pcoll_plan_t *plan), void *aux, void (*aux_free)(void *aux),
                     const MPI_Datatype *types, int ntypes);

/* Empty the shape e of its plan, record and verdict (0), keeping its key,
 * its calls and its place in the order of use: the owner decides it again.
 * A change of ctx (repeats of it stop). */
void pcoll__shape_undecide(pcoll__ctx_t *ctx, pcoll__cache_entry_t *e);

/* Checks shared by every collective's entry points: MPI initialized, comm
 * valid, and an intracommunicator unless inter (the collective serves
 * intercommunicators). */
int pcoll__check_comm(MPI_Comm comm, int inter, const char *fn);

#endif
