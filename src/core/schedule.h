/*
 * Schedules: rounds of operations built once at init and run many times.
 *
 * A round is a list of operations run in the order they were added: sends
 * and receives are started (persistent requests made at commit time), local
 * copies and reductions are done when reached.  A round is complete when all
 * its requests are; then the next round begins.  So a builder that must use
 * data received in round k adds the local step to round k+1 before the sends
 * that depend on it, and a builder that wants receives preposted adds them
 * first.  Messages of zero bytes are dropped when added (both sides drop
 * them, as their sizes agree).
 */
#ifndef PCOLL_CORE_SCHEDULE_H
#define PCOLL_CORE_SCHEDULE_H

#include <stdint.h>
#include <stdio.h>

#include "datatype/copy.h"
#include "pcoll.h"

typedef enum pcoll__op_kind {
    PCOLL__OP_SEND,
    PCOLL__OP_RECV,
    PCOLL__OP_COPY,
    PCOLL__OP_REDUCE,
    PCOLL__OP_POLL
} pcoll__op_kind_t;

/* A local condition a round waits for besides its requests (e.g. a node
 * barrier in shared memory): arrive is called when the op is reached, poll
 * until it returns non-zero; neither may block. */
typedef struct pcoll__poll {
    void (*arrive)(void *arg);
    int (*poll)(void *arg);
    void *arg;
} pcoll__poll_t;

/* Send modes (MPI_Send_init, MPI_Rsend_init, MPI_Ssend_init). */
typedef enum pcoll__send_mode {
    PCOLL__SEND_STANDARD,
    PCOLL__SEND_READY,
    PCOLL__SEND_SYNC
} pcoll__send_mode_t;

typedef struct pcoll__op {
    pcoll__op_kind_t kind;
    int peer;               /* send/recv: rank in the plan's communicator */
    pcoll__send_mode_t mode; /* send */
    int done;               /* send/recv: the round whose end waits for it */
    int req;                /* send/recv: index in reqs (set at commit) */
    int ctl;                /* send/recv: a handshake token on the control comm */
    const void *src;        /* send, copy, reduce: input */
    int scount;
    MPI_Datatype stype;
    void *dst;              /* recv, copy, reduce: output */
    int dcount;
    MPI_Datatype dtype;
    MPI_Op op;              /* reduce: dst = src op dst */
    pcoll__copy_t copy;     /* copy: how */
    pcoll__poll_t poll;     /* poll: what */
    unsigned char sbind, dbind; /* copy, reduce: src / dst lie in bound region k-1
                                   (0: none), moved by its delta at run time */
    struct pcoll__blocks *runs; /* reduce: a predefined op on a derived type,
                                   applied run by run of its basic type */
    long long bytes;        /* payload, for printing */
} pcoll__op_t;

/* One step of a round's beginning: count > 0: MPI_Startall of reqs[first,
 * first + count); count == 0: the local op ops[first]. */
typedef struct pcoll__step {
    int first, count;
} pcoll__step_t;

#define PCOLL__SCHED_BINDS 3
/* The bound region of pcoll__sched_flip (buffers given at run time take
 * the ones below it). */
#define PCOLL__SCHED_FLIP 2

typedef struct pcoll__sched {
    pcoll__op_t *ops;
    int nops, ops_cap;
    int *round_first;       /* ops of round r: [round_first[r], round_first[r+1]) */
    int nrounds, rounds_cap;
    MPI_Request *reqs;      /* one per send/recv, grouped by the round that waits */
    int nreqs;              /* how many of them exist */
    int *req_first;         /* waited at the end of round r: [req_first[r], req_first[r+1]) */
    /* What a round does when it begins, made at commit: steps
     * [step_first[r], step_first[r+1]), each either a run of requests started
     * by one MPI_Startall or one local op (copy, reduce, poll); polls[r]
     * says whether round r has poll ops. */
    struct pcoll__step *steps;
    int *step_first;
    unsigned char *polls;
    void *scratch;          /* staging for copies that need it */
    size_t scratch_bytes;
    MPI_Comm ctl;           /* the control communicator for handshake tokens */
    char token[2];          /* what tokens carry */
    int cursor;             /* the round in progress */
    int committed;
    /* Bound regions (pcoll__sched_bind): address ranges that stand for
     * buffers given at run time; a copy or reduction that reads or writes
     * one is moved by delta[k] = (the buffer's address) - (the region's
     * base).  unbound: a send or receive was added inside a region
     * (persistent requests cannot move), so the schedule cannot rebind. */
    uintptr_t bind_lo[PCOLL__SCHED_BINDS], bind_hi[PCOLL__SCHED_BINDS];
    uintptr_t bind_base[PCOLL__SCHED_BINDS], delta[PCOLL__SCHED_BINDS + 1];
    int unbound;
    /* pcoll__sched_flip: the bytes region PCOLL__SCHED_FLIP moves by on
     * every other run (0: no such region). */
    uintptr_t flip;
} pcoll__sched_t;

/* Building (before commit). */
int pcoll__sched_round(pcoll__sched_t *s);
int pcoll__sched_send(pcoll__sched_t *s, const void *buf, int count, MPI_Datatype type,
                      int peer);
int pcoll__sched_recv(pcoll__sched_t *s, void *buf, int count, MPI_Datatype type, int peer);
/* A send in another mode (ready: the matching receive must be posted). */
int pcoll__sched_send_mode(pcoll__sched_t *s, const void *buf, int count, MPI_Datatype type,
                           int peer, pcoll__send_mode_t mode);
/* A receive started in the open round but waited for only at the end of
 * round `done` (>= the open round): receives can be preposted early. */
int pcoll__sched_recv_until(pcoll__sched_t *s, void *buf, int count, MPI_Datatype type,
                            int peer, int done);
/* A poll op (see pcoll__poll_t) in the open round. */
int pcoll__sched_poll(pcoll__sched_t *s, pcoll__poll_t poll);
/* Handshake tokens: one byte, synchronous send, on the control communicator
 * (set s->ctl before commit), so they never match data messages. */
int pcoll__sched_token_send(pcoll__sched_t *s, int peer);
int pcoll__sched_token_recv(pcoll__sched_t *s, int peer);
/* The index of the open round (-1 before the first). */
int pcoll__sched_current(const pcoll__sched_t *s);
int pcoll__sched_copy(pcoll__sched_t *s, const void *src, int scount, MPI_Datatype stype,
                      void *dst, int dcount, MPI_Datatype dtype);
int pcoll__sched_reduce(pcoll__sched_t *s, const void *src, void *dst, int count,
                        MPI_Datatype type, MPI_Op op);

/* Make the persistent requests on comm with tag, and the copy scratch. */
int pcoll__sched_commit(pcoll__sched_t *s, MPI_Comm comm, int tag);

/* Before building: the addresses [lo, hi) stand for buffer k (< PCOLL__SCHED_BINDS)
 * whose address is base; copies and reductions that the builder adds inside
 * the range follow pcoll__sched_rebind.  Sends and receives may not use the
 * range (s->unbound is set when one does). */
void pcoll__sched_bind(pcoll__sched_t *s, int k, const void *lo, const void *hi,
                       const void *base);
/* Before a run: buffer k is at addr now. */
void pcoll__sched_rebind(pcoll__sched_t *s, int k, const void *addr);
/* Before building: the bytes [lo, lo + bytes) are one of two copies, the
 * other right after it, and runs take the two in turn (every start moves
 * the copies and reductions the builder adds inside the range to the other
 * copy); sends and receives may not use it.  A schedule has one such range;
 * every rank that shares the bytes must start the plan as often. */
void pcoll__sched_flip(pcoll__sched_t *s, void *lo, size_t bytes);

/* Running (after commit); none of these allocates. */
int pcoll__sched_start(pcoll__sched_t *s);
int pcoll__sched_test(pcoll__sched_t *s, int *done);
int pcoll__sched_wait(pcoll__sched_t *s);

/* Between two failed polls: give the processor to oversubscribed peers
 * (sched_yield).  Nothing under SimGrid SMPI, whose simulated ranks share
 * one thread and switch only inside MPI calls (and the node barrier's
 * smpi_execute): a real yield there only hands the machine to other
 * processes and slows the simulation down. */
void pcoll__yield(void);
/* A wait's look that found its peers not there yet (*looks counts them):
 * the first PCOLL__LOOKS looks go on at once (a peer on another core
 * arrives within a cache line's trip: yielding on every look made a
 * one-node neighbourhood run 2-3x slower under Open MPI at np 2), later
 * ones yield the processor (oversubscribed peers must run). */
#define PCOLL__LOOKS 64
void pcoll__yield_after(unsigned *looks);

void pcoll__sched_free(pcoll__sched_t *s);
int pcoll__sched_print(const pcoll__sched_t *s, FILE *out);

#endif
