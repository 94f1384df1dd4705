#!/usr/bin/env bash
# mpi4py's own collective tests through the drop-in (`make dropin-mpi4py`).
#
#   run-mpi4py.sh PYTHON MPIEXEC "PREFLAGS" LIBPCOLL_MPI WORKDIR NP...
#
# Fetches the source release of the mpi4py installed for PYTHON into WORKDIR
# (for its test/ directory; nothing is committed), then runs the modules
# test_cco_{buf,vec,nb_buf,nb_vec,pr_buf,pr_vec} at each NP twice: with the
# MPI alone and with the drop-in (LD_PRELOAD of the whole launch, as a user
# would, and PCOLL_DROPIN_LOG).  Fails unless every run passes and each
# drop-in log shows pcoll serving every collective it lists.
set -euo pipefail

python=$1 mpiexec=$2 preflags=$3 lib=$4 work=$5
shift 5
modules='test_cco_(buf|vec|nb_buf|nb_vec|pr_buf|pr_vec)\b'

ver=$("$python" -c 'import mpi4py; print(mpi4py.__version__)')
src=$work/mpi4py-$ver
if [[ ! -f $src/test/main.py ]]; then
  mkdir -p "$work"
  echo "== fetching the mpi4py $ver source release (for its tests)"
  PIP_ROOT_USER_ACTION=ignore "$python" -m pip download --disable-pip-version-check -q \
    --no-deps --no-binary mpi4py "mpi4py==$ver" -d "$work"
  tar -xzf "$work/mpi4py-$ver.tar.gz" -C "$work"
fi
[[ -f $lib ]] || { echo "run-mpi4py.sh: no $lib (build first)" >&2; exit 1; }

# The drop-in log must list the blocking and non-blocking forms at least,
# and no function may have gone to MPI alone ("pcoll 0").
check_log() {
  local log=$1 fn ok=0
  for fn in MPI_Alltoall MPI_Alltoallv MPI_Reduce_scatter MPI_Reduce_scatter_block \
            MPI_Ialltoall MPI_Ialltoallv MPI_Ireduce_scatter MPI_Ireduce_scatter_block; do
    grep -qE "pcoll-dropin: $fn +[0-9]+ calls: pcoll [1-9]" "$log" ||
      { echo "   the log does not show pcoll serving $fn"; ok=1; }
  done
  if grep -q "calls: pcoll 0," "$log"; then
    echo "   a function was not served by pcoll"; ok=1
  fi
  return $ok
}

status=0
for np in "$@"; do
  for mode in mpi dropin; do
    out=$work/np$np-$mode.out log=$work/np$np-$mode.log
    preload=()
    [[ $mode == dropin ]] && preload=("LD_PRELOAD=$lib")
    rm -f "$log"
    t0=$SECONDS
    # shellcheck disable=SC2086  # PREFLAGS are words
    if env "${preload[@]}" PCOLL_DROPIN_LOG="$log" "$mpiexec" -n "$np" $preflags \
         "$python" "$src/test/main.py" -i "$modules" >"$out" 2>&1; then
      verdict=passed
    else
      verdict=FAILED status=1
    fi
    ran=$(grep -m1 -oE 'Ran [0-9]+ tests' "$out" || echo 'Ran ? tests')
    result=$(grep -m1 -E '^(OK|FAILED)' "$out" || echo '?')
    echo "np $np, $mode: $ran per rank, $result: $verdict ($((SECONDS - t0))s; $out)"
    if [[ $mode == dropin ]]; then
      if [[ -f $log ]]; then sed 's/^/   /' "$log"; check_log "$log" || status=1
      else echo "   no drop-in log: was $lib preloaded?"; status=1
      fi
    fi
  done
done
exit $status
