#!/usr/bin/env bash
# bench/sim/run.sh -- pcoll-bench simulated at scale with SimGrid SMPI.
#
# For every platform and process count P: one smpirun of pcoll-bench timing
# every pcoll algorithm of the collective SIM_COLL (persistent plans) next to
# SMPI's default MPI call, then one smpirun per SMPI algorithm of that
# collective (--cfg=smpi/alltoall:NAME, smpi/alltoallv:NAME or
# smpi/reduce_scatter:NAME; pcoll-bench --native-only) for the baselines;
# bench/sim/report.py merges them into one CSV, a Markdown table and a plot
# per platform and P.  `make sim` builds build/sim/pcoll-bench and runs this.
#
# Settings (environment variables; `make sim VAR=...` passes them on):
#   SIM_COLL=alltoall        pcoll-bench --coll: alltoall, alltoallv,
#                            alltoallv_inplace, reduce_scatter,
#                            reduce_scatter_block, alltoall_multi
#   SIM_BENCH_ARGS=""        more pcoll-bench options (--pattern random, ...)
#   SIM_MODE=persistent      pcoll-bench --mode of the pcoll run: persistent
#                            (plans made once, start+wait timed) or blocking
#                            (one-shot calls)
#   SIM_P="64 256"           process counts (1024 and 4096 also work; see
#                            docs/simulation.md for their run times)
#   SIM_PLATFORMS="fat-ib multicore-ib"   files bench/platforms/NAME.xml
#                            (also flat: the round-number LogGP network,
#                            1 us, 12.5 GB/s, 0.5 us per message and side;
#                            flat-nogrant: flat with messages under 16 B
#                            free of overheads, a what-if for diagnosis)
#   SIM_SIZES="8 256 4096 40000"  bytes per block, before the memory cap
#   SIM_MEM_GB=8             memory cap: a size is left out at P when
#                            FACTOR * P^2 * size > SIM_MEM_GB GiB (all P
#                            simulated ranks live in this one process; P *
#                            size for alltoallv_inplace, whose sizes are a
#                            rank's whole buffer); FACTOR is SIM_MEM_FACTOR,
#                            or SIM_FOLD_MEM_FACTOR for a folded size
#   SIM_FOLD=0               1: PCOLL_BENCH_FOLD, every collective's data
#                            buffers of the sizes from SIM_FOLD_FROM on are
#                            SMPI_SHARED_MALLOC'd (one memory under every
#                            rank; their output is not checked: the rows
#                            say "folded"), so a rank holds only pcoll's
#                            scratch (alltoallv_inplace: its in-place
#                            buffer, still checked)
#   SIM_FOLD_FROM            smallest folded size; default: every size but
#                            the smallest of SIM_SIZES, which is checked
#                            (alltoallv_inplace: every size, 1)
#   SIM_MEM_FACTOR=10        bytes held per byte of one rank's send buffer,
#                            unfolded: send, receive and reference buffers,
#                            plan scratch, SMPI's packed copies of
#                            derived-type messages (Bruck variants: ~9,
#                            linear: ~3.4)
#   SIM_FOLD_MEM_FACTOR      the same for a folded size: pcoll's scratch
#                            (Bruck variants: ~2; 3 by default, 1.5 for
#                            alltoallv_inplace)
#   SIM_TIMEOUT=0            wall-clock seconds per smpirun (0: none); a run
#                            cut there keeps the rows it wrote (pcoll-bench
#                            writes its CSV row by row) and the table says
#                            "did not finish in N s" where rows are missing
#   SIM_DEADLINE             a time (seconds since the epoch) no smpirun
#                            runs past: each one's limit is cut to it, and
#                            none starts after it (bench/sim/scale.sh's
#                            budget)
#   SIM_WORK=3e9             simulation-time cap: a size is left out when
#                            P^2 * size * (ranks per node) > SIM_WORK, a rough
#                            proxy for the flows SimGrid must share links
#                            among (multicore-ib at P=256 keeps 8 and 256 B;
#                            one linear call of 4096 B there takes tens of
#                            CPU minutes); SIM_WORK=inf keeps everything
#   SIM_REPS=2 SIM_WARMUP=0  timed and warm-up calls; without SIM_COMPUTE the
#                            simulation is deterministic: every repetition
#                            gives the same time (ci95 0), and the checking
#                            call before them already warms up; with
#                            SIM_MODE=blocking SIM_WARMUP defaults to 1: a
#                            one-shot call's shape is decided (its plan made
#                            by every rank together) at its second call
#   SIM_ALGORITHMS=all       pcoll algorithms (--algorithms)
#   SIM_BASELINES            SMPI algorithms of the collective, each a
#                            separate smpirun ("" none); default per SIM_COLL:
#                            alltoall(_multi): bruck pair basic_linear ring
#                            mpich ompi mvapich2 impi; alltoallv(_inplace):
#                            bruck pair ring ompi_basic_linear mpich ompi
#                            mvapich2 impi; reduce_scatter(_block):
#                            ompi_basic_recursivehalving ompi_ring
#                            ompi_butterfly mpich_pair mpich_rdb mpich_noncomm
#                            mpich ompi mvapich2 impi
#   SIM_NATIVE=""            SMPI algorithm of the pcoll run's own native
#                            call (its reference result and its "SMPI
#                            default" row, then labelled "SMPI NAME"); empty:
#                            SMPI's default, whose linear exchanges take hours
#                            to simulate at 768+ ranks; a baseline of that
#                            name is then not run again
#   SIM_CORES=16             ranks per node on the multicore platforms
#   SIM_COMPUTE=no           smpi/simulate-computation: "yes" also charges the
#                            CPU time spent between two MPI calls (pcoll's
#                            copies and executor, pcoll-bench's timing code,
#                            smpi_compat.c, and SMPI's own timer and call
#                            path: about 1 us per MPI call here), timed on
#                            this machine -- not reproducible; see the docs
#                            ("What the simulation charges and what it does
#                            not")
#   SIM_CPU_THRESHOLD=1e-6   smpi/cpu-threshold (SMPI's default): with
#                            SIM_COMPUTE=yes, a stretch between two MPI calls
#                            shorter than this is not charged at all, a
#                            longer one is charged in full
#   SIM_HOST_SPEED=100Gf     smpi/host-speed; equal to the platforms' host
#                            speed, so computation is injected 1:1
#   SIM_BIN=build/sim/pcoll-bench  SIM_OUT=build/sim/results/SIM_COLL
#   SIM_PYTHON=python3       runs report.py (and tools/pcoll-plot.py, which
#                            needs matplotlib: the Makefile passes .venv's)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIM_P=${SIM_P:-"64 256"}
SIM_COLL=${SIM_COLL:-alltoall}
SIM_BENCH_ARGS=${SIM_BENCH_ARGS:-}
SIM_MODE=${SIM_MODE:-persistent}
SIM_PLATFORMS=${SIM_PLATFORMS:-"fat-ib multicore-ib"}
SIM_SIZES=${SIM_SIZES:-"8 256 4096 40000"}
SIM_MEM_GB=${SIM_MEM_GB:-8}
SIM_FOLD=${SIM_FOLD:-0}
if [ "$SIM_COLL" = alltoallv_inplace ]; then
    SIM_FOLD_FROM=${SIM_FOLD_FROM:-1}
else
    SIM_FOLD_FROM=${SIM_FOLD_FROM:-$(echo "$SIM_SIZES" | tr ' ' '\n' | sort -n | awk 'NR == 1 { print $1 + 1 }')}
fi
SIM_MEM_FACTOR=${SIM_MEM_FACTOR:-10}
SIM_FOLD_MEM_FACTOR=${SIM_FOLD_MEM_FACTOR:-$([ "$SIM_COLL" = alltoallv_inplace ] && echo 1.5 || echo 3)}
SIM_TIMEOUT=${SIM_TIMEOUT:-0}
SIM_DEADLINE=${SIM_DEADLINE:-}
SIM_WORK=${SIM_WORK:-3e9}
SIM_REPS=${SIM_REPS:-2}
SIM_WARMUP=${SIM_WARMUP:-$([ "$SIM_MODE" = blocking ] && echo 1 || echo 0)}
SIM_ALGORITHMS=${SIM_ALGORITHMS:-all}
case $SIM_COLL in
    alltoall | alltoall_multi)
        SIM_KEY=alltoall DEFAULT_BASELINES="bruck pair basic_linear ring mpich ompi mvapich2 impi" ;;
    alltoallv | alltoallv_inplace)
        SIM_KEY=alltoallv DEFAULT_BASELINES="bruck pair ring ompi_basic_linear mpich ompi mvapich2 impi" ;;
    reduce_scatter | reduce_scatter_block)
        SIM_KEY=reduce_scatter
        DEFAULT_BASELINES="ompi_basic_recursivehalving ompi_ring ompi_butterfly mpich_pair mpich_rdb mpich_noncomm mpich ompi mvapich2 impi" ;;
    *) echo "bench/sim/run.sh: SIM_COLL=$SIM_COLL: not a collective pcoll-bench simulates" >&2; exit 1 ;;
esac
SIM_BASELINES=${SIM_BASELINES-$DEFAULT_BASELINES}
SIM_NATIVE=${SIM_NATIVE:-}
SIM_CORES=${SIM_CORES:-16}
SIM_COMPUTE=${SIM_COMPUTE:-no}
SIM_HOST_SPEED=${SIM_HOST_SPEED:-100Gf}
SIM_CPU_THRESHOLD=${SIM_CPU_THRESHOLD:-1e-6}
SIM_BIN=${SIM_BIN:-$ROOT/build/sim/pcoll-bench}
SIM_OUT=${SIM_OUT:-$ROOT/build/sim/results/$SIM_COLL}
SIM_PYTHON=${SIM_PYTHON:-python3}

die() { echo "bench/sim/run.sh: $*" >&2; exit 1; }
if [ "$SIM_FOLD" = 1 ]; then
    export PCOLL_BENCH_FOLD=$SIM_FOLD_FROM
else
    SIM_FOLD_FROM=inf
    unset PCOLL_BENCH_FOLD
fi
command -v smpirun >/dev/null || die "smpirun not found (Debian/Ubuntu: apt-get install libsimgrid-dev)"
[ -x "$SIM_BIN" ] || die "$SIM_BIN not built (make sim builds it)"
mkdir -p "$SIM_OUT"
SIM_OUT=$(cd "$SIM_OUT" && pwd)
SIM_BIN=$(cd "$(dirname "$SIM_BIN")" && pwd)/$(basename "$SIM_BIN")

# Simulation settings shared by every run (documented in docs/simulation.md;
# the network and MPI-overhead settings are in the platform files).
# smpi/allgather:mpich: pcoll's plan creation allgathers node names (and
# hier alltoallv its counts); SMPI's default allgather posts 2(P-1) requests
# per rank and one MPI_Waitall, which SimGrid 3.32 completes one waitany at a
# time, re-registering on every pending request: O(P^2) per rank, O(P^3) in
# all (28 s of a 29 s run at 288 ranks, hours at 1872).  Plan creation is not
# timed, so this changes no reported time but init_us.
# smpi/barrier:mpich: pcoll-bench meets at MPI_Barrier before every timed
# call and takes the slowest rank's time; SMPI's default barrier is linear,
# so rank 0 leaves it (P-1) x 0.5 us after the first ranks, and every
# algorithm that waits for rank 0 was charged that skew (380 us at 768
# ranks).  MPICH's dissemination barrier leaves the ranks within a few us,
# as real MPIs' barriers do.
CFG=(--cfg=smpi/allgather:mpich --cfg=smpi/barrier:mpich
     --cfg=smpi/privatization:1 --cfg=smpi/simulate-computation:"$SIM_COMPUTE"
     --cfg=smpi/cpu-threshold:"$SIM_CPU_THRESHOLD"
     --cfg=smpi/host-speed:"$SIM_HOST_SPEED" --cfg=smpi/display-timing:yes
     --log=xbt_cfg.thres:warning --log=smpi_coll.thres:warning)

# The sizes of SIM_SIZES that fit in SIM_MEM_GB and SIM_WORK at P ranks of
# platform plat, comma-separated.
sizes_for() {
    local plat=$1 p=$2 s out="" per_node=1 q=$2
    case $plat in multicore*) per_node=$SIM_CORES ;; esac
    [ "$SIM_COLL" = alltoallv_inplace ] && q=1
    for s in $SIM_SIZES; do
        if awk -v p="$p" -v q="$q" -v s="$s" -v f="$SIM_MEM_FACTOR" -v ff="$SIM_FOLD_MEM_FACTOR" \
               -v from="$SIM_FOLD_FROM" -v g="$SIM_MEM_GB" -v w="$SIM_WORK" -v c="$per_node" \
               'BEGIN { if (s + 0 >= from + 0) f = ff
                        exit !(f * p * q * s <= g * 2^30 && p * q * s * c <= w + 0) }'; then
            out+=${out:+,}$s
        fi
    done
    echo "$out"
}

# hostfile(platform, P, file): one line per node; multicore platforms put
# SIM_CORES consecutive ranks on a node.
hostfile() {
    local plat=$1 p=$2 file=$3 i
    : > "$file"
    case $plat in
        multicore*) for ((i = 0; i * SIM_CORES < p; i++)); do echo "node-$i:$SIM_CORES"; done ;;
        *) for ((i = 0; i < p; i++)); do echo "node-$i"; done ;;
    esac > "$file"
}

# run(log, command...): echo the command into the log, run it (for at most
# SIM_TIMEOUT seconds: timeout kills smpirun's whole process group), keep
# its output; the simulated and wall-clock times go to stderr.  A run cut
# by SIM_TIMEOUT leaves LOG's name with .dnf holding the limit, and counts
# as done: its CSV has the rows it measured.
# smpirun makes its temporary hostfile in the current directory: run it in
# SIM_OUT.  The log ends with SMPI's timing lines and the CPU time.
run() {
    local log=$1 rc=0 limit=() secs=$SIM_TIMEOUT left
    shift
    printf '$ %s\n' "$*" > "$log"
    if [ -n "$SIM_DEADLINE" ]; then
        left=$((SIM_DEADLINE - $(date +%s)))
        if [ "$left" -le 0 ]; then
            echo 0 > "${log%.log}.dnf"
            echo "  not run: SIM_DEADLINE passed" | tee -a "$log" >&2
            return 0
        fi
        [ "$secs" = 0 ] || [ "$left" -lt "$secs" ] && secs=$left
    fi
    [ "$secs" != 0 ] && limit=(timeout -k 10 "$secs")
    local TIMEFORMAT='cpu: %U s user, %S s system, %R s wall'
    { time (cd "$SIM_OUT" && "${limit[@]}" "$@") >> "$log" 2>&1 || rc=$?; } 2>> "$log"
    if [ "$secs" != 0 ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; }; then
        echo "$secs" > "${log%.log}.dnf"
        echo "  did not finish in $secs s (kept what it measured); $(tail -1 "$log")" >&2
        return 0
    fi
    if [ $rc -ne 0 ]; then
        echo "  FAILED (exit $rc): see $log" >&2
        return 1
    fi
    echo "  simulated $(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$log" | head -1) s;" \
         "$(tail -1 "$log")" >&2
}

status=0
for plat in $SIM_PLATFORMS; do
    platfile=$ROOT/bench/platforms/$plat.xml
    [ -f "$platfile" ] || die "no platform $platfile"
    for p in $SIM_P; do
        sizes=$(sizes_for "$plat" "$p")
        [ -n "$sizes" ] || { echo "== $plat P=$p: no size within SIM_MEM_GB and SIM_WORK, skipped" >&2; continue; }
        tag=$plat-P$p
        hf=$SIM_OUT/$tag.hosts
        hostfile "$plat" "$p" "$hf"
        base=(smpirun -np "$p" -platform "$platfile" -hostfile "$hf" "${CFG[@]}")
        # shellcheck disable=SC2206  # SIM_BENCH_ARGS is a list of words
        bench=(--coll "$SIM_COLL" $SIM_BENCH_ARGS --sizes "$sizes" --reps "$SIM_REPS" --warmup "$SIM_WARMUP" --progress --sequential)
        echo "== $plat P=$p sizes $sizes: pcoll algorithms" >&2
        rm -f "$SIM_OUT/$tag".*.csv "$SIM_OUT/$tag".*.dnf
        run "$SIM_OUT/$tag.pcoll.log" "${base[@]}" ${SIM_NATIVE:+--cfg=smpi/"$SIM_KEY":"$SIM_NATIVE"} \
            "$SIM_BIN" "${bench[@]}" --mode "$SIM_MODE" \
            --algorithms "$SIM_ALGORITHMS" --csv "$SIM_OUT/$tag.pcoll.csv" || status=1
        for b in $SIM_BASELINES; do
            # The pcoll run's own native row already is this algorithm.
            [ "$b" = "$SIM_NATIVE" ] && continue
            echo "== $plat P=$p: SMPI $SIM_KEY $b" >&2
            run "$SIM_OUT/$tag.smpi-$b.log" "${base[@]}" --cfg=smpi/"$SIM_KEY":"$b" "$SIM_BIN" \
                "${bench[@]}" --native-only --csv "$SIM_OUT/$tag.smpi-$b.csv" || status=1
        done
        "$SIM_PYTHON" "$ROOT/bench/sim/report.py" --out "$SIM_OUT" --tag "$tag" \
            --platform "$plat" --nprocs "$p" --coll "$SIM_COLL" --native "$SIM_NATIVE" || status=1
    done
done
"$SIM_PYTHON" "$ROOT/bench/sim/report.py" --out "$SIM_OUT" --summary --coll "$SIM_COLL" || status=1
echo "results: $SIM_OUT (summary.md, one .csv/.md/.png per platform and P)" >&2
exit $status
