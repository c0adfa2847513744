// RUN: %dlc-opt %s | %dlc-opt | FileCheck %s
// Round trip, and result types come from each op's own inference.

// CHECK-LABEL: func.func @cnn
func.func @cnn(%x: tensor<1x8x16x16xf32>, %w: tensor<8x1x3x3xf32>, %s: tensor<8xf32>) -> tensor<1x8xf32> {
  // CHECK: %[[C:.*]] = dlc.conv %{{.*}} {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : {{.*}} -> tensor<1x8x8x8xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 8 : i64} : (tensor<1x8x16x16xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: %[[B:.*]] = dlc.batch_norm %[[C]]
  %b = dlc.batch_norm %c, %s, %s, %s, %s {epsilon = 1.0e-5 : f32} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  // CHECK: %[[K:.*]] = dlc.clip %[[B]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
  %k = dlc.clip %b {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x8x8x8xf32>
  // CHECK: dlc.max_pool %[[K]] {{.*}} -> tensor<1x8x4x4xf32>
  %p = dlc.max_pool %k {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  %a = dlc.average_pool %p {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : tensor<1x8x4x4xf32> -> tensor<1x8x2x2xf32>
  // CHECK: dlc.global_average_pool {{.*}} -> tensor<1x8x1x1xf32>
  %g = dlc.global_average_pool %a : tensor<1x8x2x2xf32> -> tensor<1x8x1x1xf32>
  // CHECK: dlc.flatten {{.*}} -> tensor<1x8xf32>
  %f = dlc.flatten %g {axis = 1 : i64} : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
  return %f : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @dense
func.func @dense(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5xf32>, %sq: tensor<5x5xf32>) -> tensor<6x5xf32> {
  // CHECK: dlc.matmul {{.*}} -> tensor<2x3x5xf32>
  %m = dlc.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
  // CHECK: dlc.reshape {{.*}} -> tensor<6x5xf32>
  %r = dlc.reshape %m {shape = array<i64: -1, 5>} : tensor<2x3x5xf32> -> tensor<6x5xf32>
  // CHECK: dlc.gemm {{.*}} -> tensor<6x5xf32>
  %g = dlc.gemm %r, %sq, %c {transB = true} : (tensor<6x5xf32>, tensor<5x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %t = dlc.transpose %g {perm = array<i64: 1, 0>} : tensor<6x5xf32> -> tensor<5x6xf32>
  %u = dlc.transpose %t {perm = array<i64: 1, 0>} : tensor<5x6xf32> -> tensor<6x5xf32>
  // CHECK: dlc.add {{.*}} -> tensor<6x5xf32>
  %s = dlc.add %u, %c : tensor<6x5xf32>, tensor<5xf32> -> tensor<6x5xf32>
  %cat = dlc.concat %s, %s {axis = 0 : i64} : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<12x5xf32>
  %sm = dlc.softmax %s {axis = 1 : i64, coerce_2d = false} : tensor<6x5xf32>
  return %sm : tensor<6x5xf32>
}

// Integer, unsigned and bool element types; result types inferred.
// CHECK-LABEL: func.func @typed
func.func @typed(%a: tensor<2x3xui8>, %b: tensor<3xui8>, %x: tensor<2x3xf16>, %i: tensor<2x2xi64>) -> (tensor<2x3xf16>, tensor<2x2x3xf16>) {
  // CHECK: %[[C:.*]] = dlc.compare %{{.*}}, %{{.*}} {predicate = "lt"} : tensor<2x3xui8>, tensor<3xui8> -> tensor<2x3xi1>
  %c = dlc.compare %a, %b {predicate = "lt"} : tensor<2x3xui8>, tensor<3xui8> -> tensor<2x3xi1>
  // CHECK: %[[F:.*]] = dlc.cast %{{.*}} {to = f16} : tensor<2x3xui8> -> tensor<2x3xf16>
  %f = dlc.cast %a {to = f16} : tensor<2x3xui8> -> tensor<2x3xf16>
  // CHECK: %[[W:.*]] = dlc.where %[[C]], %[[F]], %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %w = dlc.where %c, %f, %x : (tensor<2x3xi1>, tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  // CHECK: dlc.gather %[[W]], %{{.*}} {axis = 0 : i64, elements = false} : (tensor<2x3xf16>, tensor<2x2xi64>) -> tensor<2x2x3xf16>
  %g = dlc.gather %w, %i {axis = 0 : i64, elements = false} : (tensor<2x3xf16>, tensor<2x2xi64>) -> tensor<2x2x3xf16>
  return %w, %g : tensor<2x3xf16>, tensor<2x2x3xf16>
}
