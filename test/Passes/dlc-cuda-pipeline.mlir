// RUN: %dlc-opt %s --dlc-cuda-pipeline="chip=sm_80" | FileCheck %s

// The whole CUDA pipeline: the entry keeps only launches, whose arguments
// are its own (input, output, arena, weights: the constants' views), and
// one gpu.binary holds the PTX of every kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: memref<1x3x16x16xf32>, %[[Y:[^:]*]]: memref<1x10xf32>, %[[ARENA:[^:]*]]: memref<{{[0-9]+}}xi8>, %[[W:[^:]*]]: memref<{{[0-9]+}}xi8> {dlc.role = "weights"})
// CHECK-NOT: memref.get_global
// CHECK: gpu.launch_func @dlc_kernels::@{{[a-z_0-9]+}}_k0
// CHECK-SAME: args(
// CHECK: gpu.launch_func @dlc_kernels::{{.*}} args({{.*}}%[[Y]] : memref<1x10xf32>)
// CHECK-NEXT: return
// CHECK: gpu.binary @dlc_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_80
// CHECK-NOT: gpu.module
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
