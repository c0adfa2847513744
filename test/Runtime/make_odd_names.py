"""A one-node model whose output name needs sanitising: 'out:1/x y'."""
import sys

import onnx
from onnx import TensorProto, helper

node = helper.make_node("Relu", ["x"], ["out:1/x y"], name="relu")
graph = helper.make_graph([node], "odd", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("out:1/x y", TensorProto.FLOAT, [2, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
