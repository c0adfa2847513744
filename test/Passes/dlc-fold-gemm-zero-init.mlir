// RUN: %dlc-opt %s --dlc-fold-gemm-zero-init --split-input-file | FileCheck %s

// A zero fill of exactly the GEMM's output, right before it: removed, and
// the GEMM stores its result.
// CHECK-LABEL: func.func @fill_into_output
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul {dlc.gemm_overwrite}
func.func @fill_into_output(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A copy into the output from a buffer a zero fill last wrote (one zero
// tensor shared by several convs): the copy goes, the fill stays for others.
// CHECK-LABEL: func.func @copy_of_zeros
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[Z:.*]] : memref<4x8xf32>)
// CHECK-NEXT: linalg.matmul {dlc.gemm_overwrite} ins(%{{.*}}, %{{.*}} : memref<4x16xf32>, memref<16x8xf32>) outs(%[[C:.*]] : memref<4x8xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @copy_of_zeros(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %z = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %c = memref.view %arena[%c128][] : memref<1024xi8> to memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  linalg.copy ins(%z : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Kept: a fill of ones (the GEMM adds into it), a copy from a buffer written
// after its zero fill, and a fill of only part of the output.
// CHECK-LABEL: func.func @not_zeros
// CHECK: linalg.fill
// CHECK-NEXT: linalg.matmul ins
// CHECK: linalg.copy
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: linalg.matmul ins
// CHECK: linalg.fill
// CHECK-NEXT: linalg.matmul ins
// CHECK-NOT: dlc.gemm_overwrite
func.func @not_zeros(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %z = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %c = memref.view %arena[%c128][] : memref<1024xi8> to memref<4x8xf32>
  %d = memref.view %arena[%c256][] : memref<1024xi8> to memref<4x8xf32>
  linalg.fill ins(%one : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  linalg.copy ins(%c : memref<4x8xf32>) outs(%z : memref<4x8xf32>)
  linalg.copy ins(%z : memref<4x8xf32>) outs(%d : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
  %row = memref.subview %c[0, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<1x8xf32, strided<[8, 1]>>
  linalg.fill ins(%zero : f32) outs(%row : memref<1x8xf32, strided<[8, 1]>>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// memref.copy from zeros folds like linalg.copy.
// CHECK-LABEL: func.func @memref_copy_of_zeros
// CHECK-NOT: memref.copy
// CHECK: linalg.matmul {dlc.gemm_overwrite}
func.func @memref_copy_of_zeros(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %z = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %c = memref.view %arena[%c128][] : memref<1024xi8> to memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  memref.copy %z, %c : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// Kept: an operand reads the output's memory (here B overlaps C), which
// must see zeros.
// CHECK-LABEL: func.func @operand_reads_output
// CHECK: linalg.fill
// CHECK-NEXT: linalg.matmul ins
// CHECK-NOT: dlc.gemm_overwrite
func.func @operand_reads_output(%a: memref<4x8xf32>, %arena: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %c = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x8xf32>
  %b = memref.view %arena[%c0][] : memref<1024xi8> to memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// One zero buffer (an alloc, before the memory plan) copied into a GEMM's
// output and then accumulated into in place by a second GEMM: the copy
// goes, then nothing reads the fill before the second GEMM overwrites it,
// so the fill goes too.
// CHECK-LABEL: func.func @zeros_reused_in_place
// CHECK: %[[Z:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.copy
// CHECK: linalg.matmul {dlc.gemm_overwrite} {{.*}} outs(%[[C:.*]] : memref<4x8xf32>)
// CHECK-NEXT: linalg.matmul {dlc.gemm_overwrite} {{.*}} outs(%[[Z]] : memref<4x8xf32>)
func.func @zeros_reused_in_place(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  linalg.copy ins(%z : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%z : memref<4x8xf32>)
  return
}

// -----

// A zero buffer whose only copy was folded: its fill and alloc go.
// CHECK-LABEL: func.func @zero_buffer_unused
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: linalg.matmul {dlc.gemm_overwrite}
// CHECK-NEXT: return
func.func @zero_buffer_unused(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<4x8xf32>)
  linalg.copy ins(%z : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.dealloc %z : memref<4x8xf32>
  return
}
