// RUN: %dlc-opt %s --dlc-depthwise-conv-to-taps --split-input-file | FileCheck %s

// A 3x3 stride-2 depthwise conv into zeros: nine strided slices of the
// input and nine per-channel weight slices, summed by one all-parallel
// generic in (kh, kw) order starting from the fill's constant.
// The kernel is recorded for `dlc inspect`.
// CHECK-LABEL: func.func @stride_two
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x9x9xf32>, %[[W:.*]]: tensor<4x3x3xf32>)
// CHECK-SAME: dlc.conv_kernels = ["?: depthwise: 9 taps summed in one elementwise loop, vectorized along output rows (stride-2 taps as two loads and a shuffle)"]
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[T0:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK-DAG: %[[W0:.*]] = tensor.extract_slice %[[W]][0, 0, 0] [4, 1, 1] [1, 1, 1] : tensor<4x3x3xf32> to tensor<4xf32>
// CHECK-DAG: %[[T8:.*]] = tensor.extract_slice %[[X]][0, 0, 2, 2] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK-DAG: %[[W8:.*]] = tensor.extract_slice %[[W]][0, 2, 2] [4, 1, 1] [1, 1, 1] : tensor<4x3x3xf32> to tensor<4xf32>
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[T0]], {{.*}}, %[[T8]], %[[W0]], {{.*}}, %[[W8]] :
// CHECK-NEXT: ^bb0(%[[X0:[a-z0-9_]+]]: f32, %[[X1:[a-z0-9_]+]]: f32, %[[X2:[a-z0-9_]+]]: f32, %[[X3:[a-z0-9_]+]]: f32, %[[X4:[a-z0-9_]+]]: f32, %[[X5:[a-z0-9_]+]]: f32, %[[X6:[a-z0-9_]+]]: f32, %[[X7:[a-z0-9_]+]]: f32, %[[X8:[a-z0-9_]+]]: f32, %[[WV0:[a-z0-9_]+]]: f32, %[[WV1:[a-z0-9_]+]]: f32, %[[WV2:[a-z0-9_]+]]: f32, %[[WV3:[a-z0-9_]+]]: f32, %[[WV4:[a-z0-9_]+]]: f32, %[[WV5:[a-z0-9_]+]]: f32, %[[WV6:[a-z0-9_]+]]: f32, %[[WV7:[a-z0-9_]+]]: f32, %[[WV8:[a-z0-9_]+]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[A0:.*]] = math.fma %[[X0]], %[[WV0]], %[[ZERO]]
// CHECK-NEXT: %[[A1:.*]] = math.fma %[[X1]], %[[WV1]], %[[A0]]
// CHECK: %[[A8:.*]] = math.fma %[[X8]], %[[WV8]], %{{.*}}
// CHECK-NEXT: linalg.yield %[[A8]]
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @stride_two(%x: tensor<1x4x9x9xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x4x9x9xf32>, tensor<4x3x3xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A dilated conv over a bias: slices at offsets (kh * 2, kw * 2), and the
// bias tensor read as the generic's first input.
// CHECK-LABEL: func.func @dilated_over_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x6xf32>, %[[W:.*]]: tensor<2x2x2xf32>, %[[B:.*]]: tensor<1x2x4x4xf32>)
// CHECK-DAG: %[[T3:.*]] = tensor.extract_slice %[[X]][0, 0, 2, 2] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[B]], {{.*}}, %[[T3]], {{.*}} :
// CHECK-NEXT: ^bb0(%[[START:[a-z0-9_]+]]: f32,
// CHECK-NEXT: math.fma %{{.*}}, %{{.*}}, %[[START]]
func.func @dilated_over_bias(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x2xf32>, %b: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x6x6xf32>, tensor<2x2x2xf32>) outs(%b : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A window over max-taps stays a named op.
// CHECK-LABEL: func.func @too_many_taps
// CHECK-SAME: dlc.conv_kernels = ["?: depthwise: direct loops over the window
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @too_many_taps(%x: tensor<1x2x12x12xf32>, %w: tensor<2x7x7xf32>, %b: tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x2x12x12xf32>, tensor<2x7x7xf32>) outs(%b : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}
