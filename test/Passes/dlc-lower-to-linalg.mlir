// RUN: %dlc-opt %s -split-input-file --dlc-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @conv_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[W]] : {{.*}}) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = dlc.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W:.*]] = tensor.collapse_shape
// CHECK: %[[W3:.*]] = tensor.expand_shape %[[W]] {{.*}} into tensor<8x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} ins(%{{.*}}, %[[W3]] :
func.func @depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 8 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @grouped
// CHECK: linalg.conv_2d_ngchw_gfchw {{.*}} -> tensor<1x2x4x4x4xf32>
func.func @grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_fc
// CHECK-SAME: (%[[A:.*]]: tensor<1x16xf32>, %[[W:.*]]: tensor<10x16xf32>, %[[C:.*]]: tensor<10xf32>)
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<10xf32>)
// CHECK: linalg.matmul_transpose_b ins(%[[A]], %[[W]] : {{.*}}) outs(%[[INIT]] : tensor<1x10xf32>)
func.func @gemm_fc(%a: tensor<1x16xf32>, %w: tensor<10x16xf32>, %c: tensor<10xf32>) -> tensor<1x10xf32> {
  %0 = dlc.gemm %a, %w, %c {transB = true} : (tensor<1x16xf32>, tensor<10x16xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  return %0 : tensor<1x10xf32>
}

// -----

// CHECK-LABEL: func.func @batched_matmul
// CHECK: linalg.batch_matmul {{.*}} -> tensor<6x3x5xf32>
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x3x5xf32>
func.func @batched_matmul(%a: tensor<2x3x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32> {
  %0 = dlc.matmul %a, %b : tensor<2x3x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x3x5xf32>
  return %0 : tensor<2x3x3x5xf32>
}

// -----

// Size-1 broadcast dims are reshaped away: every indexing map stays a
// projected permutation.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<1x4xf32>) -> tensor<2x3x4xf32> {
  %0 = dlc.add %a, %b : tensor<2x3x4xf32>, tensor<1x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool_ceil
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad {{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @max_pool_ceil(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x5x5xf32> -> tensor<1x2x2x2xf32>
  %1 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// The divisor of each output cell is counted at compile time.
// CHECK-LABEL: func.func @average_pool_exclude_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.constant dense<{{\[\[}}2.500000e-01, 0.166666672], [0.166666672, 0.111111112]]>
// CHECK: arith.mulf
func.func @average_pool_exclude_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = dlc.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_axis1
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]] :
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SUM]] :
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%[[EXP]], %[[INV]] :
// CHECK: arith.mulf
func.func @softmax_axis1(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = dlc.softmax %x {axis = 1 : i64, coerce_2d = false} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Over the innermost axis, 64 classes: the max and the sum each run in 8
// lanes ([2, 8, 8] view, the lane dim last and parallel), then fold the 8
// lanes; not one scalar chain per row. One divide per row, then multiplies.
// CHECK-LABEL: func.func @softmax_lanes
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xf32>)
// CHECK: %[[NEG:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: %[[XV:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [2, 8, 8]
// CHECK: %[[LMAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[XV]] : tensor<2x8x8xf32>) outs(%[[NEG]] : tensor<2x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[LMAX]] : tensor<2x8xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] :
// CHECK: math.exp
// CHECK: %[[EV:.*]] = tensor.expand_shape %[[EXP]]
// CHECK: %[[LSUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[EV]] : tensor<2x8x8xf32>)
// CHECK: arith.addf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[LSUM]] : tensor<2x8xf32>)
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2xf32>)
// CHECK: arith.divf
// CHECK: linalg.generic {{.*}} ins(%[[EXP]], %[[INV]] :
// CHECK: arith.mulf
func.func @softmax_lanes(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %0 = dlc.softmax %x {axis = 1 : i64, coerce_2d = false} : tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm
// CHECK: math.sqrt
// CHECK: linalg.generic
// CHECK: math.fma
func.func @batch_norm(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %0 = dlc.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @data_movement
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
// CHECK: %[[S0:.*]] = tensor.insert_slice %[[T]] into %{{.*}}[0, 0] [3, 2] [1, 1]
// CHECK: tensor.insert_slice %[[T]] into %[[S0]][3, 0] [3, 2] [1, 1]
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape {{.*}} into tensor<2x6xf32>
func.func @data_movement(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %t = dlc.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %c = dlc.concat %t, %t {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  %r = dlc.reshape %c {shape = array<i64: 2, -1>} : tensor<6x2xf32> -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}

// -----

// A constant transB weight is transposed at compile time: the GEMM then reads
// [K, N] rows along its vector lanes.
// CHECK-LABEL: func.func @gemm_constant_weight
// CHECK: %[[WT:.*]] = arith.constant dense_resource<transposed> : tensor<3x2xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<4x3xf32>, tensor<3x2xf32>)
// CHECK: dialect_resources
// CHECK: transposed: "0x040000000000803F0000804000000040
func.func @gemm_constant_weight(%a: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = dlc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = dlc.gemm %a, %w {transB = true} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Activations lower to one generic each, with ONNX's formulas.
// CHECK-LABEL: func.func @activations
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK: linalg.generic
// CHECK: arith.cmpf oge
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: math.log1p
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK: math.powf
func.func @activations(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %g = dlc.gelu %x {tanh_approximation = false} : tensor<4xf32>
  %l = dlc.leaky_relu %x {alpha = 0.1 : f32} : tensor<4xf32>
  %m = dlc.mish %x : tensor<4xf32>
  %p = dlc.pow %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %g, %l, %m, %p : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Reductions: one generic over all reduced axes, then the kind's final map;
// keepdims is a reshape.
// CHECK-LABEL: func.func @reduce_l2_keepdims
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<3xf32>)
// CHECK: math.sqrt
// CHECK: tensor.expand_shape %{{.*}} into tensor<1x3x1xf32>
func.func @reduce_l2_keepdims(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %0 = dlc.reduce %x {kind = "l2", axes = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// x - (max + log(sum)): the log once per row, then one subtract per element.
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: %[[OFFSET:.*]] = linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[LOG:.*]] = math.log
// CHECK: arith.addf %{{.*}}, %[[LOG]]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[OFFSET]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: arith.subf
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = dlc.log_softmax %x {axis = 1 : i64, coerce_2d = false} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x1xf32> into tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<3xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = dlc.expand %x {shape = array<i64: 2, 1, 4>} : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @strided_slice
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [4, 2] [1, 3] : tensor<4x8xf32> to tensor<4x2xf32>
func.func @strided_slice(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %0 = dlc.slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 4, 2>, steps = array<i64: 1, 3>} : tensor<4x8xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Unsigned element types become signless; their ops pick unsigned arithmetic.
// CHECK-LABEL: func.func @unsigned_ops
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi8>, tensor<4xf32>)
// CHECK: linalg.generic
// CHECK: %[[LT:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK: linalg.yield %[[LT]] : i1
// The division's divisor 0 is made 1 and its quotient 0 (no SIGFPE).
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[C1:.*]] = arith.constant 1 : i8
// CHECK: %[[C0:.*]] = arith.constant 0 : i8
// CHECK: %[[ISZ:.*]] = arith.cmpi eq, %[[Y]], %[[C0]] : i8
// CHECK: %[[SAFE:.*]] = arith.select %[[ISZ]], %[[C1]], %[[Y]] : i8
// CHECK: %[[D:.*]] = arith.divui %[[X]], %[[SAFE]] : i8
// CHECK: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: %[[ISZ2:.*]] = arith.cmpi eq, %[[Y]], %[[Z]] : i8
// CHECK: %[[Q:.*]] = arith.select %[[ISZ2]], %[[Z]], %[[D]] : i8
// CHECK: linalg.yield %[[Q]] : i8
// CHECK: linalg.generic
// CHECK: %[[F:.*]] = arith.uitofp %{{.*}} : i8 to f32
// CHECK: linalg.yield %[[F]] : f32
func.func @unsigned_ops(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xi1>, tensor<4xui8>, tensor<4xf32>) {
  %0 = dlc.compare %a, %b {predicate = "lt"} : tensor<4xui8>, tensor<4xui8> -> tensor<4xi1>
  %1 = dlc.div %a, %b : tensor<4xui8>, tensor<4xui8> -> tensor<4xui8>
  %2 = dlc.cast %a {to = f32} : tensor<4xui8> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xui8>, tensor<4xf32>
}

// -----

// Signed integer division and remainder cannot trap: divisors 0 and -1 are
// made 1, the quotient then 0 (x / 0) or -x (x / -1, wrapping: the signed
// minimum over -1 raised SIGFPE), the remainder 0 either way.
// CHECK-LABEL: func.func @signed_division
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[ISZ:.*]] = arith.cmpi eq, %[[Y]], %[[C0]] : i32
// CHECK: %[[CM1:.*]] = arith.constant -1 : i32
// CHECK: %[[ISM1:.*]] = arith.cmpi eq, %[[Y]], %[[CM1]] : i32
// CHECK: %[[BAD:.*]] = arith.ori %[[ISZ]], %[[ISM1]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %[[C1]], %[[Y]] : i32
// CHECK: %[[D:.*]] = arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[X]] : i32
// CHECK: %[[Q1:.*]] = arith.select %{{.*}}, %[[NEG]], %[[D]] : i32
// CHECK: %[[Q:.*]] = arith.select %{{.*}}, %{{.*}}, %[[Q1]] : i32
// CHECK: linalg.yield %[[Q]] : i32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[SAFER:.*]] = arith.select %{{.*}}, %{{.*}}, %[[B]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[A]], %[[SAFER]] : i32
// CHECK: linalg.yield %[[R]] : i32
func.func @signed_division(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = dlc.div %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %1 = dlc.mod %a, %b {fmod = true} : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Where broadcasts its three operands; f16 elementwise math runs in f32.
// CHECK-LABEL: func.func @where_f16
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[Y:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[X]], %[[Y]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK: linalg.yield %[[T]] : f16
func.func @where_f16(%c: tensor<2x1xi1>, %x: tensor<3xf16>, %y: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %0 = dlc.where %c, %x, %y : (tensor<2x1xi1>, tensor<3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// Gather: one generic over the output reading its index from `indices`,
// wrapping negative ones, and extracting from `data`.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[D:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<2xi64>)
// CHECK: %[[IDX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[IDX]]
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %[[D]][%{{.*}}, %[[COL]]] : tensor<4x3xf32>
func.func @gather(%d: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = dlc.gather %d, %i {axis = 0 : i64, elements = false} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// average_pool_grad, windows tiling the input (kernel == stride, no pads):
// each input position has one window, found by division; no tap loop.
// CHECK-LABEL: func.func @average_pool_grad
// CHECK-SAME: (%[[DY:[^:]*]]: tensor<1x2x2x2xf32>)
// CHECK: %[[INV:.*]] = arith.constant dense<2.500000e-01> : tensor<2x2xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: %[[Y:.*]] = linalg.index 2 : index
// CHECK: %[[WY:.*]] = arith.divui %[[Y]], %{{.*}} : index
// CHECK: %[[X:.*]] = linalg.index 3 : index
// CHECK: %[[WX:.*]] = arith.divui %[[X]], %{{.*}} : index
// CHECK: tensor.extract %[[DY]][%{{.*}}, %{{.*}}, %[[WY]], %[[WX]]]
// CHECK: tensor.extract %[[INV]][%[[WY]], %[[WX]]]
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @average_pool_grad(%dy: tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = dlc.average_pool_grad %dy {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// average_pool_grad, overlapping windows: the window's taps unrolled, each
// reading the output gradient times 1/divisor (a table).
// CHECK-LABEL: func.func @average_pool_grad_overlapping
// CHECK: %[[INV:.*]] = arith.constant dense<{{.*}}> : tensor<3x3xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK-COUNT-4: tensor.extract %[[INV]]
func.func @average_pool_grad_overlapping(%dy: tensor<1x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = dlc.average_pool_grad %dy {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// max_pool_grad, windows tiling the input: the first maximum's tap per
// window, then per input position a compare with its own tap.
// CHECK-LABEL: func.func @max_pool_grad_tiling
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x4x6xf32>, %[[DY:[^:]*]]: tensor<1x2x2x3xf32>)
// CHECK: %[[BEST:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x2x3xi64>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x6xf32>)
// CHECK: %[[WY:.*]] = arith.divui
// CHECK: %[[WX:.*]] = arith.divui
// CHECK: %[[TAP:.*]] = arith.addi
// CHECK: %[[WIN:.*]] = tensor.extract %[[BEST]][%{{.*}}, %{{.*}}, %[[WY]], %[[WX]]]
// CHECK: %[[WINI:.*]] = arith.index_cast %[[WIN]] : i64 to index
// CHECK: %[[MINE:.*]] = arith.cmpi eq, %[[WINI]], %[[TAP]]
// CHECK: %[[G:.*]] = tensor.extract %[[DY]][%{{.*}}, %{{.*}}, %[[WY]], %[[WX]]]
// CHECK: arith.select %[[MINE]], %[[G]]
func.func @max_pool_grad_tiling(%x: tensor<1x2x4x6xf32>, %dy: tensor<1x2x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = dlc.max_pool_grad %x, %dy {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x6xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// Dropout outside the train step is the identity; dropout_mask hashes
// (seed, step, element index) in 32-bit integers and keeps 1/(1-ratio).
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8xf32>, %[[STEP:[^:]*]]: tensor<i64>)
// CHECK: %[[MASK:.*]] = linalg.generic {{.*}} ins(%[[STEP]] : tensor<i64>)
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[THRESHOLD:.*]] = arith.constant 4194304 : i32
// CHECK: %[[KEEP:.*]] = arith.cmpi uge, %{{.*}}, %[[THRESHOLD]] : i32
// CHECK: %[[SCALE:.*]] = arith.constant 1.33333337 : f32
// CHECK: arith.select %[[KEEP]], %[[SCALE]]
// CHECK: return %[[X]], %[[MASK]]
func.func @dropout(%x: tensor<8xf32>, %step: tensor<i64>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = dlc.dropout %x {ratio = 0.25 : f32, seed = 3 : i64} : tensor<8xf32>
  %1 = dlc.dropout_mask %step {ratio = 0.25 : f32, seed = 3 : i64} : tensor<i64> -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A sum over axes that include the innermost (a conv bias gradient): the
// trailing reduced dims merge (H*W = 16), split into 2 steps of 8 lanes; the
// partial sums [C, 8] are added up once at the end.
// CHECK-LABEL: func.func @sum_in_lanes
// CHECK-SAME: (%[[DY:[^:]*]]: tensor<2x3x4x4xf32>)
// CHECK: %[[M:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0], [1], [2, 3]] {{.*}} into tensor<2x3x16xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<3xf32>
// CHECK: %[[LZERO:.*]] = linalg.fill {{.*}} -> tensor<3x8xf32>
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[M]] {{\[}}[0], [1], [2, 3]] {{.*}} into tensor<2x3x2x8xf32>
// CHECK: %[[LANES:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction", "parallel"]} ins(%[[SPLIT]] : tensor<2x3x2x8xf32>) outs(%[[LZERO]] : tensor<3x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[LANES]] : tensor<3x8xf32>) outs(%[[ZERO]] : tensor<3xf32>)
// CHECK: return %[[SUM]]
func.func @sum_in_lanes(%dy: tensor<2x3x4x4xf32>) -> tensor<3xf32> {
  %0 = dlc.reduce %dy {axes = array<i64: 0, 2, 3>, keepdims = false, kind = "sum"} : tensor<2x3x4x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// conv_grad_input, stride 1: the columns GEMM, then col2im as one add per
// tap of its column plane (a strided slice of the columns, viewed as
// [N, C, OH, OW]) into the window of dx it covers, clipped at the pads.
// CHECK-LABEL: func.func @conv_grad_input_stride1
// CHECK: %[[COLS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x12xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: %[[P0:.*]] = tensor.extract_slice %[[COLS]][0, 0, 0] [1, 2, 12] [1, 4, 1]
// CHECK: tensor.expand_shape %[[P0]] {{\[}}[0], [1], [2, 3]] output_shape [1, 2, 3, 4]
// CHECK: %[[W0:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x3x4xf32>)
// CHECK: arith.addf
// CHECK: %[[DX0:.*]] = tensor.insert_slice %[[W0]] into %[[ZERO]][0, 0, 0, 0] [1, 2, 3, 4]
// Tap (0, 1) covers columns 1..3 of dx; its plane's last column falls in the pad.
// CHECK: %[[P1:.*]] = tensor.extract_slice %[[COLS]][0, 1, 0] [1, 2, 12] [1, 4, 1]
// CHECK: %[[E1:.*]] = tensor.expand_shape %[[P1]]
// CHECK: tensor.extract_slice %[[E1]][0, 0, 0, 0] [1, 2, 3, 3]
// CHECK: tensor.extract_slice %[[DX0]][0, 0, 0, 1] [1, 2, 3, 3]
// CHECK: %[[DX1:.*]] = tensor.insert_slice %{{.*}} into %[[DX0]][0, 0, 0, 1] [1, 2, 3, 3]
// CHECK-COUNT-2: tensor.insert_slice
// CHECK-NOT: tensor.insert_slice
// CHECK-NOT: tensor.extract %
// CHECK: return
func.func @conv_grad_input_stride1(%dy: tensor<1x4x3x4xf32>, %w: tensor<4x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = dlc.conv_grad_input %dy, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x3x4xf32>, tensor<4x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// ReLU and Clip (ReLU6) ignore the sign of zero (fast-math nsz): NaN still
// propagates, but x86 needs no blends to order -0 and +0.
// CHECK-LABEL: func.func @relu6_no_signed_zeros
// CHECK: %[[LO:.*]] = arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : f32
// CHECK: arith.minimumf %[[LO]], %{{.*}} fastmath<nsz> : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : f32
func.func @relu6_no_signed_zeros(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = dlc.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  %1 = dlc.relu %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// GlobalAveragePool sums each channel's map in vector lanes where it splits
// into them (16 = 2 steps of 8 lanes), as ReduceMean does, then scales.
// CHECK-LABEL: func.func @global_average_pool_in_lanes
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %{{.*}} into tensor<3x2x8xf32>
// CHECK: %[[LANES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[SPLIT]] : tensor<3x2x8xf32>) outs(%{{.*}} : tensor<3x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[LANES]] : tensor<3x8xf32>)
// CHECK: arith.constant 6.250000e-02
func.func @global_average_pool_in_lanes(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf32> {
  %0 = dlc.global_average_pool %x : tensor<1x3x4x4xf32> -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// -----

// A 7x7 map (49, no lane count divides it) keeps one sum per channel.
// CHECK-LABEL: func.func @global_average_pool_7x7
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<1x3x49xf32>)
// CHECK: arith.constant 0.0204081628
func.func @global_average_pool_7x7(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32> {
  %0 = dlc.global_average_pool %x : tensor<1x3x7x7xf32> -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}
