// RUN: %dlc-opt %s --split-input-file --dlc-cpu-pipeline="vector-width=16 vector-registers=32 l2-cache-bytes=1048576" --mlir-print-ir-after=dlc-prefetch-gemm-operands -o /dev/null 2>&1 | FileCheck %s

// Weights over the L2 (read from memory each run) are prefetched 16 KB
// ahead: a batch-1 classifier's 5 MB of panels [63, 1280, 16] move 64
// bytes a k step, so the prefetch reads 256 steps on.
// CHECK-LABEL: IR Dump After PrefetchGemmOperands
// CHECK: scf.for %[[K:.*]] = %c0 to %c1280 step %c1
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c256 : index
// CHECK: memref.prefetch %{{.*}}[%{{.*}}, %[[AHEAD]], %c0], read, locality<3>, data : memref<63x1280x16xf32>
func.func @main(%x: tensor<1x1280xf32>) -> tensor<1x1000xf32> {
  %w = dlc.constant dense<0.5> : tensor<1000x1280xf32>
  %b = dlc.constant dense<0.25> : tensor<1000xf32>
  %0 = dlc.gemm %x, %w, %b {transB = true} : (tensor<1x1280xf32>, tensor<1000x1280xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// -----

// Weights that fit the L2 (the MLP's 784 x 256 layer, 0.8 MB) stay 4 KB
// ahead: 64 steps.
// CHECK-LABEL: IR Dump After PrefetchGemmOperands
// CHECK: scf.for %[[K:.*]] = %c0 to %c784 step %c1
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c64 : index
// CHECK: memref.prefetch %{{.*}}[%{{.*}}, %[[AHEAD]], %c0], read, locality<3>, data : memref<16x784x16xf32>
func.func @main(%x: tensor<1x784xf32>) -> tensor<1x256xf32> {
  %w = dlc.constant dense<0.5> : tensor<256x784xf32>
  %b = dlc.constant dense<0.25> : tensor<256xf32>
  %0 = dlc.gemm %x, %w, %b {transB = true} : (tensor<1x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<1x256xf32>
  return %0 : tensor<1x256xf32>
}
