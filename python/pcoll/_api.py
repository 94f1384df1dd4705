"""The collectives: one-shot functions and persistent plans over libpcoll.

Each collective is a parser that turns mpi4py-style arguments into the C
call's arguments (the large-count _c forms: MPI_Count counts, MPI_Aint
displacements, any size) and a "poisoned" argument list that makes the C
init fail with PCOLL_ERR_ARG.  A plan whose arguments fail a local check
still enters the C init with the poisoned list, so that the library's
agreement gives every rank the same error instead of leaving the others
waiting (include/pcoll.h: the *_init calls agree on the verdict).
"""
import atexit
import contextlib
import ctypes
import itertools
import weakref

from mpi4py import MPI

from . import _lib
from ._lib import lib
from ._message import (ArgError, IN_PLACE_ADDRESS, block_message, check_span, is_in_place,
                       items_of, plain_message, vector_message, w_message)


def _text(raw):
    return raw.decode("utf-8", "replace") if raw else ""


def _status_codes():
    """pcoll's status codes by name ("SUCCESS", "ERR_ARG", ...), from the
    library's own table: the codes are 0, -1, -2, ... up to the first that
    pcoll_err_name does not know."""
    codes, rc = {}, 0
    while _text(lib.pcoll_err_name(rc)) != "UNKNOWN":
        codes[_text(lib.pcoll_err_name(rc))] = rc
        rc -= 1
    return codes


STATUS_CODES = _status_codes()
ERR_ARG = STATUS_CODES["ERR_ARG"]


class Error(Exception):
    """A pcoll error: `code` is pcoll's status code (negative, one of the
    ERR_* constants), `name` its name ("ERR_ARG"), `message` what
    pcoll_last_error() (or the binding's own check) said, without the
    name in front; str() is "name: message"."""

    def __init__(self, code, message=None):
        self.code = code
        self.name = _text(lib.pcoll_err_name(code))
        text = message or _text(lib.pcoll_last_error()) or _text(lib.pcoll_strerror(code))
        prefix = self.name + ": "
        self.message = text[len(prefix):] if text.startswith(prefix) else text
        super().__init__(code, self.message)

    def __str__(self):
        return "%s: %s" % (self.name, self.message)


def _local_message(where, failure):
    """The message of a local check's failure (None: ask the library)."""
    return None if failure is None else "ERR_ARG: pcoll.%s: %s" % (where, failure)


def _check(rc, message=None):
    if rc != 0:
        raise Error(rc, message)


def _counts(values):
    return (_lib.Count * len(values))(*values)


def _displs(values):
    return (_lib.Aint * len(values))(*values)


def _comm(comm):
    if not isinstance(comm, MPI.Intracomm) or comm == MPI.COMM_NULL:
        raise TypeError("comm must be an mpi4py intracommunicator, not %r" % (comm,))
    return _lib.handle(comm, _lib.Comm)


def _type(datatype):
    return _lib.handle(datatype, _lib.Datatype)


def _types(datatypes):
    return (_lib.Datatype * len(datatypes))(*[_type(t).value for t in datatypes])


def _op(op):
    if not isinstance(op, MPI.Op):
        raise TypeError("op must be an MPI.Op, not %r" % (op,))
    return _lib.handle(op, _lib.Op)


def _addr(address):
    return ctypes.c_void_p(address)


def _same_type(send, recv):
    if MPI._handleof(send.datatype) != MPI._handleof(recv.datatype):
        raise ArgError("sendbuf and recvbuf must hold the same datatype (%s, %s)"
                       % (send.datatype.Get_name(), recv.datatype.Get_name()))


def _peers(comm):
    """The blocks of an all-to-all on comm, (send, receive): one per rank."""
    size = comm.Get_size()
    return size, size


_TOPOLOGIES = {MPI.CART: MPI.Cartcomm, MPI.GRAPH: MPI.Graphcomm,
               MPI.DIST_GRAPH: MPI.Distgraphcomm}


def _edges(comm):
    """The blocks of a neighbourhood all-to-all on comm, (send, receive):
    the out-degree and in-degree of its topology (as mpi4py's
    Topocomm.degrees; comm may be any Intracomm object with a topology).
    Without a topology (0, 0): the C library refuses the communicator,
    on every rank."""
    topology = _TOPOLOGIES.get(comm.Get_topology())
    if topology is None:
        return 0, 0
    indegree, outdegree = (comm if isinstance(comm, topology) else topology(comm)).degrees
    return outdegree, indegree


class _Call:
    """The C arguments of one call (before info and plan) and the Python
    objects they point into, kept alive as long as the call or plan."""

    def __init__(self, args, keep):
        self.args = args
        self.keep = keep


# ---- alltoall --------------------------------------------------------------

def _alltoall_call(sendbuf, recvbuf, comm, blocks=_peers):
    nsend, nrecv = blocks(comm)
    recv = block_message(recvbuf, nrecv, True, "recvbuf")
    send = recv if is_in_place(sendbuf) else block_message(sendbuf, nsend, False, "sendbuf")
    saddr = IN_PLACE_ADDRESS if is_in_place(sendbuf) else send.buf.address
    return _Call([_addr(saddr), _lib.Count(send.counts), _type(send.datatype),
                  _addr(recv.buf.address), _lib.Count(recv.counts), _type(recv.datatype),
                  _comm(comm)], (send, recv))


def _alltoall_poison(comm):
    return [None, _lib.Count(-1), _type(MPI.BYTE), None, _lib.Count(-1), _type(MPI.BYTE),
            _comm(comm)]


# ---- alltoallv -------------------------------------------------------------

def _alltoallv_call(sendbuf, recvbuf, comm, blocks=_peers):
    nsend, nrecv = blocks(comm)
    recv = vector_message(recvbuf, nrecv, True, "recvbuf")
    send = recv if is_in_place(sendbuf) else vector_message(sendbuf, nsend, False, "sendbuf")
    saddr = IN_PLACE_ADDRESS if is_in_place(sendbuf) else send.buf.address
    arrays = [_counts(send.counts), _displs(send.displs),
              _counts(recv.counts), _displs(recv.displs)]
    return _Call([_addr(saddr), arrays[0], arrays[1], _type(send.datatype),
                  _addr(recv.buf.address), arrays[2], arrays[3], _type(recv.datatype),
                  _comm(comm)], (send, recv, arrays))


def _alltoallv_poison(comm, blocks=_peers):
    size = max(blocks(comm))
    counts, displs = _counts([-1] * size), _displs([0] * size)
    return [None, counts, displs, _type(MPI.BYTE), None, counts, displs, _type(MPI.BYTE),
            _comm(comm)]


# ---- alltoallw -------------------------------------------------------------

def _alltoallw_call(sendbuf, recvbuf, comm, blocks=_peers):
    nsend, nrecv = blocks(comm)
    recv = w_message(recvbuf, nrecv, True, "recvbuf")
    send = recv if is_in_place(sendbuf) else w_message(sendbuf, nsend, False, "sendbuf")
    saddr = IN_PLACE_ADDRESS if is_in_place(sendbuf) else send.address
    arrays = [_counts(send.counts), _displs(send.displs), _types(send.types),
              _counts(recv.counts), _displs(recv.displs), _types(recv.types)]
    return _Call([_addr(saddr), arrays[0], arrays[1], arrays[2],
                  _addr(recv.address), arrays[3], arrays[4], arrays[5], _comm(comm)],
                 (send, recv, arrays))


def _alltoallw_poison(comm, blocks=_peers):
    size = max(blocks(comm))
    counts, displs = _counts([-1] * size), _displs([0] * size)
    types = _types([MPI.BYTE] * size)
    return [None, counts, displs, types, None, counts, displs, types, _comm(comm)]


# ---- the neighbourhood all-to-alls -------------------------------------------
# Their parsers are the all-to-alls' with a block per edge (_edges).

def _refused(poison):
    """A poisoned argument list with MPI_IN_PLACE as the send buffer, which
    the neighbourhood inits refuse on every rank (whatever its degrees: a
    rank without edges reads no counts)."""
    return [_addr(IN_PLACE_ADDRESS)] + poison[1:]


# ---- reduce_scatter_block and reduce_scatter --------------------------------

def _reduce_inputs(sendbuf, recvbuf, recv_items, total):
    """Check the buffers of a reduce-scatter whose rank receives recv_items
    of a total-item vector; the send message (the receive one in place)."""
    recv = plain_message(recvbuf, True, "recvbuf")
    if is_in_place(sendbuf):
        role = "recvbuf (in place: the whole vector)"
        if recv.counts is not None and recv.counts != total:
            raise ArgError("%s: count %d, the vector has %d items" % (role, recv.counts, total))
        check_span(recv.buf, recv.datatype, 0, total, role)
        return recv, recv
    send = plain_message(sendbuf, False, "sendbuf")
    _same_type(send, recv)
    for msg, need, role in ((send, total, "sendbuf"), (recv, recv_items, "recvbuf")):
        if msg.counts is not None and msg.counts != need:
            raise ArgError("%s: count %d, the reduce-scatter needs %d" % (role, msg.counts, need))
        check_span(msg.buf, msg.datatype, 0, need, role)
    return send, recv


def _block_count(sendbuf, recvbuf, size):
    """recvcount of a reduce_scatter_block: the receive message's items (in
    place: the whole vector's, divided by the ranks)."""
    recv = plain_message(recvbuf, True, "recvbuf")
    items = items_of(recv, "recvbuf")
    if not is_in_place(sendbuf):
        return items
    if items % size:
        raise ArgError("recvbuf (in place): %d items do not split into %d blocks"
                       % (items, size))
    return items // size


def _reduce_scatter_block_call(sendbuf, recvbuf, comm, op):
    size = comm.Get_size()
    count = _block_count(sendbuf, recvbuf, size)
    send, recv = _reduce_inputs(sendbuf, recvbuf, count, count * size)
    saddr = IN_PLACE_ADDRESS if is_in_place(sendbuf) else send.buf.address
    return _Call([_addr(saddr), _addr(recv.buf.address), _lib.Count(count),
                  _type(recv.datatype), _op(op), _comm(comm)], (send, recv))


def _reduce_scatter_block_poison(comm, op):
    return [None, None, _lib.Count(-1), _type(MPI.BYTE), _op(op), _comm(comm)]


def _gathered_counts(sendbuf, recvbuf, comm, recvcounts):
    """recvcounts as given, or every rank's receive items gathered (as
    mpi4py does); a rank whose buffers fail still takes part, with -1."""
    size = comm.Get_size()
    if recvcounts is not None:
        try:
            counts = [int(c) for c in recvcounts]
        except (TypeError, ValueError):
            raise ArgError("recvcounts must be a sequence of integers") from None
        if len(counts) != size:
            raise ArgError("recvcounts has %d entries, the communicator %d ranks"
                           % (len(counts), size))
        return counts
    failure, items = None, -1
    try:
        if is_in_place(sendbuf):
            raise ArgError("recvcounts is needed with MPI.IN_PLACE")
        items = items_of(plain_message(recvbuf, True, "recvbuf"), "recvbuf")
    except ArgError as exc:
        failure = exc
    counts = comm.allgather(items)
    if failure is not None:
        raise failure
    return counts


def _reduce_scatter_call(sendbuf, recvbuf, comm, recvcounts, op):
    counts = _gathered_counts(sendbuf, recvbuf, comm, recvcounts)
    if min(counts) < 0:
        # Another rank's buffers failed: the C call refuses the counts.
        return _Call(_reduce_scatter_poison(comm, op), None)
    send, recv = _reduce_inputs(sendbuf, recvbuf, counts[comm.Get_rank()], sum(counts))
    saddr = IN_PLACE_ADDRESS if is_in_place(sendbuf) else send.buf.address
    carray = _counts(counts)
    return _Call([_addr(saddr), _addr(recv.buf.address), carray, _type(recv.datatype),
                  _op(op), _comm(comm)], (send, recv, carray))


def _reduce_scatter_poison(comm, op):
    return [None, None, _counts([-1] * comm.Get_size()), _type(MPI.BYTE), _op(op),
            _comm(comm)]


# ---- info -------------------------------------------------------------------

@contextlib.contextmanager
def _info(info, algorithm):
    """The MPI_Info handle for init: info (an MPI.Info, a dict of strings or
    None) with pcoll_algorithm=algorithm added when given."""
    if algorithm is None and (info is None or isinstance(info, MPI.Info)):
        yield _lib.handle(MPI.INFO_NULL if info is None else info, _lib.Info)
        return
    if info is not None and not isinstance(info, (MPI.Info, dict)):
        raise TypeError("info must be an MPI.Info or a dict, not %r" % (info,))
    tmp = info.Dup() if isinstance(info, MPI.Info) else MPI.Info.Create()
    try:
        for key, value in (info.items() if isinstance(info, dict) else ()):
            tmp.Set(str(key), str(value))
        if algorithm is not None:
            tmp.Set("pcoll_algorithm", str(algorithm))
        yield _lib.handle(tmp, _lib.Info)
    finally:
        tmp.Free()


# ---- plans --------------------------------------------------------------------

# Live plans in creation order: freed at exit, before MPI_Finalize (mpi4py
# finalizes MPI after the atexit handlers registered later than its import).
_live = weakref.WeakValueDictionary()
_serial = itertools.count()


@atexit.register
def _free_live_plans():
    for plan in list(_live.values()):
        plan._release()


class Plan:
    """A persistent collective (pcoll_plan_t): planned once, collectively,
    then run with start() and wait() (or test()) as often as needed.

    Buffers, counts and the communicator are bound at creation, as with
    MPI's persistent requests: refill the send buffer between runs, keep
    both buffers alive and in place (the plan holds references to them).
    free() releases the plan (collective where the algorithm shares memory
    on a node: free plans in the same order on every rank); leaving a `with`
    block frees it too.  Plans still alive at exit are freed before
    MPI_Finalize."""

    _c_init = None

    def _init(self, parse, poison, comm, info, algorithm):
        self._handle = _lib.PlanPtr()
        self._keep = None
        _comm(comm)
        with _info(info, algorithm) as cinfo:
            try:
                call, failure = parse(), None
            except ArgError as exc:
                call, failure = _Call(poison(), None), exc
            rc = self._c_init(*call.args, cinfo, ctypes.byref(self._handle))
        if rc != 0:
            raise Error(rc, _local_message(type(self).__name__, failure))
        self._keep = (call.keep, comm)
        _live[next(_serial)] = self

    def start(self):
        """Begin one run (non-blocking)."""
        _check(lib.pcoll_start(self._handle))

    def wait(self):
        """Complete the run."""
        _check(lib.pcoll_wait(self._handle))

    def test(self):
        """Make progress; True once the run is complete."""
        flag = ctypes.c_int(0)
        _check(lib.pcoll_test(self._handle, ctypes.byref(flag)))
        return bool(flag.value)

    def free(self):
        """Free the plan (a no-op when already freed); Error(ERR_STATE) if it
        is active."""
        if self._handle:
            _check(lib.pcoll_plan_free(ctypes.byref(self._handle)))
        self._keep = None

    @property
    def algorithm(self):
        """The name of the algorithm the plan runs ("" once freed)."""
        return _text(lib.pcoll_plan_algorithm(self._handle))

    def __str__(self):
        """The plan's schedule as pcoll_plan_print writes it (repr once freed)."""
        if not self._handle:
            return repr(self)
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        stream = _lib.libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        if not stream:
            raise MemoryError("open_memstream failed")
        rc = lib.pcoll_plan_print(self._handle, stream)
        _lib.libc.fclose(stream)
        text = ctypes.string_at(buf, size.value).decode("utf-8", "replace")
        _lib.libc.free(buf)
        _check(rc)
        return text

    def __repr__(self):
        state = self.algorithm if self._handle else "freed"
        return "<pcoll.%s %s>" % (type(self).__name__, state)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            self.free()
        except Error:
            if exc_type is None:
                raise

    def _release(self):
        # At exit or garbage collection: no error can be reported any more.
        if getattr(self, "_handle", None) and not MPI.Is_finalized():
            lib.pcoll_plan_free(ctypes.byref(self._handle))
        self._keep = None

    def __del__(self):
        self._release()


class Alltoall(Plan):
    """pcoll_alltoall_init: Alltoall(sendbuf, recvbuf, comm, info=None,
    algorithm=None).  sendbuf may be MPI.IN_PLACE; messages as in mpi4py's
    Alltoall (buf, [buf, datatype], [buf, count, datatype]: count per rank)."""

    _c_init = lib.pcoll_alltoall_init_c

    def __init__(self, sendbuf, recvbuf, comm, info=None, algorithm=None):
        self._init(lambda: _alltoall_call(sendbuf, recvbuf, comm),
                   lambda: _alltoall_poison(comm), comm, info, algorithm)


class Alltoallv(Plan):
    """pcoll_alltoallv_init: Alltoallv(sendbuf, recvbuf, comm, info=None,
    algorithm=None).  Messages as in mpi4py's Alltoallv: [buf, counts,
    displs, datatype] (displs default to packed blocks); sendbuf may be
    MPI.IN_PLACE."""

    _c_init = lib.pcoll_alltoallv_init_c

    def __init__(self, sendbuf, recvbuf, comm, info=None, algorithm=None):
        self._init(lambda: _alltoallv_call(sendbuf, recvbuf, comm),
                   lambda: _alltoallv_poison(comm), comm, info, algorithm)


class Alltoallw(Plan):
    """pcoll_alltoallw_init: Alltoallw(sendbuf, recvbuf, comm, info=None,
    algorithm=None).  Messages as in mpi4py's Alltoallw: [buf, (counts,
    displs), types] or [buf, counts, displs, types], a count, a displacement
    in bytes and an MPI.Datatype per rank ([buf, types]: one item of each
    type at byte 0); buf may be MPI.BOTTOM; sendbuf may be MPI.IN_PLACE.
    The plan keeps its own copies of the types: they may be freed once it
    is made."""

    _c_init = lib.pcoll_alltoallw_init_c

    def __init__(self, sendbuf, recvbuf, comm, info=None, algorithm=None):
        self._init(lambda: _alltoallw_call(sendbuf, recvbuf, comm),
                   lambda: _alltoallw_poison(comm), comm, info, algorithm)


class NeighborAlltoall(Plan):
    """pcoll_neighbor_alltoall_init: NeighborAlltoall(sendbuf, recvbuf, comm,
    info=None, algorithm=None) on a communicator with a topology (Cartesian,
    graph or distributed graph; any mpi4py Intracomm object for it).
    Messages as in mpi4py's Topocomm.Neighbor_alltoall, a block per edge:
    out-degree blocks to send, in-degree blocks to receive (buf, [buf,
    datatype], [buf, count, datatype]: count per edge).  No MPI.IN_PLACE."""

    _c_init = lib.pcoll_neighbor_alltoall_init_c

    def __init__(self, sendbuf, recvbuf, comm, info=None, algorithm=None):
        self._init(lambda: _alltoall_call(sendbuf, recvbuf, comm, _edges),
                   lambda: _refused(_alltoall_poison(comm)), comm, info, algorithm)


class NeighborAlltoallv(Plan):
    """pcoll_neighbor_alltoallv_init: NeighborAlltoallv(sendbuf, recvbuf,
    comm, info=None, algorithm=None).  Messages as in mpi4py's
    Topocomm.Neighbor_alltoallv: [buf, counts, displs, datatype] with a count
    and a displacement (in items) per edge (out-edges for sendbuf, in-edges
    for recvbuf; displs default to packed blocks)."""

    _c_init = lib.pcoll_neighbor_alltoallv_init_c

    def __init__(self, sendbuf, recvbuf, comm, info=None, algorithm=None):
        self._init(lambda: _alltoallv_call(sendbuf, recvbuf, comm, _edges),
                   lambda: _refused(_alltoallv_poison(comm, _edges)), comm, info, algorithm)


class NeighborAlltoallw(Plan):
    """pcoll_neighbor_alltoallw_init: NeighborAlltoallw(sendbuf, recvbuf,
    comm, info=None, algorithm=None).  Messages as in mpi4py's
    Topocomm.Neighbor_alltoallw: [buf, (counts, displs), types] or [buf,
    counts, displs, types], a count, a displacement in bytes and an
    MPI.Datatype per edge ([buf, types]: one item of each type at byte 0);
    buf may be MPI.BOTTOM.  The plan keeps its own copies of the types."""

    _c_init = lib.pcoll_neighbor_alltoallw_init_c

    def __init__(self, sendbuf, recvbuf, comm, info=None, algorithm=None):
        self._init(lambda: _alltoallw_call(sendbuf, recvbuf, comm, _edges),
                   lambda: _refused(_alltoallw_poison(comm, _edges)), comm, info, algorithm)


class ReduceScatterBlock(Plan):
    """pcoll_reduce_scatter_block_init: ReduceScatterBlock(sendbuf, recvbuf,
    comm, op=MPI.SUM, info=None, algorithm=None).  recvbuf's items are the
    block each rank gets; with MPI.IN_PLACE recvbuf holds the whole vector
    and gets the rank's block at its start."""

    _c_init = lib.pcoll_reduce_scatter_block_init_c

    def __init__(self, sendbuf, recvbuf, comm, op=MPI.SUM, info=None, algorithm=None):
        self._init(lambda: _reduce_scatter_block_call(sendbuf, recvbuf, comm, op),
                   lambda: _reduce_scatter_block_poison(comm, op), comm, info, algorithm)


class ReduceScatter(Plan):
    """pcoll_reduce_scatter_init: ReduceScatter(sendbuf, recvbuf, comm,
    recvcounts=None, op=MPI.SUM, info=None, algorithm=None).  recvcounts
    None: every rank's recvbuf items, gathered (not with MPI.IN_PLACE)."""

    _c_init = lib.pcoll_reduce_scatter_init_c

    def __init__(self, sendbuf, recvbuf, comm, recvcounts=None, op=MPI.SUM, info=None,
                 algorithm=None):
        self._init(lambda: _reduce_scatter_call(sendbuf, recvbuf, comm, recvcounts, op),
                   lambda: _reduce_scatter_poison(comm, op), comm, info, algorithm)


# ---- one-shot calls -----------------------------------------------------------

def _one_shot(name, comm, c_call, parse, plan, algorithm):
    """Without an algorithm: the C one-shot call (its plan cache; the
    algorithm from the environment or the automatic choice).  With one: a
    plan made, run once and freed.  Local checks fail locally, as in MPI."""
    _comm(comm)
    if algorithm is not None:
        with plan() as p:
            p.start()
            p.wait()
        return
    try:
        call = parse()
    except ArgError as exc:
        raise Error(ERR_ARG, _local_message(name, exc)) from None
    _check(c_call(*call.args))


def _all_to_all(name, parse, plan_class, blocks):
    """The one-shot function of an all-to-all: `name` (pcoll_<name>), its
    arguments parsed by parse with blocks (_peers, or _edges for the
    neighbourhood forms), its plan plan_class."""
    c_call = getattr(lib, "pcoll_%s_c" % name)

    def one_shot(sendbuf, recvbuf, comm, algorithm=None):
        _one_shot(name, comm, c_call, lambda: parse(sendbuf, recvbuf, comm, blocks),
                  lambda: plan_class(sendbuf, recvbuf, comm, algorithm=algorithm), algorithm)

    one_shot.__name__ = one_shot.__qualname__ = name
    one_shot.__doc__ = ("%s(sendbuf, recvbuf, comm, algorithm=None): pcoll_%s; arguments as "
                        "for the %s plan." % (name, name, plan_class.__name__))
    return one_shot


alltoall = _all_to_all("alltoall", _alltoall_call, Alltoall, _peers)
alltoallv = _all_to_all("alltoallv", _alltoallv_call, Alltoallv, _peers)
alltoallw = _all_to_all("alltoallw", _alltoallw_call, Alltoallw, _peers)
neighbor_alltoall = _all_to_all("neighbor_alltoall", _alltoall_call, NeighborAlltoall, _edges)
neighbor_alltoallv = _all_to_all("neighbor_alltoallv", _alltoallv_call, NeighborAlltoallv, _edges)
neighbor_alltoallw = _all_to_all("neighbor_alltoallw", _alltoallw_call, NeighborAlltoallw, _edges)


def reduce_scatter_block(sendbuf, recvbuf, comm, op=MPI.SUM, algorithm=None):
    """Reduce_scatter_block (pcoll_reduce_scatter_block); arguments as for
    the ReduceScatterBlock plan."""
    _one_shot("reduce_scatter_block", comm, lib.pcoll_reduce_scatter_block_c,
              lambda: _reduce_scatter_block_call(sendbuf, recvbuf, comm, op),
              lambda: ReduceScatterBlock(sendbuf, recvbuf, comm, op, algorithm=algorithm),
              algorithm)


def reduce_scatter(sendbuf, recvbuf, comm, recvcounts=None, op=MPI.SUM, algorithm=None):
    """Reduce_scatter (pcoll_reduce_scatter); arguments as for the
    ReduceScatter plan (recvcounts None: every rank's recvbuf items)."""
    _one_shot("reduce_scatter", comm, lib.pcoll_reduce_scatter_c,
              lambda: _reduce_scatter_call(sendbuf, recvbuf, comm, recvcounts, op),
              lambda: ReduceScatter(sendbuf, recvbuf, comm, recvcounts, op,
                                    algorithm=algorithm),
              algorithm)
