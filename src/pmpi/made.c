/*
 * Communicators as they are made: MPI_Init and MPI_Init_thread
 * (MPI_COMM_WORLD), MPI_Comm_dup, _dup_with_info, _split, _split_type,
 * _create, _create_group, MPI_Intercomm_merge, and the calls that make a
 * communicator with a topology (MPI_Cart_create, MPI_Cart_sub,
 * MPI_Graph_create, MPI_Dist_graph_create, _adjacent).  The MPI makes the
 * communicator, then every rank of it, still inside the call that all of
 * them make, prepares it (docs/dropin.md, "Prepared communicators"): the shapes
 * that non-blocking calls would otherwise never see decided, as a deciding
 * blocking call decides them (src/api/entry.c, "Prepared shapes"), so that
 * the non-blocking calls, which must not communicate to get a plan, lease
 * the node-aware plan a shape keeps from their first call:
 *  - with a topology, its neighbourhood all-to-alls (pcoll__neighbor_prepare:
 *    MPI_Ineighbor_alltoall, _v, _w lease `node`);
 *  - an intracommunicator, its alltoallv (pcoll__alltoallv_prepare:
 *    MPI_Ialltoallv, and MPI_Ialltoall where its own shape keeps no plan,
 *    lease `hier`), for the first PCOLL__DROPIN_DENSE_MAX communicators a
 *    process makes (each may hold a shared segment per node while it
 *    lives: up to 4 MiB for a communicator of 16 ranks a node); whether a
 *    communicator is one of them is agreed (one reduction), so that every
 *    rank prepares or none does.
 *
 * The cost falls on the call that makes the communicator: an agreement,
 * the node topology and the kept plans' layout and shared segments (one a
 * shape, where the choice keeps a plan).  PCOLL_DROPIN_PREPARE=off (or 0,
 * false, no) leaves it out; so do PCOLL_DROPIN=off, a communicator the
 * drop-in does not serve, and SimGrid's SMPI (whose non-blocking
 * collectives the drop-in leaves to it).  Whatever pcoll answers, the call
 * returns the MPI's result: a preparation that fails (on every rank alike:
 * its choice is agreed) leaves the shapes undecided, as if never prepared.
 * MPI_Comm_idup is not wrapped: nothing may use its communicator before
 * the request completes.  pcoll's own communicators (its contexts, node
 * splits) are made by PMPI_* (base/pmpi.h) and never prepared.  Fortran bindings that
 * do not reach these C names are wrapped in fortran.c, which makes the
 * MPI's call between pcoll__dropin_made_begin and _end: a C name reached
 * in between leaves the preparation to the end, so it happens once.
 */
#include "api/api.h"
#include "base/status.h"
#include "pmpi/dropin.h"

#ifdef PCOLL__DROPIN_HAVE_NONBLOCKING

/* The depth of the thread's Fortran calls that make a communicator. */
static PCOLL__THREAD_LOCAL int fortran_depth;

/* Communicators whose alltoallv this process has prepared. */
static atomic_int dense_made;

/* Prepare comm (every rank of it). */
static void prepare(MPI_Comm comm)
{
    int topo = MPI_UNDEFINED, inter = 0, full, any = 1;
    if (PMPI_Topo_test(comm, &topo) == MPI_SUCCESS && topo != MPI_UNDEFINED)
        (void)pcoll__neighbor_prepare(comm);
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    full = atomic_load_explicit(&dense_made, memory_order_relaxed) >= PCOLL__DROPIN_DENSE_MAX;
    if (PMPI_Allreduce(&full, &any, 1, MPI_INT, MPI_LOR, comm) != MPI_SUCCESS || any)
        return;
    atomic_fetch_add_explicit(&dense_made, 1, memory_order_relaxed);
    (void)pcoll__alltoallv_prepare(comm);
}

/* After the MPI made *comm (err: its result). */
static int prepared(int err, const MPI_Comm *comm)
{
    if (!fortran_depth && err == MPI_SUCCESS && *comm != MPI_COMM_NULL &&
        pcoll__dropin_serves(*comm) && !pcoll__dropin_env_off("PCOLL_DROPIN_PREPARE"))
        prepare(*comm);
    return err;
}

/* The same for MPI_COMM_WORLD, once MPI is initialized. */
static int prepared_world(int err)
{
    MPI_Comm world = MPI_COMM_WORLD;
    return prepared(err, &world);
}

int MPI_Init(int *argc, char ***argv)
{
    return prepared_world(PMPI_Init(argc, argv));
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return prepared_world(PMPI_Init_thread(argc, argv, required, provided));
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return prepared(PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return prepared(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return prepared(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return prepared(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return prepared(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return prepared(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    return prepared(PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm);
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

void pcoll__dropin_made_begin(void)
{
    fortran_depth++;
}

void pcoll__dropin_made_end(MPI_Comm comm)
{
    fortran_depth--;
    (void)prepared(MPI_SUCCESS, &comm);
}

#else

void pcoll__dropin_made_begin(void)
{
}

void pcoll__dropin_made_end(MPI_Comm comm)
{
    (void)comm;
}

#endif
