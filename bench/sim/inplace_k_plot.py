#!/usr/bin/env python3
"""The in-place neighbourhood exchange against the out-of-place one as k grows.

  inplace_k_plot.py DIR [DIR...] [--out PNG] [--bound US]

Each DIR is one run of bench/sim/inplace_k.sh (its settings file says the aux
memory, P and platform): DIR/neighbor_alltoallv_inplace-k*.csv and
DIR/neighbor_alltoallv-k*.csv.  Prints a Markdown table per DIR (per k: the
per-edge MPI_Neighbor_alltoallv, `direct`, `inplace`, inplace / direct, and
the extra memory of each) and draws the simulated time per call against k,
log2 x axis, into PNG (default: the first DIR's inplace-k.png): `inplace` at
every DIR's aux memory, `direct` and the per-edge call of the first DIR, and
1.5x `direct` dotted.  --bound US draws the least time any in-place exchange
can take with the first DIR's aux memory (docs/inplace-alltoallv.md,
"Measured (neighbourhood form)": transfers of at most the aux memory, a
grant's round trip each).  The plot needs matplotlib (make plot-deps);
without it the tables alone are printed and the plot is skipped with a
message.
"""
import csv
import glob
import os
import re
import sys

NAMES = ["MPI_Neighbor_alltoallv", "direct", "inplace"]


def settings(d):
    """The run's settings file (KEY=value lines), {} when missing."""
    out = {}
    path = os.path.join(d, "settings")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.strip().split("=", 1)
                    out[k] = v
    return out


def load(d):
    """{k: {row name: (median us, extra bytes or None)}}, and the bytes per rank."""
    table, per_rank = {}, None
    for path in glob.glob(os.path.join(d, "neighbor_alltoallv*-k*.csv")):
        m = re.search(r"-k(\d+)\.csv$", path)
        if not m:
            continue
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("result") == "ok"]
        for r in rows:
            name = r["algorithm"]
            if r["coll"] == "neighbor_alltoallv" and name != "direct":
                continue  # the per-edge row comes from the in-place run
            extra = r.get("peak_extra_bytes") or None
            table.setdefault(int(m.group(1)), {})[name] = (
                float(r["median_us"]), int(extra) if extra else None)
            per_rank = per_rank or r.get("bytes_per_rank")
    return table, per_rank


def size(b):
    if b is None:
        return "n/a"
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return "%.1f %s" % (b / scale, unit)
    return "%d B" % b


def markdown(table, title):
    out = [title, "",
           "| k | per-edge `MPI_Neighbor_alltoallv` | `direct` | `inplace` | inplace / direct"
           " | extra memory: per-edge / `direct` / `inplace` |",
           "|---:|---:|---:|---:|---:|---|"]
    for k in sorted(table):
        t = table[k]
        cells = ["%.1f us" % t[n][0] if n in t else "-" for n in NAMES]
        ratio = ("%.1fx" % (t["inplace"][0] / t["direct"][0])
                 if "inplace" in t and "direct" in t else "-")
        mem = " / ".join(size(t[n][1]) if n in t else "-" for n in NAMES)
        out.append("| %d | %s | %s | %s |" % (k, " | ".join(cells), ratio, mem))
    return "\n".join(out)


def series(table, name, scale=1.0):
    ks = [k for k in sorted(table) if name in table[k]]
    return ks, [scale * table[k][name][0] for k in ks]


def plot(runs, png, bound):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot skipped: no matplotlib (make plot-deps)")
        return
    first, per_rank = runs[0][1], runs[0][2]
    fig, ax = plt.subplots(figsize=(8.0, 4.4))
    for s, table, _ in runs:
        ax.plot(*series(table, "inplace"), "o-",
                label="inplace, aux %s%%" % s.get("AUX_PERCENT", "?"))
    ax.plot(*series(first, "direct"), "s-", color="black", label="direct (out of place)")
    ax.plot(*series(first, "MPI_Neighbor_alltoallv"), "x--", color="grey",
            label="per-edge MPI_Neighbor_alltoallv")
    ax.plot(*series(first, "direct", 1.5), ":", color="grey", label="1.5x direct")
    if bound:
        ax.axhline(bound, linestyle="-.", color="grey", linewidth=1,
                   label="bound for in place at aux %s%%" % runs[0][0].get("AUX_PERCENT", "?"))
    ks = sorted({k for _, t, _ in runs for k in t})
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("k (random destinations a rank)")
    ax.set_ylabel("simulated us per call")
    s = runs[0][0]
    where = ", P = %s, %s" % (s["P"], s["PLATFORM"]) if "P" in s and "PLATFORM" in s else ""
    per = ", %s a rank" % size(int(per_rank)) if per_rank else ""
    ax.set_title("sparse redistribution in place vs out of place" + where + per, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("plot: " + png)


def take(argv, flag):
    if flag not in argv:
        return argv, None
    i = argv.index(flag)
    return argv[:i] + argv[i + 2:], argv[i + 1]


def main(argv):
    argv, png = take(argv[1:], "--out")
    argv, bound = take(argv, "--bound")
    if not argv:
        sys.exit(__doc__)
    runs = []
    for d in argv:
        table, per_rank = load(d)
        if not table:
            sys.exit("no rows in %s" % d)
        s = settings(d)
        runs.append((s, table, per_rank))
        print(markdown(table, "%s (aux %s%%)" % (d, s.get("AUX_PERCENT", "?"))))
        print()
    plot(runs, png or os.path.join(argv[0], "inplace-k.png"), float(bound) if bound else None)


if __name__ == "__main__":
    main(sys.argv)
