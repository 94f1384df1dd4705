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
 *
 * Sizes are MPI_Count / size_t throughout: an item may exceed 2 GiB (then
 * MPI_Type_size says MPI_UNDEFINED), and so may a block of an int count.
 * With MPI-4 one MPI_Pack_c / MPI_Unpack_c call moves any size; with MPI-3
 * the int-sized calls move at most INT_MAX bytes each, so a larger copy runs
 * in pieces of whole items: of the type itself, or of the type inside its
 * contiguous wrappers (a block type of a large count); an item over INT_MAX
 * bytes on a side that must be packed, with no such wrapper, is
 * PCOLL_ERR_UNSUPPORTED there (pcoll__type_check_packable says so before
 * anything is built).  A staged copy of more than PCOLL__COPY_PIECE bytes
 * runs in pieces of whole items of both sides, so its scratch stays near
 * that size whatever the message (items that line up only past INT_MAX
 * bytes, with MPI-3: packed whole into scratch, then unpacked, in pieces).
 *
 * MPI_BOTTOM: MPI may refuse a NULL buffer in MPI_Pack and MPI_Unpack
 * (MPICH does), though MPI_BOTTOM with a type of absolute addresses is
 * valid; pcoll__copy_bottom gives such a side a non-NULL base (the data's
 * first byte) and the type shifted by minus that address.  Offsets from a
 * buffer are added as integers (pcoll__addr), never to a NULL pointer.
 */
#include <limits.h>
#include <string.h>

#include "base/mem.h"
#include "base/status.h"
#include "datatype/contents.h"
#include "datatype/copy.h"
#include "datatype/self.h"
#include "datatype/signature.h"

/* The most bytes one MPI_Pack / MPI_Unpack call moves. */
#if PCOLL__MPI_BIGCOUNT
#define PACK_LIMIT LLONG_MAX
#else
#define PACK_LIMIT ((long long)INT_MAX)
#endif

static int in_order(MPI_Datatype type);

/* The derived types MPI_Type_get_contents returned are the caller's. */
static void release(MPI_Datatype *types, int n)
{
    for (int i = 0; i < n; i++)
        pcoll__type_release(&types[i]);
}

/* A struct of at most 4 members, each one dense run in order, each
 * starting where the one before ends (pcoll_type_signature's type of a run
 * of more than INT_MAX items is such a struct). */
static int struct_in_order(MPI_Datatype type)
{
    int ni, na, nd, combiner, ints[5], ok = 1;
    MPI_Aint addrs[4], end = 0;
    MPI_Datatype types[4];
    if (pcoll__type_envelope(type, &ni, &na, &nd, &combiner) != 0 || ni > 5 || na > 4 ||
        nd > 4)
        return 0;
    pcoll__type_contents(type, ni, na, nd, ints, addrs, types);
    for (int i = 0; i < ints[0] && ok; i++) {
        MPI_Count size = 0;
        MPI_Aint lb, ext, tlb = 0, text;
        ok = in_order(types[i]) && pcoll__type_size(types[i], &size) == PCOLL_SUCCESS &&
             pcoll__type_extent(types[i], &lb, &ext) == PCOLL_SUCCESS &&
             pcoll__type_true_extent(types[i], &tlb, &text) == PCOLL_SUCCESS &&
             text == size && (ints[1 + i] == 1 || ext == size) &&
             (i == 0 || addrs[i] + tlb == end);
        if (ok)
            end = addrs[i] + tlb + (MPI_Aint)(size * ints[1 + i]);
    }
    release(types, nd);
    return ok;
}

/* Whether the type map is one run in increasing order once it is dense: true
 * for predefined types, for dup, contiguous and resized wrappers of such
 * types, and for small structs of such runs placed end to end.
 * Conservative: any other constructor answers no (an indexed type may cover
 * a dense range out of order), which only costs a pack. */
static int in_order(MPI_Datatype type)
{
    int ni, na, nd, combiner, ints[1], ok = 0;
    MPI_Aint addrs[2];
    MPI_Datatype inner;
    if (pcoll__type_envelope(type, &ni, &na, &nd, &combiner) != 0)
        return 0; /* a large-count type: not decoded, packed by MPI */
    if (combiner == MPI_COMBINER_NAMED)
        return 1;
    if (combiner == MPI_COMBINER_STRUCT)
        return struct_in_order(type);
    if (combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS &&
        combiner != MPI_COMBINER_RESIZED)
        return 0;
    if (ni > 1 || na > 2 || nd != 1)
        return 0;
    pcoll__type_contents(type, ni, na, nd, ints, addrs, &inner);
    ok = in_order(inner);
    release(&inner, 1);
    return ok;
}

/* Size, extent and true extent of a type (zeros if MPI refuses it). */
typedef struct dims {
    MPI_Count size;
    MPI_Aint lb, extent, true_lb, true_extent;
} dims_t;

static int dims_of(MPI_Datatype type, dims_t *d)
{
    int rc = pcoll__type_size(type, &d->size);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__type_extent(type, &d->lb, &d->extent);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__type_true_extent(type, &d->true_lb, &d->true_extent);
    return rc;
}

static int contiguous(MPI_Datatype type, const dims_t *d, int count)
{
    if (d->size == 0 || count == 0)
        return 1;
    if (d->true_extent != d->size || !in_order(type))
        return 0;
    return count == 1 || d->extent == d->size;
}

int pcoll__type_is_contiguous(MPI_Datatype type, int count, MPI_Aint *offset)
{
    dims_t d;
    if (dims_of(type, &d) != PCOLL_SUCCESS) {
        *offset = 0;
        return 0;
    }
    *offset = d.true_lb;
    return contiguous(type, &d, count);
}

/* MPI-3: the type inside contiguous and dup wrappers of type whose items
 * fit in one MPI_Pack call (*inner = type if type's do, or if no wrapper is
 * left to open; *owned: a derived type the caller frees), and its dims. */
static int unwrap(MPI_Datatype type, dims_t *d, MPI_Datatype *inner, int *owned)
{
    int ni, na, nd, combiner, ints[1], rc = PCOLL_SUCCESS;
    MPI_Aint addrs[1];
    MPI_Datatype t;
    *inner = type;
    *owned = 0;
    while (rc == PCOLL_SUCCESS && d->size > PACK_LIMIT) {
        if (pcoll__type_envelope(*inner, &ni, &na, &nd, &combiner) != 0 ||
            (combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) || ni > 1 ||
            na > 0 || nd != 1)
            break;
        pcoll__type_contents(*inner, ni, na, nd, ints, addrs, &t);
        if (*owned)
            MPI_Type_free(inner);
        *inner = t;
        *owned = !pcoll__type_predefined(t);
        rc = dims_of(t, d);
    }
    return rc;
}

int pcoll__type_check_packable(MPI_Datatype type, const char *what, const char *fn)
{
    MPI_Datatype inner;
    dims_t d;
    int owned;
    if (PCOLL__MPI_BIGCOUNT || dims_of(type, &d) != PCOLL_SUCCESS || d.size <= PACK_LIMIT ||
        contiguous(type, &d, 1))
        return PCOLL_SUCCESS;
    if (unwrap(type, &d, &inner, &owned) == PCOLL_SUCCESS && owned)
        MPI_Type_free(&inner);
    if (d.size <= PACK_LIMIT)
        return PCOLL_SUCCESS;
    return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                        "%s: %s has items of %lld bytes that are not contiguous: more than "
                        "MPI %d.%d packs in one call (it has no MPI_Pack_c)",
                        fn, what, (long long)d.size, MPI_VERSION, MPI_SUBVERSION);
}

/* The bytes of count items of type in MPI's packed form; -1 when the MPI
 * cannot say (MPI-3 and more than INT_MAX bytes). */
static long long pack_size(MPI_Count count, MPI_Datatype type, MPI_Count size)
{
#if PCOLL__MPI_BIGCOUNT
    MPI_Count n = 0;
    (void)size;
    return MPI_Pack_size_c(count, type, pcoll__self(), &n) == MPI_SUCCESS ? (long long)n : -1;
#else
    int n = 0;
    /* An int answer: ask only where the packed form surely fits. */
    if (count > INT_MAX || size > (INT_MAX - 1024) / (count > 0 ? count : 1))
        return -1;
    return MPI_Pack_size((int)count, type, pcoll__self(), &n) == MPI_SUCCESS ? n : -1;
#endif
}

/* Whether MPI's packed form of (count, type) is just its bytes, so that a
 * contiguous range may stand in for a packed buffer (and pieces of it may be
 * packed one after the other).  Where MPI cannot say for the whole, one item
 * answers; where it cannot say for one item either (MPI-3, an item over
 * INT_MAX bytes, which it could not pack anyway), the bytes are taken as
 * raw, as every MPI packs them on a homogeneous system. */
static int packed_as_raw(int count, MPI_Datatype type, MPI_Count size)
{
    long long all = pack_size(count, type, size), one;
    if (all >= 0)
        return all == (long long)size * count;
    one = pack_size(1, type, size);
    return one < 0 || one == size;
}

static long long gcd(long long x, long long y)
{
    while (y) {
        long long t = x % y;
        x = y;
        y = t;
    }
    return x;
}

/* The largest multiple of unit that is at most limit (0: none). */
static size_t fit(long long unit, long long limit)
{
    return unit <= limit ? (size_t)(limit / unit * unit) : 0;
}

static int too_big(long long unit)
{
    return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                        "typed copy: a piece of whole items has %lld bytes, more than one "
                        "MPI_Pack call takes (%lld; MPI %d.%d has no MPI_Pack_c)",
                        unit, (long long)PACK_LIMIT, MPI_VERSION, MPI_SUBVERSION);
}

/* Split the copy into MPI calls: PACK pieces are whole source items, UNPACK
 * pieces whole destination items, STAGED pieces whole items of both (and at
 * most about PCOLL__COPY_PIECE bytes, the scratch they need).  Where whole
 * items of both sides line up only past what one call takes (MPI-3), a
 * staged copy whose packed form is the raw bytes (raw) packs everything into
 * scratch in pieces of source items, then unpacks it in pieces of
 * destination items. */
static int plan_pieces(pcoll__copy_t *c, MPI_Datatype stype, int raw)
{
    long long bytes = (long long)c->bytes, unit, limit = PACK_LIMIT, packed = -1;
    if (c->mode != PCOLL__COPY_STAGED) {
        unit = c->mode == PCOLL__COPY_PACK ? c->ssize : c->dsize;
        c->piece = bytes <= PACK_LIMIT ? (size_t)bytes : fit(unit, PACK_LIMIT);
        return c->piece ? PCOLL_SUCCESS : too_big(unit);
    }
    unit = c->ssize / gcd(c->ssize, c->dsize) * c->dsize; /* <= bytes: no overflow */
    limit = limit < PCOLL__COPY_PIECE ? limit : PCOLL__COPY_PIECE;
    if (bytes <= limit)
        c->piece = (size_t)bytes;
    else if (unit <= limit)
        c->piece = fit(unit, limit);
    else if (unit <= PACK_LIMIT)
        c->piece = (size_t)unit; /* one common multiple at a time */
    if (c->piece)
        packed = pack_size((MPI_Count)(c->piece / (size_t)c->ssize), stype, c->ssize);
    if (packed >= 0 && packed <= PACK_LIMIT) {
        c->scratch = (size_t)packed;
        return PCOLL_SUCCESS;
    }
    if (raw && c->ssize <= PACK_LIMIT && c->dsize <= PACK_LIMIT) {
        c->split = 1;
        c->piece = fit(c->ssize, PACK_LIMIT);
        c->dpiece = fit(c->dsize, PACK_LIMIT);
        c->scratch = c->bytes;
        return PCOLL_SUCCESS;
    }
    return too_big(c->piece ? (long long)c->piece : unit);
}

/* A side whose items are too large for one MPI_Pack call: count in the
 * items inside its contiguous wrappers (flag: PCOLL__COPY_SITEM or _DITEM;
 * the OWN flag is the next but one bit). */
static int item_of(pcoll__copy_t *c, MPI_Datatype type, dims_t *d, MPI_Datatype *item, int flag)
{
    int owned, rc = unwrap(type, d, item, &owned);
    if (rc != PCOLL_SUCCESS) {
        if (owned)
            MPI_Type_free(item);
        return rc;
    }
    c->flags |= flag | (owned ? flag << 2 : 0);
    return PCOLL_SUCCESS;
}

/* One side as n blocks of b bytes at a fixed stride: a contiguous side is
 * one block; one item of an hvector or vector of MPI_BYTE whose blocks
 * follow each other upwards without overlap (what the node engine's merged
 * copy runs make, hier/hier_copy.c) is its blocks.  0: neither.  Such blocks
 * are copied by memmove: some MPIs pack a vector of bytes one byte at a
 * time (MPICH 5: 1 ns a byte, 4 KiB blocks 5x slower than memcpy). */
static int strided(MPI_Datatype type, int count, int contig, MPI_Count size, MPI_Count *n,
                   MPI_Count *b, MPI_Aint *stride)
{
    pcoll__contents_t k = {0};
    int ni, na, nd, combiner, ok = 0;
    if (contig) {
        *n = 1, *b = size * count, *stride = 0;
        return 1;
    }
    if (count != 1 || pcoll__type_envelope(type, &ni, &na, &nd, &combiner) != 0 ||
        (combiner != MPI_COMBINER_HVECTOR && combiner != MPI_COMBINER_VECTOR) ||
        pcoll__contents_get(type, "typed copy", &k) != PCOLL_SUCCESS) {
        pcoll__contents_free(&k);
        return 0;
    }
    if (k.types[0] == MPI_BYTE && k.ints[0] > 0 && k.ints[1] > 0) {
        *n = k.ints[0], *b = k.ints[1];
        *stride = combiner == MPI_COMBINER_HVECTOR ? k.addrs[0] : (MPI_Aint)k.ints[2];
        ok = *stride >= *b;
    }
    pcoll__contents_free(&k);
    return ok;
}

/* Both sides as the same blocks (a contiguous side cut like the other):
 * the STRIDED mode, 1; else 0. */
static int as_strided(pcoll__copy_t *c, int scount, MPI_Datatype stype, int scontig,
                      int dcount, MPI_Datatype dtype, int dcontig)
{
    MPI_Count sn, sb, dn, db;
    MPI_Aint ss, ds;
    if (!strided(stype, scount, scontig, c->ssize, &sn, &sb, &ss) ||
        !strided(dtype, dcount, dcontig, c->dsize, &dn, &db, &ds))
        return 0;
    if (sn == 1 && dn > 1)
        sn = dn, sb = db, ss = db;
    else if (dn == 1 && sn > 1)
        dn = sn, db = sb, ds = sb;
    if (sn != dn || sb != db || sn * sb != (MPI_Count)c->bytes)
        return 0;
    c->mode = PCOLL__COPY_STRIDED;
    c->nblocks = sn, c->block = (size_t)sb, c->sstride = ss, c->dstride = ds;
    return 1;
}

int pcoll__copy_prepare(int scount, MPI_Datatype stype, int dcount, MPI_Datatype dtype,
                        pcoll__copy_t *c)
{
    long long sbytes = pcoll__type_bytes(stype, scount);
    long long dbytes = pcoll__type_bytes(dtype, dcount);
    dims_t s, d;
    int scontig, dcontig, raw, rc = PCOLL_SUCCESS;

    memset(c, 0, sizeof *c);
    c->srel = c->drel = MPI_DATATYPE_NULL;
    if (sbytes < 0 || dbytes < 0 || dims_of(stype, &s) != PCOLL_SUCCESS ||
        dims_of(dtype, &d) != PCOLL_SUCCESS)
        return pcoll__error(PCOLL_ERR_ARG, "typed copy: invalid datatype or count");
    if (sbytes != dbytes)
        return pcoll__error(PCOLL_ERR_MISMATCH,
                            "typed copy: source has %lld bytes, destination %lld", sbytes,
                            dbytes);
    c->bytes = (size_t)sbytes;
    c->ssize = s.size, c->dsize = d.size;
    c->sext = s.extent, c->dext = d.extent;
    c->src_offset = s.true_lb;
    c->dst_offset = d.true_lb;
    if (sbytes == 0) {
        c->mode = PCOLL__COPY_NONE;
        return PCOLL_SUCCESS;
    }
    scontig = contiguous(stype, &s, scount);
    dcontig = contiguous(dtype, &d, dcount);
    raw = packed_as_raw(scount, stype, s.size) && packed_as_raw(dcount, dtype, d.size);
    if (!raw)
        scontig = dcontig = 0; /* the MPI's packed format is not the raw bytes */
    if (scontig && dcontig)
        c->mode = PCOLL__COPY_MEMCPY;
    else if (raw && as_strided(c, scount, stype, scontig, dcount, dtype, dcontig))
        return PCOLL_SUCCESS;
    else if (dcontig)
        c->mode = PCOLL__COPY_PACK;
    else if (scontig)
        c->mode = PCOLL__COPY_UNPACK;
    else
        c->mode = PCOLL__COPY_STAGED;
    if (c->mode == PCOLL__COPY_MEMCPY)
        return PCOLL_SUCCESS;
    if (c->mode != PCOLL__COPY_UNPACK && s.size > PACK_LIMIT)
        rc = item_of(c, stype, &s, &c->sitem, PCOLL__COPY_SITEM);
    if (rc == PCOLL_SUCCESS && c->mode != PCOLL__COPY_PACK && d.size > PACK_LIMIT)
        rc = item_of(c, dtype, &d, &c->ditem, PCOLL__COPY_DITEM);
    c->ssize = s.size, c->dsize = d.size;
    c->sext = s.extent, c->dext = d.extent;
    if (rc == PCOLL_SUCCESS)
        rc = plan_pieces(c, (c->flags & PCOLL__COPY_SITEM) ? c->sitem : stype, raw);
    if (rc != PCOLL_SUCCESS)
        pcoll__copy_free(c);
    return rc;
}

int pcoll__type_rebase(MPI_Datatype type, const void **base, MPI_Datatype *rel)
{
    MPI_Aint tlb, text, lb, ext, disp;
    MPI_Datatype t;
    int one = 1, rc;
    PCOLL_CHECK(pcoll__type_true_extent(type, &tlb, &text), rc, out);
    PCOLL_CHECK(pcoll__type_extent(type, &lb, &ext), rc, out);
    if (tlb == 0)
        return pcoll__error(PCOLL_ERR_ARG,
                            "typed copy: a NULL buffer (MPI_BOTTOM) with a type whose data "
                            "starts at displacement 0");
    disp = -tlb;
    PCOLL_CHECK_MPI(MPI_Type_create_struct(1, &one, &disp, &type, &t), rc, out);
    if (MPI_Type_create_resized(t, lb - tlb, ext, rel) != MPI_SUCCESS) {
        MPI_Type_free(&t);
        return pcoll__error(PCOLL_ERR_MPI, "typed copy: MPI_BOTTOM type");
    }
    MPI_Type_free(&t);
    if (MPI_Type_commit(rel) != MPI_SUCCESS) {
        MPI_Type_free(rel);
        return pcoll__error(PCOLL_ERR_MPI, "typed copy: MPI_BOTTOM type");
    }
    *base = (const void *)(uintptr_t)tlb;
out:
    return rc;
}

int pcoll__copy_bottom(pcoll__copy_t *c, const void *src, MPI_Datatype stype, const void *dst,
                       MPI_Datatype dtype)
{
    int packs = c->mode == PCOLL__COPY_PACK || c->mode == PCOLL__COPY_STAGED;
    int unpacks = c->mode == PCOLL__COPY_UNPACK || c->mode == PCOLL__COPY_STAGED;
    const void *base;
    int rc = PCOLL_SUCCESS;
    if (c->flags & PCOLL__COPY_SITEM)
        stype = c->sitem;
    if (c->flags & PCOLL__COPY_DITEM)
        dtype = c->ditem;
    if (!src && packs && (rc = pcoll__type_rebase(stype, &c->sbase, &c->srel)) == PCOLL_SUCCESS)
        c->flags |= PCOLL__COPY_SREL;
    if (rc == PCOLL_SUCCESS && !dst && unpacks &&
        (rc = pcoll__type_rebase(dtype, &base, &c->drel)) == PCOLL_SUCCESS) {
        c->dbase = (void *)(uintptr_t)base;
        c->flags |= PCOLL__COPY_DREL;
    }
    if (rc != PCOLL_SUCCESS)
        pcoll__copy_free(c);
    return rc;
}

void pcoll__copy_free(pcoll__copy_t *c)
{
    if (c->flags & PCOLL__COPY_SREL)
        MPI_Type_free(&c->srel);
    if (c->flags & PCOLL__COPY_DREL)
        MPI_Type_free(&c->drel);
    if (c->flags & PCOLL__COPY_SITEM_OWN)
        MPI_Type_free(&c->sitem);
    if (c->flags & PCOLL__COPY_DITEM_OWN)
        MPI_Type_free(&c->ditem);
    c->flags = 0;
}

static int pack(const void *in, MPI_Count n, MPI_Datatype type, void *out, MPI_Count outsize,
                MPI_Count *pos)
{
#if PCOLL__MPI_BIGCOUNT
    return MPI_Pack_c(in, n, type, out, outsize, pos, pcoll__self());
#else
    int p = (int)*pos, err = MPI_Pack(in, (int)n, type, out, (int)outsize, &p, pcoll__self());
    *pos = p;
    return err;
#endif
}

static int unpack(const void *in, MPI_Count insize, void *out, MPI_Count n, MPI_Datatype type)
{
#if PCOLL__MPI_BIGCOUNT
    MPI_Count pos = 0;
    return MPI_Unpack_c(in, insize, &pos, out, n, type, pcoll__self());
#else
    int pos = 0;
    return MPI_Unpack(in, (int)insize, &pos, out, (int)n, type, pcoll__self());
#endif
}

/* A split staged copy: all of it packed into scratch, then unpacked. */
static int run_split(const pcoll__copy_t *c, const void *src, MPI_Datatype stype, void *dst,
                     MPI_Datatype dtype, char *scratch)
{
    size_t done, n;
    int err = MPI_SUCCESS;
    for (done = 0; done < c->bytes && err == MPI_SUCCESS; done += n) {
        MPI_Count pos = 0;
        n = c->bytes - done < c->piece ? c->bytes - done : c->piece;
        err = pack(pcoll__addr(src, (MPI_Aint)(done / (size_t)c->ssize) * c->sext),
                   (MPI_Count)(n / (size_t)c->ssize), stype, scratch + done, (MPI_Count)n, &pos);
    }
    for (done = 0; done < c->bytes && err == MPI_SUCCESS; done += n) {
        n = c->bytes - done < c->dpiece ? c->bytes - done : c->dpiece;
        err = unpack(scratch + done, (MPI_Count)n,
                     pcoll__addr(dst, (MPI_Aint)(done / (size_t)c->dsize) * c->dext),
                     (MPI_Count)(n / (size_t)c->dsize), dtype);
    }
    return err;
}

/* PACK, UNPACK, STAGED: piece by piece (usually one). */
static int run_pieces(const pcoll__copy_t *c, const void *src, MPI_Datatype stype, void *dst,
                      MPI_Datatype dtype, void *scratch)
{
    size_t done = 0;
    int err = MPI_SUCCESS;
    while (done < c->bytes && err == MPI_SUCCESS) {
        size_t n = c->bytes - done < c->piece ? c->bytes - done : c->piece;
        /* Items in this piece, and where it starts, on each side. */
        MPI_Count sn = (MPI_Count)(n / (size_t)c->ssize), dn = (MPI_Count)(n / (size_t)c->dsize);
        const void *s = pcoll__addr(src, (MPI_Aint)(done / (size_t)c->ssize) * c->sext);
        void *d = pcoll__addr(dst, (MPI_Aint)(done / (size_t)c->dsize) * c->dext);
        MPI_Count pos = 0;
        if (c->mode == PCOLL__COPY_PACK)
            err = pack(s, sn, stype, pcoll__addr(dst, c->dst_offset + (MPI_Aint)done),
                       (MPI_Count)n, &pos);
        else if (c->mode == PCOLL__COPY_UNPACK)
            err = unpack(pcoll__addr(src, c->src_offset + (MPI_Aint)done), (MPI_Count)n, d, dn,
                         dtype);
        else if ((err = pack(s, sn, stype, scratch, (MPI_Count)c->scratch, &pos)) == MPI_SUCCESS)
            err = unpack(scratch, pos, d, dn, dtype);
        done += n;
    }
    return err;
}

int pcoll__copy_run(const pcoll__copy_t *c, const void *src, int scount, MPI_Datatype stype,
                    void *dst, int dcount, MPI_Datatype dtype, void *scratch)
{
    int err = MPI_SUCCESS;

    (void)scount, (void)dcount;
    if (c->flags & PCOLL__COPY_SITEM)
        stype = c->sitem;
    if (c->flags & PCOLL__COPY_DITEM)
        dtype = c->ditem;
    if (!src && (c->flags & PCOLL__COPY_SREL))
        src = c->sbase, stype = c->srel;
    if (!dst && (c->flags & PCOLL__COPY_DREL))
        dst = c->dbase, dtype = c->drel;
    switch (c->mode) {
    case PCOLL__COPY_NONE:
        break;
    case PCOLL__COPY_MEMCPY:
        memmove(pcoll__addr(dst, c->dst_offset), pcoll__addr(src, c->src_offset), c->bytes);
        break;
    case PCOLL__COPY_STRIDED:
        for (MPI_Count i = 0; i < c->nblocks; i++)
            memmove(pcoll__addr(dst, c->dst_offset + (MPI_Aint)i * c->dstride),
                    pcoll__addr(src, c->src_offset + (MPI_Aint)i * c->sstride), c->block);
        break;
    case PCOLL__COPY_PACK:
    case PCOLL__COPY_UNPACK:
    case PCOLL__COPY_STAGED:
        err = c->split ? run_split(c, src, stype, dst, dtype, scratch)
                       : run_pieces(c, src, stype, dst, dtype, scratch);
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
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__copy_bottom(&c, src, srctype, dst, dsttype);
    if (rc != PCOLL_SUCCESS) {
        pcoll__copy_free(&c);
        return rc;
    }
    if (c.scratch > 0 && !(scratch = pcoll__malloc(c.scratch)))
        rc = pcoll__error(PCOLL_ERR_NOMEM, "typed copy: %zu bytes of scratch", c.scratch);
    else
        rc = pcoll__copy_run(&c, src, srccount, srctype, dst, dstcount, dsttype, scratch);
    pcoll__free(scratch);
    pcoll__copy_free(&c);
    return rc;
}
