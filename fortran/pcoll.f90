! pcoll.f90 -- the Fortran module pcoll: pcoll's collectives for Fortran.
!
!   use pcoll
!   call pcoll_alltoall(sendbuf, n, MPI_INTEGER, recvbuf, n, MPI_INTEGER, comm, ierror)
!   call pcoll_alltoall_init(sendbuf, n, MPI_REAL8, recvbuf, n, MPI_REAL8, comm, &
!                            MPI_INFO_NULL, plan, ierror)
!   call plan%start();  call plan%wait();  call plan%free()
!
! The C names of include/pcoll.h as subroutines with MPI's argument order and
! a trailing optional ierror (as in mpi_f08).  Every collective is a generic
! name with three specifics: mpi_f08 handles (type(MPI_Comm), type(MPI_Datatype),
! type(MPI_Op), type(MPI_Info)) with default integer counts, the same with
! integer(MPI_COUNT_KIND) counts (and integer(MPI_ADDRESS_KIND) displacements:
! pcoll's large-count _c forms), and integer handles for codes that `use mpi`
! (or include mpif.h); pcoll_alltoallw(_init) takes an array of datatypes
! per direction (type(MPI_Datatype) or integer, one per peer) and byte
! displacements, as MPI_Alltoallw.  pcoll_neighbor_alltoall(v/w)(_init) take
! MPI_Neighbor_alltoall(v/w)'s arguments on a communicator with a topology:
! one array entry per edge (in-degree receive entries, out-degree send
! entries), alltoallw's byte displacements integer(MPI_ADDRESS_KIND) in every
! specific, no MPI_IN_PLACE.  Buffers are choice arguments, type(*),
! dimension(..), contiguous (a strided array section is refused with
! PCOLL_ERR_ARG; on *_init every rank then returns an error); MPI_IN_PLACE
! (of mpi_f08 or of mpi) is recognised as in MPI.  Buffers of *_init are
! ASYNCHRONOUS: they stay bound to the plan until it is freed, exactly as for
! MPI's persistent requests.
!
! ierror receives pcoll's status: PCOLL_SUCCESS (0) or a negative PCOLL_ERR_*
! (pcoll_strerror and pcoll_last_error explain it).  Without ierror a failure
! is fatal, as under MPI's default error handler: the message goes to
! standard error and MPI_Abort ends the job.
!
! The module is written over ISO_C_BINDING; fortran/pcoll_f.c turns the
! Fortran handles into C ones (MPI_*_f2c) and calls the public C functions.
! The file is preprocessed: each collective's specific is written once, in
! pcoll_specifics.inc, included once per kind of handle and count (a new
! collective goes there, its C interfaces here or in pcoll_c_counts.inc); the
! all-to-alls' in pcoll_a2a_specifics.inc, once for both of their
! collectives (of the communicator, of its topology).

! PCOLL_PASTE(a,b): the name ab.  gfortran's preprocessor runs in traditional
! mode, where an empty comment pastes and ## does not.
#ifdef __GFORTRAN__
#define PCOLL_PASTE(a,b) a/**/b
#else
#define PCOLL_PASTE(a,b) a ## b
#endif

module pcoll
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op, MPI_Info, MPI_COUNT_KIND, &
                     MPI_ADDRESS_KIND, MPI_COMM_WORLD, MPI_Abort, MPI_IN_PLACE
  use mpi, only: MPI_IN_PLACE_INT => MPI_IN_PLACE
  implicit none
  private

  ! Status codes (include/pcoll.h PCOLL_STATUS_MAP).
  integer, parameter, public :: PCOLL_SUCCESS = 0, PCOLL_ERR_ARG = -1, &
    PCOLL_ERR_NOMEM = -2, PCOLL_ERR_MPI = -3, PCOLL_ERR_UNSUPPORTED = -4, &
    PCOLL_ERR_STATE = -5, PCOLL_ERR_MISMATCH = -6, PCOLL_ERR_INTERNAL = -7

  ! A persistent plan (pcoll_plan_t *): made by the *_init calls, run with
  ! start and test or wait as often as wanted, freed with free (collective
  ! over the communicator for the node-aware algorithms, as pcoll.h says).
  type, public :: pcoll_plan
    type(c_ptr) :: ptr = c_null_ptr
  contains
    procedure :: start => plan_start
    procedure :: test => plan_test
    procedure :: wait => plan_wait
    procedure :: free => plan_free
    procedure :: algorithm => plan_algorithm
  end type pcoll_plan

  public :: pcoll_start, pcoll_test, pcoll_wait, pcoll_plan_free, pcoll_plan_algorithm
  public :: pcoll_strerror, pcoll_err_name, pcoll_last_error
  public :: pcoll_mem_current, pcoll_mem_peak, pcoll_mem_reset_peak
  public :: pcoll_alltoall, pcoll_alltoall_init, pcoll_alltoall_multi_init
  public :: pcoll_alltoallv, pcoll_alltoallv_init, pcoll_alltoallv_inplace_init
  public :: pcoll_alltoallw, pcoll_alltoallw_init
  public :: pcoll_neighbor_alltoall, pcoll_neighbor_alltoall_init
  public :: pcoll_neighbor_alltoallv, pcoll_neighbor_alltoallv_init
  public :: pcoll_neighbor_alltoallv_inplace_init
  public :: pcoll_neighbor_alltoallw, pcoll_neighbor_alltoallw_init
  public :: pcoll_reduce_scatter_block, pcoll_reduce_scatter_block_init
  public :: pcoll_reduce_scatter, pcoll_reduce_scatter_init

  interface pcoll_start
    module procedure plan_start
  end interface
  interface pcoll_test
    module procedure plan_test
  end interface
  interface pcoll_wait
    module procedure plan_wait
  end interface
  interface pcoll_plan_free
    module procedure plan_free
  end interface
  interface pcoll_plan_algorithm
    module procedure plan_algorithm
  end interface
  interface pcoll_alltoall
    module procedure a2a_f08, a2a_f08_c, a2a_int
  end interface
  interface pcoll_alltoall_init
    module procedure a2a_init_f08, a2a_init_f08_c, a2a_init_int
  end interface
  interface pcoll_alltoall_multi_init
    module procedure a2a_multi_init_f08, a2a_multi_init_int
  end interface
  interface pcoll_alltoallv
    module procedure a2av_f08, a2av_f08_c, a2av_int
  end interface
  interface pcoll_alltoallv_init
    module procedure a2av_init_f08, a2av_init_f08_c, a2av_init_int
  end interface
  interface pcoll_alltoallv_inplace_init
    module procedure a2av_inplace_init_f08, a2av_inplace_init_int
  end interface
  interface pcoll_neighbor_alltoallv_inplace_init
    module procedure nbr_a2av_inplace_init_f08, nbr_a2av_inplace_init_int
  end interface
  interface pcoll_alltoallw
    module procedure a2aw_f08, a2aw_f08_c, a2aw_int
  end interface
  interface pcoll_alltoallw_init
    module procedure a2aw_init_f08, a2aw_init_f08_c, a2aw_init_int
  end interface
  interface pcoll_neighbor_alltoall
    module procedure nbr_a2a_f08, nbr_a2a_f08_c, nbr_a2a_int
  end interface
  interface pcoll_neighbor_alltoall_init
    module procedure nbr_a2a_init_f08, nbr_a2a_init_f08_c, nbr_a2a_init_int
  end interface
  interface pcoll_neighbor_alltoallv
    module procedure nbr_a2av_f08, nbr_a2av_f08_c, nbr_a2av_int
  end interface
  interface pcoll_neighbor_alltoallv_init
    module procedure nbr_a2av_init_f08, nbr_a2av_init_f08_c, nbr_a2av_init_int
  end interface
  interface pcoll_neighbor_alltoallw
    module procedure nbr_a2aw_f08, nbr_a2aw_f08_c, nbr_a2aw_int
  end interface
  interface pcoll_neighbor_alltoallw_init
    module procedure nbr_a2aw_init_f08, nbr_a2aw_init_f08_c, nbr_a2aw_init_int
  end interface
  interface pcoll_reduce_scatter_block
    module procedure rsb_f08, rsb_f08_c, rsb_int
  end interface
  interface pcoll_reduce_scatter_block_init
    module procedure rsb_init_f08, rsb_init_f08_c, rsb_init_int
  end interface
  interface pcoll_reduce_scatter
    module procedure rs_f08, rs_f08_c, rs_int
  end interface
  interface pcoll_reduce_scatter_init
    module procedure rs_init_f08, rs_init_f08_c, rs_init_int
  end interface

  ! The C layer (fortran/pcoll_f.c) and the public C functions used as they are.
  interface
    ! nbr: 0 the all-to-all of the communicator, 1 its neighbourhood form
    ! (pcoll_f.c); likewise in pcoll_c_counts.inc.
    integer(c_int) function c_alltoall(nbr, s, ip, sc, st, r, rc, rt, comm) &
        bind(C, name="pcoll_f_alltoall")
      import :: c_int, c_int64_t
      integer(c_int), intent(in) :: nbr
      type(*), dimension(..), intent(in) :: s
      type(*), intent(in) :: ip
      type(*), dimension(..) :: r
      integer(c_int64_t), intent(in) :: sc, rc
      integer(c_int), intent(in) :: st, rt, comm
    end function
    integer(c_int) function c_alltoall_init(nbr, s, ip, sc, st, r, rc, rt, comm, info, plan) &
        bind(C, name="pcoll_f_alltoall_init")
      import :: c_int, c_ptr, c_int64_t
      integer(c_int), intent(in) :: nbr
      type(*), dimension(..), intent(in), asynchronous :: s
      type(*), intent(in) :: ip
      type(*), dimension(..), asynchronous :: r
      integer(c_int64_t), intent(in) :: sc, rc
      integer(c_int), intent(in) :: st, rt, comm, info
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function c_alltoall_multi_init(s, ip, sc, st, r, rc, rt, row, col, info, &
        plan) bind(C, name="pcoll_f_alltoall_multi_init")
      import :: c_int, c_ptr
      type(*), dimension(..), intent(in), asynchronous :: s
      type(*), intent(in) :: ip
      type(*), dimension(..), asynchronous :: r
      integer(c_int), intent(in) :: sc, st, rc, rt, row, col, info
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function c_alltoallv_inplace_init(nbr, b, sc, sd, rc, rd, t, comm, info, &
                                                     plan) &
        bind(C, name="pcoll_f_alltoallv_inplace_init")
      import :: c_int, c_ptr
      integer(c_int), intent(in) :: nbr
      type(*), dimension(..), asynchronous :: b
      integer(c_int), intent(in) :: sc(*), sd(*), rc(*), rd(*)
      integer(c_int), intent(in) :: t, comm, info
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function c_reduce_scatter_block(s, ip, r, rc, t, op, comm) &
        bind(C, name="pcoll_f_reduce_scatter_block")
      import :: c_int, c_int64_t
      type(*), dimension(..), intent(in) :: s
      type(*), intent(in) :: ip
      type(*), dimension(..) :: r
      integer(c_int64_t), intent(in) :: rc
      integer(c_int), intent(in) :: t, op, comm
    end function
    integer(c_int) function c_reduce_scatter_block_init(s, ip, r, rc, t, op, comm, info, plan) &
        bind(C, name="pcoll_f_reduce_scatter_block_init")
      import :: c_int, c_ptr, c_int64_t
      type(*), dimension(..), intent(in), asynchronous :: s
      type(*), intent(in) :: ip
      type(*), dimension(..), asynchronous :: r
      integer(c_int64_t), intent(in) :: rc
      integer(c_int), intent(in) :: t, op, comm, info
      type(c_ptr), intent(out) :: plan
    end function
    ! The C functions that take count arrays: int counts, then MPI_Count
    ! counts and MPI_Aint displacements (pcoll_c_counts.inc).
#define C_V(name) name
#define C_SUFFIX ""
#define C_COUNT integer(c_int)
#define C_DISPL integer(c_int)
#include "pcoll_c_counts.inc"
#define C_V(name) PCOLL_PASTE(name,_c)
#define C_SUFFIX "_c"
#define C_COUNT integer(c_int64_t)
#define C_DISPL integer(c_intptr_t)
#include "pcoll_c_counts.inc"

    integer(c_int) function c_test(plan, flag) bind(C, name="pcoll_test")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), intent(out) :: flag
    end function
    integer(c_int) function c_plan_free(plan) bind(C, name="pcoll_plan_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
    end function
    type(c_ptr) function c_plan_algorithm(plan) bind(C, name="pcoll_plan_algorithm")
      import :: c_ptr
      type(c_ptr), value :: plan
    end function
    type(c_ptr) function c_last_error() bind(C, name="pcoll_last_error")
      import :: c_ptr
    end function
    integer(c_long_long) function pcoll_mem_current() bind(C, name="pcoll_mem_current")
      import :: c_long_long
    end function
    integer(c_long_long) function pcoll_mem_peak() bind(C, name="pcoll_mem_peak")
      import :: c_long_long
    end function
    subroutine pcoll_mem_reset_peak() bind(C, name="pcoll_mem_reset_peak")
    end subroutine
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface
  ! C functions of one signature: an interface each, named by a declaration.
  abstract interface
    integer(c_int) function plan_call(plan) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function
    type(c_ptr) function code_string(rc) bind(C)
      import :: c_int, c_ptr
      integer(c_int), value :: rc
    end function
  end interface
  procedure(plan_call), bind(C, name="pcoll_start") :: c_start
  procedure(plan_call), bind(C, name="pcoll_wait") :: c_wait
  procedure(code_string), bind(C, name="pcoll_strerror") :: c_strerror
  procedure(code_string), bind(C, name="pcoll_err_name") :: c_err_name

contains

  ! ---- status and strings ---------------------------------------------------------------

  ! A C string as a Fortran string.
  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! The message for a status code.
  function pcoll_strerror(rc) result(s)
    integer, intent(in) :: rc
    character(len=:), allocatable :: s
    s = c_string(c_strerror(int(rc, c_int)))
  end function

  ! The code's name without prefix, e.g. "ERR_ARG".
  function pcoll_err_name(rc) result(s)
    integer, intent(in) :: rc
    character(len=:), allocatable :: s
    s = c_string(c_err_name(int(rc, c_int)))
  end function

  ! What explains the calling thread's last error ("" if none).
  function pcoll_last_error() result(s)
    character(len=:), allocatable :: s
    s = c_string(c_last_error())
  end function

  ! ierror gets rc; without ierror a failure ends the job (MPI's default
  ! error handler does the same), after its message on standard error.
  subroutine finish(rc, what, ierror)
    integer(c_int), intent(in) :: rc
    character(len=*), intent(in) :: what
    integer, optional, intent(out) :: ierror
    if (present(ierror)) then
      ierror = int(rc)
    else if (rc /= PCOLL_SUCCESS) then
      write (error_unit, '(a)') 'pcoll: ' // what // ': ' // pcoll_err_name(int(rc)) // &
        ': ' // pcoll_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine

  ! ---- plans ----------------------------------------------------------------------------

  ! Begin one run of the plan (non-blocking).
  subroutine plan_start(plan, ierror)
    class(pcoll_plan), intent(inout) :: plan
    integer, optional, intent(out) :: ierror
    call finish(c_start(plan%ptr), 'pcoll_start', ierror)
  end subroutine

  ! flag = .true. once the run is complete.
  subroutine plan_test(plan, flag, ierror)
    class(pcoll_plan), intent(inout) :: plan
    logical, intent(out) :: flag
    integer, optional, intent(out) :: ierror
    integer(c_int) :: f
    f = 0
    call finish(c_test(plan%ptr, f), 'pcoll_test', ierror)
    flag = f /= 0
  end subroutine

  ! Complete the run.
  subroutine plan_wait(plan, ierror)
    class(pcoll_plan), intent(inout) :: plan
    integer, optional, intent(out) :: ierror
    call finish(c_wait(plan%ptr), 'pcoll_wait', ierror)
  end subroutine

  ! Free the plan (a freed or never made plan: nothing to do).
  subroutine plan_free(plan, ierror)
    class(pcoll_plan), intent(inout) :: plan
    integer, optional, intent(out) :: ierror
    call finish(c_plan_free(plan%ptr), 'pcoll_plan_free', ierror)
  end subroutine

  ! The name of the algorithm the plan runs ("" for no plan).
  function plan_algorithm(plan) result(s)
    class(pcoll_plan), intent(in) :: plan
    character(len=:), allocatable :: s
    s = c_string(c_plan_algorithm(plan%ptr))
  end function

  ! ---- the collectives: one specific per kind of handle and count -----------------------
  ! Each written once, in fortran/pcoll_specifics.inc (its header lists the
  ! macros), instantiated here for mpi_f08 handles with default integer
  ! counts, mpi_f08 handles with large counts, and integer handles (use mpi).

#define SPECIFIC(name) PCOLL_PASTE(name,_f08)
#define HANDLE(T) type(T)
#define VAL(h) h%MPI_VAL
#define IN_PLACE MPI_IN_PLACE
#define COUNT integer
#define DISPL integer
#define C_V(name) name
#include "pcoll_specifics.inc"

#define SPECIFIC(name) PCOLL_PASTE(name,_f08_c)
#define HANDLE(T) type(T)
#define VAL(h) h%MPI_VAL
#define IN_PLACE MPI_IN_PLACE
#define COUNT integer(MPI_COUNT_KIND)
#define DISPL integer(MPI_ADDRESS_KIND)
#define C_V(name) PCOLL_PASTE(name,_c)
#define LARGE
#include "pcoll_specifics.inc"

#define SPECIFIC(name) PCOLL_PASTE(name,_int)
#define HANDLE(T) integer
#define VAL(h) h
#define IN_PLACE MPI_IN_PLACE_INT
#define COUNT integer
#define DISPL integer
#define C_V(name) name
#include "pcoll_specifics.inc"

end module pcoll
