"""The peers a model is timed against, on the inputs bench_models wrote: PyTorch eager (reference.py),
torch.compile, and ONNX Runtime on the model exported from PyTorch (torch.onnx.export, weights as
initializers). compare.py and host_rounds.py use them."""
import os
import sys
import time

import numpy as np
import torch

from reference import MODELS

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from baseline import max_rel_err  # noqa: E402  (bench/gpu/baseline.py)


# The element types bench_models writes models in (EIN_BENCH_MODELS_TYPE), and a unit in the
# last place of each 16-bit one relative to a value's magnitude.
DTYPES = {"float": torch.float32, "bfloat16": torch.bfloat16, "half": torch.float16}
UNITS = {"bfloat16": 2.0**-7, "half": 2.0**-10}


def load(work, entry, device="cpu"):
    data = np.fromfile(os.path.join(work, entry["file"]), dtype=np.float32)
    return torch.from_numpy(data.reshape(entry["shape"])).to(device)


def model_of(work, entry, device="cpu", element=None):
    """The model's input, ein's output (float32), and PyTorch's forward function, from what
    bench_models wrote, in the model's element type (entry["element"]) or in `element`
    ("float": the float32 reference of a 16-bit model, on the same values)."""
    dtype = DTYPES[element or entry.get("element", "float")]
    tensors = {e["name"]: load(work, e, device).to(dtype) for e in entry["tensors"]}
    (x_name,) = [e["name"] for e in entry["tensors"] if e["role"] == "input"]
    return tensors[x_name], load(work, entry["output"], device), MODELS[entry["name"]](tensors, entry)


def agreement(entry, outputs, eager, reference32=None):
    """Each output's largest difference and whether they all agree. A float model's outputs are
    compared with PyTorch eager's (`eager`): within 1e-3 of its largest magnitude. A 16-bit model's
    are compared with the float32 result on the same values (`reference32`): each within twice
    eager's own difference from it plus a unit in the last place — as accurate as PyTorch in that
    type (docs/models.md). Returns ({who: difference}, [who disagrees])."""
    element = entry.get("element", "float")
    if element == "float":
        errs = {who: max_rel_err(out, eager) for who, out in outputs.items()}
        return errs, [who for who, err in errs.items() if err > 1e-3]
    errs = {who: max_rel_err(out.float(), reference32) for who, out in outputs.items()}
    bound = 2 * max_rel_err(eager.float(), reference32) + UNITS[element]
    return errs, [who for who, err in errs.items() if err > bound]


def host_median_ms(fn):
    """The median of 3 to 20 runs (about a second) after one warm-up, in milliseconds."""
    fn()
    times, began = [], time.perf_counter()
    while len(times) < 20 and (len(times) < 3 or time.perf_counter() - began < 1):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


class _Forward(torch.nn.Module):
    def __init__(self, forward):
        super().__init__()
        self.forward_fn = forward

    def forward(self, x):
        return self.forward_fn(x)


def onnxruntime_session(forward, x, path, threads):
    """ONNX Runtime (CPU, every graph optimization, `threads` threads) running `forward` exported to
    `path`: a function of the input that returns the output as a tensor."""
    import onnxruntime as ort

    with torch.no_grad():
        torch.onnx.export(_Forward(forward), (x,), path, input_names=["x"], output_names=["y"], opset_version=17,
                          do_constant_folding=True, dynamo=False)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feed = {"x": x.contiguous().numpy()}
    return lambda: torch.from_numpy(session.run(["y"], feed)[0])
