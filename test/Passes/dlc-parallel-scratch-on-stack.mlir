// RUN: %dlc-opt %s --split-input-file --dlc-parallel-scratch-on-stack | FileCheck %s

// A buffer of one parallel iteration (a GEMM cache tile's own column block)
// goes on the running thread's stack, in an alloca_scope wrapping the whole
// iteration, so that each iteration gives its stack back.
// CHECK-LABEL: func.func @tile_block
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: memref.alloca_scope {
// CHECK-NEXT: %[[BLOCK:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK-NOT: memref.alloc()
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[BLOCK]] : memref<4x16xf32>)
// CHECK: linalg.copy ins(%[[BLOCK]] : memref<4x16xf32>)
// CHECK: }
// CHECK-NEXT: scf.reduce
func.func @tile_block(%out: memref<8x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %b = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
    linalg.fill ins(%f : f32) outs(%b : memref<4x16xf32>)
    %o = memref.subview %out[%i, 0, 0] [1, 4, 16] [1, 1, 1] : memref<8x4x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    linalg.copy ins(%b : memref<4x16xf32>) outs(%o : memref<4x16xf32, strided<[16, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// Two buffers in a nested loop of the iteration share one scope, at the top
// of the outermost parallel loop's body.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope {
// CHECK-DAG: memref.alloca() : memref<16xf32>
// CHECK-DAG: memref.alloca() : memref<32xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloc()
func.func @nested(%out: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.alloc() : memref<16xf32>
      %b = memref.alloc() : memref<32xf32>
      linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
      linalg.fill ins(%f : f32) outs(%b : memref<32xf32>)
      %o = memref.subview %out[%i, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      linalg.copy ins(%a : memref<16xf32>) outs(%o : memref<16xf32, strided<[1], offset: ?>>)
    }
    scf.reduce
  }
  return
}

// -----

// Left alone: a buffer over max-bytes (512 KB here; dlc-verify-no-heap-alloc
// reports it) and one outside any parallel loop (dlc-plan-memory's).
// CHECK-LABEL: func.func @stays
// CHECK-NOT: memref.alloca
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloc() : memref<131072xf32>
// CHECK-NOT: memref.alloca
func.func @stays(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %top = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %big = memref.alloc() : memref<131072xf32>
    linalg.fill ins(%f : f32) outs(%big : memref<131072xf32>)
    scf.reduce
  }
  linalg.copy ins(%top : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}
