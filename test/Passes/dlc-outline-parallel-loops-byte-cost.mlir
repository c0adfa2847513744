// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s
// RUN: %dlc-opt %s --dlc-outline-parallel-loops=shared-byte-cost=0.33 | FileCheck %s --check-prefix=THIRD

// The default charge, one vector instruction per shared byte (measured on
// Zen 4: LeNet's second conv GEMM, 75 KB shared, ran slower on two threads
// than on one). This loop does about 12K vector instructions (32 rows of 96
// reads of a constant, each counted twice, multiplies and adds) and its
// captured 8 KB view of the arena is charged: 12K - 8K is under
// min-parallel-work (8192), so it
// stays a sequential loop; at a third of an instruction a byte (the charge
// measured on Zen 3) it went to the pool.
// CHECK-LABEL: func.func @main
// CHECK: scf.parallel
// CHECK-NOT: call @dlc_parallel_body_0
// THIRD-LABEL: func.func @main
// THIRD: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {dlc.parallel}
// THIRD-NOT: scf.parallel
memref.global "private" constant @weights : memref<32x768xf32> = dense<1.0>
func.func @main(%arena: memref<8192xi8>) attributes {dlc.arena_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c768 = arith.constant 768 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %w = memref.get_global @weights : memref<32x768xf32>
  %out = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x64xf32>
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %s = scf.for %k = %c0 to %c768 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %v = vector.transfer_read %w[%i, %k], %f0 {in_bounds = [true]} : memref<32x768xf32>, vector<8xf32>
      %sq = arith.mulf %v, %v : vector<8xf32>
      %a = arith.addf %acc, %sq : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %s, %out[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<32x64xf32>
    scf.reduce
  }
  return
}
