// RUN: %dlc-opt %s --dlc-constant-min-max-to-select | FileCheck %s

// Clip(0, 6) on a 7-lane row (a 7x7 map): each bound a compare of the
// constant against the value and a select, constant first, so a NaN value
// fails the compare and passes through.
// CHECK-LABEL: func.func @clip_row
// CHECK-SAME: (%[[X:.*]]: vector<7xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<7xf32>
// CHECK-DAG: %[[SIX:.*]] = arith.constant dense<6.000000e+00> : vector<7xf32>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[ZERO]], %[[X]] : vector<7xf32>
// CHECK: %[[LO:.*]] = arith.select %[[GT]], %[[ZERO]], %[[X]] : vector<7xi1>, vector<7xf32>
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[SIX]], %[[LO]] : vector<7xf32>
// CHECK: %[[HI:.*]] = arith.select %[[LT]], %[[SIX]], %[[LO]] : vector<7xi1>, vector<7xf32>
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: return %[[HI]]
func.func @clip_row(%x: vector<7xf32>) -> vector<7xf32> {
  %zero = arith.constant dense<0.0> : vector<7xf32>
  %six = arith.constant dense<6.0> : vector<7xf32>
  %lo = arith.maximumf %x, %zero fastmath<nsz> : vector<7xf32>
  %hi = arith.minimumf %lo, %six fastmath<nsz> : vector<7xf32>
  return %hi : vector<7xf32>
}

// A scalar bound written first; a nonzero bound needs no nsz (the select
// returns the value's own zero, as maximumf does).
// CHECK-LABEL: func.func @scalar_bound_first
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[C:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[C]], %[[X]] : f32
// CHECK: %[[R:.*]] = arith.select %[[GT]], %[[C]], %[[X]] : f32
// CHECK: return %[[R]]
func.func @scalar_bound_first(%x: f32) -> f32 {
  %c = arith.constant -1.0 : f32
  %r = arith.maximumf %c, %x : f32
  return %r : f32
}

// Kept: a zero bound without nsz (maximumf(-0, +0) is +0, the select's -0),
// a NaN bound, and two values (MaxPool's running maximum).
// CHECK-LABEL: func.func @kept
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK-NOT: arith.select
func.func @kept(%x: vector<8xf32>, %y: vector<8xf32>) -> vector<8xf32> {
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %nan = arith.constant dense<0x7FC00000> : vector<8xf32>
  %a = arith.maximumf %x, %zero : vector<8xf32>
  %b = arith.minimumf %a, %nan fastmath<nsz> : vector<8xf32>
  %c = arith.maximumf %b, %y fastmath<nsz> : vector<8xf32>
  return %c : vector<8xf32>
}
