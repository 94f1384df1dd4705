/*
 * Datatyped local copy ("transpacking", zero-copy Bruck paper section 3.1):
 * move the data of (src, srccount, srctype) into (dst, dstcount, dsttype).
 *
 * The copy is planned once (pcoll__copy_prepare) and run many times: when
 * both layouts are contiguous it is a memcpy; when one side is contiguous, a
 * single MPI_Pack or MPI_Unpack straight into or out of the user's buffer;
 * otherwise it is staged through a scratch buffer the caller provides.  None
 * of these needs a message to self.  pcoll_typed_copy also insists that the
 * two sides have the same type signature (MPI_PACKED matches any), not just
 * the same number of bytes.
 */
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "datatype/copy.h"
#include "datatype/signature.h"

long long pcoll__type_bytes(MPI_Datatype type, int count)
{
    int size;
    if (MPI_Type_size(type, &size) != MPI_SUCCESS)
        return -1;
    return (long long)size * count;
}

/* Whether the type map is one run in increasing order once it is dense: true
 * for predefined types and for dup, contiguous and resized wrappers of such
 * types.  Conservative: any other constructor answers no (an indexed type
 * may cover a dense range out of order), which only costs a pack. */
static int in_order(MPI_Datatype type)
{
    int ni, na, nd, combiner, ints[1], ok = 0;
    MPI_Aint addrs[2];
    MPI_Datatype inner;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return 1;
    if (combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS &&
        combiner != MPI_COMBINER_RESIZED)
        return 0;
    MPI_Type_get_contents(type, ni, na, nd, ints, addrs, &inner);
    ok = in_order(inner);
    MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&inner);
    return ok;
}

int pcoll__type_is_contiguous(MPI_Datatype type, int count, MPI_Aint *offset)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    *offset = true_lb;
    if (size == 0 || count == 0)
        return 1;
    if (true_extent != size || !in_order(type))
        return 0;
    return count == 1 || extent == size;
}

/* Whether MPI's packed form of (count, type) is just its bytes, so that a
 * contiguous range may stand in for a packed buffer. */
static int packed_as_raw(int count, MPI_Datatype type, long long bytes)
{
    int packsize = 0;
    MPI_Pack_size(count, type, MPI_COMM_SELF, &packsize);
    return packsize == bytes;
}

int pcoll__copy_prepare(int scount, MPI_Datatype stype, int dcount, MPI_Datatype dtype,
                        pcoll__copy_t *c)
{
    long long sbytes = pcoll__type_bytes(stype, scount);
    long long dbytes = pcoll__type_bytes(dtype, dcount);
    int scontig, dcontig;

    memset(c, 0, sizeof *c);
    if (sbytes < 0 || dbytes < 0)
        return pcoll__error(PCOLL_ERR_ARG, "typed copy: invalid datatype");
    if (sbytes != dbytes)
        return pcoll__error(PCOLL_ERR_MISMATCH,
                            "typed copy: source has %lld bytes, destination %lld", sbytes,
                            dbytes);
    c->bytes = (size_t)sbytes;
    scontig = pcoll__type_is_contiguous(stype, scount, &c->src_offset);
    dcontig = pcoll__type_is_contiguous(dtype, dcount, &c->dst_offset);
    if (!packed_as_raw(scount, stype, sbytes) || !packed_as_raw(dcount, dtype, dbytes))
        scontig = dcontig = 0; /* the MPI's packed format is not the raw bytes */
    if (sbytes == 0)
        c->mode = PCOLL__COPY_NONE;
    else if (scontig && dcontig)
        c->mode = PCOLL__COPY_MEMCPY;
    else if (dcontig)
        c->mode = PCOLL__COPY_PACK;
    else if (scontig)
        c->mode = PCOLL__COPY_UNPACK;
    else {
        int packsize;
        MPI_Pack_size(scount, stype, MPI_COMM_SELF, &packsize);
        c->mode = PCOLL__COPY_STAGED;
        c->scratch = (size_t)packsize;
    }
    return PCOLL_SUCCESS;
}

int pcoll__copy_run(const pcoll__copy_t *c, const void *src, int scount, MPI_Datatype stype,
                    void *dst, int dcount, MPI_Datatype dtype, void *scratch)
{
    const char *s = src;
    char *d = dst;
    int pos = 0, err = MPI_SUCCESS;

    switch (c->mode) {
    case PCOLL__COPY_NONE:
        break;
    case PCOLL__COPY_MEMCPY:
        memmove(d + c->dst_offset, s + c->src_offset, c->bytes);
        break;
    case PCOLL__COPY_PACK:
        err = MPI_Pack(src, scount, stype, d + c->dst_offset, (int)c->bytes, &pos,
                       MPI_COMM_SELF);
        break;
    case PCOLL__COPY_UNPACK:
        err = MPI_Unpack(s + c->src_offset, (int)c->bytes, &pos, dst, dcount, dtype,
                         MPI_COMM_SELF);
        break;
    case PCOLL__COPY_STAGED:
        err = MPI_Pack(src, scount, stype, scratch, (int)c->scratch, &pos, MPI_COMM_SELF);
        if (err == MPI_SUCCESS) {
            int upos = 0;
            err = MPI_Unpack(scratch, pos, &upos, dst, dcount, dtype, MPI_COMM_SELF);
        }
        break;
    }
    if (err != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "typed copy: MPI pack/unpack failed (%d)", err);
    return PCOLL_SUCCESS;
}

/* Whether a signature is all MPI_PACKED, which matches any signature. */
static int all_packed(const pcoll__sig_t *s)
{
    return s->nruns == 1 && s->types[0] == MPI_PACKED;
}

/* PCOLL_ERR_MISMATCH unless the two sides carry the same type signature
 * (compared item by item, without expanding the counts). */
static int check_signatures(int scount, MPI_Datatype stype, int dcount, MPI_Datatype dtype)
{
    pcoll__sig_t a, b;
    int rc = pcoll__sig_of(stype, 1, &a);
    if (rc != PCOLL_SUCCESS)
        return rc;
    rc = pcoll__sig_of(dtype, 1, &b);
    if (rc == PCOLL_SUCCESS && !pcoll__sig_match(&a, scount, &b, dcount) && !all_packed(&a) &&
        !all_packed(&b))
        rc = pcoll__error(PCOLL_ERR_MISMATCH,
                          "typed copy: source and destination type signatures differ");
    pcoll__sig_free(&a);
    pcoll__sig_free(&b);
    return rc;
}

int pcoll_typed_copy(const void *src, int srccount, MPI_Datatype srctype,
                     void *dst, int dstcount, MPI_Datatype dsttype)
{
    pcoll__copy_t c;
    void *scratch = NULL;
    int rc;

    if (srccount < 0 || dstcount < 0)
        return pcoll__error(PCOLL_ERR_ARG, "typed copy: negative count");
    if (srctype == MPI_DATATYPE_NULL || dsttype == MPI_DATATYPE_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "typed copy: MPI_DATATYPE_NULL");
    rc = pcoll__copy_prepare(srccount, srctype, dstcount, dsttype, &c);
    if (rc == PCOLL_SUCCESS)
        rc = check_signatures(srccount, srctype, dstcount, dsttype);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (c.scratch > 0 && !(scratch = pcoll__malloc(c.scratch)))
        return pcoll__error(PCOLL_ERR_NOMEM, "typed copy: %zu bytes of scratch", c.scratch);
    rc = pcoll__copy_run(&c, src, srccount, srctype, dst, dstcount, dsttype, scratch);
    pcoll__free(scratch);
    return rc;
}
