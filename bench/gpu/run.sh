#!/usr/bin/env bash
# ein on a GPU machine: builds the tests and examples (Release), runs the GPU tests and the CUDA
# examples (the five paper cases timed), and fills the measured cost model's cache by generating plans with it. Logs, reports
# and the cache go to $OUT (default ./gpu-out). Not part of CI: it needs a CUDA device.
#
#   bench/gpu/run.sh [build dir]        (default: build-gpu under the repository)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$repo/build-gpu}
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
jobs=$(nproc 2>/dev/null || echo 4)
cache=$OUT/ein_cost_cache.json

{
  date -u
  nvidia-smi || true
  nvcc --version || true
} > "$OUT/machine.txt" 2>&1

# Every generation step of the build prices under the measured model where it is a cuda plan
# (COST auto) and writes its timings to $cache.
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DEIN_COST_CACHE="$cache" \
  > "$OUT/configure.log" 2>&1
cmake --build "$build" -j "$jobs" > "$OUT/build.log" 2>&1

status=0
ctest --test-dir "$build" -L gpu --output-on-failure > "$OUT/ctest_gpu.log" 2>&1 || status=1
"$build/examples/02_conv3x3/conv3x3_cuda" > "$OUT/example_conv3x3_cuda.log" 2>&1 || status=1
# EinNet's five cases: the searched cuda plan checked against the interpreter, and its time.
"$build/examples/03_paper_cases/paper_cases_cuda" > "$OUT/example_paper_cases_cuda.log" 2>&1 || status=1

# One stage-1 generation forced to the measured model, for the host and the cuda backend of the
# conv3x3 example: what it prints (the model, why, the search report and the plan) is the log.
driver=$(find "$build/examples/02_conv3x3" -name '*_ein_driver' -type f -perm -u+x | head -n 1)
profile=$repo/cost/profiles/h100_sxm5.json
mkdir -p "$OUT/generated"
for backend in cuda host; do
  source_args=()
  if [ "$backend" = cuda ]; then source_args=(--source "$OUT/generated/conv3x3_measured_cuda.cu"); fi
  "$driver" --name "conv3x3_measured_$backend" --backend "$backend" \
    --header "$OUT/generated/conv3x3_measured_$backend.hpp" --report "$OUT/generated/conv3x3_measured_$backend.json" \
    "${source_args[@]}" --profile "$profile" --cost measured --cost-cache "$cache" \
    > "$OUT/generate_measured_$backend.log" 2>&1 || status=1
done

# The reports of every plan the build generated (each says which cost model chose it, and why).
mkdir -p "$OUT/reports"
find "$build" -path '*ein_generated/*.json' -exec cp {} "$OUT/reports/" \;

echo "ein: GPU run done (status $status); logs, reports and the cost cache are in $OUT"
exit $status
