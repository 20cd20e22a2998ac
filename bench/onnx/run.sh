#!/usr/bin/env bash
# torchvision's ResNet-18, MobileNet-V2 and SqueezeNet 1.1 through ONNX: exported with random
# weights, run by ONNX Runtime and PyTorch eager (torchvision_reference.py, in a virtual
# environment with torch, torchvision, onnx and onnxruntime from PyPI), then imported, searched,
# generated and run by ein on the same input (bench_onnx_host); writes bench/results/onnx_host.json
# and prints the table of docs/onnx.md. Where CMake finds CUDA it builds the networks' cuda plans
# too (bench_onnx_cuda), which run on a CUDA device (bench/results/onnx_cuda.json) and are skipped
# without one.
#   bench/onnx/run.sh [build folder (default build-onnx-bench)] [runs (default 30)]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build-onnx-bench}
runs=${2:-30}
python=${EIN_PYTHON:-python3}
files=$build/torchvision
"$python" bench/onnx/torchvision_reference.py "$files" --runs "$runs"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DEIN_BUILD_TESTS=OFF -DEIN_BUILD_EXAMPLES=OFF \
  -DEIN_ONNX_BENCH_DIR="$(realpath "$files")"
cmake --build "$build" -j"${EIN_JOBS:-2}" --target bench_onnx_host
"$build/bench/onnx/bench_onnx_host" "$files" bench/results/onnx_host.json --runs "$runs"
targets=$(cmake --build "$build" --target help)  # whole: grep -q would end the pipe early under pipefail
if [[ $targets == *bench_onnx_cuda* ]]; then
  cmake --build "$build" -j"${EIN_JOBS:-2}" --target bench_onnx_cuda
  status=0
  "$build/bench/onnx/bench_onnx_cuda" "$files" bench/results/onnx_cuda.json --runs "$runs" || status=$?
  ((status == 0 || status == 77)) || exit "$status"
fi
