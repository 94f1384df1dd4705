/* Type signatures as run-length lists of basic types (see signature.c). */
#ifndef PCOLL_DATATYPE_SIGNATURE_H
#define PCOLL_DATATYPE_SIGNATURE_H

#include "pcoll.h"

/* runs i = 0..nruns-1: counts[i] consecutive items of the predefined type
 * types[i]; adjacent runs always have different types.  Zero-initialise;
 * pcoll__sig_free releases it. */
typedef struct pcoll__sig {
    MPI_Datatype *types;
    long long *counts;
    int nruns;
} pcoll__sig_t;

/* The signature of count items of type (count >= 0).  On error *sig is left
 * empty (nothing to free). */
int pcoll__sig_of(MPI_Datatype type, int count, pcoll__sig_t *sig);
/* 1 when the two signatures are the same sequence of basic types. */
int pcoll__sig_equal(const pcoll__sig_t *a, const pcoll__sig_t *b);
/* 1 when acount copies of a and bcount copies of b are the same sequence of
 * basic types; time linear in the runs, no copies made. */
int pcoll__sig_match(const pcoll__sig_t *a, long long acount, const pcoll__sig_t *b,
                     long long bcount);
/* A hash of count items' signature that every process computes alike (the
 * basic types by their MPI names, not their handles, which differ between
 * processes under some MPIs): equal signatures, equal hashes. */
int pcoll__sig_hash(MPI_Datatype type, int count, unsigned long long *hash);

/* Whether count items of type, packed, put every basic element at a
 * multiple of its own size, all sizes dividing 8: then no cut of the packed
 * bytes at a multiple of 8 splits an element.  0 for a type MPI refuses. */
int pcoll__sig_aligned(MPI_Datatype type, MPI_Count count);
/* Free the runs; *sig becomes empty. */
void pcoll__sig_free(pcoll__sig_t *sig);

#endif
