// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=8 rows=4 cache-m=64 cache-n=128 cache-k=256 min-forall-tiles=0" | FileCheck %s

// Cache tiles (64 x 128 x 256; the parallel M and N tiles as one scf.forall
// for the thread pool), then a 4 x 16 register tile over one k step,
// vectorized into one contraction per tile.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (128, 256) step (64, 128)
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @matmul(%a: tensor<128x512xf32>, %b: tensor<512x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

// Register tiles that do not divide the shape are peeled: full tiles and
// static remainders vectorize without masks; only a tile partial in both
// dims keeps them.
// CHECK-LABEL: func.func @matmul_ragged
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK: vector.contract {{.*}} : vector<4x1xf32>, vector<1x4xf32> into vector<4x4xf32>
// CHECK: vector.create_mask
// CHECK: vector.mask
func.func @matmul_ragged(%a: tensor<10x7xf32>, %b: tensor<7x20xf32>, %c: tensor<10x20xf32>) -> tensor<10x20xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x20xf32>) outs(%c : tensor<10x20xf32>) -> tensor<10x20xf32>
  return %0 : tensor<10x20xf32>
}

// -----

// Elementwise: one vector of 8 lanes along the innermost dim.
// CHECK-LABEL: func.func @relu
// CHECK: scf.for
// CHECK: scf.for %{{.*}} step %c8
// CHECK: vector.transfer_read {{.*}} vector<1x8xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// A gather (tensor.extract in the body) from a column slice of a wider
// tensor: the vectorized gather's offsets assume a row-major source, so the
// strided view is copied into a buffer of its own first. A slice of leading
// rows is contiguous and read in place.
// CHECK-LABEL: func.func @gather_from_strided_slice
// CHECK-SAME: (%[[WIDE:[^:]*]]: tensor<2x135xf32>
// CHECK: %[[COLS:.*]] = tensor.extract_slice %[[WIDE]][0, 45] [2, 90] [1, 1]
// CHECK: %[[OWN:.*]] = bufferization.alloc_tensor() copy(%[[COLS]])
// CHECK: vector.gather %[[OWN]]
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[WIDE]][1, 0] [1, 135] [1, 1]
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: vector.gather %[[ROW]]
func.func @gather_from_strided_slice(%wide: tensor<2x135xf32>, %out: tensor<2x90xf32>) -> (tensor<2x90xf32>, tensor<1x90xf32>) {
  %cols = tensor.extract_slice %wide[0, 45] [2, 90] [1, 1] : tensor<2x135xf32> to tensor<2x90xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%out : tensor<2x90xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c89 = arith.constant 89 : index
    %r = arith.subi %c89, %j : index
    %v = tensor.extract %cols[%i, %r] : tensor<2x90xf32>
    linalg.yield %v : f32
  } -> tensor<2x90xf32>
  %row = tensor.extract_slice %wide[1, 0] [1, 135] [1, 1] : tensor<2x135xf32> to tensor<1x135xf32>
  %e = tensor.empty() : tensor<1x90xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<1x90xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %c134 = arith.constant 134 : index
    %r = arith.subi %c134, %j : index
    %c0 = arith.constant 0 : index
    %v = tensor.extract %row[%c0, %r] : tensor<1x135xf32>
    linalg.yield %v : f32
  } -> tensor<1x90xf32>
  return %0, %1 : tensor<2x90xf32>, tensor<1x90xf32>
}

// -----

// A reduction in vector lanes (dlc::sumInLanes, a conv weight gradient's
// shape): 2 x 5 register tiles over the parallel dims as the scf.forall, one
// step of each reduction dim, the 8 lanes as the vector; the partial sums
// vector<2x5x8> are the contraction's accumulator.
// CHECK-LABEL: func.func @lane_reduction
// CHECK-SAME: (%[[DY:[^:]*]]: tensor<4x6x10x8xf32>, %[[COL:[^:]*]]: tensor<4x25x10x8xf32>
// CHECK: scf.forall (%[[F:.*]], %[[K:.*]]) = (0, 0) to (6, 25) step (2, 5)
// CHECK: scf.for %[[N:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[B:.*]] = %c0 to %c10 step %c1
// CHECK: vector.transfer_read %[[DY]][%[[N]], %[[F]], %[[B]], %c0]{{.*}} vector<1x2x1x8xf32>
// CHECK: vector.transfer_read %[[COL]][%[[N]], %[[K]], %[[B]], %c0]{{.*}} vector<1x5x1x8xf32>
// CHECK: vector.contract {{.*}} into vector<2x5x8xf32>
#dy = affine_map<(f, k, n, b, l) -> (n, f, b, l)>
#col = affine_map<(f, k, n, b, l) -> (n, k, b, l)>
#acc = affine_map<(f, k, n, b, l) -> (f, k, l)>
func.func @lane_reduction(%dy: tensor<4x6x10x8xf32>, %col: tensor<4x25x10x8xf32>, %acc: tensor<6x25x8xf32>) -> tensor<6x25x8xf32> {
  %0 = linalg.generic {indexing_maps = [#dy, #col, #acc], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%dy, %col : tensor<4x6x10x8xf32>, tensor<4x25x10x8xf32>) outs(%acc : tensor<6x25x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<6x25x8xf32>
  return %0 : tensor<6x25x8xf32>
}

// -----

// A lane reduction whose output dims interleave the two inputs' dims (a
// conv weight gradient [F, C, KW] after fusion): F, which the large im2col
// input does not use, moves inside C, so that consecutive forall iterations
// reuse one column block; the 2 x 5 register tile is F x KW, adjacent. Its
// accumulator is read before both reduction loops and written after them.
// CHECK-LABEL: func.func @lane_reduction_reuse
// CHECK-SAME: (%[[DY:[^:]*]]: tensor<4x4x10x8xf32>, %[[COL:[^:]*]]: tensor<4x3x5x10x8xf32>
// CHECK: scf.forall (%[[C:.*]], %[[F:.*]]) = (0, 0) to (3, 4) step (1, 2)
// CHECK: scf.for %[[N:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[B:.*]] = %c0 to %c10 step %c1
// CHECK: vector.transfer_read %[[DY]][%[[N]], %[[F]], %[[B]], %c0]{{.*}} vector<1x2x1x8xf32>
// CHECK: vector.transfer_read %[[COL]][%[[N]], %[[C]], %c0, %[[B]], %c0]{{.*}} vector<1x1x5x1x8xf32>
// CHECK: vector.contract {{.*}} into vector<1x2x5x8xf32>
#dy = affine_map<(f, c, kw, n, b, l) -> (n, f, b, l)>
#col = affine_map<(f, c, kw, n, b, l) -> (n, c, kw, b, l)>
#acc = affine_map<(f, c, kw, n, b, l) -> (f, c, kw, l)>
func.func @lane_reduction_reuse(%dy: tensor<4x4x10x8xf32>, %col: tensor<4x3x5x10x8xf32>, %acc: tensor<4x3x5x8xf32>) -> tensor<4x3x5x8xf32> {
  %0 = linalg.generic {indexing_maps = [#dy, #col, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]} ins(%dy, %col : tensor<4x4x10x8xf32>, tensor<4x3x5x10x8xf32>) outs(%acc : tensor<4x3x5x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x3x5x8xf32>
  return %0 : tensor<4x3x5x8xf32>
}

// -----

// LogSoftmax's sum of exp(x - max) in lanes: the row max is an input
// constant along the lanes and the reduction, read once per register row
// and broadcast; the exp stays a vector op (a scalar loop before).
// CHECK-LABEL: func.func @lane_reduction_row_broadcast
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x125x8xf32>, %[[MAX:[^:]*]]: tensor<8xf32>
// CHECK: scf.forall (%[[R:.*]]) = (0) to (8) step (4)
// CHECK: scf.for %[[B:.*]] = %c0 to %c125 step %c1
// CHECK: %[[XV:.*]] = vector.transfer_read %[[X]][%[[R]], %[[B]], %c0]{{.*}} vector<4x1x8xf32>
// CHECK: %[[MV:.*]] = vector.transfer_read %[[MAX]][%[[R]]]{{.*}} vector<4xf32>
// CHECK: %[[MB:.*]] = vector.broadcast %[[MV]]
// CHECK: %[[MT:.*]] = vector.transpose %[[MB]]
// CHECK: %[[D:.*]] = arith.subf %[[XV]], %[[MT]] : vector<4x1x8xf32>
// CHECK: %[[E:.*]] = math.exp %[[D]] : vector<4x1x8xf32>
// CHECK: vector.multi_reduction <add>, %[[E]]
#x = affine_map<(r, b, l) -> (r, b, l)>
#row = affine_map<(r, b, l) -> (r)>
#acc = affine_map<(r, b, l) -> (r, l)>
func.func @lane_reduction_row_broadcast(%x: tensor<8x125x8xf32>, %max: tensor<8xf32>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.generic {indexing_maps = [#x, #row, #acc], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %max : tensor<8x125x8xf32>, tensor<8xf32>) outs(%acc : tensor<8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %c: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %c, %e : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// im2col columns (dlc::im2colColumns) with stride 1: the rows along ow are
// contiguous reads of the input, plain transfer_reads and no gather. Rows of
// at most two vectors go a plane per forall iteration, an scf.for over its
// rows.
// CHECK-LABEL: func.func @contiguous_im2col
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x12x12xf32>)
// CHECK: scf.forall ({{.*}}) in (2, 3, 5, 5)
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK-NOT: vector.gather
// CHECK: vector.transfer_read %[[X]]{{.*}} : tensor<2x3x12x12xf32>, vector<1x1x1x8xf32>
// CHECK-NOT: vector.gather
// CHECK: return
func.func @contiguous_im2col(%x: tensor<2x3x12x12xf32>) -> tensor<2x3x5x5x8x8xf32> {
  %e = tensor.empty() : tensor<2x3x5x5x8x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, kh, kw, oh, ow) -> (n, c, kh, kw, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<2x3x5x5x8x8xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %kh = linalg.index 2 : index
    %kw = linalg.index 3 : index
    %oh = linalg.index 4 : index
    %ow = linalg.index 5 : index
    %y = arith.addi %kh, %oh : index
    %xx = arith.addi %kw, %ow : index
    %v = tensor.extract %x[%n, %c, %y, %xx] : tensor<2x3x12x12xf32>
    linalg.yield %v : f32
  } -> tensor<2x3x5x5x8x8xf32>
  return %0 : tensor<2x3x5x5x8x8xf32>
}

// -----

// An op marked dlc.recomputed (a weight gradient's im2col columns) keeps the
// mark on its loops: CSE must not merge them with an equal forward copy.
// CHECK-LABEL: func.func @recomputed_keeps_mark
// CHECK: scf.forall {{.*}} {
// CHECK: } {dlc.recomputed}
func.func @recomputed_keeps_mark(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) attrs = {dlc.recomputed} {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A GEMM over filter panels (dlc-conv-to-im2col with pack-rows): the
// register tile is one whole panel (6 rows) x 16 lanes over one k step.
// Three pixel tiles are too few iterations for the threads: the forall
// takes the panels too. Nothing is peeled: every tile is full.
// CHECK-LABEL: func.func @panel_gemm
// CHECK: scf.forall (%[[PANEL:.*]]) in (2)
// CHECK: scf.for %[[P:.*]] = %c0 to %c48 step %c16
// CHECK: scf.for %[[K:.*]] = %c0 to %c36 step %c1
// CHECK: vector.transfer_read %{{.*}}[%[[PANEL]], %[[K]], %c0]{{.*}} : tensor<2x36x6xf32>, vector<1x1x6xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[K]], %[[P]]]{{.*}} : tensor<1x36x48xf32>, vector<1x1x16xf32>
// CHECK: vector.contract {{.*}} : vector<1x1x6xf32>, vector<1x1x16xf32> into vector<1x1x6x16xf32>
// CHECK-NOT: scf.for
// CHECK: scf.forall.in_parallel
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_gemm(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>, %acc: tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  return %0 : tensor<1x2x6x48xf32>
}

// -----

// The transposed panel GEMM (dlc-conv-to-im2col's pixelRows layout: loops
// (n, panel, pixel, row, k), the 16-row panel innermost): the register tile
// is 6 pixels x the panel's 16 lanes, the accumulator read and written
// transposed around the K loop. Panels go outside the pixel tiles (the
// filter panel stays in cache), and K goes in chunks of 4 x cache-k (1024).
// CHECK-LABEL: func.func @pixel_rows_gemm
// CHECK: scf.forall (%[[PANEL:.*]]) in (2)
// CHECK: scf.for %[[K0:.*]] = %c0 to %c2048 step %c1024
// CHECK: scf.for %[[P:.*]] = %c0 to %c54 step %c6
// CHECK: %[[TILE:.*]] = vector.transfer_read {{.*}} : tensor<1x1x16x54xf32>, vector<1x1x16x6xf32>
// CHECK: %[[ACC:.*]] = vector.transpose %[[TILE]], [0, 1, 3, 2]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c1024 step %c1 iter_args(%{{.*}} = %[[ACC]])
// CHECK: vector.transfer_read %{{.*}}[%[[PANEL]], %{{.*}}, %c0]{{.*}} : tensor<2x2048x16xf32>, vector<1x1x16xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %{{.*}}, %[[P]]]{{.*}} : tensor<1x2048x54xf32>, vector<1x1x6xf32>
// CHECK: vector.contract {{.*}} : vector<1x1x16xf32>, vector<1x1x6xf32> into vector<1x1x6x16xf32>
// CHECK: %[[OUT:.*]] = vector.transpose %[[SUM]], [0, 1, 3, 2]
// CHECK: vector.transfer_write %[[OUT]], {{.*}} : vector<1x1x16x6xf32>, tensor<1x1x16x54xf32>
#wmapT = affine_map<(n, b, p, r, k) -> (b, k, r)>
#cmapT = affine_map<(n, b, p, r, k) -> (n, k, p)>
#omapT = affine_map<(n, b, p, r, k) -> (n, b, r, p)>
func.func @pixel_rows_gemm(%w: tensor<2x2048x16xf32>, %cols: tensor<1x2048x54xf32>, %acc: tensor<1x2x16x54xf32>) -> tensor<1x2x16x54xf32> {
  %0 = linalg.generic {indexing_maps = [#wmapT, #cmapT, #omapT], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x2048x16xf32>, tensor<1x2048x54xf32>) outs(%acc : tensor<1x2x16x54xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x16x54xf32>
  return %0 : tensor<1x2x16x54xf32>
}

// -----

// Pixels padded to 5-pixel tiles (dlc::layoutFor: 49 as 50, Winograd's
// 49-tile GEMMs on 28x28 maps): the register tile takes 5 pixels, the
// largest count up to six that divides the 50.
// CHECK-LABEL: func.func @pixel_rows_gemm_five
// CHECK: scf.for %[[P:.*]] = %c0 to %c50 step %c5
// CHECK: vector.transfer_read %{{.*}}[%c0, %{{.*}}, %[[P]]]{{.*}} : tensor<1x256x50xf32>, vector<1x1x5xf32>
// CHECK: vector.contract {{.*}} : vector<1x1x16xf32>, vector<1x1x5xf32> into vector<1x1x5x16xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<1x1x16x5xf32>, tensor<1x1x16x50xf32>
#wmapT5 = affine_map<(n, b, p, r, k) -> (b, k, r)>
#cmapT5 = affine_map<(n, b, p, r, k) -> (n, k, p)>
#omapT5 = affine_map<(n, b, p, r, k) -> (n, b, r, p)>
func.func @pixel_rows_gemm_five(%w: tensor<2x256x16xf32>, %cols: tensor<1x256x50xf32>, %acc: tensor<1x2x16x50xf32>) -> tensor<1x2x16x50xf32> {
  %0 = linalg.generic {indexing_maps = [#wmapT5, #cmapT5, #omapT5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x256x16xf32>, tensor<1x256x50xf32>) outs(%acc : tensor<1x2x16x50xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x16x50xf32>
  return %0 : tensor<1x2x16x50xf32>
}

// -----

// The transposed GEMM over packed columns (dlc-conv-to-im2col's pixelRows
// layout: loops (n, panel, tile, r, row, k), columns [n, tiles, K, 6]) with
// a Relu after it: each forall iteration takes one filter panel and all 9
// pixel tiles (the panel stays in cache); each tile starts from zero in
// registers, applies the Relu to its 6 x 16 accumulator, and is transposed
// once into the NCHW output (the epilogue's read of the GEMM's transposed
// write forwarded as a transpose, not a broadcast).
// CHECK-LABEL: func.func @pixel_rows_packed
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x1x6x16xf32>
// CHECK: scf.forall (%[[PANEL:.*]]) in (2)
// CHECK: scf.for %[[T:.*]] = %c0 to %c9 step %c1 iter_args(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[ZERO]])
// CHECK: vector.transfer_read %{{.*}}[%[[PANEL]], %[[K]], %c0]{{.*}} : tensor<2x64x16xf32>, vector<1x1x16xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[T]], %[[K]], %c0]{{.*}} : tensor<1x9x64x6xf32>, vector<1x1x1x6xf32>
// CHECK: vector.contract {{.*}} : vector<1x1x16xf32>, vector<1x1x1x6xf32> into vector<1x1x1x6x16xf32>
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<1x1x1x6x16xf32>
// CHECK: %[[NCHW:.*]] = vector.transpose %[[RELU]], [0, 1, 4, 2, 3]
// CHECK: vector.transfer_write %[[NCHW]], %[[OUT]][%c0, %c0, %c0, %[[T]], %c0]
// CHECK-NOT: linalg.generic
#wP = affine_map<(n, b, t, r, l, k) -> (b, k, l)>
#cP = affine_map<(n, b, t, r, l, k) -> (n, t, k, r)>
#oP = affine_map<(n, b, t, r, l, k) -> (n, b, l, t, r)>
#id5 = affine_map<(a, b, c, d, e) -> (a, b, c, d, e)>
func.func @pixel_rows_packed(%w: tensor<2x64x16xf32>, %cols: tensor<1x9x64x6xf32>) -> tensor<1x2x16x9x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x16x9x6xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x16x9x6xf32>) -> tensor<1x2x16x9x6xf32>
  %0 = linalg.generic {indexing_maps = [#wP, #cP, #oP], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x64x16xf32>, tensor<1x9x64x6xf32>) outs(%acc : tensor<1x2x16x9x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x16x9x6xf32>
  %e2 = tensor.empty() : tensor<1x2x16x9x6xf32>
  %1 = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x2x16x9x6xf32>) outs(%e2 : tensor<1x2x16x9x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x9x6xf32>
  return %1 : tensor<1x2x16x9x6xf32>
}

// -----

// A panel GEMM from a zero fill with no epilogue after it (a Winograd conv's
// GEMMs): each register tile starts from the zero vector in registers; the
// fill never goes to memory and the tile is written once.
// CHECK-LABEL: func.func @panel_gemm_from_fill
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x6x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%[[PANEL:.*]]) in (2)
// CHECK: scf.for %[[P:.*]] = %c0 to %c48 step %c16 iter_args(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c36 step %c1 iter_args(%{{.*}} = %[[ZERO]])
// CHECK: vector.contract
// CHECK: vector.transfer_write %[[SUM]], %[[OUT]][%c0, %c0, %c0, %[[P]]]
// CHECK-NOT: vector.transfer_write
// CHECK: scf.forall.in_parallel
#wmapF = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmapF = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omapF = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_gemm_from_fill(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>) -> tensor<1x2x6x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#wmapF, #cmapF, #omapF], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  return %0 : tensor<1x2x6x48xf32>
}

// -----

// 12-row panels over 32 pixels: two 8-lane vectors would be 24 accumulators
// (AVX2 has 16 registers), so the tile is one vector wide: 12 x 8.
// CHECK-LABEL: func.func @panel_gemm_twelve_rows
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c8
// CHECK: vector.contract {{.*}} : vector<1x1x12xf32>, vector<1x1x8xf32> into vector<1x1x12x8xf32>
#wmap12 = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap12 = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap12 = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_gemm_twelve_rows(%w: tensor<2x36x12xf32>, %cols: tensor<1x36x32xf32>, %acc: tensor<1x2x12x32xf32>) -> tensor<1x2x12x32xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap12, #cmap12, #omap12], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x12xf32>, tensor<1x36x32xf32>) outs(%acc : tensor<1x2x12x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x12x32xf32>
  return %0 : tensor<1x2x12x32xf32>
}

// -----

// A constant pad becomes a fresh buffer (not a tensor.empty, which CSE
// would share), a copy into the view of its interior and, after it, fills
// of the border alone, one slab below and one above the interior along
// each padded dim (rows 0 and 7, then columns 0 and 7 of the interior
// rows); all tile into scf.foralls like other elementwise ops. (Fused per
// channel, the border's column stores then hit lines the copy wrote.)
// CHECK-LABEL: func.func @pad_as_fill_and_copy
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<1x4x8x8xf32>
// CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %[[BUF]][0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1]
// CHECK: %[[COPIED:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[INTERIOR]])
// CHECK: tensor.extract_slice %[[X]]
// CHECK: %[[WITH:.*]] = tensor.insert_slice %[[COPIED]] into %[[BUF]][0, 0, 1, 1] [1, 4, 6, 6] [1, 1, 1, 1]
// CHECK: %[[TOP:.*]] = tensor.extract_slice %[[WITH]][0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1]
// CHECK: %[[TOPFILL:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[TOP]])
// CHECK: tensor.insert_slice %[[TOPFILL]] into %[[WITH]][0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 7, 0] [1, 4, 1, 8] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 0] [1, 4, 6, 1] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 7] [1, 4, 6, 1] [1, 1, 1, 1]
func.func @pad_as_fill_and_copy(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  return %p : tensor<1x4x8x8xf32>
}

// -----

// Two accumulations into one (CSE-merged) zero fill each get their own fill
// (each tiled into an scf.forall of vector writes).
// CHECK-LABEL: func.func @shared_fill_split
// CHECK-COUNT-2: scf.forall (%{{.*}}) in (8)
// CHECK-NOT: linalg.fill
func.func @shared_fill_split(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = linalg.add ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.sub ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A conv's GEMM (filter panels) into a zero fill, then its BatchNorm and
// ReLU through the conv's reshapes: the reshapes move past the
// elementwise op, which then reads the GEMM's result in the GEMM's shape
// and runs inside the GEMM's cache tiles, on each 6 x 16 register tile
// while its sums are still a vector: the K loop starts from the fill's
// zeros, carries the accumulator, and the tile is stored once, after the
// BatchNorm and ReLU. One scf.forall; the reshapes to NCHW come after it.
// CHECK-LABEL: func.func @panel_gemm_epilogue
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x6x16xf32>
// CHECK-DAG: %[[SCALE:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 6] : tensor<12xf32> into tensor<2x6xf32>
// CHECK: %[[OUT:.*]] = scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x2x6x48xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[DONE:.*]] = scf.for {{.*}} iter_args(%[[TILE:.*]] = %{{.*}}) -> (tensor<1x1x6x48xf32>)
// CHECK: %[[SUMS:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<1x1x6x16xf32>)
// CHECK: vector.contract
// CHECK: vector.transfer_read %[[SCALE]]
// CHECK: %[[Y:.*]] = math.fma %[[SUMS]]
// CHECK: %[[R:.*]] = arith.maximumf %[[Y]]
// CHECK: vector.transfer_write %[[R]], %[[TILE]]
// CHECK: tensor.parallel_insert_slice %[[DONE]]
// CHECK-NOT: scf.forall
// CHECK-NOT: linalg.generic
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[OUT]]
// CHECK: %[[IMG:.*]] = tensor.expand_shape %[[FLAT]]
// CHECK: return %[[IMG]]
#ewmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#ecmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#eomap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @panel_gemm_epilogue(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>, %scale: tensor<12xf32>, %shift: tensor<12xf32>) -> tensor<1x12x4x12xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#ewmap, #ecmap, #eomap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %img = tensor.expand_shape %flat [[0], [1], [2, 3]] output_shape [1, 12, 4, 12] : tensor<1x12x48xf32> into tensor<1x12x4x12xf32>
  %out = tensor.empty() : tensor<1x12x4x12xf32>
  %1 = linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %scale, %shift : tensor<1x12x4x12xf32>, tensor<12xf32>, tensor<12xf32>) outs(%out : tensor<1x12x4x12xf32>) {
  ^bb0(%x: f32, %s: f32, %t: f32, %o: f32):
    %y = math.fma %x, %s, %t : f32
    %r = arith.maximumf %y, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x12x4x12xf32>
  return %1 : tensor<1x12x4x12xf32>
}

// -----

// The same with the GEMM's padding: 10 filters in two 6-row panels, 40
// pixels (5 x 8) in 48 lanes. The elementwise op runs over the whole
// padded result, its per-channel scale padded with zeros (a new constant,
// reshaped to the panels), and the valid corner is sliced after it.
// CHECK-LABEL: func.func @padded_panel_gemm_epilogue
// CHECK: %[[SCALE:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, {{.*}}, 1.000000e+01, 0.000000e+00, 0.000000e+00]]> : tensor<2x6xf32>
// CHECK: %[[OUT:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: vector.contract
// CHECK: vector.transfer_read %[[SCALE]]
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: scf.forall
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[OUT]]
// CHECK: %[[VALID:.*]] = tensor.extract_slice %[[FLAT]][0, 0, 0] [1, 10, 40] [1, 1, 1]
// CHECK: %[[IMG:.*]] = tensor.expand_shape %[[VALID]]
// CHECK: return %[[IMG]]
#pwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#pcmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#pomap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#pid = affine_map<(n, c, h, w) -> (n, c, h, w)>
#pch = affine_map<(n, c, h, w) -> (c)>
func.func @padded_panel_gemm_epilogue(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>) -> tensor<1x10x5x8xf32> {
  %z = arith.constant 0.0 : f32
  %scale = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]> : tensor<10xf32>
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#pwmap, #pcmap, #pomap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid = tensor.extract_slice %flat[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x10x40xf32>
  %img = tensor.expand_shape %valid [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %out = tensor.empty() : tensor<1x10x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#pid, #pch, #pid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %scale : tensor<1x10x5x8xf32>, tensor<10xf32>) outs(%out : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %r = arith.maximumf %y, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x10x5x8xf32>
  return %1 : tensor<1x10x5x8xf32>
}

// -----

// The same with the scale in a resource blob (an ONNX initializer: a conv's
// own bias where its BatchNorm was folded in): padded at compile time too,
// not by a tensor.pad at run time, which had kept the epilogue out of the
// GEMM's tiles.
// CHECK-LABEL: func.func @padded_panel_gemm_resource_scale
// CHECK: %[[RSCALE:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, {{.*}}, 1.000000e+01, 0.000000e+00, 0.000000e+00]]> : tensor<2x6xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[ROUT:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: vector.contract
// CHECK: vector.transfer_read %[[RSCALE]]
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: scf.forall
// CHECK: return
#rwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#rcmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#romap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#rid = affine_map<(n, c, h, w) -> (n, c, h, w)>
#rch = affine_map<(n, c, h, w) -> (c)>
func.func @padded_panel_gemm_resource_scale(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>) -> tensor<1x10x5x8xf32> {
  %z = arith.constant 0.0 : f32
  %scale = arith.constant dense_resource<ten_scales> : tensor<10xf32>
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#rwmap, #rcmap, #romap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid = tensor.extract_slice %flat[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x10x40xf32>
  %img = tensor.expand_shape %valid [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %out = tensor.empty() : tensor<1x10x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#rid, #rch, #rid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %scale : tensor<1x10x5x8xf32>, tensor<10xf32>) outs(%out : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %r = arith.maximumf %y, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x10x5x8xf32>
  return %1 : tensor<1x10x5x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      ten_scales: "0x040000000000803F0000004000004040000080400000A0400000C0400000E040000000410000104100002041"
    }
  }
#-}

// -----

// A residual add after a padded GEMM whose other input is the valid corner
// of an earlier GEMM's padded result (a ResNet block's input, the output of
// the previous fused epilogue): it reads that padded result in place, and
// both epilogues join their GEMM's tiles.
// CHECK-LABEL: func.func @residual_from_padded_gemm
// CHECK: %[[FIRST:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: vector.contract
// CHECK: arith.mulf
// CHECK: %[[SECOND:.*]] = scf.forall (%[[PANEL:.*]]) in (2)
// CHECK: vector.contract
// CHECK: vector.transfer_read %[[FIRST]][%c0, %[[PANEL]],
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: tensor.collapse_shape %[[SECOND]]
#rwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#rcmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#romap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#rid = affine_map<(n, c, h, w) -> (n, c, h, w)>
#rch = affine_map<(n, c, h, w) -> (c)>
func.func @residual_from_padded_gemm(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>) -> tensor<1x10x5x8xf32> {
  %z = arith.constant 0.0 : f32
  %scale = arith.constant dense<2.0> : tensor<10xf32>
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#rwmap, #rcmap, #romap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid = tensor.extract_slice %flat[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x10x40xf32>
  %img = tensor.expand_shape %valid [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %out = tensor.empty() : tensor<1x10x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#rid, #rch, #rid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %scale : tensor<1x10x5x8xf32>, tensor<10xf32>) outs(%out : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x10x5x8xf32>
  %e2 = tensor.empty() : tensor<1x2x6x48xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %2 = linalg.generic {indexing_maps = [#rwmap, #rcmap, #romap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc2 : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat2 = tensor.collapse_shape %2 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid2 = tensor.extract_slice %flat2[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x10x40xf32>
  %img2 = tensor.expand_shape %valid2 [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %out2 = tensor.empty() : tensor<1x10x5x8xf32>
  %3 = linalg.generic {indexing_maps = [#rid, #rid, #rid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img2, %1 : tensor<1x10x5x8xf32>, tensor<1x10x5x8xf32>) outs(%out2 : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %y = arith.addf %x, %r : f32
    %m = arith.maximumf %y, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x10x5x8xf32>
  return %3 : tensor<1x10x5x8xf32>
}

// -----

// A small corner of a GEMM's result (8 of its 48 pixels) is not padding:
// the elementwise op stays on the corner, in loops of its own, instead
// of running over six times the data.
// CHECK-LABEL: func.func @small_corner_not_padding
// CHECK: %[[GEMM:.*]] = scf.forall
// CHECK: vector.contract
// CHECK-NOT: arith.maximumf
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[GEMM]]
// CHECK: scf.for {{.*}} -> (tensor<1x12x8xf32>)
// CHECK: vector.transfer_read %[[FLAT]]{{.*}} : tensor<1x12x48xf32>, vector<1x1x8xf32>
// CHECK: arith.maximumf
#swmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#scmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#somap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#sid = affine_map<(n, c, p) -> (n, c, p)>
func.func @small_corner_not_padding(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>) -> tensor<1x12x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#swmap, #scmap, #somap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %corner = tensor.extract_slice %flat[0, 0, 0] [1, 12, 8] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x12x8xf32>
  %out = tensor.empty() : tensor<1x12x8xf32>
  %1 = linalg.generic {indexing_maps = [#sid, #sid], iterator_types = ["parallel", "parallel", "parallel"]} ins(%corner : tensor<1x12x8xf32>) outs(%out : tensor<1x12x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x12x8xf32>
  return %1 : tensor<1x12x8xf32>
}

// -----

// A GEMM accumulating into a function argument keeps its accumulator in
// the K loop's tensor: hoisted, the write after the loop bufferized in place
// into the caller's input (and returned it).
// CHECK-LABEL: func.func @matmul_into_argument
// CHECK-SAME: %[[C:[^:]*]]: tensor<3x4xf32>)
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[C]]) -> (tensor<3x4xf32>)
// CHECK: vector.transfer_read %[[ACC]]
// CHECK: vector.contract
// CHECK: vector.transfer_write {{.*}}, %[[ACC]]
// CHECK: return %[[R]]
func.func @matmul_into_argument(%a: tensor<3x6xf32>, %b: tensor<6x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<3x6xf32>, tensor<6x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A panel GEMM accumulating into a tensor (a conv's bias), then a ReLU of its
// result: the ReLU joins the cache tile after the K loops, over rows of the
// register tile's 16 lanes, which LLVM forwards from the tile's stores as
// whole vectors (8-lane halves of them became i256 extracts on AVX2).
// CHECK-LABEL: func.func @panel_gemm_memory_epilogue
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: vector.contract {{.*}} into vector<1x1x6x16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK: scf.for %[[P:.*]] = %c0 to %c48 step %c16
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} vector<1x1x1x16xf32>
// CHECK: arith.maximumf %[[X]]
// CHECK: scf.forall.in_parallel
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#id = affine_map<(n, b, r, p) -> (n, b, r, p)>
func.func @panel_gemm_memory_epilogue(%w: tensor<2x36x6xf32>, %cols: tensor<1x36x48xf32>, %bias: tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%bias : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x2x6x48xf32>) outs(%e : tensor<1x2x6x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x2x6x48xf32>
  return %1 : tensor<1x2x6x48xf32>
}

// -----

// The next 1x1 conv's input, its pixels padded to whole tiles in an
// uninitialized buffer, taken from the valid corner of an epilogue run over
// a padded GEMM result: it reads that result's first 10 rows in place, all
// 48 pixels (their padding is don't-care either way), instead of a copy.
// CHECK-LABEL: func.func @padded_input_from_padded_result
// CHECK: %[[FIRST:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: arith.maximumf
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[FIRST]]
// CHECK-NOT: tensor.insert_slice
// CHECK: scf.forall
// CHECK: vector.transfer_read %[[FLAT]]{{.*}} : tensor<1x12x48xf32>, vector<1x1x16xf32>
#iwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#icmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#iomap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#iid = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @padded_input_from_padded_result(%w: tensor<2x36x6xf32>, %w2: tensor<2x10x6xf32>, %cols: tensor<1x36x48xf32>) -> tensor<1x2x6x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#iwmap, #icmap, #iomap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid = tensor.extract_slice %flat[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x10x40xf32>
  %img = tensor.expand_shape %valid [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %out = tensor.empty() : tensor<1x10x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#iid, #iid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img : tensor<1x10x5x8xf32>) outs(%out : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x10x5x8xf32>
  %next = bufferization.alloc_tensor() : tensor<1x10x48xf32>
  %pixels = tensor.collapse_shape %1 [[0], [1], [2, 3]] : tensor<1x10x5x8xf32> into tensor<1x10x40xf32>
  %in = tensor.insert_slice %pixels into %next[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x10x40xf32> into tensor<1x10x48xf32>
  %e2 = tensor.empty() : tensor<1x2x6x48xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %2 = linalg.generic {indexing_maps = [#iwmap, #icmap, #iomap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w2, %in : tensor<2x10x6xf32>, tensor<1x10x48xf32>) outs(%acc2 : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  return %2 : tensor<1x2x6x48xf32>
}

// -----

// The same where the epilogue's result is also read elsewhere (a residual):
// dlc-conv-to-im2col cloned it to write into the padded input. Run over the
// GEMM's padding, the clone and the original are one op, computed once, in
// the first GEMM's tiles (a GEMM result with two readers stayed out of
// them).
// CHECK-LABEL: func.func @epilogue_clone_merged
// CHECK: %[[FIRST:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: vector.contract
// CHECK: arith.maximumf
// CHECK: scf.forall.in_parallel
// CHECK-NOT: arith.maximumf
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[FIRST]]
// CHECK: scf.forall
// CHECK: vector.transfer_read %[[FLAT]]{{.*}} : tensor<1x12x48xf32>, vector<1x1x16xf32>
// CHECK-NOT: arith.maximumf
// CHECK: return
#mwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#mcmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#momap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#mid = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @epilogue_clone_merged(%w: tensor<2x36x6xf32>, %w2: tensor<2x10x6xf32>, %cols: tensor<1x36x48xf32>) -> (tensor<1x2x6x48xf32>, tensor<1x10x5x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#mwmap, #mcmap, #momap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid = tensor.extract_slice %flat[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x10x40xf32>
  %img = tensor.expand_shape %valid [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %out = tensor.empty() : tensor<1x10x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#mid, #mid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img : tensor<1x10x5x8xf32>) outs(%out : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x10x5x8xf32>
  %next = bufferization.alloc_tensor() : tensor<1x10x48xf32>
  %corner = tensor.extract_slice %next[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x10x48xf32> to tensor<1x10x40xf32>
  %view = tensor.expand_shape %corner [[0], [1], [2, 3]] output_shape [1, 10, 5, 8] : tensor<1x10x40xf32> into tensor<1x10x5x8xf32>
  %2 = linalg.generic {indexing_maps = [#mid, #mid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img : tensor<1x10x5x8xf32>) outs(%view : tensor<1x10x5x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x10x5x8xf32>
  %pixels = tensor.collapse_shape %2 [[0], [1], [2, 3]] : tensor<1x10x5x8xf32> into tensor<1x10x40xf32>
  %in = tensor.insert_slice %pixels into %next[0, 0, 0] [1, 10, 40] [1, 1, 1] : tensor<1x10x40xf32> into tensor<1x10x48xf32>
  %e2 = tensor.empty() : tensor<1x2x6x48xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %3 = linalg.generic {indexing_maps = [#mwmap, #mcmap, #momap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w2, %in : tensor<2x10x6xf32>, tensor<1x10x48xf32>) outs(%acc2 : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  return %3, %1 : tensor<1x2x6x48xf32>, tensor<1x10x5x8xf32>
}

// -----

// The same with a per-channel bias from a resource blob that needs no
// padding (12 filters, two whole panels): each epilogue reshapes it to the
// panels on its own, and a reshape of a resource is no constant to
// compare; the two reshapes of one constant still make the epilogues one.
// CHECK-LABEL: func.func @epilogue_clone_merged_resource_bias
// CHECK: %[[RFIRST:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: vector.contract
// CHECK: arith.maximumf
// CHECK: scf.forall.in_parallel
// CHECK-NOT: arith.maximumf
// CHECK: return
#bwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#bcmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#bomap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#bid = affine_map<(n, c, h, w) -> (n, c, h, w)>
#bch = affine_map<(n, c, h, w) -> (c)>
func.func @epilogue_clone_merged_resource_bias(%w: tensor<2x36x6xf32>, %w2: tensor<2x12x6xf32>, %cols: tensor<1x36x48xf32>) -> (tensor<1x2x6x48xf32>, tensor<1x12x5x8xf32>) {
  %z = arith.constant 0.0 : f32
  %bias = arith.constant dense_resource<twelve_biases> : tensor<12xf32>
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#bwmap, #bcmap, #bomap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x6xf32>, tensor<1x36x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %flat = tensor.collapse_shape %0 [[0], [1, 2], [3]] : tensor<1x2x6x48xf32> into tensor<1x12x48xf32>
  %valid = tensor.extract_slice %flat[0, 0, 0] [1, 12, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x12x40xf32>
  %img = tensor.expand_shape %valid [[0], [1], [2, 3]] output_shape [1, 12, 5, 8] : tensor<1x12x40xf32> into tensor<1x12x5x8xf32>
  %out = tensor.empty() : tensor<1x12x5x8xf32>
  %1 = linalg.generic {indexing_maps = [#bid, #bch, #bid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %bias : tensor<1x12x5x8xf32>, tensor<12xf32>) outs(%out : tensor<1x12x5x8xf32>) {
  ^bb0(%x: f32, %bv: f32, %o: f32):
    %y = arith.addf %x, %bv : f32
    %r = arith.maximumf %y, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x12x5x8xf32>
  %next = bufferization.alloc_tensor() : tensor<1x12x48xf32>
  %corner = tensor.extract_slice %next[0, 0, 0] [1, 12, 40] [1, 1, 1] : tensor<1x12x48xf32> to tensor<1x12x40xf32>
  %view = tensor.expand_shape %corner [[0], [1], [2, 3]] output_shape [1, 12, 5, 8] : tensor<1x12x40xf32> into tensor<1x12x5x8xf32>
  %2 = linalg.generic {indexing_maps = [#bid, #bch, #bid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%img, %bias : tensor<1x12x5x8xf32>, tensor<12xf32>) outs(%view : tensor<1x12x5x8xf32>) {
  ^bb0(%x: f32, %bv: f32, %o: f32):
    %y = arith.addf %x, %bv : f32
    %r = arith.maximumf %y, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x12x5x8xf32>
  %pixels = tensor.collapse_shape %2 [[0], [1], [2, 3]] : tensor<1x12x5x8xf32> into tensor<1x12x40xf32>
  %in = tensor.insert_slice %pixels into %next[0, 0, 0] [1, 12, 40] [1, 1, 1] : tensor<1x12x40xf32> into tensor<1x12x48xf32>
  %e2 = tensor.empty() : tensor<1x2x6x48xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %3 = linalg.generic {indexing_maps = [#bwmap, #bcmap, #bomap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w2, %in : tensor<2x12x6xf32>, tensor<1x12x48xf32>) outs(%acc2 : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  return %3, %1 : tensor<1x2x6x48xf32>, tensor<1x12x5x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      twelve_biases: "0x040000000000003F0000803F0000C03F0000004000002040000040400000604000008040000090400000A0400000B0400000C040"
    }
  }
#-}

// -----

// A GEMM whose K (512) is split into cache tiles (256): its epilogue still
// runs in each cache tile, after the K loop, not as a loop of its own.
// CHECK-LABEL: func.func @split_k_epilogue
// CHECK: %[[OUT:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c256
// CHECK: vector.contract
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: scf.forall
// CHECK-NOT: arith.maximumf
// CHECK: return %[[OUT]]
#kwmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#kcmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#komap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#kid = affine_map<(n, b, r, p) -> (n, b, r, p)>
func.func @split_k_epilogue(%w: tensor<2x512x6xf32>, %cols: tensor<1x512x48xf32>) -> tensor<1x2x6x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x48xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x6x48xf32>) -> tensor<1x2x6x48xf32>
  %0 = linalg.generic {indexing_maps = [#kwmap, #kcmap, #komap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x512x6xf32>, tensor<1x512x48xf32>) outs(%acc : tensor<1x2x6x48xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x48xf32>
  %out = tensor.empty() : tensor<1x2x6x48xf32>
  %1 = linalg.generic {indexing_maps = [#kid, #kid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x2x6x48xf32>) outs(%out : tensor<1x2x6x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x2x6x48xf32>
  return %1 : tensor<1x2x6x48xf32>
}

// -----

// Many small planes (64 channels of 28x28, rows longer than two vectors)
// go a plane per forall iteration, like short rows: a pad's interior copy
// and the depthwise taps reading the padded channel then split alike, and
// dlc-fuse-parallel-loops can run them as one loop.
// CHECK-LABEL: func.func @small_planes
// CHECK: scf.forall (%[[C:.*]]) in (64)
// CHECK: scf.for %{{.*}} = %c0 to %c28 step %c1
// CHECK: vector.transfer_read {{.*}} vector<1x1x1x8xf32>
// CHECK: return
func.func @small_planes(%x: tensor<1x64x28x28xf32>) -> tensor<1x64x28x28xf32> {
  %e = tensor.empty() : tensor<1x64x28x28xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x28x28xf32>) outs(%e : tensor<1x64x28x28xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x64x28x28xf32>
  return %0 : tensor<1x64x28x28xf32>
}

// -----

// Few planes (8 channels), or planes over 4096 elements, keep a forall
// iteration per row: there would be too few iterations to share out.
// CHECK-LABEL: func.func @few_or_large_planes
// CHECK: scf.forall ({{.*}}) in (8, 28)
// CHECK: scf.forall ({{.*}}) in (64, 112)
// CHECK: return
func.func @few_or_large_planes(%x: tensor<1x8x28x28xf32>, %y: tensor<1x64x112x112xf32>) -> (tensor<1x8x28x28xf32>, tensor<1x64x112x112xf32>) {
  %e = tensor.empty() : tensor<1x8x28x28xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x28x28xf32>) outs(%e : tensor<1x8x28x28xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x8x28x28xf32>
  %f = tensor.empty() : tensor<1x64x112x112xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<1x64x112x112xf32>) outs(%f : tensor<1x64x112x112xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x64x112x112xf32>
  return %0, %1 : tensor<1x8x28x28xf32>, tensor<1x64x112x112xf32>
}

// -----

// Tiny planes (at most 16x16: a padded 7x7 channel) go 8 per forall
// iteration where that leaves at least 64 (the panel GEMMs' count): a
// pad's copy and the depthwise taps reading it, fused, then copy 8
// channels before reading the first back (one channel's taps waited on its
// copy's stores). 256 and 128 channels would make 32 and 16 iterations:
// they keep one plane each.
// CHECK-LABEL: func.func @tiny_planes
// CHECK: scf.forall (%[[G:.*]]) = (0) to (960) step (8)
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c9 step %c1
// CHECK: vector.transfer_read {{.*}} vector<1x1x1x8xf32>
// CHECK: scf.forall (%{{.*}}) in (128)
// CHECK: scf.forall (%{{.*}}) in (256)
// CHECK: return
func.func @tiny_planes(%x: tensor<1x960x9x9xf32>, %y: tensor<1x128x9x9xf32>, %z: tensor<1x256x9x9xf32>) -> (tensor<1x960x9x9xf32>, tensor<1x128x9x9xf32>, tensor<1x256x9x9xf32>) {
  %e = tensor.empty() : tensor<1x960x9x9xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x960x9x9xf32>) outs(%e : tensor<1x960x9x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x960x9x9xf32>
  %f = tensor.empty() : tensor<1x128x9x9xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : tensor<1x128x9x9xf32>) outs(%f : tensor<1x128x9x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x128x9x9xf32>
  %g = tensor.empty() : tensor<1x256x9x9xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%z : tensor<1x256x9x9xf32>) outs(%g : tensor<1x256x9x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<1x256x9x9xf32>
  return %0, %1, %2 : tensor<1x960x9x9xf32>, tensor<1x128x9x9xf32>, tensor<1x256x9x9xf32>
}

// -----

// Few planes of many short rows (a pixelRows GEMM's packing transpose: 14
// planes of 1024 rows of 14) go in blocks of rows, at least 64 forall
// iterations (here 128 rows each: 14 x 8), not a plane each (14: most of a
// 16-core machine idle).
// CHECK-LABEL: func.func @few_planes_of_short_rows
// CHECK: scf.forall (%[[T:.*]], %[[K:.*]]) = (0, 0) to (14, 1024) step (1, 128)
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1
// CHECK: vector.transfer_read %{{.*}}[%c0, %{{.*}}, %[[T]], %c0]{{.*}} : tensor<1x1024x14x14xf32>, vector<1x1x1x8xf32>
func.func @few_planes_of_short_rows(%x: tensor<1x1024x14x14xf32>) -> tensor<1x14x1024x14xf32> {
  %e = tensor.empty() : tensor<1x14x1024x14xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, t, k, r) -> (n, k, t, r)>, affine_map<(n, t, k, r) -> (n, t, k, r)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x1024x14x14xf32>) outs(%e : tensor<1x14x1024x14xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x14x1024x14xf32>
  return %0 : tensor<1x14x1024x14xf32>
}

// -----

// im2col columns written in a pixelRows GEMM's row tiles ([N, OH, C, KH,
// KW, OW], dlc.row_tile_columns) go by output row and block of channels
// (16: 7 x 16 iterations), each an scf.for over its channels and taps and
// one 7-pixel row a step; a [KW, OW] plane each would have made 5376.
// CHECK-LABEL: func.func @row_tile_columns
// CHECK: scf.forall (%[[OH:.*]], %[[C:.*]]) = (0, 0) to (7, 256) step (1, 16)
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: vector<1x1x1x1x1x7xf32>
func.func @row_tile_columns(%x: tensor<1x256x16x16xf32>) -> tensor<1x7x256x3x3x7xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<1x7x256x3x3x7xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(n, oh, c, kh, kw, ow) -> (n, oh, c, kh, kw, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x7x256x3x3x7xf32>) attrs = {dlc.row_tile_columns} {
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
