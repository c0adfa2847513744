#!/usr/bin/python3
"""PyTorch's side of bench/bench_latency.py: one model's median latency.

  /usr/bin/python3 bench/torch_latency.py MODEL THREADS REPEAT [MIN_MS]

Run by Debian's python3 (python3-torch 1.13, python3-torchvision 0.14; the
project's .venv has neither). MODEL is a bench name: resnet18, resnet50,
mobilenetv2 (torchvision's architectures, the ones models/build_models.py
builds, with random weights: timing only), mlp or lenet (the layers of
build_models.py's), with an optional _bN batch suffix. The module is traced,
frozen and optimized for inference (TorchScript: conv-BN folding, oneDNN
where it pays), then run under torch.inference_mode with THREADS intra-op
threads; prints the median of at least REPEAT calls lasting at least MIN_MS
after warm-up (3 calls and a quarter of MIN_MS at least), in ms.
"""
import statistics
import sys
import time

import torch
import torchvision
from torch import nn


def build(name):
    base, _, batch = name.partition("_b")
    batch = int(batch or 1)
    if base == "mlp":
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10), nn.Softmax(dim=1)), (batch, 784)
    if base == "lenet":
        return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                             nn.Linear(84, 10)), (batch, 1, 28, 28)
    make = {"resnet18": torchvision.models.resnet18, "resnet50": torchvision.models.resnet50,
            "mobilenetv2": torchvision.models.mobilenet_v2}[base]
    return make(), (batch, 3, 224, 224)


def main():
    name, threads, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    min_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    module, shape = build(name)
    x = torch.rand(shape) * 2 - 1
    with torch.inference_mode():
        scripted = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(module.eval(), x)))
        # As dlc_ctypes.median_ms: at least 3 warm-up calls and min_ms / 4,
        # then at least `repeat` calls and min_ms.
        start, done = time.perf_counter(), 0
        while done < 3 or (time.perf_counter() - start) * 1e3 < min_ms / 4:
            scripted(x)
            done += 1
        times = []
        start = time.perf_counter()
        while len(times) < repeat or (time.perf_counter() - start) * 1e3 < min_ms:
            t0 = time.perf_counter()
            scripted(x)
            times.append((time.perf_counter() - t0) * 1e3)
    print(f"{statistics.median(times):.4f}")


if __name__ == "__main__":
    main()
