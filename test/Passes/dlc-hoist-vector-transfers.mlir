// RUN: %dlc-opt %s --split-input-file --dlc-hoist-vector-transfers | FileCheck %s

// The accumulator tile is read once before the k loop, carried in registers
// and written once after it.
// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%[[A:.*]]: memref<8x64xf32>, %[[B:.*]]: memref<64x16xf32>, %[[C:.*]]: memref<8x16xf32>)
// CHECK: %[[INIT:.*]] = vector.transfer_read %[[C]]
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<8x16xf32>)
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: vector.contract {{.*}} %[[ACC]]
// CHECK-NOT: vector.transfer_write
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[R]], %[[C]]
func.func @accumulate(%a: memref<8x64xf32>, %b: memref<64x16xf32>, %c: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c64 step %c1 {
    %acc = vector.transfer_read %c[%c0, %c0], %z {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
    %x = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : memref<8x64xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : memref<64x16xf32>, vector<1x16xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf32>, memref<8x16xf32>
  }
  return
}

// -----

// A register tile over filter panels reads its accumulator through views
// (a subview of a reshaped buffer), where upstream's hoisting stops: the
// tile still leaves the k loop when nothing else in the loop touches that
// buffer.
// CHECK-LABEL: func.func @accumulate_through_views
// CHECK: %[[TILE:.*]] = memref.subview
// CHECK: %[[INIT:.*]] = vector.transfer_read %[[TILE]]
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<1x6x16xf32>)
// CHECK-NOT: vector.transfer_write
// CHECK: vector.contract {{.*}} %[[ACC]]
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[R]], %[[TILE]]
func.func @accumulate_through_views(%w: memref<11x64x6xf32>, %cols: memref<64x32xf32>, %p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<66x32xf32>
  %panels = memref.expand_shape %out [[0, 1], [2]] output_shape [11, 6, 32] : memref<66x32xf32> into memref<11x6x32xf32>
  %tile = memref.subview %panels[0, 0, %p] [11, 6, 16] [1, 1, 1] : memref<11x6x32xf32> to memref<11x6x16xf32, strided<[192, 32, 1], offset: ?>>
  scf.for %k = %c0 to %c64 step %c1 {
    %acc = vector.transfer_read %tile[%c1, %c0, %c0], %z {in_bounds = [true, true, true]} : memref<11x6x16xf32, strided<[192, 32, 1], offset: ?>>, vector<1x6x16xf32>
    %x = vector.transfer_read %w[%c1, %k, %c0], %z {in_bounds = [true, true, true]} : memref<11x64x6xf32>, vector<1x1x6xf32>
    %y = vector.transfer_read %cols[%k, %p], %z {in_bounds = [true, true]} : memref<64x32xf32>, vector<1x16xf32>
    %r = vector.contract {indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x1x6xf32>, vector<1x16xf32> into vector<1x6x16xf32>
    vector.transfer_write %r, %tile[%c1, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x6x16xf32>, memref<11x6x16xf32, strided<[192, 32, 1], offset: ?>>
  }
  return
}

// -----

// A read of the same buffer through another view in the loop: the pair
// stays (the read might see the tile).
// CHECK-LABEL: func.func @aliasing_read_stays
// CHECK: scf.for
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write
// CHECK: }
func.func @aliasing_read_stays(%out: memref<6x32xf32>, %w: memref<64x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %tile = memref.subview %out[0, 0] [6, 16] [1, 1] : memref<6x32xf32> to memref<6x16xf32, strided<[32, 1]>>
  %other = memref.subview %out[0, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<1x32xf32, strided<[32, 1]>>
  scf.for %k = %c0 to %c64 step %c1 {
    %acc = vector.transfer_read %tile[%c0, %c0], %z {in_bounds = [true, true]} : memref<6x16xf32, strided<[32, 1]>>, vector<6x16xf32>
    %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<64x6xf32>, vector<1x6xf32>
    %y = vector.transfer_read %other[%c0, %c0], %z {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1]>>, vector<1x16xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
    vector.transfer_write %r, %tile[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32, strided<[32, 1]>>
  }
  return
}

// -----

// A tile stored back unchanged right after it was read (bufferization's copy
// of a slice onto itself: the zero frame of a depthwise conv's padded input)
// goes, read and write; the zeros written before it stay.
// CHECK-LABEL: func.func @self_copy
// CHECK-SAME: (%[[BUF:.*]]: memref<4x9xf32>, %[[I:.*]]: index)
// CHECK: %[[ROW:.*]] = memref.subview %[[BUF]]
// CHECK-NEXT: vector.transfer_write %{{.*}}, %[[ROW]]
// CHECK-NOT: vector.transfer_read
// CHECK-NOT: vector.transfer_write
// CHECK: return
func.func @self_copy(%buf: memref<4x9xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %zeros = arith.constant dense<0.0> : vector<1x9xf32>
  %row = memref.subview %buf[%i, 0] [1, 9] [1, 1] : memref<4x9xf32> to memref<1x9xf32, strided<[9, 1], offset: ?>>
  vector.transfer_write %zeros, %row[%c0, %c0] {in_bounds = [true, true]} : vector<1x9xf32>, memref<1x9xf32, strided<[9, 1], offset: ?>>
  %v = vector.transfer_read %row[%c0, %c0], %z {in_bounds = [true, true]} : memref<1x9xf32, strided<[9, 1], offset: ?>>, vector<1x9xf32>
  vector.transfer_write %v, %row[%c0, %c0] {in_bounds = [true, true]} : vector<1x9xf32>, memref<1x9xf32, strided<[9, 1], offset: ?>>
  return
}

// -----

// A write between the read and the write back keeps the pair: the write
// back restores what was read.
// CHECK-LABEL: func.func @write_between
// CHECK-SAME: (%[[BUF:.*]]: memref<1x16xf32>, %[[V:.*]]: vector<1x16xf32>)
// CHECK: %[[OLD:.*]] = vector.transfer_read %[[BUF]]
// CHECK-NEXT: vector.transfer_write %[[V]], %[[BUF]]
// CHECK-NEXT: vector.transfer_write %[[OLD]], %[[BUF]]
func.func @write_between(%buf: memref<1x16xf32>, %v: vector<1x16xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %old = vector.transfer_read %buf[%c0, %c0], %z {in_bounds = [true, true]} : memref<1x16xf32>, vector<1x16xf32>
  vector.transfer_write %v, %buf[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, memref<1x16xf32>
  vector.transfer_write %old, %buf[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, memref<1x16xf32>
  return
}

// -----

// On tensors a write makes a new value: the pair stays.
// CHECK-LABEL: func.func @tensor_write_stays
// CHECK: %[[V:.*]] = vector.transfer_read
// CHECK: %[[T:.*]] = vector.transfer_write %[[V]]
// CHECK: return %[[T]]
func.func @tensor_write_stays(%t: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %t[%c0, %c0], %z {in_bounds = [true, true]} : tensor<1x16xf32>, vector<1x16xf32>
  %r = vector.transfer_write %v, %t[%c0, %c0] {in_bounds = [true, true]} : vector<1x16xf32>, tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}
