#!/usr/bin/env python3
"""Gather the parts of bench/sim/scale.sh into one report.

  scale_report.py DIR

reads DIR/times.tsv (part, P, seconds, settings) and each part's merged
tables (DIR/PART-PN/*-PN.md, written by bench/sim/report.py), and writes
DIR/scale.md: every part's table under its settings and the wall-clock time
its simulation took, in the order they ran; and DIR/all.csv: every row of
every part (the merged CSVs of report.py) with its part's name in a first
column and the SMPI algorithm of its run's own call (SIM_NATIVE) in a last,
for plots across P.

Only the standard library.
"""
import csv
import glob
import os
import subprocess
import sys
import time


def commit():
    try:
        return subprocess.check_output(["git", "rev-parse", "--short", "HEAD"],
                                       cwd=os.path.dirname(os.path.abspath(__file__)),
                                       text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    with open(os.path.join(out, "times.tsv"), newline="") as f:
        parts = list(csv.DictReader(f, delimiter="\t"))
    total = next((r["seconds"] for r in parts if r["part"] == "total"), "?")
    lines = ["# pcoll at scale, simulated (make sim-scale)", "",
             f"Commit {commit()}, {time.strftime('%Y-%m-%d', time.gmtime())}; "
             f"{total} s of wall-clock time in all.", ""]
    rows, fields = [], ["part"]
    for r in parts:
        if r["part"] == "total":
            continue
        name = f"{r['part']}-P{r['P']}"
        lines.append(f"## {name}")
        lines.append("")
        if not r["seconds"]:
            lines += [r["settings"], ""]
            continue
        lines += [f"`{r['settings']}`; simulated in {r['seconds']} s.", ""]
        for md in sorted(glob.glob(os.path.join(out, name, "*-P*.md"))):
            if os.path.basename(md) == "summary.md":
                continue
            with open(md) as f:
                lines.append(f.read())
            merged = md[:-len(".md")] + ".csv"
            if os.path.exists(merged):
                with open(merged, newline="") as f:
                    native = [w.split("=", 1)[1] for w in r["settings"].split()
                              if w.startswith("SIM_NATIVE=")]
                    for row in csv.DictReader(f):
                        row["part"] = r["part"]
                        row["smpi_native"] = native[0] if native else ""
                        rows.append(row)
                        fields += [k for k in row if k not in fields]
    with open(os.path.join(out, "scale.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "all.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    print(f"scale_report.py: {os.path.join(out, 'scale.md')}, {os.path.join(out, 'all.csv')}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
