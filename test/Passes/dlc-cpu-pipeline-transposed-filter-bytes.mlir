// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=2097152 transposed-filter-bytes=65536" --split-input-file --mlir-print-ir-after=dlc-conv-to-im2col --mlir-elide-elementsattrs-if-larger=16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=2097152" --split-input-file --mlir-print-ir-after=dlc-conv-to-im2col --mlir-elide-elementsattrs-if-larger=16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY

// ResNet-50's last 1x1 convs (512 -> 2048 over a 7x7 map, a 4 MB filter).
// With the pipeline's transposed-filter-bytes under it (dlc::resolveTarget
// sets the L2 for Intel's AVX-512 cores; 64 KB here, for the second case
// too) dlc-conv-to-im2col keeps AVX-512's 12-row panels over 64 pixels;
// unbounded (Zen 5) it takes rows of 7 pixels, the 49 whole.
// BOUND-LABEL: func.func @main
// BOUND-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 12-row panels (2048 -> 2052 rows), 32-lane tiles (49 -> 64 pixels)"]
// ANY-LABEL: func.func @main
// ANY-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (2048 -> 2048 filters), 7-pixel rows (49 -> 49 pixels)"]
func.func @main(%x: tensor<1x512x7x7xf32>) -> tensor<1x2048x7x7xf32> {
  %w = dlc.constant dense<0.5> : tensor<2048x512x1x1xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  return %c : tensor<1x2048x7x7xf32>
}

// -----

// And dlc-conv-to-winograd gets the same bound: a 160 x 160 3x3 conv over
// 28x28, F(4x4)'s GEMMs over 49 tiles on a 100 KB transformed filter each,
// in 12-row panels over 64 tiles with a 64 KB bound, else in rows of 7.
// (Printed after dlc-conv-to-im2col, which leaves it alone.)
// BOUND-LABEL: func.func @main
// BOUND-SAME: dlc.conv_kernels = ["?: Winograd F(4x4,3x3), 36 GEMMs over 49 tiles; transformed filter in 12-row panels (160 -> 168 rows), 32-lane tiles (49 -> 64 tiles)"]
// ANY-LABEL: func.func @main
// ANY-SAME: dlc.conv_kernels = ["?: Winograd F(4x4,3x3), 36 GEMMs over 49 tiles; transformed filter in 32-lane panels (160 -> 160 filters), 7-tile rows (49 -> 49 tiles)"]
func.func @main(%x: tensor<1x160x28x28xf32>) -> tensor<1x160x28x28xf32> {
  %w = dlc.constant dense<0.5> : tensor<160x160x3x3xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x160x28x28xf32>, tensor<160x160x3x3xf32>) -> tensor<1x160x28x28xf32>
  return %c : tensor<1x160x28x28xf32>
}
