#!/usr/bin/env python3
"""Activations, Softmax and a broadcast Add: dlc next to onnxruntime, per op, in one run.

  bench/bench_activations.py [--threads 1,2] [--rounds 5] [--min-ms 200]
                             [--out bench/results/activations.md]

Each row is a one-op model (two for SiLU and GELU) on seeded uniform
[-4, 4) float32 inputs: Sigmoid, Tanh, Erf + Add (GELU's core), a 3x3 conv
followed by SiLU (x * Sigmoid(x), fused into the conv's epilogue), Softmax
and LogSoftmax over 1000 classes (a row at a time since session 68,
`dlc-softmax-to-row-loops`), and an Add of a per-channel bias (a
broadcast, written straight into the output since session 68). dlc
evaluates exp, tanh, erf and log as vector polynomials
(`dlc-approximate-math`); onnxruntime's MLAS does too.
Rounds alternate the two sides, each round the median of the calls made
in at least --min-ms; the best round of each side is reported, with the
max abs difference of dlc's output from onnxruntime's.
"""
import argparse
import datetime
import gc
import os
import platform
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dlc_ctypes import Model, median_ms, write_report  # noqa: E402

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper, numpy_helper, save  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP = [1, 64, 112, 112]  # MobileNetV2's first expanded map: 802,816 floats


def one_op_models():
    """name -> (nodes, inputs {name: shape}, output shape, initializers)."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal([64, 64, 3, 3]) * 0.05).astype(np.float32),
                                "w")
    one = numpy_helper.from_array(np.ones([1], np.float32), "one")
    bias = numpy_helper.from_array(rng.standard_normal([1, 64, 1, 1]).astype(np.float32), "b")
    n = helper.make_node
    return {
        "Sigmoid": ([n("Sigmoid", ["x"], ["y"])], MAP, MAP, []),
        "Tanh": ([n("Tanh", ["x"], ["y"])], MAP, MAP, []),
        "GELU (Erf)": ([n("Erf", ["x"], ["e"]), n("Add", ["e", "one"], ["a"]),
                        n("Mul", ["x", "a"], ["y"])], MAP, MAP, [one]),
        "Conv 3x3 + SiLU": ([n("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                             n("Sigmoid", ["c"], ["s"]), n("Mul", ["c", "s"], ["y"])],
                            [1, 64, 56, 56], [1, 64, 56, 56], [w]),
        "Softmax 64x1000": ([n("Softmax", ["x"], ["y"], axis=1)], [64, 1000], [64, 1000], []),
        "LogSoftmax 64x1000": ([n("LogSoftmax", ["x"], ["y"], axis=1)], [64, 1000], [64, 1000],
                               []),
        "Add bias 1x64x56x56": ([n("Add", ["x", "b"], ["y"])], [1, 64, 56, 56], [1, 64, 56, 56],
                                [bias]),
    }


def save_model(path, nodes, in_shape, out_shape, inits):
    graph = helper.make_graph(
        nodes, "activation", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # onnxruntime 1.30 reads up to 10
    save(model, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-ms", type=float, default=200)
    ap.add_argument("--dlc", default=os.path.join(ROOT, "build", "tools", "dlc", "dlc"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "activations.md"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="dlc-act-")
    rows = []
    for name, (nodes, in_shape, out_shape, inits) in one_op_models().items():
        path = os.path.join(work, f"m{len(rows)}.onnx")
        lib = path[:-5] + ".so"
        save_model(path, nodes, in_shape, out_shape, inits)
        subprocess.run([args.dlc, "compile", path, "-o", lib], check=True)
        x = np.random.default_rng(1).uniform(-4, 4, in_shape).astype(np.float32)
        for threads in [int(t) for t in args.threads.split(",")]:
            dlc_ms = ort_ms = float("inf")
            out = np.empty(out_shape, np.float32)
            for _ in range(args.rounds):
                with Model(lib, threads) as m:
                    call = m.runner({"x": x}, {"y": out})
                    dlc_ms = min(dlc_ms, median_ms(call, min_ms=args.min_ms))
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
                ort_ms = min(ort_ms, median_ms(lambda: sess.run(None, {"x": x}),
                                               min_ms=args.min_ms))
                ref = sess.run(None, {"x": x})[0]
                del sess  # its spinning workers must not compete with dlc's next round
                gc.collect()
            rows.append((name, threads, dlc_ms, ort_ms, float(np.max(np.abs(out - ref)))))
            print(f"{name} t{threads}: dlc {dlc_ms * 1e3:.1f} us, onnxruntime "
                  f"{ort_ms * 1e3:.1f} us", file=sys.stderr)
    lines = [f"# Activations, Softmax, broadcast Add: dlc vs onnxruntime {ort.__version__}", "",
             f"{datetime.date.today()}, {platform.node()}, {os.cpu_count()} cores, target "
             f"`native`, {args.rounds} alternating rounds per side, each the median of the "
             f"calls in at least {args.min_ms:g} ms; the best round of each side. Inputs "
             "uniform in [-4, 4). Command: `python3 bench/bench_activations.py "
             f"--threads {args.threads} --rounds {args.rounds} --min-ms {args.min_ms:g}`.", "",
             "| model | threads | dlc us | onnxruntime us | dlc / onnxruntime | max abs diff |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, threads, d, o, err in rows:
        lines.append(f"| {name} | {threads} | {d * 1e3:.1f} | {o * 1e3:.1f} | {d / o:.2f} | "
                     f"{err:.1e} |")
    write_report("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
