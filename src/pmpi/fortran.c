/*
 * The Fortran names the drop-in must define itself, where the MPI's Fortran
 * library does not call the C names (MPI_Alltoall ...) that the rest of the
 * drop-in defines (docs/dropin.md "Fortran").
 *
 * Open MPI: its Fortran bindings call PMPI_* directly.  `use mpi` and
 * mpif.h programs call mpi_alltoall_ (and the other spellings), which are
 * weak aliases of ompi_alltoall_f; `use mpi_f08` calls ompi_alltoall_f from
 * libmpi_usempif08.  The blocking collectives (MPI_Alltoall, MPI_Alltoallv,
 * MPI_Alltoallw, MPI_Reduce_scatter(_block), MPI_Neighbor_alltoall(v/w))
 * and MPI_Finalize (where the
 * log is printed) are defined here under both names and go to the C
 * functions of the drop-in; the non-blocking and persistent forms and the
 * completion calls stay Open MPI's own (PMPI_*, consistent with each other,
 * so not served but correct).
 *
 * MPICH: its Fortran bindings call the C names (served as they are), except
 * that mpi_f08's MPI_Finalize, MPI_Start(all), MPI_Request_free and the Wait,
 * Test and Request_get_status families call PMPI_*: without the definitions
 * here the log would not be printed and the drop-in's non-blocking and
 * persistent requests would never complete.  Its mpi_f08 calls that make a
 * communicator (MPI_Init, MPI_Comm_dup, MPI_Cart_create ...) reach PMPI_*
 * too: defined here, they make the MPI's own call and then prepare the
 * communicator as made.c's C names do.
 */
#define _GNU_SOURCE 1 /* RTLD_NEXT */
#include <mpi.h>

#if defined(OPEN_MPI) || defined(MPICH)

/* A function that only Fortran calls, declared where it is defined (the
 * build asks for a prototype of every external function). */
#define FORTRAN_FUNCTION(name, params)                                                             \
    void name params;                                                                              \
    void name params

/* MPI's status code into the Fortran ierror (absent: NULL). */
static void done(int rc, MPI_Fint *ierror)
{
    if (ierror)
        *ierror = rc;
}

#endif

#if defined(OPEN_MPI)

#include <stdlib.h>

#include "neighbor/neighbor.h"
#include "pmpi/dropin.h"

/* Open MPI's Fortran sentinels: MPI_IN_PLACE and MPI_BOTTOM are variables
 * in common blocks, under the names each compiler convention gives them. */
#define SENTINEL(name) extern int name __attribute__((weak))
SENTINEL(mpi_fortran_in_place);
SENTINEL(mpi_fortran_in_place_);
SENTINEL(mpi_fortran_in_place__);
SENTINEL(MPI_FORTRAN_IN_PLACE);
SENTINEL(mpi_fortran_bottom);
SENTINEL(mpi_fortran_bottom_);
SENTINEL(mpi_fortran_bottom__);
SENTINEL(MPI_FORTRAN_BOTTOM);

/* A Fortran buffer address as C sees it (MPI_IN_PLACE, MPI_BOTTOM). */
static void *cbuf(void *a)
{
    if (a == NULL)
        return a;
    if (a == (void *)&mpi_fortran_in_place || a == (void *)&mpi_fortran_in_place_ ||
        a == (void *)&mpi_fortran_in_place__ || a == (void *)&MPI_FORTRAN_IN_PLACE)
        return MPI_IN_PLACE;
    if (a == (void *)&mpi_fortran_bottom || a == (void *)&mpi_fortran_bottom_ ||
        a == (void *)&mpi_fortran_bottom__ || a == (void *)&MPI_FORTRAN_BOTTOM)
        return MPI_BOTTOM;
    return a;
}

/* MPI_Fint and int are the same type here (counts and displacement arrays
 * pass through as they are). */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not int");

/* A wrapper defined under the names Open MPI's Fortran libraries call: the
 * internal ompi_X_f (mpi_f08), and the external mpi_X_ spellings (mpi,
 * mpif.h) as its aliases; the function's body follows. */
#define OMPI_FUNCTION(lower, upper, params)                                                        \
    void mpi_##lower params __attribute__((alias("ompi_" #lower "_f")));                           \
    void mpi_##lower##_ params __attribute__((alias("ompi_" #lower "_f")));                        \
    void mpi_##lower##__ params __attribute__((alias("ompi_" #lower "_f")));                       \
    void MPI_##upper params __attribute__((alias("ompi_" #lower "_f")));                           \
    FORTRAN_FUNCTION(ompi_##lower##_f, params)

OMPI_FUNCTION(alltoall, ALLTOALL,
              (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf,
               MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    done(MPI_Alltoall(cbuf(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), cbuf(recvbuf), *recvcount,
                      MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm)),
         ierr);
}

OMPI_FUNCTION(alltoallv, ALLTOALLV,
              (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
               char *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
               MPI_Fint *comm, MPI_Fint *ierr))
{
    done(MPI_Alltoallv(cbuf(sendbuf), sendcounts, sdispls, MPI_Type_f2c(*sendtype), cbuf(recvbuf),
                       recvcounts, rdispls, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm)),
         ierr);
}

/* alltoallw: the type arrays become C handles, p of each (the size of
 * comm, of its remote group for an intercommunicator), in one array freed
 * before returning; with MPI_IN_PLACE the send types are not read, as in
 * MPI.  Counts and byte displacements pass through. */
OMPI_FUNCTION(alltoallw, ALLTOALLW,
              (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
               char *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
               MPI_Fint *comm, MPI_Fint *ierr))
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    void *sbuf = cbuf(sendbuf);
    MPI_Datatype *types = NULL;
    int p = 0, inter = 0, i, rc = PMPI_Comm_test_inter(c, &inter);
    if (rc == MPI_SUCCESS)
        rc = inter ? PMPI_Comm_remote_size(c, &p) : PMPI_Comm_size(c, &p);
    if (rc == MPI_SUCCESS && !(types = malloc(sizeof *types * 2 * (size_t)(p > 0 ? p : 1))))
        rc = pcoll__dropin_error(c, MPI_ERR_NO_MEM, "MPI_Alltoallw: type arrays");
    if (rc == MPI_SUCCESS) {
        for (i = 0; i < p; i++) {
            types[i] = sbuf == MPI_IN_PLACE ? MPI_DATATYPE_NULL : MPI_Type_f2c(sendtypes[i]);
            types[p + i] = MPI_Type_f2c(recvtypes[i]);
        }
        rc = MPI_Alltoallw(sbuf, sendcounts, sdispls, types, cbuf(recvbuf), recvcounts, rdispls,
                           types + p, c);
    }
    free(types);
    done(rc, ierr);
}

OMPI_FUNCTION(reduce_scatter, REDUCE_SCATTER,
              (char *sendbuf, char *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,
               MPI_Fint *comm, MPI_Fint *ierr))
{
    done(MPI_Reduce_scatter(cbuf(sendbuf), cbuf(recvbuf), recvcounts, MPI_Type_f2c(*datatype),
                            MPI_Op_f2c(*op), MPI_Comm_f2c(*comm)),
         ierr);
}

OMPI_FUNCTION(reduce_scatter_block, REDUCE_SCATTER_BLOCK,
              (char *sendbuf, char *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype, MPI_Fint *op,
               MPI_Fint *comm, MPI_Fint *ierr))
{
    done(MPI_Reduce_scatter_block(cbuf(sendbuf), cbuf(recvbuf), *recvcount, MPI_Type_f2c(*datatype),
                                  MPI_Op_f2c(*op), MPI_Comm_f2c(*comm)),
         ierr);
}

OMPI_FUNCTION(neighbor_alltoall, NEIGHBOR_ALLTOALL,
              (char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf,
               MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    done(MPI_Neighbor_alltoall(cbuf(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), cbuf(recvbuf),
                               *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm)),
         ierr);
}

OMPI_FUNCTION(neighbor_alltoallv, NEIGHBOR_ALLTOALLV,
              (char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
               char *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
               MPI_Fint *comm, MPI_Fint *ierr))
{
    done(MPI_Neighbor_alltoallv(cbuf(sendbuf), sendcounts, sdispls, MPI_Type_f2c(*sendtype),
                                cbuf(recvbuf), recvcounts, rdispls, MPI_Type_f2c(*recvtype),
                                MPI_Comm_f2c(*comm)),
         ierr);
}

/* neighbor_alltoallw: the type arrays become C handles, one per out-edge
 * (send) and in-edge (receive), in one array freed before returning;
 * displacements are MPI_Aint (INTEGER(KIND=MPI_ADDRESS_KIND)) as in C.  A
 * communicator without a topology gets the MPI's own call and its error. */
OMPI_FUNCTION(neighbor_alltoallw, NEIGHBOR_ALLTOALLW,
              (char *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
               char *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
               MPI_Fint *comm, MPI_Fint *ierr))
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    MPI_Datatype *types = NULL;
    int topo, in = 0, out = 0, i, rc = MPI_SUCCESS;
    if (pcoll__nbr_degrees(c, "MPI_Neighbor_alltoallw", &topo, &in, &out) != 0) {
        done(PMPI_Neighbor_alltoallw(cbuf(sendbuf), sendcounts, sdispls, NULL, cbuf(recvbuf),
                                     recvcounts, rdispls, NULL, c),
             ierr);
        return;
    }
    if (!(types = malloc(sizeof *types * (size_t)(in + out > 0 ? in + out : 1))))
        rc = pcoll__dropin_error(c, MPI_ERR_NO_MEM, "MPI_Neighbor_alltoallw: type arrays");
    if (rc == MPI_SUCCESS) {
        for (i = 0; i < out; i++)
            types[i] = MPI_Type_f2c(sendtypes[i]);
        for (i = 0; i < in; i++)
            types[out + i] = MPI_Type_f2c(recvtypes[i]);
        rc = MPI_Neighbor_alltoallw(cbuf(sendbuf), sendcounts, sdispls, types, cbuf(recvbuf),
                                    recvcounts, rdispls, types + out, c);
    }
    free(types);
    done(rc, ierr);
}

OMPI_FUNCTION(finalize, FINALIZE, (MPI_Fint *ierr))
{
    done(MPI_Finalize(), ierr);
}

#elif defined(MPICH)

/* MPICH: mpi_f08's MPI_Finalize and completion calls go to PMPI_* (the C
 * names of the drop-in never see them); these definitions send them to the
 * drop-in's C functions.  MPICH's handles are ints (MPI_Fint), its f08
 * MPI_Status has the C layout, an absent ierror arrives as NULL, and
 * MPI_STATUS(ES)_IGNORE are the variables below.  Fortran counts indices
 * from 1 and LOGICAL flags are 0 or 1 (gfortran). */
_Static_assert(sizeof(MPI_Request) == sizeof(MPI_Fint), "MPICH requests are ints");
/* mpi_f08's MPI_STATUS(ES)_IGNORE, which MPI's C side knows as
 * MPI_F08_STATUS(ES)_IGNORE, as C's.  (Were they not recognised, MPI would
 * only write a status into the ignored object.) */
static MPI_Status *st1(MPI_Status *s)
{
    return (void *)s == (void *)MPI_F08_STATUS_IGNORE ? MPI_STATUS_IGNORE : s;
}

static MPI_Status *stn(MPI_Status *s)
{
    return (void *)s == (void *)MPI_F08_STATUSES_IGNORE ? MPI_STATUSES_IGNORE : s;
}

/* A C index (from 0, or MPI_UNDEFINED) as Fortran's. */
static MPI_Fint findex(int i)
{
    return i == MPI_UNDEFINED ? i : i + 1;
}

/* Waitsome's and Testsome's results as Fortran's: the count n, the n
 * indices from 1. */
static void fsome(int n, MPI_Fint *outcount, MPI_Fint *indices)
{
    int i;
    *outcount = n;
    for (i = 0; n != MPI_UNDEFINED && i < n; i++)
        indices[i] += 1;
}

#define REQ(r) ((MPI_Request *)(r))

#include <dlfcn.h>
#ifdef RTLD_NEXT
#include <stdatomic.h>
#include <string.h>

#include "pmpi/dropin.h"

/* A Fortran procedure's address, of any type until called as its own. */
typedef void (*fortran_fn_t)(void);

/* The definition of name that the drop-in's hides (the MPI's Fortran
 * library's), looked up once. */
static fortran_fn_t next_definition(const char *name, _Atomic(fortran_fn_t) *slot)
{
    fortran_fn_t f = atomic_load_explicit(slot, memory_order_acquire);
    void *sym;
    if (!f && (sym = dlsym(RTLD_NEXT, name))) {
        memcpy(&f, &sym, sizeof f);
        atomic_store_explicit(slot, f, memory_order_release);
    }
    return f;
}

/* The first n arguments of a Fortran call, each an address (Fortran passes
 * by reference; none of these calls has a string, so no hidden lengths),
 * as parameters and as arguments, each with a comma after it. */
#define F08_P0
#define F08_P1 F08_P0 void *a1,
#define F08_P2 F08_P1 void *a2,
#define F08_P3 F08_P2 void *a3,
#define F08_P4 F08_P3 void *a4,
#define F08_P5 F08_P4 void *a5,
#define F08_P6 F08_P5 void *a6,
#define F08_P7 F08_P6 void *a7,
#define F08_P8 F08_P7 void *a8,
#define F08_P9 F08_P8 void *a9,
#define F08_P10 F08_P9 void *a10,
#define F08_A0
#define F08_A1 F08_A0 a1,
#define F08_A2 F08_A1 a2,
#define F08_A3 F08_A2 a3,
#define F08_A4 F08_A3 a4,
#define F08_A5 F08_A4 a5,
#define F08_A6 F08_A5 a6,
#define F08_A7 F08_A6 a7,
#define F08_A8 F08_A7 a8,
#define F08_A9 F08_A8 a9,
#define F08_A10 F08_A9 a10,
/* A TYPE(MPI_Comm) argument (one integer) as a C handle. */
#define F08_COMM(a) MPI_Comm_f2c(*(MPI_Fint *)(a))

/* An mpi_f08 call of n arguments and ierror that makes a communicator
 * (made: it, once the call has returned): the MPI's own call with the
 * arguments as they came (an absent ierror is NULL; handles, arrays,
 * LOGICALs and sentinels such as MPI_UNWEIGHTED pass through untouched),
 * then the preparation.  A failed call prepares nothing. */
#define F08_MAKES(name, n, made)                                                                   \
    FORTRAN_FUNCTION(name, (F08_P##n MPI_Fint *ierror))                                           \
    {                                                                                              \
        static _Atomic(fortran_fn_t) next;                                                         \
        void (*mpi)(F08_P##n MPI_Fint *) =                                                         \
            (void (*)(F08_P##n MPI_Fint *))next_definition(#name, &next);                          \
        if (!mpi) {                                                                                \
            done(MPI_ERR_INTERN, ierror);                                                          \
            return;                                                                                \
        }                                                                                          \
        pcoll__dropin_made_begin();                                                                \
        mpi(F08_A##n ierror);                                                                      \
        pcoll__dropin_made_end(ierror && *ierror != MPI_SUCCESS ? MPI_COMM_NULL : (made));         \
    }

/* In MPI's argument order (the new communicator's position named):
 * MPI_Init(), MPI_Init_thread(required, provided), MPI_Comm_dup(comm,
 * newcomm), _dup_with_info(comm, info, newcomm), _split(comm, color, key,
 * newcomm), _split_type(comm, type, key, info, newcomm), _create(comm,
 * group, newcomm), _create_group(comm, group, tag, newcomm),
 * MPI_Intercomm_merge(intercomm, high, newintracomm), MPI_Cart_create(old,
 * ndims, dims, periods, reorder, cart), MPI_Cart_sub(comm, remain, newcomm),
 * MPI_Graph_create(old, nnodes, index, edges, reorder, graph),
 * MPI_Dist_graph_create(old, n, sources, degrees, destinations, weights,
 * info, reorder, graph), _adjacent(old, indegree, sources, sourceweights,
 * outdegree, destinations, destweights, info, reorder, graph). */
F08_MAKES(mpi_init_f08_, 0, MPI_COMM_WORLD)
F08_MAKES(mpi_init_thread_f08_, 2, MPI_COMM_WORLD)
F08_MAKES(mpi_comm_dup_f08_, 2, F08_COMM(a2))
F08_MAKES(mpi_comm_dup_with_info_f08_, 3, F08_COMM(a3))
F08_MAKES(mpi_comm_split_f08_, 4, F08_COMM(a4))
F08_MAKES(mpi_comm_split_type_f08_, 5, F08_COMM(a5))
F08_MAKES(mpi_comm_create_f08_, 3, F08_COMM(a3))
F08_MAKES(mpi_comm_create_group_f08_, 4, F08_COMM(a4))
F08_MAKES(mpi_intercomm_merge_f08_, 3, F08_COMM(a3))
F08_MAKES(mpi_cart_create_f08_, 6, F08_COMM(a6))
F08_MAKES(mpi_cart_sub_f08_, 3, F08_COMM(a3))
F08_MAKES(mpi_graph_create_f08_, 6, F08_COMM(a6))
F08_MAKES(mpi_dist_graph_create_f08_, 9, F08_COMM(a9))
F08_MAKES(mpi_dist_graph_create_adjacent_f08_, 10, F08_COMM(a10))
#endif

FORTRAN_FUNCTION(mpi_finalize_f08_, (MPI_Fint *ierror))
{
    done(MPI_Finalize(), ierror);
}

FORTRAN_FUNCTION(mpi_start_f08_, (MPI_Fint *request, MPI_Fint *ierror))
{
    done(MPI_Start(REQ(request)), ierror);
}

FORTRAN_FUNCTION(mpi_startall_f08_, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror))
{
    done(MPI_Startall(*count, REQ(requests)), ierror);
}

FORTRAN_FUNCTION(mpi_request_free_f08_, (MPI_Fint *request, MPI_Fint *ierror))
{
    done(MPI_Request_free(REQ(request)), ierror);
}

FORTRAN_FUNCTION(mpi_request_get_status_f08_,
                 (MPI_Fint *request, int *flag, MPI_Status *status, MPI_Fint *ierror))
{
    int f = 0;
    done(MPI_Request_get_status(*REQ(request), &f, st1(status)), ierror);
    *flag = f != 0;
}

FORTRAN_FUNCTION(mpi_wait_f08_, (MPI_Fint *request, MPI_Status *status, MPI_Fint *ierror))
{
    done(MPI_Wait(REQ(request), st1(status)), ierror);
}

FORTRAN_FUNCTION(mpi_waitall_f08_,
                 (MPI_Fint *count, MPI_Fint *requests, MPI_Status *statuses, MPI_Fint *ierror))
{
    done(MPI_Waitall(*count, REQ(requests), stn(statuses)), ierror);
}

FORTRAN_FUNCTION(mpi_waitany_f08_, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                    MPI_Status *status, MPI_Fint *ierror))
{
    int i = MPI_UNDEFINED;
    done(MPI_Waitany(*count, REQ(requests), &i, st1(status)), ierror);
    *index = findex(i);
}

FORTRAN_FUNCTION(mpi_waitsome_f08_, (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                     MPI_Fint *indices, MPI_Status *statuses, MPI_Fint *ierror))
{
    int n = 0;
    done(MPI_Waitsome(*incount, REQ(requests), &n, indices, stn(statuses)), ierror);
    fsome(n, outcount, indices);
}

FORTRAN_FUNCTION(mpi_test_f08_,
                 (MPI_Fint *request, int *flag, MPI_Status *status, MPI_Fint *ierror))
{
    int f = 0;
    done(MPI_Test(REQ(request), &f, st1(status)), ierror);
    *flag = f != 0;
}

FORTRAN_FUNCTION(mpi_testall_f08_, (MPI_Fint *count, MPI_Fint *requests, int *flag,
                                    MPI_Status *statuses, MPI_Fint *ierror))
{
    int f = 0;
    done(MPI_Testall(*count, REQ(requests), &f, stn(statuses)), ierror);
    *flag = f != 0;
}

FORTRAN_FUNCTION(mpi_testany_f08_, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                                    int *flag, MPI_Status *status, MPI_Fint *ierror))
{
    int i = MPI_UNDEFINED, f = 0;
    done(MPI_Testany(*count, REQ(requests), &i, &f, st1(status)), ierror);
    *index = findex(i);
    *flag = f != 0;
}

FORTRAN_FUNCTION(mpi_testsome_f08_, (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                     MPI_Fint *indices, MPI_Status *statuses, MPI_Fint *ierror))
{
    int n = 0;
    done(MPI_Testsome(*incount, REQ(requests), &n, indices, stn(statuses)), ierror);
    fsome(n, outcount, indices);
}

#endif
