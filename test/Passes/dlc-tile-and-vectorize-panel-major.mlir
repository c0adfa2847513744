// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=24 cache-k=1024 l2-cache-bytes=2097152" | FileCheck %s
// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=24 cache-k=1024 l2-cache-bytes=524288" | FileCheck %s --check-prefix=SMALL-L2

// A 1x1 conv's GEMM writing 3.2 MB (264 rows of 3136 pixels) from 800 KB
// of columns, with 2 MB of L2: cache tiles panel by panel, each over a
// seventh of the pixels (22 panels x 3 chunks would reach 64 forall
// iterations; 448 pixels is the largest multiple of 32 dividing 3136 within
// a third), so that a tile's 12 output rows are written as sequential
// streams.
// CHECK-LABEL: func.func @panel_major
// CHECK: scf.forall (%[[PANEL:.*]], %[[P0:.*]]) = (0, 0) to (22, 3136) step (1, 448)
// CHECK: scf.for %[[P:.*]] = %c0 to %c448 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args
// With 512 KB of L2 (not measured there) the pixel blocks stay outside the
// panels.
// SMALL-L2-LABEL: func.func @panel_major
// SMALL-L2-NOT: step (1, 448)
// SMALL-L2: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (3136, 22) step (64, 11)
// SMALL-L2: scf.for %{{.*}} = %c0 to %c11 step %c1
#w = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_major(%wp: tensor<22x64x12xf32>, %cols: tensor<1x64x3136xf32>, %acc: tensor<1x22x12x3136xf32>) -> tensor<1x22x12x3136xf32> {
  %0 = linalg.generic {indexing_maps = [#w, #c, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<22x64x12xf32>, tensor<1x64x3136xf32>) outs(%acc : tensor<1x22x12x3136xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x22x12x3136xf32>
  return %0 : tensor<1x22x12x3136xf32>
}

// -----

// Columns over half of L2 (256 deep: 3.2 MB) would come from memory once
// per panel: pixel blocks outside the panels, as before (49 blocks of 64
// pixels, under 64 iterations, so each block's panels one an iteration).
// CHECK-LABEL: func.func @columns_overflow
// CHECK-NOT: step (1, 448)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (3136, 11) step (64, 1)
#w2 = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c2 = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o2 = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @columns_overflow(%wp: tensor<11x256x12xf32>, %cols: tensor<1x256x3136xf32>, %acc: tensor<1x11x12x3136xf32>) -> tensor<1x11x12x3136xf32> {
  %0 = linalg.generic {indexing_maps = [#w2, #c2, #o2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<11x256x12xf32>, tensor<1x256x3136xf32>) outs(%acc : tensor<1x11x12x3136xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x11x12x3136xf32>
  return %0 : tensor<1x11x12x3136xf32>
}
