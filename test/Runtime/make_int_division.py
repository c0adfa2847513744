"""Integer Div, Mod and Mod(fmod) over int32 pairs that trap on x86: zero
divisors and the signed minimum over -1 (SIGFPE killed the process before
session 49). Writes the model, the two inputs and numpy's results (x / 0 and
x % 0 are 0, x / -1 is -x wrapping, x % -1 is 0) to DIR."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
i32 = lambda name: helper.make_tensor_value_info(name, TensorProto.INT32, [12])  # noqa: E731
nodes = [helper.make_node("Div", ["a", "b"], ["q"], name="div"),
         helper.make_node("Mod", ["a", "b"], ["m"], name="mod"),
         helper.make_node("Mod", ["a", "b"], ["f"], name="fmod", fmod=1)]
graph = helper.make_graph(nodes, "int_division", [i32("a"), i32("b")], [i32("q"), i32("m"), i32("f")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.save(model, f"{out}/model.onnx")

lo = np.iinfo(np.int32).min
a = np.array([7, -7, lo, lo, 2**31 - 1, 0, 7, -7, 7, -7, lo, 9], np.int32)
b = np.array([0, 0, 0, -1, -1, 0, 2, 2, -2, -2, 2, -1], np.int32)
np.save(f"{out}/a.npy", a)
np.save(f"{out}/b.npy", b)
safe = np.where((b == 0) | (b == -1), 1, b)
with np.errstate(over="ignore"):
    q = np.where(b == 0, 0, np.where(b == -1, -a, (np.sign(a) * np.sign(safe)) * (np.abs(a.astype(np.int64)) // np.abs(safe))))
np.save(f"{out}/q.ref.npy", q.astype(np.int32))
np.save(f"{out}/m.ref.npy", np.where(b == 0, 0, np.mod(a, safe)).astype(np.int32))
np.save(f"{out}/f.ref.npy", np.where(b == 0, 0, np.fmod(a, safe)).astype(np.int32))
