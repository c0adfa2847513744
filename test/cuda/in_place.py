#!/usr/bin/env python3
"""dlc_run on device memory (runtime/cuda.c's in-place binding), device only:
a MatMul library (bench/make_cuda_models.py's gemm, 1000^3) run with an
output that overlaps an input (it must go through its slot and be copied
out after the kernels), then rebound to other device tensors (the graph is
captured again); each result against float64.

Here:    dlc compile gemm1000.onnx --target=cuda:sm_90 -o devrun/bench/gemm1000.so
         cp test/cuda/in_place.py bench/device_cuda_bench.py bench/dlc_ctypes.py devrun/
Device:  python3 devrun/in_place.py
"""
import ctypes
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from device_cuda_bench import device_tensor  # noqa: E402
from dlc_ctypes import Tensor, load  # noqa: E402


def error(out, ref):
    return ((out.double() - ref).abs().max() / ref.abs().max()).item()


def main():
    lib = load(os.path.join(HERE, "bench/gemm1000.so"))
    lib.dlc_last_error.restype = ctypes.c_char_p
    model = ctypes.c_void_p()
    if lib.dlc_create(ctypes.byref(model), None, 0):
        raise RuntimeError(lib.dlc_last_error(None).decode())

    def run(a, b, c):
        ins = (Tensor * 2)(device_tensor("a", a), device_tensor("b", b))
        outs = (Tensor * 1)(device_tensor("c", c))
        if lib.dlc_run(model, ins, 2, outs, 1):
            raise RuntimeError(lib.dlc_last_error(model).decode())

    n = 1000
    buf = torch.rand(2 * n * n, device="cuda") * 2 - 1
    a, b = buf[:n * n].view(n, n), torch.rand(n, n, device="cuda") * 2 - 1
    ref = a.double() @ b.double()
    overlapping = buf[n * n // 2:3 * n * n // 2].view(n, n)  # half of it is a's
    run(a, b, overlapping)
    e1 = error(overlapping, ref)
    a2, c2 = torch.rand(n, n, device="cuda") * 2 - 1, torch.empty(n, n, device="cuda")
    run(a2, b, c2)
    e2 = error(c2, a2.double() @ b.double())
    print(f"output overlapping an input: {e1:.1e}; rebound to other tensors: {e2:.1e}")
    ok = e1 < 5e-3 and e2 < 5e-3
    print("all match" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
