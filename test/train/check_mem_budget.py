"""--mem-budget on the LeNet train step: compiled at a fraction of the
unconstrained arena, the library's plan fits (as dlc inspect reports it),
and it trains like the unconstrained one: 30 SGD steps with momentum on
random data from the same weights give the same losses (relative 1e-4: the
chunked convs add their partial sums in another order) and parameters.

usage: check_mem_budget.py --dlc DLC --model LENET_TRAIN.onnx --work DIR --fraction F
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from dlc_ctypes import TrainModel  # noqa: E402


def compile_lib(dlc, model, out, *flags):
    subprocess.run([dlc, "compile", model, "--train", "--momentum", "0.9", *flags, "-o", out],
                   check=True)
    info = subprocess.run([dlc, "inspect", out], check=True, capture_output=True, text=True)
    sig = json.loads(info.stdout.split("signature: ", 1)[1])
    return sig, info.stdout


def losses(lib, steps=30):
    rng = np.random.default_rng(0)
    with TrainModel(lib) as m:
        shape = tuple(m.signature["inputs"][0]["shape"])
        x = np.empty(shape, np.float32)
        labels = np.empty(shape[0], np.int64)
        step = m.stepper({"input": x, "labels": labels})
        out = []
        for _ in range(steps):
            x[...] = rng.random(shape, dtype=np.float32)
            labels[...] = rng.integers(0, 10, shape[0])
            out.append(step(0.05))
        return np.array(out), {n: m.get(n) for n in m.params}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fraction", type=float, default=0.6)
    args = ap.parse_args()
    free_lib, budget_lib = (os.path.join(args.work, n) for n in ("free.so", "budget.so"))
    free_sig, _ = compile_lib(args.dlc, args.model, free_lib)
    arena = free_sig["memory_plan"]["arena_bytes"]
    budget = int(arena * args.fraction)
    sig, text = compile_lib(args.dlc, args.model, budget_lib, "--mem-budget", str(budget))
    print(next(line for line in text.splitlines() if line.startswith("memory budget:")))
    planned = sig["memory_plan"]["arena_bytes"]
    print(f"arena {arena} -> {planned} bytes with a budget of {budget} "
          f"({args.fraction:.0%}): {'fits' if planned <= budget else 'OVER'}")
    free_losses, free_params = losses(free_lib)
    budget_losses, budget_params = losses(budget_lib)
    loss_err = np.max(np.abs(budget_losses - free_losses) / np.abs(free_losses))
    param_err = max(np.max(np.abs(budget_params[n] - p)) / np.max(np.abs(p))
                    for n, p in free_params.items())
    same = loss_err < 1e-4 and param_err < 1e-4
    print(f"30 steps: losses {free_losses[0]:.4f} -> {free_losses[-1]:.4f}; budgeted library "
          f"{'matches' if same else 'DIFFERS'} (loss rel. error {loss_err:.1e}, "
          f"parameters {param_err:.1e})")
    return 0 if planned <= budget and same else 1


if __name__ == "__main__":
    sys.exit(main())
