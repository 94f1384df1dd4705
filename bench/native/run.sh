#!/usr/bin/env bash
# auto against the native MPI call at every size: pcoll-bench,
# interleaved, blocking and persistent modes, for every collective, under the
# MPIs built in build/<flavour>; CSV files and tables in build/native/.
#
#   bench/native/run.sh [FLAVOURS]        (default: mpich openmpi)
#
# Environment: NP (2), SIZES (1:4m:x4; reduce-scatter from 8), MAX_TIME (0.1),
# COLLS ("alltoall alltoallv reduce_scatter_block reduce_scatter"),
# MODES ("blocking persistent"), ALGORITHMS (auto: the MPI's own rows are always
# there; a second one-shot row would change the environment between batches,
# which a program never does), OUT (build/native).
# With PCOLL_TUNING_FILE set, auto follows that rules file (docs/tuning.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
NP="${NP:-2}"
SIZES="${SIZES:-1:4m:x4}"
MAX_TIME="${MAX_TIME:-0.1}"
COLLS="${COLLS:-alltoall alltoallv reduce_scatter_block reduce_scatter}"
MODES="${MODES:-blocking persistent}"
ALGORITHMS="${ALGORITHMS:-auto}"
OUT="${OUT:-build/native}"
mkdir -p "$OUT"
for flavour in ${@:-mpich openmpi}; do
  bench="build/$flavour/tools/pcoll-bench"
  [[ -x "$bench" ]] || { echo "skipped $flavour: $bench not built (make build MPI=$flavour)"; continue; }
  if [[ "$flavour" == openmpi ]]; then
    export PATH="$PWD/.venv-openmpi/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 \
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=^ucx
    # One rank per core where there are cores enough: --oversubscribe would
    # leave the ranks unbound and make Open MPI yield the core when idle.
    over=(); (( NP > $(nproc) )) && over=(--oversubscribe)
    run=(mpiexec "${over[@]}" -n "$NP")
  else
    run=(env PATH="$PWD/.venv/bin:$PATH" "$PWD/.venv/bin/mpiexec" -n "$NP")
  fi
  for coll in $COLLS; do
    sizes="$SIZES"
    [[ "$coll" == reduce_scatter* && "$sizes" == 1:* ]] && sizes="8:${sizes#1:}"
    for mode in $MODES; do
      csv="$OUT/$flavour-$coll-$mode-np$NP.csv"
      echo "== $flavour $coll $mode np $NP: ${run[*]} $bench --coll $coll --algorithms $ALGORITHMS --sizes $sizes --mode $mode --max-time $MAX_TIME --csv $csv"
      "${run[@]}" "$bench" --coll "$coll" --algorithms "$ALGORITHMS" --sizes "$sizes" \
        --mode "$mode" --max-time "$MAX_TIME" --csv "$csv" > "${csv%.csv}.txt" 2>&1 ||
        echo "   (exit status $?: see ${csv%.csv}.txt)"
    done
  done
done
python3 bench/native/table.py "$OUT"/*-np"$NP".csv | tee "$OUT/tables-np$NP.md"
