/*
 * Node topology of a communicator, physical or virtual (see node.h), cached
 * per communicator context.
 *
 * Making one: split the communicator by shared memory, cut each part into
 * groups of c ranks (local rank / c), give every group its smallest rank as
 * its name (a MIN reduction on the group), allgather the names; the nodes are
 * numbered in the order of their names and list their members in
 * communicator order.  Cost: two communicator splits, one reduction on the
 * node and one allgather of p integers.
 */
#include "base/mem.h"
#include "base/pmpi.h"
#include "core/node.h"
#include "base/status.h"

static void node_free(pcoll__node_t *t)
{
    int fini = 0;
    if (!t)
        return;
    MPI_Finalized(&fini);
    if (!fini && t->comm != MPI_COMM_NULL)
        MPI_Comm_free(&t->comm);
    pcoll__free(t->node_of);
    pcoll__free(t->local_of);
    pcoll__free(t->first);
    pcoll__free(t->members);
    pcoll__free(t);
}

void pcoll__node_cache_free(pcoll__ctx_t *ctx)
{
    while (ctx->nodes) {
        pcoll__node_t *t = ctx->nodes;
        ctx->nodes = t->next;
        node_free(t);
    }
}

/* The node communicator: this rank's virtual node, ranked by comm rank. */
static int split_node(MPI_Comm comm, int rank, int cores, MPI_Comm *node)
{
    MPI_Comm shm;
    int local, rc = PCOLL_SUCCESS;
    if (PCOLL__MPI(Comm_split_type)(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm) !=
        MPI_SUCCESS)
        return pcoll__error(PCOLL_ERR_MPI, "node: MPI_Comm_split_type failed");
    MPI_Comm_rank(shm, &local);
    if (PCOLL__MPI(Comm_split)(shm, cores > 0 ? local / cores : 0, rank, node) != MPI_SUCCESS)
        rc = pcoll__error(PCOLL_ERR_MPI, "node: MPI_Comm_split failed");
    MPI_Comm_free(&shm);
    return rc;
}

/* Number the nodes and list their members from every rank's node name (its
 * node's smallest rank): a node begins at each rank that names itself. */
static int fill_members(pcoll__node_t *t, const int *name, int rank)
{
    int r, k, *count = pcoll__calloc((size_t)t->p + 1, sizeof *count);
    if (!count)
        return pcoll__error(PCOLL_ERR_NOMEM, "node: member lists");
    for (r = 0; r < t->p; r++) {
        if (name[r] == r)
            t->nnodes++;
        t->node_of[r] = name[r] == r ? t->nnodes - 1 : t->node_of[name[r]];
        t->local_of[r] = count[t->node_of[r]]++;
    }
    for (k = 0; k < t->nnodes; k++) {
        t->first[k + 1] = t->first[k] + count[k];
        t->maxlocal = count[k] > t->maxlocal ? count[k] : t->maxlocal;
    }
    for (r = 0; r < t->p; r++)
        t->members[t->first[t->node_of[r]] + t->local_of[r]] = r;
    t->node = t->node_of[rank];
    t->local = t->local_of[rank];
    pcoll__free(count);
    return PCOLL_SUCCESS;
}

static int make(MPI_Comm comm, int cores, pcoll__node_t **out)
{
    pcoll__node_t *t = pcoll__calloc(1, sizeof *t);
    int rank, name, *names = NULL, rc;
    if (!t)
        return pcoll__error(PCOLL_ERR_NOMEM, "node: topology");
    t->comm = MPI_COMM_NULL;
    t->cores = cores;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &t->p);
    t->node_of = pcoll__malloc(sizeof(int) * (size_t)t->p);
    t->local_of = pcoll__malloc(sizeof(int) * (size_t)t->p);
    t->first = pcoll__calloc((size_t)t->p + 1, sizeof(int));
    t->members = pcoll__malloc(sizeof(int) * (size_t)t->p);
    names = pcoll__malloc(sizeof(int) * (size_t)t->p);
    rc = t->node_of && t->local_of && t->first && t->members && names
             ? split_node(comm, rank, cores, &t->comm)
             : pcoll__error(PCOLL_ERR_NOMEM, "node: topology arrays");
    if (rc == PCOLL_SUCCESS &&
        (MPI_Allreduce(&rank, &name, 1, MPI_INT, MPI_MIN, t->comm) != MPI_SUCCESS ||
         MPI_Allgather(&name, 1, MPI_INT, names, 1, MPI_INT, comm) != MPI_SUCCESS))
        rc = pcoll__error(PCOLL_ERR_MPI, "node: exchanging node names failed");
    if (rc == PCOLL_SUCCESS)
        rc = fill_members(t, names, rank);
    pcoll__free(names);
    if (rc != PCOLL_SUCCESS)
        node_free(t);
    else
        *out = t;
    return rc;
}

long long pcoll__node_piece(long long blocks)
{
    long long piece = PCOLL__NODE_SLOTS_MAX / (blocks > 0 ? blocks : 1);
    return piece < PCOLL__NODE_PIECE_MAX ? piece / 64 * 64 : PCOLL__NODE_PIECE_MAX;
}

int pcoll__node_get(pcoll__ctx_t *ctx, int cores, const pcoll__node_t **node)
{
    pcoll__node_t *t;
    int rc;
    for (t = ctx->nodes; t; t = t->next)
        if (t->cores == cores) {
            *node = t;
            return PCOLL_SUCCESS;
        }
    if ((rc = make(ctx->dup, cores, &t)) != PCOLL_SUCCESS)
        return rc;
    t->next = ctx->nodes;
    ctx->nodes = t;
    *node = t;
    return PCOLL_SUCCESS;
}
