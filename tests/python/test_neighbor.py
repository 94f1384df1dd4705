"""pcoll.neighbor_alltoall(v/w) and the NeighborAlltoall(v/w) plans against
mpi4py's Topocomm.Neighbor_alltoall(v/w) on two topologies: a 2-D Cartesian
grid periodic in its first dimension (both neighbours one rank where it has
1 or 2 ranks; MPI_PROC_NULL neighbours across the borders of the second,
whose receive blocks must stay poisoned) and a distributed graph with a
self edge, repeated edges (np 1 and 2) and, from np 3, a rank without
edges.  Zero counts, gaps between blocks, a datatype per edge, plans
restarted with new input, the message forms, local check failures."""
import numpy as np
import pytest
from mpi4py import MPI

import pcoll
from conftest import POISON, error_of, poisoned, same_on_every_rank

N = 3                                   # items per edge of neighbor_alltoall
INT = MPI.INT32_T.Get_size()


@pytest.fixture(params=["cart", "graph"])
def topo(request, comm):
    if request.param == "cart":
        made = comm.Create_cart(MPI.Compute_dims(comm.size, 2), periods=[True, False])
    else:
        # Rank r sends to r+1, r and r+2 of the first m ranks; the last rank
        # (from np 3) has no edges.
        m, r = (comm.size - 1 if comm.size >= 3 else comm.size), comm.rank
        offsets = [1, 0, 2] if r < m else []
        made = comm.Create_dist_graph_adjacent([(r - o) % m for o in offsets],
                                               [(r + o) % m for o in offsets],
                                               [1] * len(offsets), [2] * len(offsets))
    yield made
    made.Free()


def edge_count(src, dst):
    """Items along an edge (1 where an end is MPI_PROC_NULL: nothing moves)."""
    if MPI.PROC_NULL in (src, dst):
        return 1
    return (src + 2 * dst) % 3          # zeros included


def layout(counts, slot):
    """Item displacements: slot(count) items per block, then a gap of one."""
    displs, at = [], 0
    for c in counts:
        displs.append(at)
        at += slot(c) + 1
    return displs, max(at, 1)


def edges(topo):
    """Counts and displacements of both directions, buffer lengths."""
    r = topo.rank
    sc = [edge_count(r, d) for d in topo.outedges]
    rc = [edge_count(s, r) for s in topo.inedges]
    sd, slen = layout(sc, lambda c: 2 * c)        # room for every other item
    rd, rlen = layout(rc, lambda c: c)
    return (sc, sd, slen), (rc, rd, rlen)


def send_data(topo, length, step):
    return (np.arange(length) + topo.rank * 1000 + step * 100000).astype(np.int32)


def w_types(topo, every2):
    """Send blocks to odd edges as every other item, the rest contiguous."""
    stypes = [every2 if k % 2 else MPI.INT32_T for k in range(topo.outdegree)]
    return stypes, [MPI.INT32_T] * topo.indegree


@pytest.fixture
def every2():
    made = MPI.INT32_T.Create_resized(0, 2 * INT)
    made.Commit()
    yield made
    made.Free()


def messages(topo, form, send, recv, every2):
    """The (send, receive) messages of a form for mpi4py and pcoll alike."""
    (sc, sd, _), (rc, rd, _) = edges(topo)
    if form == "alltoall":
        return [send, N, MPI.INT32_T], [recv, N, MPI.INT32_T]
    if form == "alltoallv":
        return [send, (sc, sd), MPI.INT32_T], [recv, (rc, rd), MPI.INT32_T]
    stypes, rtypes = w_types(topo, every2)
    return ([send, (sc, [d * INT for d in sd]), stypes],
            [recv, (rc, [d * INT for d in rd]), rtypes])


def lengths(topo, form):
    (_, _, slen), (_, _, rlen) = edges(topo)
    if form == "alltoall":
        return max(N * topo.outdegree, 1), max(N * topo.indegree, 1)
    return slen, rlen


def reference(topo, form, send, every2):
    expect = poisoned(lengths(topo, form)[1], np.int32)
    smsg, rmsg = messages(topo, form, send, expect, every2)
    getattr(topo, "Neighbor_" + form)(smsg, rmsg)
    return expect


FORMS = ["alltoall", "alltoallv", "alltoallw"]
ONE_SHOT = {"alltoall": pcoll.neighbor_alltoall, "alltoallv": pcoll.neighbor_alltoallv,
            "alltoallw": pcoll.neighbor_alltoallw}
PLAN = {"alltoall": pcoll.NeighborAlltoall, "alltoallv": pcoll.NeighborAlltoallv,
        "alltoallw": pcoll.NeighborAlltoallw}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("algorithm", [None, "direct"])
def test_one_shot(topo, form, algorithm, every2):
    send = send_data(topo, lengths(topo, form)[0], 0)
    recv = poisoned(lengths(topo, form)[1], np.int32)
    smsg, rmsg = messages(topo, form, send, recv, every2)
    ONE_SHOT[form](smsg, rmsg, topo, algorithm=algorithm)
    assert np.array_equal(recv, reference(topo, form, send, every2))


@pytest.mark.parametrize("form", FORMS)
def test_plan_restarted(topo, form, every2):
    send = send_data(topo, lengths(topo, form)[0], 0)
    recv = poisoned(lengths(topo, form)[1], np.int32)
    smsg, rmsg = messages(topo, form, send, recv, every2)
    results = []
    with PLAN[form](smsg, rmsg, topo) as plan:
        algorithm = plan.algorithm
        for step in range(1, 4):
            send[:] = send_data(topo, send.size, step)
            recv[:] = POISON
            plan.start()
            while not plan.test():
                pass
            results.append(np.array_equal(recv, reference(topo, form, send, every2)))
    assert algorithm in pcoll.algorithms("neighbor_alltoall")
    assert results == [True] * 3


def test_message_forms(topo):
    """A buffer alone (blocks split evenly, the datatype from the dtype),
    [buf, datatype], packed alltoallv blocks, [buf, counts, displs, types],
    and an Intracomm object for the topology communicator."""
    outdeg, indeg = topo.outdegree, topo.indegree
    send = send_data(topo, N * outdeg, 0)
    expect = poisoned(N * indeg, np.int32)
    topo.Neighbor_alltoall(send, expect)
    got = [poisoned(N * indeg, np.int32) for _ in range(4)]
    pcoll.neighbor_alltoall(send, got[0], topo)
    pcoll.neighbor_alltoall([send, MPI.INT32_T], [got[1], MPI.INT32_T], MPI.Intracomm(topo))
    pcoll.neighbor_alltoallv([send, [N] * outdeg], [got[2], [N] * indeg], topo)
    pcoll.neighbor_alltoallw(
        [send, [N] * outdeg, [k * N * INT for k in range(outdeg)], [MPI.INT32_T] * outdeg],
        [got[3], [N] * indeg, [k * N * INT for k in range(indeg)], [MPI.INT32_T] * indeg], topo)
    for g in got:
        assert np.array_equal(g, expect)


@pytest.mark.parametrize("form", FORMS)
def test_local_failure_on_one_rank(topo, form, every2):
    """The last rank's receive message is malformed (a negative count, or
    one array entry more than its in-degree): every rank's plan raises
    ERR_ARG (none is left waiting); the one-shot call fails on that rank
    alone, before any communication, as in MPI."""
    bad = topo.rank == topo.size - 1
    send = send_data(topo, lengths(topo, form)[0], 0)
    recv = poisoned(lengths(topo, form)[1], np.int32)
    smsg, rmsg = messages(topo, form, send, recv, every2)
    if bad and form == "alltoall":
        rmsg[1] = -1
    elif bad:
        rmsg = [recv, (rmsg[1][0] + [1], rmsg[1][1] + [0]), rmsg[2]]
        if form == "alltoallw":
            rmsg[2] = rmsg[2] + [MPI.INT32_T]
    code, message = error_of(lambda: PLAN[form](smsg, rmsg, topo))
    one_shot = error_of(lambda: ONE_SHOT[form](smsg, rmsg, topo))[0] if bad else pcoll.ERR_ARG
    codes = same_on_every_rank(topo, code)
    assert codes == [pcoll.ERR_ARG] * topo.size, codes
    assert one_shot == pcoll.ERR_ARG
    assert not bad or "recvbuf" in message, message


def test_refused(comm, topo):
    """A communicator without a topology, and MPI.IN_PLACE: ERR_ARG on
    every rank."""
    send = np.zeros(N * comm.size, dtype=np.int32)
    recv = np.zeros(N * comm.size, dtype=np.int32)
    plain = error_of(lambda: pcoll.NeighborAlltoall(send, recv, comm))[0]
    oneshot = error_of(lambda: pcoll.neighbor_alltoallv(send, recv, comm))[0]
    in_place = error_of(lambda: pcoll.NeighborAlltoall(MPI.IN_PLACE, recv, topo))[0]
    assert (plain, oneshot, in_place) == (pcoll.ERR_ARG,) * 3
