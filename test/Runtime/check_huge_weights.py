"""dlc_create moves a library's weights into anonymous memory in 2 MB pages
(runtime/huge_pages.c). With a library of 8 MB of weights (a 2048 x 1024
Gemm, written here to MODEL.onnx for the test to compile), in this process:

  check_huge_weights.py make MODEL.onnx
  check_huge_weights.py check MODEL.onnx LIB.so

`check` prints whether dlc_create replaced at least 6 MB of the library's
file-backed mappings (from /proc/self/maps after loading it and after
creating the model: its 8 MB of weights less what lies outside whole 2 MB
pages), how many of the process's anonymous bytes are in huge pages then
(information: the kernel may not find free 2 MB pages), and whether the
output matches float64 numpy on random inputs (tolerance 1e-4 relative to
the largest output). With DLC_HUGE_WEIGHTS=0 nothing moves."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))


def make(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    w = rng.uniform(-1, 1, (1024, 2048)).astype(np.float32)
    b = rng.uniform(-1, 1, (2048,)).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="gemm_0")
    graph = helper.make_graph(
        [node], "big_weights", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2048])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def file_backed_bytes(lib):
    real = os.path.realpath(lib)
    total = 0
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and os.path.realpath(parts[5]) == real:
                lo, hi = (int(v, 16) for v in parts[0].split("-"))
                total += hi - lo
    return total


def check(model_path, lib):
    import onnx
    from onnx import numpy_helper
    from dlc_ctypes import Model, load
    init = {t.name: numpy_helper.to_array(t) for t in onnx.load(model_path).graph.initializer}
    x = np.random.default_rng(3).uniform(-1, 1, (1, 1024)).astype(np.float32)
    y = np.zeros((1, 2048), np.float32)
    load(lib)
    before = file_backed_bytes(lib)
    with Model(lib, 1) as m:
        moved = before - file_backed_bytes(lib)
        m.runner({"x": x}, {"y": y})()
        with open("/proc/self/smaps_rollup") as f:
            huge = [line.split()[1] for line in f if line.startswith("AnonHugePages:")]
    ref = x.astype(np.float64) @ init["w"].astype(np.float64) + init["b"]
    err = np.abs(y - ref).max() / np.abs(ref).max()
    print(f"moved at least 6 MB: {'yes' if moved >= 6 << 20 else 'no'} ({moved >> 20} MB)")
    print(f"anonymous huge pages: {int(huge[0]) >> 10 if huge else '?'} MB")
    print("output matches float64" if err < 1e-4 else f"output differs: {err:.2e}")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
