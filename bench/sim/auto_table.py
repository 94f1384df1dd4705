#!/usr/bin/env python3
"""Tables of pcoll's auto against the native collective, from simulated runs.

  auto_table.py DIR/PLAT-PN.csv ...

For each merged CSV that bench/sim/report.py wrote, prints a Markdown table
with one row per size: the MPI's own collective as a plain call (the row
pcoll-bench times next to pcoll's, "SMPI NAME" when run.sh had SIM_NATIVE),
pcoll's `native` plan, `auto` with the algorithm it chose, auto's time over
each of the two, and the fastest of the other pcoll algorithms in the run.
Times are medians in simulated microseconds.  docs/simulation.md
("`auto` against the MPI's call, simulated") holds its output.

Only the standard library.
"""
import csv
import os
import re
import sys


def label(path):
    m = re.match(r"(.*)-P(\d+)\.csv$", os.path.basename(path))
    return f"{m.group(1)}, P = {m.group(2)}" if m else path


def size_text(n):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


def us(v):
    return f"{v:.1f}" if v is not None else "-"


def table(path):
    by_size = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["result"] != "ok" or not row["median_us"]:
                continue
            by_size.setdefault(int(row["size"]), []).append(row)
    out = [f"##### {label(path)}", "",
           "| size | SMPI native (us) | pcoll native (us) | auto (us) | auto chose "
           "| auto / SMPI native | auto / pcoll native | best other pcoll (us) |",
           "|---:|---:|---:|---:|---|---:|---:|---|"]
    for size in sorted(by_size):
        rows = by_size[size]
        mpi = next((float(r["median_us"]) for r in rows if r["kind"] == "native"), None)
        mine = {r["algorithm"]: r for r in rows if r["kind"] == "pcoll"}
        nat = float(mine["native"]["median_us"]) if "native" in mine else None
        auto = float(mine["auto"]["median_us"]) if "auto" in mine else None
        chose = mine["auto"]["runs"] if "auto" in mine else "-"
        others = [(float(r["median_us"]), a) for a, r in mine.items() if a not in ("auto", "native")]
        best = f"{min(others)[0]:.1f} {min(others)[1]}" if others else "-"
        out.append(f"| {size_text(size)} | {us(mpi)} | {us(nat)} | {us(auto)} | {chose} "
                   f"| {ratio(auto, mpi)} | {ratio(auto, nat)} | {best} |")
    return "\n".join(out) + "\n"


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    print("\n".join(table(p) for p in argv), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
