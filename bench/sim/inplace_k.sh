#!/usr/bin/env bash
# bench/sim/inplace_k.sh -- the in-place neighbourhood exchange against the
# out-of-place one as the number of neighbours k grows, simulated with
# SimGrid SMPI: randomk (k random destinations a rank), the same bytes a rank
# whatever k (BYTES / k along every edge), aux memory AUX_PERCENT of them.
# Per k, one smpirun of `pcoll-bench --coll neighbor_alltoallv_inplace`
# (`inplace` and the per-edge MPI_Neighbor_alltoallv of bench/sim/smpi_compat.c)
# and one of `--coll neighbor_alltoallv --algorithms direct`; CSV files in OUT,
# then bench/sim/inplace_k_plot.py draws OUT/inplace-k.png from them.
#
#   bench/sim/inplace_k.sh        (after make sim-build)
#
# Environment: P (256), KS ("4 8 16 32 64"), BYTES (1048576), AUX_PERCENT (1),
# PLATFORM (fat-ib), JOBS (2: runs at once, each on one core), TIMEOUT (900 s
# per smpirun), OUT (build/sim/inplace-k), RTT_US (a grant's round trip on
# the platform, 6 on fat-ib: 1.5 us latency each way, 0.5 us per message end;
# the plot's bound for any in-place exchange is then 100 / AUX_PERCENT * RTT_US),
# MORE (other runs' OUT folders, drawn in the same plot: other aux memories).
# The curves of docs/inplace-alltoallv.md: this with the defaults, then with
# AUX_PERCENT=6, 12 and 25 (OUT=build/sim/inplace-k-auxN) and at last
# MORE="build/sim/inplace-k-aux6 build/sim/inplace-k-aux12 build/sim/inplace-k-aux25".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${P:=256}" "${KS:=4 8 16 32 64}" "${BYTES:=1048576}" "${AUX_PERCENT:=1}"
: "${PLATFORM:=fat-ib}" "${JOBS:=2}" "${TIMEOUT:=900}" "${OUT:=build/sim/inplace-k}"
bench="$PWD/build/sim/pcoll-bench"
[[ -x "$bench" ]] || { echo "build/sim/pcoll-bench missing: make sim-build" >&2; exit 1; }
mkdir -p "$OUT"
printf 'P=%s\nPLATFORM=%s\nAUX_PERCENT=%s\nBYTES=%s\n' "$P" "$PLATFORM" "$AUX_PERCENT" "$BYTES" \
  > "$OUT/settings"
hosts="$OUT/hosts$P"
for ((i = 0; i < P; i++)); do echo "node-$i"; done > "$hosts"

one() {  # one COLL K [ALGORITHMS]
  local coll=$1 k=$2 algs=${3:-} name="$OUT/$1-k$2"
  local args=(--coll "$coll" --pattern randomk --sizes $((BYTES / k)) --reps 2 --warmup 0
              --sequential --csv "$name.csv")
  [[ -n "$algs" ]] && args+=(--algorithms "$algs")
  PCOLL_BENCH_K=$k PCOLL_BENCH_AUX_PERCENT=$AUX_PERCENT timeout "$TIMEOUT" smpirun -np "$P" \
    -platform "$PWD/bench/platforms/$PLATFORM.xml" -hostfile "$hosts" \
    --cfg=smpi/allgather:mpich --cfg=smpi/barrier:mpich --cfg=smpi/privatization:1 \
    --cfg=smpi/simulate-computation:no "$bench" "${args[@]}" > "$name.txt" 2>&1 ||
    echo "$coll k=$k: exit status $? (see $name.txt)"
}

runs=()
for k in $KS; do
  runs+=("neighbor_alltoallv_inplace $k" "neighbor_alltoallv $k direct")
done
for r in "${runs[@]}"; do
  while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || true; done
  echo "== $r"
  one $r &
done
wait
# matplotlib comes into .venv (make plot-deps)
py=python3; [[ -x .venv/bin/python3 ]] && py=.venv/bin/python3
rtt="${RTT_US:-}"; [[ -z "$rtt" && "$PLATFORM" == fat-ib ]] && rtt=6
bound=(); [[ -n "$rtt" ]] && bound=(--bound "$(python3 -c "print(100 / $AUX_PERCENT * $rtt)")")
"$py" bench/sim/inplace_k_plot.py "$OUT" "${bound[@]}" ${MORE:-}
