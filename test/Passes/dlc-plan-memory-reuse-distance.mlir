// RUN: %dlc-opt %s --dlc-plan-memory | FileCheck %s --check-prefix=TIGHT
// RUN: %dlc-opt %s --dlc-plan-memory="reuse-distance=2" | FileCheck %s
// RUN: %dlc-opt %s --dlc-plan-memory="entry=full reuse-distance=2" | FileCheck %s --check-prefix=FULL

// A 16 KiB buffer first sets the arena; then %x, read last by the step
// before %y is made. Without a reuse distance %y takes %x's bytes; with one
// of 2 steps it keeps off them, at 4096, inside the same arena.
// TIGHT-LABEL: func.func @main
// TIGHT-SAME: dlc.arena_bytes = 16384 : i64
// TIGHT: %[[B0:.*]] = arith.constant 0 : index
// TIGHT: memref.view %{{.*}}[%[[B0]]][] : memref<16384xi8> to memref<4096xf32>
// TIGHT: %[[X0:.*]] = arith.constant 0 : index
// TIGHT: %[[X:.*]] = memref.view %{{.*}}[%[[X0]]][] : memref<16384xi8> to memref<1024xf32>
// TIGHT: %[[Y0:.*]] = arith.constant 0 : index
// TIGHT: %[[Y:.*]] = memref.view %{{.*}}[%[[Y0]]][] : memref<16384xi8> to memref<1024xf32>
// TIGHT: memref.copy %[[Y]]
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[IN:.*]]: memref<1024xf32>, %[[BIGIN:.*]]: memref<4096xf32>, %[[OUT:.*]]: memref<1024xf32>, %[[ARENA:.*]]: memref<16384xi8>)
// CHECK-SAME: dlc.arena_bytes = 16384 : i64
// CHECK: %[[B0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[B0]]][] : memref<16384xi8> to memref<4096xf32>
// CHECK: %[[X0:.*]] = arith.constant 0 : index
// CHECK: %[[X:.*]] = memref.view %[[ARENA]][%[[X0]]][] : memref<16384xi8> to memref<1024xf32>
// CHECK: memref.copy %[[IN]], %[[X]]
// CHECK: %[[Y4096:.*]] = arith.constant 4096 : index
// CHECK: %[[Y:.*]] = memref.view %[[ARENA]][%[[Y4096]]][] : memref<16384xi8> to memref<1024xf32>
// CHECK: memref.copy %[[IN]], %[[Y]]
// CHECK: memref.copy %[[Y]], %[[OUT]]
func.func @main(%in: memref<1024xf32>, %bigin: memref<4096xf32>, %out: memref<1024xf32>) {
  %big = memref.alloc() {alignment = 64 : i64} : memref<4096xf32>
  memref.copy %bigin, %big : memref<4096xf32> to memref<4096xf32>
  memref.copy %big, %bigin : memref<4096xf32> to memref<4096xf32>
  %x = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %in, %x : memref<1024xf32> to memref<1024xf32>
  memref.copy %x, %out : memref<1024xf32> to memref<1024xf32>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %in, %y : memref<1024xf32> to memref<1024xf32>
  memref.copy %y, %out : memref<1024xf32> to memref<1024xf32>
  return
}

// Without the 16 KiB buffer the arena has no other room: %y still takes
// %x's bytes, and the arena stays at 4 KiB.
// FULL-LABEL: func.func @full
// FULL-SAME: dlc.arena_bytes = 4096 : i64
// FULL: %[[X0:.*]] = arith.constant 0 : index
// FULL: memref.view %{{.*}}[%[[X0]]][] : memref<4096xi8> to memref<1024xf32>
// FULL: %[[Y0:.*]] = arith.constant 0 : index
// FULL: memref.view %{{.*}}[%[[Y0]]][] : memref<4096xi8> to memref<1024xf32>
func.func @full(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %x = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %in, %x : memref<1024xf32> to memref<1024xf32>
  memref.copy %x, %out : memref<1024xf32> to memref<1024xf32>
  %y = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.copy %in, %y : memref<1024xf32> to memref<1024xf32>
  memref.copy %y, %out : memref<1024xf32> to memref<1024xf32>
  return
}
