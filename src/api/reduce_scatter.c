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
#include "core/comm.h"
#include "core/defects.h"
#include "datatype/contents.h"
#include "datatype/signature.h"
#include "gpu/gpu.h"
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
    /* The large-count forms: their counts instead of the two above. */
    int wide;
    const MPI_Count *wcounts;
    MPI_Count wrecvcount;
    int gpu_kinds; /* in the one-shot key only: device memory (gpu/gpu.h) */
} raw_t;

static pcoll__rs_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__rs_args_t *)(void *)c->args;
}

/* The counts as long long in c->tmp[0] (made once per call): the caller's
 * (ints or the large-count forms'), or p copies of the block form's count.
 * NULL with *rc set on failure. */
static const long long *counts_of(pcoll__call_t *c, int *rc)
{
    const raw_t *r = c->raw;
    long long *counts = c->tmp[0], one = r->wide ? r->wrecvcount : r->recvcount;
    int i;
    *rc = PCOLL_SUCCESS;
    if (counts)
        return counts;
    if (!r->block && !(r->wide ? (const void *)r->wcounts : (const void *)r->counts)) {
        *rc = pcoll__error(PCOLL_ERR_ARG, "%s: recvcounts is NULL", c->fn);
        return NULL;
    }
    if (r->block && one < 0) {
        *rc = pcoll__error(PCOLL_ERR_ARG, "%s: recvcount is negative (%lld)", c->fn, one);
        return NULL;
    }
    if (!(counts = c->tmp[0] = pcoll__malloc(sizeof *counts * (size_t)c->p))) {
        *rc = pcoll__error(PCOLL_ERR_NOMEM, "%s: counts", c->fn);
        return NULL;
    }
    for (i = 0; i < c->p; i++)
        counts[i] = r->block ? one : r->wide ? r->wcounts[i] : r->counts[i];
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
    a->derived = !pcoll__type_predefined(r->type);
    MPI_Type_get_extent(r->type, &lb, &a->extent);
    c->inplace = a->inplace = r->sendbuf == MPI_IN_PLACE;
    a->sendbuf = a->inplace ? r->recvbuf : r->sendbuf;
    a->recvbuf = r->recvbuf;
    a->type = r->type;
    a->op = r->op;
    a->block = r->block;
    return PCOLL_SUCCESS;
}

/* The counts and their prefix sums (p+1, in c->tmp[1]). */
static int check_counts(pcoll__call_t *c, pcoll__rs_args_t *a)
{
    const long long *counts;
    long long *displs;
    int i, rc;
    if (!(counts = counts_of(c, &rc)))
        return rc;
    if (!(displs = c->tmp[1]) &&
        !(displs = c->tmp[1] = pcoll__malloc(sizeof(long long) * (size_t)(c->p + 1))))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: displacements", c->fn);
    displs[0] = 0;
    for (i = 0; i < c->p; i++) {
        if (counts[i] < 0)
            return pcoll__error(PCOLL_ERR_ARG, "%s: recvcounts[%d] is negative (%lld)", c->fn, i,
                                counts[i]);
        if (counts[i] > LLONG_MAX / 2 - displs[i])
            return pcoll__error(PCOLL_ERR_ARG, "%s: the counts add up past LLONG_MAX", c->fn);
        displs[i + 1] = displs[i] + counts[i];
    }
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

/* The algorithm: on an intercommunicator `inter` for auto (`native` where
 * MPI_Reduce_local fails), else the collective's choice. */
static int rs_select(const pcoll__call_t *c, const pcoll__rs_args_t *a, pcoll__opts_t *tuned)
{
    pcoll__shape_t shape = pcoll__call_shape(c);
    const pcoll__algo_table_t *t = &pcoll__reduce_scatter_table;
    if (!c->ctx->remote)
        return pcoll__select_reduce_scatter(a, &shape, tuned);
    if (a->no_reduce_local && pcoll__algo_is_auto(t, a->opts.algorithm))
        return pcoll__algo_find(t, "native");
    return pcoll__select_inter(t, a->opts.algorithm);
}

/* The vector length, the algorithm, MPI_IN_PLACE use and every
 * recvcounts[i] must be equal on every rank: one reduction (per 128
 * values), after one that tells every rank whether some rank's type is
 * derived (types may differ where signatures agree; the MPI's own
 * reduce-scatter, which the choice weighs, refuses a derived one).  On an
 * intercommunicator both groups take part (merged): the vector length and
 * the algorithm are the same in both, each group's counts are its own
 * (the first group's slots first, the other group's left to it). */
static int rs_agree(pcoll__call_t *c, int local)
{
    static const char *const what[] = {"the vector length", "the algorithm", "MPI_IN_PLACE use"};
    pcoll__rs_args_t *a = args_of(c);
    const pcoll__ctx_t *x = c->ctx;
    int n = 3 + c->p + x->remote, first = 3 + (x->high ? x->remote : 0), i, rc;
    long long *v = local == PCOLL_SUCCESS ? pcoll__malloc(sizeof *v * 3 * (size_t)n) : NULL;
    if (MPI_Allreduce(MPI_IN_PLACE, &a->derived, 1, MPI_INT, MPI_MAX, x->whole) != MPI_SUCCESS &&
        local == PCOLL_SUCCESS)
        local = pcoll__error(PCOLL_ERR_MPI, "%s: agreement", c->fn);
    if (!v && local == PCOLL_SUCCESS)
        local = pcoll__error(PCOLL_ERR_NOMEM, "%s: agreement", c->fn);
    /* The same reductions on every rank: zeros where the values are unknown. */
    if (!v)
        return pcoll__agree_range(x->whole, local, NULL, n, NULL, NULL, c->fn);
    a->no_reduce_local = x->no_reduce_local;
    v[0] = a->total;
    v[1] = rs_select(c, a, NULL);
    v[2] = a->inplace;
    for (i = 3; i < n; i++)
        v[i] = PCOLL__AGREE_ANY;
    for (i = 0; i < c->p; i++)
        v[first + i] = a->counts[i];
    rc = pcoll__agree_range(x->whole, local, v, n, v + n, v + 2 * n, c->fn);
    for (i = 0; rc == PCOLL_SUCCESS && i < n; i++)
        if (v[n + i] != v[2 * n + i])
            rc = i < 3 ? pcoll__error(PCOLL_ERR_MISMATCH, "%s: %s differs across ranks", c->fn,
                                      what[i])
                       : pcoll__error(PCOLL_ERR_MISMATCH,
                                      "%s: recvcounts[%d] differs across ranks%s", c->fn,
                                      i - (i < first ? 3 : first),
                                      i < first || i >= first + c->p ? " of the other group"
                                                                     : "");
    pcoll__free(v);
    return rc;
}

/* ---- one-shot key, choice, preparation, staging ------------------------------ */

/* Key: buffers, type, op, the block form's count, then the counts as the
 * call gave them (nothing converted on the one-shot path). */
static int rs_key(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    const void *counts = r->wide ? (const void *)r->wcounts : (const void *)r->counts;
    size_t bytes = r->block ? 0 : (r->wide ? sizeof(MPI_Count) : sizeof(int)) * (size_t)c->p;
    raw_t *kr;
    if (!r->block && !counts)
        return pcoll__error(PCOLL_ERR_ARG, "%s: recvcounts is NULL", c->fn);
    if (!(kr = pcoll__key_put(k, sizeof *kr + bytes)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: cache key", c->fn);
    kr->sendbuf = r->sendbuf, kr->recvbuf = r->recvbuf, kr->type = r->type, kr->op = r->op;
    kr->recvcount = r->recvcount, kr->wrecvcount = r->wrecvcount;
    kr->block = r->block, kr->wide = r->wide;
    kr->gpu_kinds = pcoll__gpu_key_kinds(r->sendbuf == MPI_IN_PLACE ? NULL : r->sendbuf,
                                         r->recvbuf);
    if (r->op != MPI_OP_NULL)
        MPI_Op_commutative(r->op, &kr->commutative);
    if (bytes)
        memcpy(kr + 1, counts, bytes);
    k->types[k->ntypes++] = r->type;
    return PCOLL_SUCCESS;
}

/* Device buffers: as alltoall's choice (api/alltoall.c). */
static int rs_choose(pcoll__call_t *c)
{
    pcoll__rs_args_t *a = args_of(c);
    int requested = a->opts.algorithm, algo, tc, oc;
    int device = pcoll__gpu_kinds_reduce_scatter(a, c->rank);
    int together = c->mode == PCOLL__PERSISTENT && !c->opts.no_comm;
    a->no_reduce_local = c->ctx->no_reduce_local;
    if (c->ctx->remote)
        return rs_select(c, a, &a->opts);
    if (together && pcoll__gpu_agree(c->ctx->dup, device, &device) != PCOLL_SUCCESS)
        device = 1;
    a->opts.algorithm = pcoll__select_gpu_host(&pcoll__reduce_scatter_table, &a->opts);
    algo = rs_select(c, a, &a->opts);
    a->opts.algorithm = requested;
    algo = pcoll__select_gpu(&pcoll__reduce_scatter_table, requested, algo, device, &a->opts);
    /* The device kernel's ops and types only (the same on every rank); not
     * where MPI_Reduce_local fails (the kernel's fallback calls it). */
    return together && !a->no_reduce_local && pcoll__gpu_reduce_codes(a->type, a->op, &tc, &oc)
               ? pcoll__select_gpu_ipc(c->ctx, &pcoll__reduce_scatter_table, &a->opts, a->inplace,
                                       a->total, requested, algo, device)
               : algo;
}

/* Whether algo reduces through the MPI's own call alone: native, or
 * gpu_staged around it. */
static int native_only(const pcoll__algo_t *algo, const pcoll__opts_t *opts)
{
    if (!strcmp(algo->name, "gpu_staged") && opts->gpu_child)
        algo = opts->gpu_child;
    return !strcmp(algo->name, "native");
}

/* Refuse a non-commutative op for the algorithms that reorder operands, and
 * every algorithm that reduces locally where MPI_Reduce_local fails;
 * copy the counts and displacements into the plan; keep the type, and the
 * caller's handle for a user-defined op (core/optype.h). */
static int rs_prepare(pcoll__call_t *c, pcoll_plan_t *plan)
{
    pcoll__rs_args_t *a = args_of(c);
    const pcoll__algo_t *algo = &pcoll__reduce_scatter_table.algos[c->algo];
    size_t p = (size_t)plan->size;
    long long *counts, *displs;
    int rc;
    if (!a->commutative && (algo->flags & PCOLL__ALGO_COMMUTATIVE))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "reduce_scatter %s: the op is not commutative",
                            algo->name);
    if (c->ctx->no_reduce_local && !native_only(algo, &a->opts))
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "reduce_scatter %s: this MPI's MPI_Reduce_local fails without "
                            "MPI_Init (MPI sessions); only native serves here (%s)",
                            algo->name,
                            pcoll__defect_name(PCOLL__DEFECT_OMPI_SESSIONS_REDUCE_LOCAL));
    counts = pcoll__plan_alloc(plan, sizeof(long long) * p);
    displs = pcoll__plan_alloc(plan, sizeof(long long) * (p + 1));
    if (!counts || !displs)
        return pcoll__error(PCOLL_ERR_NOMEM, "reduce_scatter: counts");
    memcpy(counts, a->counts, sizeof(long long) * p);
    memcpy(displs, a->displs, sizeof(long long) * (p + 1));
    a->counts = counts;
    a->displs = displs;
    rc = pcoll__plan_keep_type(plan, &a->type);
    a->optype = pcoll__op_predefined(a->op) ? a->type : ((const raw_t *)c->raw)->type;
    return rc;
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

/* ---- shapes (entry.c) ----------------------------------------------------------- */

/* count i of the call as given (block form: the one count). */
static long long raw_count(const raw_t *r, int i)
{
    if (r->block)
        return r->wide ? r->wrecvcount : r->recvcount;
    return r->wide ? r->wcounts[i] : r->counts[i];
}

/* The index of a predefined op, the same in every process; -1 for others. */
static int op_index(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,
                          MPI_BAND, MPI_LOR,  MPI_BOR,    MPI_LXOR,   MPI_BXOR,
                          MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (int i = 0; i < (int)(sizeof ops / sizeof ops[0]); i++)
        if (op == ops[i])
            return i;
    return -1;
}

/* The shape: the element's signature, the counts, the op (predefined ops
 * only: a plan calls its op by the handle it was built with) and
 * MPI_IN_PLACE use (not the memory kinds: see api/alltoall.c).  Arguments
 * the checks refuse take the cache by arguments, which reports them. */
static int rs_shape(pcoll__call_t *c, pcoll__key_t *k)
{
    const raw_t *r = c->raw;
    struct {
        unsigned long long sig;
        int op, inplace, block;
    } *kr;
    size_t n = r->block ? 1 : (size_t)c->p;
    unsigned long long sig;
    long long *counts;
    int i, op = op_index(r->op);
    if (op < 0 || (!r->block && !(r->wide ? (const void *)r->wcounts : (const void *)r->counts)) ||
        rs_check(c) != PCOLL_SUCCESS || pcoll__sig_hash(r->type, 1, &sig) != PCOLL_SUCCESS)
        return PCOLL_ERR_UNSUPPORTED;
    if (!(kr = pcoll__key_put(k, sizeof *kr + n * sizeof *counts)))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: shape key", c->fn);
    kr->sig = sig, kr->op = op, kr->block = r->block;
    kr->inplace = r->sendbuf == MPI_IN_PLACE;
    counts = (long long *)(void *)(kr + 1);
    for (i = 0; i < (int)n; i++)
        counts[i] = raw_count(r, i);
    return PCOLL_SUCCESS;
}

/* The input vector and this rank's block (in place: the vector, in
 * recvbuf). */
static void rs_views(const pcoll__call_t *c, const void *raw, pcoll__view_t v[2])
{
    const raw_t *r = raw;
    MPI_Count total = 0;
    for (int i = 0; i < c->p; i++)
        total += raw_count(r, r->block ? 0 : i);
    v[0] = (pcoll__view_t){r->sendbuf != MPI_IN_PLACE, (void *)r->sendbuf, total, r->type};
    v[1] = (pcoll__view_t){1, r->recvbuf, v[0].present ? raw_count(r, r->block ? 0 : c->rank)
                                                       : total,
                           r->type};
}

static void rs_rebase(const void *raw, void *out, void *const bufs[2])
{
    raw_t *o = out;
    *o = *(const raw_t *)raw;
    if (o->sendbuf != MPI_IN_PLACE)
        o->sendbuf = bufs[0];
    o->recvbuf = bufs[1];
}

_Static_assert(sizeof(raw_t) <= PCOLL__RAW_MAX, "reduce_scatter raw arguments");

/* A freed op's handle may come back for another op: its commutativity,
 * which the plan was chosen by, is asked again.  The counts of the forms
 * that take an array are compared by rs_arrays. */
static int rs_words(const void *raw, uintptr_t w[])
{
    const raw_t *r = raw;
    int commutative = 0;
    if (r->op != MPI_OP_NULL)
        MPI_Op_commutative(r->op, &commutative);
    w[0] = (uintptr_t)r->sendbuf, w[1] = (uintptr_t)r->recvbuf;
    w[2] = (uintptr_t)r->type, w[3] = (uintptr_t)r->op;
    w[4] = (uintptr_t)(unsigned)r->recvcount, w[5] = (uintptr_t)r->wrecvcount;
    w[6] = (uintptr_t)(unsigned)r->block << 2 | (uintptr_t)(unsigned)r->wide << 1 |
           (uintptr_t)(commutative != 0);
    return 7;
}

static int rs_arrays(const void *raw, const pcoll__ctx_t *ctx, int p, const void *at[],
                     size_t bytes[])
{
    const raw_t *r = raw;
    (void)ctx;
    if (r->block)
        return 0;
    at[0] = r->wide ? (const void *)r->wcounts : (const void *)r->counts;
    bytes[0] = (r->wide ? sizeof(MPI_Count) : sizeof(int)) * (size_t)p;
    return 1;
}

static const pcoll__coll_t reduce_scatter = {
    .name = "reduce_scatter",
    .native_as_given = 1,
    .table = &pcoll__reduce_scatter_table,
    .opts_offset = offsetof(pcoll__rs_args_t, opts),
    .check = rs_check,
    .agree = rs_agree,
    .key = rs_key,
    .choose = rs_choose,
    .prepare = rs_prepare,
    .stage = rs_stage,
    .shape = rs_shape,
    .views = rs_views,
    .rebase = rs_rebase,
    .raw_size = sizeof(raw_t),
    .inter = PCOLL__INTER_LOCAL,
    .words = rs_words,
    .arrays = rs_arrays,
};

int pcoll_reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, recvcounts, 0, 0, type, op, 0, 0, NULL, 0, 0};
    return pcoll__entry(&reduce_scatter, PCOLL__PERSISTENT, "pcoll_reduce_scatter_init",
                        &r, comm, info, plan);
}

int pcoll_reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, NULL, recvcount, 1, type, op, 0, 0, NULL, 0, 0};
    return pcoll__entry(&reduce_scatter, PCOLL__PERSISTENT, "pcoll_reduce_scatter_block_init",
                        &r, comm, info, plan);
}

int pcoll_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    raw_t r = {sendbuf, recvbuf, recvcounts, 0, 0, type, op, 0, 0, NULL, 0, 0};
    return pcoll__entry(&reduce_scatter, PCOLL__ONESHOT, "pcoll_reduce_scatter",
                        &r, comm, MPI_INFO_NULL, NULL);
}

int pcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    raw_t r = {sendbuf, recvbuf, NULL, recvcount, 1, type, op, 0, 0, NULL, 0, 0};
    return pcoll__entry(&reduce_scatter, PCOLL__ONESHOT, "pcoll_reduce_scatter_block",
                        &r, comm, MPI_INFO_NULL, NULL);
}

/* ---- large-count forms ------------------------------------------------------ */

/* Counts of any size: the algorithms step through runs of more than INT_MAX
 * elements in pieces (reduce_scatter/common.c). */
static int run_c(const void *sendbuf, void *recvbuf, const MPI_Count *recvcounts,
                 MPI_Count recvcount, int block, MPI_Datatype type, MPI_Op op,
                 pcoll__mode_t mode, const char *fn, MPI_Comm comm, MPI_Info info,
                 pcoll_plan_t **plan)
{
    raw_t r = {.sendbuf = sendbuf, .recvbuf = recvbuf, .block = block, .type = type, .op = op,
               .wide = 1, .wcounts = recvcounts, .wrecvcount = recvcount};
    return pcoll__entry(&reduce_scatter, mode, fn, &r, comm, info, plan);
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

int pcoll__reduce_scatter_dropin_c(pcoll__mode_t mode, const void *sendbuf, void *recvbuf,
                                    const MPI_Count recvcounts[], MPI_Count recvcount, int block,
                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    pcoll_plan_t **plan)
{
    return run_c(sendbuf, recvbuf, recvcounts, recvcount, block, type, op, mode,
                 "pcoll__reduce_scatter_dropin_c", comm, info, plan);
}

int pcoll__reduce_scatter_plan_local(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                     MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                     pcoll_plan_t **plan)
{
    raw_t r = {sendbuf, recvbuf, recvcounts, 0, 0, type, op, 0, 0, NULL, 0, 0};
    return pcoll__entry(&reduce_scatter, PCOLL__LOCAL, "pcoll__reduce_scatter_plan_local",
                        &r, comm, MPI_INFO_NULL, plan);
}
