#!/usr/bin/env python3
"""Runs the ONNX backend node tests through dlc and records one status each.

For every test directory: `dlc compile model.onnx`, `dlc run` on the test's
inputs, and every output compared with the expected one (rtol 1e-3, atol
1e-7, NaN equals NaN, integers exactly). Statuses:

  pass         every output matches
  mismatch     dlc ran but an output differs (shape, dtype or values)
  unsupported  dlc refused the model with a clean error (exit 1, one line)
  skip         the test's I/O is a sequence, optional or string (not tensors)
  crash        a signal, an abort, another exit code or a timeout

Writes DIR/results.tsv (test, status, detail) and prints
`N passed, N failed, N skipped`, where failed counts mismatches and crashes.
With --expect FILE (one test name per line), exits non-zero when a listed
test does not pass or when anything crashes.
"""
import argparse
import concurrent.futures as cf
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

TIMEOUT_S = 120
INTEGER_TYPES = (onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.INT16,
                 onnx.TensorProto.INT8, onnx.TensorProto.UINT64, onnx.TensorProto.UINT32,
                 onnx.TensorProto.UINT16, onnx.TensorProto.UINT8, onnx.TensorProto.BOOL)


def sanitize(name):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def crashed(proc):
    """Anything but success or dlc's clean error exit (1) is a crash."""
    return proc.returncode not in (0, 1) or (proc.returncode == 1 and "dlc: error:" not in proc.stderr)


def invoke(stage, cmd):
    """Runs one dlc command; None on success, else (status, detail)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "crash", f"{stage} timed out"
    if crashed(p):
        return "crash", f"{stage} exit {p.returncode}: {p.stderr.strip()[-300:]}"
    if p.returncode != 0:
        return "unsupported", p.stderr.strip().splitlines()[-1][:300]
    return None


def run_test(dlc, test_dir, work):
    name = os.path.basename(test_dir)
    os.makedirs(work, exist_ok=True)
    model_path = os.path.join(test_dir, "model.onnx")
    try:
        model = onnx.load(model_path)
    except Exception as e:  # the harness cannot read it: not dlc's fault
        return name, "skip", f"onnx cannot load the model: {e}"
    for vi in list(model.graph.input) + list(model.graph.output):
        kind = vi.type.WhichOneof("value")
        if kind != "tensor_type" or vi.type.tensor_type.elem_type == onnx.TensorProto.STRING:
            return name, "skip", f"'{vi.name}' is {kind or 'untyped'} (not a numeric tensor)"

    data = os.path.join(test_dir, "test_data_set_0")
    inits = {i.name for i in model.graph.initializer}
    inputs = [vi for vi in model.graph.input if vi.name not in inits]
    binds, feeds, shapes = [], [], []
    for i, vi in enumerate(inputs):
        arr = read_tensor(os.path.join(data, f"input_{i}.pb"))
        # Some test data stores a declared scalar as shape (1,): same
        # elements, so use the shape the model declares.
        dims = vi.type.tensor_type.shape.dim
        is_int = vi.type.tensor_type.elem_type in INTEGER_TYPES
        declared = [d.dim_value for d in dims]
        if all(d.HasField("dim_value") for d in dims) and int(np.prod(declared)) == arr.size:
            arr = arr.reshape(declared)
        elif not is_int and not all(d.HasField("dim_value") for d in dims) and arr.ndim:
            # Symbolic dims: compiled for the test data's shape.
            shapes.append(f"--input-shape={vi.name}={'x'.join(str(d) for d in arr.shape)}")
        f = os.path.join(work, f"input_{i}.npy")
        np.save(f, np.array(arr, order="C"))  # ascontiguousarray would make 0-d arrays 1-d
        if is_int:
            symbolic = not all(d.HasField("dim_value") for d in dims) and arr.ndim
            binds.append((vi.name, f, "x".join(str(d) for d in arr.shape) if symbolic else ""))
        else:
            feeds.append((vi.name, f))

    # Integer inputs run as real inputs where dlc can; where it needs them
    # as constants (shapes, axes, pads...) it says so and they are frozen
    # to the test's values with --bind (dlc compiles static shapes).
    lib = os.path.join(work, "model.so")
    compile_cmd = [dlc, "compile", model_path, "-o", lib] + shapes
    failure = invoke("compile", compile_cmd + [f"--input-shape={n}={d}" for n, f, d in binds if d])
    bound = []
    if failure and failure[0] == "unsupported" and binds:
        bound = binds
        failure = invoke("compile", compile_cmd + [f"--bind={n}={f}" for n, f, _ in binds])
    # dlc names a float input it needs as a constant (Resize's scales,
    # roi): bind that one too, as many times as it asks.
    while failure and failure[0] == "unsupported":
        asked = re.search(r"--bind (\S+)=FILE\.npy", failure[1])
        wanted = [(n, f, "") for n, f in feeds if asked and n == asked.group(1)]
        if not wanted:
            break
        feeds = [(n, f) for n, f in feeds if n != wanted[0][0]]
        bound = bound + wanted
        failure = invoke("compile", compile_cmd + [f"--bind={n}={f}" for n, f, _ in bound])
    if failure:
        return (name,) + failure
    bound_names = {n for n, _, _ in bound}
    feeds += [(n, f) for n, f, _ in binds if n not in bound_names]

    cmd = [dlc, "run", lib, "--output-dir", os.path.join(work, "out")]
    for input_name, f in feeds:
        cmd += ["--input", f"{input_name}={f}"]
    failure = invoke("run", cmd)
    if failure:
        return (name,) + failure

    for j, vi in enumerate(model.graph.output):
        ref = read_tensor(os.path.join(data, f"output_{j}.pb"))
        got = np.load(os.path.join(work, "out", sanitize(vi.name) + ".npy"))
        if ref.dtype.name == "bfloat16" and got.dtype == np.dtype("V2"):
            # numpy has no bfloat16; .npy files hold its two raw bytes.
            got = got.view(ref.dtype)
        if got.shape != ref.shape:
            return name, "mismatch", f"output {vi.name}: shape {got.shape} vs expected {ref.shape}"
        if got.dtype != ref.dtype:
            return name, "mismatch", f"output {vi.name}: dtype {got.dtype} vs expected {ref.dtype}"
        if ref.dtype.name == "bfloat16":
            got, ref = got.astype(np.float32), ref.astype(np.float32)
        if np.issubdtype(ref.dtype, np.floating):
            ok = np.isclose(got, ref, rtol=1e-3, atol=1e-7, equal_nan=True)
        else:
            ok = got == ref
        if not np.all(ok):
            k = int(np.argmin(ok.reshape(-1)))
            return name, "mismatch", (f"output {vi.name}: {int(np.sum(~ok))} of {ok.size} differ, e.g. "
                                      f"{got.reshape(-1)[k]!r} vs {ref.reshape(-1)[k]!r}")
    return name, "pass", f"bound {', '.join(n for n, _, _ in bound)}" if bound else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--tests", required=True, help="the node/ directory")
    ap.add_argument("--work", required=True)
    ap.add_argument("--expect", help="tests that must pass, one per line")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="", help="only tests whose name contains this")
    args = ap.parse_args()

    tests = sorted(d for d in os.listdir(args.tests) if args.filter in d)
    start = time.time()
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_test, args.dlc, os.path.join(args.tests, t), os.path.join(args.work, t))
                   for t in tests]
        results = [f.result() for f in futures]
    os.makedirs(args.work, exist_ok=True)
    with open(os.path.join(args.work, "results.tsv"), "w") as f:
        f.write("test\tstatus\tdetail\n")
        for name, status, detail in results:
            f.write(f"{name}\t{status}\t{detail}\n")

    counts = {}
    for _, status, _ in results:
        counts[status] = counts.get(status, 0) + 1
    for name, status, detail in results:
        if status in ("crash", "mismatch"):
            print(f"{status.upper()} {name}: {detail}")
    problems = []
    if args.expect:
        expected = [l.strip() for l in open(args.expect) if l.strip() and not l.startswith("#")]
        by_name = {n: (s, d) for n, s, d in results}
        for t in expected:
            status, detail = by_name.get(t, ("missing", "no such test directory"))
            if status != "pass":
                problems.append(f"REGRESSION {t}: {status} {detail}")
    problems += [f"CRASH {n}: {d}" for n, s, d in results if s == "crash"]
    for p in problems:
        print(p)
    bound = sum(1 for _, s, d in results if s == "pass" and d.startswith("bound "))
    print(f"{bound} of the passing tests needed --bind for shape-like inputs")
    print(f"statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
          f" ({len(results)} tests in {time.time() - start:.0f} s; table in {args.work}/results.tsv)")
    print(f"{counts.get('pass', 0)} passed, {counts.get('mismatch', 0) + counts.get('crash', 0)} failed, "
          f"{counts.get('unsupported', 0) + counts.get('skip', 0)} skipped")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
