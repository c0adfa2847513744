// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32 l2-cache-bytes=1048576 cores=2" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32 l2-cache-bytes=1048576" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32 l2-cache-bytes=524288 cores=2" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANY

// A 1x1 conv of 64 filters over a 14x14 map (MobileNetV2's 14x14
// projections): 8 panels of 8 rows. For a target of unknown cores that is
// under the 32 panels a pixel tail needs (dlc::kMinTailPanels): 208
// pixels. For a 2-core host (`cores=2`, dlc::minTailPanelsFor: 4 a core)
// both dlc-conv-to-im2col and dlc-tile-and-vectorize take the 8-lane tail:
// 200 pixels, an 8 x 8 register tile over the last 8. A 1 MB L2 (Zen 4)
// keeps its 384-deep K whole, which the peeled tail needs; with 512 KB
// (Zen 3) dlc-tile-and-vectorize splits K (256-deep tiles), so neither
// pass takes the tail: 208 pixels in 16-lane tiles, not 200 padded for a
// tail and run in 8-lane tiles throughout (dlc::takesDepthWhole).
// TWO: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (64 -> 64 rows), 16-lane tiles and a 8-lane one (196 -> 200 pixels)
// TWO-DAG: vector.contract {{.*}} into vector<1x1x8x16xf32>
// TWO-DAG: vector.contract {{.*}} into vector<1x1x8x8xf32>
// ANY: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (64 -> 64 rows), 16-lane tiles (196 -> 208 pixels)
// ANY-NOT: vector<1x1x8x8xf32>
func.func @main(%x: tensor<1x384x14x14xf32>) -> tensor<1x64x14x14xf32> {
  %w = dlc.constant dense<0.5> : tensor<64x384x1x1xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x384x14x14xf32>, tensor<64x384x1x1xf32>) -> tensor<1x64x14x14xf32>
  return %c : tensor<1x64x14x14xf32>
}
