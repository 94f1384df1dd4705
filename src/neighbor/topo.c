/*
 * The neighbours of a communicator with a topology, in MPI's order
 * (neighbor.h): local calls (every rank of the communicator sees the same
 * kind of topology), asked once per communicator context
 * (pcoll__nbr_topo); and the exchange of one value per edge that the
 * agreement and `node` make, paired as the algorithms pair the edges.
 */
#include "base/mem.h"
#include "base/status.h"
#include "base/pmpi.h"
#include "neighbor/neighbor.h"

int pcoll__nbr_degrees(MPI_Comm comm, const char *fn, int *topo, int *indegree, int *outdegree)
{
    int weighted, rank, n = 0;
    if (MPI_Topo_test(comm, topo) != MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Topo_test", fn);
    if (*topo == MPI_CART) {
        if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Cartdim_get", fn);
        *indegree = *outdegree = 2 * n;
    } else if (*topo == MPI_GRAPH) {
        MPI_Comm_rank(comm, &rank);
        if (MPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Graph_neighbors_count", fn);
        *indegree = *outdegree = n;
    } else if (*topo == MPI_DIST_GRAPH) {
        if (MPI_Dist_graph_neighbors_count(comm, indegree, outdegree, &weighted) != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Dist_graph_neighbors_count", fn);
    } else {
        return pcoll__error(PCOLL_ERR_ARG,
                            "%s: the communicator has no Cartesian, graph or distributed-graph "
                            "topology (MPI_ERR_TOPOLOGY)",
                            fn);
    }
    return PCOLL_SUCCESS;
}

/* Below then above in every dimension, both directions alike. */
static int cart_neighbors(MPI_Comm comm, int n, int *sources, int *dests)
{
    int d;
    for (d = 0; d < n; d++) {
        if (MPI_Cart_shift(comm, d, 1, &sources[2 * d], &sources[2 * d + 1]) != MPI_SUCCESS)
            return pcoll__error(PCOLL_ERR_MPI, "neighbor: MPI_Cart_shift");
        dests[2 * d] = sources[2 * d], dests[2 * d + 1] = sources[2 * d + 1];
    }
    return PCOLL_SUCCESS;
}

/* The lists come with weights (where the graph has them), read into
 * scratch and dropped: real arrays suit weighted and unweighted graphs
 * alike. */
static int dist_neighbors(MPI_Comm comm, int indegree, int outdegree, int *sources, int *dests)
{
    int err, *w = pcoll__malloc(sizeof *w * ((size_t)indegree + (size_t)outdegree + 1));
    if (!w)
        return MPI_ERR_NO_MEM;
    err = MPI_Dist_graph_neighbors(comm, indegree, sources, w, outdegree, dests, w + indegree);
    pcoll__free(w);
    return err;
}

int pcoll__nbr_neighbors(MPI_Comm comm, int topo, int indegree, int outdegree, int *sources,
                         int *dests)
{
    int rank, i, err = MPI_SUCCESS;
    if (topo == MPI_CART)
        return cart_neighbors(comm, indegree / 2, sources, dests);
    if (topo == MPI_GRAPH) {
        MPI_Comm_rank(comm, &rank);
        err = MPI_Graph_neighbors(comm, rank, indegree, sources);
        for (i = 0; i < indegree; i++)
            dests[i] = sources[i];
    } else {
        err = dist_neighbors(comm, indegree, outdegree, sources, dests);
    }
    return err == MPI_SUCCESS ? PCOLL_SUCCESS
                              : pcoll__error(PCOLL_ERR_MPI, "neighbor: the neighbour lists");
}

int pcoll__nbr_cart_folded(MPI_Comm comm)
{
    int topo, n, d, folded = 0;
    int dims[64], periods[64], coords[64];
    if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo != MPI_CART ||
        MPI_Cartdim_get(comm, &n) != MPI_SUCCESS || n > 64 ||
        MPI_Cart_get(comm, n, dims, periods, coords) != MPI_SUCCESS)
        return topo == MPI_CART;
    for (d = 0; d < n; d++)
        folded |= periods[d] && dims[d] <= 2;
    return folded;
}

int pcoll__nbr_topo(pcoll__ctx_t *ctx, MPI_Comm comm, const char *fn, pcoll__ctx_topo_t *t)
{
    pcoll__ctx_topo_t r = {0};
    int rc;
    if (ctx && ctx->topo.known) {
        *t = ctx->topo;
        return PCOLL_SUCCESS;
    }
    PCOLL_CHECK(pcoll__nbr_degrees(comm, fn, &r.kind, &r.indegree, &r.outdegree), rc, fail);
    r.ranks = pcoll__malloc(sizeof *r.ranks * ((size_t)r.indegree + (size_t)r.outdegree + 1));
    if (!r.ranks)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: the neighbour lists", fn);
    PCOLL_CHECK(pcoll__nbr_neighbors(comm, r.kind, r.indegree, r.outdegree, r.ranks,
                                     r.ranks + r.indegree),
                rc, fail);
    r.folded = r.kind == MPI_CART && pcoll__nbr_cart_folded(comm);
    r.known = 1;
    if (ctx)
        ctx->topo = r;
    *t = r;
    return PCOLL_SUCCESS;
fail:
    pcoll__free(r.ranks);
    return rc;
}

int pcoll__nbr_topo_of(pcoll__ctx_t *ctx, MPI_Comm comm, const char *fn, pcoll__ctx_topo_t *t,
                       int **owned)
{
    int rc;
    if (!ctx && !pcoll__ctx_known(comm, &ctx))
        ctx = NULL;
    rc = pcoll__nbr_topo(ctx, comm, fn, t);
    *owned = rc == PCOLL_SUCCESS && !ctx ? t->ranks : NULL;
    return rc;
}

int pcoll__nbr_exchange(MPI_Comm comm, int tag, const pcoll__nbr_args_t *a, long long *b,
                        long long *got)
{
    size_t edges = (size_t)a->indegree + (size_t)a->outdegree;
    MPI_Request *req = pcoll__malloc(sizeof *req * (edges + 1));
    int e, k, n = 0, err = MPI_SUCCESS;
    if (!req)
        return MPI_ERR_NO_MEM;
    for (e = 0; e < a->indegree && err == MPI_SUCCESS; e++)
        err = PCOLL__MPI(Irecv)(&got[e], 1, MPI_LONG_LONG, a->sources[e], tag, comm, &req[n++]);
    for (k = 0; k < a->outdegree && err == MPI_SUCCESS; k++) {
        e = pcoll__nbr_send_edge(a, k);
        err = PCOLL__MPI(Isend)(&b[e], 1, MPI_LONG_LONG, a->dests[e], tag, comm, &req[n++]);
    }
    if (err == MPI_SUCCESS)
        err = PCOLL__MPI(Waitall)(n, req, MPI_STATUSES_IGNORE);
    pcoll__free(req);
    return err;
}
