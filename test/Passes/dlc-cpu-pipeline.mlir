// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" | FileCheck %s

// The whole pipeline: one LLVM function taking one pointer per tensor and
// the arena last, with the plan recorded; no heap calls, AVX2-width FMAs.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: dlc.arena_bytes
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.intr.fmuladd({{.*}} : (vector<8xf32>, vector<8xf32>, vector<8xf32>)
func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x10xf32> {
  %w = dlc.constant dense<0.5> : tensor<8x3x3x3xf32>
  %b = dlc.constant dense<0.1> : tensor<8xf32>
  %c = dlc.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r = dlc.relu %c : tensor<1x8x16x16xf32>
  %p = dlc.max_pool %r {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x8x16x16xf32> -> tensor<1x8x8x8xf32>
  %f = dlc.flatten %p {axis = 1 : i64} : tensor<1x8x8x8xf32> -> tensor<1x512xf32>
  %fw = dlc.constant dense<0.01> : tensor<10x512xf32>
  %g = dlc.gemm %f, %fw {transB = true} : (tensor<1x512xf32>, tensor<10x512xf32>) -> tensor<1x10xf32>
  %s = dlc.softmax %g {axis = 1 : i64, coerce_2d = false} : tensor<1x10xf32>
  return %s : tensor<1x10xf32>
}
