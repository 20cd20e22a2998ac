#!/usr/bin/env bash
# bench/gpu/run.sh and its steps (bench/gpu/steps.sh) with nvidia-smi, CMake, CTest and the built
# programs faked: a step's verdict from its exit status (a skip where nvidia-smi lists a GPU
# fails), the time budget, no kit stopping the call at once, a target that is not configured
# leaving its steps skipped, a missing compute-sanitizer reported as such, and the steps in order.
#   gpu_run_test.sh <repository root>
set -euo pipefail
source_repo="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- the steps alone -------------------------------------------------------------------------
steps_case() {  # steps_case GPU LIMIT COMMAND...: the summary line of one step, then the status
  (
    budget=100 started=$(date +%s) logs=$work/logs summary=$work/summary status=0 gpu=$1 limit=$2
    shift 2
    mkdir -p "$logs"
    : > "$summary"
    repack() { :; }
    source "$source_repo/bench/gpu/steps.sh"
    step one "$limit" "$@" > /dev/null || true
    echo "$(cat "$summary")|$status"
  )
}
expect_step() {  # expect_step WHAT GOT PATTERN
  [[ $2 =~ $3 ]] || fail "$1: got '$2'"
}
expect_step "a step that passes" "$(steps_case 0 5 true)" '^one +[0-9]+ s  ok\|0$'
expect_step "no device, no GPU listed" "$(steps_case 0 5 bash -c 'exit 77')" 'skipped \(no CUDA device\)\|0$'
expect_step "no device, a GPU listed" "$(steps_case 1 5 bash -c 'exit 77')" \
  'FAILED: skipped although nvidia-smi lists a GPU.*\|1$'
expect_step "a failure" "$(steps_case 0 5 bash -c 'exit 3')" 'FAILED \(exit 3\)\|1$'
expect_step "over its limit" "$(steps_case 0 1 sleep 5)" 'FAILED: over its 1 s\|1$'
expect_step "a slow machine's longer limit" "$(EIN_GPU_SLOWDOWN=3 steps_case 0 1 sleep 2)" '  ok\|0$'
over_budget() {  # the budget spent before the step
  (
    budget=10 started=$(date +%s) logs=$work/logs summary=$work/summary status=0 gpu=1 optional="$1"
    : > "$summary"
    repack() { :; }
    source "$source_repo/bench/gpu/steps.sh"
    step one 5 true > /dev/null || true
    echo "$(cat "$summary")|$status"
  )
}
expect_step "out of time" "$(over_budget "")" 'FAILED: out of time.*\|1$'
expect_step "out of time, optional" "$(over_budget "one")" 'skipped: no time left for it.*\|0$'

# --- run.sh with its world faked --------------------------------------------------------------
repo=$work/repo
mkdir -p "$repo/bench/gpu"
cp "$source_repo/bench/gpu/run.sh" "$source_repo/bench/gpu/steps.sh" "$repo/bench/gpu/"
bin=$work/bin
mkdir -p "$bin"
cat > "$bin/nvidia-smi" <<'FAKE'
#!/usr/bin/env bash
((FAKE_GPU)) || exit 9
echo "GPU 0: NVIDIA H200 (fake)"
FAKE
# CMake: configuring makes the file API's reply name FAKE_TARGETS; building succeeds.
cat > "$bin/cmake" <<'FAKE'
#!/usr/bin/env bash
echo "cmake $*" >> "$FAKE_CALLS"
[[ $1 == --version ]] && { echo "cmake version 3.25.1"; exit 0; }
if [[ $1 == -S ]]; then
  mkdir -p "$4/.cmake/api/v1/reply"
  for t in $FAKE_TARGETS; do : > "$4/.cmake/api/v1/reply/target-$t-Release-0123.json"; done
fi
exit 0
FAKE
# No PyTorch here (importing it takes seconds); run.sh asks python3 for it and for cuDNN's wheel.
printf '#!/usr/bin/env bash\nexit 1\n' > "$bin/python3"
cat > "$bin/ctest" <<'FAKE'
#!/usr/bin/env bash
echo "ctest $*" >> "$FAKE_CALLS"
printf '%s\n' "$FAKE_CTEST_OUTPUT"
exit 0
FAKE
chmod +x "$bin"/*
build=$work/build
program() {  # program PATH STATUS: a built program that records its call and exits with STATUS
  mkdir -p "$(dirname "$build/$1")"
  printf '#!/usr/bin/env bash\necho "%s $*" >> "$FAKE_CALLS"\nexit %s\n' "$1" "$2" > "$build/$1"
  chmod +x "$build/$1"
}
program examples/02_conv3x3/conv3x3_cuda 0
program examples/03_paper_cases/paper_cases_cuda 0
program bench/gpu/bench_gpu_bandwidth 77
program ein_generate/ein_search 0

all_but_paper_cases="codegen_cuda codegen_cuda_prepared codegen_half_cuda test_cost_cuda test_runtime_cuda conv3x3_cuda paper_cases_cuda
                     bench_gpu_bandwidth ein_search"
checks=$'7: ein check: fused convolution a: b\n7: ein check: full float c: d\n5: ein check: capture first: e\n9: ein check: 16-bit f: g\n9: ein check: 16-bit fused h: i'
run_script() {  # run_script GPU: run.sh's status; its output in $work/out, its calls in $work/calls
  : > "$work/calls"
  rm -rf "$work/out"
  set +e
  PATH="$bin:$PATH" FAKE_GPU="$1" FAKE_CALLS="$work/calls" FAKE_TARGETS="${FAKE_TARGETS-$all_but_paper_cases}" \
    FAKE_CTEST_OUTPUT="${FAKE_CTEST_OUTPUT-$checks}" OUT="$work/out" EIN_COMPUTE_SANITIZER="$work/no-sanitizer" \
    bash "$repo/bench/gpu/run.sh" "$build" > "$work/stdout" 2> "$work/stderr"
  local rc=$?
  set -e
  return $rc
}

# No kit: it stops before anything runs, naming the command that makes one.
rc=0
run_script 1 || rc=$?
((rc == 1)) || fail "without a kit it exited with $rc"
grep -q "bench/gpu/gather.sh" "$work/stderr" || fail "without a kit it said: $(cat "$work/stderr")"
[[ ! -s $work/calls ]] || fail "without a kit it called: $(cat "$work/calls")"

# With a kit and a GPU listed: the bandwidth benchmark's skip fails the run; cuDNN's target is not
# configured (its steps skip), nor is compute-sanitizer there.
mkdir -p "$work/kit/usr/include" "$repo/.gpu-kit"
tar -C "$work/kit" -cJf "$repo/.gpu-kit/kit.tar.xz" usr
rc=0
run_script 1 || rc=$?
summary=$work/out/summary.txt
((rc == 1)) || fail "with a GPU listed and a skipping program it exited with $rc: $(cat "$summary")"
line() { grep -E "^$1 " "$summary" || fail "no summary line for $1: $(cat "$summary")"; }
[[ $(line bandwidth) == *"FAILED: skipped although nvidia-smi lists a GPU"* ]] || fail "bandwidth: $(line bandwidth)"
[[ $(line paper_cases_cuda) == *"skipped: bench_gpu_paper_cases is not configured (no cuDNN)"* ]] ||
  fail "paper_cases_cuda: $(line paper_cases_cuda)"
[[ $(line paper_cases_torch) == *skipped* ]] || fail "paper_cases_torch: $(line paper_cases_torch)"
grep -q "^build: bench_gpu_paper_cases is not configured: no cuDNN found" "$summary" ||
  fail "the missing target is not named: $(cat "$summary")"
for s in memcheck_prepared racecheck_paper_cases; do
  [[ $(line $s) == *"skipped: no compute-sanitizer ($work/no-sanitizer)"* ]] || fail "$s: $(line $s)"
done
for s in ctest_gpu example_conv3x3 example_paper_cases measured_conv3x3; do
  [[ $(line $s) =~ \ ok$ ]] || fail "$s: $(line $s)"
done
grep -q "^  ein check: capture first: e$" "$summary" || fail "the checks are not in the summary: $(cat "$summary")"
built=$(grep -- "--build" "$work/calls")
[[ $built == *"--target codegen_cuda codegen_cuda_prepared codegen_half_cuda test_cost_cuda test_runtime_cuda conv3x3_cuda paper_cases_cuda bench_gpu_bandwidth ein_search" ]] ||
  fail "it built: $built"
grep -q -- "ctest --test-dir $build -L gpu -E ^example_ -V" "$work/calls" || fail "ctest ran as: $(grep ctest "$work/calls")"
order=$(grep -oE '^[a-z_0-9]+ ' "$summary" | tr -d ' ' | tr '\n' ' ')
[[ $order == "environment configure build ctest_gpu example_conv3x3 example_paper_cases paper_cases_cuda paper_cases_torch bandwidth memcheck_prepared racecheck_paper_cases measured_conv3x3 paper_cases_autotune " ]] ||
  fail "the steps ran in the order: $order"

# A GPU listed but a check missing from ctest's output: a failure.
rc=0
FAKE_CTEST_OUTPUT="7: ein check: fused convolution a: b" run_script 1 || rc=$?
((rc == 1)) || fail "with checks missing it exited with $rc"
grep -q 'FAILED: ctest_gpu printed no "ein check: capture first" line' "$summary" ||
  fail "a missing check is not reported: $(cat "$summary")"

# No GPU: every GPU step skips, and the run passes.
program bench/gpu/bench_gpu_bandwidth 77
rc=0
FAKE_CTEST_OUTPUT="" run_script 0 || rc=$?
((rc == 0)) || fail "without a GPU it exited with $rc: $(cat "$summary")"
[[ $(line bandwidth) == *"skipped (no CUDA device)"* ]] || fail "bandwidth without a GPU: $(line bandwidth)"
# The CUDA tuner's step runs only when named; its target needs cuDNN, not configured here: the build
# and the step say so, and the run passes.
rc=0
EIN_GPU_STEPS="tune_paper_cases" FAKE_CTEST_OUTPUT="" run_script 0 || rc=$?
((rc == 0)) || fail "with tune_paper_cases named it exited with $rc: $(cat "$summary")"
[[ $(line tune_paper_cases) == *"skipped: bench_gpu_tune_paper_cases is not configured (no cuDNN)"* ]] ||
  fail "tune_paper_cases: $(line tune_paper_cases)"
grep -q "^build: bench_gpu_tune_paper_cases is not configured: no cuDNN found" "$summary" ||
  fail "the tuner's missing target is not named: $(cat "$summary")"
# The models (build_models named) build in the one build where bench_models is configured, and
# the build says so where it is not.
rc=0
EIN_GPU_STEPS="build_models models_cuda" FAKE_CTEST_OUTPUT="" run_script 0 || rc=$?
((rc == 0)) || fail "with build_models named, bench_models not configured, it exited with $rc: $(cat "$summary")"
grep -q "^build: bench_models is not configured" "$summary" || fail "bench_models missing is not named: $(cat "$summary")"
rc=0
EIN_GPU_STEPS="build_models models_cuda" FAKE_TARGETS="$all_but_paper_cases bench_models" FAKE_CTEST_OUTPUT="" \
  run_script 0 || rc=$?
((rc == 0)) || fail "with build_models named it exited with $rc: $(cat "$summary")"
built=$(grep -c -- "--build" "$work/calls")
((built == 1)) || fail "the models built apart: $(grep -- "--build" "$work/calls")"
[[ $(grep -- "--build" "$work/calls") == *" ein_search bench_models" ]] || fail "it built: $(grep -- "--build" "$work/calls")"
[[ $(line models_cuda) == *"skipped (no CUDA device)"* ]] || fail "models_cuda without a GPU: $(line models_cuda)"
echo "bench/gpu/run.sh: verdicts, budget, kit, missing targets and sanitizer, order of the steps"
