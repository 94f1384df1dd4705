/*
 * alltoallv: the arguments its builders receive.  The first member is the
 * per-peer form of the alltoall arguments, so alltoall's direct builders
 * (linear, pairwise, scattered) serve alltoallv unchanged.
 */
#ifndef PCOLL_ALLTOALLV_ALLTOALLV_H
#define PCOLL_ALLTOALLV_ALLTOALLV_H

#include "alltoall/alltoall.h"
#include "core/native.h"

/* Default of pcoll_regular_ratio: zero-copy Bruck needs the largest element
 * to be at most this many times the smallest (over all ranks). */
#define PCOLL__A2AV_REGULAR_RATIO 2

typedef struct pcoll__a2av_args {
    pcoll__a2a_args_t a;      /* counts, displacements, types, buffers */
    /* Known after the persistent init's reduction (-1 on the one-shot path):
     * the smallest and largest element (block) in bytes over all ranks. */
    long long minbytes, maxbytes;
    long long maxtotal;       /* the most bytes one rank receives in all */
    long long aux_bytes;      /* the smallest pcoll_aux_bytes any rank set (0: none) */
    /* The in-place engine can serve every rank (after the agreement): one
     * receive item size everywhere and no negative receive displacement. */
    int inplace_ok;
    /* The MPI's own MPI_Alltoallv can serve every rank: with MPI-4 always
     * (its _c form), else only when every rank's counts and displacements
     * are ints (known after the persistent agreement; one-shot: MPI-4 only). */
    int native_ok;
    /* The one predefined type both signatures are made of (MPI_DATATYPE_NULL
     * if they mix types), and how many of it one send / receive item holds. */
    MPI_Datatype basic;
    int sunit, runit;
    /* padded_bruck: the alltoall Bruck builder it runs on the padded blocks,
     * chosen above (pcoll__select_bruck) once maxbytes is agreed. */
    int (*pad_bruck)(pcoll_plan_t *plan, const void *args);
} pcoll__a2av_args_t;

int pcoll__alltoallv_bruck_zerocopy(pcoll_plan_t *plan, const void *args);
int pcoll__alltoallv_padded_bruck(pcoll_plan_t *plan, const void *args);
int pcoll__alltoallv_bruck_radix(pcoll_plan_t *plan, const void *args);
/* The MPI's own MPI_Alltoallv (core/native.h). */
int pcoll__alltoallv_native(pcoll_plan_t *plan, const void *args);

/* What a per-peer native plan's calls receive: the arguments, and the four
 * arrays as ints (scounts, sdispls, rcounts, rdispls, p each; NULL when one
 * does not fit: the MPI-4 large-count call takes a's own arrays). */
typedef struct pcoll__a2av_native {
    pcoll__a2a_args_t a;
    int *ints;
    int p;
} pcoll__a2av_native_t;
/* A native plan of alltoallv's arguments (args: pcoll__a2av_args_t) with
 * the calls c (alltoallv's or alltoallw's), which get a
 * pcoll__a2av_native_t; coll names the collective in messages. */
int pcoll__a2av_native_plan(pcoll_plan_t *plan, const void *args,
                            const pcoll__native_calls_t *c, const char *coll);
/* Whether the MPI's own in-place alltoallv / alltoallw may run: 0 in place
 * on an MPI known to fail packed messages received non-contiguously
 * (core/defects.h, UCX_SPLIT_UNPACK), which MPICH's in-place exchange
 * sends, whatever the types (the same answer on every rank). */
int pcoll__a2av_native_inplace_ok(const pcoll__a2a_args_t *a);

/* Whether the sizes are regular enough for zero-copy Bruck. */
int pcoll__alltoallv_regular(const pcoll__a2av_args_t *v);

/* Whether bruck_radix can serve these agreed sizes on p ranks: one basic
 * type in both signatures, persistent planning, and p elements of the
 * largest size countable in int basic items (every rank answers alike). */
int pcoll__alltoallv_radix_fits(const pcoll__a2av_args_t *v, int p);

#endif
