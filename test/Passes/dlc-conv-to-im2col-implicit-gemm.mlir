// RUN: %dlc-opt %s --dlc-conv-to-im2col="fold-padding=true implicit-gemm=true" --split-input-file | FileCheck %s

// A padded 3x3 conv for the CUDA conv kernels: the columns go taps first
// ([N, KH, KW, C, OH, OW]), the gather reads the unpadded input at
// (oh + kh - 1, ow + kw - 1) and carries the conv's geometry for
// dlc-implicit-gemm, and the GEMM's filter is a new constant [F, KH KW C].
// CHECK-LABEL: func.func @padded_conv
// CHECK-SAME: (%[[X:.*]]: tensor<2x32x8x8xf32>
// CHECK: %[[W:.*]] = arith.constant dense_resource<implicit_gemm_filter> : tensor<40x288xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[COLS:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3x3x32x8x8xf32>)
// CHECK-SAME: dlc.implicit_gemm_columns = {dilations = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}
// CHECK: %[[KH:.*]] = linalg.index 1
// CHECK: %[[OH:.*]] = linalg.index 4
// CHECK: arith.addi %[[KH]], %[[OH]]
// CHECK: %[[C:.*]] = linalg.index 3
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[C]], %{{.*}}, %{{.*}}]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[COLS]] {{.*}} : tensor<2x3x3x32x8x8xf32> into tensor<2x288x64xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[W]], %[[FLAT]] : tensor<40x288xf32>, tensor<2x288x64xf32>)
func.func @padded_conv(%x: tensor<2x32x8x8xf32>) -> tensor<2x40x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<40x32x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x32x8x8xf32> to tensor<2x32x10x10xf32>
  %e = tensor.empty() : tensor<2x40x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x8x8xf32>) -> tensor<2x40x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x32x10x10xf32>, tensor<40x32x3x3xf32>) outs(%f : tensor<2x40x8x8xf32>) -> tensor<2x40x8x8xf32>
  return %y : tensor<2x40x8x8xf32>
}

// -----

// The filter permuted to (kh, kw, c): w[0, c, 0, kw] = 1, 2 (c = 0) and 3, 4
// (c = 1) become 1, 3, 2, 4 (kw outer); the blob starts with its alignment.
// CHECK-LABEL: func.func @permuted_filter
// CHECK: tensor<17x4xf32>
// CHECK: implicit_gemm_filter: "0x040000000000803F00004040000000400000804000000000
func.func @permuted_filter(%x: tensor<1x2x5x5xf32>) -> tensor<1x17x5x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]], [[[0.0, 0.0]], [[0.0, 0.0]]]]> : tensor<17x2x1x2xf32>
  %e = tensor.empty() : tensor<1x17x5x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x17x5x4xf32>) -> tensor<1x17x5x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x5x5xf32>, tensor<17x2x1x2xf32>) outs(%f : tensor<1x17x5x4xf32>) -> tensor<1x17x5x4xf32>
  return %y : tensor<1x17x5x4xf32>
}

// -----

// Left to the plain im2col: 16 filters or fewer (under a tensor-core tile),
// and a filter that is not a constant.
// CHECK-LABEL: func.func @few_filters
// CHECK-NOT: dlc.implicit_gemm_columns
// CHECK: return
func.func @few_filters(%x: tensor<1x32x6x6xf32>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<16x32x3x3xf32>
  %e = tensor.empty() : tensor<1x16x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x32x6x6xf32>, tensor<16x32x3x3xf32>) outs(%f : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// CHECK-LABEL: func.func @filter_argument
// CHECK-NOT: dlc.implicit_gemm_columns
// CHECK: return
func.func @filter_argument(%x: tensor<1x32x6x6xf32>, %w: tensor<40x32x3x3xf32>) -> tensor<1x40x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x32x6x6xf32>, tensor<40x32x3x3xf32>) outs(%f : tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  return %y : tensor<1x40x4x4xf32>
}
