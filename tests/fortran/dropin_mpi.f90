! MPI's collectives from a Fortran program that uses mpi (integer handles),
! under the drop-in (tests/fortran/CMakeLists.txt runs it with libpcoll_mpi
! preloaded).
program dropin_mpi
  use mpi
  implicit none
  integer :: req
  integer :: ct
  integer, allocatable :: ws(:), wr(:)
  integer :: nb
  ! MPICH's mpi module reaches the C MPI_Dist_graph_create_adjacent, which
  ! the drop-in wraps: the ring is prepared for non-blocking calls
  logical, parameter :: prepared_under_mpich = .true.
  include 'dropin_body.inc'
end program dropin_mpi
