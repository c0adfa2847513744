#!/usr/bin/env python3
"""Per-layer time of a dlc library next to onnxruntime's, by conv class.

  bench/layer_compare.py MODEL.onnx LIB.so [--threads 1] [--seconds 6]

dlc side: `perf record -e cpu-clock` (Debian's linux-perf; a software clock,
so it works without hardware counters) over a loop of dlc_run calls in a
child process; each sample's symbol is a parallel loop's outlined function
(`dlc_parallel_tramp_N_<node>`), named after the ONNX node whose op it ends
with, and its share of the samples times the per-call latency is its time.
onnxruntime side: its profiler's per-node kernel times (median over calls);
its fused nodes are named after their last op too (`clip_10_nchwc`).
Both are mapped to the conv or gemm heading their chain of BatchNorm, Relu,
Clip and Add, and summed by class (weight shape, kernel, stride, output
map), with GFLOP/s from the conv's FLOPs. "other" is what maps to no conv:
pools, the entry's serial code (the whole of a small model, LeNet's or the
MLP's, whose loops are not outlined), the runtime, Python's side of each
call (perf samples only the loop of calls: it starts with its events off
and the loop turns them on through perf's control FIFO). The profiler
slows onnxruntime's per-call time: for models of microseconds its line is
no latency.

One thread's samples are one thread's time; at two threads the dlc column
is thread time (both threads' samples), so compare it with twice the
latency. Session 41 used it to find where MobileNetV2 and ResNet-50 lose
to onnxruntime (README, Status).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import shape_inference  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dlc_ctypes import Model, median_ms, model_arrays  # noqa: E402

FUSED = ("BatchNormalization", "Relu", "Clip", "Add")


def dims(value_info):
    return [d.dim_value for d in value_info.type.tensor_type.shape.dim]


def conv_classes(path):
    """(class of each conv/gemm, its FLOPs, node name -> the conv heading it)."""
    graph = shape_inference.infer_shapes(onnx.load(path)).graph
    shapes = {v.name: dims(v) for v in list(graph.value_info) + list(graph.output) +
              list(graph.input)}
    shapes.update({i.name: list(i.dims) for i in graph.initializer})
    consumers = collections.defaultdict(list)
    for n in graph.node:
        for i in n.input:
            consumers[i].append(n)
    desc, flops, head = {}, {}, {}
    for n in graph.node:
        if n.op_type not in ("Conv", "Gemm"):
            continue
        w, o = shapes[n.input[1]], shapes[n.output[0]]
        attrs = {a.name: a for a in n.attribute}
        if n.op_type == "Conv":
            group = attrs["group"].i if "group" in attrs else 1
            stride = attrs["strides"].ints[0] if "strides" in attrs else 1
            desc[n.name] = "%dx%d k%d s%d%s -> %s" % (
                w[1] * group, w[0], w[2], stride, " dw" if group > 1 else "",
                "x".join(map(str, o[2:])))
            flops[n.name] = 2 * int(np.prod(o)) * int(np.prod(w[1:]))
        else:
            desc[n.name] = "gemm %s" % w
            flops[n.name] = 2 * int(np.prod(w)) * o[0]
        cur, chain = n, [n.name]
        while (len(consumers[cur.output[0]]) == 1 and
               consumers[cur.output[0]][0].op_type in FUSED):
            cur = consumers[cur.output[0]][0]
            chain.append(cur.name)
        for name in chain:
            head[name] = n.name
    return desc, flops, head


def perf_command(fifos, command):
    """Sends `command` to the perf record that started this process, through
    its control FIFO, and waits for its acknowledgement."""
    ctl, ack = fifos.split(",")
    with open(ctl, "w") as c:
        c.write(command + "\n")
    with open(ack) as a:
        a.readline()


def call_loop(path, lib, threads, seconds, fifos):
    """dlc_run calls for `seconds` (the child process perf records). With
    `fifos` (perf's control and acknowledgement FIFOs), perf samples only
    the calls: Python's start, onnx's import and the model's load had been
    "other" too (ResNet-50: about 1.2 of its 1.5 ms of "other" a call, page
    clearing and the interpreter; session 62)."""
    feeds, outs = model_arrays(onnx.load(path).graph)
    with Model(lib, threads) as m:
        call = m.runner(feeds, outs)
        call()
        if fifos:
            perf_command(fifos, "enable")
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            call()
        if fifos:
            perf_command(fifos, "disable")


def dlc_side(path, lib, threads, seconds, head):
    """Per-call ms of the library (timed outside perf, which slows it) and
    each conv's ms (its share of the samples x ms x threads)."""
    if not shutil.which("perf"):
        sys.exit("layer_compare.py: no `perf` (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        # Events off until the loop says it has started (--delay=-1 and
        # the control FIFOs, perf 5.10 and later).
        fifos = [os.path.join(tmp, name) for name in ("ctl", "ack")]
        for fifo in fifos:
            os.mkfifo(fifo)
        record = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000",
                                 "-o", data, "--delay=-1", f"--control=fifo:{fifos[0]},{fifos[1]}",
                                 sys.executable, os.path.abspath(__file__), path, lib,
                                 "--threads", str(threads), "--seconds", str(seconds), "--loop",
                                 "--fifos", ",".join(fifos)],
                                capture_output=True, text=True)
        if record.returncode != 0:
            sys.exit("layer_compare.py: perf record (5.10 or later, for --control) or the "
                     f"loop under it failed:\n{record.stderr.strip()[-2000:]}")
        report = subprocess.run(["perf", "report", "-i", data, "--sort", "sym", "--stdio"],
                                check=True, capture_output=True, text=True).stdout
    feeds, outs = model_arrays(onnx.load(path).graph)
    with Model(lib, threads) as m:
        ms = median_ms(m.runner(feeds, outs), 10, min_ms=1000)
    share, other = collections.Counter(), 0.0
    for line in report.splitlines():
        hit = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if not hit:
            continue
        name = re.sub(r"^dlc_parallel_(tramp|body)_\d+_?", "", hit.group(2))
        if name in head:
            share[head[name]] += float(hit.group(1))
        else:
            other += float(hit.group(1))
    scale = ms * threads / 100
    return ms, {k: v * scale for k, v in share.items()}, other * scale


def ort_side(path, threads, seconds, head):
    """Per-call ms of onnxruntime and each conv's median kernel ms."""
    with tempfile.TemporaryDirectory() as tmp:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.enable_profiling = True
        so.profile_file_prefix = os.path.join(tmp, "ort")
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        feeds = {i.name: np.random.default_rng(0).uniform(-1, 1, i.shape).astype(np.float32)
                 for i in sess.get_inputs()}
        for _ in range(10):
            sess.run(None, feeds)
        start, calls = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            sess.run(None, feeds)
            calls += 1
        ms = (time.perf_counter() - start) * 1e3 / calls
        with open(sess.end_profiling()) as f:
            events = json.load(f)
    per_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[re.sub(r"_nchwc$", "", e["name"][:-len("_kernel_time")])].append(e["dur"])
    times, other = collections.Counter(), 0.0
    for name, durs in per_node.items():
        median = sorted(durs)[len(durs) // 2] / 1e3
        if name in head:
            times[head[name]] += median
        else:
            other += median
    return ms, times, other


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("lib")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=6)
    ap.add_argument("--loop", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--fifos", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.loop:
        return call_loop(args.model, args.lib, args.threads, args.seconds, args.fifos)
    desc, flops, head = conv_classes(args.model)
    dlc_ms, dlc_t, dlc_other = dlc_side(args.model, args.lib, args.threads, args.seconds, head)
    ort_ms, ort_t, ort_other = ort_side(args.model, args.threads, args.seconds, head)
    print(f"dlc {dlc_ms:.3f} ms a call, onnxruntime {ort_ms:.3f} ms a call, "
          f"{args.threads} thread(s)")
    classes = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
    for name, d in desc.items():
        c = classes[d]
        c[0] += dlc_t.get(name, 0.0)
        c[1] += ort_t.get(name, 0.0)
        c[2] += 1
        c[3] += flops[name]
    print("| layer class | n | dlc ms | onnxruntime ms | ratio | dlc GFLOP/s | onnxruntime GFLOP/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for d, (a, b, n, f) in sorted(classes.items(), key=lambda kv: -kv[1][0]):
        ratio = f"{a / b:.2f}" if b else "-"
        print(f"| {d} | {n} | {a:.3f} | {b:.3f} | {ratio} | "
              f"{f / a / 1e6 if a else 0:.0f} | {f / b / 1e6 if b else 0:.0f} |")
    print(f"| other | | {dlc_other:.3f} | {ort_other:.3f} | | | |")


if __name__ == "__main__":
    main()
