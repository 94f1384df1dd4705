/*
 * In-place alltoallv: the transfers (paper section 3.1, lines 4-10 of
 * Algorithm 1, and section 3.3), without global phases.
 *
 * The paper's phase is one request exchange with every peer that still has
 * items (2 control messages each), then the data exchange, then the update
 * of section 3.4, all ranks in step.  With 1% aux memory that is about 100
 * phases, each costing O(p) messages and two latencies whether a peer sends
 * anything in it or not.  Here each pair runs its own phases, and only the
 * pairs that move data exchange messages:
 *
 * Grant.  When this rank has room for items of peer q (section 3.3: the
 * free space at the bottom of R_q, up to the lowest item of smatch(R_q)) or
 * a free aux slot (3.5), it posts the receive of up to n items there and
 * sends q the one int n on the control communicator.  At most one grant per
 * peer is in flight; while items of q wait in slots, only another slot
 * (q's items are placed in arrival order: a peer's slots form a chain,
 * inplace_aux.c).  Direct room is taken when it holds a whole transfer
 * (min(items left, slot size)), at most PCOLL__IP_GRANT_BYTES (or a slot)
 * per grant (gathered first, when R_q's room is small, from the rank's
 * free space elsewhere: parking, inplace_update.c); else a free slot; else
 * whatever room there is, unless it is
 * less than a third of a slot or 4 KiB (PCOLL__IP_SMALL_BYTES) and a data
 * transfer of this rank is in flight: then it waits for that transfer,
 * after which it is
 * offered again, larger (every message costs its overheads at both ends;
 * with many peers and little room most grants were of a few hundred
 * bytes).  The rank with nothing in flight grants whatever it has, so the
 * run still ends (inplace_run.c).
 *
 * Which peer gets a slot.  Items in a slot wait there until R_q has room at
 * its bottom, which opens only when this rank's unsent items lying there
 * have left; a slot given to a peer whose R_q is blocked by items nobody has
 * asked for yet stays full while others could have used it (measured at
 * p = 16, 16 MiB per rank, 1% aux: all slots held 95% of the time, mostly
 * full and waiting, and no data arriving 10-25% of the time).  So a step
 * offers in rounds (inplace_run.c): first room that will not wait, direct
 * room holding a whole transfer or a slot for a peer whose R_q's lowest
 * unsent items are in flight now (pcoll__ip_opening), also a further slot
 * to such a peer whose items already wait; then the rule above for the
 * rest; then further slots to any peer.
 *
 * Response.  q answers a grant of n with one message: its next items to us,
 * up to n, from at most PCOLL__IP_SEND_PIECES subsets in message order:
 * straight from the buffer when they are one subset, else through an
 * hindexed type over the subsets (made, used and freed at once).  The
 * receiver learns the count from the status.  A shorter answer only means
 * another grant later.  (A message has one subset per receive set it crosses,
 * 3p in all, section 3.2; the updates split subsets into pieces,
 * inplace_update.c, which is why one answer may take several.)
 *
 * So a transfer costs one int and one data message, and it begins as soon
 * as its room exists: the sends that free room (and the local moves that
 * join it, inplace_update.c) of one transfer overlap the flight of others.
 * The room of a phase is what a grant may fill, so the aux memory moves in
 * transfers of whole slots.  Both ranks of a pair agree on the items left
 * (what one has to send the other has to receive), so every grant is
 * answered and every answer is received.
 */
#include <limits.h>

#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

int pcoll__ip_isend(const pcoll__ip_t *ip, long long lo, long long n, int q, MPI_Request *r)
{
    return MPI_Isend(ip->buf + lo * ip->extent, (int)n, ip->type, q, ip->tag, ip->comm, r);
}

int pcoll__ip_irecv_sig(const pcoll__ip_t *ip, char *to, long long n, int q, MPI_Request *r)
{
    return MPI_Irecv(to, (int)n, ip->sig, q, ip->tag, ip->comm, r);
}

int pcoll__ip_listen(pcoll__ip_t *ip)
{
    int k, err;
    for (k = 0; k < PCOLL__IP_LISTEN && ip->nlisten < ip->gwait; k++) {
        if (ip->req[k] != MPI_REQUEST_NULL)
            continue;
        err = MPI_Irecv(&ip->gany[k], 1, MPI_INT, MPI_ANY_SOURCE, ip->tag, ip->ctl, &ip->req[k]);
        ip->nact++;
        ip->nlisten++;
        if (err != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: receive of grants (%d)", err);
    }
    return PCOLL_SUCCESS;
}

int pcoll__ip_expect_grant(pcoll__ip_t *ip)
{
    ip->gwait++;
    return pcoll__ip_listen(ip);
}

/* Items of q neither in place, nor in aux, nor granted. */
static long long left_of(const pcoll__ip_t *ip, int q)
{
    return ip->rend[q] - ip->rlo[q] - ip->auxn[q] - ip->gout[q];
}

void pcoll__ip_want(pcoll__ip_t *ip, int q)
{
    int at = (q + ip->rank) % ip->p; /* q's place in ip->order */
    unsigned long long bit = 1ULL << (at % 64);
    if (ip->gout[q] == 0 && left_of(ip, q) > 0 &&
        *pcoll__ip_req(ip, q, PCOLL__IP_GRANT_OUT) == MPI_REQUEST_NULL)
        ip->want[at / 64] |= bit;
    else
        ip->want[at / 64] &= ~bit;
}

/* Room (items) under which a grant waits while a transfer is in flight. */
static long long small_grant(const pcoll__ip_t *ip)
{
    long long slot = ip->cap / PCOLL__IP_SMALL_GRANT, most = PCOLL__IP_SMALL_BYTES / ip->size;
    return slot < most ? slot : most;
}

/* How many items to grant q, and where (*kind 1: a slot, taken), in offer
 * round `pass`. */
static long long grant_size(pcoll__ip_t *ip, int q, int pass, int *kind)
{
    long long left = left_of(ip, q), whole = left < ip->cap ? left : ip->cap;
    /* Behind items waiting in a slot only another slot keeps the order. */
    long long room = ip->auxn[q] > 0 ? 0 : pcoll__ip_free_end(ip, q) - ip->rlo[q];
    long long most = PCOLL__IP_GRANT_BYTES / ip->size > ip->cap ? PCOLL__IP_GRANT_BYTES / ip->size
                                                                : ip->cap;
    *kind = 0;
    if (room >= whole || room >= left) {
        room = room < left ? room : left;
        return room < most ? room : most;
    }
    if ((pass & PCOLL__IP_SOON) && !pcoll__ip_opening(ip, q))
        return 0; /* a slot now would wait long: first the peers it would not */
    if (pcoll__ip_aux_take(ip, q) >= 0) {
        *kind = 1;
        return whole;
    }
    if (room < small_grant(ip) && ip->ndata > 0)
        return 0; /* small: wait for more room, a completion will come */
    return room;
}

/* The items to this rank itself, without a message where it can: when the
 * lowest unsent items of R_self are the next items to itself, they slide
 * down to R_self's bottom whole (only free space lies between); else as
 * many of the next items as the room at R_self's bottom holds are copied
 * into it, from at most PCOLL__IP_SEND_PIECES subsets.  Then the index sets
 * are updated as for items sent and received; *placed: the items placed.
 * With no room (R_self's bottom holds later items to itself, or items to
 * others), nothing: then a slot is granted by message as to any peer. */
static int to_self(pcoll__ip_t *ip, long long *placed)
{
    int me = ip->rank, x = ip->scur[me], low = ip->rcur[me], k, rc = PCOLL_SUCCESS;
    long long n = 0, room;
    while (low >= 0 && ip->sub[low].len == 0)
        low = ip->sub[low].rnext;
    if (x >= 0 && x == low) {
        n = ip->sub[x].len;
        rc = pcoll__ip_move(ip, ip->sub[x].lo, ip->rlo[me], n);
    } else {
        room = pcoll__ip_free_end(ip, me) - ip->rlo[me];
        for (k = 0; x >= 0 && n < room && k < PCOLL__IP_SEND_PIECES && rc == PCOLL_SUCCESS;
             x = ip->sub[x].next, k++) {
            long long c = room - n < ip->sub[x].len ? room - n : ip->sub[x].len;
            rc = pcoll__ip_move(ip, ip->sub[x].lo, ip->rlo[me] + n, c);
            n += c;
        }
    }
    *placed = n;
    if (n == 0 || rc != PCOLL_SUCCESS)
        return rc;
    ip->rlo[me] += n;
    ip->items_left -= n;
    ip->sfly[me] = n;
    return pcoll__ip_sent(ip, me);
}

int pcoll__ip_place_self(pcoll__ip_t *ip, long long *placed)
{
    int me = ip->rank, err;
    *placed = 0;
    if (ip->gout[me] > 0 || ip->auxn[me] > 0 || ip->sfly[me] > 0 || left_of(ip, me) <= 0 ||
        *pcoll__ip_req(ip, me, PCOLL__IP_GRANT_OUT) != MPI_REQUEST_NULL)
        return PCOLL_SUCCESS;
    if (ip->holes[me] && (err = pcoll__ip_join(ip, me)) != PCOLL_SUCCESS)
        return err;
    err = to_self(ip, placed);
    pcoll__ip_want(ip, me);
    return err;
}

int pcoll__ip_grant(pcoll__ip_t *ip, int q, int pass)
{
    long long n;
    int kind, err;
    ip->count.looks++;
    if (ip->gout[q] > 0 || (ip->auxn[q] > 0) != ((pass & PCOLL__IP_MORE) != 0) ||
        left_of(ip, q) <= 0 || *pcoll__ip_req(ip, q, PCOLL__IP_GRANT_OUT) != MPI_REQUEST_NULL)
        return PCOLL_SUCCESS;
    if (ip->holes[q] && (err = pcoll__ip_join(ip, q)) != PCOLL_SUCCESS)
        return err;
    if (q == ip->rank && ip->sfly[q] > 0) /* its answer by message still leaving */
        return PCOLL_SUCCESS;
    if (q != ip->rank && !(pass & PCOLL__IP_MORE)) { /* direct room for a larger transfer */
        long long left = left_of(ip, q), most = PCOLL__IP_PARK_SLOTS * ip->cap;
        if ((err = pcoll__ip_park(ip, q, left < most ? left : most)) != PCOLL_SUCCESS)
            return err;
    }
    n = grant_size(ip, q, pass, &kind);
    if (n <= 0)
        return PCOLL_SUCCESS;
    n = n < INT_MAX ? n : INT_MAX;
    if (q == ip->rank && (err = pcoll__ip_expect_grant(ip)) != PCOLL_SUCCESS)
        return err;
    ip->gout[q] = n;
    ip->gkind[q] = kind;
    ip->gval[q] = (int)n;
    ip->grants++;
    if (kind)
        err = pcoll__ip_irecv_sig(ip, pcoll__ip_aux_slot(ip, q), n, q,
                                  pcoll__ip_req(ip, q, PCOLL__IP_DATA_IN));
    else
        err = MPI_Irecv(ip->buf + ip->rlo[q] * ip->extent, (int)n, ip->type, q, ip->tag, ip->comm,
                        pcoll__ip_req(ip, q, PCOLL__IP_DATA_IN));
    if (err == MPI_SUCCESS)
        err = MPI_Isend(&ip->gval[q], 1, MPI_INT, q, ip->tag, ip->ctl,
                        pcoll__ip_req(ip, q, PCOLL__IP_GRANT_OUT));
    ip->nact += 2;
    ip->ndata++;
    pcoll__ip_want(ip, q);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: grant to rank %d (%d)", q, err);
    return PCOLL_SUCCESS;
}

/* Send the n items of the k subsets (their first items: lens[i] from
 * item lo[i]) to q in one message. */
static int send_pieces(pcoll__ip_t *ip, int k, const long long *lo, int *lens, int q,
                       MPI_Request *r)
{
    MPI_Aint disp[PCOLL__IP_SEND_PIECES];
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int i, err;
    if (k == 1)
        return pcoll__ip_isend(ip, lo[0], lens[0], q, r);
    for (i = 0; i < k; i++)
        disp[i] = (MPI_Aint)lo[i] * ip->extent;
    err = MPI_Type_create_hindexed(k, lens, disp, ip->type, &t);
    if (err == MPI_SUCCESS && (err = MPI_Type_commit(&t)) == MPI_SUCCESS)
        err = MPI_Isend(ip->buf, 1, t, q, ip->tag, ip->comm, r);
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_free(&t); /* the send in flight keeps what it needs */
    return err;
}

int pcoll__ip_respond(pcoll__ip_t *ip, int q)
{
    long long lo[PCOLL__IP_SEND_PIECES], n = 0;
    int lens[PCOLL__IP_SEND_PIECES], k = 0, x, err;
    for (x = ip->scur[q]; x >= 0 && n < ip->gin[q] && k < PCOLL__IP_SEND_PIECES;
         x = ip->sub[x].next) {
        long long c = ip->gin[q] - n < ip->sub[x].len ? ip->gin[q] - n : ip->sub[x].len;
        lo[k] = ip->sub[x].lo;
        lens[k++] = (int)c;
        n += c;
    }
    ip->gin[q] = 0;
    ip->sfly[q] = n;
    ip->nact++;
    ip->ndata++;
    ip->count.answers++;
    err = send_pieces(ip, k, lo, lens, q, pcoll__ip_req(ip, q, PCOLL__IP_DATA_OUT));
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: items to rank %d (%d)", q, err);
    /* q grants again while items to it are left (to itself: see grant) */
    return q != ip->rank && ip->srem[q] > n ? pcoll__ip_expect_grant(ip) : PCOLL_SUCCESS;
}

int pcoll__ip_received(pcoll__ip_t *ip, int q, long long n)
{
    ip->gout[q] = 0;
    ip->roomgen++;
    if (!ip->gkind[q]) {
        ip->rlo[q] += n;
        ip->items_left -= n;
        pcoll__ip_want(ip, q);
        return PCOLL_SUCCESS;
    }
    pcoll__ip_aux_append(ip, q, n);
    pcoll__ip_want(ip, q);
    return pcoll__ip_join(ip, q);
}
