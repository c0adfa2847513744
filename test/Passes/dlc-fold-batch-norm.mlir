// RUN: %dlc-opt %s -split-input-file --dlc-fold-batch-norm | FileCheck %s

// A BatchNorm of a conv feeding a residual Add goes into the conv's
// constant weights and bias: filter f's weights times s = scale /
// sqrt(var + eps), its bias b * s + shift - mean * s. Filter 0: s = 2 / 1
// = 2 (weights 0.5 -> 1.0), bias 1 * 2 + 3 - 1 * 2 = 3; filter 1: s = 4 /
// 2 = 2 (weights 0.5 -> 1.0), bias 1 * 2 + 0 - 2 * 2 = -2.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[R:.*]]: tensor<1x2x4x4xf32>)
// CHECK: %[[W:.*]] = arith.constant dense_resource<folded_weight>
// CHECK: %[[B:.*]] = arith.constant dense_resource<folded_bias>
// CHECK: %[[C:.*]] = dlc.conv %[[X]], %[[W]], %[[B]]
// CHECK-NOT: dlc.batch_norm
// CHECK: %[[S:.*]] = dlc.add %[[C]], %[[R]]
// CHECK: return %[[S]]
// CHECK: folded_weight: "0x04000000{{(0000803F)+}}"
// CHECK: folded_bias: "0x0400000000004040000000C0"
func.func @residual(%x: tensor<1x3x4x4xf32>, %r: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<2x3x1x1xf32>
  %b = arith.constant dense<1.0> : tensor<2xf32>
  %scale = arith.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %shift = arith.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = dlc.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.add %1, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A depthwise conv's BatchNorm goes into its weights and bias wherever it
// feeds (here a Relu): its taps then start from the bias. Channel 0: s =
// 2 / 1 = 2 (weights 0.5 -> 1.0), bias 0 * 2 + 3 - 1 * 2 = 1; channel 1:
// s = 4 / 2 = 2, bias 0 - 2 * 2 = -4.
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK: %[[W:.*]] = arith.constant dense_resource<folded_weight>
// CHECK: %[[B:.*]] = arith.constant dense_resource<folded_bias>
// CHECK: %[[C:.*]] = dlc.conv %[[X]], %[[W]], %[[B]] {{.*}}group = 2
// CHECK-NOT: dlc.batch_norm
// CHECK: %[[R:.*]] = dlc.relu %[[C]]
// CHECK: return %[[R]]
// CHECK: folded_weight: "0x04000000{{(0000803F)+}}"
// CHECK: folded_bias: "0x040000000000803F000080C0"
func.func @depthwise(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<2x1x3x3xf32>
  %scale = arith.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %shift = arith.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %mean = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.relu %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// A 1x1 conv's BatchNorm too: its GEMM's epilogue then adds a bias instead
// of applying a scale and a shift.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x4xf32>)
// CHECK: %[[W:.*]] = arith.constant dense_resource<folded_weight>
// CHECK: %[[B:.*]] = arith.constant dense_resource<folded_bias>
// CHECK: %[[C:.*]] = dlc.conv %[[X]], %[[W]], %[[B]]
// CHECK-NOT: dlc.batch_norm
// CHECK: %[[R:.*]] = dlc.relu %[[C]]
// CHECK: return %[[R]]
func.func @pointwise(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<2x3x1x1xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.batch_norm %0, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.relu %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// An image stem's too (3x3 over 3 channels, at most kStemChannels): the
// outer-products kernel then starts from the bias, without zeroing its
// tile and multiplying by the scale after 27 multiply-adds a pixel.
// CHECK-LABEL: func.func @stem
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[W:.*]] = arith.constant dense_resource<folded_weight>
// CHECK: %[[B:.*]] = arith.constant dense_resource<folded_bias>
// CHECK: %[[C:.*]] = dlc.conv %[[X]], %[[W]], %[[B]] {{.*}}strides = array<i64: 2, 2>
// CHECK-NOT: dlc.batch_norm
// CHECK: %[[R:.*]] = dlc.clip %[[C]]
// CHECK: return %[[R]]
func.func @stem(%x: tensor<1x3x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<2x3x3x3xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.batch_norm %0, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.clip %1 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// Kept: the BatchNorm of a 3x3 conv over more than kStemChannels channels
// that feeds anything but Adds (folding those ran ResNet-50 slower), a
// conv with another use, and weights that are parameters (a training
// build's).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: dlc.batch_norm
// CHECK-NOT: folded_weight
func.func @kept(%x: tensor<1x3x4x4xf32>, %r: tensor<1x2x4x4xf32>, %pw: tensor<2x3x1x1xf32>, %x8: tensor<1x8x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w3 = arith.constant dense<0.5> : tensor<2x8x3x3xf32>
  %w = arith.constant dense<0.5> : tensor<2x3x1x1xf32>
  %p = arith.constant dense<1.0> : tensor<2xf32>
  %0 = dlc.conv %x8, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<2x8x3x3xf32>) -> tensor<1x2x4x4xf32>
  %1 = dlc.batch_norm %0, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = dlc.relu %1 : tensor<1x2x4x4xf32>
  %3 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %4 = dlc.batch_norm %3, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %5 = dlc.add %4, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %6 = dlc.conv %x, %pw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %7 = dlc.batch_norm %6, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %8 = dlc.add %7, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %2, %5, %3, %8 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
