// RUN: %dlc-opt %s --dlc-split-empty-tensors | FileCheck %s

// One tensor.empty (as CSE leaves it) feeding two unrelated results: each
// use gets its own, placed right before the op that uses it, so that
// bufferization gives them separate buffers with separate lifetimes.
// CHECK-LABEL: func.func @shared_empty
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[X:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[X]]
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = linalg.copy ins(%[[B]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK-NEXT: return %[[S]], %[[Y]]
func.func @shared_empty(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %x = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = arith.addf %x, %x : tensor<4xf32>
  %y = linalg.copy ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %s, %y : tensor<4xf32>, tensor<4xf32>
}

// A use inside a loop: the copy goes before the loop, not into its body.
// CHECK-LABEL: func.func @use_in_loop
// CHECK: tensor.empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.empty
// CHECK: linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
func.func @use_in_loop(%a: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %x = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<4xf32> {
    %y = linalg.copy ins(%acc : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %x, %r : tensor<4xf32>, tensor<4xf32>
}

// A slice of the empty computed into and inserted back at the same place
// (a split depthwise conv's corner): the slice and the insert share one
// clone, so that bufferization writes the corner in place instead of
// computing it into a buffer of its own and copying it over. The later
// use gets a clone of its own.
// CHECK-LABEL: func.func @slice_inserted_back
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = tensor.extract_slice %[[E]][0, 0] [1, 8] [1, 1]
// CHECK-NEXT: %[[X:.*]] = linalg.copy ins(%{{.*}} : tensor<1x8xf32>) outs(%[[S]] : tensor<1x8xf32>)
// CHECK-NEXT: %[[I:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [1, 8] [1, 1]
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: linalg.copy ins(%{{.*}} : tensor<4x8xf32>) outs(%[[E2]] : tensor<4x8xf32>)
func.func @slice_inserted_back(%a: tensor<1x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = tensor.extract_slice %e[0, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
  %x = linalg.copy ins(%a : tensor<1x8xf32>) outs(%s : tensor<1x8xf32>) -> tensor<1x8xf32>
  %i = tensor.insert_slice %x into %e[0, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<4x8xf32>
  %y = linalg.copy ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %i, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// The insert before the slice (the slice then reads what was inserted):
// their shared clone goes before both.
// CHECK-LABEL: func.func @insert_before_slice
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %[[I:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [1, 8] [1, 1]
// CHECK-NEXT: tensor.extract_slice %[[E]][0, 0] [1, 8] [1, 1]
func.func @insert_before_slice(%a: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %i = tensor.insert_slice %a into %e[0, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<4x8xf32>
  %s = tensor.extract_slice %e[0, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
  return %i, %s : tensor<4x8xf32>, tensor<1x8xf32>
}
