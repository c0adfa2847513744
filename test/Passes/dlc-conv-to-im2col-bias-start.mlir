// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=6 pad-lanes=16" | FileCheck %s

// A conv starting from a per-filter bias (LowerToLinalg's conv bias, as in a
// model exported with its BatchNorm folded in) whose one user is an
// elementwise generic: the bias moves into that generic, added to the conv's
// value before its body, and the packed GEMM starts from a zero fill (which
// dlc-tile-and-vectorize starts its register tiles from in registers).
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @bias_into_activation
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x12x64xf32>)
// CHECK: %[[ACC:.*]] = tensor.expand_shape %[[ZERO]]
// CHECK: %[[GEMM:.*]] = linalg.generic {{.*}} outs(%[[ACC]] : tensor<1x2x6x64xf32>)
// CHECK: %[[CONV:.*]] = tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}}} ins(%[[CONV]], %[[B]] : tensor<1x8x8x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[RELU]] : f32
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_into_activation(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %w = arith.constant dense<0.25> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%empty : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x8x8x8xf32>) outs(%out : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  return %relu : tensor<1x8x8x8xf32>
}

// -----

// Two users of the conv: the bias goes into an add of its own after the
// GEMM (fused into its register tiles later), which both users read.
// CHECK-LABEL: func.func @bias_two_users
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[B2:.*]]: tensor<8xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x12x64xf32>)
// CHECK: %[[CONV2:.*]] = tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK: %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[CONV2]], %[[B2]] : tensor<1x8x8x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[V2:.*]]: f32, %[[BV2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM2:.*]] = arith.addf %[[V2]], %[[BV2]] : f32
// CHECK-NEXT: linalg.yield %[[SUM2]] : f32
// CHECK: %[[RELU2:.*]] = linalg.generic {{.*}} ins(%[[ADD]] : tensor<1x8x8x8xf32>)
// CHECK: return %[[RELU2]], %[[ADD]]
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row2 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_two_users(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %w = arith.constant dense<0.25> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%empty : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x8x8x8xf32>) outs(%out : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  return %relu, %conv : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// Users that each can take the bias: an elementwise generic and a copy
// into a padded input buffer (dlc::writeIntoCorner's, made before this conv
// was rewritten). Each adds the bias itself (the copy becomes that add into
// its buffer), so that the epilogues run over the GEMM's result in its
// tiles; there is no add of its own.
// CHECK-LABEL: func.func @bias_into_each_user
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[B3:.*]]: tensor<8xf32>, %[[BUF:.*]]: tensor<1x8x8x8xf32>)
// CHECK: %[[CONV3:.*]] = tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK: %[[RELU3:.*]] = linalg.generic {{.*}} ins(%[[CONV3]], %[[B3]] : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<1x8x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[V3:.*]]: f32, %[[BV3:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM3:.*]] = arith.addf %[[V3]], %[[BV3]] : f32
// CHECK-NEXT: arith.maximumf %[[SUM3]]
// CHECK: %[[INTO:.*]] = linalg.generic {{.*}} ins(%[[CONV3]], %[[B3]] : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%[[BUF]] : tensor<1x8x8x8xf32>)
// CHECK-NEXT: ^bb0(%[[V4:.*]]: f32, %[[BV4:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM4:.*]] = arith.addf %[[V4]], %[[BV4]] : f32
// CHECK-NEXT: linalg.yield %[[SUM4]] : f32
// CHECK-NOT: linalg.copy
// CHECK: return %[[RELU3]], %[[INTO]]
#id3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row3 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_into_each_user(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>, %buf: tensor<1x8x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %w = arith.constant dense<0.25> : tensor<8x4x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#row3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%empty : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %out = tensor.empty() : tensor<1x8x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x8x8x8xf32>) outs(%out : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x8x8x8xf32>
  %copied = linalg.copy ins(%conv : tensor<1x8x8x8xf32>) outs(%buf : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %relu, %copied : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}

// -----

// A residual add of two convs' values, each the add's only reader (a
// block's input from the previous block's 1x1 conv and its bias, the
// block's last conv): it is the later conv's epilogue, so it takes that
// conv's bias; the earlier one's sum is an add of its own, which exists
// before the later GEMM runs. (Both biases in it, it read two GEMMs'
// results and joined neither's tiles.)
// CHECK-LABEL: func.func @bias_before_later_conv
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[BA:.*]]: tensor<4xf32>, %[[BB:.*]]: tensor<4xf32>)
// CHECK: %[[CA:.*]] = tensor.expand_shape {{.*}} into tensor<1x4x8x8xf32>
// CHECK: %[[SA:.*]] = linalg.generic {{.*}} ins(%[[CA]], %[[BA]] : tensor<1x4x8x8xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[VA:.*]]: f32, %[[BVA:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUMA:.*]] = arith.addf %[[VA]], %[[BVA]] : f32
// CHECK-NEXT: linalg.yield %[[SUMA]] : f32
// CHECK: %[[CB:.*]] = tensor.expand_shape {{.*}} into tensor<1x4x8x8xf32>
// CHECK: %[[RES:.*]] = linalg.generic {{.*}} ins(%[[SA]], %[[CB]], %[[BB]] : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[R:.*]]: f32, %[[VB:.*]]: f32, %[[BVB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUMB:.*]] = arith.addf %[[VB]], %[[BVB]] : f32
// CHECK-NEXT: %[[TOTAL:.*]] = arith.addf %[[R]], %[[SUMB]] : f32
// CHECK-NEXT: linalg.yield %[[TOTAL]] : f32
// CHECK: return %[[RES]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row4 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_before_later_conv(%x: tensor<1x4x8x8xf32>, %ba: tensor<4xf32>, %bb: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %wa = arith.constant dense<0.25> : tensor<4x4x1x1xf32>
  %wb = arith.constant dense<0.5> : tensor<4x4x1x1xf32>
  %empty = tensor.empty() : tensor<1x4x8x8xf32>
  %inita = linalg.generic {indexing_maps = [#row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ba : tensor<4xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x8x8xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wa : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%inita : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %initb = linalg.generic {indexing_maps = [#row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bb : tensor<4xf32>) outs(%empty : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x4x8x8xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %wb : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) outs(%initb : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %out = tensor.empty() : tensor<1x4x8x8xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%out : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x8xf32>
  return %sum : tensor<1x4x8x8xf32>
}

// -----

// A user that cannot take the bias (the result returned as is) beside a
// copy into a padded input: the returned value is an add of its own, and
// the copy still becomes the bias add into its buffer.
// CHECK-LABEL: func.func @bias_own_add_and_copy
// CHECK-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %[[B5:.*]]: tensor<8xf32>, %[[BUF5:.*]]: tensor<1x8x8x8xf32>)
// CHECK: %[[CONV5:.*]] = tensor.expand_shape {{.*}} into tensor<1x8x8x8xf32>
// CHECK: %[[OWN:.*]] = linalg.generic {{.*}} ins(%[[CONV5]], %[[B5]] : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<1x8x8x8xf32>)
// CHECK: %[[INTO5:.*]] = linalg.generic {{.*}} ins(%[[CONV5]], %[[B5]] : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%[[BUF5]] : tensor<1x8x8x8xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return %[[OWN]], %[[INTO5]]
#id5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row5 = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @bias_own_add_and_copy(%x: tensor<1x4x8x8xf32>, %b: tensor<8xf32>, %buf: tensor<1x8x8x8xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %w = arith.constant dense<0.25> : tensor<8x4x1x1xf32>
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.generic {indexing_maps = [#row5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%empty : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %copied = linalg.copy ins(%conv : tensor<1x8x8x8xf32>) outs(%buf : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %conv, %copied : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>
}
