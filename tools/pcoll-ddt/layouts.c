/*
 * The datatypes of the benchmarks: one layout, many descriptions.
 *
 * Benchmark 1 (Tables 1, 2): n elements of T, element i at i*s elements,
 * as contig(n, T) (s = 1 only), n x resized(T, extent s), vector(n, 1, s),
 * indexed_block, indexed and struct over n blocks of one element.
 * Benchmark 2: base types of k = 8 such elements (T_0 = T itself, or T
 * resized to extent s; T_1 = contig(k, T_0); T_2..T_5 vector, indexed_block,
 * indexed, struct, resized to extent k*s) sent as n/k items, versus one
 * contig(n/k, T_i).  Benchmark 3a: element i < n (n even; an odd n loses
 * one) at i*s' + (i mod 2) with s' = max(s, 2) (no overlaps), as
 * indexed_block versus vector(n/2, 1, 1, resized(vector(2, 1, s'+1), extent
 * 2s')).  Benchmark 3b: n/6 units of 2 elements, a gap, 3 elements, a gap,
 * 1 element, the unit's extent 6s and its last element adjoining the next
 * unit's first, as indexed versus struct {contig(2), vector(2 n/6 - 1, 3,
 * 3s), T}.
 */
#include <stdlib.h>
#include <string.h>

#include "ddt.h"
#include "pcoll.h"

/* T resized to extent s elements. */
static int element(const ddt_ctx_t *c, MPI_Datatype *out)
{
    return MPI_Type_create_resized(c->base, 0, (MPI_Aint)c->stride * c->ext, out);
}

/* Replace *t by *t resized to lb 0 and this extent. */
static int resize(MPI_Datatype *t, MPI_Aint extent)
{
    MPI_Datatype r;
    int rc = MPI_Type_create_resized(*t, 0, extent, &r);
    if (rc == MPI_SUCCESS) {
        MPI_Type_free(t);
        *t = r;
    }
    return rc;
}

/* k elements at stride s as one item described by desc (not RESIZED). */
static int strided(const ddt_ctx_t *c, int desc, int k, MPI_Datatype *out)
{
    int *ones = malloc((size_t)k * 2 * sizeof *ones), *idx = ones + k, rc;
    MPI_Aint *bytes = malloc((size_t)k * sizeof *bytes);
    MPI_Datatype *types = malloc((size_t)k * sizeof *types), e;
    for (int i = 0; i < k; i++) {
        ones[i] = 1;
        idx[i] = i * c->stride;
        bytes[i] = (MPI_Aint)idx[i] * c->ext;
        types[i] = c->base;
    }
    if (desc == DDT_CONTIG && (rc = element(c, &e)) == MPI_SUCCESS) {
        rc = MPI_Type_contiguous(k, c->stride == 1 ? c->base : e, out);
        MPI_Type_free(&e);
    } else if (desc == DDT_VECTOR)
        rc = MPI_Type_vector(k, 1, c->stride, c->base, out);
    else if (desc == DDT_BIDX)
        rc = MPI_Type_create_indexed_block(k, 1, idx, c->base, out);
    else if (desc == DDT_IDX)
        rc = MPI_Type_indexed(k, ones, idx, c->base, out);
    else
        rc = MPI_Type_create_struct(k, ones, bytes, types, out);
    free(ones);
    free(bytes);
    free(types);
    return rc;
}

int ddt_make_b1(const ddt_ctx_t *c, int desc, ddt_dt_t *out)
{
    *out = (ddt_dt_t){MPI_DATATYPE_NULL, 1};
    if (desc == DDT_USER || (desc == DDT_CONTIG && c->stride != 1))
        return MPI_SUCCESS;
    if (desc != DDT_RESIZED)
        return strided(c, desc, c->n, &out->type);
    out->count = c->n;
    return element(c, &out->type);
}

/* Base type T_base of Benchmark 2. */
static int base_type(const ddt_ctx_t *c, int base, MPI_Datatype *out)
{
    static const int desc[DDT_NBASE] = {DDT_USER, DDT_CONTIG, DDT_VECTOR, DDT_BIDX, DDT_IDX,
                                        DDT_STRUCT};
    MPI_Datatype t;
    int rc;
    if (base == DDT_B_BASIC && c->stride == 1) {
        *out = c->base;
        return MPI_SUCCESS;
    }
    if (base == DDT_B_BASIC)
        return element(c, out);
    if ((rc = strided(c, desc[base], DDT_UNIT2, &t)) != MPI_SUCCESS)
        return rc;
    rc = resize(&t, (MPI_Aint)DDT_UNIT2 * c->stride * c->ext);
    *out = t;
    return rc;
}

int ddt_make_b2(const ddt_ctx_t *c, int base, int form, ddt_dt_t *out)
{
    int items = base == DDT_B_BASIC ? c->n : c->n / DDT_UNIT2, rc;
    MPI_Datatype t, enc;
    *out = (ddt_dt_t){MPI_DATATYPE_NULL, items};
    if ((rc = base_type(c, base, &t)) != MPI_SUCCESS || form == DDT_COUNT) {
        out->type = t;
        return rc;
    }
    rc = MPI_Type_contiguous(items, t, &enc);
    if (t != c->base)
        MPI_Type_free(&t);
    *out = (ddt_dt_t){enc, 1};
    return rc;
}

/* Benchmark 3a: element i at i*s' + (i mod 2). */
static int make_3a(const ddt_ctx_t *c, int form, MPI_Datatype *out)
{
    int s = c->stride < 2 ? 2 : c->stride, *disps, rc;
    MPI_Datatype pair;
    if (form == DDT_REGULAR) {
        if ((rc = MPI_Type_vector(2, 1, s + 1, c->base, &pair)) != MPI_SUCCESS)
            return rc;
        rc = resize(&pair, (MPI_Aint)2 * s * c->ext);
        rc = rc == MPI_SUCCESS ? MPI_Type_vector(c->n / 2, 1, 1, pair, out) : rc;
        MPI_Type_free(&pair);
        return rc;
    }
    disps = malloc((size_t)c->n * sizeof *disps);
    for (int i = 0; i < c->n / 2 * 2; i++)
        disps[i] = i * s + i % 2;
    rc = MPI_Type_create_indexed_block(c->n / 2 * 2, 1, disps, c->base, out);
    free(disps);
    return rc;
}

/* Benchmark 3b as indexed: units of (2 at 0, 3 at 3s-1, 1 at 6s-1). */
static int make_3b_indexed(const ddt_ctx_t *c, MPI_Datatype *out)
{
    int units = c->n / 6, s = c->stride, *lens = malloc((size_t)units * 6 * sizeof *lens);
    int *disps = lens + 3 * units, rc;
    for (int u = 0; u < units; u++) {
        const int l[3] = {2, 3, 1}, d[3] = {0, 3 * s - 1, 6 * s - 1};
        for (int k = 0; k < 3; k++) {
            lens[3 * u + k] = l[k];
            disps[3 * u + k] = 6 * s * u + d[k];
        }
    }
    rc = MPI_Type_indexed(3 * units, lens, disps, c->base, out);
    free(lens);
    return rc;
}

/* Benchmark 3b as head, vector of 3-element blocks, tail. */
static int make_3b_struct(const ddt_ctx_t *c, MPI_Datatype *out)
{
    int s = c->stride, units = c->n / 6, lens[3] = {1, 1, 1}, rc;
    MPI_Aint disps[3] = {0, (MPI_Aint)(3 * s - 1) * c->ext, ((MPI_Aint)6 * units * s - 1) * c->ext};
    MPI_Datatype types[3] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, c->base};
    rc = MPI_Type_contiguous(2, c->base, &types[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_vector(2 * units - 1, 3, 3 * s, c->base, &types[1]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_struct(3, lens, disps, types, out);
    for (int i = 0; i < 2; i++)
        if (types[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&types[i]);
    return rc;
}

int ddt_make_b3(const ddt_ctx_t *c, int layout, int form, ddt_dt_t *out)
{
    *out = (ddt_dt_t){MPI_DATATYPE_NULL, 1};
    if (layout == DDT_3A)
        return make_3a(c, form, &out->type);
    return form == DDT_IRREGULAR ? make_3b_indexed(c, &out->type) : make_3b_struct(c, &out->type);
}

static int predefined(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

int ddt_commit(ddt_dt_t *d)
{
    return d->type == MPI_DATATYPE_NULL || predefined(d->type) ? MPI_SUCCESS
                                                                : MPI_Type_commit(&d->type);
}

int ddt_normalized(const ddt_dt_t *in, ddt_dt_t *out)
{
    *out = (ddt_dt_t){MPI_DATATYPE_NULL, in->count};
    if (in->type == MPI_DATATYPE_NULL)
        return MPI_SUCCESS;
    if (pcoll_type_normalize(in->type, &out->type) != PCOLL_SUCCESS)
        return MPI_ERR_TYPE;
    return MPI_Type_commit(&out->type);
}

void ddt_dt_free(ddt_dt_t *d)
{
    if (d->type != MPI_DATATYPE_NULL && !predefined(d->type))
        MPI_Type_free(&d->type);
    d->type = MPI_DATATYPE_NULL;
}

/* count items of t packed from c->src (malloc'd; *len bytes). */
static char *packed(const ddt_ctx_t *c, const ddt_dt_t *d, int *len)
{
    int size, pos = 0;
    char *buf;
    MPI_Pack_size(d->count, d->type, MPI_COMM_SELF, &size);
    buf = malloc((size_t)size + 1);
    MPI_Pack(c->src, d->count, d->type, buf, size, &pos, MPI_COMM_SELF);
    *len = pos;
    return buf;
}

int ddt_same_data(const ddt_ctx_t *c, const ddt_dt_t *a, const ddt_dt_t *b)
{
    int la, lb, same;
    char *pa = packed(c, a, &la), *pb = packed(c, b, &lb);
    same = la == lb && memcmp(pa, pb, (size_t)la) == 0;
    free(pa);
    free(pb);
    return same;
}
