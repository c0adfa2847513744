"""y = x * 0.5 over 64 floats: with denormals counted as zero (dlc_run sets
x86's FTZ and DAZ, runtime/denormals.h) a denormal x gives exactly 0, where
IEEE arithmetic gives the next denormal down. Writes the model and a
float32 input of denormals (2e-39) to the paths given."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

half = numpy_helper.from_array(np.array([0.5], np.float32), "half")
node = helper.make_node("Mul", ["x", "half"], ["y"], name="halve")
graph = helper.make_graph([node], "halving", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [half])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
np.save(sys.argv[2], np.full((1, 64), 2e-39, np.float32))
