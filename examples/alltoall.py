"""pcoll from Python: one alltoall, then a persistent plan restarted with new
data, checked against mpi4py's own Alltoall.

    mpiexec -n 4 python examples/alltoall.py
"""
import numpy as np
from mpi4py import MPI

import pcoll

comm = MPI.COMM_WORLD
n = 4                                    # items per rank pair
send = np.arange(n * comm.size, dtype=np.float64) + 100 * comm.rank
recv = np.empty_like(send)

pcoll.alltoall(send, recv, comm)         # the automatic choice of algorithm

# Plan once, run many times: the buffers are bound to the plan.
with pcoll.Alltoall(send, recv, comm, algorithm="pairwise") as plan:
    if comm.rank == 0:
        print(plan)                      # the schedule: rounds, peers, bytes
    algorithm = plan.algorithm
    for step in range(3):
        send += 1                        # new data between runs
        plan.start()
        plan.wait()
        expect = np.empty_like(send)
        comm.Alltoall(send, expect)
        assert np.array_equal(recv, expect), (step, recv, expect)

if comm.rank == 0:
    print("pcoll %s on %d ranks: OK (%s)" % (algorithm, comm.size, pcoll.library_path))
