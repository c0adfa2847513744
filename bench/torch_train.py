"""PyTorch side of bench_train.py, run by Debian's /usr/bin/python3 (which has
python3-torch 1.13; the project's .venv does not).

Reads a .npz with the network's initial weights (ONNX initializer order),
the data and the per-epoch sample orders, trains with torch.optim.SGD and
CrossEntropyLoss exactly as dlc's train step does, and prints one JSON
object: test accuracy per epoch and the median train-step time per thread
count.

usage: torch_train.py NPZ NETWORK LR MOMENTUM EPOCHS BATCH TIMING_STEPS DTYPE THREADS...

DTYPE float32 is the comparison; float64 (same weights, data and order)
measures how far rounding alone moves the accuracy.
"""
import json
import statistics
import sys
import time

import numpy as np
import torch
from torch import nn


def network(name, weights):
    if name == "logreg":
        net = nn.Sequential(nn.Linear(784, 10))
    elif name == "mlp":
        net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                            nn.Linear(128, 10))
    else:
        net = nn.Sequential(nn.Unflatten(1, (1, 28, 28)), nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(),
                            nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84),
                            nn.ReLU(), nn.Linear(84, 10))
    params = list(net.parameters())  # weight, bias per layer: the ONNX order
    assert len(params) == len(weights), (len(params), len(weights))
    with torch.no_grad():
        for p, w in zip(params, weights):
            p.copy_(torch.from_numpy(w).reshape(p.shape))
    return net


def main():
    npz, name, lr, momentum, epochs, batch, timing_steps, dtype = sys.argv[1:9]
    threads = [int(t) for t in sys.argv[9:]]
    dtype = {"float32": torch.float32, "float64": torch.float64}[dtype]
    lr, momentum, epochs, batch = float(lr), float(momentum), int(epochs), int(batch)
    timing_steps = int(timing_steps)
    data = np.load(npz)
    weights = [data[f"w{i}"] for i in range(int(data["num_weights"]))]
    x_train, y_train = torch.from_numpy(data["x_train"]).to(dtype), torch.from_numpy(data["y_train"])
    x_test, y_test = torch.from_numpy(data["x_test"]).to(dtype), torch.from_numpy(data["y_test"])
    net = network(name, weights).to(dtype)
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    loss_fn = nn.CrossEntropyLoss()
    torch.set_num_threads(threads[-1])

    def step(idx):
        opt.zero_grad()
        loss = loss_fn(net(x_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
        return loss.item()

    accuracy, losses = [], []
    for e in range(epochs):
        order = torch.from_numpy(data[f"order{e}"])
        total = 0.0
        steps = len(order) // batch
        for s in range(steps):
            total += step(order[s * batch:(s + 1) * batch])
        losses.append(total / steps)
        with torch.no_grad():
            pred = net(x_test).argmax(1)
        accuracy.append(100.0 * (pred == y_test).float().mean().item())

    times = {}
    order = torch.from_numpy(data["order0"])
    for t in threads:
        torch.set_num_threads(t)
        samples = []
        for s in range(timing_steps + 5):
            idx = order[s * batch:(s + 1) * batch]
            t0 = time.perf_counter()
            step(idx)
            samples.append((time.perf_counter() - t0) * 1e3)
        times[t] = statistics.median(samples[5:])
    print(json.dumps({"accuracy": accuracy, "loss": losses, "step_ms": times}))


if __name__ == "__main__":
    main()
