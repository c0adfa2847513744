// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s
// RUN: %dlc-opt %s --dlc-outline-parallel-loops=min-parallel-work=12000 | FileCheck %s --check-prefix=MORE

// A math.exp counts 20 vector instructions (the polynomial
// dlc-approximate-math makes of it): 64 rows of 8 steps of a read, an exp
// and an add come to about 11.3K, over min-parallel-work (8192), and the
// loop goes to the pool; counted as one op each they were 1.5K and it
// stayed on one thread. The arena (1 MB) is over private-cache-bytes, so no
// bytes are charged. With min-parallel-work at 12000 it stays a loop.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: memref<64x64xf32>, %[[Y:.*]]: memref<64x8xf32>
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[X]], %[[Y]]) {dlc.parallel}
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func private @dlc_parallel_body_0
// CHECK: math.exp
// MORE-LABEL: func.func @main
// MORE: scf.parallel
// MORE: math.exp
// MORE-NOT: call @dlc_parallel_body_0
func.func @main(%x: memref<64x64xf32>, %y: memref<64x8xf32>, %arena: memref<1048576xi8>)
    attributes {dlc.arena_bytes = 1048576 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %s = scf.for %k = %c0 to %c64 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %v = vector.transfer_read %x[%i, %k], %f0 {in_bounds = [true]} : memref<64x64xf32>, vector<8xf32>
      %e = math.exp %v : vector<8xf32>
      %a = arith.addf %acc, %e : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %s, %y[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<64x8xf32>
    scf.reduce
  }
  return
}
