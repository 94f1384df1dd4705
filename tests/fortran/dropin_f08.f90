! MPI's collectives from a Fortran program that uses mpi_f08, under the
! drop-in (tests/fortran/CMakeLists.txt runs it with libpcoll_mpi preloaded).
program dropin_f08
  use mpi_f08
  implicit none
  type(MPI_Request) :: req
  ! MPICH's mpi_f08 completes requests through PMPI_Wait, which the drop-in
  ! does not see: its non-blocking collectives would never complete (docs/dropin.md).
  logical, parameter :: nonblocking = .false.
  include 'dropin_body.inc'
end program dropin_f08
