// RUN: %dlc-opt %s --split-input-file --dlc-training-mode --verify-diagnostics | FileCheck %s

// BatchNormalization normalizes with the batch's mean and biased variance
// (over N, H, W); the running statistics (dlc.role = "buffer") get
// running * momentum + batch * (1 - momentum), returned after the loss.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4x4xf32>{{.*}}, %[[MEAN:[^:]*]]: tensor<3xf32> {dlc.name = "bn.mean", dlc.role = "buffer"}, %[[VAR:[^:]*]]: tensor<3xf32> {dlc.name = "bn.var", dlc.role = "buffer"}
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[MU:.*]] = dlc.reduce %[[X]] {axes = array<i64: 0, 2, 3>, keepdims = true, kind = "mean"}
// CHECK: %[[C:.*]] = dlc.sub %[[X]], %[[MU]]
// CHECK: %[[SQ:.*]] = dlc.mul %[[C]], %[[C]]
// CHECK: %[[V:.*]] = dlc.reduce %[[SQ]] {axes = array<i64: 0, 2, 3>, keepdims = true, kind = "mean"}
// CHECK: dlc.sqrt
// CHECK: dlc.reciprocal
// CHECK-NOT: dlc.batch_norm
// CHECK: %[[OLDM:.*]] = dlc.mul %[[MEAN]], %{{.*}}
// CHECK: %[[MU3:.*]] = dlc.reshape %[[MU]] {{.*}} -> tensor<3xf32>
// CHECK: %[[NEWM:.*]] = dlc.add %[[OLDM]], %{{.*}}
// CHECK: %[[OLDV:.*]] = dlc.mul %[[VAR]], %{{.*}}
// CHECK: %[[V3:.*]] = dlc.reshape %[[V]] {{.*}} -> tensor<3xf32>
// CHECK: %[[NEWV:.*]] = dlc.add %[[OLDV]], %{{.*}}
// CHECK: return %{{.*}}, %[[NEWM]], %[[NEWV]]
func.func @main(%x: tensor<2x3x4x4xf32> {dlc.role = "input", dlc.name = "x"},
                %s: tensor<3xf32> {dlc.role = "parameter", dlc.name = "bn.scale"},
                %b: tensor<3xf32> {dlc.role = "parameter", dlc.name = "bn.bias"},
                %m: tensor<3xf32> {dlc.role = "buffer", dlc.name = "bn.mean"},
                %v: tensor<3xf32> {dlc.role = "buffer", dlc.name = "bn.var"}) -> tensor<f32> {
  %0 = dlc.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32, momentum = 0.9 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %1 = dlc.reduce %0 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<2x3x4x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// Dropout multiplies by a mask drawn from a new step counter (state), which
// the step increments; each node keeps its seed.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {dlc.name = "rng.step", dlc.role = "state"}
// CHECK-SAME: -> (tensor<f32>, tensor<i64>)
// CHECK: %[[MASK:.*]] = dlc.dropout_mask %[[STEP]] {ratio = 2.500000e-01 : f32, seed = 7 : i64} : tensor<i64> -> tensor<8xf32>
// CHECK: dlc.mul %{{.*}}, %[[MASK]]
// CHECK: %[[NEXT:.*]] = dlc.add %[[STEP]], %{{.*}} : tensor<i64>
// CHECK: return %{{.*}}, %[[NEXT]]
func.func @main(%x: tensor<8xf32> {dlc.role = "input", dlc.name = "x"},
                %w: tensor<8xf32> {dlc.role = "parameter", dlc.name = "w"}) -> tensor<f32> {
  %0 = dlc.mul %x, %w : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %1 = dlc.dropout %0 {ratio = 0.25 : f32, seed = 7 : i64} : tensor<8xf32>
  %2 = dlc.reduce %1 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<8xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Two BatchNormalization nodes cannot both update one running statistic.
func.func @main(%x: tensor<2x3xf32> {dlc.role = "input", dlc.name = "x"},
                %s: tensor<3xf32> {dlc.role = "parameter", dlc.name = "s"},
                %b: tensor<3xf32> {dlc.role = "parameter", dlc.name = "b"},
                %m: tensor<3xf32> {dlc.role = "buffer", dlc.name = "bn.mean"},
                %v: tensor<3xf32> {dlc.role = "buffer", dlc.name = "bn.var"}) -> tensor<f32> {
  %0 = dlc.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // expected-error@+1 {{running statistic 'bn.mean' is shared by two BatchNormalization nodes}}
  %1 = dlc.batch_norm %0, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = dlc.reduce %1 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<2x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
