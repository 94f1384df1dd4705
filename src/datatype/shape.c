/*
 * Planning a normalized description of a flattened type map (blocks
 * [a, b) of a block list).  Three candidates are priced with the penalty of
 * penalty.c and the cheapest is kept:
 *
 *   periodic  the blocks are copies of a unit (period.c), possibly after one
 *             head block and/or before one tail block, the last copy
 *             possibly partial: a vector when the unit is one block, else an
 *             hvector of the unit, which is planned the same way (so vectors
 *             of vectors -- Benchmark 3a -- and arrays of structs are found
 *             at any depth); head, copies, partial copy and tail become the
 *             members of a struct (Benchmark 3b: head, vector, tail);
 *   runs      maximal runs of blocks of one type and length at a constant
 *             distance, each a vector (or a lone block), as struct members;
 *   flat      every block listed: indexed_block when the lengths are equal,
 *             indexed otherwise, struct when the basic types differ.
 *
 * Of the four head/tail variants of the periodic candidate only the one with
 * the smallest period is planned further, and the unit and the partial copy
 * together hold at most 2/3 of the blocks, so the planning time is linear in
 * the number of blocks.
 */
#include "base/mem.h"
#include "base/status.h"
#include "datatype/shape.h"

static pcoll__shape_t *shape_new(pcoll__shape_kind_t kind, long a, long b, int nparts)
{
    pcoll__shape_t *s = pcoll__calloc(1, sizeof *s);
    if (s && nparts > 0 && !(s->parts = pcoll__calloc((size_t)nparts, sizeof *s->parts))) {
        pcoll__free(s);
        s = NULL;
    }
    if (!s) {
        pcoll__error(PCOLL_ERR_NOMEM, "normalize: a description");
        return NULL;
    }
    s->kind = kind;
    s->a = a;
    s->b = b;
    return s;
}

void pcoll__shape_free(pcoll__shape_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nparts; i++)
        pcoll__shape_free(s->parts[i]);
    pcoll__free(s->parts);
    pcoll__free(s);
}

int pcoll__shape_explicit(const pcoll__shape_t *s)
{
    return s->kind == PCOLL__SHAPE_STRUCT || s->kind == PCOLL__SHAPE_FLAT;
}

/* The penalty of s as a struct member: a lone block is (length, basic type). */
static long member_penalty(const pcoll__shape_t *s)
{
    return s->kind == PCOLL__SHAPE_BLOCK ? 1 : s->penalty;
}

/* A struct of the parts made so far (nparts may be less than allocated). */
static void struct_price(pcoll__shape_t *s)
{
    long sum = 0;
    for (int i = 0; i < s->nparts; i++)
        sum += member_penalty(s->parts[i]);
    s->penalty = 1 + 3 * sum;
}

/* Blocks [a, b) as one vector (b - a >= 2) or one block. */
static pcoll__shape_t *run_shape(const pcoll__blocks_t *l, long a, long b)
{
    pcoll__shape_t *s = shape_new(b - a == 1 ? PCOLL__SHAPE_BLOCK : PCOLL__SHAPE_VECTOR, a, b, 0);
    if (!s)
        return NULL;
    s->count = b - a;
    s->stride = b - a > 1 ? l->b[a + 1].disp - l->b[a].disp : 0;
    s->penalty = b - a > 1 || l->b[a].len > 1 ? 2 : 1;
    return s;
}

/* The end of the maximal run of equal blocks at a constant distance from a. */
static long run_end(const pcoll__blocks_t *l, long a, long b)
{
    const pcoll__block_t *x = l->b;
    long j = a + 1;
    if (j == b || !pcoll__block_like(&x[j], &x[a]))
        return j;
    for (j = a + 2; j < b && pcoll__block_like(&x[j], &x[a]); j++)
        if (x[j].disp - x[j - 1].disp != x[a + 1].disp - x[a].disp)
            break;
    return j;
}

/* The runs candidate's penalty, and how many runs there are. */
static long runs_price(const pcoll__blocks_t *l, long a, long b, int *nruns)
{
    long sum = 0, n = 0;
    for (long i = a, j; i < b; i = j, n++) {
        j = run_end(l, i, b);
        sum += j - i > 1 ? 2 : 1;
    }
    *nruns = n > 1 << 30 ? 1 << 30 : (int)n;
    return n == 1 ? sum : 1 + 3 * sum;
}

/* The flat candidate's penalty: 1 + (1, 2 or 3) per block. */
static long flat_price(const pcoll__blocks_t *l, long a, long b)
{
    int same_len = 1;
    for (long i = a + 1; i < b; i++) {
        if (l->b[i].type != l->b[a].type)
            return 1 + 3 * (b - a);
        same_len = same_len && l->b[i].len == l->b[a].len;
    }
    return 1 + (same_len ? 1 : 2) * (b - a);
}

/* Blocks [a, b) with nruns >= 2 runs as a struct of vectors and blocks. */
static int runs_shape(const pcoll__blocks_t *l, long a, long b, int nruns, pcoll__shape_t **out)
{
    pcoll__shape_t *s = shape_new(PCOLL__SHAPE_STRUCT, a, b, nruns);
    for (long i = a, j; s && i < b; i = j) {
        j = run_end(l, i, b);
        if (!(s->parts[s->nparts] = run_shape(l, i, j))) {
            pcoll__shape_free(s);
            s = NULL;
        } else
            s->nparts++;
    }
    if (s)
        struct_price(s);
    *out = s;
    return s ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
}

/* A periodic candidate: h head and t tail blocks (0 or 1), period p. */
typedef struct periodic {
    long h, t, p;
} periodic_t;

/* The head/tail variant with the smallest period (p = 0: none). */
static int best_period(const pcoll__blocks_t *l, long a, long b, periodic_t *best)
{
    int rc = PCOLL_SUCCESS;
    best->p = 0;
    for (int v = 0; v < 4 && rc == PCOLL_SUCCESS; v++) {
        long h = v & 1, t = v >> 1, p = 0;
        if (b - a - h - t >= 2)
            rc = pcoll__blocks_period(l, a + h, b - t, &p);
        if (p > 0 && (best->p == 0 || p < best->p))
            *best = (periodic_t){h, t, p};
    }
    return rc;
}

/* k copies of the unit [a, a+p): a vector when p is 1, else an hvector of
 * the unit's own plan. */
static int copies_shape(const pcoll__blocks_t *l, long a, long p, long k, pcoll__shape_t **out)
{
    pcoll__shape_t *s;
    int rc;
    if (p == 1)
        return (*out = run_shape(l, a, a + k)) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
    if (!(s = *out = shape_new(PCOLL__SHAPE_REPEAT, a, a + k * p, 1)))
        return PCOLL_ERR_NOMEM;
    s->count = k;
    s->stride = l->b[a + p].disp - l->b[a].disp;
    rc = pcoll__shape_plan(l, a, a + p, &s->parts[0]);
    if (rc != PCOLL_SUCCESS) {
        pcoll__shape_free(s);
        *out = NULL;
        return rc;
    }
    s->nparts = 1;
    s->penalty = 1 + s->parts[0]->penalty;
    return PCOLL_SUCCESS;
}

/* Add the part [a, b) planned (or as a lone block) to the struct s. */
static int add_part(const pcoll__blocks_t *l, long a, long b, pcoll__shape_t *s)
{
    int rc = PCOLL_SUCCESS;
    if (a == b)
        return PCOLL_SUCCESS;
    if (b - a == 1 && !(s->parts[s->nparts] = run_shape(l, a, b)))
        rc = PCOLL_ERR_NOMEM;
    else if (b - a > 1)
        rc = pcoll__shape_plan(l, a, b, &s->parts[s->nparts]);
    s->nparts += rc == PCOLL_SUCCESS;
    return rc;
}

/* The periodic candidate c: the copies alone, or a struct of the head, the
 * copies, the partial copy and the tail. */
static int periodic_shape(const pcoll__blocks_t *l, long a, long b, const periodic_t *c,
                          pcoll__shape_t **out)
{
    long lo = a + c->h, hi = b - c->t, k = (hi - lo) / c->p, rest = lo + k * c->p;
    pcoll__shape_t *s;
    int rc;
    if (c->h == 0 && c->t == 0 && rest == hi)
        return copies_shape(l, lo, c->p, k, out);
    if (!(s = *out = shape_new(PCOLL__SHAPE_STRUCT, a, b, 4)))
        return PCOLL_ERR_NOMEM;
    rc = add_part(l, a, lo, s);
    if (rc == PCOLL_SUCCESS)
        rc = copies_shape(l, lo, c->p, k, &s->parts[s->nparts]);
    s->nparts += rc == PCOLL_SUCCESS;
    if (rc == PCOLL_SUCCESS)
        rc = add_part(l, rest, hi, s);
    if (rc == PCOLL_SUCCESS)
        rc = add_part(l, hi, b, s);
    struct_price(s);
    return rc;
}

/* The cheapest of the runs and flat candidates. */
static int plain_shape(const pcoll__blocks_t *l, long a, long b, pcoll__shape_t **out)
{
    int nruns;
    long runs = runs_price(l, a, b, &nruns), flat = flat_price(l, a, b);
    if (runs < flat)
        return runs_shape(l, a, b, nruns, out);
    if (!(*out = shape_new(PCOLL__SHAPE_FLAT, a, b, 0)))
        return PCOLL_ERR_NOMEM;
    (*out)->penalty = flat;
    return PCOLL_SUCCESS;
}

int pcoll__shape_plan(const pcoll__blocks_t *l, long a, long b, pcoll__shape_t **out)
{
    pcoll__shape_t *per = NULL, *plain = NULL;
    periodic_t c = {0, 0, 0};
    int rc;
    *out = NULL;
    if (b - a == 1 || run_end(l, a, b) == b)
        return (*out = run_shape(l, a, b)) ? PCOLL_SUCCESS : PCOLL_ERR_NOMEM;
    rc = best_period(l, a, b, &c);
    if (rc == PCOLL_SUCCESS && c.p > 0)
        rc = periodic_shape(l, a, b, &c, &per);
    if (rc == PCOLL_SUCCESS)
        rc = plain_shape(l, a, b, &plain);
    if (rc == PCOLL_SUCCESS && per && per->penalty <= plain->penalty) {
        *out = per;
        per = NULL;
    } else if (rc == PCOLL_SUCCESS) {
        *out = plain;
        plain = NULL;
    }
    pcoll__shape_free(per);
    pcoll__shape_free(plain);
    return rc;
}
