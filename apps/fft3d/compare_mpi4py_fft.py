#!/usr/bin/env python3
"""Compare pcoll-fft3d with mpi4py-fft's PFFT on the same grid and size.

Not a test: an outside reference for docs/fft3d.md (`make fft-compare`).

1. pcoll-fft3d runs --transpose all with --dump: every transpose form is
   timed, and the spectrum of its test input is written by rank 0
   ([kz][ky][kx], kx fastest, complex doubles).
2. This script runs again under the same launcher in worker mode: mpi4py-fft's
   PFFT (FFTW backend) on the real array u[z, y, x] of the same shape, split
   over the same PR x PC grid (z over PR, y over PC, x whole), fed with the
   same input (the hash of fft3d's check.c, in unsigned 32-bit arithmetic);
   its unnormalised forward spectrum is compared with the dump, then
   forward+backward pairs are timed.
3. Rank 0 of the driver prints both results side by side.

Exits 1 when mpi4py-fft (or numpy) cannot be imported, with the reason, and
when the spectra differ by more than --tol (relative to max |spectrum|).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fft3d", help="the pcoll-fft3d program")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--mpiexec-flags", default="", help="extra launcher flags")
    p.add_argument("--np", type=int, help="ranks (default PR*PC)")
    p.add_argument("--n", type=int, default=64, help="cube size")
    p.add_argument("--grid", default="2x2", help="PRxPC, PR*PC = np")
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--tol", type=float, default=1e-12)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ref", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def grid_dims(grid):
    m = re.fullmatch(r"(\d+)[xX](\d+)", grid)
    if not m:
        sys.exit(f"compare_mpi4py_fft: bad --grid {grid!r} (want PRxPC)")
    return int(m.group(1)), int(m.group(2))


def hash_input(np, shape):
    """check.c's test input on the global grid u[z, y, x], in [-1, 1)."""
    z, y, x = np.meshgrid(*(np.arange(s, dtype=np.uint32) for s in shape), indexing="ij")
    h = (x * np.uint32(73856093)) ^ (y * np.uint32(19349663)) ^ (z * np.uint32(83492791))
    h ^= h >> np.uint32(13)
    h *= np.uint32(0x5BD1E995)
    h ^= h >> np.uint32(15)
    return (h % np.uint32(20001)).astype(np.float64) / 10000.0 - 1.0


def worker(args):
    """Runs on every rank: PFFT, comparison with the dump, timing."""
    import numpy as np
    from mpi4py import MPI
    from mpi4py_fft import PFFT

    comm = MPI.COMM_WORLD
    pr, pc = grid_dims(args.grid)
    shape = (args.n, args.n, args.n)
    fft = PFFT(comm, shape, axes=(0, 1, 2), dtype=np.float64, grid=(pr, pc))
    u = np.empty(fft.shape(False), dtype=np.float64)
    u_hat = np.empty(fft.shape(True), dtype=np.complex128)
    u[...] = hash_input(np, shape)[fft.local_slice(False)]

    # The spectrum against pcoll-fft3d's, and the round trip.
    fft.forward(u, u_hat, normalize=False)
    nxc = args.n // 2 + 1
    ref = np.fromfile(args.ref, dtype=np.complex128).reshape(args.n, args.n, nxc)
    mine = ref[fft.local_slice(True)]
    err = comm.allreduce(float(np.max(np.abs(u_hat - mine), initial=0.0)), op=MPI.MAX)
    ref_max = float(np.max(np.abs(ref)))
    v = np.empty_like(u)
    fft.backward(u_hat, v, normalize=False)
    rt = comm.allreduce(float(np.max(np.abs(v / np.prod(shape) - u), initial=0.0)), op=MPI.MAX)

    # Forward+backward pairs after one untimed pair, slowest rank.
    fft.forward(u, u_hat, normalize=False)
    fft.backward(u_hat, v, normalize=False)
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(args.iters):
        fft.forward(u, u_hat, normalize=False)
        fft.backward(u_hat, v, normalize=False)
    t = comm.allreduce((MPI.Wtime() - t0) / args.iters, op=MPI.MAX)
    if comm.rank == 0:
        print(json.dumps({"rel_error": err / ref_max, "roundtrip": rt, "ms": 1e3 * t,
                          "mpi4py_fft": __import__("mpi4py_fft").__version__}))


def launch(args, argv):
    cmd = [args.mpiexec, "-n", str(args.np)] + shlex.split(args.mpiexec_flags) + argv
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        sys.exit(f"compare_mpi4py_fft: the command above failed (status {r.returncode})")
    return r.stdout


def pcoll_times(out):
    """{mode: (total, fft, transpose)} in ms from pcoll-fft3d's output."""
    pat = re.compile(r"transpose (\w+) iters \d+\n.*total ([\d.]+) ms, fft ([\d.]+) ms, "
                     r"transpose ([\d.]+) ms")
    return {m[0]: tuple(float(v) for v in m[1:]) for m in pat.findall(out)}


def driver(args):
    try:
        import numpy  # noqa: F401
        import mpi4py_fft  # noqa: F401
    except ImportError as e:
        sys.exit(f"compare_mpi4py_fft: cannot import mpi4py-fft ({e}); install it into the "
                 f"MPI's venv: `make fft-compare` does (pip install mpi4py mpi4py-fft)")
    if not args.fft3d or not os.access(args.fft3d, os.X_OK):
        sys.exit(f"compare_mpi4py_fft: no pcoll-fft3d program at {args.fft3d!r} (--fft3d)")
    pr, pc = grid_dims(args.grid)
    args.np = args.np or pr * pc
    if pr * pc != args.np:
        sys.exit(f"compare_mpi4py_fft: grid {args.grid} needs {pr * pc} ranks, not {args.np}")
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "spectrum.bin")
        common = ["--n", str(args.n), "--grid", args.grid, "--iters", str(args.iters)]
        out = launch(args, [args.fft3d] + common + ["--transpose", "all", "--dump", ref])
        res = launch(args, [sys.executable, os.path.abspath(__file__), "--worker", "--ref",
                            ref] + common)
    theirs = json.loads(res.strip().splitlines()[-1])
    ours = pcoll_times(out)
    print(f"\nN {args.n}, grid {args.grid}, np {args.np}, {args.iters} iterations, "
          f"ms per forward+backward pair (slowest rank)")
    print(f"{'code':<26} {'total':>9} {'fft':>9} {'transpose':>10}")
    for mode, (tot, fft, xp) in ours.items():
        print(f"{'pcoll-fft3d ' + mode:<26} {tot:9.3f} {fft:9.3f} {xp:10.3f}")
    print(f"{'mpi4py-fft ' + theirs['mpi4py_fft'] + ' PFFT':<26} {theirs['ms']:9.3f} "
          f"{'-':>9} {'-':>10}")
    ok = theirs["rel_error"] < args.tol
    print(f"spectrum: max |mpi4py-fft - pcoll-fft3d| / max |spectrum| = "
          f"{theirs['rel_error']:.3e} (< {args.tol:.0e}) {'ok' if ok else 'FAIL'}")
    print(f"mpi4py-fft round trip: max |backward(forward(u)) / N^3 - u| = "
          f"{theirs['roundtrip']:.3e}")
    return 0 if ok else 1


def main(argv):
    args = parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    return driver(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
