/* Items of a datatype to and from plain bytes, for engines that copy
 * each run's blocks through a node's segment (see pack.c). */
#ifndef PCOLL_DATATYPE_PACK_H
#define PCOLL_DATATYPE_PACK_H

#include "pcoll.h"

/* Whether items of type are plain bytes (no gaps, no lower bound: count
 * items at a buffer are count * size bytes from it); *size: an item's
 * bytes. */
int pcoll__type_plain(MPI_Datatype type, MPI_Count *size);

/* count items of type at buf into bytes at out (plain: one memcpy), and
 * back.  A NULL buffer is MPI_BOTTOM with a type of absolute addresses,
 * which MPICH's MPI_Pack refuses: pcoll's typed copy serves it.  count and
 * bytes fit an int unless plain.  what names the caller in errors. */
int pcoll__pack_items(const void *buf, MPI_Count count, MPI_Datatype type, int plain, char *out,
                      long long bytes, MPI_Comm comm, const char *what);
int pcoll__unpack_items(const char *in, long long bytes, void *buf, MPI_Count count,
                        MPI_Datatype type, int plain, MPI_Comm comm, const char *what);

/* Types made for one run's messages of more than INT_MAX items. */
typedef struct pcoll__bigs {
    MPI_Datatype *types; /* room for as many as the engine's messages */
    int n;
} pcoll__bigs_t;

/* count items of type as an int count *n: over INT_MAX one item of a type
 * made for the run (in b, freed by pcoll__bigs_free), which replaces
 * *type. */
int pcoll__bigs_items(pcoll__bigs_t *b, MPI_Count count, MPI_Datatype *type, int *n);
void pcoll__bigs_free(pcoll__bigs_t *b);

#endif
