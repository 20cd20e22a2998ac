"""The seven models' gradients against PyTorch's autograd: for each model that bench_gradients wrote
(manifest.json and raw float32 files in its work folder), the PyTorch twin of bench/models/reference.py
built from the same weights, its output's vector–Jacobian product with the same seed
(torch.autograd.grad), and every gradient — the input's and each weight's, in ein's layouts —
compared with ein's: the largest difference relative to the largest magnitude of PyTorch's
gradient must be within 1e-4. Writes the results as JSON and prints one line per model.

    python3 bench/gradients/compare.py <work folder> <results.json>

PyTorch runs in float64, on ein's float32 values widened: its float32 CPU convolutions give a wrong
filter gradient for a 1×1 stride-2 convolution of a channels-last input, as ResNet-18's downsampling
convolutions are here (off by 10 where the filter gradient's largest magnitude is 6 on random data,
PyTorch 2.15; bench/gradients/torch_strided_1x1.py shows it). float64 takes another path, which agrees
with ein to 6e-7.

Batch normalization is written out, (y − mean)·scale/√(var + eps) + shift, as ein's folded form
computes it: PyTorch's batch_norm has no derivative with respect to its running statistics, which
ein's programs hold as weights.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import reference  # noqa: E402


class _Functional:
    """torch.nn.functional with batch normalization in inference mode written out."""

    def __getattr__(self, name):
        return getattr(torch.nn.functional, name)

    @staticmethod
    def batch_norm(y, mean, var, scale, shift, training=False, eps=1e-5):
        shape = (1, -1, 1, 1)
        return (y - mean.view(shape)) * (scale / torch.sqrt(var + eps)).view(shape) + shift.view(shape)


reference.F = _Functional()
TOLERANCE = 1e-4


def load(work, entry):
    """A float32 file of the work folder as a float64 tensor: PyTorch's autograd runs in float64."""
    data = np.fromfile(os.path.join(work, entry["file"]), dtype=np.float32)
    return torch.from_numpy(data.reshape(entry["shape"]).astype(np.float64))


def compare(work, entry):
    """PyTorch's gradients of one model and their largest relative difference from ein's."""
    tensors = {e["name"]: load(work, e).requires_grad_() for e in entry["tensors"]}
    (x_name,) = [e["name"] for e in entry["tensors"] if e["role"] == "input"]
    forward = reference.MODELS[entry["name"]](tensors, entry)
    y = forward(tensors[x_name])
    (seed,) = [load(work, s) for s in entry["seeds"]]
    names = [g["tensor"] for g in entry["gradients"]]
    grads = torch.autograd.grad(y, [tensors[n] for n in names], grad_outputs=seed.reshape(y.shape), allow_unused=True)
    errors = {}
    for g, want in zip(entry["gradients"], grads):
        got = load(work, g)
        if want is None:
            want = torch.zeros_like(got)
        scale = want.abs().max().item()
        diff = (got - want).abs().max().item()
        errors[g["tensor"]] = diff / scale if scale > 0 else diff
    output_error = (y.detach() - load(work, entry["output"]).reshape(y.shape)).abs().max().item() / max(
        y.detach().abs().max().item(), 1e-30)
    return errors, output_error


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work")
    parser.add_argument("results")
    args = parser.parse_args()
    with open(os.path.join(args.work, "manifest.json")) as f:
        manifest = json.load(f)
    results = {"machine": manifest["machine"], "when": manifest["when"], "torch": torch.__version__,
               "tolerance": TOLERANCE, "compared": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "models": []}
    failed = []
    for entry in manifest["models"]:
        errors, output_error = compare(args.work, entry)
        worst = max(errors, key=errors.get)
        results["models"].append({"name": entry["name"], "gradients": len(errors), "max_rel_err": errors[worst],
                                  "worst_tensor": worst, "output_max_rel_err": output_error, "per_tensor": errors})
        print(f"{entry['name']:11} {len(errors):4} gradients, largest difference {errors[worst]:.2e} ({worst}); "
              f"output {output_error:.2e}", flush=True)
        if errors[worst] > TOLERANCE:
            failed.append(entry["name"])
    with open(args.results, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    if failed:
        raise SystemExit(f"compare.py: ein's gradients differ from PyTorch's by more than {TOLERANCE} on {', '.join(failed)}")


if __name__ == "__main__":
    main()
