"""The peers a model is timed against, on the inputs bench_models wrote: PyTorch eager (reference.py),
torch.compile, and ONNX Runtime on the model exported from PyTorch (torch.onnx.export, weights as
initializers). compare.py and host_rounds.py use them."""
import os
import time

import numpy as np
import torch

from reference import MODELS


def load(work, entry, device="cpu"):
    data = np.fromfile(os.path.join(work, entry["file"]), dtype=np.float32)
    return torch.from_numpy(data.reshape(entry["shape"])).to(device)


def model_of(work, entry, device="cpu"):
    """The model's input, ein's output, and PyTorch's forward function, from what bench_models wrote."""
    tensors = {e["name"]: load(work, e, device) for e in entry["tensors"]}
    (x_name,) = [e["name"] for e in entry["tensors"] if e["role"] == "input"]
    return tensors[x_name], load(work, entry["output"], device), MODELS[entry["name"]](tensors, entry)


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
