// RUN: %dlc-opt %s --dlc-outline-parallel-loops | FileCheck %s
// RUN: %dlc-opt %s --dlc-outline-parallel-loops=shared-byte-cost=0 | FileCheck %s --check-prefix=NOCOST
// RUN: %dlc-opt %s --dlc-outline-parallel-loops=private-cache-bytes=65536 | FileCheck %s --check-prefix=NOCOST

// Two loops of the same shape (32 rows of 128 vector reads, multiplies and
// adds, about 12K vector instructions, the first's 16K with its reads of a
// constant counted twice, over min-parallel-work's 8192), in an
// entry whose arena (132 KB) fits one core's private cache. The first reads
// a constant (a global: each core keeps its own copy) and writes 1 KB of the
// arena: it goes to the pool. The second reads 128 KB of the arena, which a
// thread would fetch from the core that wrote it: charged a vector
// instruction a byte, it stays a sequential loop.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[ARENA:.*]]: memref<135168xi8>, %{{.*}}: !llvm.ptr)
// CHECK: %[[W:.*]] = memref.get_global @weights
// CHECK: %[[OUT:.*]] = memref.view %[[ARENA]]
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %[[W]], %[[OUT]]) {dlc.parallel}
// CHECK: %[[ROWS:.*]] = memref.view %[[ARENA]]
// CHECK: scf.parallel
// CHECK: vector.transfer_read %[[ROWS]]
// CHECK-NOT: call @dlc_parallel_body_1
// CHECK-LABEL: func.func private @dlc_parallel_body_0
// CHECK-SAME: dlc.disjoint_buffers
// Without the charge, or with an arena larger than a private cache (its
// data goes through L3 whichever core runs the loop), both loops go to the
// pool.
// NOCOST-LABEL: func.func @main
// NOCOST: call @dlc_parallel_body_0
// NOCOST: call @dlc_parallel_body_1
// NOCOST-NOT: scf.parallel
memref.global "private" constant @weights : memref<32x1024xf32> = dense<1.0>
func.func @main(%arena: memref<135168xi8>) attributes {dlc.arena_bytes = 135168 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %f0 = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %w = memref.get_global @weights : memref<32x1024xf32>
  %out = memref.view %arena[%c0][] : memref<135168xi8> to memref<32x8xf32>
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %s = scf.for %k = %c0 to %c1024 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %v = vector.transfer_read %w[%i, %k], %f0 {in_bounds = [true]} : memref<32x1024xf32>, vector<8xf32>
      %sq = arith.mulf %v, %v : vector<8xf32>
      %a = arith.addf %acc, %sq : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %s, %out[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<32x8xf32>
    scf.reduce
  }
  %rows = memref.view %arena[%c4096][] : memref<135168xi8> to memref<32x1024xf32>
  %out2 = memref.view %arena[%c0][] : memref<135168xi8> to memref<32x8xf32>
  scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
    %s = scf.for %k = %c0 to %c1024 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
      %v = vector.transfer_read %rows[%i, %k], %f0 {in_bounds = [true]} : memref<32x1024xf32>, vector<8xf32>
      %sq = arith.mulf %v, %v : vector<8xf32>
      %a = arith.addf %acc, %sq : vector<8xf32>
      scf.yield %a : vector<8xf32>
    }
    vector.transfer_write %s, %out2[%i, %c0] {in_bounds = [true]} : vector<8xf32>, memref<32x8xf32>
    scf.reduce
  }
  return
}
