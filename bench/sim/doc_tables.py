#!/usr/bin/env python3
"""Regenerate the simulated tables of docs/simulation.md.

  doc_tables.py [--results DIR] [--doc FILE]

Replaces what lies between the markers `<!-- sim-tables begin -->` and
`<!-- sim-tables end -->` in FILE (default docs/simulation.md) with one
section per result group below: its title, the command that made it, and
the Markdown table bench/sim/report.py wrote for every platform and P in
DIR/GROUP (default build/sim/results), without the smpirun lines (each
group's .md files keep them).  Groups without results are left out.  The
prose around the markers is written by hand.

Only the standard library.
"""
import argparse
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BEGIN, END = "<!-- sim-tables begin -->", "<!-- sim-tables end -->"

# (directory under the results, section title, the command that made it)
GROUPS = [
    ("alltoall", "alltoall, every algorithm (persistent plans), SMPI's alltoall algorithms",
     'make sim SIM_P="64 256" (multicore-ib at P = 256: SIM_SIZES=8)'),
    ("alltoall-P1024", "alltoall at P = 1024 (the logarithmic algorithms; see the text)",
     'make sim SIM_PLATFORMS=fat-ib SIM_P=1024 SIM_SIZES=8 SIM_REPS=1 SIM_ALGORITHMS=bruck_basic,'
     'bruck_modified,bruck_zerocopy,bruck_radix,hier,auto SIM_BASELINES="bruck ompi mpich"'),
    ("alltoall-compute", "alltoall with the local work charged (`SIM_COMPUTE=yes`)",
     'make sim SIM_COMPUTE=yes SIM_P=64 SIM_SIZES="8 256 4096" '
     'SIM_BASELINES="bruck basic_linear mpich ompi" SIM_WORK=1e9'),
    ("reduce_scatter-v2",
     "reduce_scatter (size = bytes of one rank's result block; the vector is P blocks)",
     'make sim SIM_COLL=reduce_scatter SIM_SIZES="8 1024 16384 131072"'),
    ("reduce_scatter",
     "reduce_scatter before `recursive_halving` paired the nearest ranks first "
     "(same command, the library of commit 3cbd3d9)",
     "make -f bench/sim/build.mk SIM_DIR=build/sim-3cbd3d9 in a checkout of 3cbd3d9, then "
     'make sim SIM_COLL=reduce_scatter SIM_SIZES="8 1024 16384 131072" '
     "SIM_BIN=build/sim-3cbd3d9/pcoll-bench"),
    ("reduce_scatter-P1024", "reduce_scatter at P = 1024",
     'make sim SIM_COLL=reduce_scatter SIM_PLATFORMS=fat-ib SIM_P=1024 SIM_SIZES="8 1024" '
     "(1024 B is over the memory cap) SIM_REPS=1 SIM_ALGORITHMS=mst,recursive_halving,ring,"
     'ring_prepost,auto SIM_BASELINES="mpich ompi ompi_ring mpich_noncomm"'),
    ("alltoallv_inplace-a1-b1",
     "in-place alltoallv, random layouts, aux 1% of the data, b = 1 "
     "(size = bytes each rank sends in all)",
     "PCOLL_BENCH_AUX_PERCENT=1 PCOLL_AUX_BUFFERS=1 make sim SIM_COLL=alltoallv_inplace "
     'SIM_PLATFORMS=fat-ib SIM_P=64 SIM_SIZES="1048576 4194304" SIM_BENCH_ARGS="--pattern random" '
     'SIM_BASELINES="ompi mpich" SIM_REPS=1'),
    ("alltoallv_inplace-a10-b8", "in-place alltoallv, aux 10%, b = 8",
     "PCOLL_BENCH_AUX_PERCENT=10 PCOLL_AUX_BUFFERS=8 make sim (same)"),
    ("alltoallv_inplace-a100-b64", "in-place alltoallv, aux 100%, b = 64",
     "PCOLL_BENCH_AUX_PERCENT=100 PCOLL_AUX_BUFFERS=64 make sim (same)"),
    ("alltoallv-uniform", "alltoallv, uniform pattern, persistent",
     'make sim SIM_COLL=alltoallv SIM_PLATFORMS=fat-ib SIM_P=64 SIM_SIZES="8 256 4096"; P = 256: '
     'SIM_P=256 SIM_SIZES="8 256" SIM_REPS=1 SIM_ALGORITHMS=pairwise,scattered,bruck_zerocopy,'
     'padded_bruck,hier,auto SIM_BASELINES="bruck mpich ompi"'),
    ("alltoallv-random", "alltoallv, random pattern, persistent",
     'make sim SIM_COLL=alltoallv SIM_PLATFORMS=fat-ib SIM_P=256 SIM_SIZES="8 256" SIM_REPS=1 '
     "SIM_ALGORITHMS=pairwise,scattered,bruck_zerocopy,padded_bruck,hier,auto "
     'SIM_BASELINES="bruck mpich ompi" SIM_BENCH_ARGS="--pattern random"'),
    ("alltoallv-random-blocking", "alltoallv, random pattern, one-shot calls",
     "make sim SIM_COLL=alltoallv SIM_MODE=blocking SIM_PLATFORMS=fat-ib SIM_P=64 "
     'SIM_SIZES="8 256 4096" SIM_BENCH_ARGS="--pattern random" SIM_BASELINES="mpich ompi"'),
    ("hier-x12", "node-aware alltoall, 12 ranks per node (16, 64 and 156 nodes)",
     'make sim SIM_PLATFORMS=multicore-ib SIM_CORES=12 SIM_P="192 768" SIM_SIZES="10 100 1000" '
     'SIM_ALGORITHMS=hier,bruck_radix,bruck_basic,auto SIM_BASELINES="mpich ompi" SIM_NATIVE=mpich '
     'SIM_REPS=1 SIM_WORK=inf SIM_MEM_GB=16; P = 1872: SIM_P=1872 SIM_SIZES="10 100" '
     "SIM_ALGORITHMS=hier,auto; SMPI ompi at 1000 B on 768 ranks did not finish in 15 minutes"),
    ("hier-x12-1872-1000",
     "node-aware alltoall, 156 nodes x 12 ranks, 1000 B "
     "(reference: SMPI's bruck; mpich and ompi cannot be simulated at this size here)",
     "make sim SIM_PLATFORMS=multicore-ib SIM_CORES=12 SIM_P=1872 SIM_SIZES=1000 SIM_ALGORITHMS=hier "
     'SIM_BASELINES="" SIM_NATIVE=bruck SIM_REPS=1 SIM_WORK=inf SIM_MEM_GB=20 SIM_MEM_FACTOR=5'),
    ("hier-x12-1872-radix",
     "node-aware alltoall, 156 nodes x 12 ranks, 10 B, the radix the cost model takes since "
     "it charges a step's bytes to the node's one link (156, one step; the table above has "
     "its earlier choice, radix 13)",
     "make sim SIM_PLATFORMS=multicore-ib SIM_CORES=12 SIM_P=1872 SIM_SIZES=10 "
     'SIM_ALGORITHMS=hier,auto SIM_BASELINES="" SIM_NATIVE=mpich SIM_REPS=1 SIM_WORK=inf '
     "SIM_MEM_GB=16"),
    ("multi-x12",
     "multiple all-to-all (one alltoall per row of an R x C grid from MPI_Dims_create: "
     "16 x 12 and 32 x 24; rows are consecutive ranks), 12 ranks per node",
     "PCOLL_BENCH_TILE=3x4 make sim SIM_COLL=alltoall_multi SIM_PLATFORMS=multicore-ib SIM_CORES=12 "
     'SIM_P="192 768" SIM_SIZES="10 100 1000" SIM_BASELINES="mpich ompi" SIM_REPS=1 SIM_WORK=inf '
     "SIM_MEM_GB=16 (the 3 x 4 tiles divide neither grid, so rows stay consecutive)"),
]


def platform_and_p(path):
    m = re.match(r"(.*)-P(\d+)\.md$", os.path.basename(path))
    return (m.group(1), int(m.group(2))) if m else (path, 0)


def section(results, group, title, command):
    """One group's section, or None without results."""
    files = sorted(glob.glob(os.path.join(results, group, "*-P*.md")), key=platform_and_p)
    if not files:
        return None
    out = [f"#### {title}\n\n`{command}`\n"]
    for path in files:
        with open(path) as f:
            text = f.read().split("Commands (run in the repository root")[0].rstrip()
        out.append(text.replace("#### ", "##### ", 1) + "\n")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(ROOT, "build", "sim", "results"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "simulation.md"))
    args = ap.parse_args()
    with open(args.doc) as f:
        doc = f.read()
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(BEGIN) > doc.index(END):
        print(f"doc_tables.py: {args.doc} needs one {BEGIN} ... {END} pair", file=sys.stderr)
        return 1
    parts = [s for s in (section(args.results, *g) for g in GROUPS) if s]
    head, tail = doc[:doc.index(BEGIN) + len(BEGIN)], doc[doc.index(END):]
    with open(args.doc, "w") as f:
        f.write(head + "\n\n" + "\n".join(parts).rstrip() + "\n\n" + tail)
    print(f"doc_tables.py: {len(parts)} groups from {args.results} into {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
