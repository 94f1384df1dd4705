/*
 * In-place alltoallv: the fast path for equal layouts (the MPI_IN_PLACE
 * case of MPI_Alltoallv: this rank's block for peer j lies exactly where
 * peer j's block to it must land, with the same count both ways).
 *
 * Then there is nothing to negotiate (the paper's section 3 needs its
 * request exchange because a receiver's free space depends on what it has
 * sent; here the partner's block replaces ours item for item): two ranks
 * swap their blocks in chunks, and the only room needed is the aux memory
 * a chunk is received into while our own chunk still leaves from its
 * place.  The pairs meet in the rounds of a 1-factorization
 * (patterns/pairing.h: every pair once; for odd p one rank idles per
 * round).  For each chunk: the receive of the partner's chunk into an aux
 * buffer and the send of ours from its place; once both are complete the
 * aux buffer is copied into the place (pcoll__ip_unstage).  A pair whose
 * blocks are empty skips its round (both ranks see the same count).
 *
 * Lanes: round r goes to lane r mod `lanes`; a lane runs its rounds in
 * order as one stream of chunks through `depth` aux buffers: chunk n uses
 * buffer n mod depth and is posted once chunk n - depth is copied, so with
 * depth 2 the next chunk (possibly the next partner's first) is in flight
 * while one is copied (double buffering), and `lanes` partners' transfers
 * overlap.  All lanes progress together: the completed requests of all
 * lanes (every one that has completed for test, one waited for for wait;
 * inplace_wait.c), then every chunk whose two requests are
 * complete is copied and new chunks are posted.  No deadlock: the lowest
 * unfinished round has, on both partners, every earlier round of its lane
 * finished, so both post its chunks.
 *
 * The choice of lanes and chunk size, the same on every rank (from values
 * agreed at init: the smallest aux memory a of all ranks, the largest
 * block B in items, the item size s, the rounds R): depth 2 when a holds
 * two items, else 1; k = floor(a / (depth B s)) lanes, clamped to 1 .. R,
 * and chunks of h = min(B, a / (depth k s)) items.  A lane's chain of
 * chunks is latency-bound, and splitting a into more lanes shortens no
 * chain (each lane's chunks shrink as they multiply), so a is split only
 * as far as whole blocks still fit: small blocks run up to every round at
 * once, blocks above a/2 one partner at a time with a in two halves.
 * (Minimizing ceil(R / k) ceil(B / h_k) instead was measured: its
 * rounding picked 15 lanes of 5.6 KiB chunks at P = 16, 16 MiB, 1.5x
 * slower than one lane.)
 *
 * Cost: messages each way sum over peers of ceil(block / h); every byte is
 * sent once, received once and copied once; no control messages.  Memory:
 * the aux buffers (lanes depth h s <= a bytes), O(p) integers, two
 * requests per aux buffer, and the staging buffer of a non-contiguous type
 * (inplace_state.c); all of it allocated at init.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/pmpi.h"
#include "patterns/pairing.h"

int pcoll__ip_layouts_equal(int p, const int *scounts, const int *sdispls, const int *rcounts,
                            const int *rdispls)
{
    for (int j = 0; j < p; j++)
        if (scounts[j] != rcounts[j] || (scounts[j] > 0 && sdispls[j] != rdispls[j]))
            return 0;
    return 1;
}

void pcoll__ip_swap_choose(pcoll__ip_swap_t *sw, int rounds, long long aux, long long maxblock,
                           int size)
{
    long long items = aux / size, k;
    sw->depth = items >= 2 ? 2 : 1;
    k = maxblock > 0 ? items / (sw->depth * maxblock) : 1;
    k = k < 1 ? 1 : k > rounds ? rounds : k;
    sw->lanes = (int)(k > 0 ? k : 1);
    sw->chunk = items / (sw->depth * (long long)sw->lanes);
    sw->chunk = sw->chunk < maxblock ? sw->chunk : maxblock;
}

/* The pairs with something to swap, lane by lane in round order. */
static void deal(pcoll__ip_swap_t *sw, int p, int rank, const int *counts, const int *displs)
{
    int rounds = pcoll__pairing_rounds(p);
    sw->npair = 0;
    for (int l = 0; l < sw->lanes; l++) {
        sw->lfirst[l] = sw->npair;
        for (int r = l; r < rounds; r += sw->lanes) {
            int q = pcoll__pairing_partner(rank, p, r);
            if (q == rank || counts[q] == 0)
                continue;
            sw->peer[sw->npair] = q;
            sw->lo[sw->npair] = displs[q];
            sw->len[sw->npair++] = counts[q];
        }
    }
    sw->lfirst[sw->lanes] = sw->npair;
}

int pcoll__ip_swap_plan(pcoll__ip_t *ip, const int *counts, const int *displs, long long aux,
                        long long maxblock)
{
    pcoll__ip_swap_t *sw = pcoll__calloc(1, sizeof *sw);
    size_t p = (size_t)ip->p, nreq;
    if (!(ip->swap = sw))
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: swap plan");
    pcoll__ip_swap_choose(sw, pcoll__pairing_rounds(ip->p), aux, maxblock, ip->size);
    nreq = 2 * (size_t)sw->lanes * (size_t)sw->depth;
    sw->peer = pcoll__calloc(p, sizeof *sw->peer);
    sw->lo = pcoll__calloc(p, sizeof *sw->lo);
    sw->len = pcoll__calloc(p, sizeof *sw->len);
    sw->lfirst = pcoll__calloc((size_t)sw->lanes + 1, sizeof *sw->lfirst);
    sw->lane = pcoll__calloc((size_t)sw->lanes, sizeof *sw->lane);
    sw->req = pcoll__calloc(nreq, sizeof *sw->req);
    if (!sw->peer || !sw->lo || !sw->len || !sw->lfirst || !sw->lane || !sw->req)
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: swap of %d ranks", ip->p);
    for (size_t i = 0; i < nreq; i++)
        sw->req[i] = MPI_REQUEST_NULL;
    deal(sw, ip->p, ip->rank, counts, displs);
    return pcoll__ip_alloc_buffers(ip, sw->npair > 0 ? (long long)sw->lanes * sw->depth *
                                                           sw->chunk * ip->size
                                                     : 0);
}

/* ---- a run ----------------------------------------------------------------- */

/* The receive and the send of lane l's buffer b. */
static MPI_Request *reqs_of(const pcoll__ip_swap_t *sw, int l, int b)
{
    return &sw->req[2 * ((long long)l * sw->depth + b)];
}

static char *buffer_of(const pcoll__ip_t *ip, int l, int b)
{
    const pcoll__ip_swap_t *sw = ip->swap;
    return ip->auxmem + ((long long)l * sw->depth + b) * sw->chunk * ip->size;
}

/* Items of the chunk of pair x that starts at item `at` of its block. */
static long long chunk_len(const pcoll__ip_swap_t *sw, int x, long long at)
{
    long long rest = sw->len[x] - at;
    return rest < sw->chunk ? rest : sw->chunk;
}

/* Post lane l's next chunks while a buffer is free. */
static int post(pcoll__ip_t *ip, int l)
{
    pcoll__ip_swap_t *sw = ip->swap;
    pcoll__ip_lane_t *ln = &sw->lane[l];
    while (ln->post < sw->lfirst[l + 1] && ln->nposted - ln->nfinished < sw->depth) {
        int x = ln->post, b = (int)(ln->nposted % sw->depth), q = sw->peer[x];
        long long n = chunk_len(sw, x, ln->post_at);
        MPI_Request *r = reqs_of(sw, l, b);
        int err = pcoll__ip_irecv_sig(ip, buffer_of(ip, l, b), n, q, &r[0]);
        if (err == MPI_SUCCESS)
            err = pcoll__ip_isend(ip, sw->lo[x] + ln->post_at, n, q, &r[1]);
        if (err != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "in-place alltoallv: swap with rank %d (%d)", q,
                                err);
        ln->nposted++;
        ln->post_at += n;
        if (ln->post_at == sw->len[x])
            ln->post++, ln->post_at = 0;
    }
    return PCOLL_SUCCESS;
}

/* Copy lane l's chunks whose receive and send are complete into place, in
 * order. */
static int finish(pcoll__ip_t *ip, int l)
{
    pcoll__ip_swap_t *sw = ip->swap;
    pcoll__ip_lane_t *ln = &sw->lane[l];
    while (ln->nfinished < ln->nposted) {
        int x = ln->done, b = (int)(ln->nfinished % sw->depth), rc;
        MPI_Request *r = reqs_of(sw, l, b);
        long long n = chunk_len(sw, x, ln->done_at);
        if (r[0] != MPI_REQUEST_NULL || r[1] != MPI_REQUEST_NULL)
            break;
        if ((rc = pcoll__ip_unstage(ip, buffer_of(ip, l, b), sw->lo[x] + ln->done_at, n)) !=
            PCOLL_SUCCESS)
            return rc;
        ln->nfinished++;
        ln->done_at += n;
        if (ln->done_at == sw->len[x])
            ln->done++, ln->done_at = 0;
    }
    return PCOLL_SUCCESS;
}

/* Copy what is complete, post what may go; count the lanes left. */
static int advance(pcoll__ip_t *ip)
{
    pcoll__ip_swap_t *sw = ip->swap;
    int l, rc = PCOLL_SUCCESS;
    sw->left = 0;
    for (l = 0; l < sw->lanes && rc == PCOLL_SUCCESS; l++) {
        rc = finish(ip, l);
        if (rc == PCOLL_SUCCESS)
            rc = post(ip, l);
        sw->left += sw->lane[l].done < sw->lfirst[l + 1];
    }
    return rc;
}

static int swap_start(pcoll_plan_t *plan)
{
    pcoll__ip_t *ip = plan->priv;
    pcoll__ip_swap_t *sw = ip->swap;
    for (int l = 0; l < sw->lanes; l++)
        sw->lane[l] = (pcoll__ip_lane_t){sw->lfirst[l], sw->lfirst[l], 0, 0, 0, 0};
    return advance(ip);
}

/* Complete what has arrived (one request, waited for, if `block`; else
 * every one that has completed), then advance. */
static int step(pcoll__ip_t *ip, int block)
{
    pcoll__ip_swap_t *sw = ip->swap;
    int i, rc, nr = 2 * sw->lanes * sw->depth;
    MPI_Status st;
    do
        rc = pcoll__ip_next(nr, sw->req, block, &i, &st);
    while (rc == PCOLL_SUCCESS && i >= 0 && !block);
    if (rc == PCOLL_SUCCESS && block && i < 0)
        return pcoll__error(PCOLL_ERR_INTERNAL, "in-place alltoallv: swap with nothing in flight");
    return rc == PCOLL_SUCCESS ? advance(ip) : rc;
}

static int swap_test(pcoll_plan_t *plan, int *done)
{
    pcoll__ip_t *ip = plan->priv;
    int rc = ip->swap->left == 0 ? PCOLL_SUCCESS : step(ip, 0);
    *done = rc == PCOLL_SUCCESS && ip->swap->left == 0;
    return rc;
}

static int swap_wait(pcoll_plan_t *plan)
{
    pcoll__ip_t *ip = plan->priv;
    int rc = PCOLL_SUCCESS;
    while (rc == PCOLL_SUCCESS && ip->swap->left > 0)
        rc = step(ip, 1);
    return rc;
}

const pcoll__plan_ops_t pcoll__ip_swap_ops = {
    .start = swap_start, .test = swap_test, .wait = swap_wait, .destroy = pcoll__ip_destroy};
