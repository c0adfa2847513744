#!/usr/bin/env python3
"""ONNX's node tests mutated into models that are mostly invalid: `dlc
compile` gives a clear error or a model, never a crash, a hang or an error
from inside the compiler.

Three families of variants (session 49 found crashes, hangs and internal
errors in each):
- types: a test model's second float input made float64 (beside float32
  ones: NumPy 2 turns a float32 array times a float64 scalar into float64,
  an easy way to write such a model), and its first made float16 (its
  outputs then no longer the declared type). Some are valid (Pow's
  exponent, Dropout's ratio, ops whose output type does not follow the
  input). Before, Sum, Max, Min, Mean, Clip with run-time bounds, Conv,
  Gemm, MatMul, PRelu and LayerNormalization gave verifier errors from the
  pass pipeline, BatchNormalization crashed, and an f16 input through Acos
  gave an f16 output declared f32.
- inputs: an integer input (a shape, pads, sizes, repeats, axes) made an
  initializer from the test's data, its first value 0, -1, 1000 or 2^40.
  Before, Pad's edge and wrap modes with pads of 2^40 held the importer for
  minutes, and a constant pad, Tile, Resize and ConstantOfShape failed with
  a bare "std::bad_alloc".
- attributes: each integer (or first of an integer list) or float
  attribute of a single-node test set to 0, -7 or 1000 (floats NaN and
  -1e30). Before, MaxPool's kernel_shape 0 crashed, Split's num_outputs 0
  divided by zero, negative kernel_shape gave verifier errors and pads of
  1000 ran a pool's compile for minutes.

`dlc compile` must exit 0, or 1 with one `dlc: error:` line from the
importer (naming the node, or the graph output), within TIMEOUT_S. An error
from the pass pipeline (`compilation failed: loc(...)`: a verifier of a
lowered op) means a check is missing, and so does a bare C++ exception
(`std::bad_alloc`). What compiles must run on `dlc run`'s
random inputs without a crash.

Prints one line per failure and `N variants: N compiled, N refused, N
failed`; exits non-zero on any failure.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_node_tests import TIMEOUT_S, crashed  # noqa: E402


def copy(model):
    v = onnx.ModelProto()
    v.CopyFrom(model)
    return v


def retyped(model):
    """(suffix, model) pairs: the model with one float input retyped."""
    floats = [i for i, v in enumerate(model.graph.input)
              if v.type.tensor_type.elem_type == TensorProto.FLOAT]
    for suffix, which, to in (("in2_f64", 1, TensorProto.DOUBLE), ("in1_f16", 0, TensorProto.FLOAT16)):
        if len(floats) > which:
            v = copy(model)
            v.graph.input[floats[which]].type.tensor_type.elem_type = to
            yield suffix, v


def reinputted(name, model, test_dir):
    """(suffix, model) pairs: an integer input (shapes, pads, sizes, axes,
    repeats) made an initializer from the test's data, its first value set
    to 0, -1, 1000 or 2^40."""
    if "expanded" in name:
        return
    for i, inp in enumerate(model.graph.input):
        if inp.type.tensor_type.elem_type not in (TensorProto.INT64, TensorProto.INT32):
            continue
        path = os.path.join(test_dir, "test_data_set_0", f"input_{i}.pb")
        if not os.path.exists(path):
            continue
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        data = numpy_helper.to_array(t)
        if not 0 < data.size <= 64:
            continue
        for tag, value in (("z", 0), ("m1", -1), ("big", 1000), ("huge", 1 << 40)):
            if value > np.iinfo(data.dtype).max:
                continue
            flat = data.copy().reshape(-1)
            flat[0] = value
            v = copy(model)
            del v.graph.input[i]
            v.graph.initializer.append(numpy_helper.from_array(flat.reshape(data.shape), inp.name))
            yield f"{inp.name}_{tag}", v


def reattributed(name, model):
    """(suffix, model) pairs: a single-node model with one attribute set to
    an out-of-range value (the `_expanded` tests are many nodes)."""
    if len(model.graph.node) != 1 or "expanded" in name:
        return
    for i, a in enumerate(model.graph.node[0].attribute):
        if a.type == AttributeProto.INT or (a.type == AttributeProto.INTS and a.ints):
            values = (("z", 0), ("neg", -7), ("big", 1000))
        elif a.type == AttributeProto.FLOAT:
            values = (("nan", float("nan")), ("neg", -1e30))
        else:
            continue
        for tag, value in values:
            v = copy(model)
            attr = v.graph.node[0].attribute[i]
            if a.type == AttributeProto.INT:
                attr.i = value
            elif a.type == AttributeProto.INTS:
                attr.ints[0] = value
            else:
                attr.f = value
            yield f"{a.name}_{tag}", v


def check(dlc, path, work):
    """None when `dlc compile` compiled or refused `path` cleanly, else why not."""
    out = os.path.join(work, os.path.basename(path) + ".so")
    try:
        p = subprocess.run([dlc, "compile", path, "-o", out], capture_output=True, text=True,
                           timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "timed out"
    if crashed(p):
        return f"exit {p.returncode}: {p.stderr.strip()[-300:]}"
    if p.returncode == 1 and "compilation failed:" in p.stderr:
        return "an error from the pass pipeline: " + p.stderr.strip()[-300:]
    if p.returncode == 1 and "std::" in p.stderr:
        return "a bare C++ exception: " + p.stderr.strip()[-300:]
    if p.returncode != 0:
        return "refused"
    # A model that compiled runs on `dlc run`'s random inputs without a crash
    # (it may still refuse them, with an error).
    try:
        r = subprocess.run([dlc, "run", out, "--output-dir", out + ".out"], capture_output=True,
                           text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "run timed out"
    finally:
        os.remove(out)
    return f"run: exit {r.returncode}: {r.stderr.strip()[-300:]}" if crashed(r) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--tests", required=True, help="the node tests' directory")
    ap.add_argument("--work", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--kinds", default="types,attributes,inputs",
                    help="comma-separated: types, attributes, inputs")
    args = ap.parse_args()
    kinds = set(args.kinds.split(","))
    os.makedirs(args.work, exist_ok=True)
    paths = []
    for model_path in sorted(glob.glob(os.path.join(args.tests, "*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(model_path))
        model = onnx.load(model_path)
        found = list(retyped(model)) if "types" in kinds else []
        found += list(reattributed(name, model)) if "attributes" in kinds else []
        found += (list(reinputted(name, model, os.path.dirname(model_path)))
                  if "inputs" in kinds else [])
        for suffix, v in found:
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
