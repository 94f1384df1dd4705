/* Datatyped local copies (see typed_copy.c). */
#ifndef PCOLL_DATATYPE_COPY_H
#define PCOLL_DATATYPE_COPY_H

#include <stddef.h>

#include "pcoll.h"

/* How one copy between two layouts is done, decided once at init. */
typedef enum pcoll__copy_mode {
    PCOLL__COPY_NONE,   /* zero bytes */
    PCOLL__COPY_MEMCPY, /* both sides contiguous */
    PCOLL__COPY_PACK,   /* destination contiguous: MPI_Pack into it */
    PCOLL__COPY_UNPACK, /* source contiguous: MPI_Unpack from it */
    PCOLL__COPY_STAGED  /* neither: pack into scratch, unpack from it */
} pcoll__copy_mode_t;

typedef struct pcoll__copy {
    pcoll__copy_mode_t mode;
    size_t bytes;        /* payload bytes */
    MPI_Aint src_offset; /* where contiguous data starts relative to the buffer */
    MPI_Aint dst_offset;
    size_t scratch;      /* scratch bytes needed (STAGED only) */
} pcoll__copy_t;

/* The number of payload bytes of count items of type, or -1 on error. */
long long pcoll__type_bytes(MPI_Datatype type, int count);

/* Whether count items of type occupy one contiguous byte range; if so,
 * *offset is where it starts relative to the buffer address. */
int pcoll__type_is_contiguous(MPI_Datatype type, int count, MPI_Aint *offset);

/* Decide how to copy; PCOLL_ERR_MISMATCH if the byte counts differ. */
int pcoll__copy_prepare(int scount, MPI_Datatype stype, int dcount, MPI_Datatype dtype,
                        pcoll__copy_t *c);

/* Run a prepared copy; scratch must hold c->scratch bytes. */
int pcoll__copy_run(const pcoll__copy_t *c, const void *src, int scount, MPI_Datatype stype,
                    void *dst, int dcount, MPI_Datatype dtype, void *scratch);

#endif
