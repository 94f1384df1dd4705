/*
 * In-place alltoallv with limited memory (Hofmann and Ruenger, "An In-place
 * Algorithm for Irregular All-to-All Communication with Limited Memory",
 * section 3): the state shared by src/alltoallv/inplace*.c and the entry
 * points the alltoallv collective calls.
 *
 * Indices are items of the user's datatype counted from buf (item i lies at
 * buf + i * extent), as the paper's index sets are.  S_i (sendcounts[i] items
 * from sdispls[i]) leaves for rank i; R_j (recvcounts[j] items from
 * rdispls[j]) receives from rank j.
 *
 * Files: inplace.c (entry points, setup), inplace_layout.c (checks and the
 * splitting of 3.2), inplace_run.c (the phase loop of 3.1 as start/test),
 * inplace_phase.c (receivable counts of 3.3, the request and data exchange),
 * inplace_update.c (the update of 3.4), inplace_aux.c (the auxiliary
 * buffers of 3.5), inplace_move.c (typed local moves), inplace_cost.c (the
 * choice against pairwise exchange), inplace_state.c (its memory).
 */
#ifndef PCOLL_ALLTOALLV_INPLACE_INPLACE_H
#define PCOLL_ALLTOALLV_INPLACE_INPLACE_H

#include "alltoallv/alltoallv.h"
#include "base/algo.h"
#include "base/options.h"
#include "core/plan.h"
#include "model/cost.h"

/* Default additional memory a (pcoll_aux_bytes): 1 MiB. */
#define PCOLL__IP_AUX_BYTES (1LL << 20)
/* At most this many send subsets are offered to one peer per phase. */
#define PCOLL__IP_PIECES 8
/* A control message: items granted into R_j, items granted into the aux
 * buffer, the number of pieces offered, their lengths. */
#define PCOLL__IP_CTL (3 + PCOLL__IP_PIECES)
/* Items of a non-contiguous type are moved through a staging buffer of at
 * most this many bytes (at least one item, at most pcoll_aux_bytes). */
#define PCOLL__IP_STAGE_BYTES (64 * 1024)

/* One send subset S_i^k (section 3.2): contiguous items of the message to
 * `peer`, inside the receive set R_rset (rmatch) or in none (rset = -1). */
typedef struct pcoll__ip_sub {
    long long lo;  /* first unsent item; moves toward higher indices (3.4) */
    long long len; /* items not sent yet */
    int peer;
    int rset;
} pcoll__ip_sub_t;

/* One auxiliary buffer (section 3.5): it serves one peer at a time, the
 * first that asks while it is empty, and holds that peer's next items in
 * arrival order, in the signature form of the type (size bytes each). */
typedef struct pcoll__ip_aux {
    int owner;            /* -1: empty */
    long long head, tail; /* items [head, tail) of the buffer are held */
} pcoll__ip_aux_t;

typedef enum pcoll__ip_step {
    PCOLL__IP_REQUESTS, /* the request exchange of a phase is in flight */
    PCOLL__IP_DATA,     /* the data exchange of a phase is in flight */
    PCOLL__IP_DONE
} pcoll__ip_step_t;

typedef struct pcoll__ip {
    /* Fixed at init. */
    char *buf;
    MPI_Datatype type, sig; /* the user's type, its signature type */
    MPI_Aint extent;
    int size;       /* bytes of one item */
    int contiguous; /* items are dense bytes: moves are memmove */
    int p, rank, tag;
    MPI_Comm comm, ctl; /* data, and the requests (control) */
    int nsub;
    pcoll__ip_sub_t *sub0;  /* initial subsets, peer by peer in message order */
    int *sfirst;            /* peer i's: sub[sfirst[i]] .. sub[sfirst[i+1]-1] */
    int *rorder, *rfirst;   /* R_j's, lowest first: rorder[rfirst[j] .. rfirst[j+1]-1] */
    long long *rbeg, *rend; /* R_j = [rbeg[j], rend[j]) */
    int nbuf;               /* b (at most p) */
    long long cap;          /* items per auxiliary buffer */
    char *auxmem;
    char *stage; /* non-contiguous types only */
    int stage_items;
    /* The state of a run. */
    pcoll__ip_step_t step;
    long long phases; /* phases of the last run */
    long long moved;  /* items moved up by the updates of the last run */
    pcoll__ip_sub_t *sub;
    int *scur;       /* peer i's first subset with unsent items */
    long long *srem; /* items still to send to peer i */
    int *rcur;       /* smatch(R_j): rorder[rcur[j]], or none at rfirst[j+1] */
    long long *rlo;  /* R_j's first item not received in place */
    long long *auxn; /* items of peer j waiting in its aux buffer */
    pcoll__ip_aux_t *aux;
    int *out, *in;         /* control messages, PCOLL__IP_CTL ints per peer */
    long long *tin, *tout; /* items received from / sent to each peer this phase */
    int *peers, npeers;    /* the peers exchanged with in this phase */
    MPI_Request *req;
    int nreq;
} pcoll__ip_t;

/* ---- builders and the choice (inplace.c, inplace_cost.c) ---------------- */

/* pcoll_alltoallv_inplace_init's arguments: one buffer, two layouts. */
typedef struct pcoll__ip_args {
    void *buf;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype type;
    pcoll__opts_t opts;
} pcoll__ip_args_t;

/* Builders: pcoll_alltoallv_inplace_init's (pcoll__ip_args_t), and alltoallv
 * `inplace` (pcoll__a2av_args_t; MPI_IN_PLACE only, the receive layout for
 * both directions). */
int pcoll__alltoallv_inplace_layouts(pcoll_plan_t *plan, const void *args);
int pcoll__alltoallv_inplace(pcoll_plan_t *plan, const void *args);

/* A valid, committed type whose items do not lie on top of each other;
 * *size is the bytes of one item (PCOLL_ERR_ARG otherwise). */
int pcoll__ip_check_type(MPI_Datatype type, int *size, const char *fn);

/* After pcoll__plan_create: make `plan` run the in-place algorithm on buf
 * (sets plan->ops, plan->priv, plan->algorithm = "inplace").  Checks the
 * layout (PCOLL_ERR_ARG: negative counts or displacements, overlapping send
 * blocks or receive blocks, aux memory below one item per aux buffer) and
 * copies what it needs: the caller's arrays may be freed on return.  Does
 * not communicate: counts that disagree between ranks are the caller's to
 * detect.  opts gives aux_bytes and aux_buffers (0: defaults); a type of
 * size 0 sets plan->no_comm (nothing to move). */
int pcoll__alltoallv_inplace_setup(pcoll_plan_t *plan, void *buf, const int *scounts,
                                   const int *sdispls, const int *rcounts, const int *rdispls,
                                   MPI_Datatype type, const pcoll__opts_t *opts);

/* Predicted time of the in-place algorithm where every rank's send and
 * receive layouts are equal (the MPI_IN_PLACE case) and no rank sends more
 * than `total` bytes, no block more than `maxblock` bytes, to at most `peers`
 * peers.  See docs/inplace-alltoallv.md for the model. */
double pcoll__alltoallv_inplace_cost(const pcoll__cost_t *c, int p, int peers, long long maxblock,
                                     long long total, const pcoll__opts_t *opts);
/* The rule for MPI_IN_PLACE alltoallv: 1 to run this algorithm, 0 for
 * pairwise exchange (which needs one block of scratch).  In place when the
 * largest block exceeds pcoll_aux_bytes (pairwise's scratch would exceed the
 * memory the user allows), else by predicted time.  The arguments must be
 * the same on every rank (maxima over all ranks). */
int pcoll__alltoallv_inplace_preferred(const pcoll__cost_t *c, int p, int peers, long long maxblock,
                                       long long total, const pcoll__opts_t *opts);

/* ---- layout (inplace_layout.c) ----------------------------------------- */

/* Local checks of one rank's layout (no allocation left behind). */
int pcoll__ip_check(int p, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls, const char *fn);
/* Section 3.2: fill sub0, sfirst, rorder, rfirst, rbeg and rend. */
int pcoll__ip_split(pcoll__ip_t *ip, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls);

/* ---- auxiliary buffers (inplace_aux.c) --------------------------------- */

/* a and b from the options (or their defaults), checked: *nbuf buffers of
 * *cap items of size bytes each. */
int pcoll__ip_aux_config(int p, int size, const pcoll__opts_t *opts, const char *fn, int *nbuf,
                         long long *cap);
/* How many of the `need` next items of peer q its aux buffer can take now
 * (claiming the buffer for q if it was empty). */
long long pcoll__ip_aux_grant(pcoll__ip_t *ip, int q, long long need);
/* Where item `off` of this phase's aux grant for peer q goes. */
char *pcoll__ip_aux_slot(const pcoll__ip_t *ip, int q, long long off);
/* n items of peer q arrived in its buffer (n may be 0: then the claim ends
 * if the buffer holds nothing). */
void pcoll__ip_aux_append(pcoll__ip_t *ip, int q, long long n);
/* Move n of peer q's waiting items to the bottom of R_q. */
int pcoll__ip_aux_drain(pcoll__ip_t *ip, int q, long long n);

/* ---- phases (inplace_phase.c, inplace_update.c) ------------------------ */

/* Begin a phase: receivable counts, offers, and the request exchange
 * posted; ip->npeers == 0 when this rank is done. */
int pcoll__ip_post_requests(pcoll__ip_t *ip);
/* Post the data exchange agreed by the requests. */
int pcoll__ip_post_data(pcoll__ip_t *ip);
/* Section 3.4, once the data exchange is complete. */
int pcoll__ip_update(pcoll__ip_t *ip);
/* The lowest item of smatch(R_j), or the end of R_j if there is none. */
long long pcoll__ip_free_end(const pcoll__ip_t *ip, int j);

/* ---- local moves (inplace_move.c) -------------------------------------- */

/* Move n items of the buffer from item src up to item dst >= src. */
int pcoll__ip_move_up(const pcoll__ip_t *ip, long long src, long long dst, long long n);
/* Copy n items in signature form at from to the buffer at item dst. */
int pcoll__ip_unstage(const pcoll__ip_t *ip, const char *from, long long dst, long long n);

/* ---- state (inplace_state.c) and the run (inplace_run.c) -------------- */

/* Allocate the arrays of ip for ip->p peers and ip->nbuf aux buffers of
 * ip->cap items (the counted allocator: pcoll_mem_peak shows them). */
int pcoll__ip_alloc(pcoll__ip_t *ip);
/* Free ip and everything it holds; NULL and half-built states accepted. */
void pcoll__ip_free(pcoll__ip_t *ip);

extern const pcoll__plan_ops_t pcoll__ip_ops;

#endif
