"""The GPU baseline benchmark, PyTorch side: EinNet's five cases on the inputs that
bench_gpu_paper_cases wrote (manifest.json and raw float32 files), run by PyTorch eager and by
torch.compile in its default mode, each output compared with ein's; then one table of ein, cuDNN,
eager and compiled times beside the paper's A100 ratios, and the merged results as JSON. With
--max-autotune, torch.compile(mode="max-autotune") alone, added to the results already written
(its tuning takes minutes: bench/gpu/run.sh runs it last, where time is left).

    python3 bench/gpu/baseline.py <work folder> [--max-autotune] <results.json>

Full float everywhere (no TF32), cuDNN allowed to measure its algorithms (cudnn.benchmark), the
median of 50 runs after 5 warm-ups timed with CUDA events, as the C++ side times ein and cuDNN.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

WARMUP, RUNS = 5, 50


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(RUNS):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times))


def load(work, entry):
    data = np.fromfile(os.path.join(work, entry["file"]), dtype=np.float32)
    return torch.from_numpy(data.reshape(entry["shape"])).cuda()


def max_rel_err(x, ref):
    x, ref = x.double(), ref.double()
    if not torch.isfinite(x).all():
        return math.inf
    scale = ref.abs().max().item()
    err = (x - ref).abs().max().item()
    return err / scale if scale else err


def g2bmm(q, k, half_width=1000, dilation=4, chunk=1000):
    """out[b, m, w] = sum_k q[b, m, k] k[b, m + D (w - W), k]: the band read as a strided view of
    the padded keys, in chunks of rows so that eager's materialized band stays in memory."""
    b, m, f = q.shape
    pad = dilation * half_width
    kp = F.pad(k, (0, 0, pad, pad))
    outs = []
    for m0 in range(0, m, chunk):
        rows = min(chunk, m - m0)
        band = kp.as_strided((b, rows, 2 * half_width + 1, f), (kp.stride(0), f, dilation * f, 1),
                             kp.storage_offset() + m0 * f)
        outs.append(torch.einsum("bmk,bmwk->bmw", q[:, m0:m0 + rows], band))
    return torch.cat(outs, 1)


def case_functions(name, t):
    """The case in ein's layouts as PyTorch computes it: weights relaid once, outside the timing
    (as ein::prepare transforms them once); returns (fn, output names)."""
    cl = torch.channels_last
    if name == "conv3x3":
        x, w = t["A"].permute(0, 3, 1, 2), t["K"].permute(2, 3, 0, 1).contiguous(memory_format=cl)
        return (lambda: (F.conv2d(x, w, padding=1).permute(0, 2, 3, 1),)), ["y"]
    if name == "conv_transpose":
        x, w = t["T"].permute(0, 3, 1, 2), t["K"].permute(3, 2, 0, 1).contiguous(memory_format=cl)
        return (lambda: (F.conv_transpose2d(x, w, stride=2, padding=1).permute(0, 2, 3, 1),)), ["y"]
    if name == "conv5x5":
        x, w = t["B"], t["K"]
        return (lambda: (F.conv2d(x, w, padding=2),)), ["y"]
    if name == "g2bmm":
        q, k = t["Q"], t["K"]
        return (lambda: (g2bmm(q, k),)), ["y"]
    if name == "conv3x3_conv1x1":
        x = t["X"].permute(0, 3, 1, 2)
        w3 = t["K3"].permute(2, 3, 0, 1).contiguous(memory_format=cl)
        w1 = t["K1"].permute(2, 3, 0, 1).contiguous(memory_format=cl)
        return (lambda: (F.conv2d(x, w3, padding=1).permute(0, 2, 3, 1), F.conv2d(x, w1).permute(0, 2, 3, 1))), ["y3", "y1"]
    raise ValueError(name)


# The ways PyTorch runs a case: eager, and torch.compile with its keyword arguments.
COMPILE_MODES = {"compile": {}, "max_autotune": {"mode": "max-autotune"}}


def run(work, case, modes, result):
    tensors = {e["name"]: load(work, e) for e in case["tensors"]}
    ein_out = {e["name"]: load(work, e) for e in case["outputs"]}
    fn, names = case_functions(case["name"], tensors)
    for mode in modes:
        try:
            f = fn
            if mode in COMPILE_MODES:
                compiled = torch.compile(lambda: fn(), **COMPILE_MODES[mode])
                start = time.time()
                compiled()
                torch.cuda.synchronize()
                result[mode + "_seconds"] = time.time() - start
                f = compiled
            outs = f()
            torch.cuda.synchronize()
            result[mode + "_max_rel_err_vs_ein"] = max(max_rel_err(o, ein_out[n]) for o, n in zip(outs, names))
            result[mode + "_ms"] = median_ms(f)
        except Exception as e:  # an out-of-memory or a compiler failure is a result too
            result[mode + "_error"] = f"{type(e).__name__}: {e}"[:500]
        torch.cuda.empty_cache()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work")
    parser.add_argument("results")
    parser.add_argument("--max-autotune", action="store_true")
    args = parser.parse_args()
    work, out = args.work, args.results
    modes = ("max_autotune",) if args.max_autotune else ("eager", "compile")
    with open(out if args.max_autotune else os.path.join(work, "manifest.json")) as f:
        manifest = json.load(f)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    torch.set_float32_matmul_precision("highest")
    manifest["torch"] = torch.__version__
    manifest["torch_cudnn"] = torch.backends.cudnn.version()
    manifest["torch_timing"] = "median of 50 runs after 5 warm-ups, CUDA events; TF32 off; cudnn.benchmark on"
    for case in manifest["cases"]:
        case["torch"] = run(work, case, modes, case.get("torch", {}))
        print(f"{case['name']}: {case['torch']}", flush=True)
    with open(out, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")

    def ms(v):
        return f"{v:9.4f}" if isinstance(v, (int, float)) else f"{'-':>9}"

    print(f"\n{manifest['gpu']}: milliseconds (median of {RUNS}); speedup = other / ein")
    print(f"{'case':16} {'ein':>9} {'cuDNN':>9} {'eager':>9} {'compile':>9} {'autotune':>9} {'vs cuDNN':>8} "
          f"{'vs eager':>8} {'vs comp.':>8} {'vs tuned':>8} {'A100 paper':>10}")
    for c in manifest["cases"]:
        ein, lib = c["ein_ms"], c.get("cudnn_best_ms")
        eager, comp, tuned = (c["torch"].get(m + "_ms") for m in ("eager", "compile", "max_autotune"))
        ratio = lambda v: f"{v / ein:8.2f}" if isinstance(v, (int, float)) else f"{'-':>8}"
        paper = c["paper_a100"].get("ratio")
        paper_text = f"{paper:10.2f}" if paper else f"{'-':>10}"
        print(f"{c['name']:16} {ms(ein)} {ms(lib)} {ms(eager)} {ms(comp)} {ms(tuned)} {ratio(lib)} {ratio(eager)} "
              f"{ratio(comp)} {ratio(tuned)} {paper_text}")


if __name__ == "__main__":
    main()
