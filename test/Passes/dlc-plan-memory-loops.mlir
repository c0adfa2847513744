// RUN: %dlc-opt %s --dlc-plan-memory="entry=loop_buffer" | FileCheck %s

// A static buffer inside a sequential loop (a chunked conv's im2col) is
// hoisted to the top level and planned once; every iteration reuses it.
// CHECK-LABEL: func.func @loop_buffer
// CHECK: %[[V:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<{{[0-9]+}}xi8> to memref<256xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<256xf32>)
func.func @loop_buffer(%out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %b = memref.alloc() : memref<256xf32>
    linalg.fill ins(%f : f32) outs(%b : memref<256xf32>)
    linalg.copy ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  }
  return
}
