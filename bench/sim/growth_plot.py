#!/usr/bin/env python3
"""How cost grows with P: simulated time per call and plan memory per rank
of every algorithm of bench/sim/scale.sh's parts, against P, log-log.

  growth_plot.py OUT.png DIR [DIR...] [--predicted CSV]

reads DIR/all.csv (bench/sim/scale_report.py; one DIR per make sim-scale run,
e.g. one at SIM_SCALE_P="64 256" and one at the default P) and draws two
panels: the median simulated time per call at each part's small size (the
checked one) against P, one line per part and algorithm; and the peak extra
memory per rank of pcoll's plans (pcoll_mem_peak's growth over plan creation,
the maximum over ranks: the CSV's peak_extra_bytes) against P.  `auto` rows
and folded sizes are left out of the time panel (auto is one of the others;
the folded sizes differ from P to P).  --predicted: bench/sim/predict.c's
CSV, drawn dotted in the time panel for the alltoall and reduce_scatter_block
parts' algorithms at the same sizes.  Prints, for every point with a
prediction, simulated / predicted.  Needs matplotlib (make plot-deps).
"""
import csv
import math
import os
import sys


def load(dirs):
    rows = []
    for d in dirs:
        path = os.path.join(d, "all.csv")
        if os.path.exists(path):
            with open(path, newline="") as f:
                rows += list(csv.DictReader(f))
    return rows


def value(r, key):
    try:
        v = float(r.get(key) or "nan")
    except ValueError:
        return math.nan
    return v


def series(rows, key, keep):
    """(part, label) -> sorted [(P, value)] for the rows keep() accepts."""
    out = {}
    for r in rows:
        if not keep(r):
            continue
        v = value(r, key)
        if math.isnan(v) or v <= 0:
            continue
        name = r["algorithm"] if r["kind"] == "pcoll" else "SMPI " + r["algorithm"].replace("smpi:", "")
        if r["kind"] == "native":
            name = "SMPI " + (r.get("smpi_native") or "default")
        out.setdefault((r["part"], name), {})[int(r["nprocs"])] = v
    return {k: sorted(v.items()) for k, v in out.items() if len(v) > 1}


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    args = sys.argv[2:]
    predicted = []
    if "--predicted" in args:
        i = args.index("--predicted")
        with open(args[i + 1], newline="") as f:
            predicted = list(csv.DictReader(f))
        args = args[:i] + args[i + 2:]
    rows = load(args)
    checked = [r for r in rows if r.get("result") == "ok" and r["algorithm"] != "auto"]
    small = {}
    for r in checked:
        key = (r["part"], r["nprocs"])
        small[key] = min(small.get(key, 1 << 62), int(r["size"]))
    times = series(checked, "median_us",
                   lambda r: int(r["size"]) == small[(r["part"], r["nprocs"])])
    mem = series([r for r in rows if r["kind"] == "pcoll" and r["algorithm"] != "auto"],
                 "peak_extra_bytes",
                 lambda r: int(r["size"]) == small.get((r["part"], r["nprocs"]), -1))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 6))
    for (part, name), pts in sorted(times.items()):
        ax1.plot([p for p, _ in pts], [v for _, v in pts], marker="o",
                 linestyle="--" if name.startswith("SMPI") else "-", label=f"{part}: {name}")
    model = {}
    for r in predicted:
        model.setdefault((r["coll"], r["algorithm"]), {})[(int(r["nprocs"]), int(r["size"]))] = \
            float(r["predicted_us"])
    for (part, name), pts in sorted(times.items()):
        key = (part, "native" if name.startswith("SMPI") else name)
        if key not in model or name.startswith("SMPI"):
            continue
        sizes = {int(r["nprocs"]): small[(r["part"], r["nprocs"])] for r in checked if r["part"] == part}
        mp = [(p, model[key].get((p, sizes.get(p, -1)))) for p, _ in pts]
        mp = [(p, v) for p, v in mp if v]
        if mp:
            ax1.plot([p for p, _ in mp], [v for _, v in mp], linestyle=":", marker="x",
                     label=f"{part}: {name}, model")
        for p, sim in pts:
            pred = dict(mp).get(p)
            if pred:
                print(f"{part} {name} P={p}: simulated {sim:.1f} us, model {pred:.1f} us, "
                      f"ratio {sim / pred:.2f}")
    for (part, name), pts in sorted(mem.items()):
        ax2.plot([p for p, _ in pts], [v / 1024 for _, v in pts], marker="o", label=f"{part}: {name}")
    for ax, title, unit in ((ax1, "simulated time per call, small size", "us"),
                            (ax2, "plan memory per rank (peak, max over ranks)", "KiB")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("P (ranks)")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)
    print(f"growth_plot.py: {sys.argv[1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
