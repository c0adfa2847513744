// RUN: %dlc-opt %s --dlc-lower-to-linalg=fold-pool-padding=true --split-input-file | FileCheck %s

// A padded max pool (ResNet's 3x3, stride 2, pad 1): one all-parallel
// generic over (n, c, oh, ow) that reads its 9 taps at (oh * 2 + kh - 1,
// ow * 2 + kw - 1), -inf outside the input, and keeps their maximum (8
// maximumf); no tensor.pad, no fill.
// CHECK-LABEL: func.func @padded_max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x6xf32>)
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.fill
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<1x2x3x3xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : tensor<1x2x3x3xf32>)
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[H:.*]] = arith.addi %{{.*}}, %c-1
// CHECK: %[[W:.*]] = arith.addi %{{.*}}, %c-1
// CHECK: arith.cmpi ult, %[[H]], %c6
// CHECK: arith.cmpi ult, %[[W]], %c6
// CHECK: %[[V:.*]] = tensor.extract %[[X]]
// CHECK: %[[M0:.*]] = arith.select %{{.*}}, %[[V]], %[[NEG]]
// CHECK: %[[M1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEG]]
// CHECK: arith.maximumf %[[M0]], %[[M1]]
// CHECK-COUNT-7: arith.maximumf
// CHECK-NOT: arith.maximumf
// CHECK: linalg.yield
func.func @padded_max_pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Without padding the pool stays linalg's.
// CHECK-LABEL: func.func @unpadded_max_pool
// CHECK: linalg.pooling_nchw_max
func.func @unpadded_max_pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %0 = dlc.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
