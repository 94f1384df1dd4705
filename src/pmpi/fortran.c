/*
 * The Fortran names the drop-in must define itself, where the MPI's Fortran
 * library does not call the C names (MPI_Alltoall ...) that the rest of the
 * drop-in defines (docs/dropin.md "Fortran").
 *
 * Open MPI: its Fortran bindings call PMPI_* directly.  `use mpi` and
 * mpif.h programs call mpi_alltoall_ (and the other spellings), which are
 * weak aliases of ompi_alltoall_f; `use mpi_f08` calls ompi_alltoall_f from
 * libmpi_usempif08.  The blocking collectives and MPI_Finalize (where the
 * log is printed) are defined here under both names and go to the C
 * functions of the drop-in; the non-blocking and persistent forms and the
 * completion calls stay Open MPI's own (PMPI_*, consistent with each other,
 * so not served but correct).
 *
 * MPICH: its Fortran bindings call the C names (served as they are), except
 * that mpi_f08's MPI_Finalize calls PMPI_Finalize: mpi_finalize_f08_ is
 * defined here so that the log is printed.  mpi_f08's completion calls
 * (MPI_Wait ...) also call PMPI_*, so a non-blocking collective that the
 * drop-in served would never complete there: docs/dropin.md says so.
 */
#include <mpi.h>

#if defined(OPEN_MPI)

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

/* Each wrapper under the names Open MPI's Fortran libraries call: the
 * internal ompi_X_f (mpi_f08) and the external mpi_X_ spellings (mpi,
 * mpif.h). */
#define FORTRAN_NAMES(lower, upper, args)                                              \
    void mpi_##lower(args) __attribute__((alias("ompi_" #lower "_f")));               \
    void mpi_##lower##_(args) __attribute__((alias("ompi_" #lower "_f")));            \
    void mpi_##lower##__(args) __attribute__((alias("ompi_" #lower "_f")));           \
    void MPI_##upper(args) __attribute__((alias("ompi_" #lower "_f")));

#define COMMA ,

void ompi_alltoall_f(char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf,
                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr);
void ompi_alltoall_f(char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, char *recvbuf,
                     MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    int rc = MPI_Alltoall(cbuf(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), cbuf(recvbuf),
                          *recvcount, MPI_Type_f2c(*recvtype), MPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = rc;
}
FORTRAN_NAMES(alltoall, ALLTOALL,
              char *a COMMA MPI_Fint *b COMMA MPI_Fint *c COMMA char *d COMMA MPI_Fint *e COMMA
                  MPI_Fint *f COMMA MPI_Fint *g COMMA MPI_Fint *h)

void ompi_alltoallv_f(char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                      MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,
                      MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr);
void ompi_alltoallv_f(char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                      MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,
                      MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    int rc = MPI_Alltoallv(cbuf(sendbuf), sendcounts, sdispls, MPI_Type_f2c(*sendtype),
                           cbuf(recvbuf), recvcounts, rdispls, MPI_Type_f2c(*recvtype),
                           MPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = rc;
}
FORTRAN_NAMES(alltoallv, ALLTOALLV,
              char *a COMMA MPI_Fint *b COMMA MPI_Fint *c COMMA MPI_Fint *d COMMA char *e COMMA
                  MPI_Fint *f COMMA MPI_Fint *g COMMA MPI_Fint *h COMMA MPI_Fint *i COMMA
                      MPI_Fint *j)

void ompi_reduce_scatter_f(char *sendbuf, char *recvbuf, MPI_Fint *recvcounts,
                           MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
void ompi_reduce_scatter_f(char *sendbuf, char *recvbuf, MPI_Fint *recvcounts,
                           MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    int rc = MPI_Reduce_scatter(cbuf(sendbuf), cbuf(recvbuf), recvcounts,
                                MPI_Type_f2c(*datatype), MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = rc;
}
FORTRAN_NAMES(reduce_scatter, REDUCE_SCATTER,
              char *a COMMA char *b COMMA MPI_Fint *c COMMA MPI_Fint *d COMMA MPI_Fint *e COMMA
                  MPI_Fint *f COMMA MPI_Fint *g)

void ompi_reduce_scatter_block_f(char *sendbuf, char *recvbuf, MPI_Fint *recvcount,
                                 MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                                 MPI_Fint *ierr);
void ompi_reduce_scatter_block_f(char *sendbuf, char *recvbuf, MPI_Fint *recvcount,
                                 MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                                 MPI_Fint *ierr)
{
    int rc = MPI_Reduce_scatter_block(cbuf(sendbuf), cbuf(recvbuf), *recvcount,
                                      MPI_Type_f2c(*datatype), MPI_Op_f2c(*op),
                                      MPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = rc;
}
FORTRAN_NAMES(reduce_scatter_block, REDUCE_SCATTER_BLOCK,
              char *a COMMA char *b COMMA MPI_Fint *c COMMA MPI_Fint *d COMMA MPI_Fint *e COMMA
                  MPI_Fint *f COMMA MPI_Fint *g)

void ompi_finalize_f(MPI_Fint *ierr);
void ompi_finalize_f(MPI_Fint *ierr)
{
    int rc = MPI_Finalize();
    if (ierr)
        *ierr = rc;
}
FORTRAN_NAMES(finalize, FINALIZE, MPI_Fint *a)

#elif defined(MPICH)

/* mpi_f08's MPI_Finalize (ierror optional: NULL when absent). */
void mpi_finalize_f08_(MPI_Fint *ierror);
void mpi_finalize_f08_(MPI_Fint *ierror)
{
    int rc = MPI_Finalize();
    if (ierror)
        *ierror = rc;
}

#endif
