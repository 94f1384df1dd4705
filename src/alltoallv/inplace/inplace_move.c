/*
 * In-place alltoallv: local moves of items into the user's buffer.
 *
 * Three kinds: send subsets moved toward higher indices inside their
 * receive set (paper section 3.4), items taken from an auxiliary buffer
 * into the freed bottom of their receive set, and a rank's items to itself
 * put into place (inplace_phase.c), possibly sliding down over themselves.
 * Only the type map's bytes are written, never the gaps of an item.
 *
 * Items of a contiguous type are one memmove.  Otherwise the items go
 * through the typed copy of src/datatype (pack and unpack) in chunks of at
 * most stage_items items, highest chunk first for a move up, lowest first
 * for a move down: a chunk is read completely before it is written, and
 * every item still unread lies on the far side of the items written, so a
 * move never overwrites what it has still to read.  The staging memory is
 * therefore bounded (PCOLL__IP_STAGE_BYTES) whatever the message sizes.
 */
#include "alltoallv/inplace/inplace.h"
#include "base/status.h"
#include "datatype/copy.h"

/* Copy n items of stype (stride sext bytes) from src to the buffer's items
 * dst .. dst+n-1, highest chunk first (down: lowest first). */
static int copy_items(const pcoll__ip_t *ip, const char *src, MPI_Datatype stype, MPI_Aint sext,
                      long long dst, long long n, int down)
{
    long long chunk = ip->contiguous ? n : ip->stage_items, done = 0;
    int rc = PCOLL_SUCCESS;
    while (done < n && rc == PCOLL_SUCCESS) {
        long long c = n - done < chunk ? n - done : chunk, first = down ? done : n - done - c;
        pcoll__copy_t cp;
        rc = pcoll__copy_prepare((int)c, stype, (int)c, ip->type, &cp);
        if (rc == PCOLL_SUCCESS && cp.scratch > 0 && !ip->stage)
            rc = pcoll__error(PCOLL_ERR_INTERNAL, "in-place alltoallv: no staging memory");
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__copy_run(&cp, src + first * sext, (int)c, stype,
                                 ip->buf + (dst + first) * ip->extent, (int)c, ip->type, ip->stage);
        pcoll__copy_free(&cp); /* holds nothing: items are at most INT_MAX bytes */
        done += c;
    }
    return rc;
}

int pcoll__ip_move(const pcoll__ip_t *ip, long long src, long long dst, long long n)
{
    return copy_items(ip, ip->buf + src * ip->extent, ip->type, ip->extent, dst, n, dst < src);
}

int pcoll__ip_unstage(const pcoll__ip_t *ip, const char *from, long long dst, long long n)
{
    return copy_items(ip, from, ip->sig, ip->size, dst, n, 0);
}
