// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=6 pad-lanes=16" | FileCheck %s

// A conv starting from a per-filter bias (LowerToLinalg's conv bias, as in a
// model exported with its BatchNorm folded in) whose one user is an
// elementwise generic: the bias moves into that generic, added to the conv's
// value before its body, and the packed GEMM starts from a zero fill (which
// dlc-tile-and-vectorize starts its register tiles from in registers).
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @bias_into_activation
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x12x64xf32>)
// CHECK: %[[ACC:.*]] = tensor.expand_shape %[[ZERO]]
// CHECK: %[[GEMM:.*]] = linalg.generic {{.*}} outs(%[[ACC]] : tensor<1x2x6x64xf32>)
// CHECK: %[[CONV:.*]] = tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}}} ins(%[[CONV]], %[[B]] : tensor<1x8x8x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[RELU]] : f32
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_into_activation(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %w = arith.constant dense<0.25> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%empty : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x8x8x8xf32>) outs(%out : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  return %relu : tensor<1x8x8x8xf32>
}

// -----

// Two users of the conv: the bias goes into an add of its own after the
// GEMM (fused into its register tiles later), which both users read.
// CHECK-LABEL: func.func @bias_two_users
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[B2:.*]]: tensor<8xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x12x64xf32>)
// CHECK: %[[CONV2:.*]] = tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK: %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[CONV2]], %[[B2]] : tensor<1x8x8x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V2:.*]]: f32, %[[BV2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM2:.*]] = arith.addf %[[V2]], %[[BV2]] : f32
// CHECK-NEXT: linalg.yield %[[SUM2]] : f32
// CHECK: %[[RELU2:.*]] = linalg.generic {{.*}} ins(%[[ADD]] : tensor<1x8x8x8xf32>)
// CHECK: return %[[RELU2]], %[[ADD]]
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row2 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_two_users(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %w = arith.constant dense<0.25> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%empty : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x8x8x8xf32>) outs(%out : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  return %relu, %conv : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}
