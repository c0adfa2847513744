// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8" | FileCheck %s
// RUN: %dlc-opt %s --dlc-cpu-pipeline="vector-width=8 vector-registers=32" | FileCheck %s --check-prefix=AVX512VL

// A padded depthwise conv (32 channels of 64 x 64: enough work for the
// thread pool, and an arena over one core's private cache, whose loops are
// not charged for the bytes they share): the pad's interior is copied a
// vector at a time (a load and a store of 8 floats, where a copy tile folded
// to slices once became a scalar loop), and the conv is one sum of its nine
// taps in FMAs. (Loop 0 copies the interior; loop 1, after it, fills the
// pad's border, its four fills one loop over the channels since
// dlc-fuse-parallel-loops: too little work for the pool.)
// CHECK-LABEL: llvm.func internal @dlc_parallel_body_0
// CHECK: %[[ROW:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK: llvm.store %[[ROW]], %{{.*}} : vector<8xf32>, !llvm.ptr
// CHECK-LABEL: llvm.func internal @dlc_parallel_body_2
// CHECK-COUNT-9: llvm.intr.fma({{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// With AVX-512 (32 registers) at 8 GEMM lanes, as on AMD Zen 4, the
// depthwise conv still takes 16-lane rows with its taps shifted in
// registers, and reads its padding around (no padded copy).
// AVX512VL-LABEL: llvm.func @main
// AVX512VL-SAME: 9 taps from rows of 64 read in aligned 16-lane pieces, shifts in registers
// AVX512VL-SAME: no padded copy
// AVX512VL: llvm.intr.fma({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX512VL-NOT: vector<8xf32>
func.func @main(%x: tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32> {
  %w = dlc.constant dense<0.5> : tensor<32x1x3x3xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 32 : i64} : (tensor<1x32x64x64xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x64x64xf32>
  return %c : tensor<1x32x64x64xf32>
}
