/*
 * Building blocks of pcoll's datatype constructors (bounded vector, circular
 * vector, bucket): a type is assembled from a few pieces -- MPI contiguous
 * and vector types placed at byte displacements -- which are then joined by
 * MPI_Type_create_struct (or used alone when there is one at displacement 0)
 * and resized to the extent the constructor promises.  Degenerate pieces
 * collapse to cheaper constructors: no items -> no piece, one block ->
 * contiguous.
 */
#include "base/status.h"
#include "datatype/build.h"

int pcoll__pieces_add(pcoll__pieces_t *p, MPI_Aint disp, MPI_Datatype piece)
{
    if (p->n == PCOLL__MAX_PIECES) {
        MPI_Type_free(&piece);
        return pcoll__error(PCOLL_ERR_INTERNAL, "datatype: more than %d pieces",
                            PCOLL__MAX_PIECES);
    }
    p->types[p->n] = piece;
    p->disps[p->n] = disp;
    p->n++;
    return PCOLL_SUCCESS;
}

int pcoll__pieces_contig(pcoll__pieces_t *p, MPI_Aint disp, int count, MPI_Datatype old)
{
    MPI_Datatype piece;
    int rc = PCOLL_SUCCESS;
    if (count == 0)
        return PCOLL_SUCCESS;
    PCOLL_CHECK_MPI(MPI_Type_contiguous(count, old, &piece), rc, out);
    rc = pcoll__pieces_add(p, disp, piece);
out:
    return rc;
}

int pcoll__pieces_vector(pcoll__pieces_t *p, MPI_Aint disp, int count, int blocklength,
                         int stride, MPI_Datatype old)
{
    MPI_Datatype piece;
    int rc = PCOLL_SUCCESS;
    if (count == 0 || blocklength == 0)
        return PCOLL_SUCCESS;
    if (count == 1)
        return pcoll__pieces_contig(p, disp, blocklength, old);
    PCOLL_CHECK_MPI(MPI_Type_vector(count, blocklength, stride, old, &piece), rc, out);
    rc = pcoll__pieces_add(p, disp, piece);
out:
    return rc;
}

void pcoll__pieces_free(pcoll__pieces_t *p)
{
    for (int i = 0; i < p->n; i++)
        MPI_Type_free(&p->types[i]);
    p->n = 0;
}

/* The pieces as one type (type map in piece order); the pieces are freed. */
static int join(pcoll__pieces_t *p, MPI_Datatype old, MPI_Datatype *joined)
{
    int blocklengths[PCOLL__MAX_PIECES], rc = PCOLL_SUCCESS;
    if (p->n == 0) {
        PCOLL_CHECK_MPI(MPI_Type_contiguous(0, old, joined), rc, out);
        return PCOLL_SUCCESS;
    }
    if (p->n == 1 && p->disps[0] == 0) {
        *joined = p->types[0];
        p->n = 0;
        return PCOLL_SUCCESS;
    }
    for (int i = 0; i < p->n; i++)
        blocklengths[i] = 1;
    PCOLL_CHECK_MPI(MPI_Type_create_struct(p->n, blocklengths, p->disps, p->types, joined),
                    rc, out);
out:
    pcoll__pieces_free(p);
    return rc;
}

int pcoll__pieces_finish(pcoll__pieces_t *p, MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                         MPI_Datatype *newtype)
{
    MPI_Datatype t;
    int rc = join(p, old, &t);
    if (rc != PCOLL_SUCCESS)
        return rc;
    rc = pcoll__type_resize(&t, lb, extent);
    if (rc == PCOLL_SUCCESS)
        *newtype = t;
    return rc;
}

int pcoll__type_resize(MPI_Datatype *type, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Aint cur_lb, cur_extent;
    MPI_Datatype resized;
    int rc = PCOLL_SUCCESS;
    PCOLL_CHECK_MPI(MPI_Type_get_extent(*type, &cur_lb, &cur_extent), rc, fail);
    if (cur_lb == lb && cur_extent == extent)
        return PCOLL_SUCCESS;
    PCOLL_CHECK_MPI(MPI_Type_create_resized(*type, lb, extent, &resized), rc, fail);
    MPI_Type_free(type);
    *type = resized;
    return PCOLL_SUCCESS;
fail:
    MPI_Type_free(type);
    return rc;
}

int pcoll__type_check_args(const char *fn, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (!newtype)
        return pcoll__error(PCOLL_ERR_ARG, "%s: newtype is NULL", fn);
    *newtype = MPI_DATATYPE_NULL;
    if (oldtype == MPI_DATATYPE_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "%s: oldtype is MPI_DATATYPE_NULL", fn);
    return PCOLL_SUCCESS;
}
