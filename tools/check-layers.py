#!/usr/bin/env python3
"""Check that src/'s folders include only downwards (docs/design.md, "Layers").

Every `#include "dir/file.h"` in a .c/.h/.cu file under src/ whose path names
a folder of src/ (a subfolder such as alltoallv/inplace is a folder of its
own) must point to the same folder or to a lower layer of RANK below; a
folder may include another of its own layer only where ALLOWED says so.
Neither folders nor files may include each other in a cycle.  Calls obey the
same rules: a .c file may call a function defined in another file of src/
only in its own or a lower layer, and no files call each other in a cycle
(definitions and calls are found as text: pcoll_*, pcoll__*, MPI_* and
PMPI_* names).  A function's name used without a call -- its address taken,
in a table or as a callback -- counts as a call of it: whoever calls through
that pointer later calls the function.  A library file calling an MPI_ name
that the drop-in defines is such an upward call.

    python3 tools/check-layers.py [--root REPO]     exit 0: clean, 1: violations
"""
import argparse
import os
import re
import sys

# Layer of every folder of src/, bottom (0) to top.  A new folder must be
# added here (an unknown folder is a violation).
RANK = {
    "base": 0,                 # status codes, memory, options, algo.h
    "patterns": 1,             # MPI-free peer/step math
    "model": 2,                # alpha-beta cost formulas (builders pick radices)
    "datatype": 3,             # type builders, flattening, typed copies
    "core": 4,                 # schedule, plan, contexts, cache, nodes, agreement
    "alltoall": 5,             # collectives: one file per algorithm
    "alltoallv": 5,
    "alltoallw": 5,
    "reduce_scatter": 5,
    "neighbor": 5,             # the neighbourhood all-to-alls
    "alltoallv/inplace": 6,    # engines serving several collectives
    "hier": 6,
    "gpu": 6,                  # device buffers: memory kinds, gpu_staged, copy kernel
    "select": 7,               # algorithm tables and automatic choices
    "api": 8,                  # public functions, the one entry path
    "pmpi": 9,                 # the drop-in library libpcoll_mpi
}
# Includes between two folders of the same layer that are allowed (the
# engines' includes of alltoall and alltoallv point down a layer).
ALLOWED = {
    ("alltoallv", "alltoall"),  # shares alltoall's direct builders
    ("alltoallw", "alltoallv"),  # alltoallv's arguments, zero-copy Bruck
    ("neighbor", "alltoall"),  # alltoall's message helpers (pcoll__a2a_items)
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# Comments and string literals (no calls in them).
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)
# A definition: a line starting with a return type (not static), the name,
# the parameters, then the body's brace.
DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b((?:pcoll|P?MPI)_\w+)\s*\([^;{}]*\)\s*\{",
                        re.M)
# A use of a name: a call, or (without the parenthesis) its address taken.
USE = re.compile(r"\b((?:pcoll|P?MPI)_\w+)\b")


def folder_of(path, folders):
    """The longest folder of src/ that path (relative to src/) lies in."""
    parts = path.split("/")
    for n in range(len(parts) - 1, 0, -1):
        d = "/".join(parts[:n])
        if d in folders:
            return d
    return None


def call_graph(src, cfiles):
    """{file: set(files it calls into, or takes a function's address from)}
    over the .c files of src/."""
    texts, defs = {}, {}
    for f in cfiles:
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            texts[f] = COMMENT.sub("", fh.read())
        for m in DEFINITION.finditer(texts[f]):
            defs.setdefault(m.group(1), f)
    graph = {}
    for f, text in texts.items():
        graph[f] = {defs[n] for n in set(USE.findall(text)) if n in defs and defs[n] != f}
    return graph


def find_cycle(graph):
    """One cycle of graph {node: set(nodes)} as a list [a, b, ..., a], or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="repository root (holds src/); default: this script's ..")
    args = ap.parse_args()
    src = os.path.join(args.root, "src")
    if not os.path.isdir(src):
        print(f"check-layers: no src/ under {args.root}", file=sys.stderr)
        return 2

    files, folders = [], set()
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        rel = os.path.relpath(dirpath, src).replace(os.sep, "/")
        if rel != ".":
            folders.add(rel)
        files += [f"{rel}/{f}" if rel != "." else f
                  for f in sorted(filenames) if f.endswith((".c", ".h", ".cu"))]

    def layer(d):
        return f"{d}={RANK[d]}" if d in RANK else f"{d}=unranked"

    violations, nincludes = [], 0
    fgraph, dgraph = {}, {}
    for d in sorted(folders - set(RANK)):
        if any(f.startswith(d + "/") and "/" not in f[len(d) + 1:] for f in files):
            violations.append(f"src/{d}: folder has no layer in tools/check-layers.py's RANK")
    for f in files:
        here = folder_of(f, folders) or "(src)"
        fgraph.setdefault(f, set())
        with open(os.path.join(src, f), encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                # As the compiler: next to the including file first, then src/.
                local = os.path.normpath(os.path.join(os.path.dirname(f), inc)).replace(os.sep, "/")
                target = local if os.path.isfile(os.path.join(src, local)) else inc
                there = folder_of(target, folders)
                if there is None:
                    continue  # pcoll.h, a system or generated header: not src/'s
                nincludes += 1
                if os.path.isfile(os.path.join(src, target)):
                    fgraph[f].add(target)
                if there == here:
                    continue
                dgraph.setdefault(here, set()).add(there)
                if here not in RANK or there not in RANK:
                    ok = False
                else:
                    ok = RANK[there] < RANK[here] or (
                        RANK[there] == RANK[here] and (here, there) in ALLOWED)
                if not ok:
                    violations.append(f"src/{f}:{lineno}: includes {inc} (layer {layer(there)}) "
                                      f"from layer {layer(here)}")

    cgraph = call_graph(src, [f for f in files if f.endswith(".c")])
    ncalls = sum(len(v) for v in cgraph.values())
    for f, callees in sorted(cgraph.items()):
        here = folder_of(f, folders)
        for g in sorted(callees):
            there = folder_of(g, folders)
            if here == there or here not in RANK or there not in RANK:
                continue
            if RANK[there] > RANK[here] or (RANK[there] == RANK[here]
                                            and (here, there) not in ALLOWED):
                violations.append(f"src/{f}: calls into src/{g} (layer {layer(there)}) "
                                  f"from layer {layer(here)}")
    cycle = find_cycle(cgraph)
    if cycle:
        violations.append("call cycle: " + " -> ".join("src/" + c for c in cycle))
    cycle = find_cycle(dgraph)
    if cycle:
        violations.append("folder cycle: " + " -> ".join(cycle))
    cycle = find_cycle(fgraph)
    if cycle:
        violations.append("include cycle: " + " -> ".join("src/" + c for c in cycle))

    for v in violations:
        print(v)
    print(f"layers: {len(files)} files, {nincludes} includes, {ncalls} calls between files, "
          f"{len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
