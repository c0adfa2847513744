// RUN: %dlc-opt %s --dlc-materialize-results | FileCheck %s

// Tensor arguments are the caller's: never written in place.
// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32> {bufferization.writable = false})
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

// A result that is a reshape of an op's result: the op writes into an
// empty tensor of the result's shape, through the inverse reshape (once
// bufferized, the result's own buffer: no copy after the op). Through a
// fill too (a reduction's init).
// CHECK-LABEL: func.func @through_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32> {bufferization.writable = false})
// CHECK: %[[WHOLE:.*]] = tensor.empty() : tensor<2x12xf32>
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[WHOLE]] {{\[\[}}0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
// CHECK: %[[N:.*]] = linalg.generic {{.*}} outs(%[[VIEW]] : tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[N]]
// CHECK: %[[SUMS:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[SUMVIEW:.*]] = tensor.collapse_shape %[[SUMS]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SUMVIEW]] : tensor<6xf32>)
// CHECK: %[[S:.*]] = linalg.reduce ins(%{{.*}} : tensor<6x4xf32>) outs(%[[ZEROS]] : tensor<6xf32>)
// CHECK: %[[T:.*]] = tensor.expand_shape %[[S]]
// CHECK: return %[[R]], %[[T]]
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @through_reshape(%x: tensor<2x3x4xf32>) -> (tensor<2x12xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<2x3x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %neg = arith.negf %in : f32
    linalg.yield %neg : f32
  } -> tensor<2x3x4xf32>
  %r = tensor.collapse_shape %n [[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.reduce ins(%flat : tensor<6x4xf32>) outs(%z : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %t = tensor.expand_shape %s [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  return %r, %t : tensor<2x12xf32>, tensor<2x3xf32>
}
