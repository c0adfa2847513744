#!/usr/bin/env python3
"""Latency of dlc-compiled models next to onnxruntime and PyTorch, from one run.

  bench/bench_latency.py [--models resnet18,resnet50,mobilenetv2,mlp,lenet] [--threads 1,2]
                         [--repeat 30] [--rounds 3] [--min-ms 300] [--no-torch]
                         [--out bench/results/latency.md]

A model name NAME_bN not among the built models (resnet50_b8) is built here
at batch N from models/build_models.py. dlc and onnxruntime are timed the
same way, in this process, on the same input: dlc through its C API (ctypes
on the compiled .so, one dlc_run per call), onnxruntime through
InferenceSession.run with intra_op_num_threads = the thread count. PyTorch
(Debian's python3-torch 1.13 and python3-torchvision, which only
/usr/bin/python3 has) runs in bench/torch_latency.py: the same
architectures (torchvision's for the CNNs) with random weights, traced,
frozen and optimized for inference (TorchScript), torch.set_num_threads =
the thread count. The sides run --rounds times, alternating; each round is
the median of at least --repeat calls lasting at least --min-ms after
warm-up (a quarter of that, at least 3 calls), and each cell the best round
(this VM's neighbours slow it for seconds at a time). Prints a markdown
table with the dlc/onnxruntime and dlc/PyTorch ratios (< 1: dlc faster)
and writes it to --out.

The models of --c-api (the MLP and LeNet, where a call takes microseconds)
are timed a second time from C, both libraries through their C APIs in one
process (bench/c_latency.c, built here with clang-19, cc or gcc): the
issue's measure for them, without Python's per-call overhead on either
side. That table follows the first.

Rows of more than one thread also give a cache line's round trip between
the first two CPUs, before and after their rounds (bench/core_to_core.c):
on a VM it tells whether the vCPUs sat close (50-65 ns on sessions 52-54's
Zen 4) or apart (300 and more, where MobileNetV2 at two threads took 5 ms
instead of 3.1).
"""
import os

# numpy's OpenBLAS threads (idle here: nothing below calls BLAS) spun on the
# other core and slowed both libraries' 20-us models by up to a quarter.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc
import datetime
import glob
import json
import platform
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dlc_ctypes import Model, median_ms, write_report  # noqa: E402

import numpy as np
import onnx
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TORCH_PYTHON = "/usr/bin/python3"


def torch_available():
    return subprocess.run([TORCH_PYTHON, "-c", "import torch, torchvision"],
                          capture_output=True).returncode == 0


def bench_torch(name, threads, repeat, min_ms):
    out = subprocess.run([TORCH_PYTHON, os.path.join(ROOT, "bench/torch_latency.py"), name,
                          str(threads), str(repeat), str(min_ms)], check=True, capture_output=True,
                         text=True)
    return float(out.stdout.strip().splitlines()[-1])


def model_path(name, models_dir, work):
    """The built model, or NAME_bN made here from build_models.py at batch N."""
    path = os.path.join(models_dir, name + ".onnx")
    if os.path.exists(path) or "_b" not in name:
        return path
    sys.path.insert(0, os.path.join(ROOT, "models"))
    import build_models
    base, batch = name.rsplit("_b", 1)
    path = os.path.join(work, name + ".onnx")
    onnx.save(getattr(build_models, base)(int(batch)), path)
    return path


def bench_dlc(lib_path, feeds, out_shapes, threads, repeat, min_ms):
    outs = {n: np.empty(s, np.float32) for n, s in out_shapes}
    with Model(lib_path, threads) as model:
        ms = median_ms(model.runner(feeds, outs), repeat, min_ms=min_ms)
    return ms, outs


def build_c(work, name, flags):
    """bench/NAME.c built into `work` (again when the source is newer), with
    the first C compiler found of those dlc links with."""
    src = os.path.join(ROOT, f"bench/{name}.c")
    exe = os.path.join(work, name)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        compiler = next(filter(shutil.which, ["clang-19", "cc", "gcc"]), None)
        if not compiler:
            sys.exit(f"no C compiler (clang-19, cc or gcc) to build bench/{name}.c")
        subprocess.run([compiler, "-O2", "-I", os.path.join(ROOT, "include"), src, "-o", exe]
                       + flags, check=True)
    return exe


def core_round_trip(work):
    """A cache line's round trip between the first two CPUs in ns
    (bench/core_to_core.c), None with fewer CPUs: the two-thread rows'
    state (see that file)."""
    run = subprocess.run([build_c(work, "core_to_core", ["-pthread"])], capture_output=True,
                         text=True)
    if run.returncode != 0:
        # Not a reason to lose the rows timed so far: the cell reads "-".
        print(f"core_to_core: {run.stdout.strip() or run.stderr.strip()}", file=sys.stderr)
        return None
    return json.loads(run.stdout).get("round_trip_ns")


def round_trips(trips):
    """The round trips before and after a row ("62 / 65"), "-" for none."""
    return " / ".join("-" if v is None else f"{v:.0f}" for v in trips) or "-"


def bench_c(exe, lib, path, graph, threads, rounds, min_ms):
    """dlc's and onnxruntime's per-call latency through their C APIs (us)."""
    ort_lib = sorted(glob.glob(os.path.join(os.path.dirname(ort.__file__), "capi",
                                            "libonnxruntime.so*")))[-1]
    inits = {i.name for i in graph.initializer}

    def spec(vi):
        return f"{vi.name}:" + "x".join(str(d.dim_value) for d in vi.type.tensor_type.shape.dim)
    cmd = [exe, "--dlc", lib, "--ort", ort_lib, "--model", path, "--threads", str(threads),
           "--rounds", str(rounds), "--min-ms", str(min_ms)]
    for vi in graph.input:
        if vi.name not in inits:
            cmd += ["--input", spec(vi)]
    for vi in graph.output:
        cmd += ["--output", spec(vi)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"bench/c_latency.c failed on {path}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", default=os.path.join(ROOT, "build/tools/dlc/dlc"))
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "build/models"))
    ap.add_argument("--models", default="resnet18,resnet50,mobilenetv2,mlp,lenet")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-ms", type=float, default=300,
                    help="each round's calls (and a quarter as much warm-up) last at least this long")
    ap.add_argument("--target", default="native")
    ap.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    ap.add_argument("--c-api", default="mlp,lenet",
                    help="models of --models also timed from C through both C APIs (empty: none)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/latency.md"))
    args = ap.parse_args()

    work = os.path.join(ROOT, "build/bench")
    os.makedirs(work, exist_ok=True)
    with_torch = not args.no_torch and torch_available()
    if not args.no_torch and not with_torch:
        print("PyTorch left out: /usr/bin/python3 lacks torch or torchvision "
              "(apt-get install python3-torch python3-torchvision)", file=sys.stderr)
    rows, c_rows = [], []
    c_models = set(filter(None, args.c_api.split(",")))
    for name in args.models.split(","):
        path = model_path(name, args.models_dir, work)
        lib = os.path.join(work, f"{name}.{args.target}.so")
        t0 = time.perf_counter()
        subprocess.run([args.dlc, "compile", path, "-o", lib, f"--target={args.target}"], check=True)
        compile_s = time.perf_counter() - t0
        model = onnx.load(path)
        inits = {i.name for i in model.graph.initializer}
        rng = np.random.default_rng(0)
        feeds = {vi.name: rng.uniform(-1, 1, [d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
                 for vi in model.graph.input if vi.name not in inits}
        out_shapes = [(vi.name, [d.dim_value for d in vi.type.tensor_type.shape.dim]) for vi in model.graph.output]
        for threads in [int(t) for t in args.threads.split(",")]:
            # Rounds alternate the two sides, each round a median of --repeat
            # calls; the best round of each side is reported. A VM's
            # neighbours slow it for seconds at a time (up to 30% here), which
            # one block per side turned into a ratio off by as much.
            dlc_ms = ort_ms = torch_ms = float("inf")
            trips = [core_round_trip(work)] if threads > 1 else []
            for _ in range(args.rounds):
                if with_torch:
                    torch_ms = min(torch_ms, bench_torch(name, threads, args.repeat, args.min_ms))
                ms, outs = bench_dlc(lib, feeds, out_shapes, threads, args.repeat, args.min_ms)
                dlc_ms = min(dlc_ms, ms)
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
                ort_ms = min(ort_ms, median_ms(lambda: sess.run(None, feeds), args.repeat,
                                                     min_ms=args.min_ms))
                ref = sess.run(None, feeds)
                # The session's spinning worker threads must not compete with
                # the next measurement on a 2-core machine.
                del sess
                gc.collect()
            err = max(float(np.max(np.abs(outs[n] - r))) for (n, _), r in zip(out_shapes, ref))
            # Against the outputs' scale: ResNet-50's random-weight logits
            # reach 8e4, where 5e-2 is float32 rounding.
            scale = max(float(np.max(np.abs(r))) for r in ref)
            if trips:
                trips.append(core_round_trip(work))
            rows.append((name, threads, dlc_ms, ort_ms, torch_ms, compile_s, err,
                         err / scale if scale else err, trips))
            print(f"{name} threads={threads}: dlc {dlc_ms:.3f} ms, onnxruntime {ort_ms:.3f} ms, "
                  f"PyTorch {torch_ms:.3f} ms", file=sys.stderr)
            if name in c_models:
                c_trips = [core_round_trip(work)] if threads > 1 else []
                c = bench_c(build_c(work, "c_latency", ["-ldl", "-lm"]), lib, path, model.graph,
                            threads, args.rounds, args.min_ms)
                if c_trips:
                    c_trips.append(core_round_trip(work))
                c_rows.append((name, threads, c, c_trips))
                print(f"{name} threads={threads}, C APIs: dlc {c['dlc_us']:.2f} us, "
                      f"onnxruntime {c['ort_us']:.2f} us", file=sys.stderr)

    torch_version = subprocess.run([TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"],
                                   capture_output=True, text=True).stdout.strip() if with_torch else ""
    lines = [f"# dlc vs onnxruntime {ort.__version__}"
             + (f" and PyTorch {torch_version} (TorchScript, frozen)" if with_torch else "")
             + ": latency, batch as in the model",
             "",
             f"{datetime.date.today()}, {platform.node()}, {os.cpu_count()} cores, target `{args.target}`, "
             f"{args.rounds} alternating rounds per side, each the median of at least {args.repeat} calls "
             f"and {args.min_ms:g} ms after warm-up (at least 3 calls and a quarter of that time); the best "
             f"round of each side. Command: `python3 bench/bench_latency.py --models {args.models} "
             f"--threads {args.threads} --repeat {args.repeat} --rounds {args.rounds} --min-ms {args.min_ms:g}`. "
             "max abs diff: dlc's output against onnxruntime's (PyTorch runs other, random weights); "
             "relative: that over onnxruntime's largest output magnitude. Round trip: a cache line's "
             "between the first two CPUs before and after the row's rounds (`bench/core_to_core.c`), "
             "the state the multi-thread rows ran in (on a VM, 50-65 ns with its two vCPUs close, "
             "300 and more apart).",
             "",
             "| model | threads | dlc ms | onnxruntime ms | PyTorch ms | dlc / onnxruntime | dlc / PyTorch "
             "| dlc compile s | max abs diff | relative | round trip ns |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    def ms(v):  # four significant digits for the 20-us models
        return f"{v:.3f}" if v >= 1 else f"{v:.4g}"
    for name, threads, d, o, t, c, e, rel, trips in rows:
        tcell, tratio = (ms(t), f"{d / t:.2f}") if t != float("inf") else ("-", "-")
        lines.append(f"| {name} | {threads} | {ms(d)} | {ms(o)} | {tcell} | {d / o:.2f} | {tratio} "
                     f"| {c:.1f} | {e:.1e} | {rel:.1e} | {round_trips(trips)} |")
    if c_rows:
        lines += ["",
                  "Per-call latency through the C APIs (`bench/c_latency.c`): both libraries in one C "
                  "process, on preallocated inputs and outputs (onnxruntime's `Run` with OrtValues over "
                  "them), the same rounds and timing rule as above.",
                  "",
                  "| model | threads | dlc us | onnxruntime us | dlc / onnxruntime | max abs diff "
                  "| round trip ns |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name, threads, c, trips in c_rows:
            lines.append(f"| {name} | {threads} | {c['dlc_us']:.2f} | {c['ort_us']:.2f} "
                         f"| {c['dlc_us'] / c['ort_us']:.2f} | {c['max_abs_diff']:.1e} "
                         f"| {round_trips(trips)} |")
    write_report("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
