// RUN: %dlc-opt %s --dlc-conv-to-im2col=fold-padding=true --split-input-file | FileCheck %s

// A zero pad of H and W before the conv: the columns read the unpadded
// input at (oh + kh - 1, ow + kw - 1), zeros outside it (one unsigned
// compare per axis, the read at a clamped index); the pad goes.
// CHECK-LABEL: func.func @padded_conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic
// CHECK: %[[H:.*]] = arith.subi %{{.*}}, %c1
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %c1
// CHECK-DAG: %[[HIN:.*]] = arith.cmpi ult, %[[H]], %c6
// CHECK-DAG: %[[WIN:.*]] = arith.cmpi ult, %[[W]], %c6
// CHECK: %[[IN:.*]] = arith.andi %[[HIN]], %[[WIN]]
// CHECK: %[[V:.*]] = tensor.extract %[[X]]
// CHECK: arith.select %[[IN]], %[[V]], %{{.*}} : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<8x36xf32>, tensor<1x36x36xf32>)
func.func @padded_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// A pad of something other than zeros, or of the channels, stays.
// CHECK-LABEL: func.func @padded_with_ones
// CHECK: tensor.pad
func.func @padded_with_ones(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}
