"""Device buffers (CuPy, __cuda_array_interface__): the pointer goes to the
library, which must be built with CUDA; skipped where cupy is missing."""
import numpy as np
import pytest

import pcoll
from conftest import POISON

cupy = pytest.importorskip("cupy")


def test_alltoall_device(comm):
    n = 3
    host = np.array([comm.rank * 100 + j for j in range(n * comm.size)], dtype=np.float64)
    send = cupy.asarray(host)
    recv = cupy.full(n * comm.size, POISON, dtype=cupy.float64)
    with pcoll.Alltoall(send, recv, comm) as plan:
        plan.start()
        plan.wait()
    expect = np.empty_like(host)
    comm.Alltoall(host, expect)
    assert np.array_equal(cupy.asnumpy(recv), expect)
