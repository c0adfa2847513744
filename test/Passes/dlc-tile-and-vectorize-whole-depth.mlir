// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=24 cache-k=1024 min-forall-tiles=0" | FileCheck %s

// With K chunks of 1024, a GEMM up to a quarter deeper (a 3x3 stride-2 conv
// over 128 channels: 1152) takes K whole: one K loop from the register
// tile's start in registers, no 576-deep chunks with partial sums through
// memory.
// CHECK-LABEL: func.func @whole_depth
// CHECK-NOT: step %c576
// CHECK: scf.for %{{.*}} = %c0 to %c1152 step %c1 iter_args
// CHECK: vector.contract {{.*}} : vector<1x1x12xf32>, vector<1x1x32xf32> into vector<1x1x12x32xf32>
#w = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @whole_depth(%wp: tensor<2x1152x12xf32>, %cols: tensor<1x1152x64xf32>, %acc: tensor<1x2x12x64xf32>) -> tensor<1x2x12x64xf32> {
  %0 = linalg.generic {indexing_maps = [#w, #c, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<2x1152x12xf32>, tensor<1x1152x64xf32>) outs(%acc : tensor<1x2x12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x12x64xf32>
  return %0 : tensor<1x2x12x64xf32>
}

// -----

// A quarter and more deeper (1536) still goes in chunks, the largest
// divisor of K up to 1024: two of 768.
// CHECK-LABEL: func.func @chunked_depth
// CHECK: scf.for %{{.*}} = %c0 to %c1536 step %c768
// CHECK: scf.for %{{.*}} = %c0 to %c768 step %c1 iter_args
#w2 = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c2 = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o2 = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @chunked_depth(%wp: tensor<2x1536x12xf32>, %cols: tensor<1x1536x64xf32>, %acc: tensor<1x2x12x64xf32>) -> tensor<1x2x12x64xf32> {
  %0 = linalg.generic {indexing_maps = [#w2, #c2, #o2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<2x1536x12xf32>, tensor<1x1536x64xf32>) outs(%acc : tensor<1x2x12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x12x64xf32>
  return %0 : tensor<1x2x12x64xf32>
}
