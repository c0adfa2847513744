// RUN: %dlc-opt %s --dlc-depthwise-conv-to-taps=vector-width=16 --split-input-file | FileCheck %s

// 28-pixel output rows at stride 1: two 16-lane vectors a row, four rows a
// step of dlc-slide-taps-in-registers' loop, 8 sums in flight (under 12).
// Each window row's taps are a chain of their own, the first row's from
// the start, and the three rows' sums are added at the end.
// CHECK-LABEL: func.func @row_sums
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X0:[a-z0-9_]+]]: f32, %[[X1:[a-z0-9_]+]]: f32, %[[X2:[a-z0-9_]+]]: f32, %[[X3:[a-z0-9_]+]]: f32, %[[X4:[a-z0-9_]+]]: f32, %[[X5:[a-z0-9_]+]]: f32, %[[X6:[a-z0-9_]+]]: f32, %[[X7:[a-z0-9_]+]]: f32, %[[X8:[a-z0-9_]+]]: f32, %[[W0:[a-z0-9_]+]]: f32, %[[W1:[a-z0-9_]+]]: f32, %[[W2:[a-z0-9_]+]]: f32, %[[W3:[a-z0-9_]+]]: f32, %[[W4:[a-z0-9_]+]]: f32, %[[W5:[a-z0-9_]+]]: f32, %[[W6:[a-z0-9_]+]]: f32, %[[W7:[a-z0-9_]+]]: f32, %[[W8:[a-z0-9_]+]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[A0:.*]] = math.fma %[[X0]], %[[W0]], %[[ZERO]]
// CHECK-NEXT: %[[A1:.*]] = math.fma %[[X1]], %[[W1]], %[[A0]]
// CHECK-NEXT: %[[R0:.*]] = math.fma %[[X2]], %[[W2]], %[[A1]]
// CHECK-NEXT: %[[B0:.*]] = arith.mulf %[[X3]], %[[W3]]
// CHECK-NEXT: %[[B1:.*]] = math.fma %[[X4]], %[[W4]], %[[B0]]
// CHECK-NEXT: %[[R1:.*]] = math.fma %[[X5]], %[[W5]], %[[B1]]
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[R0]], %[[R1]]
// CHECK-NEXT: %[[C0:.*]] = arith.mulf %[[X6]], %[[W6]]
// CHECK-NEXT: %[[C1:.*]] = math.fma %[[X7]], %[[W7]], %[[C0]]
// CHECK-NEXT: %[[R2:.*]] = math.fma %[[X8]], %[[W8]], %[[C1]]
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[R2]]
// CHECK-NEXT: linalg.yield %[[S2]]
func.func @row_sums(%x: tensor<1x2x30x30xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x28x28xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x28x28xf32>) -> tensor<1x2x28x28xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x30x30xf32>, tensor<2x3x3xf32>) outs(%init : tensor<1x2x28x28xf32>) -> tensor<1x2x28x28xf32>
  return %0 : tensor<1x2x28x28xf32>
}

// -----

// At stride 2 a step is one output row: 56 pixels, 4 vectors, row sums.
// CHECK-LABEL: func.func @row_sums_stride_two
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.yield
func.func @row_sums_stride_two(%x: tensor<1x2x113x113xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x56x56xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x56x56xf32>) -> tensor<1x2x56x56xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x113x113xf32>, tensor<2x3x3xf32>) outs(%init : tensor<1x2x56x56xf32>) -> tensor<1x2x56x56xf32>
  return %0 : tensor<1x2x56x56xf32>
}

// -----

// 56-pixel rows at stride 1 keep 16 sums in flight (4 rows of 4 vectors):
// one chain of FMAs, as without vector-width (row sums ran the 56x56 conv
// 12% slower: two more ops a row).
// CHECK-LABEL: func.func @one_chain_wide
// CHECK: linalg.generic
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.addf
// CHECK: linalg.yield
func.func @one_chain_wide(%x: tensor<1x2x58x58xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x56x56xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x56x56xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x56x56xf32>) -> tensor<1x2x56x56xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x58x58xf32>, tensor<2x3x3xf32>) outs(%init : tensor<1x2x56x56xf32>) -> tensor<1x2x56x56xf32>
  return %0 : tensor<1x2x56x56xf32>
}

// -----

// Rows of one vector (14x14) are unrolled whole: one chain.
// CHECK-LABEL: func.func @one_chain_narrow
// CHECK: linalg.generic
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.addf
// CHECK: linalg.yield
func.func @one_chain_narrow(%x: tensor<1x2x16x16xf32>, %w: tensor<2x3x3xf32>) -> tensor<1x2x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x14x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x14x14xf32>) -> tensor<1x2x14x14xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x16x16xf32>, tensor<2x3x3xf32>) outs(%init : tensor<1x2x14x14xf32>) -> tensor<1x2x14x14xf32>
  return %0 : tensor<1x2x14x14xf32>
}
