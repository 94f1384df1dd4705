/*
 * In-place alltoallv: one communication phase (paper section 3.1, lines
 * 4-10 of Algorithm 1).
 *
 * Requests.  For every peer q this rank still exchanges items with, it sends
 * q one control message and receives one from q (on the context's control
 * communicator, non-blocking).  The message carries
 *   - the receivable counts of section 3.3 for q's items: recv[q] split into
 *     the items that fit the free space at the bottom of R_q (the lowest
 *     index of smatch(R_q) minus the lowest index of R_q, or all of R_q if
 *     smatch(R_q) is empty; none while older items of q still wait in the
 *     aux buffer) and the items q's aux buffer can take (section 3.5);
 *   - an offer: the lengths of the next unsent subsets of the message to q
 *     (at most PCOLL__IP_PIECES of them).
 * Both ranks of a pair agree on whether they still exchange anything (the
 * items one still has to send are the items the other still has to
 * receive), so the pair always exchanges both messages or neither.
 *
 * Data.  The items that move from a sender to a receiver in this phase are
 * the first min(granted, offered) items of the rest of the message, cut
 * into one MPI message per offered subset and where the part for R_q ends
 * and the part for the aux buffer begins.  Sender and receiver compute the
 * same cuts from the same two control messages, so the messages match one
 * to one and no datatype has to be made while running (the paper sends
 * "send[i] items at indices S_i", which may be several subsets).  Items
 * received in place go to the bottom of R_q (items are received from the
 * lowest to the highest index), the others to the aux buffer.
 *
 * Messages per phase and active peer: 2 control messages of PCOLL__IP_CTL
 * ints, and at most PCOLL__IP_PIECES + 1 data messages each way.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"

/* One MPI message of a phase's transfer: `len` items starting `skip` items
 * into offered piece `piece`, which are items off.. of the transfer. */
typedef struct seg {
    int piece;
    long long skip, off, len;
} seg_t;

/* Items from peer q neither received in place nor waiting in aux. */
static long long recv_left(const pcoll__ip_t *ip, int q)
{
    return ip->rend[q] - ip->rlo[q] - ip->auxn[q];
}

/* Section 3.3 (and 3.5): how many items q may send now, msg[0] into R_q and
 * msg[1] into the aux buffer. */
static void grant(pcoll__ip_t *ip, int q, int *msg)
{
    long long left = recv_left(ip, q), direct = 0;
    if (left > 0 && ip->auxn[q] == 0)
        direct = pcoll__ip_free_end(ip, q) - ip->rlo[q];
    msg[0] = (int)direct;
    msg[1] = (int)pcoll__ip_aux_grant(ip, q, left - direct);
}

/* The lengths of the next unsent subsets of the message to q. */
static void offer(const pcoll__ip_t *ip, int q, int *msg)
{
    int s, n = 0;
    for (s = ip->scur[q]; s < ip->sfirst[q + 1] && n < PCOLL__IP_PIECES; s++)
        msg[3 + n++] = (int)ip->sub[s].len;
    msg[2] = n;
}

int pcoll__ip_post_requests(pcoll__ip_t *ip)
{
    int d, err = MPI_SUCCESS;
    ip->npeers = ip->nreq = 0;
    /* Peers in the order rank+1, rank+2, ...: with a shared aux buffer the
     * first asker wins, and ranks should not all favour the same peers. */
    for (d = 1; d <= ip->p && err == MPI_SUCCESS; d++) {
        int q = (ip->rank + d) % ip->p;
        int *out = ip->out + (long long)q * PCOLL__IP_CTL;
        if (ip->srem[q] == 0 && recv_left(ip, q) == 0)
            continue;
        grant(ip, q, out);
        offer(ip, q, out);
        ip->peers[ip->npeers++] = q;
        err = MPI_Irecv(ip->in + (long long)q * PCOLL__IP_CTL, PCOLL__IP_CTL, MPI_INT, q, ip->tag,
                        ip->ctl, &ip->req[ip->nreq++]);
        if (err == MPI_SUCCESS)
            err = MPI_Isend(out, PCOLL__IP_CTL, MPI_INT, q, ip->tag, ip->ctl, &ip->req[ip->nreq++]);
    }
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: request exchange (%d)", err);
    return PCOLL_SUCCESS;
}

/* The transfer described by a grant (the receiver's message) and an offer
 * (the sender's), cut into messages; returns their number, *total items. */
static int segments(const int *grant_msg, const int *offer_msg, seg_t *seg, long long *total)
{
    long long want = (long long)grant_msg[0] + grant_msg[1], direct = grant_msg[0], off = 0;
    int i, n = 0;
    for (i = 0; i < offer_msg[2] && off < want; i++) {
        long long len = offer_msg[3 + i], skip = 0;
        len = len < want - off ? len : want - off;
        if (off < direct && off + len > direct) {
            skip = direct - off;
            seg[n++] = (seg_t){i, 0, off, skip};
        }
        seg[n++] = (seg_t){i, skip, off + skip, len - skip};
        off += len;
    }
    *total = off;
    return n;
}

/* Post the receives of this phase's items from q. */
static int post_recvs(pcoll__ip_t *ip, int q)
{
    const int *mine = ip->out + (long long)q * PCOLL__IP_CTL;
    seg_t seg[PCOLL__IP_PIECES + 1];
    int i, n = segments(mine, ip->in + (long long)q * PCOLL__IP_CTL, seg, &ip->tin[q]);
    int err = MPI_SUCCESS;
    for (i = 0; i < n && err == MPI_SUCCESS; i++) {
        if (seg[i].off < mine[0])
            err = MPI_Irecv(ip->buf + (ip->rlo[q] + seg[i].off) * ip->extent, (int)seg[i].len,
                            ip->type, q, ip->tag, ip->comm, &ip->req[ip->nreq++]);
        else
            err = MPI_Irecv(pcoll__ip_aux_slot(ip, q, seg[i].off - mine[0]), (int)seg[i].len,
                            ip->sig, q, ip->tag, ip->comm, &ip->req[ip->nreq++]);
    }
    return err;
}

/* Post the sends of this phase's items to q, straight from its subsets. */
static int post_sends(pcoll__ip_t *ip, int q)
{
    const int *mine = ip->out + (long long)q * PCOLL__IP_CTL;
    seg_t seg[PCOLL__IP_PIECES + 1];
    int i, n = segments(ip->in + (long long)q * PCOLL__IP_CTL, mine, seg, &ip->tout[q]);
    int err = MPI_SUCCESS;
    for (i = 0; i < n && err == MPI_SUCCESS; i++) {
        const pcoll__ip_sub_t *s = &ip->sub[ip->scur[q] + seg[i].piece];
        err = MPI_Isend(ip->buf + (s->lo + seg[i].skip) * ip->extent, (int)seg[i].len, ip->type, q,
                        ip->tag, ip->comm, &ip->req[ip->nreq++]);
    }
    return err;
}

int pcoll__ip_post_data(pcoll__ip_t *ip)
{
    int i, err = MPI_SUCCESS;
    ip->nreq = 0;
    for (i = 0; i < ip->npeers && err == MPI_SUCCESS; i++)
        err = post_recvs(ip, ip->peers[i]);
    for (i = 0; i < ip->npeers && err == MPI_SUCCESS; i++)
        err = post_sends(ip, ip->peers[i]);
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: data exchange (%d)", err);
    return PCOLL_SUCCESS;
}
