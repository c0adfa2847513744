// RUN: %dlc-opt %s --dlc-tile-and-vectorize="vector-width=8 min-forall-tiles=0" | FileCheck %s --check-prefix=AVX2
// RUN: %dlc-opt %s --dlc-tile-and-vectorize="vector-width=8 max-accumulators=24 min-forall-tiles=0" | FileCheck %s --check-prefix=WIDE
// RUN: not %dlc-opt %s --dlc-tile-and-vectorize="max-accumulators=0" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: dlc-tile-and-vectorize: max-accumulators must be at least 1, got 0

// 8-row filter panels over 32 pixels. With AVX2's 16 registers (twelve
// accumulators at most) the tile is one 8-lane vector wide, 8 x 8; with
// AVX-512VL's 32 (Zen 4 at 8 lanes), two vectors, 8 x 16: 16 accumulators.
// AVX2-LABEL: func.func @panel_gemm_eight_rows
// AVX2: scf.for %{{.*}} = %c0 to %c32 step %c8
// AVX2: vector.contract {{.*}} : vector<1x1x8xf32>, vector<1x1x8xf32> into vector<1x1x8x8xf32>
// WIDE-LABEL: func.func @panel_gemm_eight_rows
// WIDE: scf.for %{{.*}} = %c0 to %c32 step %c16
// WIDE: vector.contract {{.*}} : vector<1x1x8xf32>, vector<1x1x16xf32> into vector<1x1x8x16xf32>
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @panel_gemm_eight_rows(%w: tensor<2x36x8xf32>, %cols: tensor<1x36x32xf32>, %acc: tensor<1x2x8x32xf32>) -> tensor<1x2x8x32xf32> {
  %0 = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<2x36x8xf32>, tensor<1x36x32xf32>) outs(%acc : tensor<1x2x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x8x32xf32>
  return %0 : tensor<1x2x8x32xf32>
}
