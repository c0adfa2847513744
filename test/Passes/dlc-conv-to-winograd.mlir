// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-winograd="max-tile=2 min-pixels=1 min-channels=1 pack-rows=6 pad-lanes=16" | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-winograd | FileCheck %s --check-prefix=DEFAULT

// F(2x2, 3x3) on a 6x8 output: 3x4 tiles from 4x4 patches. The input rows
// are split into their 2 phases ([.., 8, 2, 5], one gather), the input
// transform runs as a row stage over (n, c, a, ty, q) and a column stage
// over (a, b, n, c, ty, tx) into the first 12 tiles of V [16, N, C, 16]
// (tiles padded to the 16 lanes of the 6-row panels). The split and both
// stages are marked to go a channel a forall iteration (dlc.forall_dims:
// (n, c), for the column stage dims 2 and 3, channel first), so that they
// run as one loop per channel; 16 GEMMs as one
// generic (ab, n, panel, row, tile, c) over the filter transformed and
// packed at compile time [16, 1, C, 6]; the output
// transform as a row stage (a generic) and a column stage, an scf.forall
// over output rows (n, f, y) whose vector code reads a row of tiles of
// each of S's 4 columns, sums them (At's +-1 terms as adds and
// subtracts), interleaves the 2 results (tile-major: each tile's 2
// outputs side by side) and adds them into the row of the conv's
// accumulator (here an argument, so read back). (GEMM work per channel
// pair: 16 x 16 against im2col's 9 x 48.)
// CHECK-DAG: #[[$UMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d5, d3)>
// CHECK-DAG: #[[$VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>
// CHECK-DAG: #[[$MMAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @winograd_f2
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x10xf32>, %[[INIT:.*]]: tensor<1x3x6x8xf32>)
// CHECK-SAME: dlc.conv_kernels = ["?: Winograd F(2x2,3x3), 16 GEMMs over 12 tiles; transformed filter in 6-row panels (3 -> 6 rows), 16-lane tiles (12 -> 16 tiles)"]
// CHECK: %[[U:.*]] = arith.constant dense_resource<winograd_filter> : tensor<16x1x2x6xf32>
// CHECK: %[[SPLIT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x8x2x5xf32>) attrs = {dlc.forall_dims = array<i64: 0, 1>}
// CHECK: tensor.extract %[[X]]
// CHECK: %[[XD:.*]] = tensor.collapse_shape %[[SPLIT]] {{.*}} into tensor<1x2x8x10xf32>
// CHECK: %[[VBUF:.*]] = bufferization.alloc_tensor() : tensor<16x1x2x16xf32>
// CHECK: %[[CORNER:.*]] = tensor.extract_slice %[[VBUF]][0, 0, 0, 0] [16, 1, 2, 12] [1, 1, 1, 1]
// CHECK: %[[INTO:.*]] = tensor.expand_shape %[[CORNER]] {{.*}} into tensor<4x4x1x2x3x4xf32>
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x4x3x10xf32>) attrs = {dlc.forall_dims = array<i64: 0, 1>}
// CHECK: tensor.extract %[[XD]]
// CHECK: %[[COLS:.*]] = linalg.generic {{.*}} outs(%[[INTO]] : tensor<4x4x1x2x3x4xf32>) attrs = {dlc.forall_dims = array<i64: 2, 3>, dlc.share_by_dim = 3 : i64}
// CHECK: tensor.extract %[[ROWS]]
// CHECK: %[[V12:.*]] = tensor.collapse_shape %[[COLS]] {{.*}} into tensor<16x1x2x12xf32>
// CHECK: %[[V:.*]] = tensor.insert_slice %[[V12]] into %[[VBUF]][0, 0, 0, 0] [16, 1, 2, 12] [1, 1, 1, 1]
// CHECK: %[[GEMM:.*]] = linalg.generic {indexing_maps = [#[[$UMAP]], #[[$VMAP]], #[[$MMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[U]], %[[V]] : tensor<16x1x2x6xf32>, tensor<16x1x2x16xf32>) outs(%{{.*}} : tensor<16x1x1x6x16xf32>)
// CHECK: %[[M:.*]] = tensor.collapse_shape %[[GEMM]] {{.*}} into tensor<16x1x6x16xf32>
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x2x4x16xf32>)
// CHECK: tensor.extract %[[M]]
// CHECK: %[[Y:.*]] = scf.forall (%[[N:.*]], %[[F:.*]], %[[ROW:.*]]) in (1, 3, 6) shared_outs(%[[ACC:.*]] = %[[INIT]]) -> (tensor<1x3x6x8xf32>)
// CHECK: %[[TY:.*]] = arith.divui %[[ROW]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.remui %[[ROW]], %{{.*}} : index
// CHECK: %[[P:.*]] = arith.muli %[[TY]], %{{.*}} : index
// CHECK: %[[OUTROW:.*]] = tensor.extract_slice %[[ACC]][%[[N]], %[[F]], %[[ROW]], 0] [1, 1, 1, 8]
// CHECK: %[[S0:.*]] = vector.transfer_read %[[S]][%[[N]], %[[F]], %[[I]], %{{.*}}, %[[P]]]{{.*}} : tensor<1x3x2x4x16xf32>, vector<4xf32>
// CHECK-COUNT-3: vector.transfer_read %[[S]]
// CHECK: %[[Y0:.*]] = arith.addf
// CHECK: %[[Y1:.*]] = arith.subf
// CHECK: %[[BOTH:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// CHECK: %[[OLD:.*]] = vector.transfer_read %[[OUTROW]]{{.*}} vector<8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[BOTH]] : vector<8xf32>
// CHECK: %[[NEW:.*]] = vector.transfer_write %[[SUM]], %[[OUTROW]]
// CHECK: tensor.parallel_insert_slice %[[NEW]] into %[[ACC]][%[[N]], %[[F]], %[[ROW]], 0] [1, 1, 1, 8]
// CHECK: return %[[Y]]
// The default keeps im2col for maps under 49 pixels.
// DEFAULT-LABEL: func.func @winograd_f2
// DEFAULT: linalg.conv_2d_nchw_fchw
func.func @winograd_f2(%x: tensor<1x2x8x10xf32>, %init: tensor<1x3x6x8xf32>) -> tensor<1x3x6x8xf32> {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x8x10xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x6x8xf32>) -> tensor<1x3x6x8xf32>
  return %0 : tensor<1x3x6x8xf32>
}

// -----

// F(4x4, 3x3) on 8x24 output (2x6 tiles) with 4-lane vectors: each output
// row in a block of 4 tiles and a block of 2, the 4 column sums of a block
// interleaved in two steps (y0 with y2, y1 with y3, then those two) into
// 16 and 8 contiguous outputs. The accumulator starts at zero (nothing
// added); the Relu that read the conv's result runs on those vectors
// before the store and is gone.
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-winograd="max-tile=4 min-pixels=1 min-channels=1 vector-width=4" | FileCheck %s --check-prefix=F4
// CHECK-LABEL: func.func @winograd_f4_relu
// F4-LABEL: func.func @winograd_f4_relu
// F4-SAME: dlc.conv_kernels = ["?: Winograd F(4x4,3x3), 36 GEMMs over 12 tiles; {{.*}}, epilogue in registers"]
// The input (an argument, 26 columns) is too narrow for 7 tiles of 4: the
// phase split's first 6 tiles need no clamp (a generic of their own, its
// stride-4 reads contiguous loads once lowered); the last one clamps.
// F4: %[[SPLIT:.*]] = tensor.empty() : tensor<1x2x10x4x7xf32>
// F4: %[[MAIN:.*]] = tensor.extract_slice %[[SPLIT]][0, 0, 0, 0, 0] [1, 2, 10, 4, 6]
// F4: linalg.generic {{.*}} outs(%[[MAIN]] : tensor<1x2x10x4x6xf32>)
// F4-NOT: arith.minsi
// F4: linalg.yield
// F4: %[[WITHMAIN:.*]] = tensor.insert_slice
// F4: %[[TAIL:.*]] = tensor.extract_slice %[[WITHMAIN]][0, 0, 0, 0, 6] [1, 2, 10, 4, 1]
// F4: linalg.generic {{.*}} outs(%[[TAIL]] : tensor<1x2x10x4x1xf32>)
// F4: arith.minsi
// F4: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 3, 8)
// F4-COUNT-6: vector.transfer_read %{{.*}} : tensor<1x3x4x6x16xf32>, vector<4xf32>
// F4: %[[A:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// F4: %[[B:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// F4: %[[AB:.*]] = vector.interleave %[[A]], %[[B]] : vector<8xf32> -> vector<16xf32>
// F4: %[[RELU:.*]] = arith.maximumf %[[AB]], %{{.*}} : vector<16xf32>
// F4: %[[ROW:.*]] = vector.transfer_write %[[RELU]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {{.*}} : vector<16xf32>, tensor<1x1x1x24xf32>
// F4-COUNT-6: vector.transfer_read %{{.*}} : tensor<1x3x4x6x16xf32>, vector<2xf32>
// F4: vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// F4: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// F4: vector.transfer_write %{{.*}}, %[[ROW]][%{{.*}}, %{{.*}}, %{{.*}}, %c16] {{.*}} : vector<8xf32>, tensor<1x1x1x24xf32>
// F4-NOT: linalg.generic
// F4: return
func.func @winograd_f4_relu(%x: tensor<1x2x10x26xf32>) -> tensor<1x3x8x24xf32> {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x3x8x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x3x8x24xf32>) -> tensor<1x3x8x24xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x10x26xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x8x24xf32>) -> tensor<1x3x8x24xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x3x8x24xf32>) outs(%empty : tensor<1x3x8x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x8x24xf32>
  return %1 : tensor<1x3x8x24xf32>
}

// -----

// The conv's input is a zero pad to 18 columns; F(4x4)'s 4 tiles of 4 take
// 20 (5 tiles of 4 in the phase split): the pad is made 2 columns wider
// (zeros the conv never reads) and the split reads no clamped column.
// F4-LABEL: func.func @winograd_wider_pad
// F4: %[[XP:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 3]
// F4: } : tensor<1x2x16x16xf32> to tensor<1x2x18x20xf32>
// F4: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x18x4x5xf32>)
// F4-NOT: arith.minsi
// F4: tensor.extract %[[XP]]
// F4-NOT: arith.minsi
// F4: linalg.yield
func.func @winograd_wider_pad(%x: tensor<1x2x16x16xf32>) -> tensor<1x3x16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x16x16xf32> to tensor<1x2x18x18xf32>
  %empty = tensor.empty() : tensor<1x3x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x3x16x16xf32>) -> tensor<1x3x16x16xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<1x2x18x18xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x16x16xf32>) -> tensor<1x3x16x16xf32>
  return %0 : tensor<1x3x16x16xf32>
}

// -----

// The conv's accumulator is its bias broadcast ([F] along the filters):
// each output row starts from its filter's bias, added in registers. The
// generic that reads the result (a BatchNorm's scale and shift per
// filter, a residual add and a Relu) runs on the same vectors: the scale
// and shift as one scalar a row, the residual as the row's vector read.
// CHECK-LABEL: func.func @winograd_bn_residual
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x10x10xf32>, %[[RES:.*]]: tensor<1x3x8x8xf32>)
// CHECK-SAME: epilogue in registers
// CHECK: %[[BIAS:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK: %[[DEST:.*]] = tensor.empty() : tensor<1x3x8x8xf32>
// CHECK: scf.forall (%[[N:.*]], %[[F:.*]], %[[ROW:.*]]) in (1, 3, 8) shared_outs(%{{.*}} = %[[DEST]])
// CHECK: %[[TILES:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<4xf32> -> vector<8xf32>
// CHECK: %[[B:.*]] = tensor.extract %[[BIAS]][%[[F]]] : tensor<3xf32>
// CHECK: %[[BV:.*]] = vector.broadcast %[[B]] : f32 to vector<8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[BV]], %[[TILES]] : vector<8xf32>
// CHECK: tensor.extract %{{.*}}[%[[F]]] : tensor<3xf32>
// CHECK: tensor.extract %{{.*}}[%[[F]]] : tensor<3xf32>
// CHECK: %[[R:.*]] = vector.transfer_read %[[RES]][%[[N]], %[[F]], %[[ROW]], %{{.*}}]{{.*}} : tensor<1x3x8x8xf32>, vector<8xf32>
// CHECK: %[[BN:.*]] = math.fma %[[SUM]], %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[ADD:.*]] = arith.addf %[[BN]], %[[R]] : vector<8xf32>
// CHECK: %[[RELU:.*]] = arith.maximumf %[[ADD]], %{{.*}} : vector<8xf32>
// CHECK: vector.transfer_write %[[RELU]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @winograd_bn_residual(%x: tensor<1x2x10x10xf32>, %res: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %bias = arith.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %scale = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %shift = arith.constant dense<[0.5, -0.5, 1.5]> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x3x8x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<3xf32>) outs(%empty : tensor<1x3x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x10x10xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %scale, %shift, %res : tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3x8x8xf32>) outs(%empty : tensor<1x3x8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %b: f32, %r: f32, %out: f32):
    %2 = math.fma %in, %s, %b : f32
    %3 = arith.addf %2, %r : f32
    %4 = arith.maximumf %3, %zero : f32
    linalg.yield %4 : f32
  } -> tensor<1x3x8x8xf32>
  return %1 : tensor<1x3x8x8xf32>
}

// -----

// A 5x5 output takes 3x3 tiles of 2 that overhang it: the rows and columns
// past the input read as zeros (a select in the phase split, 8 rows), the
// output transform writes a 6x6 accumulator, in rows of 3 tiles (6
// outputs), whose 5x5 corner is the result. The conv's accumulator is a
// zero fill: nothing is added, and the fill is gone.
// CHECK-LABEL: func.func @winograd_overhang
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x8x2x4xf32>)
// CHECK: arith.select
// CHECK: %[[ABUF:.*]] = bufferization.alloc_tensor() : tensor<1x3x6x6xf32>
// CHECK: %[[Y:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[ABUF]]) -> (tensor<1x3x6x6xf32>)
// CHECK: %[[ROW:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<3xf32> -> vector<6xf32>
// CHECK-NEXT: vector.transfer_write %[[ROW]]
// CHECK: %[[RES:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [1, 3, 5, 5] [1, 1, 1, 1]
// CHECK-NOT: linalg.fill {{.*}} tensor<1x3x5x5xf32>
// CHECK: return %[[RES]]
func.func @winograd_overhang(%x: tensor<1x2x7x7xf32>) -> tensor<1x3x5x5xf32> {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x3x5x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x7x7xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

// Left to im2col: a stride-2 conv, a filter that is not a constant (a
// training build's parameter), and a 4x4 output, whose F(2x2) GEMMs (16 x
// 16 per channel pair, at the memory floor) would cost more than im2col's
// (9 x 16).
// CHECK-LABEL: func.func @not_winograd
// CHECK-COUNT-3: linalg.conv_2d_nchw_fchw
// CHECK-NOT: Winograd
func.func @not_winograd(%x: tensor<1x2x9x9xf32>, %wp: tensor<3x2x3x3xf32>, %y: tensor<1x2x6x6xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x7x7xf32>, tensor<1x3x4x4xf32>) {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x4x4xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x2x9x9xf32>, tensor<3x2x3x3xf32>) outs(%i0 : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %e1 = tensor.empty() : tensor<1x3x7x7xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wp : tensor<1x2x9x9xf32>, tensor<3x2x3x3xf32>) outs(%i1 : tensor<1x3x7x7xf32>) -> tensor<1x3x7x7xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %w : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) outs(%i0 : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %0, %1, %2 : tensor<1x3x4x4xf32>, tensor<1x3x7x7xf32>, tensor<1x3x4x4xf32>
}

// -----

// With cache-workspace-bytes, a batch whose transformed input V would be
// larger runs in image chunks: V is 16 x 2 x 16 floats (2 KB) per image, so
// a 3 KB bound gives an scf.for over the 2 images, one conv each. The
// loop starts from an empty tensor and each chunk from its own zeros (added
// in registers): the loop's tensor is only written, never read back.
// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-winograd="max-tile=2 min-pixels=1 min-channels=1 cache-workspace-bytes=3072" | FileCheck %s --check-prefix=CHUNK
// CHECK-LABEL: func.func @winograd_chunks
// CHUNK-LABEL: func.func @winograd_chunks
// CHUNK-SAME: (%[[X:.*]]: tensor<2x2x8x10xf32>)
// CHUNK: %[[U:.*]] = arith.constant dense_resource<winograd_filter> : tensor<16x1x2x6xf32>
// CHUNK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x3x6x8xf32>
// CHUNK: scf.for %[[AT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[EMPTY]]) -> (tensor<2x3x6x8xf32>)
// CHUNK-NOT: tensor.extract_slice %[[ACC]]
// CHUNK: tensor.extract_slice %[[X]][%[[AT]], 0, 0, 0] [1, 2, 8, 10]
// CHUNK: bufferization.alloc_tensor() : tensor<16x1x2x16xf32>
// CHUNK: linalg.generic {{.*}} ins(%[[U]], %{{.*}} : tensor<16x1x2x6xf32>, tensor<16x1x2x16xf32>)
// CHUNK: tensor.insert_slice %{{.*}} into %[[ACC]][%[[AT]], 0, 0, 0] [1, 3, 6, 8]
func.func @winograd_chunks(%x: tensor<2x2x8x10xf32>) -> tensor<2x3x6x8xf32> {
  %w = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x3x6x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x3x6x8xf32>) -> tensor<2x3x6x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x2x8x10xf32>, tensor<3x2x3x3xf32>) outs(%init : tensor<2x3x6x8xf32>) -> tensor<2x3x6x8xf32>
  return %0 : tensor<2x3x6x8xf32>
}
