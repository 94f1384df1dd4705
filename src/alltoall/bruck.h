/*
 * Pieces shared by the Bruck family (bruck_*.c): block datatypes, the local
 * permutations before and after the rounds, and the radix-r "digit" engine
 * that bruck_basic, bruck_basic_ix and bruck_radix run.
 */
#ifndef PCOLL_ALLTOALL_BRUCK_H
#define PCOLL_ALLTOALL_BRUCK_H

#include "alltoall/alltoall.h"

/* Datatypes for whole blocks, made once per plan and owned by it. */
typedef struct pcoll__bruck_types {
    MPI_Datatype sblk;  /* one send block: sendcount items of sendtype */
    MPI_Datatype rblk;  /* one receive block */
    MPI_Datatype sig;   /* contiguous type with the signature of one block */
    MPI_Aint sigext;    /* its extent (= payload bytes of a block) */
} pcoll__bruck_types_t;

int pcoll__bruck_types(pcoll_plan_t *plan, const pcoll__a2a_args_t *a,
                       pcoll__bruck_types_t *t);

/* A type selecting, relative to block 0 of a block vector, the blocks
 * [0, bl) [st, st+bl) ... below bound (in units of blk): a bounded vector, or
 * the same index set as an MPI indexed type. */
typedef int (*pcoll__bruck_settype_fn)(int bound, int bl, int st, MPI_Datatype blk,
                                       MPI_Datatype *type);
int pcoll__bruck_set_bounded(int bound, int bl, int st, MPI_Datatype blk, MPI_Datatype *type);
int pcoll__bruck_set_indexed(int bound, int bl, int st, MPI_Datatype blk, MPI_Datatype *type);

/* Add a copy of send block (j + shift) mod p to receive block j, for all j. */
int pcoll__bruck_rotate(pcoll_plan_t *plan, const pcoll__a2a_args_t *a,
                        const pcoll__bruck_types_t *t, int shift);
/* A committed type over p blocks of blk: item j of a contiguous source lands
 * in block pos(j) = (mul*j + add) mod p (mul = +1 or -1). */
int pcoll__bruck_perm_type(pcoll_plan_t *plan, MPI_Datatype blk, int mul, int add,
                           MPI_Datatype *type);

/* Radix-r Bruck with R = the receive buffer: rotate, ceil(log_r p) steps
 * sending the blocks of each digit with types from settype, final
 * permutation. */
int pcoll__bruck_digits(pcoll_plan_t *plan, const pcoll__a2a_args_t *a, int radix,
                        pcoll__bruck_settype_fn settype);

/* Builders. */
int pcoll__alltoall_bruck_basic(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_bruck_basic_ix(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_bruck_modified(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_bruck_modified_ix(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_bruck_zerocopy(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_bruck_zerocopy_blocks(pcoll_plan_t *plan, const void *args);
int pcoll__alltoall_bruck_radix(pcoll_plan_t *plan, const void *args);

#endif
