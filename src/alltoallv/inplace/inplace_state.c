/*
 * In-place alltoallv: the memory of a plan, all of it allocated at init
 * through the counted allocator.
 *
 * Besides the user's buffer: at most 3p initial subsets and 3p +
 * PCOLL__IP_PIECES p current ones (32 bytes each, with two ints per
 * subset), about 20 integers per peer, PCOLL__IP_NREQ requests per peer and
 * PCOLL__IP_LISTEN more, the aux slots (at most pcoll_aux_bytes, shrunk to what a run
 * can use), and for a non-contiguous type a staging buffer of at most
 * min(pcoll_aux_bytes, PCOLL__IP_STAGE_BYTES) (or one item).  None of it
 * depends on the message sizes.  The fast path for equal layouts
 * (inplace_swap.c) holds its own O(p) arrays instead of
 * the subsets and the same aux and staging buffers.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/mem.h"
#include "base/status.h"
#include "datatype/self.h"

/* The O(p) arrays; 0 or PCOLL_ERR_NOMEM. */
static int alloc_arrays(pcoll__ip_t *ip)
{
    size_t p = (size_t)ip->p, nsub = 3 * p, nreq = PCOLL__IP_NREQ * p + PCOLL__IP_LISTEN;
    ip->npool = (int)(nsub + PCOLL__IP_PIECES * p);
    ip->sub0 = pcoll__calloc(nsub, sizeof *ip->sub0);
    ip->sub = pcoll__calloc((size_t)ip->npool, sizeof *ip->sub);
    ip->spare = pcoll__calloc((size_t)ip->npool, sizeof *ip->spare);
    ip->scratch = pcoll__calloc((size_t)ip->npool, sizeof *ip->scratch);
    ip->rorder = pcoll__calloc(nsub, sizeof *ip->rorder);
    ip->sfirst = pcoll__calloc(p + 1, sizeof *ip->sfirst);
    ip->rfirst = pcoll__calloc(p + 1, sizeof *ip->rfirst);
    ip->rbeg = pcoll__calloc(p, sizeof *ip->rbeg);
    ip->rend = pcoll__calloc(p, sizeof *ip->rend);
    ip->order = pcoll__calloc(p, sizeof *ip->order);
    ip->scur = pcoll__calloc(p, sizeof *ip->scur);
    ip->srem = pcoll__calloc(p, sizeof *ip->srem);
    ip->sfly = pcoll__calloc(p, sizeof *ip->sfly);
    ip->rcur = pcoll__calloc(p, sizeof *ip->rcur);
    ip->rlo = pcoll__calloc(p, sizeof *ip->rlo);
    ip->holes = pcoll__calloc(p, sizeof *ip->holes);
    ip->auxn = pcoll__calloc(p, sizeof *ip->auxn);
    ip->gout = pcoll__calloc(p, sizeof *ip->gout);
    ip->slot = pcoll__calloc(p, sizeof *ip->slot);
    ip->gkind = pcoll__calloc(p, sizeof *ip->gkind);
    ip->gval = pcoll__calloc(p, sizeof *ip->gval);
    ip->gin = pcoll__calloc(p, sizeof *ip->gin);
    ip->gnext = pcoll__calloc(p, sizeof *ip->gnext);
    ip->want = pcoll__calloc((p + 63) / 64, sizeof *ip->want);
    ip->req = pcoll__calloc(nreq, sizeof *ip->req);
    ip->aux = pcoll__calloc((size_t)ip->nbuf + 1, sizeof *ip->aux);
    ip->freeslot = pcoll__calloc((size_t)ip->nbuf + 1, sizeof *ip->freeslot);
    ip->maxout = p + 8;
    ip->olo = pcoll__calloc(2 * (size_t)ip->maxout, sizeof *ip->olo);
    ip->olen = ip->olo ? ip->olo + ip->maxout : NULL;
    if (!ip->sub0 || !ip->sub || !ip->spare || !ip->scratch || !ip->rorder || !ip->sfirst ||
        !ip->rfirst || !ip->rbeg || !ip->rend || !ip->order || !ip->scur || !ip->srem ||
        !ip->sfly || !ip->rcur || !ip->rlo || !ip->holes || !ip->auxn || !ip->gout || !ip->slot ||
        !ip->gkind || !ip->gval || !ip->gin || !ip->gnext || !ip->want || !ip->req || !ip->aux ||
        !ip->freeslot || !ip->olo)
        return PCOLL_ERR_NOMEM;
    for (size_t i = 0; i < nreq; i++)
        ip->req[i] = MPI_REQUEST_NULL;
    /* Grants in the order (s - rank) mod p, s = 0, 1, ... (inplace_run.c). */
    for (int s = 0; s < ip->p; s++)
        ip->order[s] = ((s - ip->rank) % ip->p + ip->p) % ip->p;
    return PCOLL_SUCCESS;
}

int pcoll__ip_alloc(pcoll__ip_t *ip)
{
    if (alloc_arrays(ip) != PCOLL_SUCCESS)
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: index sets for %d ranks",
                            ip->p);
    return pcoll__ip_alloc_buffers(ip, (long long)ip->nbuf * ip->cap * ip->size);
}

int pcoll__ip_alloc_buffers(pcoll__ip_t *ip, long long auxbytes)
{
    int packed = 0;
    if (auxbytes > 0 && !(ip->auxmem = pcoll__malloc((size_t)auxbytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: %lld bytes of aux buffers",
                            auxbytes);
    if (ip->contiguous)
        return PCOLL_SUCCESS;
    MPI_Pack_size(ip->stage_items, ip->type, pcoll__self(), &packed);
    if (!(ip->stage = pcoll__malloc((size_t)packed + 1)))
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: %d bytes of staging", packed);
    return PCOLL_SUCCESS;
}

MPI_Request *pcoll__ip_req(pcoll__ip_t *ip, int q, int kind)
{
    return &ip->req[PCOLL__IP_LISTEN + PCOLL__IP_NREQ * q + kind];
}

/* The fast path's plan (inplace_swap.c). */
static void free_swap(pcoll__ip_swap_t *sw)
{
    if (!sw)
        return;
    void *all[] = {sw->peer, sw->lo, sw->len, sw->lfirst, sw->lane, sw->req, sw};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        pcoll__free(all[i]);
}

void pcoll__ip_free(pcoll__ip_t *ip)
{
    size_t i;
    if (!ip)
        return;
    free_swap(ip->swap);
    void *all[] = {ip->sub0,  ip->sub,    ip->spare, ip->scratch, ip->rorder, ip->sfirst,
                   ip->rfirst, ip->rbeg,  ip->rend,  ip->order,   ip->scur,   ip->srem,
                   ip->sfly,  ip->rcur,   ip->rlo,   ip->holes,   ip->auxn,   ip->gout,
                   ip->slot,  ip->gkind,  ip->gval,  ip->gin,     ip->gnext,  ip->want, ip->req,
                   ip->aux,   ip->freeslot, ip->olo, ip->auxmem, ip->stage, ip};
    for (i = 0; i < sizeof all / sizeof *all; i++)
        pcoll__free(all[i]);
}
