"""After `dlc train --save W.bin` and `dlc export-onnx`: the exported model
run by onnxruntime gives what the train library's inference gives with the
trained parameters loaded (rtol 1e-4, atol 1e-5, random inputs), and its
weights differ from the untrained model's. Then the error paths of
dlc_load_parameters: a file of another model, a truncated file.

usage: check_export.py TRAIN.so ORIGINAL.onnx TRAINED.onnx W.bin OTHER.bin WORK
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from dlc_ctypes import TrainModel  # noqa: E402

lib, original, trained, weights, other, work = sys.argv[1:7]
x = np.random.default_rng(3).random((64, 784), dtype=np.float32)
with TrainModel(lib) as m:
    out_name = m.signature["outputs"][0]["name"]
    y = np.zeros((64, 10), np.float32)
    m.load(weights)
    m.runner({"input": x}, {out_name: y})()
    ref = ort.InferenceSession(trained, providers=["CPUExecutionProvider"]).run(None, {"input": x})[0]
    ok = np.allclose(y, ref, rtol=1e-4, atol=1e-5)
    print(f"exported vs dlc: max abs diff {np.abs(y - ref).max():.3g} -> {'PASS' if ok else 'FAIL'}")
    a = {t.name: numpy_helper.to_array(t) for t in onnx.load(original).graph.initializer}
    b = {t.name: numpy_helper.to_array(t) for t in onnx.load(trained).graph.initializer}
    changed = sum(not np.array_equal(a[n], b[n]) for n in a)
    print(f"initializers changed by training: {changed} of {len(a)}")
    before = m.get("fc_b_10").copy()
    for path in (other, weights + ".truncated"):
        if path.endswith(".truncated"):
            with open(weights, "rb") as f, open(path, "wb") as g:
                g.write(f.read()[:-100])
        try:
            m.load(path)
            print("load accepted a bad file")
        except RuntimeError as e:
            print(f"load refused: {e}")
    print("parameters unchanged after refused loads:",
          np.array_equal(before, m.get("fc_b_10")))
    labels = np.arange(64, dtype=np.int64) % 10
    labels[5] = 10
    try:
        m.stepper({"input": x, "labels": labels})(0.05)
        print("train step accepted a label outside the classes")
    except RuntimeError as e:
        print(f"train step refused: {e}")
