/*
 * Type sizes and extents as MPI_Count / MPI_Aint from the user's arguments
 * down to the schedule: MPI_Type_size answers in an int, and for an item of
 * more than INT_MAX bytes (e.g. contiguous(3, contiguous(2^30, MPI_BYTE)))
 * it gives MPI_UNDEFINED.  MPI-4 has MPI_Type_size_c and friends, MPI-3
 * MPI_Type_size_x and friends (MPI_Count results).  Likewise a type made
 * by MPI-4's large-count constructors is queried with
 * MPI_Type_get_envelope_c, never with the int form that aborts on it.
 */
#include <limits.h>
#include <stdint.h>

#include "base/mem.h"
#include "base/status.h"
#include "datatype/size.h"

/* ---- the named types' memo ------------------------------------------------
 * A call's checks and a kept plan's runs ask for the sizes and extents of
 * the same few types on every call; for a named type (MPI_INT, MPI_BYTE,
 * ...) the answer never changes and its handle never names another type,
 * so the thread keeps the last few handles it was asked about: a named
 * one's answers, and for a derived one only that it is derived (its handle
 * may be freed and come back for another derived type, never for a named
 * one): derived types are always asked of the MPI. */
typedef struct memo_entry {
    MPI_Datatype type;
    int filled, named;
    MPI_Count size;
    MPI_Aint lb, extent, tlb, textent;
} memo_entry_t;

#define MEMO_TYPES 8

typedef struct type_memo {
    memo_entry_t e[MEMO_TYPES];
    unsigned next, last; /* the slot to fill next; the last one asked */
} type_memo_t;

static PCOLL__THREAD_LOCAL type_memo_t type_memo;

static int ask_size(MPI_Datatype type, MPI_Count *size);
static int ask_named(MPI_Datatype type);
static int ask_extent(MPI_Datatype type, int true_extent, MPI_Aint *lb, MPI_Aint *extent);

/* The memo's answers for type where it is named; NULL where it is derived
 * or the MPI cannot answer. */
static const memo_entry_t *named_answers(MPI_Datatype type)
{
    type_memo_t *m = &type_memo;
    memo_entry_t *s;
    int i;
    if (type == MPI_DATATYPE_NULL)
        return NULL;
    s = &m->e[m->last];
    if (s->filled && s->type == type)
        return s->named ? s : NULL;
    for (i = 0; i < MEMO_TYPES; i++)
        if (m->e[i].filled && m->e[i].type == type) {
            m->last = (unsigned)i;
            return m->e[i].named ? &m->e[i] : NULL;
        }
    m->last = m->next++ % MEMO_TYPES;
    s = &m->e[m->last];
    s->filled = 0;
    s->type = type;
    s->named = ask_named(type);
    if (s->named && (ask_size(type, &s->size) != MPI_SUCCESS ||
                     ask_extent(type, 0, &s->lb, &s->extent) != MPI_SUCCESS ||
                     ask_extent(type, 1, &s->tlb, &s->textent) != MPI_SUCCESS))
        return NULL;
    s->filled = 1;
    return s->named ? s : NULL;
}

static int ask_size(MPI_Datatype type, MPI_Count *size)
{
    int err;
#if PCOLL__MPI_BIGCOUNT
    err = MPI_Type_size_c(type, size);
#else
    err = MPI_Type_size_x(type, size);
#endif
    return err == MPI_SUCCESS && *size != MPI_UNDEFINED ? MPI_SUCCESS
                                                        : (err != MPI_SUCCESS ? err : MPI_ERR_TYPE);
}

static int ask_extent(MPI_Datatype type, int true_extent, MPI_Aint *lb, MPI_Aint *extent)
{
    MPI_Count l = 0, e = 0;
    int err;
#if PCOLL__MPI_BIGCOUNT
    err = true_extent ? MPI_Type_get_true_extent_c(type, &l, &e)
                      : MPI_Type_get_extent_c(type, &l, &e);
#else
    err = true_extent ? MPI_Type_get_true_extent_x(type, &l, &e)
                      : MPI_Type_get_extent_x(type, &l, &e);
#endif
    *lb = (MPI_Aint)l;
    *extent = (MPI_Aint)e;
    return err == MPI_SUCCESS && l != MPI_UNDEFINED && e != MPI_UNDEFINED
               ? MPI_SUCCESS
               : (err != MPI_SUCCESS ? err : MPI_ERR_TYPE);
}

int pcoll__type_size(MPI_Datatype type, MPI_Count *size)
{
    const memo_entry_t *m = named_answers(type);
    int err;
    if (m) {
        *size = m->size;
        return PCOLL_SUCCESS;
    }
    err = ask_size(type, size);
    if (err == MPI_SUCCESS)
        return PCOLL_SUCCESS;
    *size = 0;
    return pcoll__error(PCOLL_ERR_MPI, "datatype: the type's size is unknown to MPI (%d)", err);
}

/* The extent (true: the true extent) as MPI_Aint, from the _c or _x query. */
static int extent_of(MPI_Datatype type, int true_extent, MPI_Aint *lb, MPI_Aint *extent)
{
    const memo_entry_t *m = named_answers(type);
    int err;
    if (m) {
        *lb = true_extent ? m->tlb : m->lb;
        *extent = true_extent ? m->textent : m->extent;
        return PCOLL_SUCCESS;
    }
    err = ask_extent(type, true_extent, lb, extent);
    if (err == MPI_SUCCESS)
        return PCOLL_SUCCESS;
    *lb = *extent = 0;
    return pcoll__error(PCOLL_ERR_MPI, "datatype: the type's %sextent is unknown to MPI (%d)",
                        true_extent ? "true " : "", err);
}

int pcoll__type_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
    return extent_of(type, 0, lb, extent);
}

int pcoll__type_true_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
    return extent_of(type, 1, lb, extent);
}

int pcoll__type_span(MPI_Datatype type, MPI_Count count, MPI_Aint *lo, MPI_Aint *bytes)
{
    MPI_Aint lb, ext, tlb, text, step;
    int rc = pcoll__type_extent(type, &lb, &ext);
    *lo = *bytes = 0;
    if (rc != PCOLL_SUCCESS || (rc = pcoll__type_true_extent(type, &tlb, &text)) != PCOLL_SUCCESS ||
        count <= 0)
        return rc;
    step = (MPI_Aint)(count - 1) * ext;
    *lo = tlb + (step < 0 ? step : 0);
    *bytes = text + (step < 0 ? -step : step);
    return PCOLL_SUCCESS;
}

long long pcoll__type_bytes(MPI_Datatype type, MPI_Count count)
{
    const memo_entry_t *m = count >= 0 ? named_answers(type) : NULL;
    MPI_Count size;
    if (count < 0)
        return -1;
    if (m)
        size = m->size;
    else if (ask_size(type, &size) != MPI_SUCCESS)
        return -1;
    if (size < 0 || (size > 0 && (long long)count > LLONG_MAX / size))
        return -1;
    return (long long)size * (long long)count;
}

#if PCOLL__MPI_BIGCOUNT
/* A large-count constructor's arguments (MPI-4: the counts, displacements
 * and strides in one MPI_Count list, the rest in ints) in the layout of its
 * int constructor's (MPI_Type_get_contents): the combiner's int arguments in
 * ints, its byte displacements and strides in addrs.  With ints and addrs
 * NULL it only counts (*ni, *na).  -1 for a value over INT_MAX or a
 * combiner without a large-count form. */
typedef struct {
    int *ints;
    MPI_Aint *addrs;
    int ni, na, bad;
} int_form_t;

static void put_int(int_form_t *f, MPI_Count v)
{
    if (v > INT_MAX || v < INT_MIN)
        f->bad = 1;
    else if (f->ints)
        f->ints[f->ni] = (int)v;
    f->ni++;
}

static void put_ints(int_form_t *f, const MPI_Count *v, MPI_Count n)
{
    MPI_Count i;
    for (i = 0; i < n; i++)
        put_int(f, v[i]);
}

static void put_addrs(int_form_t *f, const MPI_Count *v, MPI_Count n)
{
    MPI_Count i;
    for (i = 0; i < n; i++, f->na++)
        if (f->addrs)
            f->addrs[f->na] = (MPI_Aint)v[i];
}

static int int_form(int combiner, const int *ci, MPI_Count nci, const MPI_Count *cc, MPI_Count ncc,
                    int_form_t *f)
{
    MPI_Count n, i;
    f->ni = f->na = f->bad = 0;
    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
        put_ints(f, cc, ncc);
        break;
    case MPI_COMBINER_HVECTOR:          /* count, blocklength | stride */
    case MPI_COMBINER_HINDEXED_BLOCK:   /* count, blocklength | displacements */
        put_ints(f, cc, 2);
        put_addrs(f, cc + 2, ncc - 2);
        break;
    case MPI_COMBINER_HINDEXED:         /* count, blocklengths | displacements */
    case MPI_COMBINER_STRUCT:
        n = cc[0];
        put_ints(f, cc, n + 1);
        put_addrs(f, cc + n + 1, n);
        break;
    case MPI_COMBINER_SUBARRAY:         /* ndims, sizes, subsizes, starts, order */
        put_int(f, ci[0]);
        put_ints(f, cc, ncc);
        put_int(f, ci[1]);
        break;
    case MPI_COMBINER_DARRAY:           /* size, rank, ndims, gsizes, the rest */
        for (i = 0; i < 3; i++)
            put_int(f, ci[i]);
        put_ints(f, cc, ncc);
        for (i = 3; i < nci; i++)
            put_int(f, ci[i]);
        break;
    case MPI_COMBINER_RESIZED:          /* lb, extent */
        put_addrs(f, cc, ncc);
        break;
    default:
        return -1;
    }
    return f->bad ? -1 : 0;
}

/* The large-count contents of type (ints, counts and, if types is not
 * NULL, the datatypes: the caller's to free as MPI's rule says). */
static int contents_c(MPI_Datatype type, MPI_Count ci, MPI_Count ca, MPI_Count cc, MPI_Count cd,
                      int **ints, MPI_Count **counts, MPI_Datatype *types)
{
    MPI_Aint *addrs = pcoll__malloc((size_t)(ca > 0 ? ca : 1) * sizeof *addrs);
    MPI_Datatype *tmp = types ? NULL : pcoll__malloc((size_t)(cd > 0 ? cd : 1) * sizeof *tmp);
    MPI_Count i;
    int err = -1;
    *ints = pcoll__malloc((size_t)(ci > 0 ? ci : 1) * sizeof **ints);
    *counts = pcoll__malloc((size_t)(cc > 0 ? cc : 1) * sizeof **counts);
    if (addrs && *ints && *counts && (types || tmp) &&
        MPI_Type_get_contents_c(type, ci, ca, cc, cd, *ints, addrs, *counts,
                                types ? types : tmp) == MPI_SUCCESS) {
        err = 0;
        for (i = 0; tmp && i < cd; i++)
            if (!pcoll__type_is_named(tmp[i]))
                MPI_Type_free(&tmp[i]);
    }
    pcoll__free(addrs);
    pcoll__free(tmp);
    return err;
}
#endif

int pcoll__type_is_named(MPI_Datatype type)
{
    return named_answers(type) != NULL;
}

static int ask_named(MPI_Datatype type)
{
    int combiner, err;
#if PCOLL__MPI_BIGCOUNT
    MPI_Count ci, ca, cc, cd;
    err = MPI_Type_get_envelope_c(type, &ci, &ca, &cc, &cd, &combiner);
#else
    int ni, na, nd;
    err = MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
#endif
    return err == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED;
}

int pcoll__type_envelope(MPI_Datatype type, int *ni, int *na, int *nd, int *combiner)
{
#if PCOLL__MPI_BIGCOUNT
    MPI_Count ci = 0, ca = 0, cc = 0, cd = 0;
    MPI_Count *counts = NULL;
    int_form_t f = {0};
    int *ints = NULL, rc = 1;
    *ni = *na = *nd = 0;
    if (MPI_Type_get_envelope_c(type, &ci, &ca, &cc, &cd, combiner) != MPI_SUCCESS)
        return -1;
    if (ci > INT_MAX || ca > INT_MAX || cd > INT_MAX || cc > INT_MAX)
        return 1;
    *nd = (int)cd;
    if (cc == 0) {
        *ni = (int)ci, *na = (int)ca;
        return 0;
    }
    /* Made by a large-count constructor: its int form, if every value fits. */
    if (contents_c(type, ci, ca, cc, cd, &ints, &counts, NULL) == 0 &&
        int_form(*combiner, ints, ci, counts, cc, &f) == 0) {
        *ni = f.ni, *na = f.na;
        rc = 0;
    }
    pcoll__free(ints);
    pcoll__free(counts);
    return rc;
#else
    return MPI_Type_get_envelope(type, ni, na, nd, combiner) == MPI_SUCCESS ? 0 : -1;
#endif
}

int pcoll__type_contents(MPI_Datatype type, int ni, int na, int nd, int *ints, MPI_Aint *addrs,
                         MPI_Datatype *types)
{
#if PCOLL__MPI_BIGCOUNT
    MPI_Count ci = 0, ca = 0, cc = 0, cd = 0;
    MPI_Count *counts = NULL;
    int_form_t f = {.ints = ints, .addrs = addrs};
    int *cints = NULL, combiner, rc = -1;
    if (MPI_Type_get_envelope_c(type, &ci, &ca, &cc, &cd, &combiner) != MPI_SUCCESS)
        return -1;
    if (cc == 0)
        return MPI_Type_get_contents(type, ni, na, nd, ints, addrs, types) == MPI_SUCCESS ? 0
                                                                                          : -1;
    if (cd > nd || contents_c(type, ci, ca, cc, cd, &cints, &counts, types) != 0)
        goto out;
    if (int_form(combiner, cints, ci, counts, cc, &f) == 0 && f.ni <= ni && f.na <= na)
        rc = 0;
    else /* cannot happen after pcoll__type_envelope said yes; the types go back */
        for (MPI_Count i = 0; i < cd; i++)
            if (!pcoll__type_is_named(types[i]))
                MPI_Type_free(&types[i]);
out:
    pcoll__free(cints);
    pcoll__free(counts);
    return rc;
#else
    return MPI_Type_get_contents(type, ni, na, nd, ints, addrs, types) == MPI_SUCCESS ? 0 : -1;
#endif
}

/* Chunks of 2^30 items: contiguous(q, contiguous(2^30, type)) and
 * contiguous(r, type) side by side in a struct, resized to what
 * contiguous(count, type) would be. */
int pcoll__type_items(MPI_Count count, MPI_Datatype type, MPI_Datatype *out)
{
    const MPI_Count chunk = (MPI_Count)1 << 30;
    MPI_Count q = count / chunk, r = count % chunk;
    MPI_Datatype c = MPI_DATATYPE_NULL, parts[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    MPI_Datatype whole = MPI_DATATYPE_NULL;
    MPI_Aint lb, ext, disps[2];
    int lens[2] = {1, 1}, rc;
    *out = MPI_DATATYPE_NULL;
    if ((rc = pcoll__type_extent(type, &lb, &ext)) != PCOLL_SUCCESS)
        return rc;
    if (count < 0 || q > INT_MAX || (ext > 0 && count > (MPI_Count)(PTRDIFF_MAX / ext)))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "datatype: %lld items of one type",
                            (long long)count);
    disps[0] = 0;
    disps[1] = (MPI_Aint)(q * chunk) * ext;
    if (MPI_Type_contiguous((int)chunk, type, &c) != MPI_SUCCESS ||
        MPI_Type_contiguous((int)q, c, &parts[0]) != MPI_SUCCESS ||
        MPI_Type_contiguous((int)r, type, &parts[1]) != MPI_SUCCESS ||
        MPI_Type_create_struct(2, lens, disps, parts, &whole) != MPI_SUCCESS ||
        MPI_Type_create_resized(whole, lb, (MPI_Aint)count * ext, out) != MPI_SUCCESS ||
        MPI_Type_commit(out) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "datatype: a type of %lld items", (long long)count);
    if (c != MPI_DATATYPE_NULL)
        MPI_Type_free(&c);
    for (int i = 0; i < 2; i++)
        if (parts[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&parts[i]);
    if (whole != MPI_DATATYPE_NULL)
        MPI_Type_free(&whole);
    if (rc != PCOLL_SUCCESS && *out != MPI_DATATYPE_NULL)
        MPI_Type_free(out);
    return rc;
}
