/*
 * Shared by the drop-in's neighbourhood tests (dropin_neighbor*.c): the
 * degrees of a communicator with a topology, a layout of one block per
 * edge, and whether the MPI is MPICH before 5 (whose own neighbourhood
 * calls, the tests' reference, pair repeated neighbours wrongly).
 */
#ifndef PCOLL_TESTS_DROPIN_NEIGHBOR_H
#define PCOLL_TESTS_DROPIN_NEIGHBOR_H

#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NBR_MAXE 8

/* A communicator (its name in messages) and a call's counts,
 * displacements (in items and in bytes) and types per edge. */
typedef struct nbr_layout {
    MPI_Comm comm;
    const char *name;
    int in, out;
    int scounts[NBR_MAXE], sdispls[NBR_MAXE], rcounts[NBR_MAXE], rdispls[NBR_MAXE];
    MPI_Aint sbytes[NBR_MAXE], rbytes[NBR_MAXE];
    MPI_Datatype stypes[NBR_MAXE], rtypes[NBR_MAXE];
} nbr_layout_t;

static inline void nbr_degrees(MPI_Comm comm, int rank, int *in, int *out)
{
    int topo, n, w;
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        MPI_Cartdim_get(comm, &n);
        *in = *out = 2 * n;
    } else if (topo == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, rank, &n);
        *in = *out = n;
    } else {
        MPI_Dist_graph_neighbors_count(comm, in, out, &w);
    }
}

/* Counts per edge (1-3 ints, out-edge 0 extra more; the receive counts
 * from the MPI's own exchange), blocks in reverse edge order with gaps, in
 * ints on the send side and in items of rvec (one int every two) on the
 * receive side; byte displacements for alltoallw.  rank: in MPI_COMM_WORLD
 * (the counts). */
static inline void nbr_layout(nbr_layout_t *l, int rank, int extra, MPI_Datatype rvec)
{
    int e, off = 1, me;
    MPI_Comm_rank(l->comm, &me);
    nbr_degrees(l->comm, me, &l->in, &l->out);
    for (e = 0; e < l->out; e++)
        l->scounts[e] = 1 + (rank + 2 * e) % 3 + (e == 0 ? extra : 0);
    for (e = 0; e < l->in; e++)
        l->rcounts[e] = 1;
    PMPI_Neighbor_alltoall(l->scounts, 1, MPI_INT, l->rcounts, 1, MPI_INT, l->comm);
    for (e = l->out - 1; e >= 0; e--) {
        l->sdispls[e] = off, l->sbytes[e] = off * (MPI_Aint)sizeof(int);
        l->stypes[e] = MPI_INT;
        off += l->scounts[e] + 1;
    }
    off = 2;
    for (e = l->in - 1; e >= 0; e--) {
        l->rdispls[e] = off / 2, l->rbytes[e] = off * (MPI_Aint)sizeof(int);
        l->rtypes[e] = rvec;
        off += 2 * l->rcounts[e] + 2;
    }
}

/* The MPI is MPICH before 5 (MPI_Get_library_version may be called
 * before MPI_Init). */
static inline int nbr_old_mpich(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    const char *at;
    int len = 0;
    MPI_Get_library_version(v, &len);
    v[len < (int)sizeof v ? len : (int)sizeof v - 1] = '\0';
    at = strstr(v, "MPICH Version:");
    return at && atoi(at + strspn(at + 14, " \t") + 14) < 5;
}

#endif
