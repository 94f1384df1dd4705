/* Datatyped local copies (see typed_copy.c). */
#ifndef PCOLL_DATATYPE_COPY_H
#define PCOLL_DATATYPE_COPY_H

#include <stddef.h>

#include "datatype/size.h"
#include "pcoll.h"

/* How one copy between two layouts is done, decided once at init. */
typedef enum pcoll__copy_mode {
    PCOLL__COPY_NONE,   /* zero bytes */
    PCOLL__COPY_MEMCPY, /* both sides contiguous */
    PCOLL__COPY_PACK,   /* destination contiguous: MPI_Pack into it */
    PCOLL__COPY_UNPACK, /* source contiguous: MPI_Unpack from it */
    PCOLL__COPY_STAGED, /* neither: pack into scratch, unpack from it */
    PCOLL__COPY_STRIDED /* blocks of bytes at fixed strides on both sides: a memmove each */
} pcoll__copy_mode_t;

/* A staged copy of more than this many bytes goes through scratch in pieces
 * of about this size (whole items of both sides), not all at once. */
#define PCOLL__COPY_PIECE (64LL << 20)

typedef struct pcoll__copy {
    pcoll__copy_mode_t mode;
    size_t bytes;        /* payload bytes */
    MPI_Aint src_offset; /* where contiguous data starts relative to the buffer */
    MPI_Aint dst_offset;
    /* STRIDED: nblocks blocks of `block` bytes, the i-th at src_offset +
     * i sstride and dst_offset + i dstride. */
    MPI_Count nblocks;
    size_t block;
    MPI_Aint sstride, dstride;
    size_t scratch;      /* scratch bytes needed (STAGED only) */
    /* PACK, UNPACK, STAGED: MPI_Pack / MPI_Unpack calls of at most `piece`
     * payload bytes each, whole items of the packed or unpacked side(s): one
     * call when everything fits (MPI-4's _c calls take any size; MPI-3's
     * int-sized calls at most INT_MAX bytes), and staged copies in pieces of
     * about PCOLL__COPY_PIECE bytes.  split (MPI-3, items of the two sides
     * lining up only past INT_MAX bytes): all of it packed into scratch in
     * pieces of `piece` bytes, then unpacked in pieces of `dpiece`. */
    size_t piece, dpiece;
    int split;
    MPI_Count ssize, dsize; /* bytes of one source / destination item */
    MPI_Aint sext, dext;    /* their extents */
    /* MPI-3, a side packed or unpacked whose item has more than INT_MAX
     * bytes: if the type is a contiguous (or dup) wrapper, the pieces count
     * in items of the type inside it (ssize, sext, dsize, dext are theirs). */
    MPI_Datatype sitem, ditem;
    /* MPI_BOTTOM (pcoll__copy_bottom): a side that MPI packs or unpacks and
     * whose buffer is NULL is addressed as base + a type shifted to it (MPI
     * may refuse a NULL buffer). */
    const void *sbase;
    void *dbase;
    MPI_Datatype srel, drel;
    int flags; /* PCOLL__COPY_* below: which of these are in use and owned */
} pcoll__copy_t;

#define PCOLL__COPY_SREL 1       /* srel in use (owned) */
#define PCOLL__COPY_DREL 2
#define PCOLL__COPY_SITEM 4      /* sitem in use */
#define PCOLL__COPY_DITEM 8
#define PCOLL__COPY_SITEM_OWN 16 /* sitem is a derived type to free */
#define PCOLL__COPY_DITEM_OWN 32

/* Whether count items of type occupy one contiguous byte range; if so,
 * *offset is where it starts relative to the buffer address. */
int pcoll__type_is_contiguous(MPI_Datatype type, int count, MPI_Aint *offset);

/* PCOLL_ERR_UNSUPPORTED, with a message naming fn and what (e.g.
 * "sendtype"), when a copy of items of type could need more than this MPI
 * packs in one call: an item of more than INT_MAX bytes that is not
 * contiguous, on an MPI without MPI-4's MPI_Pack_c (never with MPI-4).
 * Local, cheap: for the checks before the ranks agree, since a builder that
 * failed on it after the agreement would fail on this rank alone. */
int pcoll__type_check_packable(MPI_Datatype type, const char *what, const char *fn);

/* Decide how to copy; PCOLL_ERR_MISMATCH if the byte counts differ,
 * PCOLL_ERR_UNSUPPORTED if an item is too large for this MPI's packing (more
 * than INT_MAX bytes without MPI-4, on a side that is not contiguous, unless
 * it wraps smaller items).  pcoll__copy_free releases what it may hold. */
int pcoll__copy_prepare(int scount, MPI_Datatype stype, int dcount, MPI_Datatype dtype,
                        pcoll__copy_t *c);

/* MPI_BOTTOM (a NULL buffer) with a type of absolute addresses as a
 * non-NULL base and a type relative to it: *base is the data's first byte,
 * *rel (committed; the caller frees it) the type shifted by minus that
 * address, with type's lower bound and extent shifted alike, so item i of
 * (*base, *rel) is item i of (MPI_BOTTOM, type).  PCOLL_ERR_ARG if the data
 * would start at address 0 (a type of relative addresses). */
int pcoll__type_rebase(MPI_Datatype type, const void **base, MPI_Datatype *rel);

/* For a prepared copy whose source or destination buffer is MPI_BOTTOM
 * (NULL, with a type of absolute addresses): make what running it needs
 * (a type per such side); pcoll__copy_free releases it.  Nothing when
 * neither buffer is NULL. */
int pcoll__copy_bottom(pcoll__copy_t *c, const void *src, MPI_Datatype stype, const void *dst,
                       MPI_Datatype dtype);
/* Release what a prepared copy holds (nothing in most cases); the copy
 * cannot run afterwards. */
void pcoll__copy_free(pcoll__copy_t *c);

/* Run a prepared copy; scratch must hold c->scratch bytes.  A NULL buffer
 * needs pcoll__copy_bottom first. */
int pcoll__copy_run(const pcoll__copy_t *c, const void *src, int scount, MPI_Datatype stype,
                    void *dst, int dcount, MPI_Datatype dtype, void *scratch);

#endif
