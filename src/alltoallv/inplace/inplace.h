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
 * splitting of 3.2), inplace_run.c (Algorithm 1 as an event loop, no global
 * phases), inplace_phase.c (receivable counts of 3.3 as grants, and the
 * transfers), inplace_update.c (the update of 3.4, per transfer),
 * inplace_aux.c (the aux slots of 3.5), inplace_move.c (typed local moves),
 * inplace_cost.c (the choice against pairwise exchange), inplace_state.c
 * (its memory), inplace_wait.c (completing requests), inplace_swap.c (the
 * fast path for equal layouts), inplace_neighbor.c (the neighbourhood form:
 * edges merged into one block per rank).
 *
 * Which engine: the grant-free pairwise swap of inplace_swap.c whenever the
 * send and receive layouts are equal on every rank (the MPI_IN_PLACE case;
 * agreed at init), else the grant engine of inplace_run.c.
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
/* Default slot size aimed at: the aux memory is cut into a / this many
 * slots, at least 2 and at most PCOLL__IP_MAX_SLOTS (inplace_aux.c). */
#define PCOLL__IP_SLOT_BYTES (32 * 1024)
#define PCOLL__IP_MAX_SLOTS 16
/* A grant into direct room takes at most this many bytes (or one slot, if
 * larger): the room granted stays held until the whole answer has arrived,
 * and the sender's room opens only when its whole send has left, so
 * smaller transfers let room flow on through chains of ranks sooner
 * (inplace_phase.c).  Each grant costs a round trip and the engine's work
 * on a real node: at np 16 on 16 cores a cap of 64 KiB took 1.2x the time
 * of 256 KiB at 16 and 64 MiB per rank, which the simulation (no CPU
 * charged) puts 0-6% the other way (docs/notes.md). */
#define PCOLL__IP_GRANT_BYTES (256 * 1024)
/* A grant into direct room smaller than slot size / PCOLL__IP_SMALL_GRANT,
 * or than PCOLL__IP_SMALL_BYTES if that is less, waits while a data
 * transfer of the rank is in flight (inplace_phase.c).  With slots of 42 KiB
 * (1% aux at 8 MiB per rank) a third of a slot held back most of the direct
 * room where many peers share it (p = 128: room at the bottoms of up to 127
 * receive sets); 4 KiB measured best of 2, 4, 8 and 14 KiB there and no
 * worse elsewhere (docs/notes.md). */
#define PCOLL__IP_SMALL_GRANT 3
#define PCOLL__IP_SMALL_BYTES 4096
/* Before a grant into direct room smaller than this many slots' worth (or
 * the peer's items left), the receive set's lowest unsent items are parked
 * in free space elsewhere, so one transfer takes that much
 * (inplace_update.c, pcoll__ip_park). */
#define PCOLL__IP_PARK_SLOTS 4
/* ... but only when that moves at most this many bytes: a move costs about
 * what the message it saves (simulated P = 64, 1 MiB per rank, 1% aux:
 * 357 / 310 / 323 / 321 us with 8 / 16 / 32 KiB / no bound; real np 2 at
 * 16 MiB per rank without a bound: about 10% slower). */
#define PCOLL__IP_PARK_BYTES (16 * 1024)
/* Aux memory under this many bytes is one slot, not two (inplace_aux.c). */
#define PCOLL__IP_ONE_SLOT_BYTES (16 * 1024)
/* Pieces per peer a run may split subsets into, beyond the initial 3p
 * subsets (inplace_update.c: the free space of a receive set is made by
 * moving its lowest items into its holes; when no piece is left, by
 * shifting the subsets up instead). */
#define PCOLL__IP_PIECES 8
/* Subsets one answer to a grant may take (inplace_phase.c). */
#define PCOLL__IP_SEND_PIECES 16
/* Items of a non-contiguous type are moved through a staging buffer of at
 * most this many bytes (at least one item, at most pcoll_aux_bytes). */
#define PCOLL__IP_STAGE_BYTES (64 * 1024)

/* One send subset S_i^k (section 3.2): contiguous items of the message to
 * `peer`, inside the receive set R_rset (rmatch) or in none (rset = -1).
 * A run may split a subset into pieces (inplace_update.c), so the subsets
 * of a message and those of a receive set are linked lists. */
typedef struct pcoll__ip_sub {
    long long lo;  /* first unsent item; moves toward higher indices (3.4) */
    long long len; /* items not sent yet */
    int peer;
    int rset;
    int next;  /* the next subset of the message to peer (-1: none) */
    int rnext; /* the next subset of R_rset by position (-1: none) */
} pcoll__ip_sub_t;

/* One aux slot (section 3.5, dynamic): any peer may get any free slot; it
 * holds that peer's next items in arrival order, in the signature form of
 * the type (size bytes each), until they are all in place.  A peer may hold
 * several slots, chained oldest first. */
typedef struct pcoll__ip_aux {
    int owner;            /* -1: free */
    int next;             /* the owner's next slot in arrival order (-1: none) */
    long long head, tail; /* items [head, tail) of the slot are held */
} pcoll__ip_aux_t;

/* Receives of grants from any peer kept posted (inplace_run.c). */
#define PCOLL__IP_LISTEN 64
/* req[0 .. PCOLL__IP_LISTEN-1] receive grants from any peer; then the
 * three requests of each peer q: req[PCOLL__IP_LISTEN + PCOLL__IP_NREQ * q
 * + kind] (pcoll__ip_req, inplace_state.c).  MPI_Waitany takes the
 * lowest completed index: grants first, their answers free room elsewhere. */
enum {
    PCOLL__IP_GRANT_OUT, /* our grant to q (control) */
    PCOLL__IP_DATA_IN,   /* the items q sends on it */
    PCOLL__IP_DATA_OUT,  /* the items we send on a grant of q */
    PCOLL__IP_NREQ
};

/* The fast path for equal layouts (inplace_swap.c): pairwise rounds, each
 * pair swapping its blocks in chunks through aux buffers, `lanes` pairs at
 * a time, `depth` chunks in flight per lane. */
typedef struct pcoll__ip_lane {
    int post, done;           /* the pair of the next chunk to post, to finish */
    long long post_at, done_at; /* that chunk's first item in its block */
    long long nposted, nfinished; /* chunks so far (buffer: number mod depth) */
} pcoll__ip_lane_t;

typedef struct pcoll__ip_swap {
    int lanes, depth;
    long long chunk;     /* items per aux buffer (one chunk) */
    int npair;           /* pairs this rank exchanges with (non-empty blocks) */
    int *peer;           /* them, lane by lane in round order */
    long long *lo, *len; /* their blocks: [lo, lo + len) */
    int *lfirst;         /* lane l's pairs: lfirst[l] .. lfirst[l+1]-1 */
    pcoll__ip_lane_t *lane;
    MPI_Request *req; /* 2 per aux buffer: the receive, the send */
    int left; /* lanes not finished in this run */
} pcoll__ip_swap_t;

/* What a run of the grant engine did, counted always and printed at its
 * end under PCOLL_VERBOSE (inplace_run.c): where its simulated time goes
 * (messages, waits) and where its own time goes (peers looked at). */
typedef struct pcoll__ip_count {
    long long steps;   /* MPI_Waitany / MPI_Testany calls */
    long long done;    /* requests completed */
    long long looks;   /* pcoll__ip_grant calls: peers looked at by the offers */
    long long scans;   /* full passes over the free space to park in */
    long long answers; /* data messages sent on grants */
    int maxreq;        /* requests in flight at once, at most */
} pcoll__ip_count_t;

typedef struct pcoll__ip {
    /* Fixed at init. */
    char *buf;
    MPI_Datatype type, sig; /* the user's type, its signature type */
    MPI_Aint extent;
    int size;       /* bytes of one item */
    int contiguous; /* items are dense bytes: moves are memmove */
    int p, rank, tag;
    MPI_Comm comm, ctl; /* data, and the grants (control) */
    int nsub;
    int npool;              /* subsets a run may hold (nsub + pieces) */
    pcoll__ip_sub_t *sub0;  /* initial subsets, peer by peer in message order */
    int *sfirst;            /* peer i's: sub[sfirst[i]] .. sub[sfirst[i+1]-1] */
    int *rorder, *rfirst;   /* R_j's, lowest first: rorder[rfirst[j] .. rfirst[j+1]-1] */
    long long *rbeg, *rend; /* R_j = [rbeg[j], rend[j]) */
    int *order;             /* peers in the order grants are offered */
    int nbuf;               /* aux slots */
    long long cap;          /* items per aux slot */
    char *auxmem;
    char *stage; /* non-contiguous types only */
    int stage_items;
    /* The state of a run. */
    long long items_left;   /* items still to send plus items still to put in place */
    int nact;         /* requests in flight */
    int ndata;        /* data transfers in flight, either way */
    long long grants; /* grants of the last run (messages each way) */
    long long moved;  /* items moved up by the updates of the last run */
    pcoll__ip_count_t count; /* the last run's counters */
    int reported;            /* they were printed */
    /* Parking's search for free space (inplace_update.c): the room found
     * in all by the last search that came up short, valid while roomgen,
     * bumped by every change that can add free space, is unchanged. */
    long long roomgen, shortgen, shortroom;
    /* Peers that may be granted (gout 0, items left to grant, our last
     * grant's send done), one bit per position in order[] (inplace_run.c
     * looks at these only). */
    unsigned long long *want;
    pcoll__ip_sub_t *sub; /* [npool]: the initial subsets, then pieces */
    int ntop;             /* sub[ntop ..] never used in this run */
    int *spare, nspare;   /* stack of emptied subsets, reusable as pieces */
    int *scratch;         /* [npool] the subsets of one receive set */
    int *scur;       /* peer i's first subset with unsent items (-1: none) */
    long long *srem; /* items still to send to peer i */
    long long *sfly; /* items to peer i in flight (from sub[scur[i]]) */
    int *rcur;       /* R_j's lowest subset (smatch(R_j) or emptied below it; -1: none) */
    long long *rlo;  /* R_j's first item not received in place */
    int *holes;      /* R_j has free space not yet joined at its bottom */
    long long *auxn; /* items of peer j waiting in its aux slot */
    long long *gout; /* items granted to peer j and not arrived (0: none) */
    int *slot;       /* peer j's oldest aux slot, or -1 */
    int *gkind;      /* the grant in flight goes to: 0 R_j, 1 the aux slot */
    int *gval;       /* our grant message to j */
    int *gin;        /* j's grant to answer once our last items to j have left (0: none) */
    int *gnext;      /* j's grant of the next run, come early (0: none; kept across runs) */
    int gany[PCOLL__IP_LISTEN]; /* grant messages being received, from any peer */
    int nlisten;                /* of them posted */
    long long gwait;            /* grants still to come in this run (inplace_run.c) */
    pcoll__ip_aux_t *aux;
    int *freeslot, nfree; /* stack of free slots */
    long long freed;      /* slots released so far (inplace_run.c's offers) */
    MPI_Request *req;     /* the grants from any peer, then PCOLL__IP_NREQ per peer */
    pcoll__ip_swap_t *swap; /* equal layouts: the fast path's plan (else NULL) */
    /* Free space outside every receive set, where sent items lay: room to
     * park items in (inplace_update.c); at most maxout = p + 8 ranges. */
    long long *olo, *olen;
    int nout, maxout;
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
 * copies what it needs: the caller's arrays may be freed on return.  When
 * every rank plans together (plan->together) it agrees the verdict, whether
 * the layouts are equal everywhere, the smallest aux memory and the largest
 * block in one small allreduce (the fast path's choice); else it does not
 * communicate and runs the grant engine.  Counts that disagree between
 * ranks and item sizes that differ are the caller's to detect.  opts gives
 * aux_bytes and aux_buffers (0: defaults); a type of size 0 sets
 * plan->no_comm (nothing to move). */
int pcoll__alltoallv_inplace_setup(pcoll_plan_t *plan, void *buf, const int *scounts,
                                   const int *sdispls, const int *rcounts, const int *rdispls,
                                   MPI_Datatype type, const pcoll__opts_t *opts);

/* Predicted time of the engine where every rank's send and receive layouts
 * are equal (the MPI_IN_PLACE case: the swap of inplace_swap.c) and no rank
 * sends more than `total` bytes, no block more than `maxblock` bytes, with
 * aux bytes of aux memory (0: the default).  See docs/inplace-alltoallv.md
 * for the model. */
double pcoll__alltoallv_inplace_cost(const pcoll__cost_t *c, int p, long long maxblock,
                                     long long total, long long aux);
/* The rule for MPI_IN_PLACE alltoallv: 1 to run this algorithm, 0 for the
 * MPI's own in-place call or pairwise exchange (which need one block of
 * scratch).  aux: the smallest pcoll_aux_bytes any rank set, 0 if none
 * did.  In place when aux is set and the largest block exceeds it (the
 * scratch would exceed the memory allowed), else by predicted time with
 * pcoll's margin.  The arguments must be the same on every rank (maxima
 * over all ranks, aux agreed). */
int pcoll__alltoallv_inplace_preferred(const pcoll__cost_t *c, int p, long long maxblock,
                                       long long total, long long aux);

/* ---- the neighbourhood form (inplace_neighbor.c) ------------------------ */

/* pcoll_neighbor_alltoallv_inplace_init's arguments as its check leaves
 * them: the buffer and type; the communicator's edges (degrees, neighbour
 * lists, Cartesian or not) and each edge's place among the blocks of its
 * rank (for the agreement); and the engine's arrays of p ranks made from
 * the edges by pcoll__ip_nbr_merge. */
typedef struct pcoll__ip_nbr_args {
    void *buf;
    MPI_Datatype type;
    int indegree, outdegree, cart, folded;
    int *sources, *dests; /* ranks or MPI_PROC_NULL, one per edge */
    int *spos, *rpos;     /* per edge: pcoll__ip_nbr_merge's pos */
    int *scounts, *sdispls, *rcounts, *rdispls; /* p ranks each */
    pcoll__opts_t opts;
} pcoll__ip_nbr_args_t;

/* One direction of the neighbourhood form: the blocks of n edges (edge e:
 * counts[e] items from item displs[e], to or from rank peers[e]) merged into
 * one block per rank of comm (pcounts, pdispls: p entries, zeroed by the
 * caller), and pos[e] the place of edge e's block among the non-empty blocks
 * of its rank by position (-1: an empty edge or MPI_PROC_NULL, which moves
 * nothing).  Checks counts and displacements (PCOLL_ERR_ARG: negative, or
 * two blocks of one rank that overlap); the blocks of one rank must lie end
 * to end, at most INT_MAX items in all (PCOLL_ERR_UNSUPPORTED otherwise).
 * what: "send" or "receive", for messages. */
int pcoll__ip_nbr_merge(int p, int n, const int *peers, const int *counts, const int *displs,
                        int *pcounts, int *pdispls, int *pos, const char *what, const char *fn);
/* The builder (pcoll__ip_nbr_args_t): the engine on the merged arrays. */
int pcoll__alltoallv_inplace_neighbor(pcoll_plan_t *plan, const void *args);

/* ---- layout (inplace_layout.c) ----------------------------------------- */

/* Local checks of one rank's layout (no allocation left behind). */
int pcoll__ip_check(int p, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls, const char *fn);
/* Section 3.2: fill sub0, sfirst, rorder, rfirst, rbeg and rend. */
int pcoll__ip_split(pcoll__ip_t *ip, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls);

/* ---- auxiliary slots (inplace_aux.c) ---------------------------------- */

/* a and the slots from the options (or their defaults), checked: *nbuf
 * slots of *cap items of size bytes each. */
int pcoll__ip_aux_config(int p, int size, const pcoll__opts_t *opts, const char *fn, int *nbuf,
                         long long *cap);
/* Fit the slots to what a run can use: no more slots than peers that send
 * anything (the fewer slots share the same memory), no grant larger than
 * the largest receive block. */
void pcoll__ip_aux_fit(int p, const int *rcounts, int *nbuf, long long *cap);
/* A free slot for peer q, after the slots it holds (-1: none free). */
int pcoll__ip_aux_take(pcoll__ip_t *ip, int q);
/* Where the items of peer q's newest slot are received. */
char *pcoll__ip_aux_slot(const pcoll__ip_t *ip, int q);
/* n items of peer q arrived in its slot. */
void pcoll__ip_aux_append(pcoll__ip_t *ip, int q, long long n);
/* Move n of peer q's waiting items, oldest first, to the bottom of R_q (a
 * slot is free again once it is empty). */
int pcoll__ip_aux_drain(pcoll__ip_t *ip, int q, long long n);

/* ---- transfers (inplace_phase.c, inplace_update.c) --------------------- */

/* The offer rounds of a step (inplace_run.c), flags: SOON takes only room
 * that a transfer fills whole or that opens soon (a slot for a peer whose
 * receive set's lowest unsent items are in flight); MORE offers only the
 * peers with items waiting in a slot (another slot), else only the
 * others. */
enum { PCOLL__IP_SOON = 1, PCOLL__IP_MORE = 2 };
/* Offer peer q a grant in round `pass` if it may send and there is room for
 * it (in R_q or in a free aux slot): post the receive of its items and the
 * grant. */
int pcoll__ip_grant(pcoll__ip_t *ip, int q, int pass);
/* Recompute peer q's bit in ip->want: set when q may be granted (no grant
 * to q in flight or being sent, items of q left to grant).  Called
 * wherever one of these changes. */
void pcoll__ip_want(pcoll__ip_t *ip, int q);
/* Place as many of this rank's items to itself as the room in R_self
 * takes, without messages (*placed: how many; 0 when it may not now: items
 * to itself wait in a slot or move by message). */
int pcoll__ip_place_self(pcoll__ip_t *ip, long long *placed);
/* One more grant will come (from a peer still sent to, or this rank
 * granting itself): count it and keep receives of grants posted. */
int pcoll__ip_expect_grant(pcoll__ip_t *ip);
/* Keep min(grants still to come, PCOLL__IP_LISTEN) receives of grants
 * from any peer posted. */
int pcoll__ip_listen(pcoll__ip_t *ip);
/* Answer q's grant gin[q]: send it the next items of its message (its
 * last answer has left). */
int pcoll__ip_respond(pcoll__ip_t *ip, int q);
/* q's items of our grant arrived (n of them): account for them. */
int pcoll__ip_received(pcoll__ip_t *ip, int q, long long n);
/* Section 3.4 for the items just sent to q: they leave the front of the
 * message; their receive set is compacted and refilled from the aux slot
 * at once if items wait there, else when it is next granted from
 * (pcoll__ip_join). */
int pcoll__ip_sent(pcoll__ip_t *ip, int q);
/* Join R_j's free space at its bottom if it has holes, then refill it
 * from j's aux slot. */
int pcoll__ip_join(pcoll__ip_t *ip, int j);
/* Step 2 of section 3.4 for every receive set: the free space the layout
 * leaves inside R_j joined at its bottom (at start, before any grant). */
int pcoll__ip_settle(pcoll__ip_t *ip);
/* The lowest item of smatch(R_j), or the end of R_j if there is none. */
long long pcoll__ip_free_end(const pcoll__ip_t *ip, int j);
/* Whether R_j's lowest unsent items are in flight (room opens at its
 * bottom when they have left). */
int pcoll__ip_opening(const pcoll__ip_t *ip, int j);
/* Drain as many of peer j's aux items into R_j as fit. */
int pcoll__ip_refill(pcoll__ip_t *ip, int j);
/* Before a grant to q (not this rank; R_q joined): if R_q's bottom room is
 * under `want` items and free space elsewhere makes up the difference of at
 * most PCOLL__IP_PARK_BYTES, park R_q's lowest unsent items there until the
 * room is `want`. */
int pcoll__ip_park(pcoll__ip_t *ip, int q, long long want);

/* n items from item lo of the buffer to q, in the user's type; n items of
 * q into `to`, in signature form (MPI error codes). */
int pcoll__ip_isend(const pcoll__ip_t *ip, long long lo, long long n, int q, MPI_Request *r);
int pcoll__ip_irecv_sig(const pcoll__ip_t *ip, char *to, long long n, int q, MPI_Request *r);

/* ---- local moves (inplace_move.c) -------------------------------------- */

/* Move n items of the buffer from item src to item dst (the two ranges
 * may overlap). */
int pcoll__ip_move(const pcoll__ip_t *ip, long long src, long long dst, long long n);
/* Copy n items in signature form at from to the buffer at item dst. */
int pcoll__ip_unstage(const pcoll__ip_t *ip, const char *from, long long dst, long long n);

/* ---- state (inplace_state.c) and the run (inplace_run.c) -------------- */

/* One completed request among req[0 .. nr-1] (inplace_wait.c): its index
 * into *index and its status into *st, or *index = -1 when none has
 * completed (polling) or none is active; `block` waits for one. */
int pcoll__ip_next(int nr, MPI_Request *req, int block, int *index, MPI_Status *st);

/* Allocate the arrays of ip for ip->p peers and ip->nbuf aux slots of
 * ip->cap items (the counted allocator: pcoll_mem_peak shows them). */
int pcoll__ip_alloc(pcoll__ip_t *ip);
/* The aux memory (auxbytes) and, for a non-contiguous type, the staging
 * buffer of ip->stage_items items. */
int pcoll__ip_alloc_buffers(pcoll__ip_t *ip, long long auxbytes);
/* Request `kind` of peer q (after the PCOLL__IP_LISTEN receives of grants). */
MPI_Request *pcoll__ip_req(pcoll__ip_t *ip, int q, int kind);
/* Free ip and everything it holds; NULL and half-built states accepted. */
void pcoll__ip_free(pcoll__ip_t *ip);

/* The plan's destroy op (both engines): pcoll__ip_free. */
void pcoll__ip_destroy(pcoll_plan_t *plan);
extern const pcoll__plan_ops_t pcoll__ip_ops;

/* ---- the fast path for equal layouts (inplace_swap.c) ------------------ */

/* Whether this rank's send and receive layouts are equal: the same item
 * range both ways for every peer (zero-count blocks anywhere). */
int pcoll__ip_layouts_equal(int p, const int *scounts, const int *sdispls, const int *rcounts,
                            const int *rdispls);
/* Plan the swap on ip (type described, buf set) for equal layouts with
 * aux = the smallest aux memory of all ranks in bytes and maxblock = the
 * largest block of all ranks in items: sets ip->swap, allocates its arrays
 * and aux buffers (at most aux bytes). */
int pcoll__ip_swap_plan(pcoll__ip_t *ip, const int *counts, const int *displs, long long aux,
                        long long maxblock);
/* The swap's lanes, depth and chunk (items of `size` bytes) for `rounds`
 * pairing rounds, aux bytes and the largest block in items (the rule in
 * inplace_swap.c); sets only those three fields.  The plan and the cost
 * model (inplace_cost.c) both use it. */
void pcoll__ip_swap_choose(pcoll__ip_swap_t *sw, int rounds, long long aux, long long maxblock,
                           int size);

extern const pcoll__plan_ops_t pcoll__ip_swap_ops;

#endif
