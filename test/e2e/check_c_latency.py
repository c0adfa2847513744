"""Builds bench/c_latency.c and runs it on compiled models: both C APIs,
dlc's and onnxruntime's (the installed wheel's library, called through the
OrtApi table's entries by index), must give the same outputs.

  check_c_latency.py --dlc DLC --work DIR MODEL.onnx...

Prints "PASS name threads=N" per model and thread count, or FAIL with the
difference. Timings are printed, never checked: benchmarks measure them.
"""
import argparse
import os
import subprocess
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from bench_latency import bench_c, build_c  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    exe = build_c(args.work, "c_latency", ["-ldl", "-lm"])
    for path in args.models:
        name = os.path.splitext(os.path.basename(path))[0]
        lib = os.path.join(args.work, name + ".so")
        subprocess.run([args.dlc, "compile", path, "-o", lib], check=True)
        graph = onnx.load(path).graph
        for threads in (1, 2):
            c = bench_c(exe, lib, path, graph, threads, rounds=1, min_ms=5)
            # As compare_with_ort.py: rtol 1e-3 against the largest magnitude, atol 1e-4.
            ok = c["max_abs_diff"] <= 1e-4 + 1e-3 * c["max_abs_ref"]
            print(f"{'PASS' if ok else 'FAIL'} {name} threads={threads} max_abs_diff "
                  f"{c['max_abs_diff']:.2e} (dlc {c['dlc_us']:.1f} us, onnxruntime {c['ort_us']:.1f} us)")


if __name__ == "__main__":
    main()
