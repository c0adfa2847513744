// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16 transposed-filter-bytes=131072" | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16" | FileCheck %s --check-prefix=NOBOUND

// AVX-512's layout with a bound on the transposed tile's filters (Intel's
// AVX-512 cores: their L2): a 7x7 map's GEMM whose filter (512 KB) is over
// it keeps the row panels over 64 pixels instead of rows of 7 pixels.
// CHECK-LABEL: func.func @filter_over_bound_7x7
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (64 -> 64 rows), 32-lane tiles (49 -> 64 pixels)"]
// CHECK: %[[PANELS:.*]] = arith.constant {{.*}} : tensor<8x2048x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[PANELS]], %{{.*}} : tensor<8x2048x8xf32>, tensor<1x2048x64xf32>)
// NOBOUND-LABEL: func.func @filter_over_bound_7x7
// NOBOUND-SAME: 7-pixel rows (49 -> 49 pixels)
func.func @filter_over_bound_7x7(%x: tensor<1x2048x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<64x2048x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2048x7x7xf32>, tensor<64x2048x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// A filter within the bound (64 KB) keeps the rows of 7.
// CHECK-LABEL: func.func @filter_within_bound_7x7
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (64 -> 64 filters), 7-pixel rows (49 -> 49 pixels)"]
// CHECK: %[[PANELS:.*]] = arith.constant {{.*}} : tensor<2x256x32xf32>
// CHECK: linalg.generic {{.*}} ins(%[[PANELS]], %{{.*}} : tensor<2x256x32xf32>, tensor<1x7x256x7xf32>)
func.func @filter_within_bound_7x7(%x: tensor<1x256x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<64x256x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x7x7xf32>, tensor<64x256x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// Rows of 14 pixels (28 accumulators) are not bounded: a 14x14 map's
// GEMM over a 256 KB filter keeps them.
// CHECK-LABEL: func.func @rows_of_14_over_bound
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (256 -> 256 filters), 14-pixel rows (196 -> 196 pixels)"]
// CHECK: %[[PANELS:.*]] = arith.constant {{.*}} : tensor<8x256x32xf32>
// CHECK: linalg.generic {{.*}} ins(%[[PANELS]], %{{.*}} : tensor<8x256x32xf32>, tensor<1x14x256x14xf32>)
func.func @rows_of_14_over_bound(%x: tensor<1x256x14x14xf32>, %init: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w = arith.constant dense<0.25> : tensor<256x256x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x14x14xf32>, tensor<256x256x1x1xf32>) outs(%init : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}
