// RUN: %dlc-opt %s -split-input-file --dlc-conv-to-im2col="max-workspace-bytes=20000" | FileCheck %s
// RUN: %dlc-opt %s -split-input-file --dlc-conv-to-im2col="cache-workspace-bytes=20000" | FileCheck %s --check-prefix=CACHE

// dlc-conv-to-im2col under a workspace limit (--mem-budget). The im2col
// buffer [8, 36, 36] f32 (41 KB) is over 20000 bytes: the conv runs in
// batch chunks of 2 (10 KB each), outputs inserted.
// CHECK-LABEL: func.func @batch_chunks
// The cache bound (inference, no budget) chunks batches the same way ...
// CACHE-LABEL: func.func @batch_chunks
// CACHE: scf.for %{{.*}} = %c0 to %c8 step %c2
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x4x8x8xf32>, %[[W:[^:]*]]: tensor<8x4x3x3xf32>, %[[OUT:[^:]*]]: tensor<8x8x6x6xf32>)
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %c0 to %c8 step %c2 iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK: tensor.extract_slice %[[X]][%[[I]], 0, 0, 0] [2, 4, 8, 8]
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x3x3x6x6xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][%[[I]], 0, 0, 0] [2, 8, 6, 6]
// CHECK: return %[[R]]
func.func @batch_chunks(%x: tensor<8x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %out: tensor<8x8x6x6xf32>) -> tensor<8x8x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<8x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%out : tensor<8x8x6x6xf32>) -> tensor<8x8x6x6xf32>
  return %0 : tensor<8x8x6x6xf32>
}

// -----

// A batch of one (a weight gradient's shape): input-channel chunks, each
// partial conv accumulated into the output.
// CHECK-LABEL: func.func @channel_chunks
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x8x8xf32>, %[[W:[^:]*]]: tensor<8x16x3x3xf32>, %[[OUT:[^:]*]]: tensor<1x8x6x6xf32>)
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %c0 to %c16 step %c8 iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK: tensor.extract_slice %[[X]][0, %[[I]], 0, 0] [1, 8, 8, 8]
// CHECK: tensor.extract_slice %[[W]][0, %[[I]], 0, 0] [8, 8, 3, 3]
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x3x3x6x6xf32>)
// CHECK: return %[[R]]
// ... but never splits a batch of one into channel chunks.
// CACHE-LABEL: func.func @channel_chunks
// CACHE-NOT: scf.for
func.func @channel_chunks(%x: tensor<1x16x8x8xf32>, %w: tensor<8x16x3x3xf32>, %out: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<8x16x3x3xf32>) outs(%out : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}
