/* Decoding one level of a datatype (see contents.c). */
#ifndef PCOLL_DATATYPE_CONTENTS_H
#define PCOLL_DATATYPE_CONTENTS_H

#include "pcoll.h"

/* What MPI_Type_get_envelope and MPI_Type_get_contents say about one type.
 * For a predefined type only combiner is set (and the arrays stay NULL).
 * Zero-initialise; pcoll__contents_free releases it. */
typedef struct pcoll__contents {
    int combiner;
    int ni, na, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Datatype *types;
    int ntypes; /* filled entries of types (freed by pcoll__contents_free) */
} pcoll__contents_t;

/* Whether a type of this combiner is predefined (named, or a Fortran 90
 * parameterized type): a basic type that MPI forbids freeing. */
int pcoll__combiner_predefined(int combiner);
/* Whether type is predefined. */
int pcoll__type_predefined(MPI_Datatype type);
/* Envelope and (for derived types) contents of type.  what names the caller
 * in error messages.  On error c is left freeable. */
int pcoll__contents_get(MPI_Datatype type, const char *what, pcoll__contents_t *c);
/* Free the arrays and the derived datatypes MPI returned. */
void pcoll__contents_free(pcoll__contents_t *c);
/* Free *type unless it is predefined or MPI_DATATYPE_NULL. */
void pcoll__type_release(MPI_Datatype *type);

#endif
