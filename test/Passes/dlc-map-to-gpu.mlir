// RUN: %dlc-opt %s --split-input-file --dlc-map-to-gpu="threads-per-block=4" | FileCheck %s

// An elementwise op over a 2x3 view of the arena: one thread per element,
// linearized (6 iterations: 2 blocks of 4 threads, the extra two guarded
// off), each recovering
// its (row, column); the view is recomputed inside the launch, so the
// kernel captures only the arena argument.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:[^:]*]]: memref<2x3xf32>, %[[ARENA:[^:]*]]: memref<64xi8>)
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], {{.*}} threads(%[[TX:[^,]*]],
// CHECK: %[[VIEW:.*]] = memref.view %[[ARENA]]
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %[[FOUR]]
// CHECK: %[[ID:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK: %[[SIX:.*]] = arith.constant 6 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[SIX]]
// CHECK: scf.if %[[IN]]
// CHECK: %[[COL:.*]] = arith.remui %[[ID]]
// CHECK: %[[ROW:.*]] = arith.divui %[[ID]]
// CHECK: memref.load %[[X]]
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[VIEW]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<2x3xf32>, %arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %y = memref.view %arena[%c0][] : memref<64xi8> to memref<2x3xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<2x3xf32>) outs(%y : memref<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A reduction keeps its loop inside each thread; an op that is not a loop
// nest (a copy) runs in a launch of one thread.
// CHECK-LABEL: func.func @reduction_and_copy
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: memref.copy
// CHECK: } {dlc.single_thread}
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @reduction_and_copy(%x: memref<4x8xf32>, %y: memref<4xf32>, %z: memref<4xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  memref.copy %y, %z : memref<4xf32> to memref<4xf32>
  return
}
