// RUN: %dlc-opt %s -split-input-file -verify-diagnostics

func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{shapes are not broadcastable: dim 1 is 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv channels do not match: input 3, weight 2 x group 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv_mixed_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf64>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{conv operands must have one element type: X is f32, W is f64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf64>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @matmul_mixed_element_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+2 {{matmul operands must have one element type: A is f32, B is f16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf16> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @add_mixed_element_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf64>) -> tensor<2x3xf32> {
  // expected-error @+2 {{dlc.add operands must have one element type: A is f32, B is f64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.add %a, %b : tensor<2x3xf32>, tensor<2x3xf64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @wrong_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'dlc.matmul' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+2 {{reshape: 6 elements cannot become 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.reshape %a {shape = array<i64: 7>} : tensor<2x3xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @clip_bounds(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{min 6.000000e+00 exceeds max 0.000000e+00}}
  %0 = dlc.clip %a {min = 6.0 : f32, max = 0.0 : f32} : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %0 = dlc.softmax %a {axis = 2 : i64, coerce_2d = false} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The importer normalises negative axes; one that reaches the op is named
// as written.
func.func @softmax_negative_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{axis -1 out of range for rank 2}}
  %0 = dlc.log_softmax %a {axis = -1 : i64, coerce_2d = false} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reduce_axes(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{reduce axes must be sorted, unique and within the rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.reduce %a {kind = "sum", axes = array<i64: 1, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_bounds(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{slice of dim 0 is out of bounds}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.slice %a {offsets = array<i64: 2>, sizes = array<i64: 3>, steps = array<i64: 1>} : tensor<4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @compare_predicate(%a: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{unknown predicate 'ne'}}
  %0 = dlc.compare %a, %a {predicate = "ne"} : tensor<4xi32>, tensor<4xi32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @gather_axis(%a: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+2 {{gather axis 2 out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = dlc.gather %a, %i {axis = 2 : i64, elements = false} : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @relu_on_ints(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = dlc.relu %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @conv_gemm_filter_mismatch(%x: memref<1x8x6x6xf32>, %w: memref<20x70xf32>, %y: memref<1x20x36xf32>) {
  // expected-error @+1 {{output [N, F, OH OW] and filter [F, KH KW C] do not match input}}
  dlc.conv_gemm %x, %w into %y {dilations = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, output_size = array<i64: 6, 6>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : memref<1x8x6x6xf32>, memref<20x70xf32> into memref<1x20x36xf32>
  return
}

// -----

func.func @conv_gemm_three_strides(%x: memref<1x8x6x6xf32>, %w: memref<20x72xf32>, %y: memref<1x20x36xf32>) {
  // expected-error @+1 {{kernel_size, output_size, strides, dilations and padding take 2 values}}
  dlc.conv_gemm %x, %w into %y {dilations = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, output_size = array<i64: 6, 6>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1, 1>} : memref<1x8x6x6xf32>, memref<20x72xf32> into memref<1x20x36xf32>
  return
}
