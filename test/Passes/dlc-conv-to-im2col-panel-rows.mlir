// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=16" | FileCheck %s --check-prefix=TWELVE
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=6 pad-lanes=16" | FileCheck %s --check-prefix=SIX

// The filter panels' height: the target's rows, or 8 or 6 (at least half
// of them) where that pads the filters at least 1/9 less. 16 filters: 12-row
// panels would pad them to 24, 8-row panels take them whole; with 6-row
// panels (AVX2) they stay padded to 18 (4-row panels ran slower).
// TWELVE-LABEL: func.func @sixteen_filters
// TWELVE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<1x4x16xf32>) outs(%{{.*}} : tensor<1x2x8x16xf32>)
// SIX-LABEL: func.func @sixteen_filters
// SIX: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x4x6xf32>, tensor<1x4x16xf32>) outs(%{{.*}} : tensor<1x3x6x16xf32>)
func.func @sixteen_filters(%x: tensor<1x4x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = arith.constant dense<0.25> : tensor<16x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x16x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x4xf32>, tensor<16x4x1x1xf32>) outs(%init : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// 6 filters (LeNet's first conv): one 6-row panel instead of a 12-row one
// half zeros.
// TWELVE-LABEL: func.func @six_filters
// TWELVE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x6xf32>, tensor<1x4x16xf32>) outs(%{{.*}} : tensor<1x1x6x16xf32>)
func.func @six_filters(%x: tensor<1x4x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %w = arith.constant dense<0.25> : tensor<6x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x6x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x4xf32>, tensor<6x4x1x1xf32>) outs(%init : tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}
