"""pcoll.alltoallv and pcoll.Alltoallv against mpi4py's comm.Alltoallv:
irregular counts (zeros included), gaps between blocks, in place."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll
from conftest import POISON, poisoned


def count(src, dst):
    return (src * 7 + dst * 3) % 5


def layout(counts, gap):
    displs, at = [], 0
    for c in counts:
        displs.append(at)
        at += c + gap
    return displs, at


def make(comm, gap=0, step=0):
    """Send buffer and layouts of both sides; block (r -> j) holds values
    that name r, j, the position and the step."""
    p, r = comm.size, comm.rank
    scounts = [count(r, j) for j in range(p)]
    rcounts = [count(i, r) for i in range(p)]
    sdispls, slen = layout(scounts, gap)
    rdispls, rlen = layout(rcounts, gap)
    send = np.full(slen, POISON, dtype=np.float64)
    for j in range(p):
        send[sdispls[j]:sdispls[j] + scounts[j]] = [
            r * 1000 + j * 10 + k + 1e5 * step for k in range(scounts[j])]
    return send, (scounts, sdispls), (rcounts, rdispls), rlen


def reference(comm, send, s, r, rlen):
    expect = poisoned(rlen, np.float64)
    comm.Alltoallv([send, s[0], s[1], MPI.DOUBLE], [expect, r[0], r[1], MPI.DOUBLE])
    return expect


@pytest.mark.parametrize("gap", [0, 2])
def test_one_shot(comm, gap):
    send, s, r, rlen = make(comm, gap)
    recv = poisoned(rlen, np.float64)
    pcoll.alltoallv([send, s[0], s[1], MPI.DOUBLE], [recv, r[0], r[1], MPI.DOUBLE], comm)
    assert np.array_equal(recv, reference(comm, send, s, r, rlen))


def test_message_specs(comm):
    send, s, r, rlen = make(comm)
    expect = reference(comm, send, s, r, rlen)
    a, b, c = (poisoned(rlen, np.float64) for _ in range(3))
    pcoll.alltoallv([send, s[0]], [a, r[0]], comm)                      # packed, type from dtype
    pcoll.alltoallv([send, s, MPI.DOUBLE], [b, r, MPI.DOUBLE], comm)    # (counts, displs)
    pcoll.alltoallv([send, s[0], s[1]], [c, r[0], r[1]], comm)
    for got in (a, b, c):
        assert np.array_equal(got, expect)


def test_in_place(comm):
    # MPI_IN_PLACE: the receive layout serves both directions, so the
    # counts must be symmetric: count(i, j) == count(j, i).
    p, r = comm.size, comm.rank
    counts = [(r + j) % 3 + (r == j) for j in range(p)]
    displs, total = layout(counts, 1)
    buf = poisoned(total, np.int64)
    for j in range(p):
        buf[displs[j]:displs[j] + counts[j]] = [r * 100 + j * 10 + k for k in range(counts[j])]
    expect = poisoned(total, np.int64)
    comm.Alltoallv([buf.copy(), counts, displs, MPI.INT64_T],
                   [expect, counts, displs, MPI.INT64_T])
    got = {}
    for algorithm in (None, "pairwise", "inplace"):
        work = buf.copy()
        pcoll.alltoallv(MPI.IN_PLACE, [work, counts, displs], comm, algorithm=algorithm)
        got[algorithm] = work
    for algorithm, work in got.items():
        assert np.array_equal(work, expect), algorithm


@pytest.mark.parametrize("algorithm", pcoll.algorithms("alltoallv"))
def test_algorithm_choice(comm, algorithm):
    send, s, r, rlen = make(comm)
    recv = poisoned(rlen, np.float64)
    try:
        with pcoll.Alltoallv([send, s[0], s[1]], [recv, r[0], r[1]], comm,
                             algorithm=algorithm) as plan:
            plan.start()
            plan.wait()
            name = plan.algorithm
    except pcoll.Error as exc:
        # An algorithm may refuse these sizes, on every rank alike.
        codes = comm.allgather(exc.code)
        assert codes == [pcoll.ERR_UNSUPPORTED] * comm.size, str(exc)
        return
    assert np.array_equal(recv, reference(comm, send, s, r, rlen))
    assert algorithm == "auto" or name == algorithm


def test_persistent_restarts(comm):
    send, s, r, rlen = make(comm, gap=1)
    recv = poisoned(rlen, np.float64)
    got, expect = [], []
    with pcoll.Alltoallv([send, s[0], s[1]], [recv, r[0], r[1]], comm) as plan:
        for step in range(3):
            send[:] = make(comm, gap=1, step=step)[0]
            recv[:] = POISON
            plan.start()
            plan.wait()
            got.append(recv.copy())
            expect.append(reference(comm, send, s, r, rlen))
        text = str(plan)
    assert plan.algorithm in text
    for g, e in zip(got, expect):
        assert np.array_equal(g, e)
