! A Fortran program that uses pcoll directly: one persistent alltoall plan,
! made once and restarted with new data every step (as a pencil FFT or a
! particle code would), each result checked against MPI_Alltoall, and a
! one-shot reduce-scatter.
!
!   mpifort fortran_plan.f90 -I<prefix>/include/pcoll/fortran -lpcoll_fortran -lpcoll
!   mpiexec -n 4 ./fortran_plan
program fortran_plan
  use mpi_f08
  use pcoll
  implicit none
  integer, parameter :: n = 1000, steps = 5
  real(8), allocatable, asynchronous :: sendbuf(:), recvbuf(:)
  real(8), allocatable :: partial(:), total(:), expect(:)
  integer :: rank, p, step, ierror, wrong
  type(pcoll_plan) :: plan

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  allocate(sendbuf(n * p), recvbuf(n * p), partial(n * p), total(n), expect(n * p))

  ! Planned once: the buffers stay bound to the plan until it is freed.
  call pcoll_alltoall_init(sendbuf, n, MPI_REAL8, recvbuf, n, MPI_REAL8, MPI_COMM_WORLD, &
                           MPI_INFO_NULL, plan, ierror)
  if (ierror /= PCOLL_SUCCESS) then
    print '(2a)', 'pcoll_alltoall_init: ', pcoll_last_error()
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  if (rank == 0) print '(3a)', 'alltoall plan: ', plan%algorithm(), ' algorithm'

  do step = 1, steps
    call random_number(sendbuf)
    recvbuf = -1
    call plan%start()
    ! ... work that does not touch sendbuf or recvbuf ...
    call plan%wait()
    call MPI_Alltoall(sendbuf, n, MPI_REAL8, expect, n, MPI_REAL8, MPI_COMM_WORLD)
    wrong = count(abs(recvbuf - expect) > 0)
    call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) print '(a,i0,a,i0,a)', 'step ', step, ': ', wrong, ' elements differ from MPI_Alltoall'
    if (wrong /= 0) call MPI_Abort(MPI_COMM_WORLD, 1)
  end do
  call plan%free()

  ! One-shot reduce-scatter: rank i gets the sum over ranks of block i.
  partial = rank + 1
  call pcoll_reduce_scatter_block(partial, total, n, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,f0.1,a,i0,a)', 'reduce_scatter_block: ', total(1), &
    ' (expected ', p * (p + 1) / 2, ')'
  call MPI_Finalize()
end program fortran_plan
