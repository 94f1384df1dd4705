#!/usr/bin/env bash
# bench/sim/scale.sh -- pcoll at the published papers' scale (P = 1024, 2048,
# 4096), simulated with SimGrid SMPI in a bounded time.  `make sim-scale`
# builds build/sim/pcoll-bench and runs this.
#
# Each part is one bench/sim/run.sh call (one collective, one platform, one
# P) with its own output directory under SIM_SCALE_OUT; its sizes are a small
# one (checked against SMPI's result) and a large one, SIM_SCALE_BIG bytes
# per rank (folded: PCOLL_BENCH_FOLD, not checked).  Every smpirun has a wall-clock
# budget (SIM_TIMEOUT): a row its run did not reach says "did not finish in
# N s".  No smpirun runs past SIM_SCALE_BUDGET seconds from the start (its
# limit is cut there; the parts after it are not run).  The time each part took is printed and kept in times.tsv;
# scale.md gathers every part's table under its settings and its time.
#
# Settings (environment variables):
#   SIM_SCALE_P="1024 2048 4096"   process counts
#   SIM_SCALE_PARTS="alltoall hier alltoallv_random alltoallv_powerlaw
#                    reduce_scatter_block inplace"   parts, in this order
#   SIM_SCALE_BUDGET=2400          seconds for the whole run
#   SIM_SCALE_TIMEOUT=400          SIM_TIMEOUT of every smpirun
#   SIM_SCALE_BIG=1048576          bytes per rank of the large size
#   SIM_SCALE_OUT=build/sim/scale  results
#   SIM_PYTHON                     as for run.sh
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIM_SCALE_P=${SIM_SCALE_P:-"1024 2048 4096"}
SIM_SCALE_PARTS=${SIM_SCALE_PARTS:-"alltoall hier alltoallv_random alltoallv_powerlaw reduce_scatter_block inplace"}
SIM_SCALE_BUDGET=${SIM_SCALE_BUDGET:-2400}
SIM_SCALE_TIMEOUT=${SIM_SCALE_TIMEOUT:-400}
SIM_SCALE_OUT=${SIM_SCALE_OUT:-$ROOT/build/sim/scale}
SIM_SCALE_BIG=${SIM_SCALE_BIG:-1048576}
mkdir -p "$SIM_SCALE_OUT"
SIM_SCALE_OUT=$(cd "$SIM_SCALE_OUT" && pwd)

# part_settings(part, P): the run.sh variables of one part, one per line.
# The large size: alltoall and alltoallv SIM_SCALE_BIG bytes per rank
# (blocks of SIM_SCALE_BIG / P); reduce_scatter_block a vector of
# SIM_SCALE_BIG (blocks of SIM_SCALE_BIG / P); alltoallv_inplace a buffer of
# SIM_SCALE_BIG per rank (its sizes are a rank's whole buffer), its small
# size a sixteenth of that.  SMPI's alltoallv algorithms other than `pair`
# and `ring` post every request at once (O(P^3) to simulate: SMPI's `bruck`
# alltoallv did not finish one 8 B call at P = 1024 in 300 s), so the
# alltoallv parts' own call is SMPI's `pair`.
part_settings() {
    local part=$1 p=$2 mib=$((SIM_SCALE_BIG / $2))
    echo "SIM_P=$p"
    echo "SIM_FOLD=1"
    echo "SIM_REPS=1"
    echo "SIM_WARMUP=0"
    echo "SIM_WORK=inf"
    echo "SIM_MEM_GB=16"
    echo "SIM_COMPUTE=no"
    echo "SIM_MODE=persistent"
    case $part in
        alltoall)
            echo "SIM_COLL=alltoall"
            echo "SIM_BENCH_ARGS="
            echo "SIM_PLATFORMS=fat-ib"
            echo "SIM_SIZES=8 $mib"
            echo "SIM_ALGORITHMS=auto,bruck_radix,bruck_zerocopy,bruck_basic"
            echo "SIM_NATIVE=bruck"
            echo "SIM_BASELINES=mpich" ;;
        hier)
            echo "SIM_COLL=alltoall"
            echo "SIM_BENCH_ARGS="
            echo "SIM_PLATFORMS=multicore-ib"
            echo "SIM_CORES=12"
            echo "SIM_SIZES=8 $mib"
            echo "SIM_ALGORITHMS=hier,auto"
            echo "SIM_NATIVE=mpich"
            echo "SIM_BASELINES=" ;;
        alltoallv_random | alltoallv_powerlaw)
            echo "SIM_COLL=alltoallv"
            echo "SIM_BENCH_ARGS=--pattern ${part#alltoallv_}"
            echo "SIM_PLATFORMS=fat-ib"
            echo "SIM_SIZES=8 $mib"
            echo "SIM_ALGORITHMS=auto,bruck_radix"
            echo "SIM_NATIVE=pair"
            echo "SIM_BASELINES=" ;;
        reduce_scatter_block)
            echo "SIM_COLL=reduce_scatter_block"
            echo "SIM_BENCH_ARGS="
            echo "SIM_PLATFORMS=fat-ib"
            echo "SIM_SIZES=8 $mib"
            echo "SIM_ALGORITHMS=auto,circulant,recursive_halving"
            echo "SIM_NATIVE=mpich"
            echo "SIM_BASELINES=" ;;
        inplace)
            echo "SIM_COLL=alltoallv_inplace"
            echo "SIM_BENCH_ARGS=--pattern random"
            echo "SIM_PLATFORMS=fat-ib"
            echo "SIM_SIZES=$((SIM_SCALE_BIG / 16)) $SIM_SCALE_BIG"
            echo "SIM_ALGORITHMS=inplace"
            echo "SIM_NATIVE=mpich"
            echo "SIM_BASELINES="
            echo "PCOLL_BENCH_AUX_PERCENT=1" ;;
        *) echo "bench/sim/scale.sh: unknown part $part" >&2; return 1 ;;
    esac
}

start=$SECONDS
deadline=$(($(date +%s) + SIM_SCALE_BUDGET))
status=0
times=$SIM_SCALE_OUT/times.tsv
printf 'part\tP\tseconds\tsettings\n' > "$times"
for p in $SIM_SCALE_P; do
    for part in $SIM_SCALE_PARTS; do
        name=$part-P$p
        settings=$(part_settings "$part" "$p") || exit 1
        used=$((SECONDS - start))
        if [ "$used" -ge "$SIM_SCALE_BUDGET" ]; then
            echo "== $name: not run (budget of $SIM_SCALE_BUDGET s used)" >&2
            printf '%s\t%s\t\tnot run: budget used\n' "$part" "$p" >> "$times"
            continue
        fi
        echo "== $name (at $used s)" >&2
        t0=$SECONDS
        vars=()
        while IFS= read -r line; do vars+=("$line"); done <<< "$settings"
        env "${vars[@]}" SIM_TIMEOUT="$SIM_SCALE_TIMEOUT" SIM_DEADLINE="$deadline" SIM_OUT="$SIM_SCALE_OUT/$name" \
            SIM_PYTHON="${SIM_PYTHON:-python3}" "$ROOT/bench/sim/run.sh" || status=1
        took=$((SECONDS - t0))
        echo "== $name: $took s" >&2
        printf '%s\t%s\t%s\t%s\n' "$part" "$p" "$took" "$(echo "$settings" | paste -sd' ')" >> "$times"
    done
done
total=$((SECONDS - start))
printf 'total\t\t%s\t\n' "$total" >> "$times"
echo "== sim-scale: $total s in all; results in $SIM_SCALE_OUT (scale.md, times.tsv)" >&2
"${SIM_PYTHON:-python3}" "$ROOT/bench/sim/scale_report.py" "$SIM_SCALE_OUT" || status=1
exit $status
