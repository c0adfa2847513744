// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s
// RUN: %dlc-opt %s --dlc-outline-parallel-loops=min-parallel-work=8192 | FileCheck %s --check-prefix=OLD

// A matrix-vector product's shape (the MLP's second layer, scaled down):
// 32 rows, each 72 k steps of a weight read, a multiply and an add, about
// 6.9K vector instructions with its stores. The default min-parallel-work
// (6144) sends it to the pool: streamed from L2, such a loop takes about a
// microsecond on one thread, twice what handing half of it to the other
// thread costs. At the old 8192 it stayed a sequential loop in the entry.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[ARENA:.*]]: memref<{{.*}}xi8>, %{{.*}}: !llvm.ptr)
// CHECK: %[[W:.*]] = memref.get_global @weights
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[W]], %{{.*}}) {dlc.parallel}
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func private @dlc_parallel_body_0
// OLD-LABEL: func.func @main
// OLD: scf.parallel
// OLD-NOT: call @dlc_parallel_body
memref.global "private" constant @weights : memref<32x576xf32> = dense<1.0>
func.func @main(%arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c576 = arith.constant 576 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %w = memref.get_global @weights : memref<32x576xf32>
  %out = memref.view %arena[%c0][] : memref<1024xi8> to memref<32x8xf32>
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
  return
}
