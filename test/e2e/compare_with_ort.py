#!/usr/bin/env python3
"""End-to-end numerics: compile each model with dlc, run it with `dlc run` on
seeded random inputs, and compare every output with onnxruntime's.

  compare_with_ort.py --dlc BUILD/tools/dlc/dlc --work DIR [--rtol 1e-3 --atol 1e-4]
                      [--target T] MODEL.onnx...

Prints one line per model and `N passed, N failed`; exits non-zero on any
failure.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort


def run_model(args, path):
    name = os.path.splitext(os.path.basename(path))[0]
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    lib = os.path.join(work, name + ".so")
    cmd = [args.dlc, "compile", path, "-o", lib] + (["--target=" + args.target] if args.target else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return f"compile failed: {r.stderr.strip()}"

    model = onnx.load(path)
    inits = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(1234)
    feeds, run_cmd = {}, [args.dlc, "run", lib, "--output-dir", os.path.join(work, "out")]
    if args.threads:
        run_cmd += ["--threads", str(args.threads)]
    for i, vi in enumerate(x for x in model.graph.input if x.name not in inits):
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        x = rng.uniform(-1, 1, shape).astype(np.float32)
        feeds[vi.name] = x
        f = os.path.join(work, f"input{i}.npy")
        np.save(f, x)
        run_cmd += ["--input", f"{vi.name}={f}"]
    r = subprocess.run(run_cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return f"run failed: {r.stderr.strip()}"

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    expected = sess.run(None, feeds)
    worst = 0.0
    for out, ref in zip(model.graph.output, expected):
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in out.name)
        got = np.load(os.path.join(work, "out", safe + ".npy"))
        if got.shape != ref.shape:
            return f"output {out.name}: shape {got.shape}, onnxruntime {ref.shape}"
        err = np.abs(got.astype(np.float64) - ref)
        bound = args.atol + args.rtol * np.abs(ref)
        if not np.all(err <= bound):
            k = np.argmax(err - bound)
            return (f"output {out.name}: {np.sum(err > bound)} of {err.size} elements off; worst "
                    f"{got.flat[k]:.6g} vs {ref.flat[k]:.6g}")
        worst = max(worst, float(np.max(err / np.maximum(np.abs(ref), 1e-6))))
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dlc", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol", type=float, default=1e-4)
    p.add_argument("--target", default="")
    p.add_argument("--threads", type=int, default=0, help="dlc run's --threads (0: all cores)")
    p.add_argument("models", nargs="+")
    args = p.parse_args()
    passed = failed = 0
    for path in args.models:
        problem = run_model(args, path)
        status = "PASS" if problem is None else "FAIL"
        print(f"{status} {os.path.basename(path)}" + ("" if problem is None else f": {problem}"))
        passed += problem is None
        failed += problem is not None
    print(f"{passed} passed, {failed} failed (rtol {args.rtol}, atol {args.atol})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
