/*
 * reduce_scatter (counts and block forms): the descriptor and the public
 * calls pcoll_reduce_scatter(_block)(_init) (and the drop-in's local plans),
 * through the entry path.  The block form is the counts form with p equal
 * counts; both share one table.
 *
 * In place (MPI_IN_PLACE): the input vector is taken from recvbuf and the
 * result block left at its start.  The plan copies the input into scratch at
 * the start of each run (total elements) and runs the algorithm from there.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "api/api.h"
#include "api/entry.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "datatype/contents.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__rs_args_t) <= PCOLL__ARGS_MAX, "reduce_scatter arguments");

/* The public call's arguments: counts, or (block form) recvcount. */
typedef struct raw {
    const void *sendbuf;
    void *recvbuf;
    const int *counts;
    int recvcount;
    int block;
    MPI_Datatype type;
    MPI_Op op;
    /* In the one-shot key only: the op's commutativity.  MPI may hand a freed
     * op's handle to a new op; the plan calls the op by its handle, so only
     * what the plan was built from (commutativity) must match. */
    int commutative;
    /* A code the large-count forms' conversion failed with (a count over
     * INT_MAX: the same on every rank, as MPI requires equal counts). */
    int refuse;
} raw_t;

static pcoll__rs_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__rs_args_t *)(void *)c->args;
}

/* The counts: the caller's, or (block form) p copies of recvcount in
 * c->tmp[0].  NULL with *rc set on failure. */
static const int *counts_of(pcoll__call_t *c, int *rc)
{
    const raw_t *r = c->raw;
    int i, *counts;
    *rc = r->refuse;
    if (*rc != PCOLL_SUCCESS)
        return NULL;
    if (!r->block && !r->counts)
        *rc = pcoll__error(PCOLL_ERR_ARG, "%s: recvcounts is NULL", c->fn);
    if (!r->block || c->tmp[0])
        return r->block ? c->tmp[0] : r->counts;
    if (r->recvcount < 0) {
        *rc = pcoll__error(PCOLL_ERR_ARG, "%s: recvcount is negative (%d)", c->fn, r->recvcount);
        return NULL;
    }
    if (!(counts = c->tmp[0] = pcoll__malloc(sizeof(int) * (size_t)c->p))) {
        *rc = pcoll__error(PCOLL_ERR_NOMEM, "%s: counts", c->fn);
        return NULL;
    }
    for (i = 0; i < c->p; i++)
        counts[i] = r->recvcount;
    return counts;
}

/* ---- checks ---------------------------------------------------------------- */

/* Whether every leaf of type's constructor tree is the same predefined type
 * (*leaf, set by the first leaf found).  Pair types such as MPI_DOUBLE_INT
 * are leaves of their own. */
static int one_leaf(MPI_Datatype type, MPI_Datatype *leaf)
{
    pcoll__contents_t c = {0};
    int i, ok;
    if (pcoll__type_predefined(type)) {
        if (*leaf == MPI_DATATYPE_NULL)
            *leaf = type;
        return *leaf == type;
    }
    if (pcoll__contents_get(type, "reduce_scatter", &c) != PCOLL_SUCCESS)
        return 0;
    for (i = 0, ok = 1; i < c.ntypes && ok; i++)
        ok = one_leaf(c.types[i], leaf);
    pcoll__contents_free(&c);
    return ok;
}

/* Type and op: a predefined op needs a type map of one predefined type. */
static int check_type_op(pcoll__call_t *c, pcoll__rs_args_t *a)
{
    const raw_t *r = c->raw;
    MPI_Datatype leaf = MPI_DATATYPE_NULL;
    MPI_Aint lb;
    int rc = pcoll__check_type(r->type, "type", c->fn);
    if (rc != PCOLL_SUCCESS)
        return rc;
    if (r->op == MPI_OP_NULL)
        return pcoll__error(PCOLL_ERR_ARG, "%s: MPI_OP_NULL", c->fn);
    if (pcoll__op_predefined(r->op) && !one_leaf(r->type, &leaf))
        return pcoll__error(PCOLL_ERR_ARG,
                            "%s: a predefined op needs a type made of one predefined type", c->fn);
    MPI_Op_commutative(r->op, &a->commutative);
    MPI_Type_get_extent(r->type, &lb, &a->extent);
    c->inplace = a->inplace = r->sendbuf == MPI_IN_PLACE;
    a->sendbuf = a->inplace ? r->recvbuf : r->sendbuf;
    a->recvbuf = r->recvbuf;
    a->type = r->type;
    a->op = r->op;
    return PCOLL_SUCCESS;
}

/* The counts and their prefix sums (p+1, in c->tmp[1]). */
static int check_counts(pcoll__call_t *c, pcoll__rs_args_t *a)
{
    const int *counts;
    long long *displs;
    int i, rc;
    if (!(counts = counts_of(c, &rc)))
        return rc;
    if (!(displs = c->tmp[1] = pcoll__malloc(sizeof(long long) * (size_t)(c->p + 1))))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: displacements", c->fn);
    displs[0] = 0;
    for (i = 0; i < c->p; i++) {
        if (counts[i] < 0)
            return pcoll__error(PCOLL_ERR_ARG, "%s: recvcounts[%d] is negative (%d)", c->fn, i,
                                counts[i]);
        displs[i + 1] = displs[i] + counts[i];
    }
    if (displs[c->p] > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s: more than INT_MAX elements", c->fn);
    a->counts = counts;
    a->displs = displs;
    a->total = displs[c->p];
    return PCOLL_SUCCESS;
}

/* recvbuf may not be MPI_IN_PLACE (sendbuf may); neither may be NULL with
 * data to hold (unless the type's addresses are absolute: MPI_BOTTOM). */
static int check_buffers(pcoll__call_t *c, const pcoll__rs_args_t *a)
{
    const raw_t *r = c->raw;
    MPI_Aint lb, extent;
    int rc;
    MPI_Type_get_extent(a->type, &lb, &extent);
    rc = pcoll__check_buffer(r->recvbuf, (a->inplace ? a->total : a->counts[c->rank]) * extent,
                             a->type, "recvbuf", c->fn);
    if (rc == PCOLL_SUCCESS && !a->inplace)
        rc = pcoll__check_buffer(r->sendbuf, a->total * extent, a->type, "sendbuf", c->fn);
    return rc;
}

static int rs_check(pcoll__call_t *c)
{
    pcoll__rs_args_t *a = args_of(c);
    int rc = check_type_op(c, a);
    if (rc == PCOLL_SUCCESS)
        rc = check_counts(c, a);
    if (rc == PCOLL_SUCCESS)
        rc = check_buffers(c, a);
    c->empty = a->total == 0;
    return rc;
}

/* The vector length, the algorithm, MPI_IN_PLACE use and every
 * recvcounts[i] must be equal on every rank: one reduction (per 128
 * values). */
static int rs_agree(pcoll__call_t *c, int local)
{
    static const char *const what[] = {"the vector length", "the algorithm", "MPI_IN_PLACE use"};
    const pcoll__rs_args_t *a = args_of(c);
    int n = 3 + c->p, i, rc;
    long long *v = local == PCOLL_SUCCESS ? pcoll__malloc(sizeof *v * 3 * (size_t)n) : NULL;
    if (!v && local == PCOLL_SUCCESS)
        local = pcoll__error(PCOLL_ERR_NOMEM, "%s: agreement", c->fn);
    /* The same reductions on every rank: zeros where the values are unknown. */
    if (!v)
        return pcoll__agree_range(c->ctx->dup, local, NULL, n, NULL, NULL, c->fn);
    v[0] = a->total;
    v[1] = pcoll__select_reduce_scatter(a, c->p);
    v[2] = a->inplace;
    for (i = 3; i < n; i++)
        v[i] = a->counts[i - 3];
    rc = pcoll__agree_range(c->ctx->dup, local, v, n, v + n, v + 2 * n, c->fn);
    for (i = 0; rc == PCOLL_SUCCESS && i < n; i++)
        if (v[n + i] != v[2 * n + i])
            rc = i < 3 ? pcoll__error(PCOLL_ERR_MISMATCH, "%s: %s differs across ranks", c->fn,
                                      what[i])
                       : pcoll__error(PCOLL_ERR_MISMATCH, "%s: recvcounts[%d] differs across ranks",
                                      c->fn, i - 3);
    pcoll__free(v);
    return rc;
}

/* ---- one-shot key, choice, preparation, staging ------------------------------ */

/* Key: buffers, type, op, then the counts. */
static int rs_key(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    size_t bytes = sizeof(int) * (size_t)c->p;
    const int *counts;
    raw_t *kr;
    int rc;
    if (!(counts = counts_of(c, &rc)))
        return rc;
    if (!(kr = pcoll__key_put(k, sizeof *kr + bytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: cache key", c->fn);
    kr->sendbuf = r->sendbuf, kr->recvbuf = r->recvbuf, kr->type = r->type, kr->op = r->op;
    if (r->op != MPI_OP_NULL)
        MPI_Op_commutative(r->op, &kr->commutative);
    memcpy(kr + 1, counts, bytes);
    k->types[k->ntypes++] = r->type;
    return PCOLL_SUCCESS;
}

static int rs_choose(pcoll__call_t *c)
{
    return pcoll__select_reduce_scatter(args_of(c), c->p);
}

/* Refuse a non-commutative op for the algorithms that reorder operands;
 * copy the counts and displacements into the plan; keep the type. */
static int rs_prepare(pcoll__call_t *c, pcoll_plan_t *plan)
{
    pcoll__rs_args_t *a = args_of(c);
    const pcoll__algo_t *algo = &pcoll__reduce_scatter_table.algos[c->algo];
    size_t p = (size_t)plan->size;
    int *counts;
    long long *displs;
    if (!a->commutative && (algo->flags & PCOLL__ALGO_COMMUTATIVE))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "reduce_scatter %s: the op is not commutative",
                            algo->name);
    counts = pcoll__plan_alloc(plan, sizeof(int) * p);
    displs = pcoll__plan_alloc(plan, sizeof(long long) * (p + 1));
    if (!counts || !displs)
        return pcoll__error(PCOLL_ERR_NOMEM, "reduce_scatter: counts");
    memcpy(counts, a->counts, sizeof(int) * p);
    memcpy(displs, a->displs, sizeof(long long) * (p + 1));
    a->counts = counts;
    a->displs = displs;
    return pcoll__plan_keep_type(plan, &a->type);
}

/* In place: copy the input vector into scratch at the start of each run. */
static int rs_stage(pcoll__call_t *c, pcoll_plan_t *plan)
{
    pcoll__rs_args_t *a = args_of(c);
    void *copy = pcoll__rs_scratch(plan, a, a->total);
    if (!copy)
        return pcoll__error(PCOLL_ERR_NOMEM, "reduce_scatter in place: scratch");
    a->sendbuf = copy;
    return pcoll__rs_copy(plan, a, a->recvbuf, copy, a->total);
}

static const pcoll__coll_t reduce_scatter = {
    .name = "reduce_scatter",
    .table = &pcoll__reduce_scatter_table,
    .opts_offset = offsetof(pcoll__rs_args_t, opts),
    .check = rs_check,
    .agree = rs_agree,
    .key = rs_key,
    .choose = rs_choose,
    .prepare = rs_prepare,
    .stage = rs_stage,
};

int pcoll_reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, recvcounts, 0, 0, type, op, 0, PCOLL_SUCCESS};
    return pcoll__entry(&reduce_scatter, PCOLL__PERSISTENT, "pcoll_reduce_scatter_init",
                        &r, comm, info, plan);
}

int pcoll_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, NULL, recvcount, 1, type, op, 0, PCOLL_SUCCESS};
    return pcoll__entry(&reduce_scatter, PCOLL__PERSISTENT, "pcoll_reduce_scatter_block_init",
                        &r, comm, info, plan);
}

int pcoll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    raw_t r = {sendbuf, recvbuf, recvcounts, 0, 0, type, op, 0, PCOLL_SUCCESS};
    return pcoll__entry(&reduce_scatter, PCOLL__ONESHOT, "pcoll_reduce_scatter",
                        &r, comm, MPI_INFO_NULL, NULL);
}

int pcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    raw_t r = {sendbuf, recvbuf, NULL, recvcount, 1, type, op, 0, PCOLL_SUCCESS};
    return pcoll__entry(&reduce_scatter, PCOLL__ONESHOT, "pcoll_reduce_scatter_block",
                        &r, comm, MPI_INFO_NULL, NULL);
}

/* ---- large-count forms ------------------------------------------------------ */

/* Counts over INT_MAX elements are refused (PCOLL_ERR_UNSUPPORTED): every
 * rank holds the same counts, so every rank refuses alike. */
static int fits(MPI_Count count, int *out, int *refuse, const char *fn)
{
    if (count > INT_MAX && *refuse == PCOLL_SUCCESS)
        *refuse = pcoll__error(PCOLL_ERR_UNSUPPORTED,
                               "%s: %lld elements in one block (at most INT_MAX)", fn,
                               (long long)count);
    *out = count > INT_MAX ? 0 : count < 0 ? -1 : (int)count;
    return *refuse == PCOLL_SUCCESS;
}

static int run_c(const void *sendbuf, void *recvbuf, const MPI_Count *recvcounts,
                 MPI_Count recvcount, int block, MPI_Datatype type, MPI_Op op,
                 pcoll__mode_t mode, const char *fn, MPI_Comm comm, MPI_Info info,
                 pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, NULL, 0, block, type, op, 0, PCOLL_SUCCESS};
    int *counts = NULL, p = 0, rc;
    if (block) {
        fits(recvcount, &r.recvcount, &r.refuse, fn);
    } else if (recvcounts && comm != MPI_COMM_NULL && MPI_Comm_size(comm, &p) == MPI_SUCCESS) {
        if (!(counts = pcoll__malloc(sizeof(int) * (size_t)(p > 0 ? p : 1))))
            r.refuse = pcoll__error(PCOLL_ERR_NOMEM, "%s: counts", fn);
        for (int i = 0; counts && i < p; i++)
            fits(recvcounts[i], &counts[i], &r.refuse, fn);
        r.counts = counts;
    }
    rc = pcoll__entry(&reduce_scatter, mode, fn, &r, comm, info, plan);
    pcoll__free(counts);
    return rc;
}

int pcoll_reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                pcoll_plan_t **plan)
{
    return run_c(sendbuf, recvbuf, recvcounts, 0, 0, type, op, PCOLL__PERSISTENT,
                 "pcoll_reduce_scatter_init_c", comm, info, plan);
}

int pcoll_reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                      MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                      MPI_Info info, pcoll_plan_t **plan)
{
    return run_c(sendbuf, recvbuf, NULL, recvcount, 1, type, op, PCOLL__PERSISTENT,
                 "pcoll_reduce_scatter_block_init_c", comm, info, plan);
}

int pcoll_reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return run_c(sendbuf, recvbuf, recvcounts, 0, 0, type, op, PCOLL__ONESHOT,
                 "pcoll_reduce_scatter_c", comm, MPI_INFO_NULL, NULL);
}

int pcoll_reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return run_c(sendbuf, recvbuf, NULL, recvcount, 1, type, op, PCOLL__ONESHOT,
                 "pcoll_reduce_scatter_block_c", comm, MPI_INFO_NULL, NULL);
}

int pcoll__reduce_scatter_plan_local(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                     pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, recvcounts, 0, 0, type, op, 0, PCOLL_SUCCESS};
    return pcoll__entry(&reduce_scatter, PCOLL__LOCAL, "pcoll__reduce_scatter_plan_local",
                        &r, comm, MPI_INFO_NULL, plan);
}
