// RUN: %dlc-opt %s --dlc-conv-to-im2col | FileCheck %s

// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<8x4x3x3xf32>
// The columns [N, C, KH, KW, OH, OW]: ow innermost, read as x[n, c, oh + kh, kw + ow].
// CHECK: %[[COL:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x3x3x4x4xf32>)
// CHECK-DAG: %[[N:.*]] = linalg.index 0
// CHECK-DAG: %[[C:.*]] = linalg.index 1
// CHECK-DAG: %[[KH:.*]] = linalg.index 2
// CHECK-DAG: %[[KW:.*]] = linalg.index 3
// CHECK-DAG: %[[OH:.*]] = linalg.index 4
// CHECK-DAG: %[[OW:.*]] = linalg.index 5
// CHECK-DAG: %[[Y:.*]] = arith.addi %[[KH]], %[[OH]]
// CHECK-DAG: %[[XX:.*]] = arith.addi %[[KW]], %[[OW]]
// CHECK: tensor.extract %[[X]][%[[N]], %[[C]], %[[Y]], %[[XX]]]
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[COL]] {{\[}}[0], [1, 2, 3], [4, 5]] {{.*}} into tensor<1x36x16xf32>
// CHECK: %[[WF:.*]] = tensor.collapse_shape %[[W]] {{.*}} into tensor<8x36xf32>
// CHECK: %[[GEMM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[WF]], %[[COLS]] : tensor<8x36xf32>, tensor<1x36x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[GEMM]] {{.*}} into tensor<1x8x4x4xf32>
func.func @conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}
