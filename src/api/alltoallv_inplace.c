/*
 * pcoll_alltoallv_inplace_init: the in-place alltoallv whose send and
 * receive layouts differ (one buffer; the engine is src/alltoallv/inplace,
 * the paper's section 3), through the entry path.
 *
 * Init checks the arguments locally, agrees on the verdict and on the
 * type's size over all ranks, and exchanges the counts once (an alltoall) to
 * return PCOLL_ERR_MISMATCH on every rank when sendcounts[j] at rank i
 * differs from recvcounts[i] at rank j.  There is no one-shot form.
 */
#include <stddef.h>

#include "alltoallv/inplace/inplace.h"
#include "api/entry.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "base/pmpi.h"
#include "datatype/size.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__ip_args_t) <= PCOLL__ARGS_MAX, "in-place alltoallv arguments");

static pcoll__ip_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__ip_args_t *)(void *)c->args;
}

/* Whether the layout has any item at all. */
static int has_items(const pcoll__ip_args_t *a, int p)
{
    int i;
    for (i = 0; i < p; i++)
        if (a->scounts[i] > 0 || a->rcounts[i] > 0)
            return 1;
    return 0;
}

/* Everything init can check on this rank alone (c->raw is the filled
 * argument struct itself). */
static int ip_check(pcoll__call_t *c)
{
    pcoll__ip_args_t *a = args_of(c);
    const pcoll__ip_args_t *r = c->raw;
    int rc, size, nbuf;
    long long cap;
    a->buf = r->buf;
    a->scounts = r->scounts, a->sdispls = r->sdispls;
    a->rcounts = r->rcounts, a->rdispls = r->rdispls;
    a->type = r->type;
    c->inplace = 1;
    PCOLL_CHECK(pcoll__ip_check_type(a->type, &size, c->fn), rc, out);
    PCOLL_CHECK(pcoll__ip_check(c->p, a->scounts, a->sdispls, a->rcounts, a->rdispls, c->fn), rc,
                out);
    if (a->buf == MPI_IN_PLACE || (!a->buf && has_items(a, c->p)))
        return pcoll__error(PCOLL_ERR_ARG, "%s: buf is %s", c->fn,
                            a->buf ? "MPI_IN_PLACE" : "NULL");
    rc = pcoll__ip_aux_config(c->p, size, &a->opts, c->fn, &nbuf, &cap);
out:
    return rc;
}

/* Collective: PCOLL_ERR_MISMATCH on every rank when some rank's
 * recvcounts[j] differs from what rank j sends it.  theirs holds p ints. */
static int match_counts(MPI_Comm comm, const pcoll__ip_args_t *a, int p, int *theirs,
                        const char *fn)
{
    int j, rc = PCOLL_SUCCESS;
    if (PCOLL__MPI(Alltoall)(a->scounts, 1, MPI_INT, theirs, 1, MPI_INT, comm) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "%s: the alltoall of the counts failed", fn);
    for (j = 0; j < p && rc == PCOLL_SUCCESS; j++)
        if (theirs[j] != a->rcounts[j])
            rc = pcoll__error(PCOLL_ERR_MISMATCH,
                              "%s: rank %d sends %d items to this rank but recvcounts[%d] = %d", fn,
                              j, theirs[j], j, a->rcounts[j]);
    return pcoll__agree(comm, rc, NULL, NULL, 0, fn);
}

/* Agree on the local verdict and the type's size, then on the counts. */
static int ip_agree(pcoll__call_t *c, int local)
{
    static const char *const what[] = {"the type's size"};
    pcoll__ip_args_t *a = args_of(c);
    long long vals[1] = {0};
    MPI_Count size = 0;
    int rc, *theirs = pcoll__malloc((size_t)c->p * sizeof *theirs);
    if (local == PCOLL_SUCCESS)
        pcoll__type_size(a->type, &size);
    vals[0] = size;
    if (!theirs && local == PCOLL_SUCCESS)
        local = pcoll__error(PCOLL_ERR_NOMEM, "%s: %d counts", c->fn, c->p);
    rc = pcoll__agree(c->ctx->dup, local, vals, what, 1, c->fn);
    if (rc == PCOLL_SUCCESS)
        rc = match_counts(c->ctx->dup, a, c->p, theirs, c->fn);
    pcoll__free(theirs);
    return rc;
}

static int ip_choose(pcoll__call_t *c)
{
    (void)c;
    return 0; /* the one algorithm */
}

static const pcoll__coll_t alltoallv_inplace = {
    .name = "alltoallv",
    .table = &pcoll__alltoallv_inplace_table,
    .opts_offset = offsetof(pcoll__ip_args_t, opts),
    .check = ip_check,
    .agree = ip_agree,
    .choose = ip_choose,
};

int pcoll_alltoallv_inplace_init(void *buf, const int sendcounts[], const int sdispls[],
                                 const int recvcounts[], const int rdispls[], MPI_Datatype type,
                                 MPI_Comm comm, MPI_Info info, pcoll_plan_t **plan)
{
    pcoll__ip_args_t r = {buf, sendcounts, sdispls, recvcounts, rdispls, type, {0}};
    return pcoll__entry(&alltoallv_inplace, PCOLL__PERSISTENT, "pcoll_alltoallv_inplace_init",
                        &r, comm, info, plan);
}
