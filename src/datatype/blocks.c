/*
 * Block lists: a flattened type map as (displacement, predefined type,
 * length) blocks in type map order, merged as they are appended so that
 * the list of a contiguous range is one block whatever type described it.
 * Appending copies of a unit list costs one step per appended block, except
 * for a unit of one block that fills its extent: then any number of copies
 * is one block, made in one step.
 */
#include "base/mem.h"
#include "base/status.h"
#include "datatype/blocks.h"

static int grow(pcoll__blocks_t *l)
{
    long cap = l->cap ? 2 * l->cap : 16;
    pcoll__block_t *b;
    if (l->n >= PCOLL__BLOCKS_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "datatype: a type map of more than %ld blocks", PCOLL__BLOCKS_MAX);
    b = pcoll__realloc(l->b, (size_t)cap * sizeof *b);
    if (!b)
        return pcoll__error(PCOLL_ERR_NOMEM, "datatype: %ld blocks", cap);
    l->b = b;
    l->cap = cap;
    return PCOLL_SUCCESS;
}

int pcoll__blocks_push(pcoll__blocks_t *l, MPI_Aint disp, MPI_Aint ext, long long len,
                       MPI_Datatype type)
{
    pcoll__block_t *last = l->n > 0 ? &l->b[l->n - 1] : NULL;
    int rc;
    if (len <= 0)
        return PCOLL_SUCCESS;
    if (last && last->type == type && last->disp + (MPI_Aint)last->len * last->ext == disp) {
        last->len += len;
        return PCOLL_SUCCESS;
    }
    if (l->n == l->cap && (rc = grow(l)) != PCOLL_SUCCESS)
        return rc;
    l->b[l->n++] = (pcoll__block_t){disp, ext, len, type};
    return PCOLL_SUCCESS;
}

int pcoll__blocks_place(pcoll__blocks_t *out, const pcoll__blocks_t *unit, MPI_Aint unit_ext,
                        MPI_Aint disp, long long reps)
{
    const pcoll__block_t *u = unit->b;
    int rc = PCOLL_SUCCESS;
    if (unit->n == 1 && (MPI_Aint)u->len * u->ext == unit_ext)
        return pcoll__blocks_push(out, disp + u->disp, u->ext, u->len * reps, u->type);
    for (long long r = 0; r < reps && rc == PCOLL_SUCCESS; r++)
        for (long i = 0; i < unit->n && rc == PCOLL_SUCCESS; i++)
            rc = pcoll__blocks_push(out, disp + r * unit_ext + u[i].disp, u[i].ext, u[i].len,
                                    u[i].type);
    return rc;
}

void pcoll__blocks_free(pcoll__blocks_t *l)
{
    pcoll__free(l->b);
    l->b = NULL;
    l->n = l->cap = 0;
}
