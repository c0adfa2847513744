// RUN: %dlc-opt %s --split-input-file --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=1048576" --mlir-print-ir-after=dlc-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s

// Batch-1 fully connected layers (matrix-vector products over weights in
// one-vector panels), as dlc-tile-and-vectorize tiles them with 1 MB of L2.
// MobileNetV2's classifier: 5 MB of weights, over twice the L2, streamed
// from L3 or memory: its 63 panels (1000 outputs padded to 1008) in
// register tiles of 3 (at most 64 lanes), each an iteration of the forall.
// CHECK-LABEL: IR Dump After TileAndVectorize
// CHECK: func.func @main(%{{.*}}: tensor<1x1280xf32>)
// CHECK: scf.forall (%{{.*}}) = (0) to (63) step (3)
// CHECK: scf.for %{{.*}} = %c0 to %c1280 step %c1
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<3x1x16xf32> into vector<1x3x16xf32>
func.func @main(%x: tensor<1x1280xf32>) -> tensor<1x1000xf32> {
  %w = dlc.constant dense<0.5> : tensor<1000x1280xf32>
  %b = dlc.constant dense<0.25> : tensor<1000xf32>
  %0 = dlc.gemm %x, %w, %b {transB = true} : (tensor<1x1280xf32>, tensor<1000x1280xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// -----

// Weights in L2 (192 KB, 12 panels): twelve panels a register tile.
// CHECK-LABEL: IR Dump After TileAndVectorize
// CHECK: func.func @main(%{{.*}}: tensor<1x256xf32>)
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<12x1x16xf32> into vector<1x12x16xf32>
func.func @main(%x: tensor<1x256xf32>) -> tensor<1x192xf32> {
  %w = dlc.constant dense<0.5> : tensor<192x256xf32>
  %b = dlc.constant dense<0.25> : tensor<192xf32>
  %0 = dlc.gemm %x, %w, %b {transB = true} : (tensor<1x256xf32>, tensor<192x256xf32>, tensor<192xf32>) -> tensor<1x192xf32>
  return %0 : tensor<1x192xf32>
}
