// RUN: %dlc-opt %s --dlc-dispatch-parallel-calls | FileCheck %s

// The call becomes a dispatch on the pool (the entry's last argument) with
// the arguments packed into a stack frame; a trampoline unpacks them.
// A body whose loop came from an ONNX node (the importer's NameLoc) gives
// its trampoline the node's name, characters outside [A-Za-z0-9_] as '_':
// profilers then attribute each loop's samples to its layer.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%[[BUF:.*]]: !llvm.ptr, %[[POOL:.*]]: !llvm.ptr)
// CHECK: %[[FRAME:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, i64)> {alignment = 64 : i64}
// CHECK: llvm.store %[[BUF]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: %[[FN:.*]] = llvm.mlir.addressof @dlc_parallel_tramp_0
// CHECK: llvm.call @dlc_parallel_for(%[[POOL]], %[[FN]], %[[FRAME]], %{{.*}})
// CHECK: %[[FN1:.*]] = llvm.mlir.addressof @dlc_parallel_tramp_1_conv_7_bn
// CHECK: llvm.call @dlc_parallel_for(%[[POOL]], %[[FN1]], %{{.*}}, %{{.*}})
// A body marked to sweep alternately (dlc-alternate-sweeps) goes to the
// runtime's dlc_parallel_for_alternating, same arguments.
// CHECK: %[[FN2:.*]] = llvm.mlir.addressof @dlc_parallel_tramp_2
// CHECK: llvm.call @dlc_parallel_for_alternating(%[[POOL]], %[[FN2]], %{{.*}}, %{{.*}})
// CHECK-NOT: llvm.call @dlc_parallel_body_0
// CHECK: llvm.func internal @dlc_parallel_body_0(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64)
// CHECK: llvm.func @dlc_parallel_for(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
// CHECK: llvm.func @dlc_parallel_for_alternating(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
// CHECK: llvm.func internal @dlc_parallel_tramp_0(%[[CTX:.*]]: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64)
// CHECK: %[[P:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[N:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: llvm.call @dlc_parallel_body_0(%[[LO]], %[[HI]], %[[P]], %[[N]])
// CHECK: llvm.func internal @dlc_parallel_tramp_1_conv_7_bn(
// CHECK: llvm.call @dlc_parallel_body_1(
llvm.func @main(%buf: !llvm.ptr, %pool: !llvm.ptr) {
  %lo = llvm.mlir.constant(0 : i64) : i64
  %hi = llvm.mlir.constant(6 : i64) : i64
  %n = llvm.mlir.constant(42 : i64) : i64
  llvm.call @dlc_parallel_body_0(%lo, %hi, %buf, %n) : (i64, i64, !llvm.ptr, i64) -> ()
  llvm.call @dlc_parallel_body_1(%lo, %hi, %buf) : (i64, i64, !llvm.ptr) -> ()
  llvm.call @dlc_parallel_body_2(%lo, %hi, %buf) : (i64, i64, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @dlc_parallel_body_2(%lo: i64, %hi: i64, %p: !llvm.ptr) attributes {dlc.alternate_sweeps} {
  llvm.return
}
llvm.func @dlc_parallel_body_0(%lo: i64, %hi: i64, %p: !llvm.ptr, %n: i64) attributes {dlc.disjoint_buffers} {
  llvm.return
}
llvm.func @dlc_parallel_body_1(%lo: i64, %hi: i64, %p: !llvm.ptr) {
  llvm.return
} loc(fused["conv_7/bn"("model.onnx":7:0), "tiled"])
