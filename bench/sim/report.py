#!/usr/bin/env python3
"""Merge the simulated pcoll-bench runs of bench/sim/run.sh into tables.

  report.py --out DIR --tag PLAT-PN --platform PLAT --nprocs N [--coll C]
      reads DIR/TAG.pcoll.csv (pcoll algorithms + SMPI's default MPI call
      of collective C, alltoall unless given) and DIR/TAG.smpi-NAME.csv (one SMPI algorithm each),
      writes DIR/TAG.csv (pcoll-bench's CSV format; the SMPI algorithms are
      rows of kind native_forced named smpi:NAME), DIR/TAG.md (a Markdown
      table: one row per algorithm, one column per size) and, when
      tools/pcoll-plot.py exists, DIR/TAG.png.
  report.py --out DIR --summary [--coll C]
      concatenates every DIR/*.md table, in platform and P order, into
      DIR/summary.md.

Only the standard library; the plot script brings its own needs.
"""
import argparse
import csv
import glob
import math
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The native call each pcoll-bench collective is measured against.
NATIVE = {
    "alltoall": "MPI_Alltoall",
    "alltoall_multi": "MPI_Alltoall on every row",
    "alltoallv": "MPI_Alltoallv",
    "alltoallv_inplace": "MPI_Alltoallv, out of place",
    "reduce_scatter": "MPI_Reduce_scatter",
    "reduce_scatter_block": "MPI_Reduce_scatter_block",
}


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# Results with a time: "folded" rows ran on folded buffers (PCOLL_BENCH_FOLD,
# run.sh SIM_FOLD=1), whose output is not checked.
TIMED = ("ok", "folded")


def median(row):
    try:
        v = float(row["median_us"])
    except (KeyError, ValueError):
        return math.nan
    return v if row.get("result") in TIMED else math.nan


def dnf(log):
    """The wall-clock limit a run did not finish in (run.sh SIM_TIMEOUT's
    LOG.dnf), or None."""
    try:
        with open(log[:-len(".log")] + ".dnf") as f:
            return f.read().strip()
    except OSError:
        return None


def requested(log, option):
    """The comma-separated values of a pcoll-bench option in a log's command."""
    words = command_of(log).split()
    for i, w in enumerate(words[:-1]):
        if w == option:
            return words[i + 1].split(",")
    return []


def command_of(log):
    """The command line run.sh wrote at the top of a log, paths relative."""
    try:
        with open(log) as f:
            first = f.readline().rstrip("\n")
    except OSError:
        return ""
    return first[2:].replace(ROOT + "/", "") if first.startswith("$ ") else ""


def timing(log):
    """Simulated seconds (SMPI's display-timing) and run.sh's CPU line."""
    try:
        with open(log) as f:
            text = f.read()
    except OSError:
        return None
    sim = re.search(r"Simulated time: ([0-9.e+-]+) seconds", text)
    cpu = re.search(r"^cpu: ([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s wall", text, re.M)
    limit = dnf(log)
    if limit == "0":
        return "#   not run (the run's deadline had passed)"
    if limit:
        return f"#   did not finish in {limit} s (stopped there; the rows it measured are kept)"
    if not sim or not cpu:
        return None
    return (f"#   simulated {float(sim.group(1)):.4f} s; simulation: "
            f"{float(cpu.group(1)) + float(cpu.group(2)):.0f} s CPU, {float(cpu.group(3)):.0f} s wall")


def merge(args):
    out, tag = args.out, args.tag
    pcoll_csv = os.path.join(out, tag + ".pcoll.csv")
    rows = read_rows(pcoll_csv) if os.path.exists(pcoll_csv) else []
    baselines = []
    logs = sorted(glob.glob(os.path.join(out, tag + ".smpi-*.log")))
    for log in logs:
        name = log[len(os.path.join(out, tag + ".smpi-")):-len(".log")]
        baselines.append(name)
        path = log[:-len(".log")] + ".csv"
        for r in read_rows(path) if os.path.exists(path) else []:
            if r["kind"] != "native":
                continue
            r["algorithm"], r["kind"] = "smpi:" + name, "native_forced"
            rows.append(r)
    cut = [log for log in glob.glob(os.path.join(out, tag + ".*.log")) if dnf(log)]
    if not rows and not cut:
        print(f"report.py: no results for {tag}", file=sys.stderr)
        return 1
    sizes = sorted({int(r["size"]) for r in rows} |
                   {int(v) for log in glob.glob(os.path.join(out, tag + ".*.log"))
                    if dnf(log) for v in requested(log, "--sizes") if v.isdigit()})
    default = {int(r["size"]): median(r) for r in rows if r["kind"] == "native"}
    for r in rows:  # speedup against SMPI's default MPI call, as pcoll-bench does
        m, d = median(r), default.get(int(r["size"]), math.nan)
        r["speedup"] = "" if math.isnan(m) or math.isnan(d) else f"{d / m:.4f}"
    # Every column of any file, in first-seen order: files written before a
    # column was added (peak_extra_bytes) merge with newer ones.
    fields = list(dict.fromkeys(k for r in rows for k in r)) or ["coll"]
    merged = os.path.join(out, tag + ".csv")
    with open(merged, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    write_table(args, rows, sizes, baselines)
    plot(merged, os.path.join(out, tag + ".png"))
    return 0


def label(r, coll, native=""):
    if r["kind"] == "native":
        if native:  # the pcoll run forced SMPI's algorithm (run.sh SIM_NATIVE)
            return f"SMPI {native}"
        return f"SMPI default ({NATIVE.get(coll, coll)})"
    if r["kind"] == "native_forced":
        return "SMPI " + r["algorithm"][len("smpi:"):]
    runs = r.get("runs") or ""
    return "pcoll " + r["algorithm"] + (f" (= {runs})" if runs else "")


def unfinished(args, baselines):
    """Table label -> the limit its run did not finish in, for the rows of
    the runs SIM_TIMEOUT cut: every SMPI baseline's, and the pcoll run's
    native row and --algorithms (as far as they are named)."""
    out = {}
    for b in baselines:
        limit = dnf(os.path.join(args.out, f"{args.tag}.smpi-{b}.log"))
        if limit:
            out["SMPI " + b] = limit
    log = os.path.join(args.out, f"{args.tag}.pcoll.log")
    limit = dnf(log)
    if limit:
        out[label({"kind": "native"}, args.coll, args.native)] = limit
        for a in requested(log, "--algorithms"):
            if a not in ("all", "auto"):
                out["pcoll " + a] = limit
    return out


def write_table(args, rows, sizes, baselines):
    order = {"native": 0, "native_forced": 1, "pcoll": 2}
    rows = sorted(rows, key=lambda r: order.get(r["kind"], 3))
    names, cells = [], {}
    for r in rows:
        name = label(r, args.coll, args.native)
        if name not in cells:
            names.append(name)
            cells[name] = {}
        cells[name][int(r["size"])] = r
    cut = unfinished(args, baselines)
    for name in cut:  # a row its run never reached
        if not any(n == name or n.startswith(name + " (") for n in names):
            names.append(name)
            cells[name] = {}
    folded = any(r.get("result") == "folded" for r in rows)
    best = {s: min((median(c[s]) for c in cells.values() if s in c and not math.isnan(median(c[s]))),
                   default=math.nan) for s in sizes}
    lines = [f"#### {args.platform}, P = {args.nprocs}", "",
             "Median time per call in simulated microseconds (bold: fastest at that size).", "",
             "| algorithm | " + " | ".join(f"{s} B" for s in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for name in names:
        out = []
        for s in sizes:
            r = cells[name].get(s)
            m = median(r) if r else math.nan
            limit = cut.get(name.split(" (")[0])
            if r is None and limit == "0":
                out.append("not run")
            elif r is None and limit:
                out.append(f"did not finish in {limit} s")
            elif r is None:
                out.append("")
            elif math.isnan(m):
                out.append(r.get("result", "") or "-")
            else:
                mark = "\u2020" if r.get("result") == "folded" else ""
                out.append(f"**{m:.1f}**{mark}" if m == best[s] else f"{m:.1f}{mark}")
        lines.append(f"| {name} | " + " | ".join(out) + " |")
    lines.append("| best pcoll / best SMPI | " + " | ".join(ratio(cells, s) for s in sizes) + " |")
    if folded:
        lines += ["", "\u2020 folded buffers (one memory under every simulated rank): "
                  "timed, result not checked; the unmarked sizes were checked against "
                  "SMPI's result."]
    lines += ["", "Commands (run in the repository root; hostfile written by bench/sim/run.sh):", "", "```"]
    for kind in ["pcoll"] + ["smpi-" + b for b in baselines]:
        log = os.path.join(args.out, f"{args.tag}.{kind}.log")
        cmd = command_of(log)
        note = timing(log)
        if cmd:
            lines.append(cmd)
        if note:
            lines.append(note)
    lines += ["```", ""]
    with open(os.path.join(args.out, args.tag + ".md"), "w") as f:
        f.write("\n".join(lines))


def ratio(cells, size):
    """Best pcoll time over best SMPI time (<1: pcoll faster), with names;
    `auto` is a chooser, not a contender."""
    def best_of(prefix):
        cand = [(median(c[size]), n) for n, c in cells.items()
                if n.startswith(prefix) and not n.startswith("pcoll auto")
                and size in c and not math.isnan(median(c[size]))]
        return min(cand, default=None)
    p, s = best_of("pcoll "), best_of("SMPI ")
    if not p or not s:
        return "-"
    pn = p[1][len("pcoll "):].split(" ")[0]
    sn = s[1][len("SMPI "):].split(" ")[0]
    return f"{p[0] / s[0]:.2f} ({pn} / {sn})"


def plot(csv_path, png):
    script = os.path.join(ROOT, "tools", "pcoll-plot.py")
    if not os.path.exists(script):
        return
    rc = subprocess.call([sys.executable, script, csv_path, png])
    if rc != 0:
        print(f"report.py: {script} failed for {csv_path} (exit {rc})", file=sys.stderr)


def summary(args):
    def key(path):
        m = re.match(r"(.*)-P(\d+)\.md$", os.path.basename(path))
        return (m.group(1), int(m.group(2))) if m else (path, 0)
    tables = sorted((p for p in glob.glob(os.path.join(args.out, "*-P*.md"))), key=key)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(f"### Simulated {args.coll} (bench/sim/run.sh)\n\n")
        for p in tables:
            with open(p) as t:
                f.write(t.read() + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag")
    ap.add_argument("--platform")
    ap.add_argument("--nprocs")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--coll", default="alltoall", choices=sorted(NATIVE))
    ap.add_argument("--native", default="",
                    help="SMPI algorithm the pcoll run's native call was forced to (run.sh SIM_NATIVE)")
    args = ap.parse_args()
    if args.summary:
        return summary(args)
    if not (args.tag and args.platform and args.nprocs):
        ap.error("--tag, --platform and --nprocs are needed without --summary")
    return merge(args)


if __name__ == "__main__":
    sys.exit(main())
