! The Fortran module pcoll with the integer handles of `use mpi`: alltoall,
! alltoallv, alltoallw, reduce_scatter(_block), one-shot, in place (mpi's MPI_IN_PLACE)
! and persistent plans restarted with new data, checked against MPI's own
! collective on the same input; receive buffers poisoned first.  The
! neighbourhood all-to-alls (neighbor.inc) on a Cartesian grid and a
! distributed graph.
program test_mpi
  use mpi
  use pcoll
  implicit none
  integer, parameter :: n = 2, rounds = 3, poison = -7777
  integer :: rank, p, nerr, ierr, total
  integer :: topo, nb_every2
  integer, allocatable :: wst(:), wrt(:)
  nerr = 0

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)

  call alltoall_all()
  call alltoallv_all()
  call alltoallw_all()
  call reduce_scatter_all()
  call neighbor_all()

  call MPI_Allreduce(nerr, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'test_mpi: np ', p, ' failures ', total
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  include 'checks.inc'
  include 'neighbor.inc'

  subroutine alltoall_all()
    double precision, asynchronous :: s(n, 0:p-1), r(n, 0:p-1)
    double precision :: ref(n, 0:p-1), inplace(n, 0:p-1)
    integer :: i, k, round
    type(pcoll_plan) :: plan
    do i = 0, p - 1
      do k = 1, n
        s(k, i) = rank * 1000 + i * 10 + k
      end do
    end do
    call MPI_Alltoall(s, n, MPI_DOUBLE_PRECISION, ref, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, &
                      ierr)
    r = poison
    call pcoll_alltoall(s, n, MPI_DOUBLE_PRECISION, r, n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, &
                        ierr)
    call expect_result(ierr, maxval(abs(r - ref)) < 1d-9, 'pcoll_alltoall')
    inplace = s
    call pcoll_alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace, n, MPI_DOUBLE_PRECISION, &
                        MPI_COMM_WORLD, ierr)
    call expect_result(ierr, maxval(abs(inplace - ref)) < 1d-9, 'pcoll_alltoall in place')
    call pcoll_alltoall_init(s, n, MPI_DOUBLE_PRECISION, r, n, MPI_DOUBLE_PRECISION, &
                             MPI_COMM_WORLD, MPI_INFO_NULL, plan, ierr)
    call expect_success(ierr, 'pcoll_alltoall_init')
    do round = 1, rounds
      s = s + 0.5d0
      r = poison
      call run_plan(plan, 'persistent alltoall')
      call MPI_Alltoall(s, n, MPI_DOUBLE_PRECISION, ref, n, MPI_DOUBLE_PRECISION, &
                        MPI_COMM_WORLD, ierr)
      call expect(maxval(abs(r - ref)) < 1d-9, 'persistent alltoall')
    end do
    call pcoll_plan_free(plan, ierr)
    call expect_success(ierr, 'pcoll_plan_free')
  end subroutine

  ! Rank i sends j+1 items to rank j.
  subroutine alltoallv_all()
    integer, allocatable, asynchronous :: s(:), r(:)
    integer, allocatable :: ref(:)
    integer :: sc(0:p-1), sd(0:p-1), rc(0:p-1), rd(0:p-1), j, round
    type(pcoll_plan) :: plan
    do j = 0, p - 1
      sc(j) = j + 1
      rc(j) = rank + 1
      rd(j) = j * (rank + 1)
    end do
    sd(0) = 0
    do j = 1, p - 1
      sd(j) = sd(j - 1) + sc(j - 1)
    end do
    allocate(s(sum(sc)), r(sum(rc)), ref(sum(rc)))
    do j = 1, size(s)
      s(j) = rank * 1000 + j
    end do
    call MPI_Alltoallv(s, sc, sd, MPI_INTEGER, ref, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    r = poison
    call pcoll_alltoallv(s, sc, sd, MPI_INTEGER, r, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_alltoallv')
    call pcoll_alltoallv_init(s, sc, sd, MPI_INTEGER, r, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, &
                              MPI_INFO_NULL, plan, ierr)
    call expect_success(ierr, 'pcoll_alltoallv_init')
    do round = 1, rounds
      s = s + 100000
      r = poison
      call run_plan(plan, 'persistent alltoallv')
      call MPI_Alltoallv(s, sc, sd, MPI_INTEGER, ref, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call expect(all(r == ref), 'persistent alltoallv')
    end do
    call plan%free(ierr)
  end subroutine

  ! alltoallw with integer handles: rank i sends mod(i + j, 3) doubles to
  ! rank j (zero counts among them), contiguous to even ranks and as every
  ! other double (a resized type) to odd ones, and receives them
  ! contiguously; byte displacements.  One-shot, persistent (restarted with
  ! new data), in place.
  subroutine alltoallw_all()
    double precision, allocatable, asynchronous :: s(:), r(:)
    double precision, allocatable :: ref(:), b(:)
    integer :: sc(0:p-1), sd(0:p-1), rc(0:p-1), rd(0:p-1), st(0:p-1), rt(0:p-1)
    integer :: j, off, round, dsz, every2
    integer(MPI_ADDRESS_KIND) :: lb, ext
    type(pcoll_plan) :: plan
    dsz = storage_size(0d0) / 8
    lb = 0
    ext = 2 * dsz
    call MPI_Type_create_resized(MPI_DOUBLE_PRECISION, lb, ext, every2, ierr)
    call MPI_Type_commit(every2, ierr)
    off = 0
    do j = 0, p - 1
      sc(j) = mod(rank + j, 3)
      sd(j) = off * dsz
      st(j) = MPI_DOUBLE_PRECISION
      if (mod(j, 2) == 1) st(j) = every2
      off = off + 2 * sc(j) + 1
    end do
    allocate(s(off))
    off = 0
    do j = p - 1, 0, -1
      rc(j) = mod(rank + j, 3)
      rd(j) = off * dsz
      rt(j) = MPI_DOUBLE_PRECISION
      off = off + rc(j)
    end do
    allocate(r(max(off, 1)), ref(max(off, 1)))
    do j = 1, size(s)
      s(j) = rank * 1000 + j
    end do
    ref = poison
    call MPI_Alltoallw(s, sc, sd, st, ref, rc, rd, rt, MPI_COMM_WORLD, ierr)
    r = poison
    call pcoll_alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, maxval(abs(r - ref)) < 1d-9, 'pcoll_alltoallw')
    call pcoll_alltoallw_init(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &
                              plan, ierr)
    call expect_success(ierr, 'pcoll_alltoallw_init')
    do round = 1, rounds
      s = s + 100000
      r = poison
      call run_plan(plan, 'persistent alltoallw')
      ref = poison
      call MPI_Alltoallw(s, sc, sd, st, ref, rc, rd, rt, MPI_COMM_WORLD, ierr)
      call expect(maxval(abs(r - ref)) < 1d-9, 'persistent alltoallw')
    end do
    call plan%free(ierr)
    ! in place: the receive arrays serve both directions (symmetric counts;
    ! the reference: MPI_Alltoallw with the same layout on both sides, since
    ! `use mpi` gives no interface that takes MPI_IN_PLACE and an array)
    allocate(b(size(r)))
    do j = 1, size(b)
      b(j) = rank * 1000 + j
    end do
    ref = b
    call MPI_Alltoallw(b, rc, rd, rt, ref, rc, rd, rt, MPI_COMM_WORLD, ierr)
    call pcoll_alltoallw(MPI_IN_PLACE, rc, rd, rt, b, rc, rd, rt, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, maxval(abs(b - ref)) < 1d-9, 'pcoll_alltoallw in place')
    call MPI_Type_free(every2, ierr)
  end subroutine

  subroutine reduce_scatter_all()
    integer, parameter :: m = 3
    integer, asynchronous :: s(m * p), r(m)
    integer :: ref(m), inplace(m * p), counts(p), i, round
    type(pcoll_plan) :: plan
    counts = m
    do i = 1, m * p
      s(i) = rank * 100 + i
    end do
    call MPI_Reduce_scatter_block(s, ref, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    r = poison
    call pcoll_reduce_scatter_block(s, r, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_reduce_scatter_block')
    r = poison
    call pcoll_reduce_scatter(s, r, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_reduce_scatter')
    inplace = s
    call pcoll_reduce_scatter(MPI_IN_PLACE, inplace, counts, MPI_INTEGER, MPI_SUM, &
                              MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(inplace(1:m) == ref), 'pcoll_reduce_scatter in place')
    call pcoll_reduce_scatter_block_init(s, r, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                                         MPI_INFO_NULL, plan, ierr)
    call expect_success(ierr, 'pcoll_reduce_scatter_block_init')
    do round = 1, rounds
      s = s + 7
      r = poison
      call run_plan(plan, 'persistent reduce_scatter_block')
      call MPI_Reduce_scatter_block(s, ref, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      call expect(all(r == ref), 'persistent reduce_scatter_block')
    end do
    call plan%free(ierr)
  end subroutine

end program test_mpi
