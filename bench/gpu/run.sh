#!/bin/bash
# The GPU checks and benchmark of docs/gpu.md, on a machine with an NVIDIA
# GPU: build with PCOLL_CUDA=ON, `ctest -L gpu`, compute-sanitizer (memcheck
# and racecheck on the copy kernel, memcheck on test_gpu --quick at np 2),
# then pcoll-bench --gpu (alltoall, persistent) at np 2, 4, 8, 16 as one node
# and at np 16 as 4 virtual nodes of 4, reduce_scatter_block at np 16 and 4
# as one node, under MPS where its control daemon
# exists (docs/gpu.md, Results: without it the ranks' contexts time-slice).
#
#   bash bench/gpu/run.sh            # results in build/gpu-results
#
# Environment: MPICC, MPIEXEC (default: mpicc, mpiexec on PATH), RESULTS
# (the results folder), CUDA_ARCH (default native), MAX_TIME (per row and
# size, default 0.03 s), DEADLINE (seconds; later steps get what is left,
# default 480), MPS (0: do not start it), BENCHES (the benchmark rows to run,
# by name, e.g. "np16-vn4 rs-np4-node1"; default all), TESTS (0: skip ctest
# and the sanitizers).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
RES=${RESULTS:-$R/build/gpu-results}; B=$R/build/gpu
MPICC=${MPICC:-mpicc}; MPIEXEC=${MPIEXEC:-mpiexec}; MT=${MAX_TIME:-0.03}; DL=${DEADLINE:-480}
rm -rf "$RES"; mkdir -p "$RES"
exec > >(tee -a "$RES/log.txt") 2>&1
t0=$(date +%s)
stamp() { echo "== [$(($(date +%s) - t0))s] $*"; }
# left N: N seconds, or what is left before the deadline (at least 5)
left() { local l=$((DL - ($(date +%s) - t0))); [ $l -lt $1 ] && echo $((l > 5 ? l : 5)) || echo $1; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || exit 1
cmake -S "$R" -B "$B" -G Ninja -DMPI_C_COMPILER="$MPICC" -DMPIEXEC_EXECUTABLE="$(command -v "$MPIEXEC")" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCOLL_WERROR=ON -DPCOLL_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" -DPCOLL_BUILD_EXAMPLES=OFF \
    > "$RES/cmake.log" 2>&1 || { tail -30 "$RES/cmake.log"; exit 1; }
cmake --build "$B" -j"$(nproc)" > "$RES/build.log" 2>&1 || { grep -A8 error: "$RES/build.log" | head -60; exit 1; }
stamp built
if [ "${TESTS:-1}" != 0 ]; then
(cd "$B" && timeout "$(left 150)" ctest -L gpu --output-on-failure -j"$(nproc)" > "$RES/ctest-gpu.txt" 2>&1
 echo "ctest -L gpu: rc $?")
grep -E "tests passed|Failed|FAIL" "$RES/ctest-gpu.txt" | head -40
T=$B/tests/gpu; CS="compute-sanitizer --error-exitcode 9"
"$MPIEXEC" -n 1 "$T/test_gpu_kernel" | tail -2
for tool in memcheck racecheck; do
    timeout "$(left 90)" "$MPIEXEC" -n 1 $CS --tool $tool "$T/test_gpu_kernel" --quick \
        > "$RES/$tool-kernel.txt" 2>&1
    echo "$tool test_gpu_kernel --quick: rc $?"
done
timeout "$(left 120)" "$MPIEXEC" -n 2 $CS --tool memcheck "$T/test_gpu" --quick > "$RES/memcheck-gpu-np2.txt" 2>&1
echo "memcheck test_gpu --quick np 2: rc $?"
grep -hE "cases|ERROR SUMMARY" "$RES"/*check-*.txt
stamp tests
fi
if [ "${MPS:-1}" != 0 ] && command -v nvidia-cuda-mps-control > /dev/null; then
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/pcoll-mps CUDA_MPS_LOG_DIRECTORY=/tmp/pcoll-mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d && echo "MPS started" && trap 'echo quit | nvidia-cuda-mps-control' EXIT
fi
S=8,128,2048,8192,16384,65536,262144,1048576,4194304
A=auto,gpu_ipc,gpu_staged,scattered,native
bench() { # name np cores-per-node collective algorithms [options]
    local name=$1 n=$2 c=$3 coll=$4 algs=$5; shift 5
    case " ${BENCHES:-$name} " in *" $name "*) ;; *) return 0 ;; esac
    PCOLL_CORES_PER_NODE=$c timeout "$(left 90)" "$MPIEXEC" -n "$n" "$B/tools/pcoll-bench" --gpu \
        --coll $coll --mode persistent --algorithms $algs --sizes $S --max-time "$MT" \
        --csv "$RES/$name.csv" "$@" > "$RES/$name.txt" 2>&1
    echo "bench $name: rc $?"
}
R_A=auto,gpu_ipc,gpu_staged,native
bench np16-node1 16 16 alltoall $A --plot "$RES/np16-node1.png"
bench np16-vn4 16 4 alltoall $A --plot "$RES/np16-vn4.png"
bench rs-np16-node1 16 16 reduce_scatter_block $R_A --plot "$RES/rs-np16-node1.png"
bench rs-np16-vn4 16 4 reduce_scatter_block $R_A
for n in 8 4 2; do bench np$n-node1 $n 16 alltoall $A; done
bench rs-np4-node1 4 16 reduce_scatter_block $R_A
stamp done
