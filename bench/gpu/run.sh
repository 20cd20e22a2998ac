#!/usr/bin/env bash
# ein on a GPU machine, in one call (docs/gpu.md): builds the GPU tests, the CUDA examples and the
# GPU benchmarks (Release, sm_90 unless CUDAARCHS says otherwise), then runs `ctest -L gpu`, the
# CUDA examples, compute-sanitizer (memcheck on the examples and GPU tests, racecheck on the
# plan with a tiled kernel), the bandwidth benchmark, the baseline benchmark (ein, cuDNN, PyTorch
# eager and torch.compile) and a generation under the measured cost model. Each step has a time
# limit from what is left of EIN_GPU_BUDGET (seconds, default 540) and is logged; without a CUDA
# device the GPU steps skip. Everything goes into $OUT/ein-gpu.tar.gz (repacked after each step)
# and a summary into $OUT/summary.txt (default OUT: ./gpu-out). The kit that bench/gpu/gather.sh
# made (.gpu-kit/kit.tar.xz) stands in for the Debian packages where present.
#
#   bench/gpu/run.sh [build dir]        (default: build-gpu under the repository)
#   EIN_GPU_STEPS="ctest_gpu bandwidth" runs only the steps named (after configure and build); the
#                                       models' steps (build_models models_cuda models_torch) run
#                                       only when named
#   EIN_MODELS_COMPILE=                 models_torch without torch.compile (default: --compile)
#   EIN_MODELS_SIZE=full16              the models at batch 16 (default: full, batch 1)
#   EIN_GPU_SLOWDOWN=20                 multiplies each step's own limit (a slow machine checking
#                                       the CPU steps; set EIN_GPU_BUDGET to match)
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$repo/build-gpu}
OUT=${OUT:-$repo/gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
budget=${EIN_GPU_BUDGET:-540}
started=$(date +%s)
pack=$(mktemp -d)/ein-gpu
logs=$pack/logs
results=$pack/results
mkdir -p "$logs" "$results" "$pack/reports"
summary=$OUT/summary.txt
: > "$summary"
status=0
jobs=$(nproc 2>/dev/null || echo 4)

left() { echo $((budget - ($(date +%s) - started))); }
note() { echo "$*" | tee -a "$summary"; }
repack() { tar -C "$(dirname "$pack")" -czf "$OUT/ein-gpu.tar.gz" ein-gpu; }
wanted() { [[ -z ${EIN_GPU_STEPS:-} || " $EIN_GPU_STEPS " == *" $1 "* ]]; }

# step NAME LIMIT COMMAND...: runs COMMAND (output to logs/NAME.log) for at most LIMIT seconds
# and what is left of the budget; exit 77 means skipped (no device), anything else but 0 fails.
step() {
  local name=$1 limit=$2
  shift 2
  local remaining
  remaining=$(( $(left) - 15 ))
  if ! wanted "$name" && [[ ! $name =~ ^(environment|configure|build)$ ]]; then return 0; fi
  if ((remaining < 10)); then
    note "$(printf '%-22s skipped: out of time (EIN_GPU_BUDGET=%s)' "$name" "$budget")"
    status=1
    return 0
  fi
  limit=$((limit * ${EIN_GPU_SLOWDOWN:-1}))
  ((limit > remaining)) && limit=$remaining
  local t0=$(date +%s) rc
  # bash -c, so that COMMAND may be one of the functions below (exported)
  timeout --kill-after=5 "$limit" bash -c '"$@"' "$name" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  local took=$(( $(date +%s) - t0 )) verdict=ok
  case $rc in
    0) ;;
    77) verdict="skipped (no CUDA device)" ;;
    124 | 137) verdict="FAILED: over its ${limit} s"; status=1 ;;
    *) verdict="FAILED (exit $rc)"; status=1 ;;
  esac
  note "$(printf '%-22s %4d s  %s' "$name" "$took" "$verdict")"
  repack
  return $rc
}

gpu=0
nvidia-smi -L > /dev/null 2>&1 && gpu=1
export gpu
needs_gpu() { ((gpu)) || return 77; "$@"; }
export -f needs_gpu

# What the machine has: the GPU, the compilers, CMake, the CUDA libraries and PyTorch's.
environment() {
  date -u
  nvidia-smi || echo "no nvidia-smi, or no device"
  uname -a
  nvcc --version; g++ --version | head -1; cmake --version | head -1; ninja --version || true
  command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer || true
  ls /usr/local/cuda/lib64 2>/dev/null | grep -E 'cublas|nvrtc|cudnn|cudart' | head -20
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' || true
  python3 -c 'import glob, sys; print("cudnn wheels:", [p for s in sys.path for p in glob.glob(s + "/nvidia/**/libcudnn.so*", recursive=True)])' || true
}
export -f environment
step environment 60 environment
cat "$logs/environment.log" > "$OUT/machine.txt"

# The kit: Debian's doctest, nlohmann-json and OpenBLAS, unpacked in /tmp.
kit_prefix=
if [[ -f $repo/.gpu-kit/kit.tar.xz ]]; then
  kit=${TMPDIR:-/tmp}/ein-gpu-kit  # one place, so that a second call finds what the build's cache names
  rm -rf "$kit"
  mkdir -p "$kit"
  tar -C "$kit" -xJf "$repo/.gpu-kit/kit.tar.xz"
  kit_prefix=$kit/usr
  arch=x86_64-linux-gnu
  export CPATH=$kit_prefix/include:$kit_prefix/include/$arch/openblas-pthread${CPATH:+:$CPATH}
  export LD_LIBRARY_PATH=$kit_prefix/lib/$arch/openblas-pthread:$kit_prefix/lib/$arch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  note "kit: $(head -1 "$repo/.gpu-kit/kit.txt" 2>/dev/null || echo "$repo/.gpu-kit/kit.tar.xz") unpacked in $kit"
fi
# cuDNN from the toolkit, else from PyTorch's wheel (CMake finds it: cmake/ein_find_cudnn.cmake);
# its libraries load one another at run time, so the wheel's folder goes on the library path.
wheel_cudnn=$(python3 -c 'import glob, os, sys; print(next((os.path.dirname(p) for s in sys.path for p in glob.glob(s + "/nvidia/**/libcudnn.so.9", recursive=True)), ""))' 2>/dev/null || true)
[[ -n $wheel_cudnn ]] && export LD_LIBRARY_PATH=$wheel_cudnn${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
configure_args=(-S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
                -DCMAKE_CUDA_ARCHITECTURES="${CUDAARCHS:-90}" -DEIN_BUILD_GPU_BENCHMARKS=ON
                # plans as CI generates them; the measured model has a step of its own
                -DEIN_COST=roofline -DEIN_BUILD_MODEL_BENCHMARKS=cuda
                -DEIN_BENCH_MODELS_SIZE="${EIN_MODELS_SIZE:-full}")
[[ -n $kit_prefix ]] && configure_args+=(-DCMAKE_PREFIX_PATH="$kit_prefix"
                                         -DCMAKE_LIBRARY_PATH="$kit_prefix/lib/x86_64-linux-gnu/openblas-pthread")
step configure 120 cmake "${configure_args[@]}" || { note "configure failed: see logs/configure.log"; repack; exit 1; }
targets=(codegen_cuda codegen_cuda_prepared test_cost_cuda conv3x3_cuda paper_cases_cuda ein_search
         test_codegen_kernels bench_gpu_bandwidth bench_gpu_paper_cases)
step build 420 cmake --build "$build" -j "$jobs" --target "${targets[@]}" || { note "build failed: see logs/build.log"; repack; exit 1; }

step ctest_gpu 180 ctest --test-dir "$build" -L gpu --output-on-failure
step kernels_emulated 120 "$build/tests/codegen/kernels/test_codegen_kernels"
step example_conv3x3 60 needs_gpu "$build/examples/02_conv3x3/conv3x3_cuda"
step example_paper_cases 120 needs_gpu "$build/examples/03_paper_cases/paper_cases_cuda"

step bandwidth 120 needs_gpu "$build/bench/gpu/bench_gpu_bandwidth" "$results/bandwidth.json"
cat "$logs/bandwidth.log" >> "$summary" 2>/dev/null
work=$(mktemp -d)
step paper_cases_cuda 180 needs_gpu "$build/bench/gpu/bench_gpu_paper_cases" "$work" &&
  cp "$work/manifest.json" "$results/paper_cases_cuda.json"

# compute-sanitizer on the examples (their check, without the timing loop) and the GPU tests
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
memcheck() { needs_gpu "$sanitizer" --tool memcheck --error-exitcode 1 "$@"; }
export sanitizer
export -f memcheck
step memcheck_conv3x3 90 memcheck "$build/examples/02_conv3x3/conv3x3_cuda"
step memcheck_paper_cases 150 memcheck "$build/examples/03_paper_cases/paper_cases_cuda" --check
step memcheck_codegen 150 memcheck "$build/tests/codegen/codegen_cuda"
step memcheck_prepared 120 memcheck "$build/tests/codegen/codegen_cuda_prepared"
step memcheck_cost 90 memcheck "$build/tests/cost/test_cost_cuda" "--test-case=*on the GPU*"
# the plan whose OffsetReduce stages its read through shared memory
step racecheck_paper_cases 150 needs_gpu "$sanitizer" --tool racecheck --error-exitcode 1 \
  "$build/examples/03_paper_cases/paper_cases_cuda" --check

torch_baseline() {
  [[ -f $1/manifest.json ]] && needs_gpu python3 -c 'import torch' || return 77
  PYTHONUNBUFFERED=1 python3 "$repo/bench/gpu/baseline.py" "$1" "$results/paper_cases.json"
}
export repo results
export -f torch_baseline
step paper_cases_torch 300 torch_baseline "$work" && tail -8 "$logs/paper_cases_torch.log" >> "$summary"

# One generation under the measured cost model (kernels timed on the GPU, cached in JSON): what it
# prints is the log, its report and cache are kept.
measured() {
  needs_gpu true || return 77
  "$build/ein_generate/ein_search" --model "$build/examples/02_conv3x3/ein_generate/conv3x3_cuda_plan/model.json" \
    --name conv3x3_measured --backend cuda --header "$results/conv3x3_measured.hpp" \
    --report "$results/conv3x3_measured.json" --source "$results/conv3x3_measured.cu" \
    --profile "$repo/cost/profiles/h100_sxm5.json" --cost measured --cost-cache "$results/ein_cost_cache.json"
}
export build
export -f measured
step measured_conv3x3 120 measured

# The seven models against PyTorch eager and torch.compile (docs/models.md): only when named in
# EIN_GPU_STEPS, as their build (seven searches) and torch.compile's tuning need a call of their own.
named() { [[ " ${EIN_GPU_STEPS:-} " == *" $1 "* ]]; }
if named build_models; then
  step build_models 420 cmake --build "$build" -j "$jobs" --target bench_models
fi
models_work=${TMPDIR:-/tmp}/ein-models  # one place, so that a later call's models_torch finds it
if named models_cuda; then
  rm -rf "$models_work" && mkdir -p "$models_work"
  step models_cuda 240 needs_gpu "$build/bench/models/bench_models" "$models_work" &&
    cp "$models_work/manifest.json" "$results/models_cuda.json"
fi
torch_models() {
  [[ -f $1/manifest.json ]] && needs_gpu python3 -c 'import torch' || return 77
  PYTHONUNBUFFERED=1 python3 "$repo/bench/models/compare.py" "$1" "$results/models.json" ${EIN_MODELS_COMPILE---compile}
}
export -f torch_models
if named models_torch; then
  step models_torch 480 torch_models "$models_work"
  tail -10 "$logs/models_torch.log" >> "$summary"
fi

find "$build" -path '*ein_generated/*.json' -exec cp {} "$pack/reports/" \; 2>/dev/null
cp "$summary" "$pack/summary.txt"
repack
note "ein: GPU run done (status $status) in $(( $(date +%s) - started )) s; $OUT/ein-gpu.tar.gz holds the logs and results"
exit $status
