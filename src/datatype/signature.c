/*
 * Type signatures (zero-copy Bruck paper, section 3.1): the sequence of basic
 * types one item of a datatype carries, as a run-length list of (predefined
 * type, count) with adjacent equal types merged, and the "signature type", a
 * contiguous type with that signature whose extent equals its size.
 *
 * The list is read from MPI_Type_get_envelope / MPI_Type_get_contents,
 * recursively.  A struct contributes blocklength[i] copies of the signature
 * of types[i], in order.  Every other constructor (dup, contiguous, vector,
 * hvector, indexed, hindexed, indexed_block, hindexed_block, subarray,
 * darray, resized) has one oldtype and selects whole items of it, so its
 * signature is size(type) / size(oldtype) copies of oldtype's -- which covers
 * subarray and darray without redoing their distribution arithmetic.  The
 * C pair types (MPI_DOUBLE_INT, MPI_2INT, ...) are expanded into their two
 * members so that, e.g., MPI_2INT matches two MPI_INTs.
 *
 * Work is linear in the number of runs produced: copies of a one-run
 * signature are a multiplied count, not expanded one by one, and
 * pcoll__sig_match compares count copies of two lists without making them.  Each
 * level is read with pcoll__contents_get (contents.c).
 */
#include <limits.h>

#include "base/mem.h"
#include "base/status.h"
#include "datatype/build.h"
#include "datatype/contents.h"
#include "datatype/signature.h"
#include "datatype/size.h"

/* Append count items of the basic type, merging with the last run.  The
 * capacity is implicit: the arrays are doubled whenever nruns reaches 0 or a
 * power of two, so they always hold the next power of two >= nruns. */
static int sig_push(pcoll__sig_t *s, MPI_Datatype type, long long count)
{
    int n = s->nruns;
    if (count == 0)
        return PCOLL_SUCCESS;
    if (n > 0 && s->types[n - 1] == type) {
        s->counts[n - 1] += count;
        return PCOLL_SUCCESS;
    }
    if ((n & (n - 1)) == 0) {
        size_t cap = n ? 2 * (size_t)n : 1;
        MPI_Datatype *types = pcoll__realloc(s->types, cap * sizeof *types);
        long long *counts = types ? pcoll__realloc(s->counts, cap * sizeof *counts) : NULL;
        if (types)
            s->types = types;
        if (!counts)
            return pcoll__error(PCOLL_ERR_NOMEM, "signature: %zu runs", cap);
        s->counts = counts;
    }
    s->types[n] = type;
    s->counts[n] = count;
    s->nruns = n + 1;
    return PCOLL_SUCCESS;
}

/* Append reps copies of the runs of unit. */
static int sig_repeat(pcoll__sig_t *s, const pcoll__sig_t *unit, long long reps)
{
    int rc = PCOLL_SUCCESS;
    if (unit->nruns == 1)
        return sig_push(s, unit->types[0], unit->counts[0] * reps);
    for (long long r = 0; r < reps && rc == PCOLL_SUCCESS; r++)
        for (int i = 0; i < unit->nruns && rc == PCOLL_SUCCESS; i++)
            rc = sig_push(s, unit->types[i], unit->counts[i]);
    return rc;
}

void pcoll__sig_free(pcoll__sig_t *sig)
{
    pcoll__free(sig->types);
    pcoll__free(sig->counts);
    sig->types = NULL;
    sig->counts = NULL;
    sig->nruns = 0;
}

int pcoll__sig_equal(const pcoll__sig_t *a, const pcoll__sig_t *b)
{
    if (a->nruns != b->nruns)
        return 0;
    for (int i = 0; i < a->nruns; i++)
        if (a->types[i] != b->types[i] || a->counts[i] != b->counts[i])
            return 0;
    return 1;
}

/* A read position in reps copies of a run list: the current run and how
 * many of its items are left (0 at the end).  A one-run list is one run of
 * reps times its count. */
typedef struct cursor {
    const pcoll__sig_t *s;
    long long reps, left;
    int run;
} cursor_t;

static void cursor_init(cursor_t *c, const pcoll__sig_t *s, long long reps)
{
    c->s = s;
    c->run = 0;
    c->reps = s->nruns == 0 ? 0 : s->nruns == 1 ? (reps > 0) : reps;
    c->left = c->reps == 0 ? 0 : s->nruns == 1 ? s->counts[0] * reps : s->counts[0];
}

static void cursor_take(cursor_t *c, long long n)
{
    c->left -= n;
    if (c->left > 0)
        return;
    if (++c->run == c->s->nruns) {
        c->run = 0;
        if (--c->reps == 0)
            return;
    }
    c->left = c->s->counts[c->run];
}

int pcoll__sig_match(const pcoll__sig_t *a, long long acount, const pcoll__sig_t *b,
                     long long bcount)
{
    cursor_t x, y;
    cursor_init(&x, a, acount);
    cursor_init(&y, b, bcount);
    while (x.left > 0 && y.left > 0) {
        long long n = x.left < y.left ? x.left : y.left;
        if (a->types[x.run] != b->types[y.run])
            return 0;
        cursor_take(&x, n);
        cursor_take(&y, n);
    }
    return x.left == 0 && y.left == 0;
}

/* A named type: itself, or the two members of a C pair type. */
static int push_named(pcoll__sig_t *s, MPI_Datatype type)
{
    const MPI_Datatype pairs[][3] = {
        {MPI_FLOAT_INT, MPI_FLOAT, MPI_INT},   {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT},
        {MPI_LONG_INT, MPI_LONG, MPI_INT},     {MPI_SHORT_INT, MPI_SHORT, MPI_INT},
        {MPI_2INT, MPI_INT, MPI_INT},          {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (type == pairs[i][0]) {
            int rc = sig_push(s, pairs[i][1], 1);
            return rc != PCOLL_SUCCESS ? rc : sig_push(s, pairs[i][2], 1);
        }
    }
    return sig_push(s, type, 1);
}

static int decode(MPI_Datatype type, pcoll__sig_t *s);

/* Append reps copies of the signature of one item of type. */
static int decode_repeat(pcoll__sig_t *s, MPI_Datatype type, long long reps)
{
    pcoll__sig_t unit = {0};
    int rc = reps == 0 ? PCOLL_SUCCESS : decode(type, &unit);
    if (rc == PCOLL_SUCCESS && unit.nruns > 0)
        rc = sig_repeat(s, &unit, reps);
    pcoll__sig_free(&unit);
    return rc;
}

/* A struct: blocklength[i] copies of types[i], in order. */
static int decode_struct(const pcoll__contents_t *c, pcoll__sig_t *s)
{
    int rc = PCOLL_SUCCESS;
    for (int i = 0; i < c->ints[0] && rc == PCOLL_SUCCESS; i++)
        rc = decode_repeat(s, c->types[i], c->ints[1 + i]);
    return rc;
}

/* Any constructor over a single oldtype: size(type)/size(oldtype) copies. */
static int decode_single(MPI_Datatype type, const pcoll__contents_t *c, pcoll__sig_t *s)
{
    MPI_Count size, oldsize;
    int rc;
    if (c->ntypes != 1)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "signature: a type constructor with %d oldtypes", c->ntypes);
    if ((rc = pcoll__type_size(type, &size)) != PCOLL_SUCCESS ||
        (rc = pcoll__type_size(c->types[0], &oldsize)) != PCOLL_SUCCESS)
        return rc;
    if (oldsize == 0)
        return PCOLL_SUCCESS;
    if (size % oldsize != 0)
        return pcoll__error(PCOLL_ERR_INTERNAL,
                            "signature: size %lld is no multiple of oldtype's %lld",
                            (long long)size, (long long)oldsize);
    return decode_repeat(s, c->types[0], (long long)(size / oldsize));
}

/* Append the signature of one item of type. */
static int decode(MPI_Datatype type, pcoll__sig_t *s)
{
    pcoll__contents_t c = {0};
    int rc = pcoll__contents_get(type, "signature", &c);
    if (rc == PCOLL_SUCCESS && pcoll__combiner_predefined(c.combiner))
        rc = push_named(s, type);
    else if (rc == PCOLL_SUCCESS)
        rc = c.combiner == MPI_COMBINER_STRUCT ? decode_struct(&c, s)
                                               : decode_single(type, &c, s);
    pcoll__contents_free(&c);
    return rc;
}

int pcoll__sig_of(MPI_Datatype type, int count, pcoll__sig_t *sig)
{
    pcoll__sig_t unit = {0};
    int rc;
    *sig = unit;
    if (count < 0)
        return pcoll__error(PCOLL_ERR_ARG, "signature: negative count %d", count);
    rc = count == 1 ? decode(type, sig) : decode_repeat(sig, type, count);
    if (rc != PCOLL_SUCCESS)
        pcoll__sig_free(sig);
    return rc;
}

int pcoll__sig_aligned(MPI_Datatype type, MPI_Count count)
{
    pcoll__sig_t sig;
    MPI_Count size;
    long long at = 0;
    int ok;
    if (count <= 0)
        return 1;
    if (pcoll__sig_of(type, 1, &sig) != PCOLL_SUCCESS)
        return 0;
    /* One item's elements, then where the next item begins. */
    ok = 1;
    for (int i = 0; i < sig.nruns && ok; i++) {
        ok = pcoll__type_size(sig.types[i], &size) == PCOLL_SUCCESS && size > 0 && 8 % size == 0 &&
             at % size == 0;
        at += size * sig.counts[i];
    }
    ok = ok && (sig.nruns <= 1 || count == 1 || at % 8 == 0);
    pcoll__sig_free(&sig);
    return ok;
}

/* count items of basic as (*type, *len): the basic type itself and count
 * when count fits in an int; else one item of pcoll__type_items' type, which
 * *owned says to free. */
static int run_piece(MPI_Datatype basic, long long count, MPI_Datatype *type, int *len,
                     int *owned)
{
    *owned = count > INT_MAX;
    *len = *owned ? 1 : (int)count;
    *type = basic;
    return *owned ? pcoll__type_items(count, basic, type) : PCOLL_SUCCESS;
}

/* The contiguous type of the runs: one run -> MPI_Type_contiguous, several
 * -> a struct at packed displacements; extent == size in both cases.  A run
 * of more than INT_MAX items becomes a type of its own (run_piece). */
static int runs_type(const pcoll__sig_t *s, MPI_Datatype *out)
{
    size_t each = sizeof(MPI_Aint) + sizeof(MPI_Datatype) + 2 * sizeof(int);
    MPI_Aint *disps = pcoll__malloc((size_t)s->nruns * each);
    MPI_Datatype *types;
    int *lens, *owned, i, n = 0, rc = PCOLL_SUCCESS;
    MPI_Count size;
    MPI_Aint at = 0;
    if (!disps)
        return pcoll__error(PCOLL_ERR_NOMEM, "signature: %d runs", s->nruns);
    types = (MPI_Datatype *)(disps + s->nruns);
    lens = (int *)(types + s->nruns);
    owned = lens + s->nruns;
    for (i = 0; i < s->nruns && rc == PCOLL_SUCCESS; i++) {
        rc = pcoll__type_size(s->types[i], &size);
        if (rc == PCOLL_SUCCESS)
            rc = run_piece(s->types[i], s->counts[i], &types[i], &lens[i], &owned[i]);
        if (rc != PCOLL_SUCCESS)
            break;
        n = i + 1;
        disps[i] = at;
        at += (MPI_Aint)(size * s->counts[i]);
    }
    if (rc == PCOLL_SUCCESS && s->nruns == 1)
        PCOLL_CHECK_MPI(MPI_Type_contiguous(lens[0], types[0], out), rc, done);
    else if (rc == PCOLL_SUCCESS)
        PCOLL_CHECK_MPI(MPI_Type_create_struct(s->nruns, lens, disps, types, out), rc, done);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__type_resize(out, 0, at);
done:
    for (i = 0; i < n; i++)
        if (owned[i])
            MPI_Type_free(&types[i]);
    pcoll__free(disps);
    return rc;
}

int pcoll_type_signature(MPI_Datatype type, MPI_Datatype *sigtype)
{
    pcoll__sig_t sig;
    int rc;
    if (!sigtype)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_type_signature: sigtype is NULL");
    *sigtype = MPI_DATATYPE_NULL;
    if (type == MPI_DATATYPE_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "pcoll_type_signature: MPI_DATATYPE_NULL");
    rc = pcoll__sig_of(type, 1, &sig);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (sig.nruns == 0)
        PCOLL_CHECK_MPI(MPI_Type_contiguous(0, MPI_BYTE, sigtype), rc, done);
    else
        rc = runs_type(&sig, sigtype);
done:
    pcoll__sig_free(&sig);
    return rc;
}

/* FNV-1a over n bytes. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n--)
        h = (h ^ *b++) * 0x100000001b3ULL;
    return h;
}

int pcoll__sig_hash(MPI_Datatype type, int count, unsigned long long *hash)
{
    pcoll__sig_t sig = {0};
    unsigned long long h = 0xcbf29ce484222325ULL;
    char name[MPI_MAX_OBJECT_NAME];
    int i, len, rc = pcoll__sig_of(type, count, &sig);
    for (i = 0; i < sig.nruns && rc == PCOLL_SUCCESS; i++) {
        if (MPI_Type_get_name(sig.types[i], name, &len) != MPI_SUCCESS)
            rc = pcoll__error(PCOLL_ERR_MPI, "signature: MPI_Type_get_name");
        h = fnv(fnv(h, name, (size_t)len), &sig.counts[i], sizeof sig.counts[i]);
    }
    pcoll__sig_free(&sig);
    *hash = h;
    return rc;
}
