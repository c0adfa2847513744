"""Checks dlc-autodiff's gradients against central finite differences in
float64.

Each case is a small float64 ONNX model whose initializers are the
parameters. It is compiled with `dlc compile --train --optimizer sgd` and
driven through the C API: one step at learning rate 1 from p gives
p - grad (exact to float64 rounding), and the loss the step reports at
p +- eps*e_i gives (L+ - L-) / 2 eps. Then SGD (momentum, weight decay)
and Adam libraries take three steps, checked against torch.optim's update
rules written in numpy on those gradients (relative 1e-9). Random inputs and parameters, never
zeros; a case passes when every checked coordinate agrees within
|analytic - numeric| <= atol + rtol * |numeric|.

usage: gradcheck.py --dlc DLC --work DIR [--filter NAME]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from dlc_ctypes import TrainModel  # noqa: E402

RTOL, ATOL, EPS = 1e-6, 1e-8, 1e-6
DLC = "dlc"
COORDS = 12  # coordinates checked per parameter
THREADS = 0  # all cores


class Case:
    def __init__(self, name, seed):
        self.name, self.rng = name, np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def param(self, shape, scale=0.5):
        self.count += 1
        n = f"p{self.count}"
        self.inits.append(numpy_helper.from_array(self.rng.normal(0, scale, shape), n))
        return n

    def const(self, values, dtype=np.int64):
        self.count += 1
        n = f"c{self.count}"
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype), n))
        return n

    def node(self, op, inputs, **attrs):
        self.count += 1
        out = f"{op.lower()}{self.count}"
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def model(self, x_shape, y, y_shape):
        g = helper.make_graph(self.nodes, self.name,
                              [helper.make_tensor_value_info("x", TensorProto.DOUBLE, x_shape)],
                              [helper.make_tensor_value_info(y, TensorProto.DOUBLE, y_shape)],
                              self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 8
        return m


def cases():
    """(model, loss, x shape, labels) for each op family dlc-autodiff covers."""
    out = []

    c = Case("gemm_relu_sce", 1)  # Gemm (transB), Relu, softmax-cross-entropy
    h = c.node("Relu", [c.node("Gemm", ["x", c.param((5, 4)), c.param((5,))], transB=1)])
    y = c.node("Gemm", [h, c.param((5, 3)), c.param((1, 3))], alpha=0.7, beta=1.3)
    out.append((c.model([6, 4], y, [6, 3]), "softmax-cross-entropy", (6, 4)))

    c = Case("gemm_transA_sigmoid_tanh", 2)
    h = c.node("Sigmoid", [c.node("Gemm", [c.param((4, 6)), "x"], transA=1)])
    y = c.node("Tanh", [c.node("MatMul", [h, c.param((5, 3))])])
    out.append((c.model([4, 5], y, [6, 3]), "mse", (4, 5)))

    c = Case("conv_maxpool", 3)  # strides, pads, dilations, groups, overlapping pools
    h = c.node("Conv", ["x", c.param((4, 2, 3, 3))], pads=[1, 0, 2, 1], strides=[2, 1])
    h = c.node("Conv", [h, c.param((4, 2, 2, 2)), c.param((4,))], group=2, dilations=[2, 1])
    h = c.node("MaxPool", [h], kernel_shape=[3, 2], strides=[1, 2], pads=[1, 0, 1, 1])
    y = c.node("Flatten", [h], axis=1)
    out.append((c.model([2, 2, 9, 7], y, [2, 36]), "mse", (2, 2, 9, 7)))

    # Weight and bias gradients summed in vector lanes (OH*OW = 16: 8 lanes;
    # 12: 4 lanes); the case above takes the scalar path (30 and 15).
    c = Case("conv_lane_sums", 10)
    h = c.node("Relu", [c.node("Conv", ["x", c.param((4, 3, 3, 3)), c.param((4,))])])
    h = c.node("Conv", [h, c.param((3, 4, 2, 1)), c.param((3,))])
    y = c.node("Flatten", [h], axis=1)
    out.append((c.model([2, 3, 6, 6], y, [2, 36]), "mse", (2, 3, 6, 6)))

    # Pools whose windows tile the input (kernel == stride, no padding):
    # gradients by division, one window per input position. The conv's
    # input gradient (stride 1, uneven pads) is the col2im of shifted adds,
    # its windows clipped at the pads.
    c = Case("tiling_pools", 11)
    h = c.node("Conv", ["x", c.param((3, 2, 3, 3)), c.param((3,))],
               pads=[1, 0, 1, 2])  # [2,3,8,8]
    h = c.node("Conv", [h, c.param((3, 3, 3, 2))], pads=[1, 0, 1, 1])  # [2,3,8,8]
    mp = c.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])  # [2,3,4,4]
    ap = c.node("AveragePool", [h], kernel_shape=[4, 2], strides=[4, 2])  # [2,3,2,4]
    y = c.node("Concat", [c.node("Flatten", [mp], axis=1), c.node("Flatten", [ap], axis=1)],
               axis=1)
    out.append((c.model([2, 2, 8, 8], y, [2, 72]), "mse", (2, 2, 8, 8)))

    c = Case("broadcast_arith", 4)  # Add/Sub/Mul/Div with numpy broadcasting
    a = c.node("Mul", ["x", c.param((1, 4))])
    b = c.node("Sub", [c.param((3, 1)), a])
    d = c.node("Div", [b, c.node("Add", [c.param((4,)), c.const(np.full(4, 3.0), np.float64)])])
    y = c.node("Add", [d, c.param((3, 4))])
    out.append((c.model([3, 4], y, [3, 4]), "mse", (3, 4)))

    c = Case("softmax_shape_ops", 5)  # Transpose, Reshape, Concat, Softmax, LogSoftmax, Clip
    h = c.node("MatMul", ["x", c.param((4, 6))])
    t = c.node("Transpose", [c.node("Reshape", [h, c.const([2, 3, 4])])], perm=[1, 0, 2])
    s = c.node("Softmax", [t], axis=2)
    l = c.node("LogSoftmax", [c.node("Clip", [t, c.const(-0.8, np.float64), c.const(0.9, np.float64)])],
               axis=1)
    y = c.node("Reshape", [c.node("Concat", [s, l], axis=2), c.const([3, 16])])
    out.append((c.model([4, 4], y, [3, 16]), "mse", (4, 4)))

    c = Case("global_pool_reduce", 6)  # GlobalAveragePool, ReduceMean, ReduceSum
    h = c.node("Conv", ["x", c.param((3, 2, 2, 2)), c.param((3,))])
    g = c.node("Flatten", [c.node("GlobalAveragePool", [h])], axis=1)
    r = c.node("ReduceMean", [h], axes=[2, 3], keepdims=0)
    y = c.node("Add", [c.node("Mul", [g, r]), c.node("ReduceSum", [h, c.const([2, 3])], keepdims=0)])
    y = c.node("Gemm", [y, c.param((4, 3))], transB=1)
    out.append((c.model([2, 2, 4, 4], y, [2, 4]), "softmax-cross-entropy", (2, 2, 4, 4)))

    c = Case("avgpool_batched_matmul", 8)  # AveragePool (pads, ceil), batched MatMul, Sqrt
    h = c.node("Conv", ["x", c.param((3, 2, 2, 2))])  # [2,3,6,5]
    a1 = c.node("AveragePool", [h], kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1])
    a2 = c.node("AveragePool", [h], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 0, 0],
                ceil_mode=1, count_include_pad=1)  # [2,3,3,3]
    m1 = c.node("MatMul", [c.node("Reshape", [a1, c.const([2, 9, 5])]), c.param((2, 5, 4))])
    m2 = c.node("MatMul", [c.param((4, 9)), m1])  # 2-D lhs broadcast over the batch
    sq = c.node("Sqrt", [c.node("Add", [c.node("Mul", [m2, m2]), c.const(0.5, np.float64)])])
    y = c.node("Concat", [c.node("Reshape", [sq, c.const([2, 16])]),
                          c.node("Reshape", [a2, c.const([2, 27])])], axis=1)
    out.append((c.model([2, 2, 7, 6], y, [2, 43]), "mse", (2, 2, 7, 6)))

    c = Case("batchnorm_train", 9)  # BatchNormalization with batch statistics
    h = c.node("Conv", ["x", c.param((3, 2, 2, 2))])
    mean, var = c.param((3,)), c.const(c.rng.uniform(0.5, 2, 3), np.float64)
    h = c.node("BatchNormalization", [h, c.param((3,)), c.param((3,)), mean, var],
               epsilon=1e-3, momentum=0.8)
    y = c.node("Gemm", [c.node("Flatten", [c.node("Relu", [h])], axis=1), c.param((48, 4))])
    out.append((c.model([3, 2, 5, 5], y, [3, 4]), "softmax-cross-entropy", (3, 2, 5, 5)))
    return out


def check_batchnorm(work):
    """Training-mode BatchNormalization against numpy: the loss uses the
    batch's statistics, the running ones move by ONNX's momentum rule, and
    inference afterwards normalizes with the running ones."""
    c = Case("batchnorm_numpy", 12)
    scale, bias = c.param((3,)), c.param((3,))
    mean, var = c.param((3,)), c.const(c.rng.uniform(0.5, 2, 3), np.float64)
    y = c.node("BatchNormalization", ["x", scale, bias, mean, var], epsilon=1e-3, momentum=0.8)
    model = c.model([4, 3, 5, 5], y, [4, 3, 5, 5])
    path, lib = os.path.join(work, "bn.onnx"), os.path.join(work, "bn.so")
    onnx.save(model, path)
    compile_train(path, lib, "mse", "--optimizer", "sgd")
    rng = np.random.default_rng(3)
    x, labels = rng.normal(1, 2, (4, 3, 5, 5)), rng.normal(0, 1, (4, 3, 5, 5))
    with TrainModel(lib) as m:
        if sorted(m.trainable) != sorted([scale, bias]):
            return f"trainable parameters {m.trainable}, expected scale and bias only"
        p = {n: m.get(n) for n in m.params}
        loss = m.stepper({"x": x, "labels": labels})(0.0)
        bc = lambda v: v.reshape(1, 3, 1, 1)  # noqa: E731
        # ONNX's float attributes are float32
        eps, momentum = float(np.float32(1e-3)), float(np.float32(0.8))
        mu, sigma2 = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
        yref = bc(p[scale]) * (x - bc(mu)) / np.sqrt(bc(sigma2) + eps) + bc(p[bias])
        want = {"loss": np.mean((yref - labels) ** 2),
                mean: momentum * p[mean] + (1 - momentum) * mu,
                var: momentum * p[var] + (1 - momentum) * sigma2}
        got = {"loss": loss, mean: m.get(mean), var: m.get(var)}
        out = {"y": np.empty_like(x)}
        m.runner({"x": x}, {y: out["y"]})()
        want["inference"] = (bc(p[scale]) * (x - bc(want[mean])) /
                             np.sqrt(bc(want[var]) + eps) + bc(p[bias]))
        got["inference"] = out["y"]
    for k in want:
        err = np.abs(np.asarray(got[k]) - want[k]).max()
        if err > 1e-12 * max(1.0, np.abs(want[k]).max()):
            return f"{k}: off by {err:.3g}"
    return "ok (loss, running mean/var and inference output match numpy)"


def check_dropout(work):
    """Training-mode Dropout: y = Dropout(x * p), mse loss. A step at
    learning rate 1 gives the gradient 2/n (m s x p - L) m s x (s = 1/(1 -
    ratio)), which is 0 exactly where the mask m dropped: from it the mask is
    read back and checked (fraction dropped, exact kept values, the loss);
    the next step draws a different mask; inference is the identity."""
    ratio, shape = 0.3, (40, 100)
    c = Case("dropout_numpy", 13)
    p = c.param(shape)
    y = c.node("Dropout", [c.node("Mul", ["x", p]), c.const(ratio, np.float64)])
    model = c.model(list(shape), y, list(shape))
    path, lib = os.path.join(work, "dropout.onnx"), os.path.join(work, "dropout.so")
    onnx.save(model, path)
    compile_train(path, lib, "mse", "--optimizer", "sgd")
    rng = np.random.default_rng(5)
    x, labels = rng.normal(0, 1, shape), rng.normal(0, 1, shape)
    s, n = 1 / (1 - float(np.float32(ratio))), x.size  # the ratio is kept as a float32
    masks = []
    with TrainModel(lib) as m:
        p0 = m.get(p)
        step = m.stepper({"x": x, "labels": labels})
        for _ in range(2):
            loss = step(1.0)
            grad = p0 - m.get(p)
            keep = grad != 0
            masks.append(keep)
            expect = 2 / n * (s * x * p0 - labels) * s * x
            if np.abs(grad[keep] - expect[keep]).max() > 1e-12 * np.abs(expect).max():
                return "kept elements' gradients differ from 2/n (s x p - L) s x"
            ref_loss = np.mean((keep * s * x * p0 - labels) ** 2)
            if abs(loss - ref_loss) > 1e-12 * ref_loss:
                return f"loss {loss:.12g}, with the mask read back {ref_loss:.12g}"
            m.set(p, p0)
        out = np.empty(shape)
        m.runner({"x": x}, {y: out})()
    dropped = [1 - k.mean() for k in masks]
    if any(abs(d - ratio) > 0.03 for d in dropped):  # 4000 draws: 0.007 std
        return f"dropped fractions {dropped}, expected {ratio}"
    same = (masks[0] == masks[1]).mean()  # independent masks agree on 0.58
    if same > 0.65:
        return f"two steps' masks agree on {same:.2f} of elements"
    if np.abs(out - x * p0).max() > 1e-12:
        return "inference output is not x * p"
    return (f"ok (dropped {dropped[0]:.3f} and {dropped[1]:.3f}, masks agree on "
            f"{same:.2f}, inference is the identity)")


def labels_for(model, loss, rng):
    out = model.graph.output[0].type.tensor_type.shape
    dims = [d.dim_value for d in out.dim]
    if loss == "softmax-cross-entropy":
        return rng.integers(0, dims[1], dims[0]).astype(np.int64)
    return rng.normal(0, 1, dims)


def check(model, loss, x_shape, work):
    name = model.graph.name
    path = os.path.join(work, name + ".onnx")
    onnx.save(model, path)
    lib = os.path.join(work, name + ".so")
    try:
        compile_train(path, lib, loss, "--optimizer", "sgd")
    except RuntimeError as e:
        return f"compile failed: {e}"
    rng = np.random.default_rng(7)
    x = rng.normal(0, 1, x_shape)
    labels = labels_for(model, loss, rng)
    worst = 0.0
    with TrainModel(lib, THREADS) as m:
        step = m.stepper({"x": x, "labels": labels})
        p0 = {n: m.get(n) for n in m.params}
        step(1.0)  # p - grad
        grads = {n: p0[n] - m.get(n) for n in m.trainable}
        for n in m.params:
            m.set(n, p0[n])
        for n in m.trainable:
            p = p0[n]
            flat = p.reshape(-1)
            for i in rng.choice(flat.size, min(COORDS, flat.size), replace=False):
                losses = []
                for sign in (1, -1):
                    q = flat.copy()
                    q[i] += sign * EPS
                    m.set(n, q)
                    losses.append(step(0.0))
                m.set(n, p)
                numeric = (losses[0] - losses[1]) / (2 * EPS)
                analytic = grads[n].reshape(-1)[i]
                err = abs(analytic - numeric)
                if err > ATOL + RTOL * abs(numeric):
                    return (f"{n}[{i}]: autodiff {analytic:.9g}, finite differences "
                            f"{numeric:.9g}")
                worst = max(worst, err / (ATOL + RTOL * abs(numeric)))
    return f"ok (worst error {worst:.2f} of tolerance)"


def compile_train(path, lib, loss, *flags):
    r = subprocess.run([DLC, "compile", path, "--train", "--loss", loss, *flags, "-o", lib],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())


def check_optimizer(model, loss, x_shape, work, name, flags, update):
    """Three steps of the optimizer library against `update(p, g, state, t)`
    in numpy float64, the gradients g taken from a plain lr-1 SGD library at
    the same parameters."""
    path = os.path.join(work, model.graph.name + ".onnx")
    onnx.save(model, path)
    plain, opt = os.path.join(work, "plain.so"), os.path.join(work, name + ".so")
    compile_train(path, plain, loss, "--optimizer", "sgd")
    compile_train(path, opt, loss, *flags)
    rng = np.random.default_rng(11)
    x = rng.normal(0, 1, x_shape)
    labels = labels_for(model, loss, rng)
    lr, worst = 0.1, 0.0
    with TrainModel(plain) as g_lib, TrainModel(opt) as o_lib:
        g_step = g_lib.stepper({"x": x, "labels": labels})
        o_step = o_lib.stepper({"x": x, "labels": labels})
        state = {}
        for t in range(1, 4):
            p = {n: o_lib.get(n) for n in o_lib.params}
            for n in p:
                g_lib.set(n, p[n])
            g_step(1.0)
            for n in p:
                update(p[n], p[n] - g_lib.get(n), state.setdefault(n, {}), t, lr)
            o_step(lr)
            for n in p:
                err = np.abs(o_lib.get(n) - state[n]["expect"]).max()
                if err > 1e-12 + 1e-9 * np.abs(state[n]["expect"]).max():
                    return f"step {t}, {n}: off by {err:.3g}"
                worst = max(worst, err)
    return f"ok (max abs error {worst:.2g})"


def sgd_update(momentum, wd):
    def update(p, g, s, t, lr):
        g = g + wd * p
        s["v"] = momentum * s.get("v", 0.0) + g
        s["expect"] = p - lr * s["v"]
        return s["expect"]
    return update


def adam_update(wd, b1=0.9, b2=0.999, eps=1e-8):
    def update(p, g, s, t, lr):
        g = g + wd * p
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        s["expect"] = p - lr * (s["m"] / (1 - b1 ** t)) / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps)
        return s["expect"]
    return update


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    global DLC
    DLC = args.dlc
    os.makedirs(args.work, exist_ok=True)
    failed = 0
    for model, loss, x_shape in cases():
        if args.filter not in model.graph.name:
            continue
        result = check(model, loss, x_shape, args.work)
        ok = result.startswith("ok")
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {model.graph.name}: {result}")
    for name, fn in [("batchnorm_numpy", check_batchnorm), ("dropout_numpy", check_dropout)]:
        if args.filter not in name:
            continue
        result = fn(args.work)
        ok = result.startswith("ok")
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {result}")
    # The optimizers' updates, on the first case's model and gradients.
    model, loss, x_shape = cases()[0]
    for name, flags, update in [
            ("sgd_momentum_wd", ["--optimizer", "sgd", "--momentum", "0.9", "--weight-decay", "0.01"],
             sgd_update(0.9, 0.01)),
            ("adam_wd", ["--optimizer", "adam", "--weight-decay", "0.01"], adam_update(0.01))]:
        if args.filter not in name:
            continue
        result = check_optimizer(model, loss, x_shape, args.work, name, flags, update)
        ok = result.startswith("ok")
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {result}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
