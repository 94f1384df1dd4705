/*
 * alltoallv `hier`: the node-aware all-to-all (multicore paper II-A/B; the
 * engine is src/hier/hier.c) with a size per pair of ranks.  The messages
 * of two nodes are bundled into one; "the all-to-allv pattern complicates
 * only the plan routine" (section II-C): at init every rank's send and
 * receive sizes are gathered on its node (one allgather of 2p integers per
 * rank on the node communicator), so every rank knows every piece its node
 * sends and receives, and a run only copies and communicates.  With several
 * Bruck steps between nodes every bundle travels padded to the largest one
 * (the paper's remark on padding very short messages).
 *
 * Cost: as alltoall `hier` with bundles of the pairs' real sizes (one step)
 * or of the largest bundle (several).  Memory: the node's segment (hier_layout.c)
 * and, during init only, 2 p m sizes.  In place: supported.
 */
#include "hier/hier.h"
#include "alltoallv/alltoallv.h"
#include "base/mem.h"
#include "base/status.h"

/* Every rank of the node's sizes: rank x of the node sends sizes[x][0][d]
 * bytes to rank d and receives sizes[x][1][s] bytes from rank s. */
typedef struct sizes {
    const pcoll__node_t *t;
    long long *all; /* [m][2][p] */
} sizes_t;

static long long pair_bytes(const pcoll__hier_args_t *h, int s, int d)
{
    const sizes_t *z = h->data;
    const pcoll__node_t *t = z->t;
    if (t->node_of[s] == t->node)
        return z->all[((size_t)t->local_of[s] * 2) * (size_t)t->p + (size_t)d];
    return z->all[((size_t)t->local_of[d] * 2 + 1) * (size_t)t->p + (size_t)s];
}

/* Allgather every rank's 2p sizes on the node. */
static int gather_sizes(const pcoll__a2a_args_t *a, sizes_t *z)
{
    const pcoll__node_t *t = z->t;
    size_t p = (size_t)t->p;
    long long *mine = pcoll__malloc(2 * p * sizeof *mine);
    MPI_Count ss, rs;
    int i, rc = PCOLL_SUCCESS;
    z->all = pcoll__malloc(2 * p * (size_t)pcoll__node_size(t, t->node) * sizeof *z->all);
    if (!mine || !z->all) {
        pcoll__free(mine);
        return pcoll__error(PCOLL_ERR_NOMEM, "alltoallv hier: size tables");
    }
    if ((rc = pcoll__type_size(a->sendtype, &ss)) != PCOLL_SUCCESS ||
        (rc = pcoll__type_size(a->recvtype, &rs)) != PCOLL_SUCCESS)
        ss = rs = 0; /* still take part in the allgather */
    for (i = 0; i < t->p; i++) {
        mine[i] = (long long)a->scounts[i] * ss;
        mine[p + (size_t)i] = (long long)a->rcounts[i] * rs;
    }
    if (MPI_Allgather(mine, 2 * t->p, MPI_LONG_LONG, z->all, 2 * t->p, MPI_LONG_LONG, t->comm) !=
        MPI_SUCCESS && rc == PCOLL_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "alltoallv hier: MPI_Allgather failed");
    pcoll__free(mine);
    return rc;
}

int pcoll__alltoallv_hier(pcoll_plan_t *plan, const void *args)
{
    const pcoll__a2av_args_t *v = args;
    pcoll__hier_args_t h = {.a = &v->a, .bytes = pair_bytes};
    sizes_t z = {0};
    int rc;
    PCOLL_CHECK(pcoll__hier_nodes(plan->ctx, &v->a.opts, &h.node), rc, out);
    z.t = h.node;
    h.data = &z;
    PCOLL_CHECK(gather_sizes(&v->a, &z), rc, out);
    rc = pcoll__hier_build(plan, &h);
out:
    pcoll__free(z.all);
    return rc;
}
