// RUN: %dlc-opt %s --allow-unregistered-dialect --dlc-plan-weights | FileCheck %s

// Two constants read by the entry (one of them twice) become views of one
// new weights argument at 64-byte aligned offsets; the globals keep their
// data and record their offsets.
// CHECK: memref.global "private" constant @a {{.*}}dlc.weights_offset = 0 : i64
// CHECK: memref.global "private" constant @b {{.*}}dlc.weights_offset = 64 : i64
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: memref<3xf32>, %[[W:[^:]*]]: memref<128xi8> {dlc.role = "weights"})
// CHECK-SAME: dlc.weights_bytes = 128 : i64
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[W]][%[[C0]]][] : memref<128xi8> to memref<3xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[B:.*]] = memref.view %[[W]][%[[C64]]][] : memref<128xi8> to memref<2xf32>
// CHECK: %[[C0_2:.*]] = arith.constant 0 : index
// CHECK: %[[A2:.*]] = memref.view %[[W]][%[[C0_2]]][] : memref<128xi8> to memref<3xf32>
// CHECK-NOT: memref.get_global
memref.global "private" constant @a : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
memref.global "private" constant @b : memref<2xf32> = dense<4.0>
func.func @main(%x: memref<3xf32>) {
  %a = memref.get_global @a : memref<3xf32>
  %b = memref.get_global @b : memref<2xf32>
  %a2 = memref.get_global @a : memref<3xf32>
  memref.copy %a, %x : memref<3xf32> to memref<3xf32>
  memref.copy %a2, %x : memref<3xf32> to memref<3xf32>
  "test.use"(%b) : (memref<2xf32>) -> ()
  return
}
