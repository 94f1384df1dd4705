/*
 * In-place alltoallv: local moves of items into the user's buffer.
 *
 * Two kinds (paper section 3.4): send subsets shifted toward higher indices
 * inside their receive set, and items taken from an auxiliary buffer into
 * the freed bottom of their receive set.  Only the type map's bytes are
 * written, never the gaps of an item.
 *
 * Items of a contiguous type are one memmove.  Otherwise the items go
 * through the typed copy of src/datatype (pack and unpack) in chunks of at
 * most stage_items items, highest chunk first: a chunk is read completely
 * before it is written, and every item still unread lies below the items
 * written, so a move to higher indices never overwrites what it has still to
 * read.  The staging memory is therefore bounded (PCOLL__IP_STAGE_BYTES)
 * whatever the message sizes.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"
#include "datatype/copy.h"

/* Copy n items of stype (stride sext bytes) from src to the buffer's items
 * dst .. dst+n-1, highest chunk first. */
static int copy_items(const pcoll__ip_t *ip, const char *src, MPI_Datatype stype, MPI_Aint sext,
                      long long dst, long long n)
{
    long long chunk = ip->contiguous ? n : ip->stage_items;
    int rc = PCOLL_SUCCESS;
    while (n > 0 && rc == PCOLL_SUCCESS) {
        long long c = n < chunk ? n : chunk, first = n - c;
        pcoll__copy_t cp;
        rc = pcoll__copy_prepare((int)c, stype, (int)c, ip->type, &cp);
        if (rc == PCOLL_SUCCESS && cp.scratch > 0 && !ip->stage)
            rc = pcoll__error(PCOLL_ERR_INTERNAL, "in-place alltoallv: no staging memory");
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__copy_run(&cp, src + first * sext, (int)c, stype,
                                 ip->buf + (dst + first) * ip->extent, (int)c, ip->type, ip->stage);
        pcoll__copy_free(&cp); /* holds nothing: items are at most INT_MAX bytes */
        n = first;
    }
    return rc;
}

int pcoll__ip_move_up(const pcoll__ip_t *ip, long long src, long long dst, long long n)
{
    return copy_items(ip, ip->buf + src * ip->extent, ip->type, ip->extent, dst, n);
}

int pcoll__ip_unstage(const pcoll__ip_t *ip, const char *from, long long dst, long long n)
{
    return copy_items(ip, from, ip->sig, ip->size, dst, n);
}
