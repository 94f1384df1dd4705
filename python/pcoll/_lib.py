"""Loading libpcoll and declaring its C functions (ctypes; no compiled extension).

The library is found, in this order, at $PCOLL_LIBRARY (a path to libpcoll.so:
what `make test` uses, pointing at the build tree), next to this file (the
copy that `pip install .` ships inside the package), then by the system's
loader (libpcoll.so.0 on the library path).  It must be built against the MPI
that mpi4py runs on: mpi4py is imported first, so libpcoll's MPI symbols bind
to the MPI library already loaded.
"""
import ctypes
import ctypes.util
import os

from mpi4py import MPI

_HERE = os.path.dirname(os.path.abspath(__file__))


def _handle_type(cls):
    # MPI handles are ints in MPICH's ABI and pointers in Open MPI's.
    return ctypes.c_int if MPI._sizeof(cls) == ctypes.sizeof(ctypes.c_int) else ctypes.c_void_p


def _int_type(datatype):
    return {4: ctypes.c_int32, 8: ctypes.c_int64}[datatype.Get_size()]


Comm = _handle_type(MPI.Comm)
Datatype = _handle_type(MPI.Datatype)
Op = _handle_type(MPI.Op)
Info = _handle_type(MPI.Info)
Count = _int_type(MPI.COUNT)
Aint = _int_type(MPI.AINT)
PlanPtr = ctypes.c_void_p


def handle(obj, ctype):
    """The C handle of an mpi4py object, as ctype (MPICH's handles are
    unsigned bit patterns; c_int takes them as the signed int they are)."""
    value = MPI._handleof(obj)
    if ctype is ctypes.c_int and value >= 2**31:
        value -= 2**32
    return ctype(value)


def _candidates():
    env = os.environ.get("PCOLL_LIBRARY")
    if env:
        return [env]
    names = [os.path.join(_HERE, "libpcoll.so")]
    found = ctypes.util.find_library("pcoll")
    if found:
        names.append(found)
    return names


def _load():
    errors = []
    for name in _candidates():
        try:
            return ctypes.CDLL(name), name
        except OSError as exc:
            errors.append("%s: %s" % (name, exc))
    raise ImportError("pcoll: cannot load libpcoll (set PCOLL_LIBRARY to its path): "
                      + "; ".join(errors))


lib, path = _load()

_P = ctypes.c_void_p
_PLAN_OUT = ctypes.POINTER(PlanPtr)
_COUNTS = ctypes.POINTER(Count)
_DISPLS = ctypes.POINTER(Aint)
_TYPES = ctypes.POINTER(Datatype)

_PROTOTYPES = {
    "pcoll_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "pcoll_err_name": (ctypes.c_char_p, [ctypes.c_int]),
    "pcoll_last_error": (ctypes.c_char_p, []),
    "pcoll_alltoall_init_c": (ctypes.c_int, [_P, Count, Datatype, _P, Count, Datatype,
                                             Comm, Info, _PLAN_OUT]),
    "pcoll_alltoallv_init_c": (ctypes.c_int, [_P, _COUNTS, _DISPLS, Datatype, _P, _COUNTS,
                                              _DISPLS, Datatype, Comm, Info, _PLAN_OUT]),
    "pcoll_alltoallw_init_c": (ctypes.c_int, [_P, _COUNTS, _DISPLS, _TYPES, _P, _COUNTS,
                                              _DISPLS, _TYPES, Comm, Info, _PLAN_OUT]),
    "pcoll_reduce_scatter_block_init_c": (ctypes.c_int, [_P, _P, Count, Datatype, Op, Comm,
                                                         Info, _PLAN_OUT]),
    "pcoll_reduce_scatter_init_c": (ctypes.c_int, [_P, _P, _COUNTS, Datatype, Op, Comm,
                                                   Info, _PLAN_OUT]),
    "pcoll_alltoall_c": (ctypes.c_int, [_P, Count, Datatype, _P, Count, Datatype, Comm]),
    "pcoll_alltoallv_c": (ctypes.c_int, [_P, _COUNTS, _DISPLS, Datatype, _P, _COUNTS,
                                         _DISPLS, Datatype, Comm]),
    "pcoll_alltoallw_c": (ctypes.c_int, [_P, _COUNTS, _DISPLS, _TYPES, _P, _COUNTS, _DISPLS,
                                         _TYPES, Comm]),
    "pcoll_reduce_scatter_block_c": (ctypes.c_int, [_P, _P, Count, Datatype, Op, Comm]),
    "pcoll_reduce_scatter_c": (ctypes.c_int, [_P, _P, _COUNTS, Datatype, Op, Comm]),
    "pcoll_start": (ctypes.c_int, [PlanPtr]),
    "pcoll_test": (ctypes.c_int, [PlanPtr, ctypes.POINTER(ctypes.c_int)]),
    "pcoll_wait": (ctypes.c_int, [PlanPtr]),
    "pcoll_plan_free": (ctypes.c_int, [_PLAN_OUT]),
    "pcoll_plan_algorithm": (ctypes.c_char_p, [PlanPtr]),
    "pcoll_plan_print": (ctypes.c_int, [PlanPtr, _P]),
    "pcoll_algorithm_name": (ctypes.c_char_p, [ctypes.c_char_p, ctypes.c_int]),
}

# The neighbourhood all-to-alls take their all-to-all's arguments.
for _form in ("alltoall", "alltoallv", "alltoallw"):
    for _suffix in ("_init_c", "_c"):
        _PROTOTYPES["pcoll_neighbor_" + _form + _suffix] = _PROTOTYPES["pcoll_" + _form + _suffix]

for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

# The C library's stdio, for pcoll_plan_print into memory (str(plan)).
libc = ctypes.CDLL(None)
libc.open_memstream.restype = _P
libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
libc.fclose.argtypes = [_P]
libc.free.argtypes = [_P]
