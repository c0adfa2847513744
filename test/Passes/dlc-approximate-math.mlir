// RUN: %dlc-opt %s --dlc-approximate-math | FileCheck %s

// A Sigmoid's exp on a 16-lane vector: the argument clamped to f32's range,
// split into n*ln2 + r, a polynomial in r scaled by 2^n built from the
// exponent bits; no exp is left for LLVM to turn into sixteen expf calls.
// CHECK-LABEL: func.func @exp_vector
// CHECK-SAME: (%[[X:.*]]: vector<16xf32>)
// CHECK: %[[LO:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %[[LO]], %{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK: %[[T:.*]] = math.fma %[[R]], %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: %[[N:.*]] = math.floor %[[T]] : vector<16xf32>
// CHECK: %[[P:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: %[[NI:.*]] = arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: %[[SCALE:.*]] = arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[E:.*]] = arith.mulf %[[P]], %[[SCALE]] : vector<16xf32>
// CHECK-NOT: math.exp
// CHECK: return %[[E]]
func.func @exp_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp %x : vector<16xf32>
  return %e : vector<16xf32>
}

// Tanh and erf (Tanh, GELU) the same way; log1p's rewrite makes a log,
// which is approximated too.
// CHECK-LABEL: func.func @tanh_erf_log1p
// CHECK-SAME: (%[[X:.*]]: vector<8xf32>, %[[Y:.*]]: f32)
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.log
// CHECK: return
func.func @tanh_erf_log1p(%x: vector<8xf32>, %y: f32) -> (vector<8xf32>, vector<8xf32>, f32) {
  %t = math.tanh %x : vector<8xf32>
  %e = math.erf %x : vector<8xf32>
  %l = math.log1p %y : f32
  return %t, %e, %l : vector<8xf32>, vector<8xf32>, f32
}

// Left to libm: trigonometric ops and f64.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%[[X:.*]]: vector<8xf32>, %[[Y:.*]]: f64)
// CHECK: %[[S:.*]] = math.sin %[[X]] : vector<8xf32>
// CHECK: %[[E:.*]] = math.exp %[[Y]] : f64
// CHECK: return %[[S]], %[[E]]
func.func @kept(%x: vector<8xf32>, %y: f64) -> (vector<8xf32>, f64) {
  %s = math.sin %x : vector<8xf32>
  %e = math.exp %y : f64
  return %s, %e : vector<8xf32>, f64
}
