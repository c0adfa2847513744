// RUN: %dlc-opt %s --split-input-file --dlc-conv-to-im2col="pack-rows=12 pad-lanes=32 narrow-lanes=16" | FileCheck %s

// A 7x7 projection's transposed tile packs its columns into rows of 7
// pixels, [N, 7, K, 7]: the input's own rows, its H and C swapped. Its input
// comes from a forall that writes it a channel plane at a time (a narrow
// depthwise kernel: [1, 2, 7, 7] slices, 7-float rows stored at constant
// indices) and nothing else reads it, so that forall writes the packed
// layout itself: [1, 7, 2, 7] slices of a [1, 7, 256, 7] output, each row
// stored at (0, row, channel, 0), and the GEMM reads its result; no
// transpose, no plane-order forall, no buffer for the transpose left.
// CHECK-LABEL: func.func @planes_transposed
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x256x7x7xf32>
// CHECK: %[[EMPTY:[a-z0-9_]+]] = tensor.empty() : tensor<1x7x256x7xf32>
// CHECK: %[[PACKED:[a-z0-9_]+]] = scf.forall (%[[N:[a-z0-9_]+]], %[[P:[a-z0-9_]+]]) in (1, 128) shared_outs(%[[OUT:[a-z0-9_]+]] = %[[EMPTY]]) -> (tensor<1x7x256x7xf32>)
// CHECK: %[[CH:[a-z0-9_]+]] = arith.muli %[[P]]
// CHECK: %[[PLANE:[a-z0-9_]+]] = tensor.extract_slice %[[OUT]][%[[N]], 0, %[[CH]], 0] [1, 7, 2, 7] [1, 1, 1, 1] : tensor<1x7x256x7xf32> to tensor<1x7x2x7xf32>
// CHECK: %[[ROW0:[a-z0-9_]+]] = vector.transfer_read %[[X]]
// CHECK: %[[ROW1:[a-z0-9_]+]] = vector.transfer_read %[[X]]
// CHECK: %[[W0:[a-z0-9_]+]] = vector.transfer_write %[[ROW0]], %[[PLANE]][%[[C0:[a-z0-9_]+]], %[[C0]], %[[C0]], %[[C0]]] {in_bounds = [true]} : vector<7xf32>, tensor<1x7x2x7xf32>
// CHECK: %[[W1:[a-z0-9_]+]] = vector.transfer_write %[[ROW1]], %[[W0]][%[[C0]], %[[C3:[a-z0-9_]+]], %[[C1:[a-z0-9_]+]], %[[C0]]] {in_bounds = [true]} : vector<7xf32>, tensor<1x7x2x7xf32>
// CHECK: tensor.parallel_insert_slice %[[W1]] into %[[OUT]][%[[N]], 0, %[[CH]], 0] [1, 7, 2, 7] [1, 1, 1, 1] : tensor<1x7x2x7xf32> into tensor<1x7x256x7xf32>
// CHECK-NOT: tensor<1x7x256x7xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[PACKED]] : tensor<2x256x32xf32>, tensor<1x7x256x7xf32>)
// CHECK-NOT: dlc.packed_row_tiles
// CHECK-NOT: tensor<1x2x7x7xf32>
func.func @planes_transposed(%x: tensor<1x256x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x256x7x7xf32>
  %dw = scf.forall (%n, %p) in (1, 128) shared_outs(%out = %e) -> (tensor<1x256x7x7xf32>) {
    %ch = arith.muli %p, %c2 : index
    %next = arith.addi %ch, %c1 : index
    %plane = tensor.extract_slice %out[%n, %ch, 0, 0] [1, 2, 7, 7] [1, 1, 1, 1] : tensor<1x256x7x7xf32> to tensor<1x2x7x7xf32>
    %r0 = vector.transfer_read %x[%n, %ch, %c0, %c0], %pad {in_bounds = [true]} : tensor<1x256x7x7xf32>, vector<7xf32>
    %r1 = vector.transfer_read %x[%n, %next, %c3, %c0], %pad {in_bounds = [true]} : tensor<1x256x7x7xf32>, vector<7xf32>
    %w0 = vector.transfer_write %r0, %plane[%c0, %c0, %c0, %c0] {in_bounds = [true]} : vector<7xf32>, tensor<1x2x7x7xf32>
    %w1 = vector.transfer_write %r1, %w0[%c0, %c1, %c3, %c0] {in_bounds = [true]} : vector<7xf32>, tensor<1x2x7x7xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %w1 into %out[%n, %ch, 0, 0] [1, 2, 7, 7] [1, 1, 1, 1] : tensor<1x2x7x7xf32> into tensor<1x256x7x7xf32>
    }
  }
  %w = arith.constant dense<0.25> : tensor<64x256x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%dw, %w : tensor<1x256x7x7xf32>, tensor<64x256x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0 : tensor<1x64x7x7xf32>
}

// -----

// The same producer whose output is returned as well keeps its layout (a
// transposed copy would compute the planes twice): the GEMM's columns go
// through the packing transpose, a generic over [N, 7, K, 7].
// CHECK-LABEL: func.func @planes_read_twice
// CHECK: %[[DW:[a-z0-9_]+]] = scf.forall {{.*}} -> (tensor<1x256x7x7xf32>)
// CHECK: %[[PACKED:[0-9]+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x7x256x7xf32>)
// CHECK-NOT: dlc.packed_row_tiles
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[PACKED]] : tensor<2x256x32xf32>, tensor<1x7x256x7xf32>)
// CHECK: return %{{.*}}, %[[DW]]
func.func @planes_read_twice(%x: tensor<1x256x7x7xf32>, %init: tensor<1x64x7x7xf32>) -> (tensor<1x64x7x7xf32>, tensor<1x256x7x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x256x7x7xf32>
  %dw = scf.forall (%n, %ch) in (1, 256) shared_outs(%out = %e) -> (tensor<1x256x7x7xf32>) {
    %plane = tensor.extract_slice %out[%n, %ch, 0, 0] [1, 1, 7, 7] [1, 1, 1, 1] : tensor<1x256x7x7xf32> to tensor<1x1x7x7xf32>
    %r0 = vector.transfer_read %x[%n, %ch, %c0, %c0], %pad {in_bounds = [true]} : tensor<1x256x7x7xf32>, vector<7xf32>
    %w0 = vector.transfer_write %r0, %plane[%c0, %c0, %c0, %c0] {in_bounds = [true]} : vector<7xf32>, tensor<1x1x7x7xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %w0 into %out[%n, %ch, 0, 0] [1, 1, 7, 7] [1, 1, 1, 1] : tensor<1x1x7x7xf32> into tensor<1x256x7x7xf32>
    }
  }
  %w = arith.constant dense<0.25> : tensor<64x256x1x1xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%dw, %w : tensor<1x256x7x7xf32>, tensor<64x256x1x1xf32>) outs(%init : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %0, %dw : tensor<1x64x7x7xf32>, tensor<1x256x7x7xf32>
}
