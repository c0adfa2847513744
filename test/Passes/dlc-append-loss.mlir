// RUN: %dlc-opt %s --split-input-file --dlc-append-loss | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-append-loss=loss=mse | FileCheck %s --check-prefix=MSE

// Cross-entropy over logits: a final softmax is the loss's own and is
// skipped; int64 labels become a new argument; the loss is
// -(1/N) sum(log_softmax(logits) * onehot(labels)).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x3xf32>, %[[LABELS:[^:]*]]: tensor<4xi64> {dlc.name = "labels", dlc.role = "labels"}) -> tensor<f32>
// CHECK: %[[LOGITS:.*]] = dlc.relu %[[X]]
// CHECK: %[[LOGP:.*]] = dlc.log_softmax %[[LOGITS]] {axis = 1 : i64, coerce_2d = false}
// CHECK: %[[IOTA:.*]] = dlc.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
// CHECK: %[[COL:.*]] = dlc.reshape %[[LABELS]] {{.*}} -> tensor<4x1xi64>
// CHECK: %[[HOT:.*]] = dlc.compare %[[IOTA]], %[[COL]] {predicate = "eq"}
// CHECK: %[[HOTF:.*]] = dlc.cast %[[HOT]] {to = f32}
// CHECK: %[[PICK:.*]] = dlc.mul %[[LOGP]], %[[HOTF]]
// CHECK: %[[SUM:.*]] = dlc.reduce %[[PICK]] {axes = array<i64: 0, 1>, keepdims = false, kind = "sum"}
// CHECK: %[[SCALE:.*]] = dlc.constant dense<-2.500000e-01>
// CHECK: %[[LOSS:.*]] = dlc.mul %[[SUM]], %[[SCALE]]
// CHECK: return %[[LOSS]] : tensor<f32>
// MSE-LABEL: func.func @main
// MSE-SAME: %[[T:[^:]*]]: tensor<4x3xf32> {dlc.name = "labels"
// MSE: %[[Y:.*]] = dlc.softmax
// MSE: %[[D:.*]] = dlc.sub %[[Y]], %[[T]]
// MSE: %[[SQ:.*]] = dlc.mul %[[D]], %[[D]]
// MSE: %[[L:.*]] = dlc.reduce %[[SQ]] {axes = array<i64>, keepdims = false, kind = "mean"}
// MSE: return %[[L]]
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = dlc.relu %x : tensor<4x3xf32>
  %1 = dlc.softmax %0 {axis = 1 : i64, coerce_2d = false} : tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}
