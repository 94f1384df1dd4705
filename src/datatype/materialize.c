/*
 * Making the MPI datatype of a planned description (shape.h).  The
 * constructors match the prices of shape.c: a lone block is the basic type
 * itself or a contiguous type, a vector is MPI_Type_vector (hvector when the
 * distance is no multiple of the item extent), copies of a unit are an
 * hvector of the unit, a struct takes lone blocks as (length, basic type)
 * members, and a flat list is an (h)indexed_block, (h)indexed or struct.
 * Counts beyond INT_MAX are PCOLL_ERR_UNSUPPORTED (MPI's int arguments).
 */
#include <limits.h>

#include "base/mem.h"
#include "base/status.h"
#include "datatype/shape.h"

/* The byte displacement of block i in the type of s placed at shift. */
static MPI_Aint rel(const pcoll__blocks_t *l, const pcoll__shape_t *s, long i, MPI_Aint shift)
{
    return l->b[i].disp - l->b[s->a].disp + shift;
}

static int fits(long long v)
{
    return v <= INT_MAX ? PCOLL_SUCCESS
                        : pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                       "normalize: a count of %lld (more than INT_MAX)", v);
}

/* Whether a byte distance is a whole number (fitting an int) of extents. */
static int scaled(MPI_Aint bytes, MPI_Aint ext)
{
    return ext > 0 && bytes % ext == 0 && bytes / ext <= INT_MAX && bytes / ext >= INT_MIN;
}

static int build_block(const pcoll__block_t *x, MPI_Datatype *out)
{
    int rc = fits(x->len);
    if (rc == PCOLL_SUCCESS && x->len == 1)
        *out = x->type;
    else if (rc == PCOLL_SUCCESS)
        PCOLL_CHECK_MPI(MPI_Type_contiguous((int)x->len, x->type, out), rc, done);
done:
    return rc;
}

static int build_vector(const pcoll__block_t *x, const pcoll__shape_t *s, MPI_Datatype *out)
{
    int rc = fits(x->len > s->count ? x->len : s->count);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (scaled(s->stride, x->ext))
        PCOLL_CHECK_MPI(MPI_Type_vector((int)s->count, (int)x->len, (int)(s->stride / x->ext),
                                        x->type, out), rc, done);
    else
        PCOLL_CHECK_MPI(MPI_Type_create_hvector((int)s->count, (int)x->len, s->stride, x->type,
                                                out), rc, done);
done:
    return rc;
}

static int build_repeat(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Datatype *out)
{
    MPI_Datatype unit = MPI_DATATYPE_NULL;
    int rc = fits(s->count);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__shape_build(l, s->parts[0], 0, &unit);
    if (rc == PCOLL_SUCCESS)
        PCOLL_CHECK_MPI(MPI_Type_create_hvector((int)s->count, 1, s->stride, unit, out), rc,
                        done);
done:
    pcoll__type_release(&unit);
    return rc;
}

/* Argument arrays of an n-member struct or indexed constructor. */
typedef struct args {
    int *lens, *idisps;
    MPI_Aint *disps;
    MPI_Datatype *types;
} args_t;

static int args_alloc(args_t *a, long n)
{
    size_t each = 2 * sizeof(int) + sizeof(MPI_Aint) + sizeof(MPI_Datatype);
    int rc = fits(n);
    a->disps = rc == PCOLL_SUCCESS ? pcoll__malloc((size_t)n * each) : NULL;
    if (!a->disps)
        return rc != PCOLL_SUCCESS ? rc : pcoll__error(PCOLL_ERR_NOMEM, "normalize: %ld", n);
    a->types = (MPI_Datatype *)(a->disps + n);
    a->lens = (int *)(a->types + n);
    a->idisps = a->lens + n;
    for (long i = 0; i < n; i++)
        a->types[i] = MPI_DATATYPE_NULL;
    return PCOLL_SUCCESS;
}

static void args_free(args_t *a, long n)
{
    for (long i = 0; a->disps && i < n; i++)
        pcoll__type_release(&a->types[i]);
    pcoll__free(a->disps);
}

/* Struct member i for part p: a lone block as (length, basic type), any
 * other part as its own type. */
static int struct_member(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Aint shift,
                         const pcoll__shape_t *p, args_t *a, int i)
{
    const pcoll__block_t *x = &l->b[p->a];
    a->disps[i] = rel(l, s, p->a, shift);
    a->lens[i] = 1;
    if (p->kind != PCOLL__SHAPE_BLOCK)
        return pcoll__shape_build(l, p, 0, &a->types[i]);
    a->lens[i] = (int)x->len;
    a->types[i] = x->type;
    return fits(x->len);
}

static int build_struct(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Aint shift,
                        MPI_Datatype *out)
{
    args_t a;
    int rc = args_alloc(&a, s->nparts);
    for (int i = 0; i < s->nparts && rc == PCOLL_SUCCESS; i++)
        rc = struct_member(l, s, shift, s->parts[i], &a, i);
    if (rc == PCOLL_SUCCESS)
        PCOLL_CHECK_MPI(MPI_Type_create_struct(s->nparts, a.lens, a.disps, a.types, out), rc,
                        done);
done:
    args_free(&a, s->nparts);
    return rc;
}

/* Fill a with the blocks of s; *same_type, *same_len and *whole (every
 * displacement a whole number of extents) describe them.  Returns the
 * longest block's length. */
static long long flat_args(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Aint shift,
                           args_t *a, int *same_type, int *same_len, int *whole)
{
    const pcoll__block_t *x = &l->b[s->a];
    long long longest = 0;
    *same_type = *same_len = *whole = 1;
    for (long i = 0; i < s->b - s->a; i++) {
        a->disps[i] = rel(l, s, s->a + i, shift);
        a->lens[i] = (int)x[i].len;
        a->types[i] = x[i].type;
        longest = x[i].len > longest ? x[i].len : longest;
        *same_type = *same_type && x[i].type == x[0].type;
        *same_len = *same_len && x[i].len == x[0].len;
        *whole = *whole && scaled(a->disps[i], x[0].ext);
        a->idisps[i] = *whole ? (int)(a->disps[i] / x[0].ext) : 0;
    }
    return longest;
}

/* The constructor for n blocks described as flat_args found them. */
static int flat_call(int n, const args_t *a, int same_type, int same_len, int whole,
                     MPI_Datatype *out)
{
    MPI_Datatype t = a->types[0];
    if (!same_type)
        return MPI_Type_create_struct(n, a->lens, a->disps, a->types, out);
    if (same_len && whole)
        return MPI_Type_create_indexed_block(n, a->lens[0], a->idisps, t, out);
    if (same_len)
        return MPI_Type_create_hindexed_block(n, a->lens[0], a->disps, t, out);
    if (whole)
        return MPI_Type_indexed(n, a->lens, a->idisps, t, out);
    return MPI_Type_create_hindexed(n, a->lens, a->disps, t, out);
}

static int build_flat(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Aint shift,
                      MPI_Datatype *out)
{
    long n = s->b - s->a;
    int same_type, same_len, whole;
    args_t a;
    int rc = args_alloc(&a, n);
    if (rc == PCOLL_SUCCESS)
        rc = fits(flat_args(l, s, shift, &a, &same_type, &same_len, &whole));
    if (rc == PCOLL_SUCCESS)
        PCOLL_CHECK_MPI(flat_call((int)n, &a, same_type, same_len, whole, out), rc, done);
done:
    args_free(&a, n);
    return rc;
}

int pcoll__shape_build(const pcoll__blocks_t *l, const pcoll__shape_t *s, MPI_Aint shift,
                       MPI_Datatype *out)
{
    *out = MPI_DATATYPE_NULL;
    switch (s->kind) {
    case PCOLL__SHAPE_BLOCK:
        return build_block(&l->b[s->a], out);
    case PCOLL__SHAPE_VECTOR:
        return build_vector(&l->b[s->a], s, out);
    case PCOLL__SHAPE_REPEAT:
        return build_repeat(l, s, out);
    case PCOLL__SHAPE_STRUCT:
        return build_struct(l, s, shift, out);
    default:
        return build_flat(l, s, shift, out);
    }
}
