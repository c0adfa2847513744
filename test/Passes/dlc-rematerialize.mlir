// RUN: %dlc-opt %s --split-input-file --dlc-rematerialize="min-distance=3 min-bytes=16" | FileCheck %s

// A padded input read early (forward conv) and again much later (its weight
// gradient): the pad is recomputed right before the late use, from the
// function argument, and the clone is marked so that CSE keeps it apart.
// CHECK-LABEL: func.func @pad_of_argument
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[X]]
// CHECK: %[[EARLY:.*]] = math.exp %[[P]]
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: %[[LATE_IN:.*]] = math.sqrt
// CHECK-NEXT: %[[P2:.*]] = tensor.pad %[[X]]
// CHECK: } {dlc.recomputed}
// CHECK-NEXT: %[[LATE:.*]] = arith.addf %[[P2]], %[[LATE_IN]]
// CHECK-NEXT: return %[[EARLY]], %[[LATE]]
func.func @pad_of_argument(%x: tensor<2x4xf32>, %y: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x4xf32> to tensor<2x6xf32>
  %early = math.exp %p : tensor<2x6xf32>
  %a = math.sqrt %y : tensor<2x6xf32>
  %b = math.sqrt %a : tensor<2x6xf32>
  %c = math.sqrt %b : tensor<2x6xf32>
  %late = arith.addf %p, %c : tensor<2x6xf32>
  return %early, %late : tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// The backward pass built its own copy of a forward value: the two are
// merged first (as CSE would merge them later), then the late reader gets
// a marked recomputation.
// CHECK-LABEL: func.func @duplicate_pad
// CHECK: tensor.pad
// CHECK-NOT: dlc.recomputed
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK-NEXT: tensor.pad
// CHECK: } {dlc.recomputed}
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @duplicate_pad(%x: tensor<2x4xf32>, %y: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x4xf32> to tensor<2x6xf32>
  %early = math.exp %p : tensor<2x6xf32>
  %a = math.sqrt %y : tensor<2x6xf32>
  %b = math.sqrt %a : tensor<2x6xf32>
  %c = math.sqrt %b : tensor<2x6xf32>
  %q = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x4xf32> to tensor<2x6xf32>
  %late = arith.addf %q, %c : tensor<2x6xf32>
  return %early, %late : tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// An elementwise op whose input dies early: recomputing it would keep that
// input alive instead, so the result is kept and nothing is cloned.
// CHECK-LABEL: func.func @input_not_live
// CHECK-NOT: dlc.recomputed
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @input_not_live(%x: tensor<2x6xf32>, %y: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %t = math.exp %x : tensor<2x6xf32>
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<2x6xf32>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x6xf32>
  %early = math.exp %r : tensor<2x6xf32>
  %a = math.sqrt %y : tensor<2x6xf32>
  %b = math.sqrt %a : tensor<2x6xf32>
  %c = math.sqrt %b : tensor<2x6xf32>
  %late = arith.addf %r, %c : tensor<2x6xf32>
  return %early, %late : tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// The same elementwise op (a ReLU) on an input that is still live at the
// late use (a parameter-like argument): recomputed there; its FLOPs (one
// maximumf per element) and bytes are recorded on the function.
// CHECK-LABEL: func.func @relu_of_live_input
// CHECK-SAME: dlc.recomputed_bytes = 48 : i64, dlc.recomputed_flops = 12 : i64, dlc.recomputed_ops = 1 : i64
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: %[[R2:.*]] = linalg.generic
// CHECK: attrs =  {dlc.recomputed}
// CHECK: arith.addf %[[R2]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_of_live_input(%x: tensor<2x6xf32>, %y: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %e = tensor.empty() : tensor<2x6xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x6xf32>) outs(%e : tensor<2x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x6xf32>
  %early = math.exp %r : tensor<2x6xf32>
  %a = math.sqrt %y : tensor<2x6xf32>
  %b = math.sqrt %a : tensor<2x6xf32>
  %c = math.sqrt %b : tensor<2x6xf32>
  %late = arith.addf %r, %c : tensor<2x6xf32>
  return %early, %late : tensor<2x6xf32>, tensor<2x6xf32>
}
