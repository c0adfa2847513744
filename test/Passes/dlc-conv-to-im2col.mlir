// RUN: %dlc-opt %s --dlc-conv-to-im2col | FileCheck %s

// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<8x4x3x3xf32>
// CHECK: %[[WF:.*]] = tensor.collapse_shape %[[W]] {{.*}} into tensor<8x36xf32>
// CHECK: %[[COL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x36x16xf32>)
// CHECK: %[[GEMM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[WF]], %[[COL]] : tensor<8x36xf32>, tensor<1x36x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[GEMM]] {{.*}} into tensor<1x8x4x4xf32>
func.func @conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}
