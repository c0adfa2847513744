"""dlc_run leaves its inputs as the caller gave them, and results written
through a reshape land in the output.

  check_inputs_unchanged.py make DIR
  check_inputs_unchanged.py check DIR

`make` writes DIR/gemm.onnx, Y = A x B + C with C an input (the matmul's
init: before session 68 it accumulated into the caller's C), and
DIR/bias.onnx, X plus a per-channel [1, 8, 1, 1] bias over [1, 8, 5, 7]
(computed in a reshaped view and, since session 68, written straight into
the output). `check` runs DIR/gemm.so and DIR/bias.so through the C API
on seeded random inputs and prints, per model, whether every input is
bit-identical afterwards and whether the output matches float64 numpy
(tolerance 1e-5 relative to the largest output)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))


def make(out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    os.makedirs(out, exist_ok=True)
    f32 = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)  # noqa: E731
    gemm = helper.make_graph([helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm")],
                             "gemm_c_input", [f32("a", [3, 6]), f32("b", [6, 4]), f32("c", [3, 4])],
                             [f32("y", [3, 4])])
    bias = numpy_helper.from_array(
        np.random.default_rng(1).uniform(-1, 1, (1, 8, 1, 1)).astype(np.float32), "bias")
    add = helper.make_graph([helper.make_node("Add", ["x", "bias"], ["y"], name="add")],
                            "bias_add", [f32("x", [1, 8, 5, 7])], [f32("y", [1, 8, 5, 7])], [bias])
    for name, graph in (("gemm", gemm), ("bias", add)):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        onnx.save(model, f"{out}/{name}.onnx")


def check(out):
    import onnx
    from onnx import numpy_helper
    from dlc_ctypes import Model
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-1, 1, s).astype(np.float32) for s in ((3, 6), (6, 4), (3, 4)))
    x = rng.uniform(-1, 1, (1, 8, 5, 7)).astype(np.float32)
    bias = numpy_helper.to_array(onnx.load(f"{out}/bias.onnx").graph.initializer[0])
    cases = {"gemm": ({"a": a, "b": b, "c": c},
                      a.astype(np.float64) @ b.astype(np.float64) + c),
             "bias": ({"x": x}, x.astype(np.float64) + bias)}
    for name, (feeds, ref) in cases.items():
        kept = {k: v.copy() for k, v in feeds.items()}
        y = np.zeros(ref.shape, np.float32)
        with Model(os.path.abspath(f"{out}/{name}.so"), 1) as m:
            m.runner(feeds, {"y": y})()
        unchanged = all(np.array_equal(feeds[k], kept[k]) for k in feeds)
        err = np.abs(y - ref).max() / np.abs(ref).max()
        print(f"{name}: inputs {'unchanged' if unchanged else 'OVERWRITTEN'}, output "
              f"{'matches float64' if err < 1e-5 else f'differs: {err:.2e}'}")


if __name__ == "__main__":
    (make if sys.argv[1] == "make" else check)(sys.argv[2])
