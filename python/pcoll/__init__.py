"""pcoll: planned MPI collectives (alltoall, alltoallv, alltoallw, their
neighbourhood forms, reduce-scatter) for mpi4py programs.

    from mpi4py import MPI
    import numpy as np
    import pcoll

    comm = MPI.COMM_WORLD
    send = np.arange(4.0 * comm.size)
    recv = np.empty_like(send)
    pcoll.alltoall(send, recv, comm)                   # one call
    with pcoll.Alltoall(send, recv, comm, algorithm="pairwise") as plan:
        for step in range(10):                         # a persistent plan
            send[:] = step
            plan.start()
            plan.wait()

Buffers are anything with the buffer protocol (NumPy arrays), or CuPy
arrays (__cuda_array_interface__) for a pcoll built with CUDA; messages
follow mpi4py ([buf, MPI.DOUBLE], [buf, counts, displs, MPI.DOUBLE], or the
datatype from the buffer's elements; alltoallw's [buf, (counts, displs),
types] with byte displacements; the neighbourhood calls, on a communicator
with a topology, a block per edge as mpi4py's Topocomm.Neighbor_alltoall
(v/w)); MPI.IN_PLACE as in MPI.  Errors raise
pcoll.Error with pcoll's code (.code, .name) and message (.message).  The
library is libpcoll (see pcoll._lib: $PCOLL_LIBRARY overrides the copy in
the package).
"""
from ._api import (STATUS_CODES, Alltoall, Alltoallv, Alltoallw, Error, NeighborAlltoall,
                   NeighborAlltoallv, NeighborAlltoallw, Plan, ReduceScatter,
                   ReduceScatterBlock, alltoall, alltoallv, alltoallw, neighbor_alltoall,
                   neighbor_alltoallv, neighbor_alltoallw, reduce_scatter, reduce_scatter_block)
from ._lib import lib as _clib, path as library_path

globals().update(STATUS_CODES)


def algorithms(collective):
    """The algorithm names of a collective ("alltoall", "alltoallv",
    "alltoallw", "neighbor_alltoall", "reduce_scatter"), as
    pcoll_algorithm_name lists them."""
    names, index = [], 0
    while True:
        name = _clib.pcoll_algorithm_name(collective.encode(), index)
        if name is None:
            return names
        names.append(name.decode())
        index += 1


__all__ = ["Alltoall", "Alltoallv", "Alltoallw", "Error", "NeighborAlltoall",
           "NeighborAlltoallv", "NeighborAlltoallw", "Plan", "ReduceScatter",
           "ReduceScatterBlock", "alltoall", "alltoallv", "alltoallw", "neighbor_alltoall",
           "neighbor_alltoallv", "neighbor_alltoallw", "reduce_scatter", "reduce_scatter_block",
           "algorithms", "library_path"] + sorted(STATUS_CODES)
