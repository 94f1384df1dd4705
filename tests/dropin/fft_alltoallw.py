#!/usr/bin/env python3
"""mpi4py-fft's PFFT forward and backward transforms, for `make dropin-fft`.

Run under mpiexec: every rank builds a PFFT of an N^3 real array (FFTW,
FFTW_ESTIMATE so that two runs plan alike), fills its part of u with a
function of the global indices, transforms forward and back `--iters`
times, and writes its spectrum and round trip to OUT.rank<r>.npz.  Its
transposes are MPI_Alltoallw calls with subarray types (one send and one
receive type per peer), which the drop-in serves when preloaded.

    fft_alltoallw.py run OUT [--n N] [--iters K] [--grid PR,PC]
    fft_alltoallw.py compare A B NP      exit 1 when the runs differ

`compare` checks that the two runs' spectra and round trips agree to 1e-12
(relative to the largest value) and that each round trip gives u back.
"""
import argparse
import sys

import numpy as np


def field(shape_global, slices):
    """u at the global indices of this rank's slices (the same on any grid)."""
    idx = np.meshgrid(*[np.arange(s.start, s.stop) for s in slices], indexing="ij")
    z, y, x = (i.astype(np.float64) for i in idx)
    n = shape_global[0]
    return (np.sin(2 * np.pi * x / n) * np.cos(4 * np.pi * y / n) + 0.25 * z / n +
            np.cos(2 * np.pi * (x + 2 * y + 3 * z) / n) + ((x * 7 + y * 13 + z * 29) % 17) / 17.0)


def run(args):
    from mpi4py import MPI
    from mpi4py_fft import PFFT, newDistArray

    comm = MPI.COMM_WORLD
    n = args.n
    grid = tuple(int(g) for g in args.grid.split(",")) if args.grid else None
    fft = PFFT(comm, (n, n, n), dtype=np.float64, grid=grid,
               planner_effort="FFTW_ESTIMATE")
    u = newDistArray(fft, False)
    u[:] = field((n, n, n), fft.local_slice(False))
    u_hat = newDistArray(fft, True)
    back = newDistArray(fft, False)
    for _ in range(args.iters):
        u_hat = fft.forward(u, u_hat)
        back = fft.backward(u_hat, back)
    np.savez(f"{args.out}.rank{comm.rank}.npz", u=np.asarray(u), u_hat=np.asarray(u_hat),
             back=np.asarray(back))
    if comm.rank == 0:
        print(f"fft_alltoallw: np {comm.size}, N {n}, {args.iters} forward+backward, "
              f"grid {args.grid or 'default'}")
    return 0


def compare(a, b, np_):
    worst = 0.0
    exact = True
    for r in range(np_):
        x = np.load(f"{a}.rank{r}.npz")
        y = np.load(f"{b}.rank{r}.npz")
        scale = max(float(np.abs(x["u_hat"]).max()), 1.0)
        for key in ("u_hat", "back"):
            d = float(np.abs(x[key] - y[key]).max()) / scale
            worst = max(worst, d)
            exact = exact and np.array_equal(x[key], y[key])
        for run in (x, y):
            if not np.allclose(run["back"], run["u"], rtol=0, atol=1e-10 * scale):
                print(f"rank {r}: backward(forward(u)) is not u")
                return 1
    verdict = "identical" if exact else f"differ by at most {worst:.2e} (relative)"
    print(f"fft_alltoallw: np {np_}: the spectra and round trips of both runs are {verdict}")
    return 0 if worst <= 1e-12 else 1


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--n", type=int, default=32)
    r.add_argument("--iters", type=int, default=3)
    r.add_argument("--grid", default="")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("np", type=int)
    args = p.parse_args(argv)
    return run(args) if args.cmd == "run" else compare(args.a, args.b, args.np)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
