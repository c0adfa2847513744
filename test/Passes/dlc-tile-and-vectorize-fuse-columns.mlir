// RUN: %dlc-opt %s --dlc-tile-and-vectorize="vector-width=8 rows=6 cache-k=256 fuse-columns=true l2-cache-bytes=1024" | FileCheck %s
// RUN: %dlc-opt %s --dlc-tile-and-vectorize="vector-width=8 rows=6 cache-k=256 l2-cache-bytes=1024" | FileCheck %s --check-prefix=WHOLE

// An im2col GEMM that takes its depth whole (18 <= cache-k) over columns
// bigger than L2 (4.6 KB against 1 KB here) builds them per cache tile of
// whole output rows (one row of 16 pixels, a register tile wide), in the
// GEMM's parallel loop, into a block of the iteration's own: the im2col
// generic is tiled to that row and its gathers vectorized inside the
// forall; the GEMM reads the block.
// CHECK-LABEL: func.func @fused_columns
// CHECK: scf.forall (%[[P:.*]]) = (0) to (64) step (16)
// CHECK: %[[BLOCK:.*]] = bufferization.alloc_tensor() : tensor<1x2x3x3x1x16xf32>
// CHECK: vector.gather
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4, 5]] : tensor<1x2x3x3x1x16xf32> into tensor<1x18x16xf32>
// CHECK: vector.transfer_read %[[COLS]]
// CHECK: vector.contract
// CHECK: scf.forall.in_parallel
// CHECK-NOT: vector.gather

// Without fuse-columns the im2col runs alone first, over the whole map.
// WHOLE-LABEL: func.func @fused_columns
// WHOLE: scf.forall
// WHOLE: vector.gather
// WHOLE: scf.forall.in_parallel
// WHOLE: scf.forall
// WHOLE-NOT: vector.gather
// WHOLE: vector.contract
#id6 = affine_map<(n, c, i, j, y, x) -> (n, c, i, j, y, x)>
#wmap = affine_map<(n, b, r, p, k) -> (b, k, r)>
#cmap = affine_map<(n, b, r, p, k) -> (n, k, p)>
#omap = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @fused_columns(%in: tensor<1x2x6x18xf32>, %w: tensor<1x18x6xf32>) -> tensor<1x1x6x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3x4x16xf32>
  %cols = linalg.generic {indexing_maps = [#id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x2x3x3x4x16xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %y = linalg.index 4 : index
    %x = linalg.index 5 : index
    %h = arith.addi %y, %i : index
    %v = arith.addi %x, %j : index
    %a = tensor.extract %in[%n, %c, %h, %v] : tensor<1x2x6x18xf32>
    linalg.yield %a : f32
  } -> tensor<1x2x3x3x4x16xf32>
  %cols3 = tensor.collapse_shape %cols [[0], [1, 2, 3], [4, 5]] : tensor<1x2x3x3x4x16xf32> into tensor<1x18x64xf32>
  %acc = bufferization.alloc_tensor() : tensor<1x1x6x64xf32>
  %start = linalg.fill ins(%zero : f32) outs(%acc : tensor<1x1x6x64xf32>) -> tensor<1x1x6x64xf32>
  %g = linalg.generic {indexing_maps = [#wmap, #cmap, #omap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols3 : tensor<1x18x6xf32>, tensor<1x18x64xf32>) outs(%start : tensor<1x1x6x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x6x64xf32>
  return %g : tensor<1x1x6x64xf32>
}
