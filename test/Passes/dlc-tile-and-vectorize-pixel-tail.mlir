// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=24 cache-k=1024 l2-cache-bytes=1048576" | FileCheck %s
// RUN: %dlc-opt %s -split-input-file --dlc-tile-and-vectorize="vector-width=16 rows=12 n-vectors=2 max-accumulators=24 cache-k=1024 l2-cache-bytes=1048576 min-tail-panels=8" | FileCheck %s --check-prefix=FEW

// A 1x1 conv's GEMM over a 14x14 map whose pixels dlc-conv-to-im2col
// padded to 208 for a 16-lane tail (dlc::layoutFor's tailLanes, 32 panels
// or more), with its bias and Relu: each cache tile (a forall iteration)
// is one panel over all 208 pixels, six 12 x 32 register tiles and then the peeled 12 x 16
// tail, each starting from zero in registers and ending in the epilogue.
// CHECK-LABEL: func.func @pixel_tail
// CHECK-DAG: %[[ZERO32:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x12x32xf32>
// CHECK-DAG: %[[ZERO16:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x12x16xf32>
// CHECK: scf.forall (%[[PANEL:.*]]) in (32)
// CHECK: %[[MAIN:.*]] = scf.for %[[P:.*]] = %c0 to %c192 step %c32
// CHECK: scf.for %[[K:.*]] = %c0 to %c96 step %c1 iter_args(%{{.*}} = %[[ZERO32]]) -> (vector<1x1x12x32xf32>)
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[K]], %[[P]]]{{.*}} vector<1x1x32xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x1x12x32xf32>
// CHECK: vector.transfer_write {{.*}}[%c0, %c0, %c0, %[[P]]]
// CHECK: scf.for %[[KT:.*]] = %c0 to %c96 step %c1 iter_args(%{{.*}} = %[[ZERO16]]) -> (vector<1x1x12x16xf32>)
// CHECK: vector.transfer_read %{{.*}}[%c0, %[[KT]], %c192]{{.*}} vector<1x1x16xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x1x12x16xf32>
// CHECK: vector.transfer_write {{.*}}, %[[MAIN]][%c0, %c0, %c0, %c192]
#w = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
#id = affine_map<(n, b, r, p) -> (n, b, r, p)>
#bias = affine_map<(n, b, r, p) -> (b, r)>
func.func @pixel_tail(%wp: tensor<32x96x12xf32>, %cols: tensor<1x96x208xf32>, %b: tensor<32x12xf32>) -> tensor<1x32x12x208xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x32x12x208xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x32x12x208xf32>) -> tensor<1x32x12x208xf32>
  %0 = linalg.generic {indexing_maps = [#w, #c, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<32x96x12xf32>, tensor<1x96x208xf32>) outs(%acc : tensor<1x32x12x208xf32>) {
  ^bb0(%a: f32, %x: f32, %s: f32):
    %m = arith.mulf %a, %x : f32
    %t = arith.addf %s, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x32x12x208xf32>
  %out = tensor.empty() : tensor<1x32x12x208xf32>
  %1 = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0, %b : tensor<1x32x12x208xf32>, tensor<32x12xf32>) outs(%out : tensor<1x32x12x208xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x32x12x208xf32>
  return %1 : tensor<1x32x12x208xf32>
}

// -----

// Fewer than 32 panels (dlc::kMinTailPanels) would make fewer forall
// iterations than the threads need: no tail, the pixels in 16-lane tiles.
// A target of two cores (`min-tail-panels=8`, dlc::minTailPanelsFor)
// takes the tail over its 8 panels.
// CHECK-LABEL: func.func @few_panels
// CHECK-NOT: vector<1x1x12x32xf32>
// CHECK: scf.forall
// CHECK: vector<1x1x12x16xf32>
// FEW-LABEL: func.func @few_panels
// FEW: scf.forall (%{{.*}}) in (8)
// FEW: scf.for %{{.*}} = %c0 to %c192 step %c32
// FEW: vector<1x1x12x32xf32>
// FEW: vector.transfer_read %{{.*}}[%c0, %{{.*}}, %c192]{{.*}} vector<1x1x16xf32>
#w2 = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c2 = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o2 = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @few_panels(%wp: tensor<8x96x12xf32>, %cols: tensor<1x96x208xf32>) -> tensor<1x8x12x208xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x12x208xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x12x208xf32>) -> tensor<1x8x12x208xf32>
  %0 = linalg.generic {indexing_maps = [#w2, #c2, #o2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<8x96x12xf32>, tensor<1x96x208xf32>) outs(%acc : tensor<1x8x12x208xf32>) {
  ^bb0(%a: f32, %x: f32, %s: f32):
    %m = arith.mulf %a, %x : f32
    %t = arith.addf %s, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x8x12x208xf32>
  return %0 : tensor<1x8x12x208xf32>
}

// -----

// K split in cache tiles (2000 deep, over 1024 and a quarter) keeps the
// register tiles' accumulators in memory, where no tail is peeled: no
// tail, the pixels in 16-lane tiles (masked 32-lane ones ran a 2000-deep
// GEMM over 112 pixels at 4.7x onnxruntime's time).
// CHECK-LABEL: func.func @split_depth
// CHECK-NOT: vector<1x1x12x32xf32>
// CHECK: scf.forall
// CHECK: vector<1x1x12x16xf32>
#w3 = affine_map<(n, b, r, p, k) -> (b, k, r)>
#c3 = affine_map<(n, b, r, p, k) -> (n, k, p)>
#o3 = affine_map<(n, b, r, p, k) -> (n, b, r, p)>
func.func @split_depth(%wp: tensor<32x2000x12xf32>, %cols: tensor<1x2000x208xf32>) -> tensor<1x32x12x208xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x32x12x208xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x32x12x208xf32>) -> tensor<1x32x12x208xf32>
  %0 = linalg.generic {indexing_maps = [#w3, #c3, #o3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%wp, %cols : tensor<32x2000x12xf32>, tensor<1x2000x208xf32>) outs(%acc : tensor<1x32x12x208xf32>) {
  ^bb0(%a: f32, %x: f32, %s: f32):
    %m = arith.mulf %a, %x : f32
    %t = arith.addf %s, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x32x12x208xf32>
  return %0 : tensor<1x32x12x208xf32>
}
