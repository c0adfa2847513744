// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s

// Two loops of one shape (32 rows of 72 steps: a vector read, a multiply
// and an add, about 6.9K vector instructions with the stores), in an entry
// without an arena charge. The first reads a constant (a weight, as the
// MLP's second layer, a 256 x 128 matrix-vector product, does): its reads
// count twice, about 9.2K, over min-parallel-work (8192), and it goes to
// the pool (the MLP from C at two threads, Zen 4: 5.33 -> 5.11 us). The
// second reads the arena: about 6.9K, under it, it stays a sequential loop
// (as MobileNetV2's copy of its last 7x7 map into row tiles does, 2.3 us on
// one thread and 5.7 on two when dispatched).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[ARENA:.*]]: memref<{{.*}}xi8>, %{{.*}}: !llvm.ptr)
// CHECK: %[[W:.*]] = memref.get_global @weights
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[W]], %{{.*}}) {dlc.parallel}
// CHECK: %[[ROWS:.*]] = memref.view %[[ARENA]]
// CHECK: scf.parallel
// CHECK: vector.transfer_read %[[ROWS]]
// CHECK-NOT: call @dlc_parallel_body_1
// CHECK-LABEL: func.func private @dlc_parallel_body_0
memref.global "private" constant @weights : memref<32x576xf32> = dense<1.0>
func.func @main(%arena: memref<75776xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c576 = arith.constant 576 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %w = memref.get_global @weights : memref<32x576xf32>
  %out = memref.view %arena[%c0][] : memref<75776xi8> to memref<32x8xf32>
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %s = scf.for %k = %c0 to %c576 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %v = vector.transfer_read %w[%i, %k], %f0 {in_bounds = [true]} : memref<32x576xf32>, vector<8xf32>
      %sq = arith.mulf %v, %v : vector<8xf32>
      %a = arith.addf %acc, %sq : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %s, %out[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<32x8xf32>
    scf.reduce
  }
  %rows = memref.view %arena[%c2048][] : memref<75776xi8> to memref<32x576xf32>
  %out2 = memref.view %arena[%c1024][] : memref<75776xi8> to memref<32x8xf32>
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %s = scf.for %k = %c0 to %c576 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %v = vector.transfer_read %rows[%i, %k], %f0 {in_bounds = [true]} : memref<32x576xf32>, vector<8xf32>
      %sq = arith.mulf %v, %v : vector<8xf32>
      %a = arith.addf %acc, %sq : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %s, %out2[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<32x8xf32>
    scf.reduce
  }
  return
}
