"""Writes a small float32 model y = Dropout(x @ W, ratio) for the train-build
error checks: make_dropout_model.py OUT.onnx RATIO [--mask]."""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out, ratio = sys.argv[1], float(sys.argv[2])
outputs = ["y", "mask"] if "--mask" in sys.argv else ["y"]
w = numpy_helper.from_array(np.random.default_rng(0).normal(0, 1, (4, 3)).astype(np.float32), "W")
r = numpy_helper.from_array(np.array(ratio, np.float32), "ratio")
nodes = [helper.make_node("MatMul", ["x", "W"], ["h"], name="matmul"),
         helper.make_node("Dropout", ["h", "ratio"], outputs, name="drop")]
graph = helper.make_graph(
    nodes, "dropout", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [w, r])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
save(model, out)
