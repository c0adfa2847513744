#!/usr/bin/env python3
"""GFLOP/s of dlc's generated square matmul next to OpenBLAS sgemm, one thread.

  bench/bench_matmul.py [--sizes 256,512,1024,2048] [--repeat 10] [--rounds 3]
                        [--peak-gflops G] [--out bench/results/matmul.md]
                        [--keep DIR | --prebuilt DIR]

For each N, an ONNX MatMul of an N x N input by an N x N weight is compiled
by dlc (the weight is a constant, as in a model) and timed through the C
API with one thread; OpenBLAS is numpy's (scipy-openblas, the same
cblas_sgemm), also limited to one thread. Both compute in float32 on the
same data; the results are compared (max relative error). The peak is the
single-core FMA peak measured in the same run (bench/fma_peak.c, built for
this CPU, best of a run before and after the matmuls: this VM's clock
varies by up to 2x over minutes); --peak-gflops gives one instead.

On the device (no LLVM): build the libraries here with `--keep devrun/mm`
and the same sizes, carry devrun/ with bench_matmul.py, dlc_ctypes.py and
fma_peak.c, and run `bench_matmul.py --prebuilt devrun/mm` there.
"""
import os

# One OpenBLAS thread: set before numpy loads the library.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dlc_ctypes import Model, median_ms, write_report  # noqa: E402

import numpy as np  # noqa: E402
from onnx import TensorProto, helper, numpy_helper, save  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def matmul_model(w):
    n = w.shape[0]
    node = helper.make_node("MatMul", ["a", "w"], ["y"])
    graph = helper.make_graph([node], f"matmul{n}",
                              [helper.make_tensor_value_info("a", TensorProto.FLOAT, [n, n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
                              [numpy_helper.from_array(w, "w")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def measured_peak(binary):
    """GFLOP/s that bench/fma_peak.c's FMA chains reach on one core now."""
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    return float(out.split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", default=os.path.join(ROOT, "build/tools/dlc/dlc"))
    ap.add_argument("--sizes", default="256,512,1024,2048")
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds per side (dlc, OpenBLAS, dlc, ...); the best round counts")
    ap.add_argument("--target", default="native")
    ap.add_argument("--peak-gflops", type=float, default=0.0,
                    help="single-core FMA peak (default: measured, bench/fma_peak.c)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/matmul.md"))
    libs = ap.add_mutually_exclusive_group()
    libs.add_argument("--prebuilt", default="",
                      help="folder of matmulN.so built by an earlier run's --keep (same sizes, in "
                           "order: the weights come from one seeded generator), for a machine "
                           "without LLVM (the device)")
    libs.add_argument("--keep", default="", help="copy each compiled matmulN.so into this folder")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        peak_runs = []
        if not args.peak_gflops:
            peak = os.path.join(work, "fma_peak")
            compiler = shutil.which("clang-19") or shutil.which("cc")
            if not compiler:
                sys.exit("bench_matmul.py: no C compiler (clang-19 or cc) to build "
                         "bench/fma_peak.c; pass --peak-gflops")
            subprocess.run([compiler, "-O2", "-march=native", "-o", peak,
                            os.path.join(os.path.dirname(os.path.abspath(__file__)), "fma_peak.c")],
                           check=True)
            peak_runs.append(measured_peak(peak))
        for n in [int(s) for s in args.sizes.split(",")]:
            a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
            w = rng.uniform(-1, 1, (n, n)).astype(np.float32)
            path = os.path.join(work, f"matmul{n}.onnx")
            save(matmul_model(w), path)
            if args.prebuilt:
                lib_path = os.path.join(os.path.abspath(args.prebuilt), f"matmul{n}.so")
            else:
                lib_path = os.path.join(work, f"matmul{n}.so")
                subprocess.run([args.dlc, "compile", path, "-o", lib_path, f"--target={args.target}"],
                               check=True)
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                shutil.copy(lib_path, os.path.join(args.keep, f"matmul{n}.so"))
            y, out = np.empty((n, n), np.float32), np.empty((n, n), np.float32)
            # Alternating rounds, each side's best: this VM's neighbours slow
            # it by 20% for seconds at a time (one median of 10 calls each
            # put dlc at 0.78 of OpenBLAS at N=1024 and, minutes later, 0.94).
            dlc_ms = blas_ms = float("inf")
            with Model(lib_path, 1) as model:
                run = model.runner({"a": a}, {"y": y})
                blas = lambda: np.matmul(a, w, out=out)  # noqa: E731
                for _ in range(args.rounds):
                    dlc_ms = min(dlc_ms, median_ms(run, args.repeat))
                    blas_ms = min(blas_ms, median_ms(blas, args.repeat))
            ref = a.astype(np.float64) @ w.astype(np.float64)
            err = float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))
            flops = 2.0 * n ** 3
            dlc_gf, blas_gf = flops / dlc_ms / 1e6, flops / blas_ms / 1e6
            rows.append((n, dlc_ms, blas_ms, dlc_gf, blas_gf, err))
        if peak_runs:
            peak_runs.append(measured_peak(peak))
            args.peak_gflops = max(peak_runs)

    lines = [
        "# dlc generated matmul vs OpenBLAS sgemm, 1 thread",
        "",
        f"{datetime.date.today()}, {platform.node()}, {os.cpu_count()} cores, "
        f"{'libraries prebuilt in ' + args.prebuilt if args.prebuilt else 'target `' + args.target + '`'}, "
        f"{args.rounds} alternating rounds per side, each the median of {args.repeat} calls; the best "
        f"round of each side. FMA peak {args.peak_gflops:.0f} GFLOP/s "
        f"({'measured: bench/fma_peak.c, best of ' + ' and '.join(f'{p:.0f}' for p in peak_runs) if peak_runs else 'given'}), command: "
        f"`python3 bench/bench_matmul.py --sizes {args.sizes} --repeat {args.repeat} "
        f"--rounds {args.rounds}`",
        "",
        "| N | dlc ms | OpenBLAS ms | dlc GFLOP/s | OpenBLAS GFLOP/s | dlc / OpenBLAS | dlc % peak "
        "| OpenBLAS % peak | max rel err vs f64 |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, dm, bm, dg, bg, err in rows:
        lines.append(f"| {n} | {dm:.3f} | {bm:.3f} | {dg:.1f} | {bg:.1f} | {dg / bg:.2f} "
                     f"| {100 * dg / args.peak_gflops:.0f}% | {100 * bg / args.peak_gflops:.0f}% | {err:.1e} |")
    write_report("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
