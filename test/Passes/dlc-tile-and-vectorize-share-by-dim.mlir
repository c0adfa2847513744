// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=8 rows=4 cache-m=64 cache-n=128 cache-k=256 min-forall-tiles=0" | FileCheck %s

// A data-movement op marked dlc.share_by_dim = 2 (im2col's row tiles [N,
// OH, C, KH, KW, OW]) gets its scf.forall over (channel block, output row)
// instead of (output row, channel block): the thread pool's contiguous
// shares then split the channels, which the producer shared out, rather
// than the rows (see dlc-tile-and-vectorize.mlir's @row_tile_columns for
// the order without the mark).
// CHECK-LABEL: func.func @row_tiles_by_channel
// CHECK-SAME: (%[[X:.*]]: tensor<1x256x16x16xf32>)
// CHECK: scf.forall (%[[C:.*]], %[[OH:.*]]) = (0, 0) to (256, 7) step (16, 1)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[OH]], %[[C]], 0, 0, 0] [1, 1, 16, 3, 3, 7]
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: vector<1x1x1x1x1x7xf32>
func.func @row_tiles_by_channel(%x: tensor<1x256x16x16xf32>) -> tensor<1x7x256x3x3x7xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<1x7x256x3x3x7xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, oh, c, kh, kw, ow) -> (n, oh, c, kh, kw, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x7x256x3x3x7xf32>) attrs = {dlc.row_tile_columns, dlc.share_by_dim = 2 : i64} {
  ^bb0(%out: f32):
    %kh = linalg.index 3 : index
    %oh = linalg.index 1 : index
    %oh2 = arith.muli %oh, %c2 : index
    %y = arith.addi %kh, %oh2 : index
    %kw = linalg.index 4 : index
    %ow = linalg.index 5 : index
    %ow2 = arith.muli %ow, %c2 : index
    %xx = arith.addi %kw, %ow2 : index
    %n = linalg.index 0 : index
    %c = linalg.index 2 : index
    %v = tensor.extract %x[%n, %c, %y, %xx] : tensor<1x256x16x16xf32>
    linalg.yield %v : f32
  } -> tensor<1x7x256x3x3x7xf32>
  return %0 : tensor<1x7x256x3x3x7xf32>
}

// -----

// The transpose that packs a 1x1 conv's row tiles, [N, C, H, W] -> [N, H,
// C, W], marked by channel (dim 2): few planes of short rows go in blocks
// of 32 channels (at least 64 iterations), the forall over (channel block,
// row) rather than (row, channel block).
// CHECK-LABEL: func.func @transpose_by_channel
// CHECK: scf.forall (%[[C:.*]], %[[H:.*]]) = (0, 0) to (256, 14) step (32, 1)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[H]], %[[C]], 0] [1, 1, 32, 14]
func.func @transpose_by_channel(%x: tensor<1x256x14x14xf32>) -> tensor<1x14x256x14xf32> {
  %e = tensor.empty() : tensor<1x14x256x14xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, h, c, w) -> (n, c, h, w)>, affine_map<(n, h, c, w) -> (n, h, c, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x256x14x14xf32>) outs(%e : tensor<1x14x256x14xf32>) attrs = {dlc.share_by_dim = 2 : i64} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x14x256x14xf32>
  return %0 : tensor<1x14x256x14xf32>
}

// -----

// A Winograd column stage [a, b, N, C, TY, TX] marked dlc.forall_dims = [2,
// 3] and dlc.share_by_dim = 3: one forall iteration per channel (N is 1),
// the 6 x 6 points and the tile rows scf.fors inside it, each row of 14
// tiles a vector of 8 and one of 6 (without the marks: a forall over (a, b,
// channels in blocks)).
// CHECK-LABEL: func.func @stage_per_channel
// CHECK: scf.forall (%[[C:.*]]) in (64)
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c14 step %c1
// CHECK: vector.transfer_write {{.*}} : vector<1x1x1x1x1x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x1x1x1x1x6xf32>
func.func @stage_per_channel(%t: tensor<1x64x6x14x60xf32>) -> tensor<6x6x1x64x14x14xf32> {
  %e = tensor.empty() : tensor<6x6x1x64x14x14xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(a, b, n, c, ty, tx) -> (a, b, n, c, ty, tx)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<6x6x1x64x14x14xf32>) attrs = {dlc.forall_dims = array<i64: 2, 3>, dlc.share_by_dim = 3 : i64} {
  ^bb0(%out: f32):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %n = linalg.index 2 : index
    %c = linalg.index 3 : index
    %ty = linalg.index 4 : index
    %tx = linalg.index 5 : index
    %q = arith.addi %tx, %b : index
    %v = tensor.extract %t[%n, %c, %a, %ty, %q] : tensor<1x64x6x14x60xf32>
    linalg.yield %v : f32
  } -> tensor<6x6x1x64x14x14xf32>
  return %0 : tensor<6x6x1x64x14x14xf32>
}

// -----

// Marks naming a dim that is no outer loop dim (negative, past the rank,
// or the vectorized last one) are ignored: the transpose tiles as without
// them, not a crash.
// CHECK-LABEL: func.func @marks_out_of_range
// CHECK: scf.forall (%[[H:.*]], %[[C:.*]]) = (0, 0) to (14, 256) step (1, 32)
func.func @marks_out_of_range(%x: tensor<1x256x14x14xf32>) -> tensor<1x14x256x14xf32> {
  %e = tensor.empty() : tensor<1x14x256x14xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, h, c, w) -> (n, c, h, w)>, affine_map<(n, h, c, w) -> (n, h, c, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x256x14x14xf32>) outs(%e : tensor<1x14x256x14xf32>) attrs = {dlc.share_by_dim = -1 : i64, dlc.forall_dims = array<i64: -2, 3, 9>} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x14x256x14xf32>
  return %0 : tensor<1x14x256x14xf32>
}
