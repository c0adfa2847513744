// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" | FileCheck %s

// A padded depthwise conv (16 channels of 32 x 32: enough work for the
// thread pool): the pad's interior is copied a vector at a time
// (a load and a store of 8 floats, where a copy tile folded to slices once
// became a scalar loop), and the conv is one sum of its nine taps in FMAs.
// (Loops 0-3 fill the pad's border, too little work for the pool.)
// CHECK-LABEL: llvm.func internal @dlc_parallel_body_4
// CHECK: %[[ROW:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK: llvm.store %[[ROW]], %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK-LABEL: llvm.func internal @dlc_parallel_body_5
// CHECK-COUNT-9: llvm.intr.fma({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
func.func @main(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %w = dlc.constant dense<0.5> : tensor<16x1x3x3xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 16 : i64} : (tensor<1x16x32x32xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x32x32xf32>
  return %c : tensor<1x16x32x32xf32>
}
