#!/usr/bin/env python3
"""ONNX's node tests with one operand's element type changed: a clear error
or a model, never a crash or an error from inside the compiler.

Each test model with float inputs gives two variants: its second float
input made float64 (beside float32 ones: NumPy 2 turns a float32 array
times a float64 scalar into float64, an easy way to write such a model), and
its first made float16 (its outputs then no longer the declared type). Most
are invalid models; some are valid (Pow's exponent, Dropout's ratio, ops
whose output type does not follow the input). `dlc compile` must exit 0, or
1 with one `dlc: error:` line from the importer (naming the node, or the
graph output). An error from the pass pipeline (`compilation failed:
loc(...)`: a verifier of a lowered op) means an operand check is missing:
before session 49 these came from Sum, Max, Min, Mean, Clip with run-time
bounds, LayerNormalization and PRelu, and BatchNormalization crashed.

Prints one line per failure and `N variants: N compiled, N refused, N
failed`; exits non-zero on any failure.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import subprocess
import sys

import onnx
from onnx import TensorProto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_node_tests import TIMEOUT_S, crashed  # noqa: E402


def variants(model):
    """(suffix, model) pairs: the model with one float input retyped."""
    floats = [i for i, v in enumerate(model.graph.input)
              if v.type.tensor_type.elem_type == TensorProto.FLOAT]
    for suffix, which, to in (("in2_f64", 1, TensorProto.DOUBLE), ("in1_f16", 0, TensorProto.FLOAT16)):
        if len(floats) > which:
            v = onnx.ModelProto()
            v.CopyFrom(model)
            v.graph.input[floats[which]].type.tensor_type.elem_type = to
            yield suffix, v


def check(dlc, path, work):
    """None when `dlc compile` compiled or refused `path` cleanly, else why not."""
    out = os.path.join(work, os.path.basename(path) + ".so")
    try:
        p = subprocess.run([dlc, "compile", path, "-o", out], capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "timed out"
    if os.path.exists(out):
        os.remove(out)
    if crashed(p):
        return f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
    if p.returncode == 1 and "compilation failed:" in p.stderr:
        return "an error from the pass pipeline: " + p.stderr.strip()[-300:]
    return None if p.returncode == 0 else "refused"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--tests", required=True, help="the node tests' directory")
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    paths = []
    for model_path in sorted(glob.glob(os.path.join(args.tests, "*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(model_path))
        for suffix, v in variants(onnx.load(model_path)):
            paths.append(os.path.join(args.work, f"{name}__{suffix}.onnx"))
            onnx.save(v, paths[-1])
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: check(args.dlc, p, args.work), paths))
    failed = [(p, r) for p, r in zip(paths, results) if r not in (None, "refused")]
    for p, r in failed:
        print(f"FAIL {os.path.basename(p)}: {r}")
    compiled = sum(r is None for r in results)
    refused = sum(r == "refused" for r in results)
    print(f"{len(paths)} variants: {compiled} compiled, {refused} refused, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
