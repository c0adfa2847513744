#!/usr/bin/env python3
"""AVX-512 builds against onnxruntime on the device machine (no LLVM/MLIR there).

Here:    for m in lenet mobilenetv2 resnet18; do
           build/tools/dlc/dlc compile build/models/$m.onnx --target=x86-64-avx512 \\
             -o devrun/${m}_avx512.so; done
         cp bench/device_avx512.py devrun/
Device:  python3 models/build_models.py devrun/models && python3 devrun/device_avx512.py
         (through the device tool, carrying devrun/)

Checks each library's output against onnxruntime (rtol 1e-3, atol 1e-4) and
prints medians of 20 calls for dlc and onnxruntime at 1 and at all threads.
"""
import ctypes
import os
import statistics
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))


class Tensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p)]


def tensor(name, a):
    shape = (ctypes.c_int64 * a.ndim)(*a.shape)
    t = Tensor(name.encode(), 1, a.ndim, shape, a.ctypes.data)
    t._keep = shape
    return t


def median_ms(fn, repeat=20):
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    cores = os.cpu_count()
    print(f"| model | threads | dlc AVX-512 ms | onnxruntime ms | dlc / onnxruntime | matches |")
    print(f"|---|---:|---:|---:|---:|---|")
    for name in ["lenet", "mobilenetv2", "resnet18"]:
        path = f"{HERE}/models/{name}.onnx"
        m = onnx.load(path)
        inp, out = m.graph.input[0], m.graph.output[0]
        x = np.random.default_rng(0).uniform(
            -1, 1, [d.dim_value for d in inp.type.tensor_type.shape.dim]).astype(np.float32)
        y = np.empty([d.dim_value for d in out.type.tensor_type.shape.dim], np.float32)
        lib = ctypes.CDLL(f"{HERE}/{name}_avx512.so")
        lib.dlc_create.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_size_t]
        lib.dlc_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(Tensor), ctypes.c_size_t,
                                ctypes.POINTER(Tensor), ctypes.c_size_t]
        lib.dlc_set_threads.argtypes = [ctypes.c_void_p, ctypes.c_int]
        model = ctypes.c_void_p()
        assert lib.dlc_create(ctypes.byref(model), None, 0) == 0
        ins, outs = (Tensor * 1)(tensor(inp.name, x)), (Tensor * 1)(tensor(out.name, y))
        run = lambda: lib.dlc_run(model, ins, 1, outs, 1)
        for threads in (1, cores):
            lib.dlc_set_threads(model, threads)
            assert run() == 0
            dlc_ms = median_ms(run)
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            ref = sess.run(None, {inp.name: x})[0]
            ok = np.allclose(y, ref, rtol=1e-3, atol=1e-4)
            ort_ms = median_ms(lambda: sess.run(None, {inp.name: x}))
            print(f"| {name} | {threads} | {dlc_ms:.2f} | {ort_ms:.2f} | {dlc_ms / ort_ms:.2f} | "
                  f"{'yes' if ok else 'NO'}, max diff {np.max(np.abs(y - ref)):.1e} |")


if __name__ == "__main__":
    main()
