/*
 * In-place alltoallv: the memory of a plan, all of it allocated at init
 * through the counted allocator.
 *
 * Besides the user's buffer: at most 3p subsets twice (initial and current,
 * 24 bytes each), about 20 integers per peer, two control messages of
 * PCOLL__IP_CTL ints per peer, 2 (PCOLL__IP_PIECES + 1) requests per peer,
 * the aux buffers (at most pcoll_aux_bytes), and for a non-contiguous type
 * a staging buffer of at most min(pcoll_aux_bytes, PCOLL__IP_STAGE_BYTES)
 * (or one item).  None of it depends on the message sizes.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/mem.h"
#include "base/status.h"

/* The O(p) arrays; 0 or PCOLL_ERR_NOMEM. */
static int alloc_arrays(pcoll__ip_t *ip)
{
    size_t p = (size_t)ip->p, nsub = 3 * p;
    ip->sub0 = pcoll__calloc(nsub, sizeof *ip->sub0);
    ip->sub = pcoll__calloc(nsub, sizeof *ip->sub);
    ip->rorder = pcoll__calloc(nsub, sizeof *ip->rorder);
    ip->sfirst = pcoll__calloc(p + 1, sizeof *ip->sfirst);
    ip->rfirst = pcoll__calloc(p + 1, sizeof *ip->rfirst);
    ip->rbeg = pcoll__calloc(p, sizeof *ip->rbeg);
    ip->rend = pcoll__calloc(p, sizeof *ip->rend);
    ip->scur = pcoll__calloc(p, sizeof *ip->scur);
    ip->srem = pcoll__calloc(p, sizeof *ip->srem);
    ip->rcur = pcoll__calloc(p, sizeof *ip->rcur);
    ip->rlo = pcoll__calloc(p, sizeof *ip->rlo);
    ip->auxn = pcoll__calloc(p, sizeof *ip->auxn);
    ip->tin = pcoll__calloc(p, sizeof *ip->tin);
    ip->tout = pcoll__calloc(p, sizeof *ip->tout);
    ip->peers = pcoll__calloc(p, sizeof *ip->peers);
    ip->out = pcoll__calloc(p * PCOLL__IP_CTL, sizeof *ip->out);
    ip->in = pcoll__calloc(p * PCOLL__IP_CTL, sizeof *ip->in);
    ip->req = pcoll__calloc(p * 2 * (PCOLL__IP_PIECES + 1), sizeof *ip->req);
    ip->aux = pcoll__calloc((size_t)ip->nbuf, sizeof *ip->aux);
    if (!ip->sub0 || !ip->sub || !ip->rorder || !ip->sfirst || !ip->rfirst || !ip->rbeg ||
        !ip->rend || !ip->scur || !ip->srem || !ip->rcur || !ip->rlo || !ip->auxn || !ip->tin ||
        !ip->tout || !ip->peers || !ip->out || !ip->in || !ip->req || !ip->aux)
        return PCOLL_ERR_NOMEM;
    return PCOLL_SUCCESS;
}

int pcoll__ip_alloc(pcoll__ip_t *ip)
{
    long long auxbytes = (long long)ip->nbuf * ip->cap * ip->size;
    int packed = 0;
    if (alloc_arrays(ip) != PCOLL_SUCCESS)
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: index sets for %d ranks",
                            ip->p);
    if (auxbytes > 0 && !(ip->auxmem = pcoll__malloc((size_t)auxbytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: %lld bytes of aux buffers",
                            auxbytes);
    if (ip->contiguous)
        return PCOLL_SUCCESS;
    MPI_Pack_size(ip->stage_items, ip->type, MPI_COMM_SELF, &packed);
    if (!(ip->stage = pcoll__malloc((size_t)packed + 1)))
        return pcoll__error(PCOLL_ERR_NOMEM, "in-place alltoallv: %d bytes of staging", packed);
    return PCOLL_SUCCESS;
}

void pcoll__ip_free(pcoll__ip_t *ip)
{
    size_t i;
    if (!ip)
        return;
    void *all[] = {ip->sub0, ip->sub,    ip->rorder, ip->sfirst, ip->rfirst, ip->rbeg,
                   ip->rend, ip->scur,   ip->srem,   ip->rcur,   ip->rlo,    ip->auxn,
                   ip->tin,  ip->tout,   ip->peers,  ip->out,    ip->in,     ip->req,
                   ip->aux,  ip->auxmem, ip->stage,  ip};
    for (i = 0; i < sizeof all / sizeof *all; i++)
        pcoll__free(all[i]);
}
