! MPI's collectives from a Fortran program that uses mpi (integer handles),
! under the drop-in (tests/fortran/CMakeLists.txt runs it with libpcoll_mpi
! preloaded).
program dropin_mpi
  use mpi
  implicit none
  integer :: req
  integer :: ct
  integer, allocatable :: ws(:), wr(:)
  integer :: nb, line, linedup, ring2, lc
  include 'dropin_body.inc'
end program dropin_mpi
