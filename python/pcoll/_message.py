"""Buffers and message specifications, in mpi4py's style.

A buffer is any object with the buffer protocol (NumPy arrays, bytearray,
array.array, ...) or, for device memory, with __cuda_array_interface__
(CuPy arrays): only its address travels to the C library, which decides
what kind of memory it is.  A message is a buffer alone (the datatype from
its element format, the counts from its size) or a list like mpi4py's:
[buf, datatype], [buf, count, datatype], [buf, counts, displs, datatype],
[buf, (counts, displs), datatype]; a datatype is an MPI.Datatype or a type
code ("d", "i4", "Zd").  Counts and displacements are in items of the
datatype, except in alltoallw's messages ([buf, (counts, displs), types]:
a datatype per block, displacements in bytes, as in MPI_Alltoallw).  A
message has a block per rank of the communicator, or for the
neighbourhood calls one per edge of its topology (receive: the in-degree,
send: the out-degree, as in mpi4py's Topocomm.Neighbor_alltoall).  Every
check here is local: a failure raises ArgError, which the caller turns into
pcoll.Error(ERR_ARG).
"""
import sys
from collections import namedtuple

from mpi4py import MPI

IN_PLACE_ADDRESS = int(MPI.IN_PLACE)
_NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"
_frombuffer = MPI.buffer.frombuffer


class ArgError(ValueError):
    """A local argument error (becomes pcoll.Error with code ERR_ARG)."""


class Buffer(namedtuple("Buffer", "keep address nbytes format itemsize")):
    """The address, size and element format of a user buffer.  `keep`
    holds what must stay alive (and exported) while the C library uses the
    address."""

    __slots__ = ()

    def datatype(self):
        """The predefined MPI datatype of the buffer's elements."""
        fmt = self.format
        if fmt[:1] in ("@", "="):
            fmt = fmt[1:]
        elif fmt[:1] in ("<", ">", "!", "|"):
            order, fmt = fmt[0], fmt[1:]
            if order not in ("|", _NATIVE_ORDER):
                raise ArgError("buffer elements of byte order %r: only the native order "
                               "maps to an MPI datatype" % order)
        try:
            datatype = MPI.Datatype.fromcode(fmt)
        except (KeyError, ValueError, TypeError):
            datatype = None
        if datatype is None or datatype.Get_size() != self.itemsize:
            raise ArgError("no MPI datatype for buffer elements of format %r; name one: "
                           "[buf, MPI.BYTE]" % self.format)
        return datatype


def _device_buffer(obj, cai, writable, role):
    """Device memory (the hook for GPU buffers): the pointer of a
    __cuda_array_interface__ object (CuPy) passes as is; the C library tells
    device memory from host memory."""
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    nitems = 1
    for extent in cai["shape"]:
        nitems *= extent
    strides = cai.get("strides")
    if strides is not None:
        expect = itemsize
        for extent, stride in reversed(list(zip(cai["shape"], strides))):
            if extent > 1 and stride != expect:
                raise ArgError("%s: the device buffer is not C-contiguous" % role)
            expect *= extent
    address, readonly = cai["data"]
    if writable and readonly:
        raise ArgError("%s: the buffer is read-only" % role)
    return Buffer(obj, address, nitems * itemsize, typestr, itemsize)


def buffer_of(obj, writable, role):
    """Describe obj (see Buffer); role names it in error messages."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _device_buffer(obj, cai, writable, role)
    try:
        view = memoryview(obj)
    except TypeError:
        raise ArgError("%s: an object of type %s is not a buffer (no buffer protocol, "
                       "no __cuda_array_interface__)" % (role, type(obj).__name__)) from None
    if not view.contiguous:
        raise ArgError("%s: the buffer is not contiguous" % role)
    if writable and view.readonly:
        raise ArgError("%s: the buffer is read-only" % role)
    address = _frombuffer(view, readonly=True).address
    return Buffer(view, address, view.nbytes, view.format, view.itemsize)


class Message(namedtuple("Message", "buf counts displs datatype")):
    """A parsed message: buffer, counts (one per block, or one), item
    displacements (or None) and datatype."""

    __slots__ = ()


def _is_datatype(obj):
    return isinstance(obj, (MPI.Datatype, str))


def _as_datatype(obj, role):
    if isinstance(obj, str):
        try:
            return MPI.Datatype.fromcode(obj)
        except (KeyError, ValueError):
            raise ArgError("%s: no MPI datatype has the code %r" % (role, obj)) from None
    if obj == MPI.DATATYPE_NULL:
        raise ArgError("%s: MPI.DATATYPE_NULL" % role)
    return obj


def _as_count(value, role, what):
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise ArgError("%s: %s must be an integer, not %r" % (role, what, value)) from None
    if count != value or count < 0:
        raise ArgError("%s: %s must be an integer >= 0, not %r" % (role, what, value))
    return count


def _as_counts(values, n, role, what):
    try:
        values = list(values)
    except TypeError:
        raise ArgError("%s: %s must be a sequence of %d integers" % (role, what, n)) from None
    if len(values) != n:
        raise ArgError("%s: %s has %d entries, not %d (one per block)"
                       % (role, what, len(values), n))
    return [_as_count(v, role, what) for v in values]


def _split(spec, role):
    """The buffer, the datatype (or None) and the rest of a message spec."""
    if not isinstance(spec, (list, tuple)):
        return spec, None, []
    if not spec:
        raise ArgError("%s: empty message specification" % role)
    rest = list(spec[1:])
    datatype = None
    if rest and _is_datatype(rest[-1]):
        datatype = _as_datatype(rest.pop(), role)
    return spec[0], datatype, rest


def _items(buf, datatype, role):
    """How many items of datatype fill the buffer exactly."""
    extent = datatype.Get_extent()[1]
    items = buf.nbytes // extent if extent > 0 else 0
    if extent <= 0 or items * extent != buf.nbytes:
        raise ArgError("%s: %d bytes are not a whole number of %s items (extent %d)"
                       % (role, buf.nbytes, datatype.Get_name() or "datatype", extent))
    return items


def check_span(buf, datatype, first, count, role):
    """Items first .. first+count-1 of datatype must lie inside the buffer."""
    if count == 0:
        return
    extent = datatype.Get_extent()[1]
    true_lb, true_extent = datatype.Get_true_extent()
    start = first * extent + true_lb
    end = (first + count - 1) * extent + true_lb + true_extent
    if start < 0 or end > buf.nbytes:
        raise ArgError("%s: items %d..%d reach bytes [%d, %d), the buffer holds %d"
                       % (role, first, first + count - 1, start, end, buf.nbytes))


def _equal_blocks(buf, datatype, nblocks, role):
    if nblocks == 0:
        return 0
    items = _items(buf, datatype, role)
    if items % nblocks:
        raise ArgError("%s: %d items do not split into %d equal blocks"
                       % (role, items, nblocks))
    return items // nblocks


def _buffer_datatype_rest(spec, writable, role):
    """The buffer of a message spec, its datatype (by default the buffer's
    elements') and the rest of the spec."""
    obj, datatype, rest = _split(spec, role)
    buf = buffer_of(obj, writable, role)
    return buf, datatype if datatype is not None else buf.datatype(), rest


def block_message(spec, nblocks, writable, role):
    """buf | [buf, datatype] | [buf, count] | [buf, count, datatype]: nblocks
    blocks of count items (count: the buffer split evenly by default)."""
    msg = plain_message(spec, writable, role)
    count = msg.counts
    if count is None:
        count = _equal_blocks(msg.buf, msg.datatype, nblocks, role)
    check_span(msg.buf, msg.datatype, 0, count * nblocks, role)
    return msg._replace(counts=count)


def _counts_displs(rest, role):
    if len(rest) == 1 and isinstance(rest[0], tuple) and len(rest[0]) == 2 and \
            not isinstance(rest[0][0], int):
        return rest[0]
    if len(rest) > 2:
        raise ArgError("%s: expected [buf, counts, displs, datatype]" % role)
    return (rest + [None, None])[:2]


def vector_message(spec, nblocks, writable, role):
    """buf | [buf, counts] | [buf, counts, displs] | [buf, (counts, displs)],
    each optionally with a datatype last.  Displacements default to the
    blocks packed in rank order; counts default to an even split."""
    buf, datatype, rest = _buffer_datatype_rest(spec, writable, role)
    counts, displs = _counts_displs(rest, role)
    if counts is None:
        counts = [_equal_blocks(buf, datatype, nblocks, role)] * nblocks
    else:
        counts = _as_counts(counts, nblocks, role, "counts")
    if displs is None:
        displs, at = [], 0
        for count in counts:
            displs.append(at)
            at += count
    else:
        displs = _as_counts(displs, nblocks, role, "displs")
    for count, displ in zip(counts, displs):
        check_span(buf, datatype, displ, count, role)
    return Message(buf, counts, displs, datatype)


class WMessage(namedtuple("WMessage", "buf address counts displs types")):
    """A parsed alltoallw message: buffer (None for MPI.BOTTOM), address,
    counts, byte displacements and datatypes, one of each per block."""

    __slots__ = ()


def _as_types(values, n, role):
    if isinstance(values, (MPI.Datatype, str)):
        raise ArgError("%s: types must be a sequence of %d datatypes, one per block"
                       % (role, n))
    try:
        values = list(values)
    except TypeError:
        raise ArgError("%s: types must be a sequence of %d datatypes" % (role, n)) from None
    if len(values) != n:
        raise ArgError("%s: types has %d entries, not %d (one per block)"
                       % (role, len(values), n))
    for value in values:
        if not _is_datatype(value):
            raise ArgError("%s: types holds %r, not an MPI.Datatype" % (role, value))
    return [_as_datatype(value, role) for value in values]


def check_byte_span(buf, datatype, displ, count, role):
    """count items of datatype from byte displ must lie inside the buffer."""
    if count == 0:
        return
    extent = datatype.Get_extent()[1]
    true_lb, true_extent = datatype.Get_true_extent()
    reach = (count - 1) * extent
    start = displ + true_lb + min(reach, 0)
    end = displ + true_lb + true_extent + max(reach, 0)
    if start < 0 or end > buf.nbytes:
        raise ArgError("%s: %d items of %s at byte %d reach bytes [%d, %d), the buffer "
                       "holds %d" % (role, count, datatype.Get_name() or "a datatype", displ,
                                     start, end, buf.nbytes))


def w_message(spec, nblocks, writable, role):
    """[buf, types] | [buf, (counts, displs), types] | [buf, counts, displs,
    types], as mpi4py's Alltoallw: a count, a displacement in bytes and a
    datatype per block; [buf, types] means one item of each type at byte 0.
    buf may be MPI.BOTTOM (the types hold absolute addresses; counts and
    displacements required)."""
    if not isinstance(spec, (list, tuple)) or not 2 <= len(spec) <= 4:
        raise ArgError("%s: expected [buf, (counts, displs), types] or [buf, counts, displs, "
                       "types]" % role)
    obj, types = spec[0], spec[-1]
    if len(spec) == 2:
        counts = displs = None
    elif len(spec) == 4:
        counts, displs = spec[1], spec[2]
    else:
        try:
            counts, displs = spec[1]
        except (TypeError, ValueError):
            raise ArgError("%s: expected (counts, displs) as the second item" % role) from None
    types = _as_types(types, nblocks, role)
    if obj is MPI.BOTTOM:
        if counts is None:
            raise ArgError("%s: MPI.BOTTOM needs counts and displacements" % role)
        buf, address = None, int(MPI.BOTTOM)
    else:
        buf = buffer_of(obj, writable, role)
        address = buf.address
    if counts is None:
        counts, displs = [1] * nblocks, [0] * nblocks
    else:
        counts = _as_counts(counts, nblocks, role, "counts")
        displs = _as_counts(displs, nblocks, role, "displs")
    if buf is not None:
        for count, displ, datatype in zip(counts, displs, types):
            check_byte_span(buf, datatype, displ, count, role)
    return WMessage(buf, address, counts, displs, types)


def plain_message(spec, writable, role):
    """buf | [buf, datatype] | [buf, count] | [buf, count, datatype]: the
    count is None unless given (the caller knows how many items it needs)."""
    buf, datatype, rest = _buffer_datatype_rest(spec, writable, role)
    if len(rest) > 1:
        raise ArgError("%s: expected [buf, count, datatype]" % role)
    count = _as_count(rest[0], role, "count") if rest else None
    return Message(buf, count, None, datatype)


def items_of(msg, role):
    """The message's count, or the items its buffer holds."""
    return msg.counts if msg.counts is not None else _items(msg.buf, msg.datatype, role)


def is_in_place(obj):
    return obj is MPI.IN_PLACE
