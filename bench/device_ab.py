#!/usr/bin/env python3
"""A/B of two or more dlc libraries of one model (on the device machine, or here).

  device_ab.py MODEL.onnx THREADS ROUNDS LIB_A.so LIB_B.so ...

Each round creates, times (median of calls over 300 ms after warm-up) and
destroys each library in turn; prints each library's median and best round
and its outputs' largest difference from the first library's. Carried to the
device with bench/dlc_ctypes.py beside it (see bench/device_avx512.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import onnx  # noqa: E402

from dlc_ctypes import Model, median_ms, model_arrays  # noqa: E402


def main():
    model, threads, rounds, libs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    graph = onnx.load(model).graph
    feeds, _ = model_arrays(graph)
    times = {lib: [] for lib in libs}
    outs = {}
    for _ in range(rounds):
        for lib in libs:
            _, out = model_arrays(graph)
            with Model(lib, threads) as m:
                times[lib].append(median_ms(m.runner(feeds, out), 10, min_ms=300))
            outs[lib] = out
    for lib in libs:
        t = sorted(times[lib])
        diff = max(float(np.max(np.abs(outs[lib][k] - outs[libs[0]][k]))) for k in outs[lib])
        print(f"{os.path.basename(lib)} threads {threads}: median {t[len(t) // 2]:.3f} "
              f"best {t[0]:.3f} ms (max diff vs the first {diff:.1e})")


if __name__ == "__main__":
    main()
