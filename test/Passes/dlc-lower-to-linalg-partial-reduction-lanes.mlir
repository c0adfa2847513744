// RUN: %dlc-opt %s --dlc-lower-to-linalg=partial-reduction-lanes=true --split-input-file | FileCheck %s

// A 7x7 map's 49 pixels (neither 8 nor 4 lanes divide them) sum in 7 lanes:
// partial sums over the 7 blocks, then one over the lanes, then the scale.
// CHECK-LABEL: func.func @global_average_pool_7x7
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %{{.*}} into tensor<3x7x7xf32>
// CHECK: %[[LANES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[SPLIT]] : tensor<3x7x7xf32>) outs(%{{.*}} : tensor<3x7xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[LANES]] : tensor<3x7xf32>)
// CHECK: tensor.expand_shape %[[SUM]]
// CHECK: arith.constant 0.0204081628
func.func @global_average_pool_7x7(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32> {
  %0 = dlc.global_average_pool %x : tensor<1x3x7x7xf32> -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// -----

// A ReduceSum over a 5x5 map: 25 in 5 lanes.
// CHECK-LABEL: func.func @reduce_sum_5x5
// CHECK: tensor.expand_shape %{{.*}} into tensor<2x5x5xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : tensor<2x5x5xf32>) outs(%{{.*}} : tensor<2x5xf32>)
func.func @reduce_sum_5x5(%x: tensor<2x5x5xf32>) -> tensor<2xf32> {
  %0 = dlc.reduce %x {axes = array<i64: 1, 2>, keepdims = false, kind = "sum"} : tensor<2x5x5xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// 11x11 (121: no count from 4 to 8 divides it): one sum a channel.
// CHECK-LABEL: func.func @global_average_pool_11x11
// CHECK-NOT: ["parallel", "reduction", "parallel"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<1x3x121xf32>)
func.func @global_average_pool_11x11(%x: tensor<1x3x11x11xf32>) -> tensor<1x3x1x1xf32> {
  %0 = dlc.global_average_pool %x : tensor<1x3x11x11xf32> -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}
