// RUN: %dlc-opt %s --dlc-plan-memory | FileCheck %s

// A GEMM and the elementwise tail marked for its kernel's store
// (dlc-fuse-gemm-epilogue) are one step of the plan: the kernel writes the
// tail's output %y while it still reads its operand %a, so %y may not take
// %a's bytes (without the mark it does: offset 0 for both, 2048 bytes).
// CHECK-LABEL: func.func @main
// CHECK-SAME: dlc.arena_buffers = 3 : i64, dlc.arena_bytes = 3072 : i64
// CHECK: %[[A_AT:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[A_AT]]][] : memref<3072xi8> to memref<16x16xf32>
// CHECK: %[[C_AT:.*]] = arith.constant 1024 : index
// CHECK: %[[C:.*]] = memref.view %{{.*}}[%[[C_AT]]][] : memref<3072xi8> to memref<16x16xf32>
// CHECK: linalg.matmul {dlc.gemm_overwrite} ins(%{{.*}}, %[[A]] : {{.*}}) outs(%[[C]] :
// CHECK: %[[Y_AT:.*]] = arith.constant 2048 : index
// CHECK: %[[Y:.*]] = memref.view %{{.*}}[%[[Y_AT]]][] : memref<3072xi8> to memref<16x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : {{.*}}) outs(%[[Y]] :
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%in: memref<16x16xf32>, %w: memref<16x16xf32>, %out: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
  memref.copy %in, %a : memref<16x16xf32> to memref<16x16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%w, %a : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  %y = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x16xf32>) outs(%y : memref<16x16xf32>) attrs = {dlc.gemm_epilogue = {act = 1 : i64, input = 0 : i64}} {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.maximumf %x, %zero : f32
    linalg.yield %0 : f32
  }
  memref.copy %y, %out : memref<16x16xf32> to memref<16x16xf32>
  return
}
