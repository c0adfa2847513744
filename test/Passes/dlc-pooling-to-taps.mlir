// RUN: %dlc-opt %s --dlc-pooling-to-taps --split-input-file | FileCheck %s

// LeNet's 2x2 stride-2 max pool from a -inf fill: four strided slices of
// the input, combined by one all-parallel generic in (kh, kw) order. The
// -inf start is left out (max(-inf, x) is x) and the fill goes. The maxima
// ignore the sign of zero (fast-math nsz; NaN still propagates).
// CHECK-LABEL: func.func @max_two_by_two
// CHECK-SAME: (%[[X:.*]]: tensor<1x6x28x28xf32>)
// CHECK-DAG: %[[T0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 6, 14, 14] [1, 1, 2, 2]
// CHECK-DAG: %[[T1:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 1] [1, 6, 14, 14] [1, 1, 2, 2]
// CHECK-DAG: %[[T2:.*]] = tensor.extract_slice %[[X]][0, 0, 1, 0] [1, 6, 14, 14] [1, 1, 2, 2]
// CHECK-DAG: %[[T3:.*]] = tensor.extract_slice %[[X]][0, 0, 1, 1] [1, 6, 14, 14] [1, 1, 2, 2]
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[T0]], %[[T1]], %[[T2]], %[[T3]] :
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32, %[[C:[a-z0-9_]+]]: f32, %[[D:[a-z0-9_]+]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M0:.*]] = arith.maximumf %[[A]], %[[B]] fastmath<nsz> : f32
// CHECK-NEXT: %[[M1:.*]] = arith.maximumf %[[M0]], %[[C]] fastmath<nsz> : f32
// CHECK-NEXT: %[[M2:.*]] = arith.maximumf %[[M1]], %[[D]] fastmath<nsz> : f32
// CHECK-NEXT: linalg.yield %[[M2]]
// CHECK-NOT: linalg.pooling_nchw_max
func.func @max_two_by_two(%x: tensor<1x6x28x28xf32>) -> tensor<1x6x14x14xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x6x14x14xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x6x14x14xf32>) -> tensor<1x6x14x14xf32>
  %0 = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %win : tensor<1x6x28x28xf32>, tensor<2x2xf32>) outs(%init : tensor<1x6x14x14xf32>) -> tensor<1x6x14x14xf32>
  return %0 : tensor<1x6x14x14xf32>
}

// -----

// An average pool's sum (3x3, stride 1, dilation 2) from zeros: slices at
// offsets (kh * 2, kw * 2); the zero start is a body constant, kept so
// that the sum of -0.0 taps stays +0.0 as the named op's is.
// CHECK-LABEL: func.func @sum_dilated
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x8xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[T8:.*]] = tensor.extract_slice %[[X]][0, 0, 4, 4] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}}, %[[T8]] :
// CHECK-NEXT: ^bb0(%[[A:[a-z0-9_]+]]: f32,
// CHECK-NEXT: %{{.*}} = arith.addf %[[ZERO]], %[[A]] : f32
func.func @sum_dilated(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %0 = linalg.pooling_nchw_sum {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
         ins(%x, %win : tensor<1x2x8x8xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A max pool into a tensor that is not a constant fill reads it as the
// generic's first input.
// CHECK-LABEL: func.func @max_over_init
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>, %[[I:.*]]: tensor<1x1x2x2xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]],
// CHECK-NEXT: ^bb0(%[[START:[a-z0-9_]+]]: f32, %[[A:[a-z0-9_]+]]: f32,
// CHECK-NEXT: arith.maximumf %[[START]], %[[A]]
func.func @max_over_init(%x: tensor<1x1x4x4xf32>, %init: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %win = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %win : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A window over max-taps (7x7 = 49) stays a named op.
// CHECK-LABEL: func.func @too_many_taps
// CHECK: linalg.pooling_nchw_max
func.func @too_many_taps(%x: tensor<1x2x7x7xf32>, %init: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %win = tensor.empty() : tensor<7x7xf32>
  %0 = linalg.pooling_nchw_max {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %win : tensor<1x2x7x7xf32>, tensor<7x7xf32>) outs(%init : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

// Without strides and dilations attributes the named op's defaults (1)
// apply: slices with unit strides at offsets (0, 0) .. (1, 1).
// CHECK-LABEL: func.func @default_strides
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>
// CHECK-DAG: tensor.extract_slice %[[X]][0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1]
// CHECK: linalg.generic
func.func @default_strides(%x: tensor<1x1x4x4xf32>, %init: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %win = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nchw_max ins(%x, %win : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}
