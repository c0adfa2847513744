// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s

// A Softmax row max over a 256 KB input in a 2.5 KB arena (its partial
// maxima): the arena alone fits private-cache-bytes (256 KB), but with the
// entry's tensors (256 KB in, 256 KB out) the run touches 514 KB, which
// goes through L3 whichever core reads it, so no bytes are charged and the
// loop's 24K vector instructions go to the pool. (Charged for the 256 KB it
// reads, it stayed on one thread: Softmax and LogSoftmax over 64 x 1000 ran
// their reductions serially at two threads.)
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: memref<64x1000xf32>, %{{.*}}: memref<64x1000xf32>, %[[ARENA:.*]]: memref<2560xi8>
// CHECK: %[[MAX:.*]] = memref.view %[[ARENA]]
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[X]], %[[MAX]]) {dlc.parallel}
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func private @dlc_parallel_body_0
// CHECK: arith.maximumf
func.func @main(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>, %arena: memref<2560xi8>)
    attributes {dlc.arena_bytes = 2560 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %f0 = arith.constant 0.0 : f32
  %low = arith.constant dense<0xFF800000> : vector<8xf32>
  %max = memref.view %arena[%c0][] : memref<2560xi8> to memref<64x8xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %m = scf.for %k = %c0 to %c1000 step %c8 iter_args(%acc = %low) -> (vector<8xf32>) {
      %v = vector.transfer_read %x[%i, %k], %f0 {in_bounds = [true]} : memref<64x1000xf32>, vector<8xf32>
      %a = arith.maximumf %acc, %v : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %m, %max[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<64x8xf32>
    scf.reduce
  }
  return
}
