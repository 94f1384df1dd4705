"""Shared fixtures of the Python tests.  They run under mpiexec (every rank
runs the same tests in the same order); a test makes its collective calls
first and asserts at its end, so a failing rank never leaves others waiting
in a collective.  POISON fills receive buffers before each run."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll

POISON = -77


@pytest.fixture
def comm():
    comm = MPI.COMM_WORLD.Dup()
    yield comm
    comm.Free()


def poisoned(shape, dtype):
    return np.full(shape, POISON, dtype=dtype)


def error_of(call):
    """Run call(); (code, message) of the pcoll.Error it raised, or (0, "")."""
    try:
        call()
    except pcoll.Error as exc:
        return exc.code, str(exc)
    return 0, ""


def same_on_every_rank(comm, value):
    """Every rank's value (gathered), to assert that all agree."""
    return comm.allgather(value)
