// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=6 pad-lanes=16 fused-columns-depth=256 l2-cache-bytes=1024" | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=6 pad-lanes=16" | FileCheck %s --check-prefix=ODD

// Columns dlc-tile-and-vectorize will build per cache tile of output rows
// (depth 27 <= 256, 110 KB of them > L2's 1 KB here, rows of 32 pixels)
// keep their 1024 pixels (64 tiles): the GEMM reads them straight from the
// im2col's reshape. Built whole, past 16 tiles the pixels are padded to an
// odd number of tiles (65, 1040 pixels) for L1's sets.
// CHECK-LABEL: func.func @fused_columns
// CHECK-SAME: dlc.conv_kernels = ["?: im2col + GEMM; filter in 6-row panels (6 -> 6 rows), 16-lane tiles (1024 -> 1024 pixels); columns built per 1-row tile in the GEMM's loop"]
// CHECK: %[[COL:.*]] = linalg.generic
// CHECK: tensor.extract
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[COL]] {{.*}} into tensor<1x27x1024xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[COLS]] : tensor<1x27x6xf32>, tensor<1x27x1024xf32>)
// ODD-LABEL: func.func @fused_columns
// ODD-SAME: (1024 -> 1040 pixels)
// ODD: tensor.insert_slice {{.*}} [1, 27, 1024] [1, 1, 1] : tensor<1x27x1024xf32> into tensor<1x27x1040xf32>
func.func @fused_columns(%x: tensor<1x3x34x34xf32>) -> tensor<1x6x32x32xf32> {
  %w = arith.constant dense<0.5> : tensor<6x3x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x32x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x32x32xf32>) -> tensor<1x6x32x32xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x34x34xf32>, tensor<6x3x3x3xf32>) outs(%init : tensor<1x6x32x32xf32>) -> tensor<1x6x32x32xf32>
  return %0 : tensor<1x6x32x32xf32>
}
