// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32" | FileCheck %s
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" | FileCheck %s --check-prefix=AVX2

// An image stem (3 channels, 3x3, stride 2, padded) with AVX-512's 32
// registers takes outer products per output row, reading around its
// padding, also where the GEMMs take 8 lanes (AMD Zen 4). With AVX2's 16
// registers it stays im2col + GEMM.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: outer products per output row, no im2col
// CHECK-SAME: padding read around (no padded copy)
// AVX2-LABEL: llvm.func @main
// AVX2-SAME: im2col + GEMM
func.func @main(%x: tensor<1x3x64x64xf32>) -> tensor<1x32x32x32xf32> {
  %w = dlc.constant dense<0.5> : tensor<32x3x3x3xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x64x64xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x32x32xf32>
  return %c : tensor<1x32x32x32xf32>
}
