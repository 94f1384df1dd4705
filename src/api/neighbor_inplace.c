/*
 * pcoll_neighbor_alltoallv_inplace_init: the in-place neighbourhood
 * alltoallv (one buffer, MPI_Neighbor_alltoallv's edges; the engine is
 * src/alltoallv/inplace, inplace_neighbor.c maps the edges to it), through
 * the entry path.
 *
 * Init checks the arguments locally (the topology, counts, displacements,
 * the type, blocks that overlap or that the engine cannot serve), then
 * agrees over all ranks on the verdict and on the type's size, then makes
 * one neighbourhood exchange of every edge's count and the place of its
 * block among its rank's blocks: PCOLL_ERR_MISMATCH when the two ends of an
 * edge disagree on its count, PCOLL_ERR_UNSUPPORTED when repeated edges to
 * one rank would pair blocks in a different order at the two ends.  Every
 * rank returns the same code (the most severe any rank found).  There is
 * no one-shot form.
 */
#include <stddef.h>
#include <string.h>

#include "alltoallv/inplace/inplace.h"
#include "api/entry.h"
#include "base/mem.h"
#include "base/status.h"
#include "core/check.h"
#include "datatype/size.h"
#include "neighbor/neighbor.h"
#include "select/select.h"

_Static_assert(sizeof(pcoll__ip_nbr_args_t) <= PCOLL__ARGS_MAX, "in-place neighbor arguments");

/* The public call's arguments. */
typedef struct raw {
    void *buf;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype type;
} raw_t;

static pcoll__ip_nbr_args_t *args_of(pcoll__call_t *c)
{
    return (pcoll__ip_nbr_args_t *)(void *)c->args;
}

/* Collective over comm: the most severe code of all ranks' rc, on every
 * rank alike. */
static int same_code(MPI_Comm comm, int rc, const char *fn)
{
    long long v = rc, worst, most;
    int r = pcoll__agree_range(comm, PCOLL_SUCCESS, &v, 1, &worst, &most, fn);
    if (r != PCOLL_SUCCESS)
        return r;
    if (worst != rc)
        return pcoll__error((int)worst, "%s: another rank reported %s", fn,
                            pcoll_err_name((int)worst));
    return rc;
}

/* The scratch of the check (c->tmp[0], freed with the call): the neighbour
 * lists, each edge's place, and the engine's arrays of p ranks (zeroed). */
static int scratch(pcoll__call_t *c, int in, int out)
{
    pcoll__ip_nbr_args_t *a = args_of(c);
    size_t n = 2 * ((size_t)in + (size_t)out) + 4 * (size_t)c->p + 1;
    int *m = pcoll__calloc(n, sizeof *m), *dense;
    if (!(c->tmp[0] = m))
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: %d edges and %d ranks", c->fn, in + out, c->p);
    a->sources = m, a->dests = m + in;
    a->spos = m + in + out, a->rpos = m + in + 2 * out;
    dense = m + 2 * (in + out);
    a->scounts = dense, a->sdispls = dense + c->p;
    a->rcounts = dense + 2 * c->p, a->rdispls = dense + 3 * c->p;
    return PCOLL_SUCCESS;
}

/* Whether the merged layout has any item at all. */
static int has_items(const pcoll__ip_nbr_args_t *a, int p)
{
    int i;
    for (i = 0; i < p; i++)
        if (a->scounts[i] > 0 || a->rcounts[i] > 0)
            return 1;
    return 0;
}

/* Both directions' edges merged into the engine's arrays. */
static int merge(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    pcoll__ip_nbr_args_t *a = args_of(c);
    int rc, p = c->p;
    PCOLL_CHECK(pcoll__ip_nbr_merge(p, a->outdegree, a->dests, r->scounts, r->sdispls,
                                    a->scounts, a->sdispls, a->spos, "send", c->fn),
                rc, out);
    PCOLL_CHECK(pcoll__ip_nbr_merge(p, a->indegree, a->sources, r->rcounts, r->rdispls,
                                    a->rcounts, a->rdispls, a->rpos, "receive", c->fn),
                rc, out);
    /* Blocks of different ranks that overlap. */
    rc = pcoll__ip_check(p, a->scounts, a->sdispls, a->rcounts, a->rdispls, c->fn);
out:
    return rc;
}

/* Everything init can check on this rank alone. */
static int nip_check(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    pcoll__ip_nbr_args_t *a = args_of(c);
    pcoll__ctx_topo_t t;
    int in, out, size, nbuf, rc, *owned = NULL;
    long long cap;
    c->inplace = 1;
    a->buf = r->buf, a->type = r->type;
    PCOLL_CHECK(pcoll__nbr_topo_of(c->ctx, c->comm, c->fn, &t, &owned), rc, fail);
    c->tmp[1] = owned;
    in = t.indegree, out = t.outdegree;
    a->indegree = in, a->outdegree = out, a->cart = t.kind == MPI_CART, a->folded = t.folded;
    PCOLL_CHECK(pcoll__ip_check_type(r->type, &size, c->fn), rc, fail);
    if ((in > 0 && (!r->rcounts || !r->rdispls)) || (out > 0 && (!r->scounts || !r->sdispls)))
        return pcoll__error(PCOLL_ERR_ARG, "%s: a count or displacement array is NULL", c->fn);
    PCOLL_CHECK(scratch(c, in, out), rc, fail);
    memcpy(a->sources, t.ranks, sizeof *t.ranks * ((size_t)in + (size_t)out));
    PCOLL_CHECK(merge(c), rc, fail);
    if (a->buf == MPI_IN_PLACE || (!a->buf && has_items(a, c->p)))
        return pcoll__error(PCOLL_ERR_ARG, "%s: buf is %s", c->fn,
                            a->buf ? "MPI_IN_PLACE" : "NULL");
    rc = pcoll__ip_aux_config(c->p, size, &a->opts, c->fn, &nbuf, &cap);
fail:
    return rc;
}

/* An edge's count and its block's place among its rank's blocks (-1: none)
 * in one word. */
static long long edge_word(int count, int pos)
{
    return (long long)count * 4294967296LL + (long long)pos + 1;
}

/* One neighbourhood exchange of edge_word per edge; the first edge whose
 * two ends disagree decides this rank's verdict. */
static int match_edges(pcoll__call_t *c)
{
    const raw_t *r = c->raw;
    const pcoll__ip_nbr_args_t *a = args_of(c);
    pcoll__nbr_args_t view = {.cart = a->cart,
                              .folded = a->folded,
                              .indegree = a->indegree,
                              .outdegree = a->outdegree, .sources = a->sources,
                              .dests = a->dests};
    long long *w = pcoll__malloc(sizeof *w * ((size_t)a->indegree + (size_t)a->outdegree + 1));
    long long *got = w + a->outdegree, mine;
    int e, rc = PCOLL_SUCCESS;
    if (!w)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: edge check", c->fn);
    for (e = 0; e < a->outdegree; e++)
        w[e] = edge_word(r->scounts[e], a->spos[e]);
    /* MPI_PROC_NULL slots stay as they are: this rank's own words. */
    for (e = 0; e < a->indegree; e++)
        got[e] = edge_word(r->rcounts[e], a->rpos[e]);
    if (pcoll__nbr_exchange(c->ctx->dup, pcoll__ctx_tag(c->ctx), &view, w, got) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "%s: the exchange of the edges' counts failed", c->fn);
    for (e = 0; e < a->indegree && rc == PCOLL_SUCCESS; e++) {
        mine = edge_word(r->rcounts[e], a->rpos[e]);
        if (got[e] / 4294967296LL != r->rcounts[e])
            rc = pcoll__error(PCOLL_ERR_MISMATCH,
                              "%s: rank %d sends %lld items on in-edge %d but recvcounts[%d] = %d",
                              c->fn, a->sources[e], got[e] / 4294967296LL, e, e, r->rcounts[e]);
        else if (got[e] != mine)
            rc = pcoll__error(PCOLL_ERR_UNSUPPORTED,
                              "%s: in-edge %d from rank %d: its block is number %d of that rank's "
                              "blocks here but number %lld there (repeated edges must pair "
                              "blocks in buffer order)",
                              c->fn, e, a->sources[e], a->rpos[e], got[e] % 4294967296LL - 1);
    }
    pcoll__free(w);
    return rc;
}

/* Agree on the local verdict and the type's size, then on every edge. */
static int nip_agree(pcoll__call_t *c, int local)
{
    static const char *const what[] = {"the type's size"};
    pcoll__ip_nbr_args_t *a = args_of(c);
    long long vals[1] = {0};
    MPI_Count size = 0;
    int rc;
    if (local == PCOLL_SUCCESS)
        pcoll__type_size(a->type, &size);
    vals[0] = size;
    rc = same_code(c->ctx->dup, local, c->fn);
    if (rc == PCOLL_SUCCESS)
        rc = pcoll__agree(c->ctx->dup, local, vals, what, 1, c->fn);
    if (rc == PCOLL_SUCCESS)
        rc = same_code(c->ctx->dup, match_edges(c), c->fn);
    return rc;
}

static int nip_choose(pcoll__call_t *c)
{
    (void)c;
    return 0; /* the one algorithm */
}

static const pcoll__coll_t neighbor_inplace = {
    .name = "neighbor_alltoallv",
    .table = &pcoll__neighbor_inplace_table,
    .opts_offset = offsetof(pcoll__ip_nbr_args_t, opts),
    .check = nip_check,
    .agree = nip_agree,
    .choose = nip_choose,
};

int pcoll_neighbor_alltoallv_inplace_init(void *buf, const int sendcounts[], const int sdispls[],
                                          const int recvcounts[], const int rdispls[],
                                          MPI_Datatype type, MPI_Comm comm, MPI_Info info,
                                          pcoll_plan_t **plan)
{
    raw_t r = {buf, sendcounts, sdispls, recvcounts, rdispls, type};
    return pcoll__entry(&neighbor_inplace, PCOLL__PERSISTENT,
                        "pcoll_neighbor_alltoallv_inplace_init", &r, comm, info, plan);
}
