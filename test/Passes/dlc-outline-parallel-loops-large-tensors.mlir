// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s

// A Sigmoid-like loop over entry tensors of 512 KB each (over
// private-cache-bytes, 256 KB) in a 64-byte arena: the bytes go through L3
// whichever core touches them, so they are not charged, and its 64K vector
// instructions go to the pool. (Charged a byte each, the 1 MB would have kept
// it on one thread: a standalone Sigmoid over 3.2 MB ran serially.)
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: memref<128x1024xf32>, %[[Y:.*]]: memref<128x1024xf32>
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[X]], %[[Y]]) {dlc.parallel}
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func private @dlc_parallel_body_0
func.func @main(%x: memref<128x1024xf32>, %y: memref<128x1024xf32>, %arena: memref<64xi8>)
    attributes {dlc.arena_bytes = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %f0 = arith.constant 0.0 : f32
  %one = arith.constant dense<1.0> : vector<8xf32>
  scf.parallel (%i) = (%c0) to (%c128) step (%c1) {
    scf.for %k = %c0 to %c1024 step %c8 {
      %v = vector.transfer_read %x[%i, %k], %f0 {in_bounds = [true]} : memref<128x1024xf32>, vector<8xf32>
      %n = arith.negf %v : vector<8xf32>
      %e = math.exp %n : vector<8xf32>
      %d = arith.addf %e, %one : vector<8xf32>
      %s = arith.divf %one, %d : vector<8xf32>
      vector.transfer_write %s, %y[%i, %k] {in_bounds = [true]} : vector<8xf32>, memref<128x1024xf32>
    }
    scf.reduce
  }
  return
}
