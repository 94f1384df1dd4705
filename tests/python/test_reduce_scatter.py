"""pcoll.reduce_scatter(_block) and their plans against mpi4py's
comm.Reduce_scatter(_block)."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll
from conftest import POISON, poisoned

OPS = [MPI.SUM, MPI.MAX, MPI.PROD]


def vector(comm, length, dtype, step=0):
    r = comm.rank
    return np.array([(r + 1) * (k % 5 + 1) + step for k in range(length)], dtype=dtype)


def recvcounts(comm):
    return [(i * 3) % 4 for i in range(comm.size)]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", [0, 1, 5])
def test_block_one_shot(comm, op, n):
    send = vector(comm, n * comm.size, np.float64)
    recv = poisoned(n, np.float64)
    pcoll.reduce_scatter_block(send, recv, comm, op)
    expect = poisoned(n, np.float64)
    comm.Reduce_scatter_block(send, expect, op)
    assert np.array_equal(recv, expect)


@pytest.mark.parametrize("op", OPS)
def test_one_shot(comm, op):
    counts = recvcounts(comm)
    send = vector(comm, sum(counts), np.int64)
    recv = poisoned(counts[comm.rank], np.int64)
    pcoll.reduce_scatter(send, recv, comm, counts, op)
    gathered = poisoned(counts[comm.rank], np.int64)
    pcoll.reduce_scatter(send, gathered, comm, op=op)   # recvcounts gathered
    expect = poisoned(counts[comm.rank], np.int64)
    comm.Reduce_scatter(send, expect, counts, op)
    assert np.array_equal(recv, expect)
    assert np.array_equal(gathered, expect)


def test_in_place(comm):
    n, counts = 3, recvcounts(comm)
    block = vector(comm, n * comm.size, np.float64)
    expect_block = poisoned(n, np.float64)
    comm.Reduce_scatter_block(block, expect_block, MPI.SUM)
    whole = vector(comm, sum(counts), np.float64)
    expect = poisoned(counts[comm.rank], np.float64)
    comm.Reduce_scatter(whole, expect, counts, MPI.SUM)
    buf_block, buf = block.copy(), whole.copy()
    pcoll.reduce_scatter_block(MPI.IN_PLACE, buf_block, comm)
    pcoll.reduce_scatter(MPI.IN_PLACE, buf, comm, counts)
    assert np.array_equal(buf_block[:n], expect_block)
    assert np.array_equal(buf[:counts[comm.rank]], expect)


@pytest.mark.parametrize("algorithm", pcoll.algorithms("reduce_scatter"))
def test_algorithm_choice(comm, algorithm):
    counts = recvcounts(comm)
    send = vector(comm, sum(counts), np.float64)
    recv = poisoned(counts[comm.rank], np.float64)
    bsend = vector(comm, 2 * comm.size, np.float64)
    brecv = poisoned(2, np.float64)
    with pcoll.ReduceScatter(send, recv, comm, counts, algorithm=algorithm) as plan, \
            pcoll.ReduceScatterBlock(bsend, brecv, comm, algorithm=algorithm) as bplan:
        for p in (plan, bplan):
            p.start()
            p.wait()
        names = plan.algorithm, bplan.algorithm
    expect = poisoned(counts[comm.rank], np.float64)
    comm.Reduce_scatter(send, expect, counts, MPI.SUM)
    bexpect = poisoned(2, np.float64)
    comm.Reduce_scatter_block(bsend, bexpect, MPI.SUM)
    assert np.array_equal(recv, expect)
    assert np.array_equal(brecv, bexpect)
    assert algorithm == "auto" or names == (algorithm, algorithm)


def test_persistent_restarts(comm):
    n = 4
    send = vector(comm, n * comm.size, np.float32)
    recv = poisoned(n, np.float32)
    got, expect = [], []
    with pcoll.ReduceScatterBlock([send, MPI.FLOAT], [recv, MPI.FLOAT], comm,
                                  op=MPI.MAX) as plan:
        for step in range(3):
            send[:] = vector(comm, n * comm.size, np.float32, step)
            recv[:] = POISON
            plan.start()
            while not plan.test():
                pass
            got.append(recv.copy())
            e = poisoned(n, np.float32)
            comm.Reduce_scatter_block(send, e, MPI.MAX)
            expect.append(e)
        text = str(plan)
    assert "plan reduce_scatter" in text or plan.algorithm == ""
    for g, e in zip(got, expect):
        assert np.array_equal(g, e)
