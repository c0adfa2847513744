// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16" | FileCheck %s --check-prefix=NARROW
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32" | FileCheck %s --check-prefix=WIDE
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16 min-tail-panels=8" | FileCheck %s --check-prefix=FEW
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16 min-tail-panels=8 depth-tile=2" | FileCheck %s --check-prefix=SPLITK

// AVX-512's register tile is 12 rows x 32 lanes (two vectors); a GEMM
// whose pixels 32-lane tiles would pad by more than 1/8 beyond 16-lane ones
// takes 16-lane tiles (12 x 16, one vector) instead. 16 pixels (Winograd's
// 16 tiles on 14x14 maps): 32 lanes would double the GEMM.
// NARROW-LABEL: func.func @sixteen_pixels
// NARROW: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x12xf32>, tensor<1x4x16xf32>) outs(%{{.*}} : tensor<1x1x12x16xf32>)
// WIDE-LABEL: func.func @sixteen_pixels
// WIDE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x12xf32>, tensor<1x4x32xf32>) outs(%{{.*}} : tensor<1x1x12x32xf32>)
func.func @sixteen_pixels(%x: tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32> {
  %w = arith.constant dense<0.25> : tensor<12x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x12x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x12x4x4xf32>) -> tensor<1x12x4x4xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x4xf32>, tensor<12x4x1x1xf32>) outs(%init : tensor<1x12x4x4xf32>) -> tensor<1x12x4x4xf32>
  return %0 : tensor<1x12x4x4xf32>
}

// -----

// 196 pixels (14x14 maps): 224 in 32-lane tiles against 208 in 16-lane
// ones, 1/13 more: the wide tile stays.
// NARROW-LABEL: func.func @fourteen_by_fourteen
// NARROW: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x12xf32>, tensor<1x4x224xf32>) outs(%{{.*}} : tensor<1x1x12x224xf32>)
// WIDE-LABEL: func.func @fourteen_by_fourteen
// WIDE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x12xf32>, tensor<1x4x224xf32>) outs(%{{.*}} : tensor<1x1x12x224xf32>)
func.func @fourteen_by_fourteen(%x: tensor<1x4x14x14xf32>) -> tensor<1x12x14x14xf32> {
  %w = arith.constant dense<0.25> : tensor<12x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x12x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x14x14xf32>, tensor<12x4x1x1xf32>) outs(%init : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
  return %0 : tensor<1x12x14x14xf32>
}

// -----

// With 32 panels or more (dlc::kMinTailPanels: the cache tiles are then
// single panels over all the pixels), the wide tile takes a 16-lane tail
// instead: 208 pixels, six 32-lane tiles and a 16-lane one
// (dlc-tile-and-vectorize peels it). Without narrow lanes (AVX2's layout)
// no tail: 224.
// NARROW-LABEL: func.func @pixel_tail
// NARROW-SAME: 32-lane tiles and a 16-lane one (196 -> 208 pixels)
// NARROW: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x4x12xf32>, tensor<1x4x208xf32>) outs(%{{.*}} : tensor<1x32x12x208xf32>)
// WIDE-LABEL: func.func @pixel_tail
// WIDE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x4x12xf32>, tensor<1x4x224xf32>) outs(%{{.*}} : tensor<1x32x12x224xf32>)
func.func @pixel_tail(%x: tensor<1x4x14x14xf32>) -> tensor<1x384x14x14xf32> {
  %w = arith.constant dense<0.25> : tensor<384x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x384x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x384x14x14xf32>) -> tensor<1x384x14x14xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x14x14xf32>, tensor<384x4x1x1xf32>) outs(%init : tensor<1x384x14x14xf32>) -> tensor<1x384x14x14xf32>
  return %0 : tensor<1x384x14x14xf32>
}

// -----

// 96 filters, 8 panels of 12: under 32 panels no tail (224 pixels); a
// target of two cores (`min-tail-panels=8`, dlc::minTailPanelsFor) takes
// the 16-lane tail over them (208), unless dlc-tile-and-vectorize splits
// its K (`depth-tile=2` against 4 deep): its peeled tail needs K whole, so
// 224 pixels in 32-lane tiles.
// NARROW-LABEL: func.func @few_panels
// NARROW: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4x12xf32>, tensor<1x4x224xf32>) outs(%{{.*}} : tensor<1x8x12x224xf32>)
// FEW-LABEL: func.func @few_panels
// FEW-SAME: 32-lane tiles and a 16-lane one (196 -> 208 pixels)
// FEW: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4x12xf32>, tensor<1x4x208xf32>) outs(%{{.*}} : tensor<1x8x12x208xf32>)
// SPLITK-LABEL: func.func @few_panels
// SPLITK-SAME: 32-lane tiles (196 -> 224 pixels)
// SPLITK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x4x12xf32>, tensor<1x4x224xf32>) outs(%{{.*}} : tensor<1x8x12x224xf32>)
func.func @few_panels(%x: tensor<1x4x14x14xf32>) -> tensor<1x96x14x14xf32> {
  %w = arith.constant dense<0.25> : tensor<96x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x96x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x14x14xf32>, tensor<96x4x1x1xf32>) outs(%init : tensor<1x96x14x14xf32>) -> tensor<1x96x14x14xf32>
  return %0 : tensor<1x96x14x14xf32>
}
