// RUN: %dlc-opt %s --dlc-apply-optimizer="momentum=0.9 weight-decay=0.01" | FileCheck %s
// RUN: %dlc-opt %s --dlc-apply-optimizer="optimizer=adam" | FileCheck %s --check-prefix=ADAM

// SGD as torch.optim.SGD: g += wd p; v = m v + g; p -= lr v. The learning
// rate and the momentum buffer become arguments; the results are the loss,
// the new parameter and the new buffer.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[P:[^:]*]]: tensor<3xf32> {dlc.name = "w", dlc.role = "parameter"}, %[[LR:[^:]*]]: tensor<f32> {dlc.name = "learning_rate", dlc.role = "learning_rate"}, %[[V:[^:]*]]: tensor<3xf32> {dlc.name = "w.momentum", dlc.role = "state"})
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[GRAD:.*]] = dlc.mul %[[P]], %[[P]]
// CHECK: %[[WD:.*]] = dlc.mul %[[P]], %{{.*}}
// CHECK: %[[G:.*]] = dlc.add %[[GRAD]], %[[WD]]
// CHECK: %[[MV:.*]] = dlc.mul %[[V]], %{{.*}}
// CHECK: %[[V1:.*]] = dlc.add %[[MV]], %[[G]]
// CHECK: %[[STEP:.*]] = dlc.mul %[[LR]], %[[V1]]
// CHECK: %[[P1:.*]] = dlc.sub %[[P]], %[[STEP]]
// CHECK: return %{{.*}}, %[[P1]], %[[V1]]
// Adam: a step count, then first and second moments per parameter.
// ADAM-LABEL: func.func @main
// ADAM-SAME: tensor<f32> {dlc.name = "adam.step", dlc.role = "state"}
// ADAM-SAME: tensor<3xf32> {dlc.name = "w.adam_m", dlc.role = "state"}
// ADAM-SAME: tensor<3xf32> {dlc.name = "w.adam_v", dlc.role = "state"}
// ADAM-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>)
// ADAM: dlc.pow
// ADAM: dlc.sqrt
func.func @main(%w: tensor<3xf32> {dlc.role = "parameter", dlc.name = "w"}) -> (tensor<f32>, tensor<3xf32>) {
  %0 = dlc.reduce %w {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<3xf32> -> tensor<f32>
  %1 = dlc.mul %w, %w : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0, %1 : tensor<f32>, tensor<3xf32>
}
