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

// A batch-1 fully connected layer (1 x 400 times 400 x 120): one row of
// accumulators leaves room for more along N. The register tile is 1 x 40
// (five vectors, the most that divide 120 within twelve accumulators), not
// 1 x 16: five independent FMA chains per k instead of two.
// CHECK-LABEL: func.func @matrix_vector
// CHECK: scf.for %[[N:.*]] = %c0 to %c120 step %c40
// CHECK: scf.for %[[K:.*]] = %c0 to %c200 step %c1
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x40xf32> into vector<1x40xf32>
func.func @matrix_vector(%x: tensor<1x400xf32>, %w: tensor<400x120xf32>, %acc: tensor<1x120xf32>) -> tensor<1x120xf32> {
  %0 = linalg.matmul ins(%x, %w : tensor<1x400xf32>, tensor<400x120xf32>) outs(%acc : tensor<1x120xf32>) -> tensor<1x120xf32>
  return %0 : tensor<1x120xf32>
}
