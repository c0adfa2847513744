#!/usr/bin/env python3
"""The models the CUDA benchmark (bench/device_cuda_bench.py) compiles that the
test set does not have: the three CNNs at batch 32 and a 4096^3 MatMul whose
two operands are graph inputs (nothing to carry but the kernels).

  python3 bench/make_cuda_models.py OUT_DIR
"""
import os
import sys

from onnx import TensorProto, helper, save

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import build_models  # noqa: E402


def gemm(n=4096):
    a, b = (helper.make_tensor_value_info(x, TensorProto.FLOAT, [n, n]) for x in "ab")
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, [n, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"])], f"gemm{n}",
                              [a, b], [c])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", build_models.OPSET)])
    model.ir_version = build_models.IR_VERSION
    return model


def conv(n=2, c=32, hw=9, f=128):
    """One 3x3 conv (pads 1, random weights and bias) and a ReLU: the shape
    dlc_conv_tma runs on Hopper (the lit test test/CodeGen/cuda.test)."""
    import numpy as np
    rng = np.random.default_rng(0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, hw, hw])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, f, hw, hw])
    w = helper.make_tensor("w", TensorProto.FLOAT, [f, c, 3, 3],
                           rng.uniform(-1, 1, f * c * 9).astype(np.float32))
    b = helper.make_tensor("b", TensorProto.FLOAT, [f], rng.uniform(-1, 1, f).astype(np.float32))
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["z"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["z"], ["y"])]
    graph = helper.make_graph(nodes, "conv3x3", [x], [y], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", build_models.OPSET)])
    model.ir_version = build_models.IR_VERSION
    return model


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = {"resnet18_b32": build_models.resnet18(32), "resnet50_b32": build_models.resnet50(32),
              "mobilenetv2_b32": build_models.mobilenetv2(32), "gemm4096": gemm()}
    for name, model in models.items():
        save(model, os.path.join(out, name + ".onnx"))
    print(f"wrote {', '.join(models)} to {out}")


if __name__ == "__main__":
    main()
