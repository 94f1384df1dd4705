#!/usr/bin/env bash
# mpi4py-fft's PFFT through the drop-in (`make dropin-fft`).
#
#   run-fft.sh PYTHON MPIEXEC "PREFLAGS" LIBPCOLL_MPI WORKDIR NP...
#
# At each NP, tests/dropin/fft_alltoallw.py runs forward+backward transforms
# with the MPI alone, then with the drop-in (LD_PRELOAD of the whole launch
# and PCOLL_DROPIN_LOG) under the automatic choice and with
# PCOLL_ALLTOALLW_ALGORITHM=pairwise; each drop-in run's results must equal
# the MPI's and its log must show pcoll serving MPI_Alltoallw (mpi-fft's
# transposes: subarray types, one per peer).  Nothing is fetched.
set -euo pipefail

python=$1 mpiexec=$2 preflags=$3 lib=$4 work=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
script=$here/fft_alltoallw.py
[[ -f $lib ]] || { echo "run-fft.sh: no $lib (build first)" >&2; exit 1; }
mkdir -p "$work"

status=0
for np in "$@"; do
  for mode in mpi auto pairwise; do
    out=$work/np$np-$mode log=$work/np$np-$mode.log env=()
    case $mode in
      auto) env=("LD_PRELOAD=$lib" "PCOLL_DROPIN_LOG=$log") ;;
      pairwise) env=("LD_PRELOAD=$lib" "PCOLL_DROPIN_LOG=$log"
                     "PCOLL_ALLTOALLW_ALGORITHM=pairwise") ;;
    esac
    rm -f "$log" "$out".rank*.npz
    t0=$SECONDS
    # shellcheck disable=SC2086  # PREFLAGS are words
    if ! env "${env[@]}" "$mpiexec" -n "$np" $preflags "$python" "$script" run "$out" \
         >"$out.txt" 2>&1; then
      echo "np $np, $mode: FAILED ($out.txt)"; sed 's/^/   /' "$out.txt" | tail -20
      status=1; continue
    fi
    echo "np $np, $mode: $(head -1 "$out.txt") ($((SECONDS - t0))s)"
    [[ $mode == mpi ]] && continue
    if [[ -f $log ]]; then
      sed 's/^/   /' "$log"
      grep -qE "pcoll-dropin: MPI_Alltoallw +[0-9]+ calls: pcoll [1-9][0-9]*.*, MPI 0$" "$log" ||
        { echo "   the log does not show pcoll serving every MPI_Alltoallw"; status=1; }
    else
      echo "   no drop-in log: was $lib preloaded?"; status=1
    fi
    "$python" "$script" compare "$work/np$np-mpi" "$out" "$np" | sed 's/^/   /' ||
      status=1
  done
done
exit $status
