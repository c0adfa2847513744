#!/usr/bin/env python3
"""Where a model's time goes in the thread pool, loop by loop.

  bench/pool_stats.py MODEL.onnx [--threads 1,2] [--seconds 5] [--dlc build/tools/dlc/dlc]
                     [--top 25] [--compile-args "--cores 4"]

Builds the runtime with -DDLC_POOL_STATS (runtime/thread_pool.c's per-loop
clock) into a temporary directory, compiles the model against it through
DLC_RUNTIME_DIR, calls it in a loop for the given time, and prints per
parallel loop (the outlined function, named after its ONNX node), per call:
its wall time from the dispatch to its end, the share of that the caller and
worker 1 spent running chunks, the caller's wait for the last chunk after its
own, and worker 1's start after the dispatch. The first line sums the loops:
where the threads were busy nearly all of each loop's wall time, what a
second thread loses against one is in the chunks' own work (cache traffic
between cores, shared L3), not in sharing the work out. With `--threads
1,N` the model runs at one thread first (each loop inline, its wall time
only) and each loop's speedup at N is listed beside it.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def build_runtime(out_dir):
    """libdlc_runtime.a with the per-loop clock, in out_dir, beside the
    runtime's headers (`dlc compile` reads model_abi.h from there too)."""
    for name in os.listdir(os.path.join(ROOT, "runtime")):
        if name.endswith(".h"):
            shutil.copy(os.path.join(ROOT, "runtime", name), out_dir)
    cc = shutil.which("clang-19") or "cc"
    flags = ["-O2", "-fPIC", "-fvisibility=hidden", "-std=gnu11", "-D_GNU_SOURCE",
             "-DDLC_POOL_STATS", f"-I{ROOT}/runtime", f"-I{ROOT}/include"]
    objects = []
    for src in ("runtime.c", "thread_pool.c", "huge_pages.c", "cuda.c"):
        obj = os.path.join(out_dir, src.replace(".c", ".o"))
        subprocess.run([cc, *flags, "-c", os.path.join(ROOT, "runtime", src), "-o", obj],
                       check=True)
        objects.append(obj)
    subprocess.run(["ar", "rcs", os.path.join(out_dir, "libdlc_runtime.a"), *objects], check=True)


def loop_names(lib):
    """Offset in the library -> outlined loop's name (its ONNX node)."""
    names = {}
    for line in subprocess.run(["nm", lib], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith("dlc_parallel_tramp_"):
            names[int(parts[0], 16)] = parts[2][len("dlc_parallel_tramp_"):]
    return names


def run_calls(model, lib, threads, seconds, stats_path):
    """Calls the model in a child process (its exit writes the stats)."""
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); import onnx\n"
        "from dlc_ctypes import Model, model_arrays\n"
        "g = onnx.load(sys.argv[2]).graph; feeds, out = model_arrays(g)\n"
        "with Model(sys.argv[3], int(sys.argv[4])) as m:\n"
        "    run = m.runner(feeds, out); run()\n"
        "    calls, end = 0, time.perf_counter() + float(sys.argv[5])\n"
        "    start = time.perf_counter()\n"
        "    while time.perf_counter() < end or calls < 3:\n"
        "        run(); calls += 1\n"
        "    print((time.perf_counter() - start) / calls * 1e3)\n")
    env = dict(os.environ, DLC_POOL_STATS=stats_path)
    out = subprocess.run([sys.executable, "-c", code, HERE, model, lib, str(threads),
                          str(seconds)], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"pool_stats: the loop of calls failed:\n{out.stderr}")
    return float(out.stdout.strip().splitlines()[-1])


def collect(args, work, lib, threads):
    """(ms a call, TSC cycles a ms, rows) of one loop of calls."""
    stats_path = os.path.join(work, f"stats{threads}.txt")
    ms = run_calls(args.model, lib, threads, args.seconds, stats_path)
    names = loop_names(lib)
    rows = {}
    with open(stats_path) as f:
        cycles_per_ms = float(f.readline().split()[1]) * 1e6
        for line in f:
            off, *v = line.split()
            rows[names.get(int(off, 16), off)] = tuple(map(int, v))
    return ms, cycles_per_ms, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--threads", default="1,2",
                    help="thread counts, the last the one reported; with 1 first, each "
                         "loop's speedup over one thread")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--dlc", default=os.path.join(ROOT, "build", "tools", "dlc", "dlc"))
    ap.add_argument("--top", type=int, default=25, help="loops listed, longest first")
    ap.add_argument("--compile-args", default="",
                    help="more `dlc compile` arguments, one string (\"--cores 4\")")
    args = ap.parse_args()
    try:
        counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        counts = []
    if not counts or len(counts) > 2 or counts[-1] < 2 or (len(counts) == 2 and counts[0] != 1):
        sys.exit("pool_stats: --threads is N or 1,N with N at least 2 (one thread never "
                 "dispatches)")
    with tempfile.TemporaryDirectory() as work:
        build_runtime(work)
        lib = os.path.join(work, "model.so")
        if subprocess.run([args.dlc, "compile", args.model, "-o", lib,
                           *args.compile_args.split()],
                          env=dict(os.environ, DLC_RUNTIME_DIR=work)).returncode != 0:
            sys.exit("pool_stats: dlc compile failed")
        one = collect(args, work, lib, 1) if counts[0] == 1 else None
        ms, cycles_per_ms, rows = collect(args, work, lib, counts[-1])
    if not rows:
        sys.exit(f"pool_stats: {os.path.basename(args.model)} dispatched no parallel loop")
    # Each loop's calls include the warm-up call: per-call figures divide
    # by the loop's own count.
    total = [sum(r[i] for r in rows.values()) for i in range(2, 7)]
    wall, cwork, cwait, wwork, wdelay = total
    calls = max(r[0] for r in rows.values())
    threads = counts[-1]
    print(f"{os.path.basename(args.model)}: {ms:.3f} ms a call at {threads} threads, "
          f"{len(rows)} loops; in loops {wall / calls / cycles_per_ms:.3f} ms a call "
          f"(TSC {cycles_per_ms / 1e3:.0f} MHz)"
          + (f"; at 1 thread {one[0]:.3f} ms a call" if one else ""))
    print(f"of the loops' wall time: caller running chunks {cwork / wall:.1%}, waiting "
          f"{cwait / wall:.1%}; worker 1 running chunks {wwork / wall:.1%}, starting "
          f"{wdelay / wall:.1%} after the dispatch")
    us = cycles_per_ms / 1e3

    def one_thread_us(name):
        r = one[2].get(name) if one else None
        return r[2] / r[0] / (one[1] / 1e3) if r else None

    print("\n| loop | iterations | us a call | caller busy | worker 1 busy | caller waits us "
          "| worker 1 starts us |" + (" us at 1 thread | speedup |" if one else ""))
    print("|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if one else ""))
    for name, (n, iters, w, cw, cwt, ww, wd) in sorted(rows.items(),
                                                       key=lambda r: -r[1][2])[:args.top]:
        line = (f"| {name} | {iters // n} | {w / n / us:.1f} | {cw / w:.0%} | {ww / w:.0%} "
                f"| {cwt / n / us:.2f} | {wd / n / us:.2f} |")
        if one:
            t1 = one_thread_us(name)
            line += f" {t1:.1f} | {t1 / (w / n / us):.2f} |" if t1 else " - | - |"
        print(line)


if __name__ == "__main__":
    main()
