// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=24 cache-k=1024 min-forall-tiles=0" | FileCheck %s
// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=28 cache-k=1024 min-forall-tiles=0" | FileCheck %s --check-prefix=CHECK28
// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=28 cache-k=1024" | FileCheck %s --check-prefix=CHECKSPLIT

// AVX-512's transposed panel GEMM (dlc-conv-to-im2col's pixelRows layout
// with 32-lane filter panels, two zmm vectors; loops (n, panel, tile, r,
// lane, k), columns packed [n, tiles, K, 7]): a panel wider than 16 lanes
// is still one panel, so the register tile is 7 pixels (the largest count
// up to 24 / 2 accumulators dividing the 7-pixel tiles) x the panel's 32
// lanes, read once per k step (K whole: chunks of 4 x cache-k). (Before, the 32-lane panel was taken for a
// plain GEMM and split into 12 + 12 + 8 lanes of one vector each: 2x
// slower on Sapphire Rapids.)
// CHECK-LABEL: func.func @wide_pixel_rows
// CHECK: scf.forall (%[[PANEL:.*]]) in (2)
// CHECK: scf.for %[[T:.*]] = %c0 to %c7 step %c1
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c2048 step %c1
// CHECK: vector.transfer_read %{{.*}}[%[[PANEL]], %{{.*}}, %c0]{{.*}} : tensor<2x2048x32xf32>, vector<1x1x32xf32>
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[T]], %{{.*}}, %c0]{{.*}} : tensor<1x7x2048x7xf32>, vector<1x1x1x7xf32>
// CHECK: vector.contract {{.*}} : vector<1x1x32xf32>, vector<1x1x1x7xf32> into vector<1x1x1x7x32xf32>
// CHECK-NOT: vector<1x1x12xf32>
#wP = affine_map<(n, b, t, r, l, k) -> (b, k, l)>
#cP = affine_map<(n, b, t, r, l, k) -> (n, t, k, r)>
#oP = affine_map<(n, b, t, r, l, k) -> (n, b, l, t, r)>
func.func @wide_pixel_rows(%w: tensor<2x2048x32xf32>, %cols: tensor<1x7x2048x7xf32>, %acc: tensor<1x2x32x7x7xf32>) -> tensor<1x2x32x7x7xf32> {
  %0 = linalg.generic {indexing_maps = [#wP, #cP, #oP], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x2048x32xf32>, tensor<1x7x2048x7xf32>) outs(%acc : tensor<1x2x32x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x32x7x7xf32>
  return %0 : tensor<1x2x32x7x7xf32>
}

// -----

// With 28 accumulators (AVX-512's pipeline) a transposed GEMM over rows of
// 14 pixels takes all 14: a 14 x 32 register tile.
// CHECK28-LABEL: func.func @rows_of_14
// CHECK28: vector.contract {{.*}} : vector<1x1x32xf32>, vector<1x1x1x14xf32> into vector<1x1x1x14x32xf32>
#wQ = affine_map<(n, b, t, r, l, k) -> (b, k, l)>
#cQ = affine_map<(n, b, t, r, l, k) -> (n, t, k, r)>
#oQ = affine_map<(n, b, t, r, l, k) -> (n, b, l, t, r)>
func.func @rows_of_14(%w: tensor<8x256x32xf32>, %cols: tensor<1x14x256x14xf32>, %acc: tensor<1x8x32x14x14xf32>) -> tensor<1x8x32x14x14xf32> {
  %0 = linalg.generic {indexing_maps = [#wQ, #cQ, #oQ], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<8x256x32xf32>, tensor<1x14x256x14xf32>) outs(%acc : tensor<1x8x32x14x14xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x32x14x14xf32>
  return %0 : tensor<1x8x32x14x14xf32>
}

// -----

// With `min-forall-tiles` on, a transposed GEMM whose panels alone make
// fewer than 32 parallel iterations (160 filters: 5 panels of 32) also
// splits its pixel tiles among them, panel-major, so that two threads get
// 18 and 17 of 35 instead of 3 and 2 of 5 panels.
// CHECKSPLIT-LABEL: func.func @few_panels
// CHECKSPLIT: scf.forall (%[[PANEL:.*]], %[[TILE:.*]]) in (5, 7)
// CHECKSPLIT: scf.for %{{.*}} = %c0 to %c960 step %c1
// CHECKSPLIT: vector.contract {{.*}} : vector<1x1x32xf32>, vector<1x1x1x7xf32> into vector<1x1x1x7x32xf32>
#wS = affine_map<(n, b, t, r, l, k) -> (b, k, l)>
#cS = affine_map<(n, b, t, r, l, k) -> (n, t, k, r)>
#oS = affine_map<(n, b, t, r, l, k) -> (n, b, l, t, r)>
func.func @few_panels(%w: tensor<5x960x32xf32>, %cols: tensor<1x7x960x7xf32>, %acc: tensor<1x5x32x7x7xf32>) -> tensor<1x5x32x7x7xf32> {
  %0 = linalg.generic {indexing_maps = [#wS, #cS, #oS], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<5x960x32xf32>, tensor<1x7x960x7xf32>) outs(%acc : tensor<1x5x32x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x5x32x7x7xf32>
  return %0 : tensor<1x5x32x7x7xf32>
}
