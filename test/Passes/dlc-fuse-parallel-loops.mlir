// RUN: %dlc-opt %s --split-input-file --dlc-fuse-parallel-loops | FileCheck %s

// A decomposed pad: the left and right columns' fills and the interior's
// copy, each over the channels, write disjoint static subviews of one
// buffer: one loop, the frame and the interior of a channel together.
// CHECK-LABEL: func.func @pad_frame_and_copy
// CHECK-SAME: (%[[SRC:.*]]: memref<1x8x4x4xf32>, %[[DST:.*]]: memref<1x8x6x6xf32>)
// CHECK-DAG: %[[LEFT:.*]] = memref.subview %[[DST]][0, 0, 1, 0] [1, 8, 4, 1]
// CHECK-DAG: %[[RIGHT:.*]] = memref.subview %[[DST]][0, 0, 1, 5] [1, 8, 4, 1]
// CHECK-DAG: %[[IN:.*]] = memref.subview %[[DST]][0, 0, 1, 1] [1, 8, 4, 4]
// CHECK: scf.parallel (%[[C:.*]]) =
// CHECK: memref.subview %[[LEFT]][0, %[[C]], 0, 0]
// CHECK: memref.subview %[[RIGHT]][0, %[[C]], 0, 0]
// CHECK: memref.subview %[[IN]][0, %[[C]], 0, 0]
// CHECK: vector.transfer_write
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @pad_frame_and_copy(%src: memref<1x8x4x4xf32>, %dst: memref<1x8x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %left = memref.subview %dst[0, 0, 1, 0] [1, 8, 4, 1] [1, 1, 1, 1] : memref<1x8x6x6xf32> to memref<1x8x4x1xf32, strided<[288, 36, 6, 1], offset: 6>>
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    %s = memref.subview %left[0, %c, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : memref<1x8x4x1xf32, strided<[288, 36, 6, 1], offset: 6>> to memref<1x1x4x1xf32, strided<[288, 36, 6, 1], offset: ?>>
    scf.for %h = %c0 to %c4 step %c1 {
      memref.store %z, %s[%c0, %c0, %h, %c0] : memref<1x1x4x1xf32, strided<[288, 36, 6, 1], offset: ?>>
    }
    scf.reduce
  }
  %right = memref.subview %dst[0, 0, 1, 5] [1, 8, 4, 1] [1, 1, 1, 1] : memref<1x8x6x6xf32> to memref<1x8x4x1xf32, strided<[288, 36, 6, 1], offset: 11>>
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    %s = memref.subview %right[0, %c, 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : memref<1x8x4x1xf32, strided<[288, 36, 6, 1], offset: 11>> to memref<1x1x4x1xf32, strided<[288, 36, 6, 1], offset: ?>>
    scf.for %h = %c0 to %c4 step %c1 {
      memref.store %z, %s[%c0, %c0, %h, %c0] : memref<1x1x4x1xf32, strided<[288, 36, 6, 1], offset: ?>>
    }
    scf.reduce
  }
  %in = memref.subview %dst[0, 0, 1, 1] [1, 8, 4, 4] [1, 1, 1, 1] : memref<1x8x6x6xf32> to memref<1x8x4x4xf32, strided<[288, 36, 6, 1], offset: 7>>
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    %s = memref.subview %src[0, %c, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<1x8x4x4xf32> to memref<1x1x4x4xf32, strided<[128, 16, 4, 1], offset: ?>>
    %d = memref.subview %in[0, %c, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<1x8x4x4xf32, strided<[288, 36, 6, 1], offset: 7>> to memref<1x1x4x4xf32, strided<[288, 36, 6, 1], offset: ?>>
    %v = vector.transfer_read %s[%c0, %c0, %c0, %c0], %z {in_bounds = [true, true, true, true]} : memref<1x1x4x4xf32, strided<[128, 16, 4, 1], offset: ?>>, vector<1x1x4x4xf32>
    vector.transfer_write %v, %d[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x4xf32>, memref<1x1x4x4xf32, strided<[288, 36, 6, 1], offset: ?>>
    scf.reduce
  }
  return
}

// -----

// The second loop reads what the first writes, at other indices (a
// neighbour's channel): fused, a thread could read a channel another has
// not written yet. Both loops stay.
// CHECK-LABEL: func.func @reads_what_the_first_writes
// CHECK: scf.parallel
// CHECK: scf.parallel
func.func @reads_what_the_first_writes(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    memref.store %z, %a[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c7) step (%c1) {
    %j = arith.addi %i, %c1 : index
    %v = memref.load %a[%j] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// Overlapping subviews of one buffer (rows 0-4 and 3-7), and loops of
// different trip counts, stay apart.
// CHECK-LABEL: func.func @overlap_and_other_bounds
// CHECK-COUNT-3: scf.parallel
func.func @overlap_and_other_bounds(%a: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %z = arith.constant 0.0 : f32
  %top = memref.subview %a[0, 0] [5, 4] [1, 1] : memref<8x4xf32> to memref<5x4xf32, strided<[4, 1]>>
  %bottom = memref.subview %a[3, 0] [5, 4] [1, 1] : memref<8x4xf32> to memref<5x4xf32, strided<[4, 1], offset: 12>>
  scf.parallel (%i) = (%c0) to (%c5) step (%c1) {
    memref.store %z, %top[%i, %c0] : memref<5x4xf32, strided<[4, 1]>>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c5) step (%c1) {
    memref.store %z, %bottom[%i, %c0] : memref<5x4xf32, strided<[4, 1], offset: 12>>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %z, %bottom[%i, %c1] : memref<5x4xf32, strided<[4, 1], offset: 12>>
    scf.reduce
  }
  return
}

// -----

// Two memref.get_global ops of one global are one buffer: the second loop
// reads what the first writes, through another SSA value; they stay apart.
// CHECK-LABEL: func.func @one_global_twice
// CHECK-COUNT-2: scf.parallel
memref.global "private" @state : memref<8xf32> = dense<0.0>
func.func @one_global_twice(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 1.0 : f32
  %g1 = memref.get_global @state : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %z, %g1[%i] : memref<8xf32>
    scf.reduce
  }
  %g2 = memref.get_global @state : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %j = arith.subi %c8, %i : index
    %k = arith.subi %j, %c1 : index
    %v = memref.load %g2[%k] : memref<8xf32>
    memref.store %v, %out[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A channel's pad copy, then the depthwise taps that read that channel's
// padded plane (past the allocation of the taps' output, which moves up):
// the second loop reads what the first writes, but iteration c of either
// touches channel c only (the channel index is the induction variable,
// through subviews or a transfer's index, one element wide). Fused, each
// channel's padded plane is read right after it is written.
// CHECK-LABEL: func.func @pad_copy_then_taps_of_the_channel
// CHECK-SAME: (%[[SRC:.*]]: memref<1x8x4x4xf32>, %[[PAD:.*]]: memref<1x8x6x6xf32>)
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<1x8x4x4xf32>
// CHECK: scf.parallel (%[[C:.*]]) =
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %c0, %c0, %c0]
// CHECK: %[[TAP:.*]] = vector.transfer_read %[[PAD]][%c0, %[[C]], %c0, %c0]
// CHECK: vector.transfer_write %[[TAP]], %[[OUT]][%c0, %[[C]], %c0, %c0]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return %[[OUT]]
func.func @pad_copy_then_taps_of_the_channel(%src: memref<1x8x4x4xf32>, %pad: memref<1x8x6x6xf32>) -> memref<1x8x4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %in = memref.subview %pad[0, 0, 1, 1] [1, 8, 4, 4] [1, 1, 1, 1] : memref<1x8x6x6xf32> to memref<1x8x4x4xf32, strided<[288, 36, 6, 1], offset: 7>>
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    %s = memref.subview %src[0, %c, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<1x8x4x4xf32> to memref<1x1x4x4xf32, strided<[128, 16, 4, 1], offset: ?>>
    %d = memref.subview %in[0, %c, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<1x8x4x4xf32, strided<[288, 36, 6, 1], offset: 7>> to memref<1x1x4x4xf32, strided<[288, 36, 6, 1], offset: ?>>
    %v = vector.transfer_read %s[%c0, %c0, %c0, %c0], %z {in_bounds = [true, true, true, true]} : memref<1x1x4x4xf32, strided<[128, 16, 4, 1], offset: ?>>, vector<1x1x4x4xf32>
    vector.transfer_write %v, %d[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x4xf32>, memref<1x1x4x4xf32, strided<[288, 36, 6, 1], offset: ?>>
    scf.reduce
  }
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x8x4x4xf32>
  scf.parallel (%c) = (%c0) to (%c8) step (%c1) {
    %t = vector.transfer_read %pad[%c0, %c, %c0, %c0], %z {in_bounds = [true, true, true, true]} : memref<1x8x6x6xf32>, vector<1x1x4x4xf32>
    vector.transfer_write %t, %out[%c0, %c, %c0, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x4x4xf32>, memref<1x8x4x4xf32>
    scf.reduce
  }
  return %out : memref<1x8x4x4xf32>
}

// -----

// Loops over channels and rows: iteration (c, h) of the second reads rows
// h and h + 1 of channel c, and row h + 1 is written by iteration (c, h + 1)
// of the first. The channel keeps iterations apart, the row does not: both
// loops stay.
// CHECK-LABEL: func.func @taps_read_neighbouring_rows
// CHECK-COUNT-2: scf.parallel
func.func @taps_read_neighbouring_rows(%src: memref<1x8x4x4xf32>, %pad: memref<1x8x5x4xf32>, %out: memref<1x8x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%c, %h) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %v = vector.transfer_read %src[%c0, %c, %h, %c0], %z {in_bounds = [true, true, true, true]} : memref<1x8x4x4xf32>, vector<1x1x1x4xf32>
    vector.transfer_write %v, %pad[%c0, %c, %h, %c0] {in_bounds = [true, true, true, true]} : vector<1x1x1x4xf32>, memref<1x8x5x4xf32>
    scf.reduce
  }
  scf.parallel (%c, %h) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %t = vector.transfer_read %pad[%c0, %c, %h, %c0], %z {in_bounds = [true, true, true, true]} : memref<1x8x5x4xf32>, vector<1x1x2x4xf32>
    %r = vector.extract %t[0, 0, 1] : vector<4xf32> from vector<1x1x2x4xf32>
    vector.transfer_write %r, %out[%c0, %c, %h, %c0] {in_bounds = [true]} : vector<4xf32>, memref<1x8x4x4xf32>
    scf.reduce
  }
  return
}

// -----

// Scalar accesses: iteration i of the second loads the element iteration
// i of the first stored, and nothing else: one loop.
// CHECK-LABEL: func.func @load_what_the_same_iteration_stored
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: memref.store %{{.*}}, %[[A:.*]][%[[I]]]
// CHECK: memref.load %[[A]][%[[I]]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
func.func @load_what_the_same_iteration_stored(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %z, %a[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %a[%i] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
