"""Trains logistic regression, the MLP and the LeNet-style CNN on
Fashion-MNIST with dlc (a --train library through the C API) and with
PyTorch (Debian's python3-torch 1.13, run by /usr/bin/python3 through
torch_train.py), from the same initial weights (the ONNX file's), with the
same hyperparameters and the same per-epoch sample order, and prints test
accuracy per epoch and the median train-step time side by side.

Accuracy is averaged over several seeds (each seed: its own sample order,
the same for both sides): one run's epoch-end accuracy moves by about a
point with rounding alone. For the networks in --noise-floor, PyTorch also
trains in float64 from the same start and order: its distance from PyTorch
float32 is what rounding alone does, the yardstick for dlc's distance.
LeNet also trains from a library compiled with --mem-budget at a fraction
of its unconstrained arena.

usage: bench_train.py [--dlc build/tools/dlc/dlc] [--models build/models]
                      [--networks logreg,mlp,lenet] [--threads 1,2]
                      [--timing-steps 100] [--seeds 0,1,2] [--budget 0.6]
                      [--noise-floor lenet] [--timing-only]
                      [--out bench/results/train.md]
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import shutil
import sys
import tempfile
import time

# numpy only shuffles here; its OpenBLAS threads would otherwise spin on the
# core the 2-thread timings need.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from dlc_ctypes import TrainModel, write_report  # noqa: E402

DATA = "/usr/share/datasets/fashion-mnist"
BATCH = 64
# network -> (ONNX model, learning rate, momentum, epochs, PyTorch reference
# accuracy measured on this machine, quoted in the training issue)
NETWORKS = {
    "logreg": ("logreg_train.onnx", 0.05, 0.0, 2, 81.8),
    "mlp": ("mlp_train.onnx", 0.05, 0.9, 2, 85.3),
    "lenet": ("lenet_train.onnx", 0.05, 0.9, 3, 86.3),
}


def idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        raw = f.read()
    rank = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * rank).reshape(dims)


def dlc_train(lib, x_train, y_train, x_test, y_test, orders, lr, threads, timing_steps,
              in_shape, train_epochs):
    """Accuracy per epoch (at the last thread count) and median step ms per count."""
    x = np.zeros(in_shape, np.float32)
    labels = np.zeros(BATCH, np.int64)
    out = np.zeros((BATCH, 10), np.float32)
    accuracy, losses, times = [], [], {}
    with TrainModel(lib, threads[-1]) as m:
        step = m.stepper({"input": x, "labels": labels})
        run = m.runner({"input": x}, {m.signature["outputs"][0]["name"]: out})
        for order in orders[:train_epochs]:
            total, steps = 0.0, len(order) // BATCH
            for s in range(steps):
                idx_ = order[s * BATCH:(s + 1) * BATCH]
                x.reshape(BATCH, 784)[:] = x_train[idx_]
                labels[:] = y_train[idx_]
                total += step(float(lr))
            losses.append(total / steps)
            correct = 0
            for first in range(0, len(x_test), BATCH):
                n = min(BATCH, len(x_test) - first)
                x.fill(0)
                x.reshape(BATCH, 784)[:n] = x_test[first:first + n]
                run()
                correct += int((out[:n].argmax(1) == y_test[first:first + n]).sum())
            accuracy.append(100.0 * correct / len(x_test))
        for t in threads:
            m.lib.dlc_set_threads(m.handle, t)
            samples = []
            for s in range(timing_steps + 5):
                idx_ = orders[0][s * BATCH:(s + 1) * BATCH]
                x.reshape(BATCH, 784)[:] = x_train[idx_]
                labels[:] = y_train[idx_]
                t0 = time.perf_counter()
                step(float(lr))
                samples.append((time.perf_counter() - t0) * 1e3)
            times[t] = statistics.median(samples[5:])
    return accuracy, losses, times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlc", default="build/tools/dlc/dlc")
    ap.add_argument("--models", default="build/models")
    ap.add_argument("--networks", default="logreg,mlp,lenet")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--timing-steps", type=int, default=100)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--budget", type=float, default=0.6,
                    help="LeNet's --mem-budget as a fraction of its arena (0: skip)")
    ap.add_argument("--noise-floor", default="lenet",
                    help="networks PyTorch also trains in float64 ('' for none)")
    ap.add_argument("--timing-only", action="store_true",
                    help="only the step times (first seed, no training to accuracy)")
    ap.add_argument("--out", default="bench/results/train.md")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]

    x_train = (idx("train-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0).astype(np.float32)
    y_train = idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    x_test = (idx("t10k-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0).astype(np.float32)
    y_test = idx("t10k-labels-idx1-ubyte.gz").astype(np.int64)

    seeds = [int(x) for x in args.seeds.split(",")]
    if args.timing_only:
        seeds, args.budget, args.noise_floor = seeds[:1], 0, ""
    acc_rows, time_rows, budget_rows, floor_rows = [], [], [], []
    work = tempfile.mkdtemp(prefix="dlc-bench-train")
    for name in args.networks.split(","):
        model_file, lr, momentum, epochs, reference = NETWORKS[name]
        train_epochs = 0 if args.timing_only else epochs
        model_path = os.path.join(args.models, model_file)
        model = onnx.load(model_path)
        weights = [numpy_helper.to_array(t) for t in model.graph.initializer]
        lib = os.path.join(work, name + ".so")
        t0 = time.perf_counter()
        compile_cmd = [args.dlc, "compile", model_path, "--train", "--optimizer", "sgd",
                       "--momentum", str(momentum)]
        subprocess.run(compile_cmd + ["-o", lib], check=True)
        compile_s = time.perf_counter() - t0
        libs = {"dlc": lib}
        if name == "lenet" and args.budget > 0:
            with TrainModel(lib) as m:
                arena = m.signature["memory_plan"]["arena_bytes"]
            budget = int(arena * args.budget)
            libs["budget"] = os.path.join(work, name + "_budget.so")
            subprocess.run(compile_cmd + ["--mem-budget", str(budget), "-o", libs["budget"]],
                           check=True)
            with TrainModel(libs["budget"]) as m:
                planned = m.signature["memory_plan"]["arena_bytes"]
        in_shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        runs = []  # per seed: (torch result, {lib: (accuracy, losses)})
        for k, seed in enumerate(seeds):
            rng = np.random.default_rng(seed)
            orders = [rng.permutation(len(x_train)) for _ in range(epochs)]
            timing = args.timing_steps if k == 0 else 1  # times from the first seed
            npz = os.path.join(work, name + ".npz")
            np.savez(npz, num_weights=len(weights), x_train=x_train, y_train=y_train,
                     x_test=x_test.reshape(-1, 784), y_test=y_test,
                     **{f"w{i}": w for i, w in enumerate(weights)},
                     **{f"order{e}": o for e, o in enumerate(orders)})
            def torch_train(dtype, timing_steps):
                out = subprocess.run(
                    ["/usr/bin/python3", os.path.join(os.path.dirname(__file__),
                                                      "torch_train.py"),
                     npz, name, str(lr), str(momentum), str(train_epochs), str(BATCH),
                     str(timing_steps), dtype] + [str(t) for t in threads],
                    capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"torch_train.py failed (is python3-torch installed?):\n"
                             f"{out.stderr}")
                return json.loads(out.stdout)
            torch_res = torch_train("float32", timing)
            if name in args.noise_floor.split(","):
                torch_res["float64"] = torch_train("float64", 1)["accuracy"]
            ours = {}
            for key, path in libs.items():
                accuracy, losses, times = dlc_train(path, x_train, y_train, x_test, y_test,
                                                    orders, lr, threads, timing, in_shape,
                                                    train_epochs)
                ours[key] = (accuracy, losses)
                if k == 0 and key == "dlc":
                    for t in threads:
                        tt, dt = torch_res["step_ms"][str(t)], times[t]
                        time_rows.append(f"| {name} | {t} | {tt:.3f} | {dt:.3f} | "
                                         f"{dt / tt:.2f} | {compile_s:.1f} |")
            runs.append((torch_res, ours))
        mean = statistics.mean
        for e in range(train_epochs):
            t_acc = [r[0]["accuracy"][e] for r in runs]
            d_acc = [r[1]["dlc"][0][e] for r in runs]
            diffs = " ".join(f"{d - t:+.2f}" for d, t in zip(d_acc, t_acc))
            acc_rows.append(
                f"| {name} | {e + 1} | {mean(r[0]['loss'][e] for r in runs):.4f} | "
                f"{mean(r[1]['dlc'][1][e] for r in runs):.4f} | {mean(t_acc):.2f} | "
                f"{mean(d_acc):.2f} | {mean(d_acc) - mean(t_acc):+.2f} | {diffs} |"
                + (f" {reference} |" if e + 1 == epochs else " |"))
        if all("float64" in r[0] for r in runs):
            t_acc = [r[0]["accuracy"][-1] for r in runs]
            f_acc = [r[0]["float64"][-1] for r in runs]
            d_acc = [r[1]["dlc"][0][-1] for r in runs]
            floor_rows.append(
                f"| {name} | {mean(f - t for f, t in zip(f_acc, t_acc)):+.2f} | "
                f"{mean(abs(f - t) for f, t in zip(f_acc, t_acc)):.2f} | "
                f"{' '.join(f'{f - t:+.2f}' for f, t in zip(f_acc, t_acc))} | "
                f"{mean(d - t for d, t in zip(d_acc, t_acc)):+.2f} | "
                f"{mean(abs(d - t) for d, t in zip(d_acc, t_acc)):.2f} |")
        if "budget" in libs:
            b_acc = [r[1]["budget"][0][-1] for r in runs]
            d_acc = [r[1]["dlc"][0][-1] for r in runs]
            t_acc = [r[0]["accuracy"][-1] for r in runs]
            budget_rows.append(
                f"| {name} | {arena} | {budget} ({args.budget:.0%}) | {planned} | "
                f"{mean(t_acc):.2f} | {mean(d_acc):.2f} | {mean(b_acc):.2f} |")

    accuracy_text = (
        "Fashion-MNIST, batch 64, SGD (lr, momentum as in the training issue), same initial "
        "weights and sample order for both; PyTorch 1.13 (Debian) vs dlc. Losses and "
        f"accuracies are means over seeds {args.seeds} (each seed its own sample order); "
        "the per-seed differences follow.\n\n"
        "| network | epoch | PyTorch loss | dlc loss | PyTorch test acc % | dlc test acc % | "
        "dlc - PyTorch | per seed | issue's PyTorch reference % |\n"
        "|---|---:|---:|---:|---:|---:|---:|---|---:|\n" + "\n".join(acc_rows) + "\n\n")
    text = ("" if args.timing_only else accuracy_text) + (
        "Median train-step time (batch 64; forward, backward, update; "
        f"{args.timing_steps} steps after 5 warm-up steps):\n\n"
        "| network | threads | PyTorch ms | dlc ms | dlc / PyTorch | dlc compile s |\n"
        "|---|---:|---:|---:|---:|---:|\n" + "\n".join(time_rows) + "\n")
    if floor_rows:
        text += ("\nRounding noise floor, test accuracy after the last epoch: PyTorch float64 "
                 "against PyTorch float32 (same start, data and order), next to dlc against "
                 "PyTorch float32; means over the seeds of the difference and of its size:\n\n"
                 "| network | float64 - float32 | mean abs | per seed | dlc - PyTorch | "
                 "mean abs |\n|---|---:|---:|---|---:|---:|\n" + "\n".join(floor_rows) + "\n")
    if budget_rows:
        text += ("\nWith --mem-budget (im2col workspaces chunked), test accuracy after the "
                 "last epoch, mean over the seeds:\n\n"
                 "| network | arena bytes | budget bytes | planned arena bytes | PyTorch acc % | "
                 "dlc acc % | dlc with budget acc % |\n|---|---:|---:|---:|---:|---:|---:|\n"
                 + "\n".join(budget_rows) + "\n")
    write_report(text, args.out)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
