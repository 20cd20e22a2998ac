#!/usr/bin/env bash
# ein on a GPU machine, in one call (docs/gpu.md): builds the GPU tests, the CUDA examples and the
# GPU benchmarks (Release, sm_90 unless CUDAARCHS says otherwise), then runs, most telling first,
# `ctest -L gpu` (with the checks it prints), the CUDA examples, the five paper cases against
# cuDNN, PyTorch eager and torch.compile, the bandwidth benchmark, compute-sanitizer (memcheck on
# the smallest GPU test, racecheck on the plan with a tiled kernel), a generation under the
# measured cost model, and torch.compile's max-autotune mode if time is left. Each step has a time
# limit from what is left of EIN_GPU_BUDGET (seconds, default 480) and is logged; without a CUDA
# device the GPU steps skip, and a skip where nvidia-smi lists a GPU fails. Everything goes into
# $OUT/ein-gpu.tar.gz (repacked after each step) and a summary into $OUT/summary.txt (default OUT:
# ./gpu-out). It builds against the kit that bench/gpu/gather.sh makes (.gpu-kit/kit.tar.xz), and
# stops at once without it.
#
#   bench/gpu/run.sh [build dir]        (default: build-gpu under the repository)
#   EIN_GPU_STEPS="ctest_gpu bandwidth" runs only the steps named (after configure and build); the
#                                       models' steps (build_models: bench_models in the build;
#                                       models_cuda, models_torch) and
#                                       tune_paper_cases (the CUDA tuner on the five cases) run
#                                       only when named
#   EIN_GPU_KIT=system                  builds against the system's packages instead of the kit
#   EIN_COMPUTE_SANITIZER=PATH          the compute-sanitizer to run (default: on PATH, else the
#                                       toolkit's); the sanitizer steps skip where it is not there
#   EIN_MODELS_COMPILE=                 models_torch without torch.compile (default: --compile)
#   EIN_MODELS_SIZE=full16              the models at batch 16 (default: full, batch 1)
#   EIN_MODELS_TYPE=bfloat16            the models in bfloat16 (or half; default: float), against
#                                       PyTorch in the same type (their results: models_*_bfloat16.json)
#   EIN_GPU_SLOWDOWN=20                 multiplies each step's own limit (a slow machine checking
#                                       the CPU steps; set EIN_GPU_BUDGET to match)
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# No kit, no run: the call would end at configure, its device time spent.
if [[ ${EIN_GPU_KIT:-} != system && ! -f $repo/.gpu-kit/kit.tar.xz ]]; then
  echo "ein: no kit at $repo/.gpu-kit/kit.tar.xz: make it on a machine with network with" >&2
  echo "     bench/gpu/gather.sh and carry .gpu-kit with the call (or set EIN_GPU_KIT=system where" >&2
  echo "     doctest, nlohmann-json and OpenBLAS are installed); docs/gpu.md" >&2
  exit 1
fi
build=${1:-$repo/build-gpu}
OUT=${OUT:-$repo/gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
budget=${EIN_GPU_BUDGET:-480}
started=$(date +%s)
pack=$(mktemp -d)/ein-gpu
logs=$pack/logs
results=$pack/results
mkdir -p "$logs" "$results" "$pack/reports"
summary=$OUT/summary.txt
: > "$summary"
status=0
optional="paper_cases_autotune"
jobs=$(nproc 2>/dev/null || echo 4)

repack() { tar -C "$(dirname "$pack")" -czf "$OUT/ein-gpu.tar.gz" ein-gpu; }
# shellcheck source=bench/gpu/steps.sh
source "$repo/bench/gpu/steps.sh"

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
  echo "compute-sanitizer: $sanitizer"
  ls /usr/local/cuda/lib64 2>/dev/null | grep -E 'cublas|nvrtc|cudnn|cudart' | head -20
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' || true
  python3 -c 'import glob, sys; print("cudnn wheels:", [p for s in sys.path for p in glob.glob(s + "/nvidia/**/libcudnn.so*", recursive=True)])' || true
}
sanitizer=${EIN_COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
export sanitizer
export -f environment
step environment 30 environment
cat "$logs/environment.log" > "$OUT/machine.txt"

# The kit: Debian's doctest, nlohmann-json and OpenBLAS, unpacked in /tmp.
kit_prefix=
if [[ ${EIN_GPU_KIT:-} != system ]]; then
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
                # the GPU machine has no protobuf or libonnx-dev, and no step imports ONNX
                -DEIN_ENABLE_ONNX=OFF
                -DEIN_BENCH_MODELS_SIZE="${EIN_MODELS_SIZE:-full}" -DEIN_BENCH_MODELS_TYPE="${EIN_MODELS_TYPE:-float}")
[[ -n $kit_prefix ]] && configure_args+=(-DCMAKE_PREFIX_PATH="$kit_prefix"
                                         -DCMAKE_LIBRARY_PATH="$kit_prefix/lib/x86_64-linux-gnu/openblas-pthread")
# CMake's file API lists the targets the configuration made (some need cuDNN).
mkdir -p "$build/.cmake/api/v1/query" && : > "$build/.cmake/api/v1/query/codemodel-v2"
step configure 60 cmake "${configure_args[@]}" || { note "configure failed: see logs/configure.log"; repack; exit 1; }
configured() { compgen -G "$build/.cmake/api/v1/reply/target-$1-*.json" > /dev/null; }

# What the steps below run, and only that.
targets=()
for target in codegen_cuda codegen_cuda_prepared codegen_half_cuda test_cost_cuda test_runtime_cuda conv3x3_cuda paper_cases_cuda \
              bench_gpu_paper_cases bench_gpu_bandwidth ein_search; do
  if configured "$target"; then
    targets+=("$target")
  elif [[ $target == bench_gpu_paper_cases ]]; then
    note "build: $target is not configured: no cuDNN found (cmake/ein_find_cudnn.cmake); paper_cases_* skip"
  else
    note "build: $target is not configured: what runs it fails"
  fi
done
# Whether EIN_GPU_STEPS names step $1: the steps that run only when named.
named() { [[ " ${EIN_GPU_STEPS:-} " == *" $1 "* ]]; }
# The CUDA tuner's benchmark, only for its step (named).
if named tune_paper_cases; then
  if configured bench_gpu_tune_paper_cases; then
    targets+=(bench_gpu_tune_paper_cases)
  else
    note "build: bench_gpu_tune_paper_cases is not configured: no cuDNN found; tune_paper_cases skips"
  fi
fi
# The seven models (named build_models) build beside the rest, in one build over every core: their
# seven searches run while nvcc compiles the other plans.
build_limit=300
if named build_models; then
  if configured bench_models; then
    targets+=(bench_models)
    build_limit=420
  else
    note "build: bench_models is not configured (EIN_BUILD_MODEL_BENCHMARKS=cuda needs CUDA): models_* fail"
  fi
fi
((${#targets[@]})) || { note "build: CMake's file API lists no target (CMake 3.14 or later needed)"; repack; exit 1; }
# 300 s: on an H200's 16 cores the build without the models took 162 s (docs/gpu.md, the first run)
step build $build_limit cmake --build "$build" -j "$jobs" --target "${targets[@]}" || { note "build failed: see logs/build.log"; repack; exit 1; }

# Every GPU test but the examples (their own steps, next), verbose: the checks they print go into
# the summary, and on a GPU each kind of check must be there.
step ctest_gpu 120 ctest --test-dir "$build" -L gpu -E '^example_' -V
if wanted ctest_gpu; then
  grep -o 'ein check: .*' "$logs/ctest_gpu.log" | sed 's/^/  /' >> "$summary"
  for check in "fused convolution" "full float" "capture first" "16-bit" "16-bit fused"; do
    if ((gpu)) && ! grep -q "ein check: $check" "$logs/ctest_gpu.log"; then
      note "$(printf '%-22s    -    FAILED: ctest_gpu printed no "ein check: %s" line' "check" "$check")"
      status=1
    fi
  done
fi
step example_conv3x3 30 needs_gpu "$build/examples/02_conv3x3/conv3x3_cuda"
step example_paper_cases 60 needs_gpu "$build/examples/03_paper_cases/paper_cases_cuda"

# The five cases: ein's plans against cuDNN (C++), then PyTorch eager and torch.compile (default mode).
work=$(mktemp -d)
torch_baseline() {
  needs_gpu true || return 77
  [[ -f $1/manifest.json ]] || { echo "no $1/manifest.json: paper_cases_cuda did not write it"; return 1; }
  python3 -c 'import torch' || { echo "python3 cannot import torch"; return 1; }
  PYTHONUNBUFFERED=1 python3 "$repo/bench/gpu/baseline.py" "$@" "$results/paper_cases.json"
}
export repo results
export -f torch_baseline
if configured bench_gpu_paper_cases; then
  step paper_cases_cuda 90 needs_gpu "$build/bench/gpu/bench_gpu_paper_cases" "$work" &&
    cp "$work/manifest.json" "$results/paper_cases_cuda.json"
  step paper_cases_torch 150 torch_baseline "$work" && tail -8 "$logs/paper_cases_torch.log" >> "$summary"
else
  skip_step paper_cases_cuda "bench_gpu_paper_cases is not configured (no cuDNN)"
  skip_step paper_cases_torch "bench_gpu_paper_cases is not configured (no cuDNN)"
fi

step bandwidth 60 needs_gpu "$build/bench/gpu/bench_gpu_bandwidth" "$results/bandwidth.json" &&
  cat "$logs/bandwidth.log" >> "$summary"

# compute-sanitizer: memcheck on the smallest GPU test (prepared plans: cuBLAS, cuDNN, kernels,
# a CUDA graph), racecheck on the plan whose OffsetReduce stages its reads through shared memory.
if [[ -x $sanitizer ]]; then
  step memcheck_prepared 90 needs_gpu "$sanitizer" --tool memcheck --error-exitcode 1 \
    "$build/tests/codegen/codegen_cuda_prepared"
  step racecheck_paper_cases 90 needs_gpu "$sanitizer" --tool racecheck --error-exitcode 1 \
    "$build/examples/03_paper_cases/paper_cases_cuda" --check
else
  skip_step memcheck_prepared "no compute-sanitizer ($sanitizer)"
  skip_step racecheck_paper_cases "no compute-sanitizer ($sanitizer)"
fi

# One generation under the measured cost model (kernels timed on the GPU, cached in JSON): what it
# prints is the log, its report and cache are kept.
measured() {
  needs_gpu true || return 77
  "$build/ein_generate/ein_search" --model "$build/examples/02_conv3x3/ein_generate/conv3x3_cuda_plan/model.json" \
    --name conv3x3_measured --backend cuda --header "$results/conv3x3_measured.hpp" \
    --report "$results/conv3x3_measured.json" --source "$results/conv3x3_measured.cu" \
    --profile "$repo/profiles/h100_sxm5.json" --cost measured --cost-cache "$results/ein_cost_cache.json"
}
export build
export -f measured
# 150 s: on the H200 it timed 737 kernels in 118 s (docs/gpu.md, the first run)
step measured_conv3x3 150 measured

# torch.compile's max-autotune mode, added to the same results, where time is left.
if [[ -f $results/paper_cases.json ]]; then
  step paper_cases_autotune 150 torch_baseline "$work" --max-autotune &&
    tail -8 "$logs/paper_cases_autotune.log" >> "$summary"
else
  skip_step paper_cases_autotune "paper_cases_torch wrote no results"
fi

# The CUDA tuner on the five cases' eOperators, from scratch within 60 s in all and by reuse
# (docs/decisions/0029): ETO's two numbers (tuning time with reuse against from scratch, each
# kernel's loss) into results/tuning_paper_cases.json. Only when named in EIN_GPU_STEPS: it
# searches the five cases' plans again, and tunes each kernel twice.
if named tune_paper_cases; then
  if configured bench_gpu_tune_paper_cases; then
    step tune_paper_cases 240 needs_gpu "$build/bench/gpu/bench_gpu_tune_paper_cases" 60 \
      "$results/tuning_paper_cases.json" && tail -1 "$logs/tune_paper_cases.log" >> "$summary"
  else
    skip_step tune_paper_cases "bench_gpu_tune_paper_cases is not configured (no cuDNN)"
  fi
fi

# The seven models against PyTorch eager and torch.compile (docs/models.md): only when named in
# EIN_GPU_STEPS (build_models, models_cuda, models_torch), as their build (seven searches) and
# torch.compile's tuning need most of a call.
# one place per element type, so that a later call's models_torch finds it
models_type=${EIN_MODELS_TYPE:-float}
suffix=$([[ $models_type == float ]] || echo "_$models_type")
models_work=${TMPDIR:-/tmp}/ein-models$suffix
if named models_cuda; then
  rm -rf "$models_work" && mkdir -p "$models_work"
  step models_cuda 240 needs_gpu "$build/bench/models/bench_models" "$models_work" &&
    cp "$models_work/manifest.json" "$results/models_cuda$suffix.json"
fi
torch_models() {
  [[ -f $1/manifest.json ]] && needs_gpu python3 -c 'import torch' || return 77
  PYTHONUNBUFFERED=1 python3 "$repo/bench/models/compare.py" "$1" "$results/models$2.json" ${EIN_MODELS_COMPILE---compile}
}
export -f torch_models
if named models_torch; then
  step models_torch 480 torch_models "$models_work" "$suffix"
  tail -10 "$logs/models_torch.log" >> "$summary"
fi

find "$build" -path '*ein_generated/*.json' -exec cp {} "$pack/reports/" \; 2>/dev/null
cp "$summary" "$pack/summary.txt"
repack
note "ein: GPU run done (status $status) in $(( $(date +%s) - started )) s; $OUT/ein-gpu.tar.gz holds the logs and results"
exit $status
