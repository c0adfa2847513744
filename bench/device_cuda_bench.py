#!/usr/bin/env python3
"""dlc's CUDA builds against PyTorch on the same GPU, in one run (device machine).

Here:    python3 bench/make_cuda_models.py build/cuda-models
         dlc compile build/models/resnet18.onnx --target=cuda:sm_90 -o devrun/bench/resnet18_b1.so
         (likewise resnet50_b1, resnet18_b32, resnet50_b32, mobilenetv2_b32 from
         build/cuda-models, and gemm4096 from build/cuda-models/gemm4096.onnx)
         cp bench/device_cuda_bench.py bench/dlc_ctypes.py devrun/
Device:  python3 devrun/device_cuda_bench.py [--no-compile | --profile | --against=DIR] NAME...
         (--profile: GPU time per kernel, then launch by launch;
         --against=DIR: DIR/NAME.so, another build of the model, takes its
         turn in the same rounds, and a line after the model's gives its time)

NAME is a library devrun/bench/NAME.so: MODEL_bBATCH (torchvision's resnet18,
resnet50, mobilenet_v2 with random weights: timing only, the numbers are
checked by device_cuda.py) or gemm4096. Inputs and outputs stay on the GPU
(torch tensors passed to dlc_run as device pointers). Each call
synchronised; a model's three contenders take turns over 5 rounds of 20
calls (after 3 warm-up calls), and each one's time is the median of its
round medians (the range of the rounds beside it); gemm4096: medians of
30 calls after 5 warm-up calls. PyTorch eager and
torch.compile (default mode) run at the library's precision: TF32 allowed
for tf32, float32 strict for fp32, autocast for bf16/fp16.
"""
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dlc_ctypes import Tensor, load  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
ROUNDS = 5


def device_tensor(name, t):
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    out = Tensor(name.encode(), 1, t.dim(), shape, ctypes.c_void_p(t.data_ptr()))
    out._keep = shape
    return out


def median_ms(fn, repeat=30, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def set_precision(precision):
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


def dlc_runner(path):
    lib = load(path)
    lib.dlc_signature_json.restype = ctypes.c_char_p
    sig = json.loads(lib.dlc_signature_json())
    model = ctypes.c_void_p()
    if lib.dlc_create(ctypes.byref(model), None, 0):
        raise RuntimeError(lib.dlc_last_error(None).decode())
    ins = [torch.rand(t["shape"], device="cuda") * 2 - 1 for t in sig["inputs"]]
    outs = [torch.empty(t["shape"], device="cuda") for t in sig["outputs"]]
    cins = (Tensor * len(ins))(*[device_tensor(t["name"], x) for t, x in zip(sig["inputs"], ins)])
    couts = (Tensor * len(outs))(
        *[device_tensor(t["name"], y) for t, y in zip(sig["outputs"], outs)])

    def run():
        if lib.dlc_run(model, cins, len(ins), couts, len(outs)):
            raise RuntimeError(lib.dlc_last_error(model).decode())
    return run, sig, ins, outs


def torch_runner(fn, precision):
    if precision in DTYPES:
        def run():
            with torch.no_grad(), torch.autocast("cuda", dtype=DTYPES[precision]):
                fn()
    else:
        def run():
            with torch.no_grad():
                fn()
    return run


def profile(name):
    """The GPU time of one call per kernel (named after ONNX nodes)."""
    run, _, _, _ = dlc_runner(f"{HERE}/bench/{name}.so")
    run()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            run()
        torch.cuda.synchronize()
    print(f"{name}: GPU time per kernel over 3 calls")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=15))
    # Launch by launch, in the library's order (the index of its launch
    # list, as `dlc compile --emit=ptx` writes it in the JSON plan): each
    # launch's median over the 3 calls.
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    per_call = len(kernels) // 3
    print(f"{name}: {per_call} launches a call, microseconds each (median of 3 calls)")
    for i in range(per_call):
        us = statistics.median(kernels[i + c * per_call].device_time_total for c in range(3))
        print(f"{i} {kernels[i].name} {us:.1f}")


def main():
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    compile_too = "--no-compile" not in sys.argv
    against = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--against=")), None)
    if "--profile" in sys.argv:
        for name in names:
            profile(name)
        return
    print(f"GPU: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print("| model | batch | precision | dlc ms | PyTorch eager ms | torch.compile ms | "
          "dlc / eager | dlc / compile |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for name in names:
        run, sig, ins, outs = dlc_runner(f"{HERE}/bench/{name}.so")
        precision = sig["target"].get("precision", "fp32")
        set_precision(precision)
        if name.startswith("gemm"):
            dlc_ms = median_ms(run)
            a, b = ins
            n = a.shape[0]
            torch_ms = median_ms(torch_runner(lambda: torch.matmul(a, b), precision))
            tflops = lambda ms: 2 * n ** 3 / ms / 1e9
            # dlc's last result against the product in float64.
            ref = a.double() @ b.double()
            err = ((outs[0].double() - ref).abs().max() / ref.abs().max()).item()
            print(f"| {name} (matmul) | - | {precision} | {dlc_ms:.3f} ({tflops(dlc_ms):.0f} TFLOP/s; "
                  f"error {err:.1e} of the largest output against float64) "
                  f"| {torch_ms:.3f} (cuBLAS, {tflops(torch_ms):.0f} TFLOP/s) | | "
                  f"{dlc_ms / torch_ms:.2f} | dlc at {torch_ms / dlc_ms:.0%} of cuBLAS |")
            continue
        model_name, batch = name.rsplit("_b", 1)
        net = getattr(torchvision.models, {"mobilenetv2": "mobilenet_v2"}.get(model_name, model_name))(
            weights=None).cuda().eval()
        x = ins[0]
        runners = {"dlc": run, "eager": torch_runner(lambda: net(x), precision)}
        if against:
            before, _, before_ins, _ = dlc_runner(f"{against}/{name}.so")
            before_ins[0].copy_(x)
            runners["against"] = before
        if compile_too:
            compiled = torch.compile(net)
            runners["compile"] = torch_runner(lambda: compiled(x), precision)
            runners["compile"]()  # compile outside the timing
        # Rounds alternating between the three, the median of each one's
        # round medians: the GPU's clocks (and eager's times) drift over a
        # run by 10% and more.
        rounds = {k: [] for k in runners}
        for _ in range(ROUNDS):
            for k, fn in runners.items():
                rounds[k].append(median_ms(fn, repeat=20, warmup=3))
        ms = {k: statistics.median(v) for k, v in rounds.items()}
        dlc_ms, eager_ms = ms["dlc"], ms["eager"]
        compiled_ms = ms.get("compile", float("nan"))
        spread = lambda k: f"{min(rounds[k]):.3f}-{max(rounds[k]):.3f}"
        print(f"| {model_name} | {batch} | {precision} | {dlc_ms:.3f} ({spread('dlc')}) | "
              f"{eager_ms:.3f} ({spread('eager')}) | {compiled_ms:.3f} | {dlc_ms / eager_ms:.2f} | "
              f"{dlc_ms / compiled_ms:.2f} |", flush=True)
        if against:
            print(f"| {model_name}, {against}/{name}.so | {batch} | {precision} | "
                  f"{ms['against']:.3f} ({spread('against')}) | | | "
                  f"this build / that one: {dlc_ms / ms['against']:.2f} | |", flush=True)


if __name__ == "__main__":
    main()
