#!/usr/bin/env python3
"""Plot pcoll-bench's CSV: time per call against size, log-log.

    pcoll-plot.py RESULTS.csv OUT.png

One line per algorithm (the median of each size; sizes where a row was wrong,
failed or not timed are left out; `auto` is one line whatever it chose); the
native MPI rows are black: the MPI
call solid, MPI-4's *_init dashed, forced native algorithms (--native-sweep)
dotted with their own markers.  A size of 0 bytes cannot be shown on a log
axis and is skipped.
"""
import csv
import sys
from collections import OrderedDict

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

NATIVE_STYLE = {"native": "-", "native_persistent": "--", "native_forced": ":"}
MARKERS = "os^vD<>ph*Xd"


def read_rows(path):
    """The rows of the CSV as dicts, and the run's description."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"pcoll-plot: {path} has no rows")
    first = rows[0]
    title = f"{first['coll']}, {first['mode']} mode, {first['nprocs']} ranks"
    return rows, title


def series(rows):
    """{(name, kind): ([sizes], [medians])} of the rows that were timed."""
    lines = OrderedDict()
    for r in rows:
        size = int(r["size"])
        if r["result"] != "ok" or not r["median_us"] or size <= 0:
            continue
        xs, ys = lines.setdefault((r["algorithm"], r["kind"]), ([], []))
        xs.append(size)
        ys.append(float(r["median_us"]))
    return lines


def plot(lines, title, out):
    fig, ax = plt.subplots(figsize=(10, 6))
    colors = plt.get_cmap("tab20").colors
    forced = 0
    for i, ((name, kind), (xs, ys)) in enumerate(lines.items()):
        if kind in NATIVE_STYLE:
            marker = MARKERS[forced % len(MARKERS)] if kind == "native_forced" else "o"
            forced += kind == "native_forced"
            ax.plot(xs, ys, NATIVE_STYLE[kind], color="black", marker=marker, ms=4,
                    lw=2 if kind == "native" else 1.2, label=name)
        else:
            ax.plot(xs, ys, "-", marker=MARKERS[i % len(MARKERS)], ms=4, lw=1.2, label=name,
                    color=colors[i % len(colors)])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("bytes per block")
    ax.set_ylabel("time per call (us, median)")
    ax.set_title(f"pcoll-bench: {title}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: pcoll-plot.py RESULTS.csv OUT.png")
    rows, title = read_rows(argv[1])
    lines = series(rows)
    if not lines:
        sys.exit(f"pcoll-plot: nothing to plot in {argv[1]} (no timed row with size > 0)")
    plot(lines, title, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
