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


def convs(n=8, c=32, hw=9, layers=((128, 3, 1),)):
    """Convs (f filters, k x k, stride s each, pads k // 2, random weights and
    bias), each with a ReLU, one after another: the shapes dlc_conv_tma runs
    on Hopper (the lit test test/CodeGen/cuda.test)."""
    import numpy as np
    rng = np.random.default_rng(0)
    nodes, inits, name = [], [], "x"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, hw, hw])
    for i, (f, k, stride) in enumerate(layers):
        w = helper.make_tensor(f"w{i}", TensorProto.FLOAT, [f, c, k, k],
                               rng.uniform(-1, 1, f * c * k * k).astype(np.float32))
        b = helper.make_tensor(f"b{i}", TensorProto.FLOAT, [f],
                               rng.uniform(-1, 1, f).astype(np.float32))
        inits += [w, b]
        nodes += [helper.make_node("Conv", [name, f"w{i}", f"b{i}"], [f"z{i}"],
                                   pads=[k // 2] * 4, strides=[stride, stride]),
                  helper.make_node("Relu", [f"z{i}"], [f"y{i}"])]
        name, c, hw = f"y{i}", f, (hw + 2 * (k // 2) - k) // stride + 1
    y = helper.make_tensor_value_info(name, TensorProto.FLOAT, [n, c, hw, hw])
    graph = helper.make_graph(nodes, "convs", [x], [y], inits)
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
