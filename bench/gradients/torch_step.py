"""ResNet-18's training step in PyTorch on the host, the peer of bench_resnet18_training: the
reference.py twin built from the weights that ein's run wrote (batch normalization written out, as
compare.py does), its output's vector–Jacobian product with the same seed by autograd, timed as a
whole (forward and backward) and backward alone, the median of `runs` runs after one, with the
process's peak resident memory, all in float32; with --compare, every gradient compared with each
ein run's in the work folder (largest difference relative to PyTorch's largest magnitude), PyTorch's
computed again in float64 as compare.py does. Prints JSON.

    python3 bench/gradients/torch_step.py <work folder> <runs> [--compare]
"""
import argparse
import json
import os
import resource
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (patches reference's batch normalization)
from compare import load, reference  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work")
    parser.add_argument("runs", type=int)
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.work, "resnet18.cost.json")) as f:
        entry = json.load(f)
    tensors = {e["name"]: load(args.work, e).float().requires_grad_() for e in entry["tensors"]}
    x = tensors["x"]
    (seed,) = [load(args.work, s).float() for s in entry["seeds"]]
    params = [tensors[e["name"]] for e in entry["tensors"]]

    def step(backward_only=False):
        for p in params:
            p.grad = None
        t0 = time.perf_counter()
        forward = reference.MODELS["resnet18"](tensors, entry)  # relayouts the filters, as a step would
        y = forward(x)
        t1 = time.perf_counter()
        y.backward(seed.reshape(y.shape))
        t2 = time.perf_counter()
        return (t2 - t1 if backward_only else t2 - t0) * 1e3

    step()
    whole = [step() for _ in range(args.runs)]
    backward = [step(backward_only=True) for _ in range(args.runs)]
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(), "step_ms": whole,
              "step_median_ms": float(np.median(whole)), "backward_ms": backward,
              "backward_median_ms": float(np.median(backward)),
              "peak_resident_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    if args.compare:
        exact = {e["name"]: load(args.work, e).requires_grad_() for e in entry["tensors"]}
        y = reference.MODELS["resnet18"](exact, entry)(exact["x"])
        names = list(exact)
        grads = dict(zip(names, torch.autograd.grad(y, [exact[n] for n in names],
                                                    grad_outputs=load(args.work, entry["seeds"][0]).reshape(y.shape))))
        errors = {}
        for variant in ("cost", "store", "recompute"):
            path = os.path.join(args.work, f"resnet18.{variant}.json")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                ein = json.load(f)
            worst = 0.0
            for g in ein["gradients"]:
                want = grads[g["tensor"]]
                got = load(args.work, g)
                worst = max(worst, (got - want).abs().max().item() / max(want.abs().max().item(), 1e-30))
            errors[variant] = worst
        result["max_rel_err_vs_ein"] = errors
    print(json.dumps(result))


if __name__ == "__main__":
    main()
