! MPI's collectives from a Fortran program that uses mpi_f08, under the
! drop-in (tests/fortran/CMakeLists.txt runs it with libpcoll_mpi preloaded).
program dropin_f08
  use mpi_f08
  implicit none
  type(MPI_Request) :: req
  type(MPI_Datatype) :: ct
  type(MPI_Datatype), allocatable :: ws(:), wr(:)
  type(MPI_Comm) :: nb, line, linedup, ring2, lc
  include 'dropin_body.inc'
end program dropin_f08
