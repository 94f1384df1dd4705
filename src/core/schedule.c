/*
 * Schedule building, commit and execution (see schedule.h).
 */
#include <limits.h>
#include <sched.h>
#include <string.h>

#include "base/mem.h"
#include "core/schedule.h"
#include "core/check.h"
#include "base/pmpi.h"
#include "base/status.h"
#include "datatype/blocks.h"

static void free_runs(pcoll__blocks_t *runs)
{
    if (runs)
        pcoll__blocks_free(runs);
    pcoll__free(runs);
}

/* Grow *arr (of *cap items of size sz) to hold at least need items. */
static int grow(void **arr, int *cap, int need, size_t sz)
{
    int ncap;
    void *p;
    if (need <= *cap)
        return PCOLL_SUCCESS;
    ncap = *cap ? 2 * *cap : 16;
    while (ncap < need)
        ncap *= 2;
    p = pcoll__realloc(*arr, (size_t)ncap * sz);
    if (!p)
        return pcoll__error(PCOLL_ERR_NOMEM, "schedule: cannot grow to %d items", ncap);
    *arr = p;
    *cap = ncap;
    return PCOLL_SUCCESS;
}

int pcoll__sched_round(pcoll__sched_t *s)
{
    int rc = grow((void **)&s->round_first, &s->rounds_cap, s->nrounds + 2, sizeof(int));
    if (rc == PCOLL_SUCCESS)
        s->round_first[s->nrounds++] = s->nops;
    return rc;
}

/* The bound region holding address a, plus one (0: none). */
static unsigned char region_of(const pcoll__sched_t *s, const void *a)
{
    uintptr_t x = (uintptr_t)a;
    int k;
    for (k = 0; k < PCOLL__SCHED_BINDS; k++)
        if (x >= s->bind_lo[k] && x < s->bind_hi[k])
            return (unsigned char)(k + 1);
    return 0;
}

void pcoll__sched_bind(pcoll__sched_t *s, int k, const void *lo, const void *hi,
                       const void *base)
{
    s->bind_lo[k] = (uintptr_t)lo;
    s->bind_hi[k] = (uintptr_t)hi;
    s->bind_base[k] = (uintptr_t)base;
}

void pcoll__sched_rebind(pcoll__sched_t *s, int k, const void *addr)
{
    s->delta[k + 1] = (uintptr_t)addr - s->bind_base[k];
}

void pcoll__sched_flip(pcoll__sched_t *s, void *lo, size_t bytes)
{
    pcoll__sched_bind(s, PCOLL__SCHED_FLIP, lo, (char *)lo + bytes, lo);
    s->flip = (uintptr_t)bytes;
}

/* An address of op as the run sees it (region r, 0: none). */
static void *moved(const pcoll__sched_t *s, unsigned char r, const void *a)
{
    return (void *)((uintptr_t)a + s->delta[r]);
}

/* Append an op to the open round (opening round 0 if none is), noting the
 * bound regions its addresses lie in. */
static int push(pcoll__sched_t *s, const pcoll__op_t *op)
{
    int rc;
    if (s->committed)
        return pcoll__error(PCOLL_ERR_INTERNAL, "schedule: op added after commit");
    if (s->nrounds == 0 && (rc = pcoll__sched_round(s)) != PCOLL_SUCCESS)
        return rc;
    rc = grow((void **)&s->ops, &s->ops_cap, s->nops + 1, sizeof *op);
    if (rc != PCOLL_SUCCESS)
        return rc;
    s->ops[s->nops] = *op;
    if (op->kind == PCOLL__OP_COPY || op->kind == PCOLL__OP_REDUCE) {
        s->ops[s->nops].sbind = region_of(s, op->src);
        s->ops[s->nops].dbind = region_of(s, op->dst);
    } else if (op->kind != PCOLL__OP_POLL && (region_of(s, op->src) || region_of(s, op->dst))) {
        s->unbound = 1;
    }
    s->nops++;
    return rc;
}

static int push_p2p(pcoll__sched_t *s, pcoll__op_t *op, int count, MPI_Datatype type)
{
    int rc;
    op->bytes = pcoll__type_bytes(type, count);
    if (op->bytes < 0)
        return pcoll__error(PCOLL_ERR_ARG, "schedule: invalid datatype");
    if (op->bytes == 0)
        return PCOLL_SUCCESS;
    op->scount = op->dcount = count;
    op->stype = op->dtype = type;
    if (s->nrounds == 0 && (rc = pcoll__sched_round(s)) != PCOLL_SUCCESS)
        return rc;
    if (op->done < s->nrounds - 1)
        op->done = s->nrounds - 1;
    return push(s, op);
}

int pcoll__sched_send_mode(pcoll__sched_t *s, const void *buf, int count, MPI_Datatype type,
                           int peer, pcoll__send_mode_t mode)
{
    pcoll__op_t op = {.kind = PCOLL__OP_SEND, .peer = peer, .src = buf, .mode = mode};
    return push_p2p(s, &op, count, type);
}

int pcoll__sched_send(pcoll__sched_t *s, const void *buf, int count, MPI_Datatype type,
                      int peer)
{
    return pcoll__sched_send_mode(s, buf, count, type, peer, PCOLL__SEND_STANDARD);
}

int pcoll__sched_recv_until(pcoll__sched_t *s, void *buf, int count, MPI_Datatype type,
                            int peer, int done)
{
    pcoll__op_t op = {.kind = PCOLL__OP_RECV, .peer = peer, .dst = buf, .done = done};
    return push_p2p(s, &op, count, type);
}

int pcoll__sched_recv(pcoll__sched_t *s, void *buf, int count, MPI_Datatype type, int peer)
{
    return pcoll__sched_recv_until(s, buf, count, type, peer, -1);
}

int pcoll__sched_poll(pcoll__sched_t *s, pcoll__poll_t poll)
{
    pcoll__op_t op = {.kind = PCOLL__OP_POLL, .peer = -1, .poll = poll};
    return push(s, &op);
}

int pcoll__sched_token_send(pcoll__sched_t *s, int peer)
{
    pcoll__op_t op = {.kind = PCOLL__OP_SEND, .peer = peer, .src = &s->token[0],
                      .mode = PCOLL__SEND_SYNC, .ctl = 1};
    return push_p2p(s, &op, 1, MPI_BYTE);
}

int pcoll__sched_token_recv(pcoll__sched_t *s, int peer)
{
    pcoll__op_t op = {.kind = PCOLL__OP_RECV, .peer = peer, .dst = &s->token[1], .done = -1,
                      .ctl = 1};
    return push_p2p(s, &op, 1, MPI_BYTE);
}

int pcoll__sched_current(const pcoll__sched_t *s)
{
    return s->nrounds - 1;
}

int pcoll__sched_copy(pcoll__sched_t *s, const void *src, int scount, MPI_Datatype stype,
                      void *dst, int dcount, MPI_Datatype dtype)
{
    pcoll__op_t op = {.kind = PCOLL__OP_COPY, .peer = -1, .src = src, .scount = scount,
                      .stype = stype, .dst = dst, .dcount = dcount, .dtype = dtype};
    int rc = pcoll__copy_prepare(scount, stype, dcount, dtype, &op.copy);
    if (rc != PCOLL_SUCCESS || op.copy.mode == PCOLL__COPY_NONE)
        return rc;
    /* MPI_BOTTOM: what the copy needs for a NULL buffer, freed with the op. */
    if ((!src || !dst) &&
        (rc = pcoll__copy_bottom(&op.copy, src, stype, dst, dtype)) != PCOLL_SUCCESS)
        return rc;
    op.bytes = (long long)op.copy.bytes;
    if (op.copy.scratch > s->scratch_bytes)
        s->scratch_bytes = op.copy.scratch;
    if ((rc = push(s, &op)) != PCOLL_SUCCESS)
        pcoll__copy_free(&op.copy);
    return rc;
}

/* MPI_Reduce_local need not accept a predefined op on a derived type (MPICH
 * refuses), though MPI's reductions allow a type map of one predefined type:
 * such a reduction is flattened once into runs of the basic type. */
static int flatten_for_reduce(pcoll__op_t *o)
{
    if (pcoll__type_predefined(o->stype) || !pcoll__op_predefined(o->op))
        return PCOLL_SUCCESS;
    if (!(o->runs = pcoll__calloc(1, sizeof *o->runs)))
        return pcoll__error(PCOLL_ERR_NOMEM, "schedule: reduction runs");
    return pcoll__flatten(o->stype, o->runs);
}

int pcoll__sched_reduce(pcoll__sched_t *s, const void *src, void *dst, int count,
                        MPI_Datatype type, MPI_Op op)
{
    pcoll__op_t o = {.kind = PCOLL__OP_REDUCE, .peer = -1, .src = src, .scount = count,
                     .stype = type, .dst = dst, .dcount = count, .dtype = type, .op = op};
    int rc;
    o.bytes = pcoll__type_bytes(type, count);
    if (o.bytes <= 0)
        return o.bytes < 0 ? pcoll__error(PCOLL_ERR_ARG, "schedule: invalid datatype")
                           : PCOLL_SUCCESS;
    if ((rc = flatten_for_reduce(&o)) == PCOLL_SUCCESS && (rc = push(s, &o)) == PCOLL_SUCCESS)
        return rc;
    free_runs(o.runs);
    return rc;
}

/* Run a reduction: directly, or run by run of the basic type (a dense run
 * of more than INT_MAX items in several calls). */
static int reduce(const pcoll__op_t *op, const void *src, void *dst)
{
    MPI_Aint lb, ext, bext;
    long k, b;
    int err = MPI_SUCCESS;
    if (!op->runs)
        return MPI_Reduce_local(src, dst, op->scount, op->stype, op->op);
    pcoll__type_extent(op->stype, &lb, &ext);
    for (k = 0; k < op->scount && err == MPI_SUCCESS; k++)
        for (b = 0; b < op->runs->n && err == MPI_SUCCESS; b++) {
            const pcoll__block_t *r = &op->runs->b[b];
            MPI_Aint at = (MPI_Aint)k * ext + r->disp;
            long long e, dense;
            pcoll__type_extent(r->type, &lb, &bext);
            dense = r->ext == bext ? r->len : 1;
            if (dense > INT_MAX)
                dense = INT_MAX;
            for (e = 0; e < r->len && err == MPI_SUCCESS; e += dense)
                err = MPI_Reduce_local(pcoll__addr(src, at + (MPI_Aint)e * r->ext),
                                       pcoll__addr(dst, at + (MPI_Aint)e * r->ext),
                                       (int)(r->len - e < dense ? r->len - e : dense), r->type,
                                       op->op);
        }
    return err;
}

/* The persistent request of one send or receive. */
static int init_request(const pcoll__sched_t *s, const pcoll__op_t *op, MPI_Comm comm, int tag,
                        MPI_Request *req)
{
    if (op->ctl)
        comm = s->ctl;
    if (op->kind == PCOLL__OP_RECV)
        return MPI_Recv_init(op->dst, op->dcount, op->dtype, op->peer, tag, comm, req);
    if (op->mode == PCOLL__SEND_READY)
        return MPI_Rsend_init(op->src, op->scount, op->stype, op->peer, tag, comm, req);
    if (op->mode == PCOLL__SEND_SYNC)
        return MPI_Ssend_init(op->src, op->scount, op->stype, op->peer, tag, comm, req);
    return MPI_Send_init(op->src, op->scount, op->stype, op->peer, tag, comm, req);
}

/* Create the persistent request of every send and receive, grouped by the
 * round that waits for them (counting sort on op->done). */
static int make_requests(pcoll__sched_t *s, MPI_Comm comm, int tag)
{
    int r, i, err = MPI_SUCCESS;
    s->reqs = pcoll__malloc((size_t)(s->nops ? s->nops : 1) * sizeof *s->reqs);
    s->req_first = pcoll__calloc((size_t)s->nrounds + 2, sizeof *s->req_first);
    if (!s->reqs || !s->req_first)
        return pcoll__error(PCOLL_ERR_NOMEM, "schedule: request arrays");
    for (i = 0; i < s->nops; i++)
        if (s->ops[i].kind == PCOLL__OP_SEND || s->ops[i].kind == PCOLL__OP_RECV) {
            s->req_first[s->ops[i].done + 2]++;
            s->reqs[s->nreqs++] = MPI_REQUEST_NULL;
        }
    for (r = 0; r < s->nrounds; r++)
        s->req_first[r + 2] += s->req_first[r + 1];
    for (i = 0; i < s->nops && err == MPI_SUCCESS; i++) {
        pcoll__op_t *op = &s->ops[i];
        if (op->kind != PCOLL__OP_SEND && op->kind != PCOLL__OP_RECV)
            continue;
        op->req = s->req_first[op->done + 1]++;
        err = init_request(s, op, comm, tag, &s->reqs[op->req]);
    }
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "schedule: persistent request (MPI %d)", err);
    return PCOLL_SUCCESS;
}

/* Where a message of op sits in make_steps' table of the last step that
 * started one like it (peer, direction, communicator); -1: nowhere. */
static long slot_of(const pcoll__op_t *op, int p)
{
    if (op->peer < 0 || op->peer >= p)
        return -1;
    return ((long)op->peer * 2 + (op->kind == PCOLL__OP_RECV)) * 2 + (op->ctl != 0);
}

/* The steps of every round (pcoll__step_t): consecutive sends and receives
 * whose requests follow each other in reqs start together, unless two of
 * them are messages of the same direction with the same peer on the same
 * communicator: MPI_Startall may start its requests in any order, and two
 * such messages must keep the order they were added in (MPI matches them in
 * the order they are started). */
static int make_steps(pcoll__sched_t *s, int p)
{
    int r, i, n = 0, *seen;
    s->steps = pcoll__malloc((size_t)(s->nops ? s->nops : 1) * sizeof *s->steps);
    s->step_first = pcoll__calloc((size_t)s->nrounds + 1, sizeof *s->step_first);
    s->polls = pcoll__calloc((size_t)s->nrounds + 1, 1);
    seen = pcoll__calloc((size_t)p * 4 + 1, sizeof *seen);
    if (!s->steps || !s->step_first || !s->polls || !seen) {
        pcoll__free(seen);
        return pcoll__error(PCOLL_ERR_NOMEM, "schedule: round steps");
    }
    for (r = 0; r < s->nrounds; r++) {
        s->step_first[r] = n;
        for (i = s->round_first[r]; i < s->round_first[r + 1]; i++) {
            const pcoll__op_t *op = &s->ops[i];
            pcoll__step_t *last = n > s->step_first[r] ? &s->steps[n - 1] : NULL;
            long slot;
            if (op->kind != PCOLL__OP_SEND && op->kind != PCOLL__OP_RECV) {
                s->polls[r] |= op->kind == PCOLL__OP_POLL;
                s->steps[n++] = (pcoll__step_t){i, 0};
                continue;
            }
            slot = slot_of(op, p);
            if (last && last->count > 0 && last->first + last->count == op->req && slot >= 0 &&
                seen[slot] != n)
                last->count++;
            else
                s->steps[n++] = (pcoll__step_t){op->req, 1};
            if (slot >= 0)
                seen[slot] = n;
        }
    }
    s->step_first[s->nrounds] = n;
    pcoll__free(seen);
    return PCOLL_SUCCESS;
}

int pcoll__sched_commit(pcoll__sched_t *s, MPI_Comm comm, int tag)
{
    int rc, p = 0, inter = 0;
    if (s->nrounds == 0 && (rc = pcoll__sched_round(s)) != PCOLL_SUCCESS)
        return rc;
    s->round_first[s->nrounds] = s->nops;
    s->committed = 1;
    if (s->scratch_bytes > 0 && !(s->scratch = pcoll__malloc(s->scratch_bytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "schedule: %zu bytes of copy scratch",
                            s->scratch_bytes);
    if ((rc = make_requests(s, comm, tag)) != PCOLL_SUCCESS)
        return rc;
    /* The peers: an intercommunicator's are the remote group. */
    if (comm != MPI_COMM_NULL && MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS)
        (inter ? MPI_Comm_remote_size : MPI_Comm_size)(comm, &p);
    return make_steps(s, p);
}

/* A local op of a round: a copy, a reduction or a poll's arrival. */
static int run_local(pcoll__sched_t *s, int i)
{
    const pcoll__op_t *op = &s->ops[i];
    const void *src = moved(s, op->sbind, op->src);
    void *dst = moved(s, op->dbind, op->dst);
    int err = MPI_SUCCESS;
    if (op->kind == PCOLL__OP_COPY)
        return pcoll__copy_run(&op->copy, src, op->scount, op->stype, dst, op->dcount,
                               op->dtype, s->scratch);
    if (op->kind == PCOLL__OP_REDUCE)
        err = reduce(op, src, dst);
    else
        op->poll.arrive(op->poll.arg);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "schedule: round %d op %d (MPI %d)", s->cursor, i,
                            err);
    return PCOLL_SUCCESS;
}

/* Begin round s->cursor: its steps in order (make_steps). */
static int begin_round(pcoll__sched_t *s)
{
    const pcoll__step_t *st = s->steps + s->step_first[s->cursor],
                        *end = s->steps + s->step_first[s->cursor + 1];
    int rc;
    for (; st < end; st++) {
        if (st->count == 0) {
            if ((rc = run_local(s, st->first)) != PCOLL_SUCCESS)
                return rc;
            continue;
        }
        if ((st->count == 1 ? PCOLL__MPI(Start)(&s->reqs[st->first])
                            : PCOLL__MPI(Startall)(st->count, &s->reqs[st->first])) !=
            MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "schedule: starting %d requests in round %d",
                                st->count, s->cursor);
    }
    return PCOLL_SUCCESS;
}

int pcoll__sched_start(pcoll__sched_t *s)
{
    s->cursor = 0;
    s->delta[PCOLL__SCHED_FLIP + 1] ^= s->flip;
    return begin_round(s);
}

/* The current round's requests are complete: begin the next one. */
static int advance(pcoll__sched_t *s)
{
    s->cursor++;
    return s->cursor < s->nrounds ? begin_round(s) : PCOLL_SUCCESS;
}

/* Whether the poll ops of the current round are all satisfied. */
static int polls_done(const pcoll__sched_t *s)
{
    int i;
    if (!s->polls[s->cursor])
        return 1;
    for (i = s->round_first[s->cursor]; i < s->round_first[s->cursor + 1]; i++)
        if (s->ops[i].kind == PCOLL__OP_POLL && !s->ops[i].poll.poll(s->ops[i].poll.arg))
            return 0;
    return 1;
}

/* Is the current round complete?  Never blocks. */
static int round_done(pcoll__sched_t *s, int *flag)
{
    int first = s->req_first[s->cursor], n = s->req_first[s->cursor + 1] - first;
    *flag = 1;
    if (n > 0 &&
        PCOLL__MPI(Testall)(n, s->reqs + first, flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "schedule: MPI_Testall in round %d", s->cursor);
    *flag = *flag && polls_done(s);
    return PCOLL_SUCCESS;
}

int pcoll__sched_test(pcoll__sched_t *s, int *done)
{
    int rc = PCOLL_SUCCESS, flag;
    while (rc == PCOLL_SUCCESS && s->cursor < s->nrounds) {
        if ((rc = round_done(s, &flag)) != PCOLL_SUCCESS || !flag)
            break;
        rc = advance(s);
    }
    *done = s->cursor >= s->nrounds;
    return rc;
}

/* Finish the current round, which has poll ops.  A real MPI needs our
 * progress calls while we wait (a peer's rendezvous may need our answer), so
 * the requests are tested between polls and the processor is yielded.  SMPI
 * moves messages without them, and SimGrid 3.32 keeps every failed test
 * registered on the communications it tested, so that repeated MPI_Testall
 * calls make each completion slower and slower (simulations of hier at
 * hundreds of ranks took hours): there the polls are waited for first (they
 * advance simulated time themselves), then the requests. */
static int wait_polled_round(pcoll__sched_t *s)
{
    int rc = PCOLL_SUCCESS, flag = 0;
#ifdef SMPI_H
    int first = s->req_first[s->cursor], n = s->req_first[s->cursor + 1] - first;
    while (!polls_done(s))
        ;
    if (n > 0 && PCOLL__MPI(Waitall)(n, s->reqs + first, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "schedule: MPI_Waitall in round %d", s->cursor);
    (void)flag;
#else
    unsigned looks = 0;
    while ((rc = round_done(s, &flag)) == PCOLL_SUCCESS && !flag)
        pcoll__yield_after(&looks);
#endif
    return rc;
}

void pcoll__yield(void)
{
#ifndef SMPI_H
    sched_yield();
#endif
}

void pcoll__yield_after(unsigned *looks)
{
    if (++*looks >= PCOLL__LOOKS)
        pcoll__yield();
}

int pcoll__sched_wait(pcoll__sched_t *s)
{
    int rc = PCOLL_SUCCESS;
    while (rc == PCOLL_SUCCESS && s->cursor < s->nrounds) {
        int first = s->req_first[s->cursor], n = s->req_first[s->cursor + 1] - first;
        if (!s->polls[s->cursor]) {
            if (n > 0 &&
                PCOLL__MPI(Waitall)(n, s->reqs + first, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
                return pcoll__error(PCOLL_ERR_MPI, "schedule: MPI_Waitall in round %d",
                                    s->cursor);
        } else {
            rc = wait_polled_round(s);
        }
        if (rc == PCOLL_SUCCESS)
            rc = advance(s);
    }
    return rc;
}

void pcoll__sched_free(pcoll__sched_t *s)
{
    int i;
    for (i = 0; i < s->nreqs; i++)
        if (s->reqs[i] != MPI_REQUEST_NULL)
            PCOLL__MPI(Request_free)(&s->reqs[i]);
    for (i = 0; i < s->nops; i++) {
        free_runs(s->ops[i].runs);
        if (s->ops[i].kind == PCOLL__OP_COPY)
            pcoll__copy_free(&s->ops[i].copy);
    }
    pcoll__free(s->reqs);
    pcoll__free(s->req_first);
    pcoll__free(s->steps);
    pcoll__free(s->step_first);
    pcoll__free(s->polls);
    pcoll__free(s->ops);
    pcoll__free(s->round_first);
    pcoll__free(s->scratch);
    memset(s, 0, sizeof *s);
}

static const char *const kind_name[] = {"send", "recv", "copy", "reduce", "poll"};

int pcoll__sched_print(const pcoll__sched_t *s, FILE *out)
{
    int r, i;
    long long sent = 0;
    for (r = 0; r < s->nrounds; r++) {
        int last = r + 1 < s->nrounds || s->committed ? s->round_first[r + 1] : s->nops;
        fprintf(out, "  round %d:", r);
        for (i = s->round_first[r]; i < last; i++) {
            const pcoll__op_t *op = &s->ops[i];
            fprintf(out, " %s %lld B", kind_name[op->kind], op->bytes);
            if (op->kind == PCOLL__OP_SEND || op->kind == PCOLL__OP_RECV)
                fprintf(out, " %s %d", op->kind == PCOLL__OP_SEND ? "to" : "from", op->peer);
            if (op->kind == PCOLL__OP_SEND)
                sent += op->bytes;
            fputc(i + 1 < last ? ';' : '\n', out);
        }
        if (s->round_first[r] == last)
            fputs(" (empty)\n", out);
    }
    fprintf(out, "  %d rounds, %d ops, %lld bytes sent, %zu bytes copy scratch\n", s->nrounds,
            s->nops, sent, s->scratch_bytes);
    return ferror(out) ? PCOLL_ERR_ARG : PCOLL_SUCCESS;
}
