#!/usr/bin/env python3
"""Auto against the native MPI call, from pcoll-bench CSV files.

    table.py FILE.csv [FILE.csv ...]

One markdown table per (MPI, collective, np) found (the MPI is the file
name's first part, as bench/native/run.sh names them), the blocking
(one-shot) and persistent modes side by side: per size the native call's
median, auto's median and choice, and native / auto (>= 1: auto is as fast
or faster; pcoll aims at >= 0.95 at every size).  In persistent
mode the native column is the faster of the MPI's blocking call and its
persistent form (MPI_*_init), both timed in the same interleaved run.  The
last line of each table is the worst ratio of each mode.
"""
import csv
import os
import sys
from collections import OrderedDict

MODES = ("blocking", "persistent")


def human(n):
    n = int(n)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    return "%d B" % n


def cell(rows):
    """(text of the three cells, ratio or None) for one mode at one size."""
    if not rows:
        return "| | | ", None
    nat = [r for r in rows if r["kind"].startswith("native") and r["result"] == "ok"]
    auto = [r for r in rows if r["algorithm"] == "auto"]
    if not nat or not auto or auto[0]["result"] != "ok":
        return "| - | %s | - " % (auto[0]["result"] if auto else "-"), None
    best = min(nat, key=lambda r: float(r["median_us"]))
    t_nat, t_auto = float(best["median_us"]), float(auto[0]["median_us"])
    mark = "" if best["kind"] == "native" else " (init)"
    return "| %.2f%s | %.2f %s | %.2f " % (t_nat, mark, t_auto, auto[0]["runs"],
                                          t_nat / t_auto), t_nat / t_auto


def main(paths):
    groups = OrderedDict()
    for path in paths:
        mpi = os.path.basename(path).split("-")[0]
        with open(path) as f:
            for row in csv.DictReader(f):
                key = (mpi, row["coll"], row["nprocs"])
                size = groups.setdefault(key, OrderedDict()).setdefault(int(row["size"]), {})
                size.setdefault(row["mode"], []).append(row)
    for (mpi, coll, np), sizes in groups.items():
        print("\n%s, %s, np %s (us; native / auto >= 1: auto as fast or faster)\n" % (mpi, coll, np))
        print("| bytes | blocking: native | auto (runs) | native / auto "
              "| persistent: native | auto (runs) | native / auto |")
        print("|---:|---:|---|---:|---:|---|---:|")
        worst = {m: None for m in MODES}
        for size, modes in sizes.items():
            line = "| %s " % human(size)
            for m in MODES:
                text, ratio = cell(modes.get(m, []))
                line += text
                if ratio is not None:
                    worst[m] = ratio if worst[m] is None else min(worst[m], ratio)
            print(line + "|")
        print("\nworst native / auto: " + ", ".join(
            "%s %s" % (m, "-" if worst[m] is None else "%.2f" % worst[m]) for m in MODES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
