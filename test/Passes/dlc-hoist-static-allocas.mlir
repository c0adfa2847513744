// RUN: %dlc-opt %s --dlc-hoist-static-allocas | FileCheck %s

// A parallel loop's scratch block (dlc-parallel-scratch-on-stack), its
// alloca_scope folded into the loop by the canonicalizer: the alloca moves
// to the function's entry, one buffer for every iteration, instead of a
// new stack block per trip after scf-to-cf.
// CHECK-LABEL: func.func @scratch_per_iteration
// CHECK-SAME: (%[[LO:.*]]: index, %[[HI:.*]]: index, %[[OUT:.*]]: memref<64x256xf32>)
// CHECK-NEXT: %[[BLOCK:.*]] = memref.alloca() {alignment = 64 : i64} : memref<256xf32>
// CHECK: scf.for %[[I:.*]] = %[[LO]] to %[[HI]]
// CHECK-NOT: memref.alloca
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[BLOCK]] : memref<256xf32>)
// CHECK: memref.copy %[[BLOCK]], %{{.*}}
func.func @scratch_per_iteration(%lo: index, %hi: index, %out: memref<64x256xf32>) {
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %lo to %hi step %c1 {
    %block = memref.alloca() {alignment = 64 : i64} : memref<256xf32>
    linalg.fill ins(%f : f32) outs(%block : memref<256xf32>)
    %row = memref.subview %out[%i, 0] [1, 256] [1, 1] : memref<64x256xf32> to memref<256xf32, strided<[1], offset: ?>>
    memref.copy %block, %row : memref<256xf32> to memref<256xf32, strided<[1], offset: ?>>
  }
  return
}

// Two buffers in nested scopes keep their order; a dynamic-size alloca
// stays where its size is known.
// CHECK-LABEL: func.func @nested_and_dynamic
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK-NEXT: %[[A:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloca() : memref<8xf32>
// CHECK: scf.for
// CHECK: memref.alloca_scope
// CHECK: scf.for
// CHECK: %[[D:.*]] = memref.alloca(%[[N]]) : memref<?xf32>
func.func @nested_and_dynamic(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloca() : memref<16xf32>
    linalg.fill ins(%f : f32) outs(%a : memref<16xf32>)
    memref.alloca_scope {
      %b = memref.alloca() : memref<8xf32>
      linalg.fill ins(%f : f32) outs(%b : memref<8xf32>)
      scf.for %j = %c0 to %c4 step %c1 {
        %d = memref.alloca(%n) : memref<?xf32>
        linalg.fill ins(%f : f32) outs(%d : memref<?xf32>)
      }
    }
  }
  return
}
