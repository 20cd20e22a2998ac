"""The models against PyTorch: each model that bench_models wrote (manifest.json and raw float32
files in its work folder) run by PyTorch eager, with --compile by torch.compile, and on the host
with --onnxruntime by ONNX Runtime (the model exported from PyTorch), on the same inputs; each
output compared with ein's, times taken on the device ein's plans ran on, and one table of ein
(from a cuda manifest also its plan replayed as a CUDA graph), eager and compiled times; the
manifest with the results added is written as JSON. For medians of rounds interleaved with ein's
plans on the host, see host_rounds.py.

    python3 bench/models/compare.py <work folder> <results.json> [--compile] [--onnxruntime] [--models a,b]

A 16-bit model (EIN_BENCH_MODELS_TYPE bfloat16 or half) runs in PyTorch in that type too
(`.to(torch.bfloat16)`, on the same values), and ein's output is checked against the float32 result
on those values: within twice PyTorch eager's difference from it plus a unit in the last place
(peers.agreement); ONNX Runtime runs float models only.

On a GPU (a cuda manifest): full float (TF32 off), cudnn.benchmark on, channels-last tensors, the
median of 50 runs after 5 warm-ups timed with CUDA events, torch.compile in "max-autotune" mode
unless --compile-mode says otherwise.
On the host: the median of 3 to 20 runs (about a second), on every core, torch.compile in its
default mode. A model's error (out of memory, a compiler failure) is a result too.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

import peers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
import baseline  # noqa: E402  (bench/gpu/baseline.py, the operator cases' twin)
from baseline import max_rel_err  # noqa: E402


def median_ms(fn, device):
    return baseline.median_ms(fn) if device == "cuda" else peers.host_median_ms(fn)


def run(work, entry, device, compile_mode, onnxruntime=False):
    x, ein_out, forward = peers.model_of(work, entry, device)
    narrow = entry.get("element", "float") != "float"
    result, outputs = {}, {}
    for mode in ("eager", "compile") if compile_mode else ("eager",):
        try:
            with torch.no_grad():
                f = lambda: forward(x)
                if mode == "compile":
                    compiled = torch.compile(forward, mode=compile_mode)
                    start = time.time()
                    compiled(x)
                    if device == "cuda":
                        torch.cuda.synchronize()
                    result["compile_seconds"] = time.time() - start
                    f = lambda: compiled(x)
                out = f()
                outputs[mode] = out
                result[mode + "_max_rel_err_vs_ein"] = max_rel_err(out.float(), ein_out)
                result[mode + "_ms"] = median_ms(f, device)
        except Exception as e:
            result[mode + "_error"] = f"{type(e).__name__}: {e}"[:500]
        if device == "cuda":
            torch.cuda.empty_cache()
    if narrow and "eager" in outputs:
        x32, _, forward32 = peers.model_of(work, entry, device, element="float")
        with torch.no_grad():
            reference32 = forward32(x32)
        errs, result["disagree"] = peers.agreement(entry, {"ein": ein_out, **outputs}, outputs["eager"], reference32)
        result.update({who + "_max_rel_err_vs_float32": err for who, err in errs.items()})
    if onnxruntime and not narrow:
        try:
            f = peers.onnxruntime_session(forward, x, os.path.join(work, entry["name"] + ".onnx"), torch.get_num_threads())
            result["onnxruntime_max_rel_err_vs_ein"] = max_rel_err(f(), ein_out)
            result["onnxruntime_ms"] = median_ms(f, device)
        except Exception as e:
            result["onnxruntime_error"] = f"{type(e).__name__}: {e}"[:500]
    return result


def write_results(manifest, path):
    """The manifest with PyTorch's results, less the file list and shapes, which only loading needs."""
    drop = ("tensors", "definitions", "output")
    results = dict(manifest, models=[{k: v for k, v in e.items() if k not in drop} for e in manifest["models"]])
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work")
    parser.add_argument("results")
    parser.add_argument("--compile", action="store_true", help="time torch.compile too")
    parser.add_argument("--compile-mode", choices=("default", "reduce-overhead", "max-autotune"),
                        help='torch.compile\'s mode (default: "max-autotune" on a GPU, "default" on the host)')
    parser.add_argument("--onnxruntime", action="store_true", help="time ONNX Runtime too (host)")
    parser.add_argument("--models", help="only these models (comma-separated)")
    args = parser.parse_args()
    with open(os.path.join(args.work, "manifest.json")) as f:
        manifest = json.load(f)
    device = "cuda" if manifest["backend"] == "cuda" else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    torch.set_float32_matmul_precision("highest")
    compile_mode = None
    if args.compile:
        compile_mode = args.compile_mode or ("max-autotune" if device == "cuda" else "default")
    manifest["torch"] = {"version": torch.__version__, "threads": torch.get_num_threads(), "compile_mode": compile_mode}
    if device == "cuda":
        manifest["torch"]["cudnn"] = torch.backends.cudnn.version()
    wanted = set(args.models.split(",")) if args.models else None
    failed = []
    for entry in manifest["models"]:
        if wanted and entry["name"] not in wanted:
            continue
        entry["torch"] = run(args.work, entry, device, compile_mode, args.onnxruntime and device == "cpu")
        print(f"{entry['name']}: {entry['torch']}", flush=True)
        errs = [v for k, v in entry["torch"].items() if k.endswith("_max_rel_err_vs_ein")]
        if entry.get("element", "float") != "float":
            if "ein" in entry["torch"].get("disagree", ["ein"]):
                failed.append(entry["name"])
        elif not errs or max(errs) > 1e-3:
            failed.append(entry["name"])
        write_results(manifest, args.results)  # after each model, so that a run cut short keeps what it did

    def cell(v):
        return f"{v:10.4f}" if isinstance(v, (int, float)) else f"{'-':>10}"

    print(f"\n{manifest.get('gpu') or manifest['machine']['cpu']}: milliseconds; speedup = PyTorch / ein")
    print(f"{'model':11} {'ein':>10} {'ein graph':>10} {'eager':>10} {'compiled':>10} {'vs eager':>9} {'vs comp.':>9} "
          f"{'err vs ein':>11}")
    for entry in manifest["models"]:
        if "torch" not in entry:
            continue
        ein, t = entry["ein_ms"], entry["torch"]
        ratio = lambda v: f"{v / ein:9.2f}" if isinstance(v, (int, float)) else f"{'-':>9}"
        err = max((v for k, v in t.items() if k.endswith("_max_rel_err_vs_ein")), default=math.inf)
        print(f"{entry['name']:11} {cell(ein)} {cell(entry.get('ein_graph_ms'))} {cell(t.get('eager_ms'))} "
              f"{cell(t.get('compile_ms'))} {ratio(t.get('eager_ms'))} {ratio(t.get('compile_ms'))} {err:11.2e}")
    if failed:
        raise SystemExit(f"compare.py: PyTorch and ein disagree (or PyTorch failed) on {', '.join(failed)}")


if __name__ == "__main__":
    main()
