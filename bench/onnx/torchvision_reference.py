"""Exports torchvision's ResNet-18, MobileNet-V2 and SqueezeNet 1.1 with random weights (seed 0)
to ONNX, runs each in ONNX Runtime (CPU) on a random input and writes the input and ONNX
Runtime's output beside the file (as ONNX's node tests store them); times ONNX Runtime and
PyTorch eager (CPU) and writes the medians to reference.json. bench/onnx/run.sh runs it before
ein's plans are built and timed on the same input. Needs torch, torchvision, onnx and
onnxruntime (pip); never part of the build.

    python3 bench/onnx/torchvision_reference.py <folder> [--runs 30]
"""
import argparse
import json
import os
import platform
import statistics
import time

import numpy as np
import onnx
import onnxruntime
import torch
import torchvision
from onnx import numpy_helper

NETWORKS = {
    "resnet18": torchvision.models.resnet18,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
}


def median_ms(run, runs):
    for _ in range(3):
        run()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    torch.manual_seed(0)
    threads = os.cpu_count()
    torch.set_num_threads(threads)
    reference = {"machine": {"cpu": platform.processor() or platform.machine(), "threads": threads},
                 "torch": torch.__version__, "onnxruntime": onnxruntime.__version__, "networks": {}}
    for name, make in NETWORKS.items():
        net = make(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        folder = os.path.join(args.folder, name)
        os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
        path = os.path.join(folder, name + ".onnx")
        torch.onnx.export(net, (x,), path, input_names=["input"], output_names=["output"], opset_version=17,
                          dynamo=False, do_constant_folding=True)
        onnx.checker.check_model(onnx.load(path))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        feed = {"input": x.numpy()}
        (y,) = session.run(None, feed)
        for file, array in (("input_0.pb", x.numpy()), ("output_0.pb", y)):
            with open(os.path.join(folder, "test_data_set_0", file), "wb") as f:
                f.write(numpy_helper.from_array(np.ascontiguousarray(array)).SerializeToString())
        with torch.no_grad():
            eager = median_ms(lambda: net(x), args.runs)
            torch_out = net(x).numpy()
        reference["networks"][name] = {
            "onnxruntime_ms": median_ms(lambda: session.run(None, feed), args.runs),
            "pytorch_eager_ms": eager,
            "pytorch_vs_onnxruntime_max_abs": float(np.abs(torch_out - y).max()),
        }
        print(name, reference["networks"][name], flush=True)
    with open(os.path.join(args.folder, "reference.json"), "w") as f:
        json.dump(reference, f, indent=2)


if __name__ == "__main__":
    main()
