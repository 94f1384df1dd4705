"""pcoll.Error: pcoll's code and message; bad input on one rank gives the
same code on every rank for plans; misuse of a plan."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll
from conftest import error_of, poisoned, same_on_every_rank


def test_error_attributes(comm):
    send = np.zeros(comm.size)
    recv = np.zeros(comm.size)
    code, message = error_of(lambda: pcoll.Alltoall(send, recv, comm, algorithm="no_such"))
    try:
        pcoll.alltoall(send, recv, comm, algorithm="no_such")
    except pcoll.Error as exc:
        err = exc
    assert code == pcoll.ERR_ARG
    assert "no_such" in message and "pairwise" in message   # the valid choices listed
    assert err.code == pcoll.ERR_ARG and err.name == "ERR_ARG" and "no_such" in err.message
    assert isinstance(err, Exception)
    # The name once: in str(), not again in the message.
    assert str(err) == "ERR_ARG: " + err.message and not err.message.startswith("ERR_")


def test_bad_tuning_file(comm, tmp_path_factory, monkeypatch):
    """A malformed PCOLL_TUNING_FILE: the automatic choice fails with the
    file's name and line in the exception text; a named algorithm never
    reads the file and runs."""
    path = comm.bcast(str(tmp_path_factory.mktemp("tuning") / "bad.json")
                      if comm.rank == 0 else None)
    if comm.rank == 0:
        with open(path, "w") as f:
            f.write('{"pcoll_tuning": 1,\n "rules": [oops]}\n')
    comm.Barrier()
    monkeypatch.setenv("PCOLL_TUNING_FILE", path)
    send = np.arange(2.0 * comm.size)
    recv = np.zeros_like(send)
    code, message = error_of(lambda: pcoll.Alltoall(send, recv, comm))
    assert code == pcoll.ERR_ARG and path + ":2:" in message, message
    with pcoll.Alltoall(send, recv, comm, algorithm="pairwise") as plan:
        plan.start()
        plan.wait()
    pcoll.alltoall(send, recv, comm, algorithm="pairwise")


@pytest.mark.parametrize("kind", ["alltoall", "alltoallv", "alltoallw",
                                  "reduce_scatter_block", "reduce_scatter"])
def test_bad_input_on_one_rank(comm, kind):
    """The last rank's receive buffer is too short: every rank raises
    ERR_ARG (no rank is left waiting)."""
    p, bad = comm.size, comm.rank == comm.size - 1
    send = np.ones(2 * p)
    recv = np.zeros(2 * p - 1 if bad else 2 * p)
    block = np.zeros(1 if bad else 2)
    make = {
        "alltoall": lambda: pcoll.Alltoall(send, [recv, 2, MPI.DOUBLE], comm),
        "alltoallv": lambda: pcoll.Alltoallv(send, [recv, [2] * p], comm),
        "alltoallw": lambda: pcoll.Alltoallw(
            [send, ([2] * p, [16 * j for j in range(p)]), [MPI.DOUBLE] * p],
            [recv, ([2] * p, [16 * j for j in range(p)]), [MPI.DOUBLE] * p], comm),
        "reduce_scatter_block": lambda: pcoll.ReduceScatterBlock(
            send, [block, 2, MPI.DOUBLE], comm),
        "reduce_scatter": lambda: pcoll.ReduceScatter(send, [block, 2], comm, [2] * p),
    }[kind]
    code, message = error_of(make)
    codes = same_on_every_rank(comm, code)
    assert codes == [pcoll.ERR_ARG] * p, message
    if bad:
        assert "pcoll." in message and "recvbuf" in message, message


def test_alltoallw_bad_type_on_one_rank(comm):
    """The last rank passes a datatype it has not committed (a check of the
    library, not of the binding): ERR_ARG on every rank, for the plan."""
    p, bad = comm.size, comm.rank == comm.size - 1
    vector = MPI.DOUBLE.Create_vector(2, 1, 2)
    if not bad:
        vector.Commit()
    send = np.ones(4 * p)
    recv = np.zeros(4 * p)
    displs = [32 * j for j in range(p)]
    code, message = error_of(lambda: pcoll.Alltoallw(
        [send, ([1] * p, displs), [vector] * p], [recv, ([2] * p, displs), [MPI.DOUBLE] * p],
        comm))
    vector.Free()
    assert same_on_every_rank(comm, code) == [pcoll.ERR_ARG] * p, message
    if bad:
        assert "commit" in message, message


def test_alltoallw_mismatch(comm):
    """Rank 0 expects one double more from every peer than they send."""
    p = comm.size
    extra = 1 if comm.rank == 0 else 0
    send = np.ones(2 * p)
    recv = np.zeros(3 * p)
    displs = [16 * j for j in range(p)]
    code, message = error_of(lambda: pcoll.Alltoallw(
        [send, ([2] * p, displs), [MPI.DOUBLE] * p],
        [recv, ([2 + extra] * p, [24 * j for j in range(p)]), [MPI.DOUBLE] * p], comm))
    assert same_on_every_rank(comm, code) == [pcoll.ERR_MISMATCH] * p, message


def test_mismatch_between_send_and_receive(comm):
    send = np.zeros(2 * comm.size)
    recv = np.zeros(3 * comm.size)
    code, message = error_of(lambda: pcoll.Alltoall(send, recv, comm))
    assert same_on_every_rank(comm, code) == [pcoll.ERR_MISMATCH] * comm.size, message


def test_local_checks(comm):
    send = np.zeros(comm.size)
    cases = [
        lambda: pcoll.alltoall(send, bytes(8 * comm.size), comm),     # read-only recvbuf
        lambda: pcoll.alltoall(send, np.zeros((comm.size + 1, 2))[:, 0], comm),  # strided
        lambda: pcoll.alltoall(send, [np.zeros(comm.size), "no_such_code"], comm),
        lambda: pcoll.alltoall(send, [np.zeros(comm.size), -1, MPI.DOUBLE], comm),
        lambda: pcoll.alltoallv(send, [np.zeros(comm.size), [1] * (comm.size + 1)], comm),
        lambda: pcoll.reduce_scatter(MPI.IN_PLACE, np.zeros(comm.size), comm),
        lambda: pcoll.alltoall(send, 42, comm),                          # not a buffer
        lambda: pcoll.alltoallw([send, [MPI.DOUBLE] * comm.size],         # types too many
                                [np.zeros(comm.size), [MPI.DOUBLE] * (comm.size + 1)], comm),
        lambda: pcoll.alltoallw([send, [MPI.DOUBLE] * comm.size],         # one type, no list
                                [np.zeros(comm.size), MPI.DOUBLE], comm),
        lambda: pcoll.alltoallw([send, [MPI.DOUBLE] * comm.size],         # not a datatype
                                [np.zeros(comm.size), [3] * comm.size], comm),
        lambda: pcoll.alltoallw([send, [MPI.DOUBLE] * comm.size],         # past the end
                                [np.zeros(comm.size), ([1] * comm.size, [8 * comm.size] *
                                                       comm.size), [MPI.DOUBLE] * comm.size],
                                comm),
        lambda: pcoll.alltoallw(send, np.zeros(comm.size), comm),        # not a W message
    ]
    results = [error_of(case) for case in cases]
    for code, message in results:
        assert code == pcoll.ERR_ARG and message.startswith("ERR_ARG: pcoll."), message
    with pytest.raises(TypeError):
        pcoll.alltoall(send, np.zeros(comm.size), "comm")


def test_plan_misuse(comm):
    send = np.arange(float(comm.size))
    recv = poisoned(comm.size, np.float64)
    plan = pcoll.Alltoall(send, recv, comm)
    wait_inactive = error_of(plan.wait)
    plan.start()
    start_twice = error_of(plan.start)
    free_active = error_of(plan.free)
    plan.wait()
    plan.free()
    assert wait_inactive[0] == pcoll.ERR_STATE, wait_inactive
    assert start_twice[0] == pcoll.ERR_STATE, start_twice
    assert free_active[0] == pcoll.ERR_STATE, free_active


def test_context_manager_keeps_the_error(comm):
    send = np.zeros(comm.size)
    recv = np.zeros(comm.size)
    with pytest.raises(KeyError):
        with pcoll.Alltoall(send, recv, comm) as plan:
            plan.start()
            raise KeyError("user error inside the block")
    plan.wait()
    plan.free()
