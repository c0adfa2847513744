#!/usr/bin/env python3
"""CUDA builds on the device machine: numbers against onnxruntime (CPU), device
pointers, allocation counts and run times. Builds nothing there (no LLVM/MLIR).

Here:    for m in mlp lenet mobilenetv2 resnet18 resnet50; do
           build/tools/dlc/dlc compile build/models/$m.onnx --target=cuda:sm_90 \\
             -o devrun/cuda/$m.so; done
         cc -shared -fPIC test/cuda/count_cuda_allocs.c -o devrun/libcount_cuda_allocs.so \\
           -L/usr/local/cuda/lib64/stubs -Wl,--no-as-needed -lcuda -ldl
         cp bench/device_cuda.py bench/dlc_ctypes.py devrun/
Device:  python3 models/build_models.py devrun/models > /dev/null &&
         python3 devrun/device_cuda.py mlp lenet ...
         (through the device tool, carrying devrun/; a library over the carry
         limit travels in parts, joined with cat before this runs)

Arguments name libraries devrun/cuda/NAME.so, NAME being the model's name
optionally followed by @PRECISION (resnet18@bf16). For each: the output of
one run on random inputs (uniform [-1, 1], seed 0) against onnxruntime's
CPU result (largest error over largest output, within TOLERANCE for the
library's precision), and the same error against onnxruntime on a float64
copy of the model; the same run with the input and output in device memory (torch
tensors); the driver's allocation calls during create and over 100 runs
(through the counting shim); medians of 20 calls.
"""
import ctypes
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Before any library loads the driver: count its allocation calls.
os.environ["DLC_CUDA_DRIVER"] = os.path.join(HERE, "libcount_cuda_allocs.so")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402

sys.path.insert(0, HERE)
from dlc_ctypes import Tensor, load, median_ms, tensor  # noqa: E402

shim = ctypes.CDLL(os.environ["DLC_CUDA_DRIVER"])
shim.dlc_count_allocations.restype = ctypes.c_long


def float64_reference(model, inp_name, x):
    """onnxruntime on a float64 copy of the model (initializers, inputs,
    outputs and value types widened); None where a kernel has no float64."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for init in m.graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT:
            arr = onnx.numpy_helper.to_array(init).astype(np.float64)
            init.CopyFrom(onnx.numpy_helper.from_array(arr, init.name))
    for vi in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info):
        if vi.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = onnx.TensorProto.DOUBLE
    try:
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, {inp_name: x.astype(np.float64)})[0]
    except Exception:
        return None


def dims(value_info):
    return [d.dim_value for d in value_info.type.tensor_type.shape.dim]


def device_tensor(name, t):
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    out = Tensor()
    out.name, out.dtype, out.rank = name.encode(), 1, t.dim()
    out.shape, out.data = shape, ctypes.c_void_p(t.data_ptr())
    out._keep = shape
    return out


# Largest |dlc - onnxruntime| over the largest |onnxruntime| allowed per
# precision: float32 sums in another order; tf32 rounds products' inputs to
# 10 mantissa bits, bf16 to 7, fp16 to 10 (with float accumulation).
TOLERANCE = {"fp32": 1e-4, "tf32": 1e-2, "fp16": 1e-2, "bf16": 5e-2}


def check(lib_name, torch):
    name = lib_name.split("@")[0]
    path = f"{HERE}/models/{name}.onnx"
    m = onnx.load(path)
    inp, out = m.graph.input[0], m.graph.output[0]
    x = np.random.default_rng(0).uniform(-1, 1, dims(inp)).astype(np.float32)
    y = np.full(dims(out), np.nan, np.float32)
    lib_path = f"{HERE}/cuda/{lib_name}.so"
    if not os.path.exists(lib_path):  # the benchmark's libraries
        lib_path = f"{HERE}/bench/{lib_name if '@' in lib_name else name + '_b1'}.so"
    lib = load(lib_path)
    lib.dlc_signature_json.restype = ctypes.c_char_p
    precision = json.loads(lib.dlc_signature_json())["target"].get("precision", "fp32")
    lib.dlc_last_error.restype = ctypes.c_char_p
    model = ctypes.c_void_p()
    before = shim.dlc_count_allocations()
    rc = lib.dlc_create(ctypes.byref(model), None, 0)
    if rc:
        print(f"| {name} | {precision} | create failed: {lib.dlc_last_error(None).decode()} |")
        return
    at_create = shim.dlc_count_allocations() - before
    ins, outs = (Tensor * 1)(tensor(inp.name, x)), (Tensor * 1)(tensor(out.name, y))
    run = lambda: lib.dlc_run(model, ins, 1, outs, 1)
    rc = run()
    if rc:
        print(f"| {name} | {precision} | run failed: {lib.dlc_last_error(model).decode()} |")
        return
    so = ort.SessionOptions()
    so.intra_op_num_threads = os.cpu_count()
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    ref = sess.run(None, {inp.name: x})[0]
    rel = float(np.max(np.abs(y - ref)) / np.max(np.abs(ref)))
    ok = rel <= TOLERANCE[precision]
    ref64 = float64_reference(m, inp.name, x)
    rel64 = "n/a" if ref64 is None else f"{np.max(np.abs(y - ref64)) / np.max(np.abs(ref64)):.1e}"
    # Device pointers in and out.
    dev_ok = "n/a"
    if torch is not None:
        xd = torch.from_numpy(x).cuda()
        yd = torch.full(tuple(dims(out)), float("nan"), device="cuda")
        dins = (Tensor * 1)(device_tensor(inp.name, xd))
        douts = (Tensor * 1)(device_tensor(out.name, yd))
        torch.cuda.synchronize()
        rc = lib.dlc_run(model, dins, 1, douts, 1)
        # Split-K GEMMs add their parts atomically: equal up to summation order.
        dev_err = float(np.max(np.abs(yd.cpu().numpy() - y)) / np.max(np.abs(ref)))
        dev_ok = f"yes ({dev_err:.0e})" if rc == 0 and dev_err <= TOLERANCE[precision] else f"NO (rc {rc})"
    counted = shim.dlc_count_allocations()
    for _ in range(100):
        run()
    grew = shim.dlc_count_allocations() - counted
    ms = median_ms(run)
    print(f"| {name} | {precision} | {'yes' if ok else 'NO'} | {rel:.1e} | {rel64} | {dev_ok} | "
          f"{at_create} | {grew} | {ms:.3f} |")
    lib.dlc_destroy(model)


def main():
    try:
        import torch
        torch.cuda.init()
    except Exception as e:  # the check runs without torch too
        print(f"(torch unavailable: {e})")
        torch = None
    gpu = torch.cuda.get_device_name(0) if torch is not None else "?"
    print(f"GPU: {gpu}")
    print("| model | precision | matches onnxruntime | max error / max output | same against float64 | "
          "device pointers | allocations at create | allocations over 100 runs | dlc ms (median of 20) |")
    print("|---|---|---|---:|---:|---|---:|---:|---:|")
    for name in sys.argv[1:]:
        check(name, torch)


if __name__ == "__main__":
    main()
