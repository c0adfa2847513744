// RUN: %dlc-opt %s --dlc-alternate-sweeps="cache-bytes=1048576" | FileCheck %s
// RUN: %dlc-opt %s --dlc-alternate-sweeps="cache-bytes=2097152" | FileCheck %s --check-prefix=FITS
// RUN: %dlc-opt %s --dlc-alternate-sweeps="cache-bytes=262144" | FileCheck %s --check-prefix=LARGE

// A run reads 802,816 bytes of weights (the MLP's first layer, as
// dlc-pack-matmul-weights packs it) and a 1 KB arena: over half of a 1 MB
// L2, so the body its parallel call runs sweeps alternately. The serial
// callee and the mutable global are left alone.
// CHECK-LABEL: func.func @main
// CHECK: call @dlc_parallel_body_0({{.*}}) {dlc.parallel}
// CHECK: call @helper
// CHECK: func.func private @dlc_parallel_body_0({{.*}}) attributes {dlc.alternate_sweeps}
// CHECK: func.func private @helper(
// CHECK-NOT: dlc.alternate_sweeps

// With 2 MB of L2 the data fits under half of it and stays cached anyway.
// FITS-NOT: dlc.alternate_sweeps

// With 256 KB it is over twice the cache: a reversed sweep would find
// little of it left.
// LARGE-NOT: dlc.alternate_sweeps
memref.global "private" constant @weights : memref<16x784x16xf32> = dense<1.0>
memref.global "private" @state : memref<262144xf32> = dense<0.0>
func.func @main(%x: memref<1x784xf32>, %arena: memref<1024xi8>) attributes {dlc.arena_bytes = 1024 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %w = memref.get_global @weights : memref<16x784x16xf32>
  call @dlc_parallel_body_0(%c0, %c4, %x, %w) {dlc.parallel} : (index, index, memref<1x784xf32>, memref<16x784x16xf32>) -> ()
  call @helper(%arena) : (memref<1024xi8>) -> ()
  return
}
func.func private @dlc_parallel_body_0(%lo: index, %hi: index, %x: memref<1x784xf32>, %w: memref<16x784x16xf32>) {
  return
}
func.func private @helper(%arena: memref<1024xi8>) {
  return
}
