// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2

// A 1x1 conv of 384 filters over a 14x14 map (MobileNetV2's expand convs):
// 196 pixels. At 8 lanes with AVX-512VL's 32 registers (Zen 4) they go as
// twelve 16-lane tiles and one 8-lane tail (200 pixels, not 208): an 8 x 16
// register tile over the full tiles, an 8 x 8 one over the tail. AVX2's
// 16 registers would leave a 6 x 8 tail's FMAs waiting: 208 pixels there.
// WIDE: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (384 -> 384 rows), 16-lane tiles and a 8-lane one (196 -> 200 pixels)
// WIDE-DAG: vector.contract {{.*}} into vector<1x1x8x16xf32>
// WIDE-DAG: vector.contract {{.*}} into vector<1x1x8x8xf32>
// AVX2: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 6-row panels (384 -> 384 rows), 16-lane tiles (196 -> 208 pixels)
// AVX2-NOT: vector<1x1x6x8xf32>
func.func @main(%x: tensor<1x64x14x14xf32>) -> tensor<1x384x14x14xf32> {
  %w = dlc.constant dense<0.5> : tensor<384x64x1x1xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x64x14x14xf32>, tensor<384x64x1x1xf32>) -> tensor<1x384x14x14xf32>
  return %c : tensor<1x384x14x14xf32>
}
