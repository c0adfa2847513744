// RUN: %dlc-opt %s --split-input-file --dlc-autodiff --verify-diagnostics | FileCheck %s

// Gemm + Relu: the Relu's gradient is masked where its output is positive
// (as where its input was; reading the output lets the gemm result die in
// the forward pass), the weight's is dY^T x (transB), the bias's a column
// sum; the results are the loss, then one gradient per parameter in
// argument order.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x3xf32>, %[[W:[^:]*]]: tensor<2x3xf32>
// CHECK-SAME: %[[B:[^:]*]]: tensor<2xf32>
// CHECK-SAME: -> (tensor<f32>, tensor<2x3xf32>, tensor<2xf32>)
// CHECK: %[[Y:.*]] = dlc.gemm %[[X]], %[[W]], %[[B]]
// CHECK: %[[R:.*]] = dlc.relu %[[Y]]
// CHECK: %[[L:.*]] = dlc.reduce
// CHECK: %[[POS:.*]] = dlc.compare %[[R]], %{{.*}} {predicate = "gt"}
// CHECK: %[[DY:.*]] = dlc.where %[[POS]]
// CHECK: %[[DW:.*]] = dlc.gemm %[[DY]], %[[X]] {transA = true
// CHECK: %[[DBS:.*]] = dlc.reduce %[[DY]] {axes = array<i64: 0>, keepdims = true, kind = "sum"}
// CHECK: %[[DB:.*]] = dlc.reshape %[[DBS]]
// CHECK: return %[[L]], %[[DW]], %[[DB]]
func.func @main(%x: tensor<4x3xf32>, %w: tensor<2x3xf32> {dlc.role = "parameter", dlc.name = "w"},
                %b: tensor<2xf32> {dlc.role = "parameter", dlc.name = "b"}) -> tensor<f32> {
  %0 = dlc.gemm %x, %w, %b {transB = true} : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %1 = dlc.relu %0 : tensor<4x2xf32>
  %2 = dlc.reduce %1 {axes = array<i64>, keepdims = false, kind = "mean"} : tensor<4x2xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Conv + MaxPool: gradient ops carry the forward attributes; the input x
// (not a parameter) gets no gradient, so no conv_grad_input is built.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x1x6x6xf32>, %[[W:[^:]*]]: tensor<2x1x3x3xf32>
// CHECK: %[[C:.*]] = dlc.conv %[[X]], %[[W]]
// CHECK: %[[DP:.*]] = dlc.max_pool_grad %[[C]], %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>
// CHECK-NOT: dlc.conv_grad_input
// CHECK: %[[DW:.*]] = dlc.conv_grad_weight %[[X]], %[[DP]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK: return %{{.*}}, %[[DW]]
func.func @main(%x: tensor<1x1x6x6xf32>, %w: tensor<2x1x3x3xf32> {dlc.role = "parameter", dlc.name = "w"}) -> tensor<f32> {
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x6x6xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x6xf32>
  %1 = dlc.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
  %2 = dlc.reduce %1 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<1x2x3x3xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// AveragePool: average_pool_grad with the forward's window and divisor
// rule; a batched MatMul: dA = dY B^T and dB = A^T dY, batched matmuls.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[P:[^:]*]]: tensor<2x3x6x6xf32> {dlc.name = "p", dlc.role = "parameter"}, %[[B:[^:]*]]: tensor<2x3x3xf32>
// CHECK: %[[A:.*]] = dlc.average_pool %[[P]]
// CHECK: %[[R:.*]] = dlc.reshape %[[A]]
// CHECK: %[[BT:.*]] = dlc.transpose %[[B]] {perm = array<i64: 0, 2, 1>}
// CHECK: %[[DR:.*]] = dlc.matmul %{{.*}}, %[[BT]]
// CHECK: %[[RT:.*]] = dlc.transpose %[[R]] {perm = array<i64: 0, 2, 1>}
// CHECK: %[[DB:.*]] = dlc.matmul %[[RT]], %{{.*}}
// CHECK: %[[DA:.*]] = dlc.reshape %[[DR]]
// CHECK: %[[DP:.*]] = dlc.average_pool_grad %[[DA]] {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x3x3xf32>) -> tensor<2x3x6x6xf32>
// CHECK: return %{{.*}}, %[[DP]], %[[DB]]
func.func @main(%p: tensor<2x3x6x6xf32> {dlc.role = "parameter", dlc.name = "p"}, %b: tensor<2x3x3xf32> {dlc.role = "parameter", dlc.name = "b"}) -> tensor<f32> {
  %0 = dlc.average_pool %p {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : tensor<2x3x6x6xf32> -> tensor<2x3x3x3xf32>
  %1 = dlc.reshape %0 {shape = array<i64: 2, 9, 3>} : tensor<2x3x3x3xf32> -> tensor<2x9x3xf32>
  %2 = dlc.matmul %1, %b : tensor<2x9x3xf32>, tensor<2x3x3xf32> -> tensor<2x9x3xf32>
  %3 = dlc.reduce %2 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<2x9x3xf32> -> tensor<f32>
  return %3 : tensor<f32>
}

// -----

// An op without a gradient rule on the active path is an error naming it.
// CHECK-NOT: func.func
func.func @main(%w: tensor<4xf32> {dlc.role = "parameter", dlc.name = "w"}) -> tensor<f32> {
  // expected-error@+1 {{no gradient for 'dlc.floor'}}
  %0 = dlc.floor %w : tensor<4xf32>
  %1 = dlc.reduce %0 {axes = array<i64>, keepdims = false, kind = "sum"} : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
