// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" | FileCheck %s

// A padded depthwise conv (32 channels of 64 x 64). The pad's interior is
// copied a vector at a time (a load and a store of 8 floats, where a copy
// tile folded to slices once became a scalar loop), in the entry: a copy
// does too little work for the bytes it moves to be worth splitting among
// threads (dlc-outline-parallel-loops' shared-byte-cost), as do the loops
// filling the pad's border. The conv is one sum of its nine taps in FMAs,
// on the thread pool.
// CHECK-LABEL: llvm.func @main
// CHECK: %[[ROW:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK: llvm.store %[[ROW]], %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK: llvm.call @dlc_parallel_for
// CHECK-LABEL: llvm.func internal @dlc_parallel_body_5
// CHECK-COUNT-9: llvm.intr.fma({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
func.func @main(%x: tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32> {
  %w = dlc.constant dense<0.5> : tensor<32x1x3x3xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 32 : i64} : (tensor<1x32x64x64xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x64x64xf32>
  return %c : tensor<1x32x64x64xf32>
}
