"""pcoll.alltoallw and pcoll.Alltoallw against mpi4py's comm.Alltoallw: a
different datatype per peer on each side (contiguous, vector, subarray),
zero counts, byte displacements with gaps, the pencil-FFT transpose of
mpi4py-fft (subarrays of 2-D arrays, counts 1, displacements 0), the
message forms, MPI.BOTTOM, MPI.IN_PLACE, persistent restarts."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll
from conftest import POISON, poisoned

SLOT = 13          # doubles per peer: a column of a 4x3 matrix at most, and a gap
DOUBLE = MPI.DOUBLE.Get_size()


def count(src, dst):
    return (src * 7 + dst * 3) % 5       # 0..4, zeros included


def layout(n, kind, made):
    """(count, datatype) that moves n doubles in one of three shapes: n
    contiguous doubles, every other double (vector), or the middle column of
    an n x 3 matrix (subarray).  Zero counts keep a derived type."""
    if kind == 0:
        return n, MPI.DOUBLE
    rows = max(n, 1)
    if kind == 1:
        datatype = MPI.DOUBLE.Create_vector(rows, 1, 2)
    else:
        datatype = MPI.DOUBLE.Create_subarray([rows, 3], [rows, 1], [0, 1])
    datatype.Commit()
    made.append(datatype)
    return (1 if n else 0), datatype


def spec(comm, buf, sending, made, regular=False):
    """buf's message: the block of peer j at byte j * SLOT doubles, in a
    shape that depends on both ranks (so that the two sides of a pair
    differ); regular: 3 doubles between every pair."""
    p, r = comm.size, comm.rank
    counts, displs, types = [], [], []
    for j in range(p):
        n = 3 if regular else count(r, j) if sending else count(j, r)
        kind = (r + 2 * j) % 3 if sending else (2 * r + j + 1) % 3
        c, t = layout(n, kind, made)
        counts.append(c)
        displs.append(j * SLOT * DOUBLE)
        types.append(t)
    return [buf, (counts, displs), types]


def send_data(comm, step=0):
    r = comm.rank
    return np.arange(comm.size * SLOT, dtype=np.float64) + r * 1000 + step * 1e5


def reference(comm, smsg, rlen, made, regular=False):
    expect = poisoned(rlen, np.float64)
    comm.Alltoallw(smsg, spec(comm, expect, False, made, regular))
    return expect


def free_all(made):
    for datatype in made:
        datatype.Free()
    made.clear()


def test_one_shot(comm):
    made = []
    send = send_data(comm)
    recv = poisoned(comm.size * SLOT, np.float64)
    smsg = spec(comm, send, True, made)
    pcoll.alltoallw(smsg, spec(comm, recv, False, made), comm)
    expect = reference(comm, smsg, recv.size, made)
    free_all(made)
    assert np.array_equal(recv, expect)


@pytest.mark.parametrize("regular", [False, True])
@pytest.mark.parametrize("algorithm", pcoll.algorithms("alltoallw"))
def test_algorithm_choice(comm, algorithm, regular):
    made = []
    send = send_data(comm)
    recv = poisoned(comm.size * SLOT, np.float64)
    smsg = spec(comm, send, True, made, regular)
    expect = reference(comm, smsg, recv.size, made, regular)
    code, name = 0, ""
    try:
        with pcoll.Alltoallw(smsg, spec(comm, recv, False, made, regular), comm,
                             algorithm=algorithm) as plan:
            plan.start()
            plan.wait()
            name = plan.algorithm
    except pcoll.Error as exc:
        code, name = exc.code, str(exc)
    free_all(made)
    codes = comm.allgather(code)
    if code:
        # An algorithm may refuse these types (bruck_zerocopy: irregular
        # sizes), on every rank alike.
        assert codes == [pcoll.ERR_UNSUPPORTED] * comm.size, name
        assert not regular, name
        return
    assert np.array_equal(recv, expect)
    assert algorithm == "auto" or name == algorithm


def test_persistent_restarts(comm):
    made = []
    send = send_data(comm)
    recv = poisoned(comm.size * SLOT, np.float64)
    smsg = spec(comm, send, True, made)
    plan = pcoll.Alltoallw(smsg, spec(comm, recv, False, made), comm,
                           info={"pcoll_algorithm": "pairwise"})
    free_all(made)                      # the plan keeps its own copies of the types
    got, expect = [], []
    for step in range(3):
        send[:] = send_data(comm, step)
        recv[:] = POISON
        plan.start()
        while not plan.test():
            pass
        got.append(recv.copy())
        expect.append(reference(comm, spec(comm, send, True, made), recv.size, made))
        free_all(made)
    text = str(plan)
    plan.free()
    assert plan.algorithm == "" and "pairwise" in text
    for g, e in zip(got, expect):
        assert np.array_equal(g, e)


def test_in_place(comm):
    # MPI_IN_PLACE: block j of the receive layout is also what goes to j,
    # so the bytes of a pair must be symmetric; the shapes need not be.
    p, r = comm.size, comm.rank
    made, counts, displs, types = [], [], [], []
    for j in range(p):
        c, t = layout((r + j) % 3 + (r == j), (2 * r + j) % 3, made)
        counts.append(c)
        displs.append(j * SLOT * DOUBLE)
        types.append(t)
    buf = send_data(comm)
    expect = buf.copy()
    comm.Alltoallw(MPI.IN_PLACE, [expect, (counts, displs), types])
    got = {}
    for algorithm in (None, "pairwise", "native"):
        work = buf.copy()
        pcoll.alltoallw(MPI.IN_PLACE, [work, (counts, displs), types], comm,
                        algorithm=algorithm)
        got[algorithm] = work
    free_all(made)
    for algorithm, work in got.items():
        assert np.array_equal(work, expect), algorithm


def split(n, p):
    """Sizes and starts of n split over p ranks as evenly as possible."""
    sizes = [n // p + (i < n % p) for i in range(p)]
    return sizes, [sum(sizes[:i]) for i in range(p)]


def transpose_types(comm, shape_a, shape_b, axis_a, axis_b, made):
    """mpi4py-fft's Pencil transfer: A (distributed along axis_b's
    complement) sends to rank j the part of axis_a that j owns as a
    subarray; B receives the part of axis_b that rank i owned."""
    p = comm.size
    sizes_a, starts_a = split(shape_a[axis_a], p)
    sizes_b, starts_b = split(shape_b[axis_b], p)
    types_a, types_b = [], []
    for j in range(p):
        for types, shape, axis, sizes, starts in ((types_a, shape_a, axis_a, sizes_a, starts_a),
                                                  (types_b, shape_b, axis_b, sizes_b, starts_b)):
            sub = list(shape)
            sub[axis] = sizes[j]
            first = [0] * len(shape)
            first[axis] = starts[j]
            t = MPI.C_DOUBLE_COMPLEX.Create_subarray(list(shape), sub, first)
            t.Commit()
            made.append(t)
            types.append(t)
    return types_a, types_b


def test_fft_transpose(comm):
    """A global N0 x N1 complex array held in row blocks is redistributed
    into column blocks and back, as mpi4py-fft's transposes do: counts
    [1]*p, displacements [0]*p, a subarray per peer."""
    p, r = comm.size, comm.rank
    n0, n1 = 6, 5
    rows, row0 = split(n0, p)
    cols, col0 = split(n1, p)
    glob = (np.arange(n0 * n1) + 1j * np.arange(n0 * n1)[::-1]).reshape(n0, n1)
    a = glob[row0[r]:row0[r] + rows[r], :].copy()
    made = []
    types_a, types_b = transpose_types(comm, a.shape, (n0, cols[r]), 1, 0, made)
    cd = ([1] * p, [0] * p)
    b = np.full((n0, cols[r]), POISON, dtype=np.complex128)
    expect = b.copy()
    comm.Alltoallw([a, cd, types_a], [expect, cd, types_b])
    pcoll.alltoallw([a, cd, types_a], [b, cd, types_b], comm)
    back = np.full_like(a, POISON)
    with pcoll.Alltoallw([b, cd, types_b], [back, cd, types_a], comm) as plan:
        plan.start()
        plan.wait()
    free_all(made)
    assert np.array_equal(expect, glob[:, col0[r]:col0[r] + cols[r]])
    assert np.array_equal(b, expect)
    assert np.array_equal(back, a)


def test_message_forms(comm):
    """[buf, types] (one item of each type at byte 0), [buf, counts, displs,
    types], and MPI.BOTTOM with types of absolute addresses."""
    p, r = comm.size, comm.rank
    k = 3
    send = np.arange(p * k, dtype=np.float64) + 100 * r
    expect = poisoned(p * k, np.float64)
    comm.Alltoall(send, expect)
    made, blocks = [], []
    for j in range(p):
        t = MPI.DOUBLE.Create_subarray([p * k], [k], [j * k])
        t.Commit()
        made.append(t)
        blocks.append(t)
    short = poisoned(p * k, np.float64)
    pcoll.alltoallw([send, blocks], [short, blocks], comm)
    four = poisoned(p * k, np.float64)
    byte_displs = [j * k * DOUBLE for j in range(p)]
    pcoll.alltoallw([send, [k] * p, byte_displs, [MPI.DOUBLE] * p],
                    [four, [k] * p, byte_displs, [MPI.DOUBLE] * p], comm)
    bottom = poisoned(p * k, np.float64)
    sabs, rabs = [], []
    for j in range(p):
        for absolute, arr in ((sabs, send), (rabs, bottom)):
            t = MPI.DOUBLE.Create_hindexed([k], [MPI.Get_address(arr) + j * k * DOUBLE])
            t.Commit()
            made.append(t)
            absolute.append(t)
    pcoll.alltoallw([MPI.BOTTOM, ([1] * p, [0] * p), sabs],
                    [MPI.BOTTOM, ([1] * p, [0] * p), rabs], comm)
    free_all(made)
    for got in (short, four, bottom):
        assert np.array_equal(got, expect)
