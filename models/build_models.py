#!/usr/bin/env python3
"""Builds the ONNX models dlc's tests, examples and benchmarks use.

Every model is made here with the `onnx` helper API and seeded random
weights, so nothing large is committed and every run gives the same bytes.

  python3 models/build_models.py OUT_DIR

writes, under OUT_DIR:
  mlp.onnx, lenet.onnx                 small networks (784-256-128-10; LeNet-5 style)
  resnet18.onnx, resnet50.onnx, mobilenetv2.onnx  torchvision architectures, batch 1, 224x224
  resnet18_b8.onnx, mobilenetv2_b8.onnx  the same at batch 8
  mobilenetv2_folded.onnx              MobileNetV2 with its BatchNorms folded into the convs'
                                       weights and biases, as PyTorch exports it
  mlp_dynamic.onnx                     batch dim is the symbol "N"
  lenet_b3.onnx                        batch 3: fully connected layers as matrix-vector
                                       products of 3 rows
  logreg_train.onnx, mlp_train.onnx, lenet_train.onnx  the training issue's networks,
                                       batch 64, logits out, PyTorch's default init
  ops/*.onnx                           one small model per importer feature
  external/lenet_external.onnx         LeNet with its weights in an external-data file
  bad/*                                malformed or unsupported models for error tests
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8  # what Debian's libonnx 1.12 checker accepts


class Graph:
    """Accumulates nodes and initializers with unique names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, prefix, array):
        n = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), n))
        return n

    def ints(self, prefix, values):
        n = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), n))
        return n

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, pad=0, group=1, bias=True):
        fan_in = cin // group * k * k
        w = self.weight("w", self.rng.normal(0, np.sqrt(2.0 / fan_in), (cout, cin // group, k, k)))
        ins = [x, w]
        if bias:
            ins.append(self.weight("b", self.rng.normal(0, 0.05, cout)))
        return self.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4, group=group)

    def bn(self, x, c):
        r = self.rng
        return self.node("BatchNormalization", [
            x, self.weight("gamma", r.uniform(0.5, 1.5, c)), self.weight("beta", r.normal(0, 0.1, c)),
            self.weight("mean", r.normal(0, 0.1, c)), self.weight("var", r.uniform(0.5, 1.5, c))],
            epsilon=1e-5)

    def gemm(self, x, nin, nout):
        w = self.weight("fc_w", self.rng.normal(0, np.sqrt(2.0 / nin), (nout, nin)))
        b = self.weight("fc_b", self.rng.normal(0, 0.05, nout))
        return self.node("Gemm", [x, w, b], transB=1)

    def relu6(self, x):
        return self.node("Clip", [x, self.weight("min", np.float32(0)), self.weight("max", np.float32(6))])

    def model(self, name, inputs, outputs, opset=OPSET):
        g = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="dlc models/build_models.py")
        m.ir_version = IR_VERSION
        return m


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def mlp(batch=1, symbolic=False):
    g = Graph(1)
    x = g.gemm("input", 784, 256)
    x = g.node("Relu", [x])
    x = g.gemm(x, 256, 128)
    x = g.node("Relu", [x])
    x = g.gemm(x, 128, 10)
    y = g.node("Softmax", [x], axis=1)
    b = "N" if symbolic else batch
    return g.model("mlp", [tensor("input", [b, 784])], [tensor(y, [b, 10])])


def lenet(batch=1):
    g = Graph(2)
    x = g.conv("input", 1, 6, 5, pad=2)
    x = g.node("MaxPool", [g.node("Relu", [x])], kernel_shape=[2, 2], strides=[2, 2])
    x = g.conv(x, 6, 16, 5)
    x = g.node("MaxPool", [g.node("Relu", [x])], kernel_shape=[2, 2], strides=[2, 2])
    x = g.node("Flatten", [x], axis=1)
    x = g.node("Relu", [g.gemm(x, 400, 120)])
    x = g.node("Relu", [g.gemm(x, 120, 84)])
    y = g.gemm(x, 84, 10)
    return g.model("lenet", [tensor("input", [batch, 1, 28, 28])], [tensor(y, [batch, 10])])


class TrainGraph(Graph):
    """Layers initialised as PyTorch's defaults do (uniform, bound 1/sqrt(fan_in)
    for weights and biases), so that dlc and PyTorch train from the same start."""

    def uniform(self, prefix, fan_in, shape):
        bound = 1.0 / np.sqrt(fan_in)
        return self.weight(prefix, self.rng.uniform(-bound, bound, shape))

    def linear(self, x, nin, nout):
        w, b = self.uniform("fc_w", nin, (nout, nin)), self.uniform("fc_b", nin, nout)
        return self.node("Gemm", [x, w, b], transB=1)

    def conv5(self, x, cin, cout, pad):
        fan_in = cin * 25
        w, b = self.uniform("w", fan_in, (cout, cin, 5, 5)), self.uniform("b", fan_in, cout)
        return self.node("Conv", [x, w, b], kernel_shape=[5, 5], pads=[pad] * 4)


def train_models(batch=64):
    """The three networks of the training issue, returning logits."""
    g = TrainGraph(10)
    logreg = g.model("logreg", [tensor("input", [batch, 784])],
                     [tensor(g.linear("input", 784, 10), [batch, 10])])
    g = TrainGraph(11)
    x = g.node("Relu", [g.linear("input", 784, 256)])
    x = g.node("Relu", [g.linear(x, 256, 128)])
    mlp_t = g.model("mlp_train", [tensor("input", [batch, 784])],
                    [tensor(g.linear(x, 128, 10), [batch, 10])])
    g = TrainGraph(12)
    x = g.node("MaxPool", [g.node("Relu", [g.conv5("input", 1, 6, 2)])], kernel_shape=[2, 2],
               strides=[2, 2])
    x = g.node("MaxPool", [g.node("Relu", [g.conv5(x, 6, 16, 0)])], kernel_shape=[2, 2],
               strides=[2, 2])
    x = g.node("Flatten", [x], axis=1)
    x = g.node("Relu", [g.linear(x, 400, 120)])
    x = g.node("Relu", [g.linear(x, 120, 84)])
    lenet_t = g.model("lenet_train", [tensor("input", [batch, 1, 28, 28])],
                      [tensor(g.linear(x, 84, 10), [batch, 10])])
    return {"logreg_train": logreg, "mlp_train": mlp_t, "lenet_train": lenet_t}


def resnet_stem(g):
    """torchvision ResNets' stem: 7x7/2 conv, BN, ReLU, 3x3/2 max pool."""
    x = g.node("Relu", [g.bn(g.conv("input", 3, 64, 7, 2, 3, bias=False), 64)])
    return g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])


def resnet_head(g, x, features, name, batch):
    """Global average pool, flatten, 1000-way classifier; the finished model."""
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    y = g.gemm(x, features, 1000)
    return g.model(name, [tensor("input", [batch, 3, 224, 224])], [tensor(y, [batch, 1000])])


def resnet18(batch=1):
    """torchvision.models.resnet18: BasicBlocks [2, 2, 2, 2], BN after every conv."""
    g = Graph(3)
    x = resnet_stem(g)
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            y = g.node("Relu", [g.bn(g.conv(x, cin, cout, 3, stride, 1, bias=False), cout)])
            y = g.bn(g.conv(y, cout, cout, 3, 1, 1, bias=False), cout)
            if stride != 1 or cin != cout:
                x = g.bn(g.conv(x, cin, cout, 1, stride, 0, bias=False), cout)
            x = g.node("Relu", [g.node("Add", [y, x])])
            cin = cout
    return resnet_head(g, x, 512, "resnet18", batch)


def resnet50(batch=1):
    """torchvision.models.resnet50: Bottlenecks [3, 4, 6, 3] (1x1, 3x3 with the stride, 1x1 x4)."""
    g = Graph(5)
    x = resnet_stem(g)
    cin = 64
    for stage, (width, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)]):
        for block in range(blocks):
            stride = 2 if stage > 0 and block == 0 else 1
            cout = 4 * width
            y = g.node("Relu", [g.bn(g.conv(x, cin, width, 1, bias=False), width)])
            y = g.node("Relu", [g.bn(g.conv(y, width, width, 3, stride, 1, bias=False), width)])
            y = g.bn(g.conv(y, width, cout, 1, bias=False), cout)
            if stride != 1 or cin != cout:
                x = g.bn(g.conv(x, cin, cout, 1, stride, 0, bias=False), cout)
            x = g.node("Relu", [g.node("Add", [y, x])])
            cin = cout
    return resnet_head(g, x, 2048, "resnet50", batch)


def mobilenetv2(batch=1):
    """torchvision.models.mobilenet_v2: inverted residuals, depthwise 3x3, ReLU6."""
    g = Graph(4)
    x = g.relu6(g.bn(g.conv("input", 3, 32, 3, 2, 1, bias=False), 32))
    cin = 32
    for t, c, n, s in [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2],
                       [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1]]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x
            if t != 1:
                y = g.relu6(g.bn(g.conv(y, cin, hidden, 1, bias=False), hidden))
            y = g.relu6(g.bn(g.conv(y, hidden, hidden, 3, stride, 1, group=hidden, bias=False), hidden))
            y = g.bn(g.conv(y, hidden, c, 1, bias=False), c)
            x = g.node("Add", [x, y]) if stride == 1 and cin == c else y
            cin = c
    x = g.relu6(g.bn(g.conv(x, cin, 1280, 1, bias=False), 1280))
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    x = g.node("Dropout", [x])
    y = g.gemm(x, 1280, 1000)
    return g.model("mobilenetv2", [tensor("input", [batch, 3, 224, 224])], [tensor(y, [batch, 1000])])


def fold_batchnorm(model):
    """`model` with each BatchNormalization that is its Conv's only reader
    folded into that Conv's weights and bias, as torch.onnx.export writes a
    model in eval mode: every conv then has a bias and no BatchNorm."""
    g = model.graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1
    convs = {n.output[0]: n for n in g.node if n.op_type == "Conv"}
    nodes, folded = [], {}
    for n in g.node:
        conv = convs.get(n.input[0]) if n.op_type == "BatchNormalization" else None
        if conv is None or readers[conv.output[0]] != 1:
            nodes.append(n)
            continue
        gamma, beta, mean, var = (init[i].astype(np.float64) for i in n.input[1:5])
        eps = next((a.f for a in n.attribute if a.name == "epsilon"), 1e-5)
        scale = gamma / np.sqrt(var + eps)
        w = init[conv.input[1]].astype(np.float64)
        b = init[conv.input[2]].astype(np.float64) if len(conv.input) > 2 else 0.0
        folded[conv.input[1]] = (w * scale[:, None, None, None]).astype(np.float32)
        bias = conv.output[0] + "_bias"
        folded[bias] = ((b - mean) * scale + beta).astype(np.float32)
        conv.input[:] = [conv.input[0], conv.input[1], bias]
        conv.output[0] = n.output[0]
    used = {i for n in nodes for i in n.input}
    inits = [numpy_helper.from_array(a, name) for name, a in {**init, **folded}.items()
             if name in used]
    del g.node[:], g.initializer[:]
    g.node.extend(nodes)
    g.initializer.extend(inits)
    return model


def op_models():
    """Small models, one per importer feature, for lit tests and numerics."""
    models = {}

    g = Graph(10)  # Conv with auto_pad, grouped conv, AveragePool count_include_pad, Concat
    a = g.node("Conv", ["x", g.weight("w", g.rng.normal(0, 0.3, (8, 4, 3, 3)))],
               kernel_shape=[3, 3], auto_pad="SAME_UPPER", strides=[2, 2])
    b = g.conv("x", 4, 8, 3, 2, 1, group=2)
    c = g.node("Concat", [a, b], axis=1)
    d = g.node("AveragePool", [c], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
               count_include_pad=1, ceil_mode=1)
    e = g.node("MaxPool", [c], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1)
    f = g.node("Mul", [g.node("Sigmoid", [d]), g.node("Tanh", [e])])
    models["conv_pool_concat"] = g.model("conv_pool_concat", [tensor("x", [1, 4, 9, 9])],
                                         [tensor(f, [1, 16, 3, 3])])

    g = Graph(11)  # MatMul broadcasting, Transpose, Reshape with 0/-1 via a shape subgraph, Sub/Div
    t = g.node("Transpose", ["a"], perm=[0, 2, 1])  # 2x4x3
    m = g.node("MatMul", [t, g.weight("w", g.rng.normal(0, 1, (3, 5)))])  # 2x4x5
    shp = g.node("Shape", [m])
    first = g.node("Gather", [shp, g.ints("i0", [0])], axis=0)
    newshape = g.node("Concat", [first, g.ints("m1", [-1])], axis=0)
    r = g.node("Reshape", [m, newshape])  # 2x20
    r2 = g.node("Reshape", [r, g.ints("s", [0, 4, -1])])  # 2x4x5
    bm = g.node("MatMul", [r2, g.weight("b", g.rng.normal(0, 1, (2, 5, 3)))])  # 2x4x3
    s = g.node("Div", [g.node("Sub", [bm, g.weight("c", g.rng.normal(0, 1, (3,)))]),
                       g.weight("d", g.rng.uniform(1, 2, (4, 1)))])
    y = g.node("Softmax", [s], axis=1)
    models["matmul_reshape"] = g.model("matmul_reshape", [tensor("a", [2, 3, 4])],
                                       [tensor(y, [2, 4, 3])])

    g = Graph(40)  # MatMul weight panels (dlc-pack-matmul-weights) on 12 rows: N = 48 takes
    # one-vector panels on AVX-512 (a multiple of 16 lanes, not of 32) and
    # two-vector ones on AVX2; N = 64 two-vector panels on both.
    h = g.node("Relu", [g.node("MatMul", ["a", g.weight("w1", g.rng.normal(0, 0.2, (64, 48)))])])
    y = g.node("MatMul", [h, g.weight("w2", g.rng.normal(0, 0.2, (48, 64)))])
    models["matmul_panels"] = g.model("matmul_panels", [tensor("a", [12, 64])], [tensor(y, [12, 64])])

    g = Graph(12)  # opset-11 Softmax (coerce to 2-D), Gemm with alpha/beta/transA, Identity
    gm = g.node("Gemm", ["a", g.weight("b", g.rng.normal(0, 1, (6, 5))),
                         g.weight("c", g.rng.normal(0, 1, (1, 5)))], transA=1, alpha=0.5, beta=2.0)
    y = g.node("Softmax", [g.node("Identity", [gm])], axis=0)
    models["gemm_softmax11"] = g.model("gemm_softmax11", [tensor("a", [6, 3])], [tensor(y, [3, 5])],
                                       opset=11)
    g = Graph(14)  # Resize: separable linear upsampling, nearest to sizes, antialiased cubic
    up = g.node("Resize", ["x", "", g.weight("scales", [1, 1, 2, 1.5])], mode="linear")  # 1x3x10x9
    near = g.node("Resize", [up, "", "", g.ints("sizes", [1, 3, 7, 4])], mode="nearest",
                  coordinate_transformation_mode="asymmetric", nearest_mode="round_prefer_ceil")
    down = g.node("Resize", ["x", "", "", g.ints("sizes", [1, 3, 3, 4])], mode="cubic", antialias=1)
    models["resize"] = g.model("resize", [tensor("x", [1, 3, 5, 6])],
                               [tensor(near, [1, 3, 7, 4]), tensor(down, [1, 3, 3, 4])], opset=19)
    g = Graph(15)  # compositions: ConvTranspose, 1-D Conv, CumSum, Pad reflect and run-time fill, Einsum
    ct = g.node("ConvTranspose", ["x", g.weight("w", g.rng.normal(0, 0.3, (3, 2, 3, 3)))],
                strides=[2, 2], pads=[1, 0, 0, 1], output_padding=[1, 0], group=1)  # 1x2x11x10
    row = g.node("Reshape", [ct, g.ints("s", [1, 2, 110])])
    c1 = g.node("Conv", [row, g.weight("w1", g.rng.normal(0, 0.3, (4, 2, 5)))],
                strides=[3], pads=[2, 1], dilations=[2])  # 1x4x35
    cs = g.node("CumSum", [c1, g.ints("axis", [2])], reverse=1)
    refl = g.node("Pad", ["x", g.ints("p", [0, 0, 2, 1, 0, 0, 1, 3])], mode="reflect")
    fill = g.node("Pad", ["x", g.ints("p", [0, 1, 1, 0, 0, 0, 2, 2]), "v"], mode="constant")
    es = g.node("Einsum", ["x", "x"], equation="nchw,ncwk->nhck")  # batch n,c; contract w
    models["compositions"] = g.model(
        "compositions", [tensor("x", [1, 3, 5, 5]), tensor("v", [])],
        [tensor(cs, [1, 4, 35]), tensor(refl, [1, 3, 8, 9]), tensor(fill, [1, 4, 8, 7]),
         tensor(es, [1, 5, 3, 5])], opset=18)
    g = Graph(16)  # 3x3 stride-1 convs dlc runs as Winograd: F(4x4) tiles overhanging a
    # 15x17 map (zero rows and columns past the input), batch 2, bias and
    # Relu; F(2x2) tiles overhanging a 7x8 map; F(4x4) dividing a 16x16 map
    a = g.node("Relu", [g.conv("x", 24, 20, 3, 1, 1)])  # 2x20x15x17
    small = g.conv(g.node("MaxPool", [a], kernel_shape=[2, 2], strides=[2, 2]), 20, 32, 3, 1, 1)
    even = g.conv("y", 16, 24, 3, 1, 1, bias=False)  # 2x24x16x16
    models["winograd"] = g.model("winograd", [tensor("x", [2, 24, 15, 17]), tensor("y", [2, 16, 16, 16])],
                                 [tensor(a, [2, 20, 15, 17]), tensor(small, [2, 32, 7, 8]),
                                  tensor(even, [2, 24, 16, 16])])
    g = Graph(19)  # small stride-1 convs dlc runs as outer products per row (no im2col):
    # filters x pixels tiles (5 filters, rows of 11 widened to whole vectors,
    # 3 channels, Clip in registers; 7 filters, no bias), filter-lane tiles
    # (16 filters over rows of 9, Sigmoid), one input channel (5x5, Relu)
    a = g.relu6(g.conv("x", 3, 5, 3, 1, 1))  # 2x5x9x11
    b = g.node("Sigmoid", [g.conv(a, 5, 16, 3)])  # 2x16x7x9
    c = g.conv(b, 16, 7, 2, bias=False)  # 2x7x6x8
    e = g.node("Relu", [g.conv("y", 1, 4, 5, 1, 2)])  # 1x4x12x12
    models["small_convs"] = g.model("small_convs", [tensor("x", [2, 3, 9, 11]), tensor("y", [1, 1, 12, 12])],
                                    [tensor(c, [2, 7, 6, 8]), tensor(e, [1, 4, 12, 12])])
    g = Graph(24)  # strided convs dlc runs as outer products per row: an image stem
    # over 2^19 multiply-adds (3 channels, 7x7, stride 2, rows of 33 pixels in
    # 8-filter segments on AVX-512, BatchNorm and Relu in registers), a small
    # 3x3 stride-2 conv (rows of 20, BatchNorm and Clip), a stride-3 conv
    stem = g.node("Relu", [g.bn(g.conv("x", 3, 16, 7, 2, 3, bias=False), 16)])  # 2x16x32x33
    s2 = g.relu6(g.bn(g.conv("y", 3, 8, 3, 2, 1), 8))  # 1x8x20x20
    s3 = g.conv("y", 3, 5, 3, 3)  # 1x5x13x13
    models["strided_convs"] = g.model(
        "strided_convs", [tensor("x", [2, 3, 64, 66]), tensor("y", [1, 3, 40, 40])],
        [tensor(stem, [2, 16, 32, 33]), tensor(s2, [1, 8, 20, 20]), tensor(s3, [1, 5, 13, 13])])
    g = Graph(26)  # GEMMs in transposed tiles (rows of 7 pixels, a 7x7 map's rows): a
    # 3x3 and a 1x1 stride-2 conv whose im2col gathers straight into the
    # row tiles (BatchNorm and Relu after the first), and a 512-deep 1x1
    # conv whose input is transposed into them in blocks of rows
    t1 = g.node("Relu", [g.bn(g.conv("z", 256, 32, 3, 2, 1), 32)])  # 1x32x7x7
    t2 = g.conv("z", 256, 64, 1, 2)  # 1x64x7x7
    t3 = g.conv("q", 512, 64, 1)  # 1x64x7x7
    models["row_tile_convs"] = g.model(
        "row_tile_convs", [tensor("z", [1, 256, 14, 14]), tensor("q", [1, 512, 7, 7])],
        [tensor(t1, [1, 32, 7, 7]), tensor(t2, [1, 64, 7, 7]), tensor(t3, [1, 64, 7, 7])])
    g = Graph(23)  # convs with a bias (BatchNorm folded in, as exported models have them)
    # as packed GEMMs: the bias moves into the activation after them (a 1x1
    # conv and Clip, 32 filters padded to 36 rows; a 3x3 stride-2 conv and
    # Relu); a conv read by two ops gets its bias from an add of its own
    a = g.relu6(g.conv("x", 16, 32, 1))  # 1x32x14x14
    b = g.node("Relu", [g.conv(a, 32, 12, 3, 2, 1)])  # 1x12x7x7
    c = g.conv(a, 32, 24, 1)  # 1x24x14x14
    d = g.node("Add", [g.node("Sigmoid", [c]), c])
    models["conv_bias_act"] = g.model("conv_bias_act", [tensor("x", [1, 16, 14, 14])],
                                      [tensor(b, [1, 12, 7, 7]), tensor(d, [1, 24, 14, 14])])
    # Transcendental activations as vector polynomials (dlc-approximate-math)
    # over a wide range of arguments (inputs in [-1, 1) scaled by 90: exp
    # and Sigmoid near f32's overflow and underflow, Tanh and Erf saturated),
    # SiLU, GELU and Softplus; Softmax and LogSoftmax over 1000 classes (max
    # and sum in 8 lanes) and over 37 (scalar chains, one vector and a tail).
    g = Graph(27)
    wide = g.node("Mul", ["x", g.weight("scale", [90.0])])  # 4x1000
    half = g.node("Mul", ["x", g.weight("scale", [4.0])])
    outs = [g.node("Sigmoid", [wide]), g.node("Tanh", [half]), g.node("Exp", [g.node("Mul", ["x", g.weight("scale", [87.0])])]),
            g.node("Mul", [half, g.node("Sigmoid", [half])]),  # SiLU
            g.node("Mul", [half, g.node("Add", [g.node("Erf", [half]), g.weight("one", [1.0])])]),  # GELU (unscaled)
            g.node("Softplus", [wide]), g.node("Log", [g.node("Abs", [wide])]),
            g.node("Softmax", [wide], axis=1), g.node("LogSoftmax", [half], axis=1),
            g.node("Softmax", ["y"], axis=1)]
    models["activations"] = g.model(
        "activations", [tensor("x", [4, 1000]), tensor("y", [3, 37])],
        [tensor(o, [3, 37] if o == outs[-1] else [4, 1000]) for o in outs])
    # A 2x2 stride-2 ConvTranspose whose GEMM builds its columns per tile of
    # two output rows on the stack (229 KB, 56 tiles): on one thread all
    # tiles run in one call, where each tile's block once took new stack
    # (12.8 MB, over the 8 MB default) instead of reusing one.
    g = Graph(28)
    up = g.node("ConvTranspose", ["x", g.weight("w", g.rng.standard_normal([64, 32, 2, 2]) * 0.1)],
                strides=[2, 2], kernel_shape=[2, 2])
    models["conv_transpose_tiles"] = g.model("conv_transpose_tiles", [tensor("x", [1, 64, 56, 56])],
                                             [tensor(up, [1, 32, 112, 112])])
    # Embedding rows (Gather, axis 0, negative indices among them): each
    # row one vector load per 16 lanes (dlc-lower-vectors' lane-uniform
    # index), plus a graph input.
    g = Graph(29)
    table = g.weight("table", g.rng.standard_normal([500, 48]))
    rows = g.node("Gather", [table, g.ints("ids", [[-3, 0, 499, 17, 250], [1, -500, 42, 42, 7]])],
                  axis=0)
    models["gather_rows"] = g.model("gather_rows", [tensor("x", [2, 5, 48])],
                                    [tensor(g.node("Add", [rows, "x"]), [2, 5, 48])])
    # GlobalAveragePool summing in vector lanes: a squeeze-and-excitation
    # gate over 16x16 maps (256 pixels, 8 lanes) and a pool over 14x14 (196,
    # 4 lanes).
    g = Graph(20)
    gate = g.node("Sigmoid", [g.node("GlobalAveragePool", ["x"])])  # 1x8x1x1
    se = g.node("Mul", ["x", gate])  # 1x8x16x16
    c = g.conv(se, 8, 8, 3)  # 1x8x14x14
    y = g.node("Add", [g.node("GlobalAveragePool", [c]), g.node("GlobalAveragePool", [se])])
    models["global_pool"] = g.model("global_pool", [tensor("x", [1, 8, 16, 16])],
                                    [tensor(y, [1, 8, 1, 1])])
    # Window ops dlc-slide-taps-in-registers reads as row vectors on AVX-512
    # (16 lanes; AVX2 keeps padded taps): on 15x15 maps (rows of one
    # vector) a 3x3 depthwise conv with BatchNorm and Clip at strides 1 and
    # 2 and a 3x3 max pool (the pad's -inf shifted in); on 33x33 maps
    # (pieces of 16, 16 and 1 lanes) 5x5 depthwise convs at strides 1 and 2
    # (column shifts of -2 to 2) and a 3x3 stride-2 max pool whose 17
    # outputs a row go in two pieces, the second's lane 0 the first's last
    # column. On 7x7 maps (rows of 7: two channels a vector, one a half) a
    # 3x3 depthwise conv with BatchNorm and Clip, a 5x5 one (shifts of up
    # to 2 within each half) and a 3x3 max pool. And a 3x3 max pool at
    # strides 2 down and 1 across the 33x33 map: rows one a step, each
    # handing its last input row's taps to the next. On 14x14 maps at
    # stride 2 (rows of 14 down to 7: two channels a vector, each input
    # row a vector of its own, the pad's value in its spare lanes) a 3x3
    # depthwise conv with BatchNorm and Clip and a 3x3 max pool. Batch 2.
    g = Graph(25)
    n1 = g.relu6(g.bn(g.conv("x", 24, 24, 3, 1, 1, group=24), 24))  # 2x24x15x15
    n2 = g.conv("x", 24, 24, 3, 2, 1, group=24)  # 2x24x8x8
    n3 = g.node("MaxPool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])  # 2x24x15x15
    w1 = g.node("Relu", [g.conv("y", 16, 16, 5, 1, 2, group=16)])  # 2x16x33x33
    w2 = g.conv("y", 16, 16, 5, 2, 2, group=16, bias=False)  # 2x16x17x17
    w3 = g.node("MaxPool", ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    p1 = g.relu6(g.bn(g.conv("z", 24, 24, 3, 1, 1, group=24), 24))  # 2x24x7x7
    p2 = g.conv("z", 24, 24, 5, 1, 2, group=24)  # 2x24x7x7
    p3 = g.node("MaxPool", ["z"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])  # 2x24x7x7
    w4 = g.node("MaxPool", ["y"], kernel_shape=[3, 3], strides=[2, 1], pads=[1, 1, 1, 1])
    h1 = g.relu6(g.bn(g.conv("v", 24, 24, 3, 2, 1, group=24), 24))  # 2x24x7x7
    h2 = g.node("MaxPool", ["v"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    models["window_taps"] = g.model(
        "window_taps",
        [tensor("x", [2, 24, 15, 15]), tensor("y", [2, 16, 33, 33]), tensor("z", [2, 24, 7, 7]),
         tensor("v", [2, 24, 14, 14])],
        [tensor(n1, [2, 24, 15, 15]), tensor(n2, [2, 24, 8, 8]), tensor(n3, [2, 24, 15, 15]),
         tensor(w1, [2, 16, 33, 33]), tensor(w2, [2, 16, 17, 17]), tensor(w3, [2, 16, 17, 17]),
         tensor(p1, [2, 24, 7, 7]), tensor(p2, [2, 24, 7, 7]), tensor(p3, [2, 24, 7, 7]),
         tensor(w4, [2, 16, 17, 33]), tensor(h1, [2, 24, 7, 7]), tensor(h2, [2, 24, 7, 7])])
    # A batch-separable net whose batch of 4 overflows the cache (5.3 MB
    # after its first conv): dlc compiles it at batch 1 and runs it an image
    # at a time. batch_mixed ends in a Softmax over the batch, which must
    # keep the batch whole.
    # batch_split_skip adds to the logits a value that goes around the
    # Gemm (each image's mean activation), so the batch tail starts before
    # both branches; batch_split_around adds the input's mean, a value
    # around every layer, so there is no tail: each image's run writes its
    # outputs.
    for name, mixed in (("batch_split", False), ("batch_mixed", True),
                        ("batch_split_skip", False), ("batch_split_around", False)):
        g = Graph(17)
        a = g.node("Relu", [g.bn(g.conv("x", 8, 16, 3, 1, 1), 16)])  # 4x16x144x144
        b = g.node("Relu", [g.conv(g.node("MaxPool", [a], kernel_shape=[2, 2], strides=[2, 2]),
                                   16, 32, 3, 2, 1)])  # 4x32x36x36
        logits = g.gemm(g.node("Flatten", [g.node("GlobalAveragePool", [b])]), 32, 10)
        if name in ("batch_split_skip", "batch_split_around"):
            around = b if name == "batch_split_skip" else "x"
            mean = g.node("Flatten", [g.node("ReduceMean", [around], axes=[1, 2, 3])])  # 4x1
            logits = g.node("Add", [logits, mean])
        y = g.node("Softmax", [logits], axis=0 if mixed else 1)
        models[name] = g.model(name, [tensor("x", [4, 8, 144, 144])], [tensor(y, [4, 10])])
    # Rows as images over 4 MB (2048 x 512): each image's Gemm is a
    # matrix-vector product, so the batch stays whole (one GEMM reusing
    # every weight across the rows).
    g = Graph(18)
    y = g.node("Relu", [g.gemm("x", 512, 512)])
    models["batch_rows"] = g.model("batch_rows", [tensor("x", [2048, 512])],
                                   [tensor(y, [2048, 512])])
    # Shape given as a graph input (as ONNX's node tests do): compiled with
    # `dlc compile --bind shape=FILE.npy`.
    node = helper.make_node("Reshape", ["data", "shape"], ["reshaped"], name="reshape")
    graph = helper.make_graph([node], "reshape_shape_input",
                              [tensor("data", [2, 3, 4]),
                               helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
                              [tensor("reshaped", [6, 4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = IR_VERSION
    models["reshape_shape_input"] = m
    return models


def bad_models(out):
    """Inputs that must give a clear error, never a crash."""
    os.makedirs(out, exist_ok=True)
    good = mlp().SerializeToString()
    open(f"{out}/truncated.onnx", "wb").write(good[: len(good) // 3])
    open(f"{out}/garbled.onnx", "wb").write(bytes(np.random.default_rng(5).integers(0, 256, 4096, dtype=np.uint8)))
    open(f"{out}/empty.onnx", "wb").write(b"")

    def one(name, nodes, inputs, outputs, inits=(), opset=OPSET, ir=IR_VERSION):
        g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = ir
        onnx.save(m, f"{out}/{name}.onnx")

    x = tensor("x", [1, 4])
    one("unknown_op", [helper.make_node("Relu", ["x"], ["r"], name="first"),
                       helper.make_node("FancyOp", ["r"], ["y"], name="fancy", domain="com.example")],
        [x], [tensor("y", [1, 4])])
    one("unsupported_op", [helper.make_node("Relu", ["x"], ["r"], name="first"),
                           helper.make_node("Det", ["r"], ["y"], name="det")],
        [x], [tensor("y", [1, 4])])
    one("unsupported_attr", [helper.make_node("Conv", ["img", "w"], ["y"], name="c3d",
                                              kernel_shape=[1, 1], foo=3)],
        [tensor("img", [1, 1, 4, 4])], [tensor("y", [1, 1, 4, 4])],
        [numpy_helper.from_array(np.ones((1, 1, 1, 1), np.float32), "w")])
    one("unsupported_dtype", [helper.make_node("Relu", ["xi"], ["y"], name="r")],
        [helper.make_tensor_value_info("xi", TensorProto.COMPLEX64, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.COMPLEX64, [1, 4])])
    one("relu_on_ints", [helper.make_node("Relu", ["xi"], ["y"], name="r")],
        [helper.make_tensor_value_info("xi", TensorProto.INT32, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 4])])
    one("missing_initializer", [helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")],
        [x], [tensor("y", [1, 4])], opset=18)
    one("dynamic_dim", [helper.make_node("Relu", ["x"], ["y"], name="r")],
        [tensor("x", ["batch", 4])], [tensor("y", ["batch", 4])])
    one("bad_shapes", [helper.make_node("Add", ["x", "z"], ["y"], name="add_mismatch")],
        [x, tensor("z", [1, 3])], [tensor("y", [1, 4])], opset=18)
    # An f64 operand beside f32 ones (NumPy 2 makes a float32 array times a
    # float64 scalar float64): ONNX types them with one T. The conv and the
    # batch norm reached lowering (a reshape's verifier error; a crash).
    f64 = np.random.default_rng(6).random
    img = tensor("img", [1, 2, 4, 4])
    one("mixed_conv", [helper.make_node("Conv", ["img", "w"], ["y"], name="conv_f64_w",
                                        kernel_shape=[1, 1])],
        [img], [tensor("y", [1, 3, 4, 4])], [numpy_helper.from_array(f64((3, 2, 1, 1)), "w")])
    one("mixed_gemm", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc_f64_bias")],
        [x], [tensor("y", [1, 3])],
        [numpy_helper.from_array(f64((4, 3)).astype(np.float32), "w"),
         numpy_helper.from_array(f64(3), "b")])
    one("mixed_batch_norm", [helper.make_node("BatchNormalization", ["img", "s", "b", "m", "v"],
                                              ["y"], name="bn_f64_scale")],
        [img], [tensor("y", [1, 2, 4, 4])],
        [numpy_helper.from_array(f64(2), "s")] +
        [numpy_helper.from_array(f64(2).astype(np.float32), n) for n in ("b", "m", "v")])
    one("mixed_prelu", [helper.make_node("PRelu", ["img", "slope"], ["y"], name="prelu_f64")],
        [img], [tensor("y", [1, 2, 4, 4])],
        [numpy_helper.from_array(f64((1, 2, 1, 1)), "slope")])
    one("mixed_sum", [helper.make_node("Sum", ["x", "x64"], ["y"], name="sum_f64")],
        [x, helper.make_tensor_value_info("x64", TensorProto.DOUBLE, [1, 4])],
        [tensor("y", [1, 4])])
    # An output declared f32 that the graph computes in f16, at an opset
    # past what libonnx's checker knows (which catches it up to 17).
    one("output_type_mismatch", [helper.make_node("Relu", ["x16"], ["y"], name="r")],
        [helper.make_tensor_value_info("x16", TensorProto.FLOAT16, [1, 4])],
        [tensor("y", [1, 4])], opset=18)
    # Attributes out of range that crashed dlc (a segfault, a division by
    # zero) or ran its compile for minutes: found by retyping and
    # re-attributing ONNX's node tests (session 49).
    one("pool_kernel_zero", [helper.make_node("MaxPool", ["img"], ["y"], name="pool0",
                                              kernel_shape=[0, 2])],
        [img], [tensor("y", [1, 2, 5, 3])])
    one("split_zero_outputs", [helper.make_node("Split", ["x"], ["y"], name="split0", axis=1,
                                                num_outputs=0)],
        [x], [tensor("y", [1, 4])], opset=18)
    one("max_pool_pads_past_window", [helper.make_node("MaxPool", ["img"], ["y"], name="pool_pads",
                                                       kernel_shape=[3, 3],
                                                       pads=[1000, 1, 1, 1])],
        [img], [tensor("y", [1, 2, 1002, 4])])
    big = numpy_helper.from_array(np.array([0, 1 << 40, 0, 0], np.int64), "pads")
    one("pad_too_large", [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad_huge",
                                           mode="edge")],
        [x], [tensor("y", [1, 4])], [big])
    # External data whose path leaves the model's directory.
    w = numpy_helper.from_array(np.ones((1, 4), np.float32), "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in [("location", "../../etc/passwd"), ("offset", "0"), ("length", "16")]:
        e = w.external_data.add()
        e.key, e.value = k, v
    one("external_escape", [helper.make_node("Add", ["x", "w"], ["y"], name="add_w")],
        [x], [tensor("y", [1, 4])], [w], opset=18)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(f"{out}/ops", exist_ok=True)
    models = {"mlp": mlp(), "lenet": lenet(), "resnet18": resnet18(), "mobilenetv2": mobilenetv2(),
              "resnet50": resnet50(),
              "mlp_dynamic": mlp(symbolic=True), "resnet18_b8": resnet18(8),
              "mobilenetv2_b8": mobilenetv2(8), "mlp_b8": mlp(8), "lenet_b8": lenet(8),
              "lenet_b3": lenet(3), "mobilenetv2_folded": fold_batchnorm(mobilenetv2())}
    models.update(train_models())
    for name, m in models.items():
        onnx.checker.check_model(m)
        onnx.save(m, f"{out}/{name}.onnx")
    for name, m in op_models().items():
        onnx.checker.check_model(m)
        onnx.save(m, f"{out}/ops/{name}.onnx")
    # The LeNet again, its weights in a side file next to the model.
    os.makedirs(f"{out}/external", exist_ok=True)
    onnx.save(lenet(), f"{out}/external/lenet_external.onnx", save_as_external_data=True,
              all_tensors_to_one_file=True, location="lenet_external.weights", size_threshold=0)
    bad_models(f"{out}/bad")
    print(f"wrote {len(models)} models, {len(op_models())} op models and the bad/ set to {out}")


if __name__ == "__main__":
    main()
