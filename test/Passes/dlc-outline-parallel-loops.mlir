// RUN: %dlc-opt %s --dlc-outline-parallel-loops="min-parallel-work=0 shared-byte-cost=0" | FileCheck %s
// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s --check-prefix=DEFAULT

// The entry gains the pool argument and the bare-pointer ABI; the parallel
// loop becomes a body over linearized iterations [lo, hi), called over the
// whole trip count (4 x 2 = 8). The two buffers are disjoint views of the
// arena, so the body is marked for noalias pointers.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[ARENA:.*]]: memref<4096xi8>, %[[POOL:.*]]: !llvm.ptr) attributes {llvm.bareptr}
// CHECK: %[[A:.*]] = memref.view %[[ARENA]]
// CHECK: %[[B:.*]] = memref.view %[[ARENA]]
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: call @dlc_parallel_body_0(%[[C0]], %[[C8]], %[[A]], %[[B]]) {dlc.parallel}
// CHECK-NOT: scf.parallel
// CHECK-LABEL: func.func private @dlc_parallel_body_0
// CHECK-SAME: (%[[LO:.*]]: index, %[[HI:.*]]: index, %{{.*}}: memref<8x32xf32>, %{{.*}}: memref<8x32xf32>)
// CHECK-SAME: dlc.disjoint_buffers
// CHECK: scf.for %[[I:.*]] = %[[LO]] to %[[HI]]
// CHECK: arith.remui %[[I]]
// CHECK: arith.divui %[[I]]
// CHECK: memref.load
// CHECK: memref.store
// With the default min-parallel-work, eight iterations of a load and a
// store are too little work for the pool: the loop stays in the entry.
// DEFAULT-LABEL: func.func @main
// DEFAULT-NOT: call @dlc_parallel_body
// DEFAULT: scf.parallel
// DEFAULT-NOT: func.func private @dlc_parallel_body
func.func @main(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %a = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x32xf32>
  %b = memref.view %arena[%c1024][] : memref<4096xi8> to memref<8x32xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c2) step (%c2, %c1) {
    %v = memref.load %a[%i, %j] : memref<8x32xf32>
    memref.store %v, %b[%i, %j] : memref<8x32xf32>
    scf.reduce
  }
  return
}
