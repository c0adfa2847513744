// RUN: %dlc-opt %s --dlc-plan-memory | FileCheck %s

// Three 4 KiB buffers in a chain: %a dies when %c is made, so %c reuses its
// bytes; %b is live across both and gets its own slot. Views keep a buffer
// alive (the collapse_shape of %a is read by the second copy).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IN:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<1024xf32>, %[[ARENA:.*]]: memref<8192xi8>)
// CHECK-SAME: dlc.arena_buffers = 3 : i64, dlc.arena_bytes = 8192 : i64, dlc.arena_lower_bound = 8192 : i64
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[C0]]][] : memref<8192xi8> to memref<32x32xf32>
// CHECK: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK: memref.view %[[ARENA]][%[[C4096]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[C0B]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK-NOT: memref.alloc
func.func @main(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<32x32xf32> into memref<1024xf32>
  memref.copy %in, %flat : memref<1024xf32> to memref<1024xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %flat, %b : memref<1024xf32> to memref<1024xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %b, %c : memref<1024xf32> to memref<1024xf32>
  memref.copy %c, %b : memref<1024xf32> to memref<1024xf32>
  memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
  return
}

