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

// -----

// With library-gemm, a float32 contraction stays in the entry for the
// tensor-core GEMM kernel, marked; the rest is mapped as before. Loops are
// put in the output's dim order, reductions last: each thread runs only
// the reduction, and the fastest thread index walks the output's last dim
// (here d0, which the loop order had outermost).
// RUN: %dlc-opt %s --split-input-file --dlc-map-to-gpu="library-gemm=true" | FileCheck %s --check-prefix=GEMM
// GEMM-LABEL: func.func @matmul
// GEMM: linalg.matmul {dlc.library_gemm}
// GEMM-NOT: gpu.launch
// GEMM-LABEL: func.func @reduction_outside
// GEMM: gpu.launch
// GEMM: scf.if
// GEMM: %[[C3:.*]] = arith.constant 3 : index
// GEMM-NEXT: arith.remui %{{.*}}, %[[C3]]
// GEMM-NOT: scf.parallel
// GEMM: scf.for
// GEMM-NOT: scf.for
// GEMM: gpu.terminator
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
#r0 = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#r1 = affine_map<(d0, d1, d2) -> (d2, d0)>
func.func @reduction_outside(%x: memref<4x5x3xf32>, %y: memref<5x3xf32>) {
  linalg.generic {indexing_maps = [#r0, #r1], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : memref<4x5x3xf32>) outs(%y : memref<5x3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
