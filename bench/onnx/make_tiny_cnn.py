"""Writes examples/04_onnx/tiny_cnn.onnx, a small CNN with random weights (a convolution, a
depthwise convolution with ReLU6, pooling, a classifier and softmax; batch dim symbolic), and
its test data: a random input and ONNX Runtime's output, as ONNX's node tests store them.
Needs numpy, onnx and onnxruntime (pip); not part of the build.

    python3 bench/onnx/make_tiny_cnn.py examples/04_onnx
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper


def main(out_dir):
    rng = np.random.default_rng(2024)

    def weight(name, *shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.3, name)

    inits = [
        weight("conv1.weight", 8, 3, 3, 3), weight("conv1.bias", 8),
        weight("dw.weight", 8, 1, 3, 3),
        weight("fc.weight", 10, 8), weight("fc.bias", 10),
        numpy_helper.from_array(np.array(0, np.float32), "relu6_min"),
        numpy_helper.from_array(np.array(6, np.float32), "relu6_max"),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv1.weight", "conv1.bias"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "dw.weight"], ["c2"], name="dw", group=8, kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["c2", "relu6_min", "relu6_max"], ["r2"], name="relu6"),
        helper.make_node("MaxPool", ["r2"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    os.makedirs(os.path.join(out_dir, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "tiny_cnn.onnx"))
    x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"input": x})
    for name, array in (("input_0.pb", x), ("output_0.pb", y)):
        with open(os.path.join(out_dir, "test_data_set_0", name), "wb") as f:
            f.write(numpy_helper.from_array(array).SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "examples/04_onnx")
