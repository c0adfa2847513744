// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=2097152 transposed-filter-bytes=2097152" --mlir-print-ir-after=dlc-conv-to-im2col -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=2097152" --mlir-print-ir-after=dlc-conv-to-im2col -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY

// ResNet-50's last 1x1 convs (512 -> 2048 over a 7x7 map, a 4 MB filter).
// With the pipeline's transposed-filter-bytes at a 2 MB L2 (as
// dlc::resolveTarget sets for Intel's AVX-512 cores) dlc-conv-to-im2col
// keeps AVX-512's 12-row panels over 64 pixels; unbounded (Zen 5) it
// takes rows of 7 pixels, the 49 whole.
// BOUND-LABEL: func.func @main
// BOUND-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 12-row panels (2048 -> 2052 rows), 32-lane tiles (49 -> 64 pixels)"]
// ANY-LABEL: func.func @main
// ANY-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (2048 -> 2048 filters), 7-pixel rows (49 -> 49 pixels)"]
func.func @main(%x: tensor<1x512x7x7xf32>) -> tensor<1x2048x7x7xf32> {
  %w = dlc.constant dense<0.5> : tensor<2048x512x1x1xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  return %c : tensor<1x2048x7x7xf32>
}
