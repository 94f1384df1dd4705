! The Fortran module pcoll with mpi_f08 handles: every collective, one-shot
! and persistent (plans restarted with new data, completed by wait and by a
! test loop), in place, large-count specifics, checked against MPI's own
! collective on the same input; receive buffers poisoned first; bad input on
! one rank (every rank must get an error).  alltoallw with a datatype per
! peer (plain, resized, vector; a subarray pencil transpose), zero counts.
! The neighbourhood all-to-alls (neighbor.inc) on a Cartesian grid and a
! distributed graph, with the large-count specifics too.
program test_f08
  use mpi_f08
  use pcoll
  implicit none
  integer, parameter :: n = 3, rounds = 3, poison = -7777
  integer :: rank, p, nerr, ierr, total
  type(MPI_Comm) :: topo
  type(MPI_Datatype) :: nb_every2
  type(MPI_Datatype), allocatable :: wst(:), wrt(:)
  nerr = 0

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)

  call alltoall_oneshot()
  call alltoall_persistent()
  call alltoallv_all()
  call reduce_scatter_all()
  call alltoallw_types()
  call alltoallw_inplace()
  call alltoallw_subarray()
  call bad_input()
  call alltoallw_bad()
  call neighbor_all()
  call neighbor_large()

  call MPI_Allreduce(nerr, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,i0)', 'test_f08: np ', p, ' failures ', total
  call MPI_Finalize()
  if (total /= 0) stop 1

contains

  include 'checks.inc'
  include 'neighbor.inc'

  ! The large-count specifics of the neighbourhood alltoall, alltoallv and
  ! alltoallw (MPI_COUNT_KIND counts; alltoallw's byte displacements are
  ! MPI_ADDRESS_KIND in both kinds) on the Cartesian grid: one-shot and a
  ! plan restarted with new input, against the MPI's calls.
  subroutine neighbor_large()
    integer, allocatable, asynchronous :: s(:), r(:)
    integer, allocatable :: ref(:), sc(:), sd(:), rc(:), rd(:), srcs(:), dsts(:)
    integer(MPI_COUNT_KIND), allocatable :: scc(:), rcc(:)
    integer(MPI_ADDRESS_KIND), allocatable :: sdc(:), rdc(:), sdb(:), rdb(:)
    integer(MPI_COUNT_KIND) :: nc
    integer :: slen, rlen, round, isz, form
    type(MPI_Datatype), allocatable :: ts(:), tr(:)
    type(pcoll_plan) :: plan
    character(len=9), parameter :: forms(3) = ['alltoall ', 'alltoallv', 'alltoallw']
    call cart_comm(srcs, dsts)
    call edge_layout(srcs, dsts, sc, sd, rc, rd, slen, rlen)
    allocate(s(max(slen, n * size(dsts))), r(max(rlen, n * size(srcs))))
    allocate(ref(size(r)), ts(size(dsts)), tr(size(srcs)))
    scc = sc; rcc = rc; sdc = sd; rdc = rd
    isz = storage_size(0) / 8
    sdb = sdc * isz
    rdb = rdc * isz
    ts = MPI_INTEGER
    tr = MPI_INTEGER
    nc = n
    ! form 1: alltoall, 2: alltoallv, 3: alltoallw (the layout of alltoallv)
    do form = 1, 3
      call fill_edges(s, 0)
      call neighbor_ref(form, s, sc, sd, rc, rd, ref)
      r = poison
      select case (form)
      case (1)
        call pcoll_neighbor_alltoall(s, nc, MPI_INTEGER, r, nc, MPI_INTEGER, topo, ierr)
      case (2)
        call pcoll_neighbor_alltoallv(s, scc, sdc, MPI_INTEGER, r, rcc, rdc, MPI_INTEGER, topo, &
                                      ierr)
      case default
        call pcoll_neighbor_alltoallw(s, scc, sdb, ts, r, rcc, rdb, tr, topo, ierr)
      end select
      call expect_result(ierr, all(r == ref), 'neighbourhood form (MPI_COUNT_KIND) ' // &
                         forms(form))
      select case (form)
      case (1)
        call pcoll_neighbor_alltoall_init(s, nc, MPI_INTEGER, r, nc, MPI_INTEGER, topo, &
                                          MPI_INFO_NULL, plan, ierr)
      case (2)
        call pcoll_neighbor_alltoallv_init(s, scc, sdc, MPI_INTEGER, r, rcc, rdc, MPI_INTEGER, &
                                           topo, MPI_INFO_NULL, plan, ierr)
      case default
        call pcoll_neighbor_alltoallw_init(s, scc, sdb, ts, r, rcc, rdb, tr, topo, &
                                           MPI_INFO_NULL, plan, ierr)
      end select
      call expect_success(ierr, 'neighbourhood plan (MPI_COUNT_KIND) ' // forms(form))
      do round = 1, rounds
        call fill_edges(s, round)
        r = poison
        call run_plan(plan, 'neighbourhood plan (MPI_COUNT_KIND) ' // forms(form))
        call neighbor_ref(form, s, sc, sd, rc, rd, ref)
        call expect(all(r == ref), 'persistent neighbourhood (MPI_COUNT_KIND) ' // forms(form))
      end do
      call plan%free()
    end do
    call MPI_Comm_free(topo)
  end subroutine

  ! The MPI's result of a neighbourhood form (1 alltoall of n items, else
  ! alltoallv) on s, in ref (poisoned first).
  subroutine neighbor_ref(form, s, sc, sd, rc, rd, ref)
    integer, intent(in) :: form, s(:), sc(:), sd(:), rc(:), rd(:)
    integer, intent(out) :: ref(:)
    ref = poison
    if (form == 1) then
      call MPI_Neighbor_alltoall(s, n, MPI_INTEGER, ref, n, MPI_INTEGER, topo)
    else
      call MPI_Neighbor_alltoallv(s, sc, sd, MPI_INTEGER, ref, rc, rd, MPI_INTEGER, topo)
    end if
  end subroutine

  ! The value rank `from` sends to rank `to` (item k, round r).
  integer function val(from, to, k, r)
    integer, intent(in) :: from, to, k, r
    val = from * 1000 + to * 10 + k + r * 100000
  end function

  subroutine alltoall_oneshot()
    integer :: s(n, 0:p-1), r(n, 0:p-1), ref(n, 0:p-1), big(n, 0:p-1), i, k
    integer(MPI_COUNT_KIND) :: nc
    do i = 0, p - 1
      do k = 1, n
        s(k, i) = val(rank, i, k, 0)
      end do
    end do
    call MPI_Alltoall(s, n, MPI_INTEGER, ref, n, MPI_INTEGER, MPI_COMM_WORLD)
    r = poison
    call pcoll_alltoall(s, n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_alltoall')
    ! without ierror (success: nothing happens)
    r = poison
    call pcoll_alltoall(s, n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD)
    call expect(all(r == ref), 'pcoll_alltoall without ierror')
    ! in place
    big = s
    call pcoll_alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, big, n, MPI_INTEGER, &
                        MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(big == ref), 'pcoll_alltoall in place')
    ! large-count specific
    nc = n
    r = poison
    call pcoll_alltoall(s, nc, MPI_INTEGER, r, nc, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_alltoall (MPI_COUNT_KIND)')
  end subroutine

  ! One plan per algorithm named in the info, started `rounds` times with
  ! new data each time; odd rounds complete with a test loop.
  subroutine alltoall_persistent()
    integer, asynchronous :: s(n, 0:p-1), r(n, 0:p-1)
    integer :: ref(n, 0:p-1), i, k, round, a
    type(pcoll_plan) :: plan
    type(MPI_Info) :: info
    logical :: done
    character(len=16), parameter :: algos(3) = [character(len=16) :: 'auto', 'pairwise', 'bruck_zerocopy']
    do a = 1, size(algos)
      call MPI_Info_create(info)
      call MPI_Info_set(info, 'pcoll_algorithm', trim(algos(a)))
      call pcoll_alltoall_init(s, n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, info, &
                               plan, ierr)
      call MPI_Info_free(info)
      call expect_success(ierr, 'pcoll_alltoall_init ' // trim(algos(a)))
      if (ierr /= PCOLL_SUCCESS) cycle
      if (a > 1) call expect(plan%algorithm() == trim(algos(a)), 'plan%algorithm() ' // &
                             plan%algorithm())
      do round = 1, rounds
        do i = 0, p - 1
          do k = 1, n
            s(k, i) = val(rank, i, k, round)
          end do
        end do
        r = poison
        call plan%start(ierr)
        call expect_success(ierr, 'plan%start')
        if (mod(round, 2) == 1) then
          done = .false.
          do while (.not. done)
            call plan%test(done, ierr)
            call expect_success(ierr, 'plan%test')
            if (ierr /= PCOLL_SUCCESS) exit
          end do
        else
          call pcoll_wait(plan, ierr)
          call expect_success(ierr, 'pcoll_wait')
        end if
        call MPI_Alltoall(s, n, MPI_INTEGER, ref, n, MPI_INTEGER, MPI_COMM_WORLD)
        call expect(all(r == ref), 'persistent alltoall ' // trim(algos(a)))
      end do
      ! misuse is reported, not fatal: wait on an inactive plan
      call plan%wait(ierr)
      call expect(ierr == PCOLL_ERR_STATE, 'wait on an inactive plan gives PCOLL_ERR_STATE')
      call plan%free(ierr)
      call expect_success(ierr, 'plan%free')
      call pcoll_plan_free(plan, ierr)
      call expect_success(ierr, 'free of a freed plan')
    end do
  end subroutine

  ! Rank i sends i+j+1 items to rank j (a differing layout on each side:
  ! blocks in reverse order, a gap of one item between them).
  subroutine alltoallv_all()
    integer, allocatable, asynchronous :: s(:), r(:)
    integer, allocatable :: ref(:), inplace(:)
    integer :: sc(0:p-1), sd(0:p-1), rc(0:p-1), rd(0:p-1), j, k, off, round, kind
    character(len=16), parameter :: kinds(2) = [character(len=16) :: '(integer)', '(MPI_COUNT_KIND)']
    integer(MPI_COUNT_KIND) :: scc(0:p-1), rcc(0:p-1)
    integer(MPI_ADDRESS_KIND) :: sdc(0:p-1), rdc(0:p-1)
    type(pcoll_plan) :: plan
    off = 0
    do j = p - 1, 0, -1
      sc(j) = rank + j + 1
      sd(j) = off
      off = off + sc(j) + 1
    end do
    allocate(s(off))
    off = 0
    do j = 0, p - 1
      rc(j) = j + rank + 1
      rd(j) = off
      off = off + rc(j) + 1
    end do
    allocate(r(off), ref(off), inplace(off))
    call fill_v(s, sc, sd, 0)
    ref = poison
    call MPI_Alltoallv(s, sc, sd, MPI_INTEGER, ref, rc, rd, MPI_INTEGER, MPI_COMM_WORLD)
    r = poison
    call pcoll_alltoallv(s, sc, sd, MPI_INTEGER, r, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_alltoallv')
    scc = sc; rcc = rc; sdc = sd; rdc = rd
    r = poison
    call pcoll_alltoallv(s, scc, sdc, MPI_INTEGER, r, rcc, rdc, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_alltoallv (MPI_COUNT_KIND)')
    ! in place: the receive layout serves both directions (symmetric counts)
    do j = 0, p - 1
      do k = 1, rc(j)
        inplace(rd(j) + k) = val(rank, j, k, 0)
      end do
    end do
    call pcoll_alltoallv(MPI_IN_PLACE, rc, rd, MPI_DATATYPE_NULL, inplace, rc, rd, MPI_INTEGER, &
                         MPI_COMM_WORLD, ierr)
    call expect_success(ierr, 'pcoll_alltoallv in place')
    do j = 0, p - 1
      do k = 1, rc(j)
        call expect(inplace(rd(j) + k) == val(j, rank, k, 0), 'pcoll_alltoallv in place result')
      end do
    end do
    ! persistent, both count kinds, restarted with new data
    do kind = 1, 2
      if (kind == 1) then
        call pcoll_alltoallv_init(s, sc, sd, MPI_INTEGER, r, rc, rd, MPI_INTEGER, &
                                  MPI_COMM_WORLD, MPI_INFO_NULL, plan, ierr)
      else
        call pcoll_alltoallv_init(s, scc, sdc, MPI_INTEGER, r, rcc, rdc, MPI_INTEGER, &
                                  MPI_COMM_WORLD, MPI_INFO_NULL, plan, ierr)
      end if
      call expect_success(ierr, 'pcoll_alltoallv_init ' // trim(kinds(kind)))
      if (ierr /= PCOLL_SUCCESS) cycle
      do round = 1, rounds
        call fill_v(s, sc, sd, round + 10 * kind)
        r = poison
        call run_plan(plan, 'alltoallv plan ' // trim(kinds(kind)))
        ref = poison
        call MPI_Alltoallv(s, sc, sd, MPI_INTEGER, ref, rc, rd, MPI_INTEGER, MPI_COMM_WORLD)
        call expect(all(r == ref), 'persistent alltoallv ' // trim(kinds(kind)))
      end do
      call plan%free()
    end do
  end subroutine

  ! A send buffer of a round: every item of every rank differs, whether it is
  ! sent or not (base 100 for reduce_scatter, 10000 for alltoallw).
  subroutine fill(s, round, base)
    integer, intent(out) :: s(:)
    integer, intent(in) :: round, base
    integer :: i
    do i = 1, size(s)
      s(i) = rank * base + i + round * base * 100
    end do
  end subroutine

  ! alltoallv's send buffer of a round: poison in the gaps.
  subroutine fill_v(s, sc, sd, round)
    integer, intent(out) :: s(:)
    integer, intent(in) :: sc(0:), sd(0:), round
    integer :: j, k
    s = poison
    do j = 0, p - 1
      do k = 1, sc(j)
        s(sd(j) + k) = val(rank, j, k, round)
      end do
    end do
  end subroutine

  ! Sums of integers (exact): the block form and the varying form, one-shot,
  ! in place and persistent.
  subroutine reduce_scatter_all()
    integer, parameter :: m = 4
    integer, allocatable, asynchronous :: s(:), r(:)
    integer, allocatable :: ref(:), inplace(:)
    integer :: counts(0:p-1), i, round, total
    integer(MPI_COUNT_KIND) :: countsc(0:p-1), mc
    type(pcoll_plan) :: plan
    ! block form
    allocate(s(m * p), r(m), ref(m), inplace(m * p))
    call fill(s, 0, 100)
    call MPI_Reduce_scatter_block(s, ref, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    r = poison
    call pcoll_reduce_scatter_block(s, r, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_reduce_scatter_block')
    inplace = s
    call pcoll_reduce_scatter_block(MPI_IN_PLACE, inplace, m, MPI_INTEGER, MPI_SUM, &
                                    MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(inplace(1:m) == ref), 'pcoll_reduce_scatter_block in place')
    mc = m
    call pcoll_reduce_scatter_block_init(s, r, mc, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                                         MPI_INFO_NULL, plan, ierr)
    call expect_success(ierr, 'pcoll_reduce_scatter_block_init (MPI_COUNT_KIND)')
    do round = 1, rounds
      call fill(s, round, 100)
      r = poison
      call run_plan(plan, 'reduce_scatter_block plan')
      call MPI_Reduce_scatter_block(s, ref, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
      call expect(all(r == ref), 'persistent reduce_scatter_block')
    end do
    call plan%free()
    deallocate(s, r, ref, inplace)
    ! varying form: rank i gets i+1 elements (rank 0 of a single-rank world: 1)
    do i = 0, p - 1
      counts(i) = mod(i, 3)
    end do
    counts(p - 1) = counts(p - 1) + 1
    total = sum(counts)
    allocate(s(total), r(max(1, counts(rank))), ref(max(1, counts(rank))), inplace(total))
    call fill(s, 0, 100)
    ref = poison
    call MPI_Reduce_scatter(s, ref, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    r = poison
    call pcoll_reduce_scatter(s, r, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_reduce_scatter')
    countsc = counts
    r = poison
    call pcoll_reduce_scatter(s, r, countsc, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_reduce_scatter (MPI_COUNT_KIND)')
    inplace = s
    call pcoll_reduce_scatter(MPI_IN_PLACE, inplace, counts, MPI_INTEGER, MPI_SUM, &
                              MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(inplace(1:counts(rank)) == ref(1:counts(rank))), &
                       'pcoll_reduce_scatter in place')
    call pcoll_reduce_scatter_init(s, r, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                                   MPI_INFO_NULL, plan, ierr)
    call expect_success(ierr, 'pcoll_reduce_scatter_init')
    do round = 1, rounds
      call fill(s, round, 100)
      r = poison
      call pcoll_start(plan)
      call pcoll_wait(plan)
      ref = poison
      call MPI_Reduce_scatter(s, ref, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
      call expect(all(r(1:counts(rank)) == ref(1:counts(rank))), 'persistent reduce_scatter')
    end do
    call pcoll_plan_free(plan)
  end subroutine

  ! alltoallw with a type per peer on both sides: rank i sends
  ! m(i,j) = mod(i + 2j, 4) integers to rank j (zero counts among them), as
  ! MPI_INTEGERs to even ranks and as every other integer (a resized type)
  ! to odd ones; rank j receives them as MPI_INTEGERs from even ranks and as
  ! one vector of stride 3 from odd ones.  Byte displacements, the send
  ! blocks in reverse order, gaps between blocks.  One-shot and persistent
  ! (algorithms named in the info, restarted with new data), both count
  ! kinds.
  subroutine alltoallw_types()
    integer, allocatable, asynchronous :: s(:), r(:)
    integer, allocatable :: ref(:)
    integer :: sc(0:p-1), sd(0:p-1), rc(0:p-1), rd(0:p-1), j, m, off, round, a, isz
    logical :: derived(0:p-1)
    type(MPI_Datatype) :: st(0:p-1), rt(0:p-1), every2
    integer(MPI_COUNT_KIND) :: scc(0:p-1), rcc(0:p-1)
    integer(MPI_ADDRESS_KIND) :: sdc(0:p-1), rdc(0:p-1)
    type(pcoll_plan) :: plan
    type(MPI_Info) :: info
    character(len=16), parameter :: algos(4) = [character(len=16) :: 'auto', 'pairwise', &
                                                'scattered', 'linear']
    isz = storage_size(0) / 8
    every2 = every(2)
    off = 0
    do j = p - 1, 0, -1
      sc(j) = mod(rank + 2 * j, 4)
      sd(j) = off * isz
      if (mod(j, 2) == 0) then
        st(j) = MPI_INTEGER
        off = off + sc(j) + 1
      else
        st(j) = every2
        off = off + 2 * sc(j) + 1
      end if
    end do
    allocate(s(off))
    off = 0
    derived = .false.
    do j = 0, p - 1
      m = mod(j + 2 * rank, 4)
      rd(j) = off * isz
      if (mod(j, 2) == 0 .or. m == 0) then
        rt(j) = MPI_INTEGER
        rc(j) = m
        off = off + m + 1
      else
        call MPI_Type_vector(m, 1, 3, MPI_INTEGER, rt(j))
        call MPI_Type_commit(rt(j))
        derived(j) = .true.
        rc(j) = 1
        off = off + 3 * m
      end if
    end do
    allocate(r(off), ref(off))
    scc = sc; rcc = rc; sdc = sd; rdc = rd
    call fill(s, 0, 10000)
    ref = poison
    call MPI_Alltoallw(s, sc, sd, st, ref, rc, rd, rt, MPI_COMM_WORLD)
    r = poison
    call pcoll_alltoallw(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(r == ref), 'pcoll_alltoallw')
    r = poison
    call pcoll_alltoallw(s, scc, sdc, st, r, rcc, rdc, rt, MPI_COMM_WORLD)
    call expect(all(r == ref), 'pcoll_alltoallw (MPI_COUNT_KIND) result')
    do a = 1, size(algos)
      call MPI_Info_create(info)
      call MPI_Info_set(info, 'pcoll_algorithm', trim(algos(a)))
      if (mod(a, 2) == 1) then
        call pcoll_alltoallw_init(s, sc, sd, st, r, rc, rd, rt, MPI_COMM_WORLD, info, plan, ierr)
      else
        call pcoll_alltoallw_init(s, scc, sdc, st, r, rcc, rdc, rt, MPI_COMM_WORLD, info, plan, &
                                  ierr)
      end if
      call MPI_Info_free(info)
      call expect_success(ierr, 'pcoll_alltoallw_init ' // trim(algos(a)))
      if (ierr /= PCOLL_SUCCESS) cycle
      if (a > 1) call expect(plan%algorithm() == trim(algos(a)), 'alltoallw plan%algorithm() ' &
                             // plan%algorithm())
      do round = 1, 2
        call fill(s, round + 10 * a, 10000)
        r = poison
        call run_plan(plan, 'alltoallw plan ' // trim(algos(a)))
        ref = poison
        call MPI_Alltoallw(s, sc, sd, st, ref, rc, rd, rt, MPI_COMM_WORLD)
        call expect(all(r == ref), 'persistent alltoallw ' // trim(algos(a)))
      end do
      call plan%free()
    end do
    call MPI_Type_free(every2)
    do j = 0, p - 1
      if (derived(j)) call MPI_Type_free(rt(j))
    end do
  end subroutine

  ! MPI_INTEGER resized to the extent of k integers (every k-th one), committed.
  type(MPI_Datatype) function every(k)
    integer, intent(in) :: k
    call MPI_Type_create_resized(MPI_INTEGER, 0_MPI_ADDRESS_KIND, &
                                 int(k * storage_size(0) / 8, MPI_ADDRESS_KIND), every)
    call MPI_Type_commit(every)
  end function

  ! alltoallw in place: the receive arrays serve both directions (rank i and
  ! j exchange mod(i + j, 3) + 1 integers, as every third integer where the
  ! peer is odd).
  subroutine alltoallw_inplace()
    integer, allocatable :: b(:), ref(:)
    integer :: c(0:p-1), d(0:p-1), j, off, isz
    type(MPI_Datatype) :: t(0:p-1), every3
    isz = storage_size(0) / 8
    every3 = every(3)
    off = 0
    do j = 0, p - 1
      c(j) = mod(rank + j, 3) + 1
      d(j) = off * isz
      t(j) = MPI_INTEGER
      if (mod(j, 2) == 1) t(j) = every3
      off = off + 3 * c(j)
    end do
    allocate(b(off), ref(off))
    call fill(b, 5, 10000)
    ref = b
    call MPI_Alltoallw(MPI_IN_PLACE, c, d, t, ref, c, d, t, MPI_COMM_WORLD)
    call pcoll_alltoallw(MPI_IN_PLACE, c, d, t, b, c, d, t, MPI_COMM_WORLD, ierr)
    call expect_result(ierr, all(b == ref), 'pcoll_alltoallw in place')
    call MPI_Type_free(every3)
  end subroutine

  ! A pencil transpose as FFT codes write it: a(nx, ny_rank), x split over
  ! the ranks in chunks of 1 or 2, goes to b(cx_rank, ny), y gathered in
  ! chunks of 2 to 4; a subarray type per peer on each side, every count 1
  ! and every displacement 0.  One-shot and persistent, restarted with new
  ! data; checked against MPI_Alltoallw and the closed form.
  subroutine alltoallw_subarray()
    integer, allocatable, asynchronous :: a(:, :), b(:, :)
    integer, allocatable :: ref(:, :)
    integer :: cx(0:p-1), xo(0:p-1), cy(0:p-1), yo(0:p-1), ones(0:p-1), zeros(0:p-1)
    integer :: nx, ny, mx, my, i, j, x, y, round, initrc
    type(MPI_Datatype) :: st(0:p-1), rt(0:p-1)
    type(pcoll_plan) :: plan
    logical :: ok
    nx = 0
    ny = 0
    do j = 0, p - 1
      cx(j) = 1 + mod(j, 2)
      cy(j) = 2 + mod(j, 3)
      xo(j) = nx
      yo(j) = ny
      nx = nx + cx(j)
      ny = ny + cy(j)
    end do
    mx = 1 + mod(rank, 2)
    my = 2 + mod(rank, 3)
    ones = 1
    zeros = 0
    allocate(a(nx, my), b(mx, ny), ref(mx, ny))
    do j = 0, p - 1
      call MPI_Type_create_subarray(2, [nx, my], [cx(j), my], [xo(j), 0], &
                                    MPI_ORDER_FORTRAN, MPI_INTEGER, st(j))
      call MPI_Type_create_subarray(2, [mx, ny], [mx, cy(j)], [0, yo(j)], &
                                    MPI_ORDER_FORTRAN, MPI_INTEGER, rt(j))
      call MPI_Type_commit(st(j))
      call MPI_Type_commit(rt(j))
    end do
    call pcoll_alltoallw_init(a, ones, zeros, st, b, ones, zeros, rt, MPI_COMM_WORLD, &
                              MPI_INFO_NULL, plan, initrc)
    call expect_success(initrc, 'pcoll_alltoallw_init (subarrays)')
    do round = 0, rounds
      do y = 1, my
        do x = 1, nx
          a(x, y) = pencil(rank, x, y, round)
        end do
      end do
      b = poison
      if (round == 0) then
        call pcoll_alltoallw(a, ones, zeros, st, b, ones, zeros, rt, MPI_COMM_WORLD, ierr)
        call expect_success(ierr, 'pcoll_alltoallw (subarrays)')
      else if (initrc == PCOLL_SUCCESS) then
        call plan%start()
        call plan%wait()
      end if
      ref = poison
      call MPI_Alltoallw(a, ones, zeros, st, ref, ones, zeros, rt, MPI_COMM_WORLD)
      call expect(all(b == ref), 'pcoll_alltoallw (subarrays) against MPI_Alltoallw')
      ok = .true.
      do i = 0, p - 1
        do y = 1, cy(i)
          do x = 1, mx
            ok = ok .and. b(x, yo(i) + y) == pencil(i, xo(rank) + x, y, round)
          end do
        end do
      end do
      call expect(ok, 'pcoll_alltoallw (subarrays): the transpose')
    end do
    call plan%free()
    do j = 0, p - 1
      call MPI_Type_free(st(j))
      call MPI_Type_free(rt(j))
    end do
  end subroutine

  ! Element (x, y) of rank i's pencil in a round.
  integer function pencil(i, x, y, round)
    integer, intent(in) :: i, x, y, round
    pencil = i * 10000 + x * 100 + y + round * 1000000
  end function

  ! alltoallw_init with bad input on the last rank only (a receive type
  ! MPI_DATATYPE_NULL; a strided receive buffer): every rank fails the same
  ! way, and no plan is made.
  subroutine alltoallw_bad()
    integer, asynchronous :: s(n * p), r(2 * n * p)
    integer :: c(0:p-1), d(0:p-1), j, isz
    type(MPI_Datatype) :: t(0:p-1), rt(0:p-1)
    type(pcoll_plan) :: plan
    isz = storage_size(0) / 8
    s = 1
    do j = 0, p - 1
      c(j) = n
      d(j) = j * n * isz
    end do
    t = MPI_INTEGER
    rt = MPI_INTEGER
    if (rank == p - 1) rt(0) = MPI_DATATYPE_NULL
    call pcoll_alltoallw_init(s, c, d, t, r, c, d, rt, MPI_COMM_WORLD, MPI_INFO_NULL, plan, ierr)
    call expect(ierr == PCOLL_ERR_ARG, 'alltoallw: a null type on one rank: PCOLL_ERR_ARG on &
                &every rank, got ' // pcoll_err_name(ierr))
    call expect(plan%algorithm() == '', 'alltoallw: no plan after a failed init')
    if (rank == p - 1) then
      call pcoll_alltoallw_init(s, c, d, t, r(1::2), c, d, t, MPI_COMM_WORLD, MPI_INFO_NULL, &
                                plan, ierr)
    else
      call pcoll_alltoallw_init(s, c, d, t, r, c, d, t, MPI_COMM_WORLD, MPI_INFO_NULL, plan, &
                                ierr)
    end if
    call expect(ierr == PCOLL_ERR_ARG, 'alltoallw: a strided buffer on one rank: PCOLL_ERR_ARG &
                &on every rank, got ' // pcoll_err_name(ierr))
    call expect(plan%algorithm() == '', 'alltoallw: no plan after a failed init (strided)')
  end subroutine

  ! A negative count on the last rank only: every rank's init fails, the
  ! same way, and no plan is made.
  subroutine bad_input()
    integer, asynchronous :: s(n * p), r(n * p)
    integer :: cnt, strided(2 * n * p)
    type(pcoll_plan) :: plan
    s = 1
    cnt = n
    if (rank == p - 1) cnt = -1
    call pcoll_alltoall_init(s, cnt, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, &
                             MPI_INFO_NULL, plan, ierr)
    call expect(ierr == PCOLL_ERR_ARG, 'bad count on one rank: PCOLL_ERR_ARG on every rank, got ' &
                // pcoll_err_name(ierr))
    call expect(plan%algorithm() == '', 'no plan after a failed init')
    ! a strided section cannot be bound: refused locally by the one-shot call
    strided = 0
    if (p == 1) then
      call pcoll_alltoall(strided(1::2), n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
      call expect(ierr == PCOLL_ERR_ARG, 'strided buffer: PCOLL_ERR_ARG')
    end if
    call expect(len(pcoll_strerror(PCOLL_ERR_ARG)) > 0, 'pcoll_strerror')
  end subroutine

end program test_f08
