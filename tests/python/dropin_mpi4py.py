"""A Python program that uses MPI through mpi4py only, run with the drop-in
libpcoll_mpi preloaded (tests/python/CMakeLists.txt): mpi4py's Alltoall,
Alltoallv, Reduce_scatter_block and Reduce_scatter, blocking, non-blocking
and persistent, checked against closed-form values.  The log that
PCOLL_DROPIN_LOG=1 prints at MPI_Finalize must show pcoll serving them
(tests/dropin/run.cmake reads the dropin-expect line)."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
p, r = comm.size, comm.rank
failures = []


def check(name, got, expect):
    if not np.array_equal(got, expect):
        failures.append("%s: rank %d got %s, expected %s" % (name, r, got, expect))


# Alltoall, blocking then persistent (restarted with new data).
n = 3
send = np.array([r * 1000 + j * 10 + k for j in range(p) for k in range(n)], dtype=np.float64)
recv = np.full(p * n, -1.0)
comm.Alltoall(send, recv)
check("Alltoall", recv, [i * 1000 + r * 10 + k for i in range(p) for k in range(n)])
if hasattr(comm, "Alltoall_init"):
    request = comm.Alltoall_init(send, recv)
    for step in range(2):
        send += 1
        recv[:] = -1
        request.Start()
        request.Wait()
        check("Alltoall_init", recv,
              [i * 1000 + r * 10 + k + step + 1 for i in range(p) for k in range(n)])
    request.Free()

# Alltoallv: count (i -> j) = (i + j) % 3 + 1.
scounts = [(r + j) % 3 + 1 for j in range(p)]
rcounts = [(i + r) % 3 + 1 for i in range(p)]
send = np.concatenate([np.full(c, r * 100 + j, dtype=np.int32) for j, c in enumerate(scounts)])
recv = np.full(sum(rcounts), -1, dtype=np.int32)
comm.Ialltoallv([send, scounts], [recv, rcounts]).Wait()
check("Ialltoallv", recv,
      np.concatenate([np.full(c, i * 100 + r, dtype=np.int32) for i, c in enumerate(rcounts)]))
comm.Alltoallv([send, scounts], [recv, rcounts])
check("Alltoallv", recv,
      np.concatenate([np.full(c, i * 100 + r, dtype=np.int32) for i, c in enumerate(rcounts)]))

# Reduce-scatter: element k of rank i's vector is i + k; the sum over ranks.
block = 2
vector = np.arange(p * block, dtype=np.float64) + r
out = np.full(block, -1.0)
comm.Reduce_scatter_block(vector, out, MPI.SUM)
check("Reduce_scatter_block", out, [p * (r * block + k) + p * (p - 1) / 2 for k in range(block)])
counts = [block] * p
out[:] = -1
comm.Reduce_scatter(vector, out, counts, MPI.SUM)
check("Reduce_scatter", out, [p * (r * block + k) + p * (p - 1) / 2 for k in range(block)])

if r == 0:
    print("dropin-expect: MPI_Alltoall MPI_Alltoallv MPI_Ialltoallv MPI_Reduce_scatter_block "
          "MPI_Reduce_scatter" + (" MPI_Alltoall_init" if hasattr(comm, "Alltoall_init") else ""),
          flush=True)
for failure in failures:
    print("FAIL", failure, flush=True)
sys.exit(1 if failures else 0)
