/*
 * Flattening: the type map of one item of any datatype as a block list
 * (blocks.h), read level by level with MPI_Type_get_envelope /
 * MPI_Type_get_contents (contents.c).  Each derived level flattens its
 * oldtype once and places copies of that list: a constructor over one
 * oldtype is a sequence of runs (reps consecutive oldtype items from a byte
 * displacement), a struct places each member's list, subarray and darray are
 * in flatten_array.c, dup and resized keep the type map as it is.  The cost
 * is one step per block appended before merging: linear in the type map.
 */
#include "base/status.h"
#include "datatype/blocks.h"

/* How many runs of oldtype items a constructor over one oldtype places. */
static long run_count(const pcoll__contents_t *c)
{
    switch (c->combiner) {
    case MPI_COMBINER_VECTOR: case MPI_COMBINER_HVECTOR: case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        return c->ints[0];
    default: /* contiguous, dup, resized */
        return 1;
    }
}

/* Run i: *reps oldtype items (extent ext) from byte *disp. */
static void run_at(const pcoll__contents_t *c, MPI_Aint ext, long i, MPI_Aint *disp,
                   long long *reps)
{
    const int *v = c->ints;
    *disp = 0;
    *reps = 1;
    switch (c->combiner) {
    case MPI_COMBINER_CONTIGUOUS: *reps = v[0]; break;
    case MPI_COMBINER_VECTOR: *disp = (MPI_Aint)i * v[2] * ext; *reps = v[1]; break;
    case MPI_COMBINER_HVECTOR: *disp = (MPI_Aint)i * c->addrs[0]; *reps = v[1]; break;
    case MPI_COMBINER_INDEXED: *disp = (MPI_Aint)v[1 + v[0] + i] * ext; *reps = v[1 + i]; break;
    case MPI_COMBINER_HINDEXED: *disp = c->addrs[i]; *reps = v[1 + i]; break;
    case MPI_COMBINER_INDEXED_BLOCK: *disp = (MPI_Aint)v[2 + i] * ext; *reps = v[1]; break;
    case MPI_COMBINER_HINDEXED_BLOCK: *disp = c->addrs[i]; *reps = v[1]; break;
    default: break; /* dup, resized: the oldtype's type map */
    }
}

static int flatten_into(MPI_Datatype type, pcoll__blocks_t *out);

/* The type map of type (flattened once) and its extent. */
static int child_of(MPI_Datatype type, pcoll__blocks_t *child, MPI_Aint *ext)
{
    MPI_Aint lb;
    if (MPI_Type_get_extent(type, &lb, ext) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "flatten: MPI_Type_get_extent failed");
    return flatten_into(type, child);
}

/* Members of one type in a row (the usual struct of basic types) share
 * one flattened list. */
static int flatten_struct(const pcoll__contents_t *c, pcoll__blocks_t *out)
{
    pcoll__blocks_t child = {0};
    MPI_Datatype last = MPI_DATATYPE_NULL;
    MPI_Aint ext = 0;
    int rc = PCOLL_SUCCESS;
    for (int i = 0; i < c->ints[0] && rc == PCOLL_SUCCESS; i++) {
        if (c->types[i] != last) {
            pcoll__blocks_free(&child);
            last = c->types[i];
            rc = child_of(last, &child, &ext);
        }
        if (rc == PCOLL_SUCCESS)
            rc = pcoll__blocks_place(out, &child, ext, c->addrs[i], c->ints[1 + i]);
    }
    pcoll__blocks_free(&child);
    return rc;
}

static int flatten_single(const pcoll__contents_t *c, pcoll__blocks_t *out)
{
    pcoll__blocks_t child = {0};
    MPI_Aint ext, disp;
    long long reps;
    int rc = child_of(c->types[0], &child, &ext);
    if (rc == PCOLL_SUCCESS &&
        (c->combiner == MPI_COMBINER_SUBARRAY || c->combiner == MPI_COMBINER_DARRAY))
        rc = pcoll__flatten_array(c, &child, ext, out);
    else
        for (long i = 0; i < run_count(c) && rc == PCOLL_SUCCESS; i++) {
            run_at(c, ext, i, &disp, &reps);
            rc = pcoll__blocks_place(out, &child, ext, disp, reps);
        }
    pcoll__blocks_free(&child);
    return rc;
}

static int known_single(int combiner)
{
    const int known[] = {MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS, MPI_COMBINER_VECTOR,
                         MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED, MPI_COMBINER_HINDEXED,
                         MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
                         MPI_COMBINER_SUBARRAY, MPI_COMBINER_DARRAY, MPI_COMBINER_RESIZED};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (combiner == known[i])
            return 1;
    return 0;
}

/* Append the type map of one level whose contents are c. */
static int flatten_level(MPI_Datatype type, const pcoll__contents_t *c, pcoll__blocks_t *out)
{
    MPI_Aint lb, ext;
    if (pcoll__combiner_predefined(c->combiner)) {
        MPI_Type_get_extent(type, &lb, &ext);
        return pcoll__blocks_push(out, lb, ext, 1, type);
    }
    if (c->combiner == MPI_COMBINER_STRUCT)
        return flatten_struct(c, out);
    if (known_single(c->combiner))
        return flatten_single(c, out);
    return pcoll__error(PCOLL_ERR_UNSUPPORTED, "flatten: combiner %d", c->combiner);
}

/* Append the type map of one item of type at displacement 0. */
static int flatten_into(MPI_Datatype type, pcoll__blocks_t *out)
{
    pcoll__contents_t c = {0};
    int rc = pcoll__contents_get(type, "flatten", &c);
    if (rc == PCOLL_SUCCESS)
        rc = flatten_level(type, &c, out);
    pcoll__contents_free(&c);
    return rc;
}

int pcoll__flatten(MPI_Datatype type, pcoll__blocks_t *out)
{
    int rc;
    *out = (pcoll__blocks_t){0};
    rc = flatten_into(type, out);
    if (rc != PCOLL_SUCCESS)
        pcoll__blocks_free(out);
    return rc;
}
