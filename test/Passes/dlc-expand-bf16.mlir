// RUN: %dlc-opt %s --dlc-expand-bf16 | FileCheck %s

// f32 -> bf16 rounds to nearest even in integer arithmetic: no truncf left
// for LLVM to turn into a __truncsfbf2 call.
// CHECK-LABEL: func.func @trunc
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.trunci {{.*}} : i32 to i16
// CHECK: %[[R:.*]] = arith.bitcast {{.*}} : i16 to bf16
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
func.func @trunc(%x: f32) -> bf16 {
  %r = arith.truncf %x : f32 to bf16
  return %r : bf16
}

// bf16 -> f32 is a 16-bit shift; vectors too.
// CHECK-LABEL: func.func @extend
// CHECK-SAME: (%[[V:.*]]: vector<8xbf16>)
// CHECK: %[[I:.*]] = arith.bitcast %[[V]] : vector<8xbf16> to vector<8xi16>
// CHECK: arith.extui %[[I]] : vector<8xi16> to vector<8xi32>
// CHECK: arith.shli
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast {{.*}} : vector<8xi32> to vector<8xf32>
func.func @extend(%v: vector<8xbf16>) -> vector<8xf32> {
  %r = arith.extf %v : vector<8xbf16> to vector<8xf32>
  return %r : vector<8xf32>
}
