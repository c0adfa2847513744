// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=8 rows=6 cache-m=64 cache-n=128 cache-k=256" | FileCheck %s

// A panel GEMM whose operands fit in L2 (LeNet's second conv: 3 panels of
// 6 filters, 150 = K, 112 pixels) would be 3 cache tiles, 2 for one thread
// and 1 for the other. With min-forall-tiles (8 by default) the forall runs
// over single panels by 16-pixel tiles: 3 x 7 = 21 tiles.
// CHECK-LABEL: func.func @small_panel_gemm
// CHECK: scf.forall (%[[PANEL:.*]], %[[P:.*]]) = (0, 0) to (3, 112) step (1, 16)
// CHECK: scf.for %[[K:.*]] = %c0 to %c150 step %c1
// CHECK: vector.contract {{.*}} : vector<1x1x6xf32>, vector<1x1x16xf32> into vector<1x1x6x16xf32>
// CHECK: scf.forall.in_parallel
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @small_panel_gemm(%w: tensor<3x150x6xf32>, %cols: tensor<1x150x112xf32>, %acc: tensor<1x3x6x112xf32>) -> tensor<1x3x6x112xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<3x150x6xf32>, tensor<1x150x112xf32>) outs(%acc : tensor<1x3x6x112xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x6x112xf32>
  return %0 : tensor<1x3x6x112xf32>
}

// -----

// A batch-1 fully connected layer over one-vector weight panels
// (dlc-pack-matmul-weights: 120 columns as [15, 400, 8]): one row of
// accumulators leaves room along N, so the register tile spans five panels
// (the most that divide 15 within twelve accumulators), each its own
// vector<8>: five independent FMA chains per k instead of two. The
// fifteen panels would fit one cache tile (16 panels = cache-n / 8), but
// are split into three of five (at most half of them each), an scf.forall
// through which the threads share the weights.
// CHECK-LABEL: func.func @matrix_vector_panels
// CHECK: scf.forall (%{{.*}}) = (0) to (15) step (5)
// CHECK: scf.for %{{.*}} = %c0 to %c400 step %c200
// CHECK-NOT: scf.for %{{.*}} = %c0 to %c15
// CHECK: scf.for %[[K:.*]] = %c0 to %c200 step %c1
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<5x1x8xf32> into vector<1x5x8xf32>
#amap = affine_map<(m, p, l, k) -> (m, k)>
#pmap = affine_map<(m, p, l, k) -> (p, k, l)>
#cmap = affine_map<(m, p, l, k) -> (m, p, l)>
func.func @matrix_vector_panels(%x: tensor<1x400xf32>, %w: tensor<15x400x8xf32>, %acc: tensor<1x15x8xf32>) -> tensor<1x15x8xf32> {
  %0 = linalg.generic {indexing_maps = [#amap, #pmap, #cmap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x400xf32>, tensor<15x400x8xf32>) outs(%acc : tensor<1x15x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x15x8xf32>
  return %0 : tensor<1x15x8xf32>
}

// -----

// Panels of over half the L2 (the MLP's 784 x 256 layer, 802,816 bytes,
// against the default 512 KB): tiles of 64 lanes (eight panels of 8), one
// tile an iteration of the scf.forall, so that a sweep alternating its
// direction from run to run (dlc-alternate-sweeps) has four tiles to turn
// around. Under it (@matrix_vector_panels), cache tiles of up to
// cache-n lanes.
// CHECK-LABEL: func.func @streamed_panels
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (8)
// CHECK-NOT: scf.for %{{.*}} = %c0 to %c{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c784 step %c196
// CHECK: scf.for %{{.*}} = %c0 to %c196 step %c1
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<8x1x8xf32> into vector<1x8x8xf32>
#amap = affine_map<(m, p, l, k) -> (m, k)>
#pmap = affine_map<(m, p, l, k) -> (p, k, l)>
#cmap = affine_map<(m, p, l, k) -> (m, p, l)>
func.func @streamed_panels(%x: tensor<1x784xf32>, %w: tensor<32x784x8xf32>, %acc: tensor<1x32x8xf32>) -> tensor<1x32x8xf32> {
  %0 = linalg.generic {indexing_maps = [#amap, #pmap, #cmap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x784xf32>, tensor<32x784x8xf32>) outs(%acc : tensor<1x32x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x8xf32>
  return %0 : tensor<1x32x8xf32>
}

// -----

// Panels of over twice the L2 (4 MB: a classifier's weights, which come
// from L3 or memory however they are swept) keep the usual cache tiles of
// cache-n lanes (16 panels), in register tiles of at most 64 lanes (here
// eight panels of 8; AVX-512's 16-lane panels go four at most).
// CHECK-LABEL: func.func @panels_over_twice_l2
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (16)
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<8x1x8xf32> into vector<1x8x8xf32>
#amap = affine_map<(m, p, l, k) -> (m, k)>
#pmap = affine_map<(m, p, l, k) -> (p, k, l)>
#cmap = affine_map<(m, p, l, k) -> (m, p, l)>
func.func @panels_over_twice_l2(%x: tensor<1x2048xf32>, %w: tensor<64x2048x8xf32>, %acc: tensor<1x64x8xf32>) -> tensor<1x64x8xf32> {
  %0 = linalg.generic {indexing_maps = [#amap, #pmap, #cmap], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x2048xf32>, tensor<64x2048x8xf32>) outs(%acc : tensor<1x64x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x64x8xf32>
  return %0 : tensor<1x64x8xf32>
}

// -----

// Unpacked, the row widens by a power-of-two count of vectors that divides
// N (1 x 64 over 256 columns): LLVM splits a loop-carried vector of 40
// floats into scalars through the stack.
// CHECK-LABEL: func.func @matrix_vector
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c64
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x64xf32> into vector<1x64xf32>
func.func @matrix_vector(%x: tensor<1x400xf32>, %w: tensor<400x256xf32>, %acc: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %0 = linalg.matmul ins(%x, %w : tensor<1x400xf32>, tensor<400x256xf32>) outs(%acc : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %0 : tensor<1x256xf32>
}

// -----

// Two panels over 784 pixels (operands over L2): 7 pixel tiles of 112 would
// split 4 to 3 between two threads. The panels go in groups of one inside
// the pixel tiles: 14 iterations, a thread's consecutive ones sharing the
// columns of one pixel tile.
// CHECK-LABEL: func.func @panel_gemm_balanced
// CHECK: scf.forall (%[[P:.*]], %[[PANEL:.*]]) = (0, 0) to (784, 2) step (112, 1)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[PANEL]], 0, %[[P]]] [1, 1, 6, 112]
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_gemm_balanced(%w: tensor<2x96x6xf32>, %cols: tensor<1x96x784xf32>, %acc: tensor<1x2x6x784xf32>) -> tensor<1x2x6x784xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x96x6xf32>, tensor<1x96x784xf32>) outs(%acc : tensor<1x2x6x784xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x784xf32>
  return %0 : tensor<1x2x6x784xf32>
}

// -----

// 22 panels over 784 pixels (ResNet-50's 3x3 convs over 28x28): 7 pixel
// tiles, an odd count, and 14 with the panels in two groups of 11 still
// left each thread waiting for the other's last tile. The panels go in
// groups of two, the largest that gives at least 64 iterations: 77.
// CHECK-LABEL: func.func @panel_gemm_enough_tiles
// CHECK: scf.forall (%[[P:.*]], %[[PANEL:.*]]) = (0, 0) to (784, 22) step (112, 2)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[PANEL]], 0, %[[P]]] [1, 2, 6, 112]
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_gemm_enough_tiles(%w: tensor<22x96x6xf32>, %cols: tensor<1x96x784xf32>, %acc: tensor<1x22x6x784xf32>) -> tensor<1x22x6x784xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<22x96x6xf32>, tensor<1x96x784xf32>) outs(%acc : tensor<1x22x6x784xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x22x6x784xf32>
  return %0 : tensor<1x22x6x784xf32>
}

// -----

// The transposed panel GEMM of a 7x7 map (ResNet-50's 512 -> 2048 1x1
// conv: 128 panels of 16 filters, one tile of 50 pixels): the panels go in
// groups of two, 64 iterations (groups of 32, four iterations, left one
// of two threads idle for a sixth of each such loop).
// CHECK-LABEL: func.func @pixel_rows_panel_groups
// CHECK: scf.forall (%[[PANEL:.*]]) = (0) to (128) step (2)
// CHECK: scf.for %{{.*}} = %c0 to %c50 step %c5
#wmapT = affine_map<(n, b, p, r, k) -> (b, k, r)>
#cmapT = affine_map<(n, b, p, r, k) -> (n, k, p)>
#omapT = affine_map<(n, b, p, r, k) -> (n, b, r, p)>
func.func @pixel_rows_panel_groups(%w: tensor<128x512x16xf32>, %cols: tensor<1x512x50xf32>, %acc: tensor<1x128x16x50xf32>) -> tensor<1x128x16x50xf32> {
  %0 = linalg.generic {indexing_maps = [#wmapT, #cmapT, #omapT], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<128x512x16xf32>, tensor<1x512x50xf32>) outs(%acc : tensor<1x128x16x50xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128x16x50xf32>
  return %0 : tensor<1x128x16x50xf32>
}
