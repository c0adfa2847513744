#!/usr/bin/env python3
"""Would fusing MobileNetV2's expand 1x1 conv and depthwise conv per band of
rows pay? An experiment on the ONNX graph, no compiler change: each named
block (expand Conv ... depthwise Conv ... its Clip) is rewritten as bands of
output rows, each band a Slice of the block's input rows (with the halo the
3x3 window needs), the block's nodes on it (the depthwise conv padded only
at the map's own edges) and one Concat of the bands. dlc compiles each band
as its own expand GEMM and depthwise loop, so a band's expanded activations
(731 KB at 112x112 in 8-row bands, against 4.8 MB whole) stay in L2 between
the two, as a band-fusing pass would keep them.

  .venv/bin/python bench/band_split.py [--threads 1] [--rounds 3]
      [--blocks conv_29:clip_47:8,...] [--out bench/results/band_split.md]

Checks the banded model against onnxruntime on the original, then times
the original and the banded dlc builds and onnxruntime, interleaved in one
process (best of --rounds rounds, each the median of at least 10 calls and
1 s).
"""
import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from dlc_ctypes import Model, median_ms, write_report  # noqa: E402

# expand conv : the depthwise block's last output : output rows per band.
# The 112x112 block, the 56x56 stride-1 block, the 56x56 stride-2 block.
DEFAULT_SETS = ["conv_29:clip_47:8", "conv_29:clip_47:8,conv_56:clip_74:14,conv_84:clip_102:7"]


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def split_block(model, first, last_out, rows):
    g = model.graph
    inferred = shape_inference.infer_shapes(model).graph
    shapes = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
              for vi in list(inferred.value_info) + list(g.input) + list(g.output)}
    nodes = list(g.node)
    i0 = next(i for i, n in enumerate(nodes) if n.name == first)
    i1 = next(i for i, n in enumerate(nodes) if last_out in n.output)
    chain = nodes[i0:i1 + 1]
    dw = next(n for n in chain if n.op_type == "Conv" and attr(n, "group", 1) > 1)
    assert attr(dw, "kernel_shape", [3, 3]) == [3, 3] and attr(dw, "pads") == [1, 1, 1, 1]
    x = chain[0].input[0]
    height = shapes[x][2]
    stride = attr(dw, "strides")[0]
    out_rows = shapes[dw.output[0]][2]
    outs, at = [], i0
    for b, o0 in enumerate(range(0, out_rows, rows)):
        o1 = min(out_rows, o0 + rows)
        lo, hi = o0 * stride - 1, (o1 - 1) * stride + 1  # input rows, halo included
        top, bottom = int(lo < 0), int(hi > height - 1)
        lo, hi = max(lo, 0), min(hi, height - 1)
        pre = f"band{b}_{first}_"
        g.initializer.extend([numpy_helper.from_array(np.array([v], np.int64), pre + n)
                              for v, n in ((lo, "start"), (hi + 1, "end"), (2, "axis"))])
        new = [helper.make_node("Slice", [x, pre + "start", pre + "end", pre + "axis"],
                                [pre + "x"], name=pre + "slice")]
        renamed = {x: pre + "x"}
        for n in chain:
            c = onnx.NodeProto()
            c.CopyFrom(n)
            c.name = pre + n.name
            c.input[:] = [renamed.get(i, i) for i in n.input]
            c.output[:] = [pre + o for o in n.output]
            renamed.update({o: pre + o for o in n.output})
            if n is dw:
                for a in c.attribute:
                    if a.name == "pads":
                        a.ints[:] = [top, 1, bottom, 1]
            new.append(c)
        outs.append(renamed[last_out])
        for n in new:
            g.node.insert(at, n)
            at += 1
    g.node.insert(at, helper.make_node("Concat", outs, [last_out], axis=2,
                                       name=f"bands_{first}_concat"))
    for n in chain:
        g.node.remove(n)


def fastest_ms(fn, seconds=1.0):
    """The fastest of the calls made in `seconds` (after 3 warm-up calls):
    on this shared VM it moves far less between runs than a median."""
    for _ in range(3):
        fn()
    best, end = float("inf"), time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=f"{ROOT}/build/models/mobilenetv2.onnx")
    ap.add_argument("--dlc", default=f"{ROOT}/build/tools/dlc/dlc")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--blocks", action="append",
                    help="comma-separated FIRST:LAST_OUTPUT:ROWS; repeat for several builds")
    ap.add_argument("--out", default=f"{HERE}/results/band_split.md")
    args = ap.parse_args()
    sets = args.blocks or DEFAULT_SETS
    tmp = tempfile.mkdtemp()
    rng = np.random.default_rng(0)
    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    x = rng.uniform(-1, 1, inp.shape).astype(np.float32)
    ref = sess.run(None, {inp.name: x})[0]
    out_name = sess.get_outputs()[0].name
    del sess
    builds = [("whole", args.model)]
    for k, spec in enumerate(sets):
        m = onnx.load(args.model)
        for block in spec.split(","):
            first, last, rows = block.split(":")
            split_block(m, first, last, int(rows))
        onnx.checker.check_model(m)
        path = f"{tmp}/banded{k}.onnx"
        onnx.save(m, path)
        builds.append((spec, path))
    libs = []
    for k, (name, path) in enumerate(builds):
        lib = f"{tmp}/build{k}.so"
        subprocess.run([args.dlc, "compile", path, "-o", lib], check=True)
        libs.append(lib)
    times = {name: [] for name, _ in builds}
    times["onnxruntime"] = []
    fastest = {name: [] for name in times}
    err = {}
    for _ in range(args.rounds):
        for (name, _), lib in zip(builds, libs):
            out = np.empty(ref.shape, np.float32)
            with Model(lib, args.threads) as m:
                run = m.runner({inp.name: x}, {out_name: out})
                times[name].append(median_ms(run, 10, min_ms=1000))
                fastest[name].append(fastest_ms(run))
            err[name] = float(np.max(np.abs(out - ref)))
        sess = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
        call = lambda: sess.run(None, {inp.name: x})  # noqa: E731
        times["onnxruntime"].append(median_ms(call, 10, min_ms=1000))
        fastest["onnxruntime"].append(fastest_ms(call))
        del sess
        gc.collect()
    base, base_fast = min(times["whole"]), min(fastest["whole"])
    lines = [f"# MobileNetV2 with expand + depthwise blocks in bands of rows (bench/band_split.py)",
             "",
             f"{args.threads} thread(s), {args.rounds} interleaved rounds: median, the best "
             "round's median of at least 10 calls and 1 s; fastest, the fastest call of all "
             "rounds (1 s of calls a round). Blocks: FIRST:LAST_OUTPUT:ROWS per band.",
             "",
             "| build | median ms | / whole | / onnxruntime | fastest ms | / whole "
             "| / onnxruntime | max abs diff |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    ort_ms, ort_fast = min(times["onnxruntime"]), min(fastest["onnxruntime"])
    for name, t in times.items():
        e = f"{err[name]:.1e}" if name in err else "-"
        f = min(fastest[name])
        lines.append(f"| {name} | {min(t):.3f} | {min(t) / base:.3f} | {min(t) / ort_ms:.3f} "
                     f"| {f:.3f} | {f / base_fast:.3f} | {f / ort_fast:.3f} | {e} |")
    write_report("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
