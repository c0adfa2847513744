// RUN: %dlc-opt %s --dlc-materialize-results | FileCheck %s

// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK: %[[N:.*]] = arith.negf %[[X]]
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[X]] : tensor<3xf32>) outs(%[[E]] : tensor<3xf32>)
// CHECK: %[[K:.*]] = linalg.copy ins(%{{.*}} : tensor<2xf32>)
// CHECK: %[[D:.*]] = linalg.copy ins(%[[N]] : tensor<3xf32>)
// CHECK: return %[[C]], %[[K]], %[[N]], %[[D]]
func.func @passthrough(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %k = arith.constant dense<1.0> : tensor<2xf32>
  %n = arith.negf %x : tensor<3xf32>
  return %x, %k, %n, %n : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>
}
