#!/usr/bin/env python3
"""Auto against the native MPI call, from pcoll-bench CSV files.

    table.py FILE.csv [FILE.csv ...]

One markdown table per (MPI, collective, mode, np) found (the MPI is the
file name's first part, as bench/native/run.sh names them): per size the native
call's median, auto's median and choice, and native / auto (>= 1: auto is
as fast or faster; the goal of issue 19 is >= 0.95 at every size).  In
persistent mode the native column is the faster of the MPI's blocking call
and its MPI-4 persistent form, both timed in the same interleaved run.
"""
import csv
import os
import sys
from collections import OrderedDict


def human(n):
    n = int(n)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    return "%d B" % n


def main(paths):
    groups = OrderedDict()
    for path in paths:
        mpi = os.path.basename(path).split("-")[0]
        with open(path) as f:
            for row in csv.DictReader(f):
                key = (mpi, row["coll"], row["mode"], row["nprocs"])
                groups.setdefault(key, OrderedDict()).setdefault(int(row["size"]), []).append(row)
    worst_all = None
    for (mpi, coll, mode, np), sizes in groups.items():
        print("\n%s, %s, %s, np %s\n" % (mpi, coll, mode, np))
        print("| bytes | native (us) | auto (us) | auto runs | native / auto |")
        print("|---:|---:|---:|---|---:|")
        worst = None
        for size, rows in sizes.items():
            nat = [r for r in rows if r["kind"].startswith("native") and r["result"] == "ok"]
            auto = [r for r in rows if r["algorithm"] == "auto"]
            if not nat or not auto or auto[0]["result"] != "ok":
                print("| %s | - | - | %s | - |" % (human(size), auto[0]["result"] if auto else "-"))
                continue
            best = min(nat, key=lambda r: float(r["median_us"]))
            t_nat, t_auto = float(best["median_us"]), float(auto[0]["median_us"])
            ratio = t_nat / t_auto
            worst = ratio if worst is None else min(worst, ratio)
            print("| %s | %.2f (%s) | %.2f | %s | %.2f |" % (human(size), t_nat, best["algorithm"],
                                                           t_auto, auto[0]["runs"], ratio))
        if worst is not None:
            print("\nworst native / auto: %.2f" % worst)
            worst_all = worst if worst_all is None else min(worst_all, worst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
