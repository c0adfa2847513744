// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16" | FileCheck %s

// AVX-512's layout (12 rows x 32 lanes): a GEMM at least 2048 deep over a
// 7x7 map takes the transposed tile, 32-lane filter panels by rows of 7
// pixels (49 pixels whole, against 64 in 32-lane tiles).
// CHECK-LABEL: func.func @deep_7x7
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (64 -> 64 filters), 7-pixel rows (49 -> 49 pixels)"]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x2048x32xf32>, tensor<1x7x2048x7xf32>)
func.func @deep_7x7(%x: tensor<1x2048x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<64x2048x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2048x7x7xf32>, tensor<64x2048x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// Shallower GEMMs over a 7x7 map take it too: rows of 7 pad 49 pixels a
// fifth less than 32-lane tiles (MobileNetV2's 160- to 960-deep convs ran
// 15-25% faster in it on Zen 5).
// CHECK-LABEL: func.func @shallower_7x7
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (64 -> 64 filters), 7-pixel rows (49 -> 49 pixels)"]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x256x32xf32>, tensor<1x7x256x7xf32>)
func.func @shallower_7x7(%x: tensor<1x256x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<64x256x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x7x7xf32>, tensor<64x256x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// Under 160 deep they keep the row panels (8 rows for 64 filters) over
// 32-lane tiles (Winograd's 128-deep GEMMs over 49 tiles ran no faster).
// CHECK-LABEL: func.func @shallow_7x7
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 8-row panels (64 -> 64 rows), 32-lane tiles (49 -> 64 pixels)"]
func.func @shallow_7x7(%x: tensor<1x128x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<64x128x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x128x7x7xf32>, tensor<64x128x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// A 14x14 map (196 pixels) at least 256 deep over at least 256 filters:
// rows of 14 pixels, the map whole, where 32-lane tiles pad it to 224.
// The transpose that packs the row tiles [N, OH, C, OW] is shared out by
// channel (dim 2), as the input's producer wrote them.
// CHECK-LABEL: func.func @rows_of_14
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 32-lane panels (256 -> 256 filters), 14-pixel rows (196 -> 196 pixels)"]
// CHECK: %[[TILES:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x256x14x14xf32>) outs(%{{.*}} : tensor<1x14x256x14xf32>) attrs = {dlc.share_by_dim = 2 : i64}
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[TILES]] : tensor<8x256x32xf32>, tensor<1x14x256x14xf32>)
func.func @rows_of_14(%x: tensor<1x256x14x14xf32>, %init: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %w = arith.constant dense<0.25> : tensor<256x256x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x256x14x14xf32>, tensor<256x256x1x1xf32>) outs(%init : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %0 : tensor<1x256x14x14xf32>
}

// -----

// Fewer filters (96: three panels to pack the columns for) keep the row
// panels; rows of 7 would pad 196 pixels only an eighth less. Its 8
// panels are too few for a 16-lane tail (dlc::kMinTailPanels; see
// dlc-conv-to-im2col-narrow-lanes.mlir).
// CHECK-LABEL: func.func @few_filters_14x14
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 12-row panels (96 -> 96 rows), 32-lane tiles (196 -> 224 pixels)"]
func.func @few_filters_14x14(%x: tensor<1x576x14x14xf32>, %init: tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32> {
  %w = arith.constant dense<0.25> : tensor<96x576x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x576x14x14xf32>, tensor<96x576x1x1xf32>) outs(%init : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  return %0 : tensor<1x96x14x14xf32>
}

// -----

// A 3x3 stride-2 conv onto a 7x7 map (ResNet's first conv of a stage) in
// rows of 7 pixels: im2col writes the GEMM's row tiles [N, OH, C*KH*KW,
// OW] itself, as [N, OH, C, KH, KW, OW] (marked for
// dlc-tile-and-vectorize, which shares them out by channel, dim 2), and no
// transpose packs them after it.
// CHECK-LABEL: func.func @strided_3x3_7x7
// CHECK-SAME: dlc.conv_kernels = ["?: im2col + GEMM; filter in 32-lane panels (64 -> 64 filters), 7-pixel rows (49 -> 49 pixels)"]
// CHECK: %[[COLS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x7x256x3x3x7xf32>) attrs = {dlc.row_tile_columns, dlc.share_by_dim = 2 : i64}
// CHECK: %[[ROW:.*]] = linalg.index 1 : index
// CHECK: %[[ROW2:.*]] = arith.muli %[[ROW]], %c2
// CHECK: %[[TILES:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0], [1], [2, 3, 4], [5]] : tensor<1x7x256x3x3x7xf32> into tensor<1x7x2304x7xf32>
// CHECK-NOT: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2304x7x7xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[TILES]] : tensor<2x2304x32xf32>, tensor<1x7x2304x7xf32>)
func.func @strided_3x3_7x7(%x: tensor<1x256x16x16xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<64x256x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x256x16x16xf32>, tensor<64x256x3x3xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}
