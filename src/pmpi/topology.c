/*
 * MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create, MPI_Dist_graph_create
 * and MPI_Dist_graph_create_adjacent, and MPI_Comm_dup and
 * MPI_Comm_dup_with_info of a communicator with a topology (which the
 * duplicate keeps): the MPI makes the communicator, then
 * every rank of it, still inside the call that all of them make, prepares
 * the communicator's neighbourhood all-to-alls (pcoll__neighbor_prepare):
 * the non-blocking calls (MPI_Ineighbor_alltoall, _v, _w), which must not
 * communicate to get a plan, then lease the node-aware plan their shape
 * keeps from their first call, as they do after blocking calls
 * (docs/dropin.md, "Non-blocking calls").
 *
 * The cost falls on the call that makes the communicator: an agreement,
 * the node topology and the kept plans' layout and shared segments (one a
 * form, where the choice keeps a plan).  PCOLL_DROPIN_PREPARE=off (or 0,
 * false, no) leaves it out; so do PCOLL_DROPIN=off and a communicator the
 * drop-in does not serve.  Whatever pcoll answers, the call returns the
 * MPI's result: a preparation that fails (on every rank alike: its choice
 * is agreed) leaves the shapes undecided, as if never prepared.
 * MPI_Comm_idup is not wrapped: nothing may use its communicator before
 * the request completes.  pcoll's own duplicates (its contexts) are made
 * by PMPI_Comm_dup (base/pmpi.h) and never prepared.  Fortran bindings that
 * do not reach these C names are wrapped in fortran.c, which makes the
 * MPI's call between pcoll__dropin_made_begin and _end: a C name reached
 * in between leaves the preparation to the end, so it happens once.
 */
#include "api/api.h"
#include "base/status.h"
#include "pmpi/dropin.h"

/* The depth of the thread's Fortran calls that make a communicator. */
static PCOLL__THREAD_LOCAL int fortran_depth;

/* After the MPI made *comm (err: its result). */
static int prepared(int err, const MPI_Comm *comm)
{
    if (!fortran_depth && err == MPI_SUCCESS && *comm != MPI_COMM_NULL &&
        pcoll__dropin_serves(*comm) && !pcoll__dropin_env_off("PCOLL_DROPIN_PREPARE"))
        (void)pcoll__neighbor_prepare(*comm);
    return err;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    return prepared(PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart),
                    comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    return prepared(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    return prepared(PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph),
                    comm_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph)
{
    return prepared(PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights,
                                           info, reorder, comm_dist_graph),
                    comm_dist_graph);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    return prepared(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
                                                    outdegree, destinations, destweights, info,
                                                    reorder, comm_dist_graph),
                    comm_dist_graph);
}

/* A duplicate of a communicator with a topology has it too. */
static int prepared_dup(int err, const MPI_Comm *comm)
{
    int topo = MPI_UNDEFINED;
    if (err == MPI_SUCCESS && *comm != MPI_COMM_NULL &&
        PMPI_Topo_test(*comm, &topo) == MPI_SUCCESS && topo != MPI_UNDEFINED)
        return prepared(err, comm);
    return err;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return prepared_dup(PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return prepared_dup(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

void pcoll__dropin_made_begin(void)
{
    fortran_depth++;
}

void pcoll__dropin_made_end(MPI_Comm comm, int dup)
{
    fortran_depth--;
    if (dup)
        (void)prepared_dup(MPI_SUCCESS, &comm);
    else
        (void)prepared(MPI_SUCCESS, &comm);
}
