// RUN: %dlc-opt %s --dlc-outline-parallel-loops="min-parallel-work=0 shared-byte-cost=0" | FileCheck %s

// A value the loop reads that is computed from constants alone (a gather's
// lane offsets, scaled and broadcast to the gather's rank, hoisted out of
// the loop) is recomputed in the body instead of being passed in: the
// body's patterns (dlc-lower-vectors reading the gather as contiguous
// loads) see the constants. Buffers still go in as arguments.
// CHECK-LABEL: func.func @main
// CHECK: call @dlc_parallel_body_0(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {dlc.parallel} : (index, index, memref<8x64xf32>, memref<8x8xf32>) -> ()
// CHECK-LABEL: func.func private @dlc_parallel_body_0
// CHECK-SAME: (%{{.*}}: index, %{{.*}}: index, %[[A:.*]]: memref<8x64xf32>, %[[B:.*]]: memref<8x8xf32>)
// CHECK-DAG: %[[LANES:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
// CHECK-DAG: %[[FOUR:.*]] = arith.constant dense<4> : vector<8xindex>
// CHECK: %[[OFFSETS:.*]] = arith.muli %[[LANES]], %[[FOUR]] : vector<8xindex>
// CHECK: %[[ROWS:.*]] = vector.broadcast %[[OFFSETS]] : vector<8xindex> to vector<1x8xindex>
// CHECK: scf.for
// CHECK: arith.addi %{{.*}}, %[[ROWS]] : vector<1x8xindex>
// CHECK: vector.gather %[[A]]
func.func @main(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c2048 = arith.constant 2048 : index
  %a = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x64xf32>
  %b = memref.view %arena[%c2048][] : memref<4096xi8> to memref<8x8xf32>
  %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
  %four = arith.constant dense<4> : vector<8xindex>
  %offsets = arith.muli %lanes, %four : vector<8xindex>
  %rows = vector.broadcast %offsets : vector<8xindex> to vector<1x8xindex>
  %mask = arith.constant dense<true> : vector<1x8xi1>
  %pass = arith.constant dense<0.0> : vector<1x8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %start = arith.muli %i, %c8 : index
    %s = vector.broadcast %start : index to vector<1x8xindex>
    %at = arith.addi %s, %rows : vector<1x8xindex>
    %g = vector.gather %a[%c0, %c0] [%at], %mask, %pass : memref<8x64xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
    vector.transfer_write %g, %b[%i, %c0] {in_bounds = [true, true]} : vector<1x8xf32>, memref<8x8xf32>
    scf.reduce
  }
  return
}
