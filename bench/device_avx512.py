#!/usr/bin/env python3
"""AVX-512 builds against onnxruntime on the device machine (no LLVM/MLIR there).

Here:    for m in lenet mobilenetv2 resnet18; do
           build/tools/dlc/dlc compile build/models/$m.onnx --target=x86-64-avx512 \\
             -o devrun/${m}_avx512.so; done
         cp bench/device_avx512.py bench/dlc_ctypes.py devrun/
Device:  python3 models/build_models.py devrun/models && python3 devrun/device_avx512.py
         (through the device tool, carrying devrun/)

Checks each library's output against onnxruntime (rtol 1e-3, atol 1e-4) and
prints medians of at least 20 calls and 500 ms for dlc and onnxruntime at 1
and at all threads.
`device_avx512.py [--suffix avx2] [MODEL...]` runs devrun/MODEL_SUFFIX.so
instead (another build of the same models; one at a time fits the carry).
A library over the carry's 64 MiB (the ResNets: Winograd filters) goes in
pieces (`split -b 60000000`), one carried folder per call to the same warm
machine (carried folders stay until the machine is given back), and is
joined there with `cat` before the run.

`--c-latency EXE` (bench/c_latency.c, built here: `clang-19 -O2 -I include
bench/c_latency.c -o devrun/c_latency -ldl -lm`, carried with
bench/bench_latency.py) also times the MLP and LeNet, where among MODEL,
through both C APIs, as bench_latency.py does here.
"""
import ctypes
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dlc_ctypes import Tensor, load, median_ms, tensor  # noqa: E402


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--suffix", default="avx512")
    ap.add_argument("models", nargs="*", default=["lenet", "mobilenetv2", "resnet18"])
    ap.add_argument("--c-latency", help="bench/c_latency.c's executable: C-API table for mlp, lenet")
    args = ap.parse_args()
    cores = os.cpu_count()
    print(f"| model | threads | dlc {args.suffix} ms | onnxruntime ms | dlc / onnxruntime | matches |")
    print(f"|---|---:|---:|---:|---:|---|")
    for name in args.models:
        path = f"{HERE}/models/{name}.onnx"
        m = onnx.load(path)
        inp, out = m.graph.input[0], m.graph.output[0]
        x = np.random.default_rng(0).uniform(
            -1, 1, [d.dim_value for d in inp.type.tensor_type.shape.dim]).astype(np.float32)
        y = np.empty([d.dim_value for d in out.type.tensor_type.shape.dim], np.float32)
        lib = load(f"{HERE}/{name}_{args.suffix}.so")
        model = ctypes.c_void_p()
        assert lib.dlc_create(ctypes.byref(model), None, 0) == 0
        ins, outs = (Tensor * 1)(tensor(inp.name, x)), (Tensor * 1)(tensor(out.name, y))
        run = lambda: lib.dlc_run(model, ins, 1, outs, 1)
        for threads in (1, cores):
            lib.dlc_set_threads(model, threads)
            assert run() == 0
            dlc_ms = median_ms(run, min_ms=500)
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            ref = sess.run(None, {inp.name: x})[0]
            # Against the output's scale: ResNet-50's random-weight logits
            # reach 8e4, where 5e-2 is float32 rounding.
            ok = np.max(np.abs(y - ref)) <= 1e-5 * max(1.0, float(np.max(np.abs(ref))))
            ort_ms = median_ms(lambda: sess.run(None, {inp.name: x}), min_ms=500)
            print(f"| {name} | {threads} | {dlc_ms:.2f} | {ort_ms:.2f} | {dlc_ms / ort_ms:.2f} | "
                  f"{'yes' if ok else 'NO'}, max diff {np.max(np.abs(y - ref)):.1e} |")
    small = [n for n in args.models if n in ("mlp", "lenet")]
    if args.c_latency and small:
        from bench_latency import bench_c
        print(f"\nThrough both C APIs (bench/c_latency.c), 3 rounds of 300 ms:\n\n"
              f"| model | threads | dlc {args.suffix} us | onnxruntime us | dlc / onnxruntime "
              f"| max abs diff |\n|---|---:|---:|---:|---:|---:|")
        for name in small:
            path = f"{HERE}/models/{name}.onnx"
            for threads in (1, cores):
                c = bench_c(args.c_latency, f"{HERE}/{name}_{args.suffix}.so", path,
                            onnx.load(path).graph, threads, rounds=3, min_ms=300)
                print(f"| {name} | {threads} | {c['dlc_us']:.2f} | {c['ort_us']:.2f} "
                      f"| {c['dlc_us'] / c['ort_us']:.2f} | {c['max_abs_diff']:.1e} |")


if __name__ == "__main__":
    main()
