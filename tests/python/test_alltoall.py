"""pcoll.alltoall and pcoll.Alltoall against mpi4py's comm.Alltoall."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll
from conftest import POISON, error_of, poisoned, same_on_every_rank

DTYPES = [np.float64, np.int32, np.complex128]


def make_send(comm, n, dtype, step=0):
    p, r = comm.size, comm.rank
    send = np.empty(p * n, dtype=dtype)
    for j in range(p):
        send[j * n:(j + 1) * n] = [r * 1000 + j * 10 + k + step * 100000 for k in range(n)]
    return send


def reference(comm, send):
    expect = np.empty_like(send)
    comm.Alltoall(send, expect)
    return expect


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 3])
def test_one_shot(comm, dtype, n):
    send = make_send(comm, n, dtype)
    recv = poisoned(send.shape, dtype)
    pcoll.alltoall(send, recv, comm)
    assert np.array_equal(recv, reference(comm, send))


def test_message_specs(comm):
    send = make_send(comm, 2, np.float64)
    expect = reference(comm, send)
    got = []
    for spec_send, spec_recv in [
            ([send, MPI.DOUBLE], [None, MPI.DOUBLE]),
            ([send, 2, MPI.DOUBLE], [None, 2, MPI.DOUBLE]),
            ([send, "d"], [None, "d"]),
            ([send, 2 * 8, MPI.BYTE], [None, 2 * 8, MPI.BYTE])]:
        recv = poisoned(send.shape, np.float64)
        spec_recv[0] = recv
        pcoll.alltoall(spec_send, spec_recv, comm)
        got.append(recv)
    for recv in got:
        assert np.array_equal(recv, expect)


def test_bytes_and_bytearray(comm):
    # Plain Python buffers: bytes (read-only) to bytearray.
    send = bytes((comm.rank * 16 + j) % 256 for j in range(comm.size))
    recv = bytearray(comm.size)
    pcoll.alltoall(send, recv, comm)
    assert list(recv) == [(i * 16 + comm.rank) % 256 for i in range(comm.size)]


def test_in_place(comm):
    send = make_send(comm, 3, np.float64)
    buf = send.copy()
    pcoll.alltoall(MPI.IN_PLACE, buf, comm)
    assert np.array_equal(buf, reference(comm, send))


@pytest.mark.parametrize("algorithm", pcoll.algorithms("alltoall"))
def test_algorithm_choice(comm, algorithm):
    send = make_send(comm, 2, np.int32)
    recv = poisoned(send.shape, np.int32)
    pcoll.alltoall(send, recv, comm, algorithm=algorithm)
    with pcoll.Alltoall(send, recv, comm, algorithm=algorithm) as plan:
        name = plan.algorithm
    assert np.array_equal(recv, reference(comm, send))
    if algorithm != "auto":
        assert name == algorithm
    assert name in pcoll.algorithms("alltoall")


def test_persistent_restarts(comm):
    n = 3
    send = make_send(comm, n, np.float64)
    recv = poisoned(send.shape, np.float64)
    got, expect = [], []
    with pcoll.Alltoall(send, recv, comm, info={"pcoll_algorithm": "scattered"}) as plan:
        for step in range(3):
            send[:] = make_send(comm, n, np.float64, step)
            recv[:] = POISON
            plan.start()
            if step == 1:
                while not plan.test():
                    pass
            else:
                plan.wait()
            got.append(recv.copy())
            expect.append(reference(comm, send))
        algorithm = plan.algorithm
        text = str(plan)
    assert algorithm == "scattered"
    assert "scattered" in text and "round" in text
    for g, e in zip(got, expect):
        assert np.array_equal(g, e)


def test_in_place_plan_with_mpi_info(comm):
    info = MPI.Info.Create()
    info.Set("pcoll_algorithm", "pairwise")
    send = make_send(comm, 2, np.float64)
    buf = send.copy()
    plan = pcoll.Alltoall(MPI.IN_PLACE, buf, comm, info=info)
    info.Free()   # the plan keeps what it needs
    plan.start()
    plan.wait()
    plan.free()
    plan.free()   # a second free is a no-op
    assert np.array_equal(buf, reference(comm, send))
    assert repr(plan) == "<pcoll.Alltoall freed>"


def test_split_communicator(comm):
    sub = comm.Split(comm.rank % 2, -comm.rank)
    send = make_send(sub, 2, np.float64)
    recv = poisoned(send.shape, np.float64)
    pcoll.alltoall(send, recv, sub)
    expect = reference(sub, send)
    sub.Free()
    assert np.array_equal(recv, expect)


def test_context_manager_frees(comm):
    send = make_send(comm, 1, np.float64)
    recv = poisoned(send.shape, np.float64)
    with pcoll.Alltoall(send, recv, comm) as plan:
        plan.start()
        plan.wait()
    code, message = error_of(plan.start)
    assert plan.algorithm == ""
    assert str(plan) == "<pcoll.Alltoall freed>"
    assert code == pcoll.ERR_ARG, message
