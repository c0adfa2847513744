// RUN: %dlc-opt %s --dlc-conv-to-winograd="pack-rows=12 pad-lanes=32 narrow-lanes=16 vector-width=16 transposed-filter-bytes=65536" --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s
// RUN: %dlc-opt %s --dlc-conv-to-winograd="pack-rows=12 pad-lanes=32 narrow-lanes=16 vector-width=16" --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s --check-prefix=NOBOUND

// A 160 x 160 3x3 conv over 28x28: F(4x4)'s 36 GEMMs over 49 tiles, each
// over a 100 KB transformed filter. Unbounded (AVX-512's layout) they take
// the transposed tile, 32-lane filter panels by rows of 7 tiles, the 49
// whole; with the filter over the bound (64 KB here; Intel's AVX-512
// cores: their L2, dlc::layoutFor) 12-row panels over 64 tiles.
// CHECK-LABEL: func.func @filter_over_bound_28x28
// CHECK-SAME: dlc.conv_kernels = ["?: Winograd F(4x4,3x3), 36 GEMMs over 49 tiles; transformed filter in 12-row panels (160 -> 168 rows), 32-lane tiles (49 -> 64 tiles)"]
// CHECK: %[[U:.*]] = arith.constant dense_resource<winograd_filter> : tensor<36x14x160x12xf32>
// CHECK: linalg.generic {{.*}} ins(%[[U]], %{{.*}} : tensor<36x14x160x12xf32>, tensor<36x1x160x64xf32>) outs(%{{.*}} : tensor<36x1x14x12x64xf32>)
// NOBOUND-LABEL: func.func @filter_over_bound_28x28
// NOBOUND-SAME: transformed filter in 32-lane panels (160 -> 160 filters), 7-tile rows (49 -> 49 tiles)
// NOBOUND: %[[U:.*]] = arith.constant dense_resource<winograd_filter> : tensor<36x5x160x32xf32>
// NOBOUND: linalg.generic {{.*}} ins(%[[U]], %{{.*}} : tensor<36x5x160x32xf32>, tensor<36x1x160x49xf32>)
func.func @filter_over_bound_28x28(%x: tensor<1x160x30x30xf32>, %init: tensor<1x160x28x28xf32>) -> tensor<1x160x28x28xf32> {
  %w = arith.constant dense<0.25> : tensor<160x160x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x160x30x30xf32>, tensor<160x160x3x3xf32>) outs(%init : tensor<1x160x28x28xf32>) -> tensor<1x160x28x28xf32>
  return %0 : tensor<1x160x28x28xf32>
}
