// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=6 pad-lanes=16" | FileCheck %s

// A conv with a constant filter in the CPU register tile's layout: the 8
// filters become two panels of 6 rows (4 zero rows), the 25 output pixels
// are padded to 32 (a multiple of 16). (Small maps once took 12-row panels
// of 8 lanes; 6 x 16 over more padding measured faster.) The columns are
// written through a view of their padded buffer; the GEMM runs over (n,
// panel, row, pixel, k); the result is the first 8 x 25 corner of the
// padded accumulator.
// CHECK-DAG: #[[$WMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d2)>
// CHECK-DAG: #[[$CMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
// CHECK-DAG: #[[$OMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_panels
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x7x7xf32>)
// CHECK-DAG: %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<1x36x32xf32>
// CHECK-DAG: %[[VIEW:.*]] = tensor.extract_slice %[[BUF]][0, 0, 0] [1, 36, 25] [1, 1, 1]
// CHECK-DAG: %[[INTO:.*]] = tensor.expand_shape %[[VIEW]] {{.*}} into tensor<1x4x3x3x5x5xf32>
// CHECK: %[[COL:.*]] = linalg.generic {{.*}} outs(%[[INTO]] : tensor<1x4x3x3x5x5xf32>)
// CHECK: tensor.extract %[[X]]
// CHECK: %[[COL3:.*]] = tensor.collapse_shape %[[COL]] {{.*}} into tensor<1x36x25xf32>
// CHECK: %[[COLS:.*]] = tensor.insert_slice %[[COL3]] into %[[BUF]][0, 0, 0] [1, 36, 25] [1, 1, 1]
// The zero start fills the whole padded accumulator (one fill, which
// dlc-tile-and-vectorize moves into the GEMM's tiles).
// CHECK: %[[ABUF:.*]] = bufferization.alloc_tensor() : tensor<1x12x32xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[ABUF]] : tensor<1x12x32xf32>)
// CHECK: %[[ACC4:.*]] = tensor.expand_shape %[[ACC]] {{\[}}[0], [1, 2], [3]] {{.*}} into tensor<1x2x6x32xf32>
// The GEMM over (n, panel, row, pixel, k) reads the filter panels
// [panel, k, row], the columns [n, k, pixel].
// CHECK: %[[GEMM:.*]] = linalg.generic {indexing_maps = [#[[$WMAP]], #[[$CMAP]], #[[$OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[WP:.*]], %[[COLS]] : tensor<2x36x6xf32>, tensor<1x36x32xf32>) outs(%[[ACC4]] : tensor<1x2x6x32xf32>)
// CHECK: %[[OUT3:.*]] = tensor.collapse_shape %[[GEMM]] {{.*}} into tensor<1x12x32xf32>
// CHECK: %[[CORNER:.*]] = tensor.extract_slice %[[OUT3]][0, 0, 0] [1, 8, 25] [1, 1, 1]
// CHECK: tensor.expand_shape %[[CORNER]] {{.*}} into tensor<1x8x5x5xf32>
func.func @conv_panels(%x: tensor<1x4x7x7xf32>) -> tensor<1x8x5x5xf32> {
  %w = arith.constant dense<0.5> : tensor<8x4x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x5x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x7x7xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x5x5xf32>) -> tensor<1x8x5x5xf32>
  return %0 : tensor<1x8x5x5xf32>
}

// -----

// A 1x1 conv over 9 pixels: its input is copied into a 16-pixel buffer,
// through a [1, 4, 3, 3] view of the buffer's first 9 pixels; an
// accumulator computed elsewhere (here an argument) is copied into the
// corner of the padded one.
// CHECK-LABEL: func.func @pointwise_panels
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3x3xf32>, %[[INIT:.*]]: tensor<1x6x3x3xf32>)
// CHECK: %[[XBUF:.*]] = bufferization.alloc_tensor() : tensor<1x4x16xf32>
// CHECK: %[[XCORNER:.*]] = tensor.extract_slice %[[XBUF]][0, 0, 0] [1, 4, 9] [1, 1, 1]
// CHECK: %[[XVIEW:.*]] = tensor.expand_shape %[[XCORNER]] {{\[}}[0], [1], [2, 3]] output_shape [1, 4, 3, 3]
// CHECK: %[[XC:.*]] = linalg.copy ins(%[[X]] : tensor<1x4x3x3xf32>) outs(%[[XVIEW]] : tensor<1x4x3x3xf32>)
// CHECK: %[[XC3:.*]] = tensor.collapse_shape %[[XC]] {{\[}}[0], [1], [2, 3]] : tensor<1x4x3x3xf32> into tensor<1x4x9xf32>
// CHECK: %[[XP:.*]] = tensor.insert_slice %[[XC3]] into %[[XBUF]][0, 0, 0] [1, 4, 9] [1, 1, 1]
// CHECK: linalg.copy ins(%[[INIT]] : tensor<1x6x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[XP]] : tensor<1x4x6xf32>, tensor<1x4x16xf32>) outs(%{{.*}} : tensor<1x1x6x16xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [1, 6, 9] [1, 1, 1]
func.func @pointwise_panels(%x: tensor<1x4x3x3xf32>, %init: tensor<1x6x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %w = arith.constant dense<0.25> : tensor<6x4x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x3x3xf32>, tensor<6x4x1x1xf32>) outs(%init : tensor<1x6x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// When the 1x1 conv's input is computed from nothing by an elementwise op (a
// depthwise conv's taps), that op writes the padded buffer itself: no copy.
// CHECK-LABEL: func.func @pointwise_after_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3x3xf32>)
// CHECK: %[[XBUF:.*]] = bufferization.alloc_tensor() : tensor<1x4x16xf32>
// CHECK: %[[XCORNER:.*]] = tensor.extract_slice %[[XBUF]][0, 0, 0] [1, 4, 9] [1, 1, 1]
// CHECK: %[[XVIEW:.*]] = tensor.expand_shape %[[XCORNER]]
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x4x3x3xf32>) outs(%[[XVIEW]] : tensor<1x4x3x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[R3:.*]] = tensor.collapse_shape %[[RELU]]
// CHECK: %[[XP:.*]] = tensor.insert_slice %[[R3]] into %[[XBUF]]
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[XP]] : tensor<1x4x6xf32>, tensor<1x4x16xf32>)
func.func @pointwise_after_elementwise(%x: tensor<1x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x3x3xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x3x3xf32>) outs(%e : tensor<1x4x3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x3x3xf32>
  %w = arith.constant dense<0.25> : tensor<6x4x1x1xf32>
  %oe = tensor.empty() : tensor<1x6x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x6x3x3xf32>) -> tensor<1x6x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%relu, %w : tensor<1x4x3x3xf32>, tensor<6x4x1x1xf32>) outs(%init : tensor<1x6x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// Likewise a forall over the input's planes (dlc-slide-taps-in-registers'
// kernel): its shared output becomes the padded buffer's corner.
// CHECK-LABEL: func.func @pointwise_after_forall
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3x3xf32>)
// CHECK: %[[XBUF:.*]] = bufferization.alloc_tensor() : tensor<1x4x16xf32>
// CHECK: %[[XCORNER:.*]] = tensor.extract_slice %[[XBUF]][0, 0, 0] [1, 4, 9] [1, 1, 1]
// CHECK: %[[XVIEW:.*]] = tensor.expand_shape %[[XCORNER]]
// CHECK: %[[PLANES:.*]] = scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %[[XVIEW]]) -> (tensor<1x4x3x3xf32>)
// CHECK: %[[R3:.*]] = tensor.collapse_shape %[[PLANES]]
// CHECK: %[[XP:.*]] = tensor.insert_slice %[[R3]] into %[[XBUF]]
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[XP]] : tensor<1x4x6xf32>, tensor<1x4x16xf32>)
func.func @pointwise_after_forall(%x: tensor<1x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x3x3xf32>
  %planes = scf.forall (%c) in (4) shared_outs(%o = %e) -> (tensor<1x4x3x3xf32>) {
    %p = tensor.extract_slice %x[0, %c, 0, 0] [1, 1, 3, 3] [1, 1, 1, 1] : tensor<1x4x3x3xf32> to tensor<1x1x3x3xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %p into %o[0, %c, 0, 0] [1, 1, 3, 3] [1, 1, 1, 1] : tensor<1x1x3x3xf32> into tensor<1x4x3x3xf32>
    }
  }
  %w = arith.constant dense<0.25> : tensor<6x4x1x1xf32>
  %oe = tensor.empty() : tensor<1x6x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%oe : tensor<1x6x3x3xf32>) -> tensor<1x6x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%planes, %w : tensor<1x4x3x3xf32>, tensor<6x4x1x1xf32>) outs(%init : tensor<1x6x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// A filter that is not a constant (a training build's parameter) keeps the
// plain GEMM.
// CHECK-LABEL: func.func @parameter_filter
// CHECK-NOT: alloc_tensor
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x36xf32>, tensor<1x36x16xf32>)
func.func @parameter_filter(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A larger map (81 pixels, more than 4 tiles of 16) keeps 6 rows x 16
// lanes: 8 filters in 2 panels, pixels padded to 96.
// CHECK-LABEL: func.func @conv_panels_6x16
// CHECK: bufferization.alloc_tensor() : tensor<1x36x96xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x36x6xf32>, tensor<1x36x96xf32>) outs(%{{.*}} : tensor<1x2x6x96xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [1, 8, 81] [1, 1, 1]
func.func @conv_panels_6x16(%x: tensor<1x4x11x11xf32>) -> tensor<1x8x9x9xf32> {
  %w = arith.constant dense<0.5> : tensor<8x4x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x9x9xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x11x11xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x9x9xf32>) -> tensor<1x8x9x9xf32>
  return %0 : tensor<1x8x9x9xf32>
}

// -----

// 16 filters over 49 pixels pad to 18 x 64 in 6 x 16 tiles but to 16 x 50
// in the transposed tile (pixelRows: 5 pixels x 16 filters, one pixel
// fewer than the target's 6 rows where that pads less: 50 against 54),
// 1/4 less work, and 672 channels make enough multiply-adds (2^19) to pay
// for packing: the filter goes in one 16-lane panel [1, K, 16], the pixels
// to 50; the padded columns [1, K, 50] are packed into 5-pixel row tiles
// [1, 10, K, 5] (a k step's 5 broadcasts contiguous), and the GEMM runs
// over (n, panel, tile, r, row, k), its output map putting the rows back
// before the pixels (NCHW, the 50 pixels as 10 x 5).
// CHECK-DAG: #[[$PACK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[$TW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d5, d4)>
// CHECK-DAG: #[[$TC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d5, d3)>
// CHECK-DAG: #[[$TO:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d2, d3)>
// CHECK-LABEL: func.func @pointwise_pixel_rows
// CHECK-SAME: dlc.conv_kernels = ["?: 1x1 as GEMM, no im2col; filter in 16-lane panels (16 -> 16 filters), 5-pixel rows (49 -> 50 pixels)"]
// CHECK-DAG: %[[WP:.*]] = arith.constant dense_resource<packed_filter> : tensor<1x672x16xf32>
// CHECK-DAG: %[[XBUF:.*]] = bufferization.alloc_tensor() : tensor<1x672x50xf32>
// CHECK: %[[XP:.*]] = tensor.insert_slice %{{.*}} into %[[XBUF]][0, 0, 0] [1, 672, 49] [1, 1, 1]
// CHECK: %[[X4:.*]] = tensor.expand_shape %[[XP]] {{\[}}[0], [1], [2, 3]] output_shape [1, 672, 10, 5]
// CHECK: %[[TBUF:.*]] = bufferization.alloc_tensor() : tensor<1x10x672x5xf32>
// CHECK: %[[TILES:.*]] = linalg.generic {indexing_maps = [#[[$PACK]], #{{.*}}], {{.*}}} ins(%[[X4]] : tensor<1x672x10x5xf32>) outs(%[[TBUF]] : tensor<1x10x672x5xf32>)
// CHECK: %[[ACC:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3, 4]] output_shape [1, 1, 16, 10, 5]
// CHECK: %[[GEMM:.*]] = linalg.generic {indexing_maps = [#[[$TW]], #[[$TC]], #[[$TO]]], {{.*}}} ins(%[[WP]], %[[TILES]] : tensor<1x672x16xf32>, tensor<1x10x672x5xf32>) outs(%[[ACC]] : tensor<1x1x16x10x5xf32>)
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[GEMM]] {{\[}}[0], [1, 2], [3, 4]] {{.*}} into tensor<1x16x50xf32>
// CHECK: tensor.extract_slice %[[OUT]][0, 0, 0] [1, 16, 49] [1, 1, 1]
func.func @pointwise_pixel_rows(%x: tensor<1x672x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %w = arith.constant dense<0.25> : tensor<16x672x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x16x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x672x7x7xf32>, tensor<16x672x1x1xf32>) outs(%init : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}
