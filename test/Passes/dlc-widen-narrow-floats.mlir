// RUN: %dlc-opt %s --dlc-widen-narrow-floats | FileCheck %s

// CHECK-LABEL: func.func @matmul_f16
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf16>, %[[B:.*]]: tensor<3x4xf16>)
// CHECK: %[[WA:.*]] = dlc.cast %[[A]] {to = f32} : tensor<2x3xf16> -> tensor<2x3xf32>
// CHECK: %[[WB:.*]] = dlc.cast %[[B]] {to = f32} : tensor<3x4xf16> -> tensor<3x4xf32>
// CHECK: %[[M:.*]] = dlc.matmul %[[WA]], %[[WB]] : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK: %[[R:.*]] = dlc.cast %[[M]] {to = f16} : tensor<2x4xf32> -> tensor<2x4xf16>
// CHECK: return %[[R]]
func.func @matmul_f16(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = dlc.matmul %a, %b : tensor<2x3xf16>, tensor<3x4xf16> -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// Elementwise ops and f32 ops are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: dlc.cast
// CHECK: dlc.add
// CHECK: dlc.matmul
func.func @untouched(%a: tensor<2x2xf16>, %b: tensor<2x2xf32>) -> (tensor<2x2xf16>, tensor<2x2xf32>) {
  %0 = dlc.add %a, %a : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf16>
  %1 = dlc.matmul %b, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1 : tensor<2x2xf16>, tensor<2x2xf32>
}
