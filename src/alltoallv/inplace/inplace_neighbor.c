/*
 * In-place alltoallv on a neighbourhood: the edges of a topology
 * communicator (MPI_Neighbor_alltoallv's, one block per out-edge and per
 * in-edge in one buffer) handed to the engine of this folder as one send
 * and one receive block per rank of the communicator.  The paper notes that
 * the algorithm "can directly be adapted to many-to-many or sparse
 * communication" (section 1) and measures sparse redistributions with few
 * random partners per process (section 4, Fig. 4 left): its phases involve
 * only the pairs with items left (Algorithm 1, lines 6-10), so a rank that
 * is no neighbour is a peer with zero counts, and neither grants nor data
 * ever go to it.
 *
 * An edge to MPI_PROC_NULL moves nothing (MPI's semantics): its blocks are
 * left out.  Edges repeated to one rank (a distributed graph listing it
 * twice, a periodic Cartesian dimension of one or two ranks) become one
 * message per rank: their blocks must lie end to end in the buffer, and the
 * k-th block by position at the sender must meet the k-th by position at
 * the receiver (the caller's agreement checks the second part).
 *
 * Cost: the engine's (inplace.c), over the merged blocks; merging takes
 * O(d log d) time and O(d) temporary memory for d edges.
 */
#include <limits.h>
#include <stdlib.h>

#include "alltoallv/inplace/inplace.h"
#include "base/mem.h"
#include "base/status.h"

/* A non-empty block of an edge: items [lo, hi) for rank peer. */
typedef struct eblock {
    long long lo, hi;
    int peer, edge;
} eblock_t;

static int by_peer_lo(const void *a, const void *b)
{
    const eblock_t *x = a, *y = b;
    if (x->peer != y->peer)
        return (x->peer > y->peer) - (x->peer < y->peer);
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Counts not negative, displacements of non-empty blocks not negative;
 * the non-empty blocks of real neighbours into b (*nb of them). */
static int edge_blocks(int n, const int *peers, const int *counts, const int *displs,
                       eblock_t *b, int *nb, int *pos, const char *what, const char *fn)
{
    int e;
    *nb = 0;
    for (e = 0; e < n; e++) {
        pos[e] = -1;
        if (counts[e] < 0)
            return pcoll__error(PCOLL_ERR_ARG, "%s: %s count of edge %d is negative (%d)", fn,
                                what, e, counts[e]);
        if (counts[e] == 0 || peers[e] == MPI_PROC_NULL)
            continue;
        if (displs[e] < 0)
            return pcoll__error(PCOLL_ERR_ARG,
                                "%s: %s displacement of edge %d (%d) puts its block before the "
                                "buffer",
                                fn, what, e, displs[e]);
        b[(*nb)++] = (eblock_t){displs[e], (long long)displs[e] + counts[e], peers[e], e};
    }
    return PCOLL_SUCCESS;
}

/* The sorted blocks of one rank, b[0 .. n-1], into its merged block. */
static int merge_peer(const eblock_t *b, int n, int *pcounts, int *pdispls, int *pos,
                      const char *what, const char *fn)
{
    int k;
    for (k = 1; k < n; k++) {
        if (b[k].lo < b[k - 1].hi)
            return pcoll__error(PCOLL_ERR_ARG, "%s: the %s blocks of edges %d and %d overlap", fn,
                                what, b[k - 1].edge, b[k].edge);
        if (b[k].lo > b[k - 1].hi)
            return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                                "%s: the %s blocks of edges %d and %d (both rank %d) do not lie "
                                "end to end: one message per rank",
                                fn, what, b[k - 1].edge, b[k].edge, b[k].peer);
    }
    if (b[n - 1].hi - b[0].lo > INT_MAX)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED, "%s: more than INT_MAX %s items for rank %d",
                            fn, what, b[0].peer);
    for (k = 0; k < n; k++)
        pos[b[k].edge] = k;
    pcounts[b[0].peer] = (int)(b[n - 1].hi - b[0].lo);
    pdispls[b[0].peer] = (int)b[0].lo;
    return PCOLL_SUCCESS;
}

int pcoll__ip_nbr_merge(int p, int n, const int *peers, const int *counts, const int *displs,
                        int *pcounts, int *pdispls, int *pos, const char *what, const char *fn)
{
    eblock_t *b = pcoll__malloc(((size_t)n + 1) * sizeof *b);
    int i, j, nb = 0, rc;
    if (!b)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: %d edges", fn, n);
    rc = edge_blocks(n, peers, counts, displs, b, &nb, pos, what, fn);
    qsort(b, (size_t)nb, sizeof *b, by_peer_lo);
    for (i = 0; i < nb && rc == PCOLL_SUCCESS; i = j) {
        for (j = i + 1; j < nb && b[j].peer == b[i].peer; j++)
            ;
        if (b[i].peer < 0 || b[i].peer >= p)
            rc = pcoll__error(PCOLL_ERR_INTERNAL, "%s: neighbour %d", fn, b[i].peer);
        else
            rc = merge_peer(b + i, j - i, pcounts, pdispls, pos, what, fn);
    }
    pcoll__free(b);
    return rc;
}

int pcoll__alltoallv_inplace_neighbor(pcoll_plan_t *plan, const void *args)
{
    const pcoll__ip_nbr_args_t *a = args;
    return pcoll__alltoallv_inplace_setup(plan, a->buf, a->scounts, a->sdispls, a->rcounts,
                                          a->rdispls, a->type, &a->opts);
}
