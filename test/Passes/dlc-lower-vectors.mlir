// RUN: %dlc-opt %s --dlc-lower-vectors | FileCheck %s
// RUN: %dlc-opt %s --dlc-lower-vectors=masked-stores=true | FileCheck %s --check-prefix=MASKED

// A 4x16 contraction over k = 1 becomes one FMA per accumulator row, on 1-D
// vectors only (LLVM splits each 16-lane FMA into two ymm FMAs on AVX2).
// CHECK-LABEL: func.func @outer_product
// CHECK-NOT: vector.contract
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: return
func.func @outer_product(%x: vector<4x1xf32>, %y: vector<1x16xf32>, %acc: vector<4x16xf32>) -> vector<4x16xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
  return %r : vector<4x16xf32>
}

// The transposed tile (dlc-conv-to-im2col's pixelRows layout): the lhs, a
// 16-filter panel row, runs along the accumulator's lanes and the rhs, 6
// pixels, along its rows. The operands are swapped first: one 16-lane FMA
// per pixel, the pixel broadcast, never 6-lane FMAs per filter on a
// transposed accumulator.
// CHECK-LABEL: func.func @lanes_operand_second
// CHECK-SAME: (%[[W:[^:]*]]: vector<1x16xf32>, %[[P:[^:]*]]: vector<1x6xf32>, %[[ACC:[^:]*]]: vector<6x16xf32>)
// CHECK-NOT: vector.contract
// CHECK-NOT: vector.transpose
// CHECK-COUNT-6: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: return
func.func @lanes_operand_second(%w: vector<1x16xf32>, %p: vector<1x6xf32>, %acc: vector<6x16xf32>) -> vector<6x16xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %w, %p, %acc : vector<1x16xf32>, vector<1x6xf32> into vector<6x16xf32>
  return %r : vector<6x16xf32>
}

// A transpose (a pixelRows tile's accumulator, stored at the end of its K
// chunk) is one shuffle, not an extract and insert per element.
// CHECK-LABEL: func.func @transpose_as_shuffle
// CHECK: vector.shuffle
// CHECK-NOT: vector.insert {{.*}} : f32 into
// CHECK: return
func.func @transpose_as_shuffle(%acc: vector<6x16xf32>) -> vector<16x6xf32> {
  %t = vector.transpose %acc, [1, 0] : vector<6x16xf32> to vector<16x6xf32>
  return %t : vector<16x6xf32>
}

// A lane-reduction tile (reduction dims of size 1, both operands along the
// lanes): one FMA over the accumulator's shape (vector-to-llvm unrolls it
// into 10 lane-vector FMAs), the operands arranged by moving whole 8-lane
// rows; no scalar extracts, no dot products.
// CHECK-LABEL: func.func @unit_reduction_contract
// CHECK-SAME: (%[[DY:[^:]*]]: vector<1x2x1x8xf32>, %[[COL:[^:]*]]: vector<1x1x5x1x8xf32>, %[[ACC:[^:]*]]: vector<2x1x5x8xf32>)
// CHECK-NOT: vector.contract
// CHECK-NOT: vector.reduction
// CHECK-NOT: : f32 from
// CHECK: %[[R:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[ACC]] : vector<2x1x5x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @unit_reduction_contract(%dy: vector<1x2x1x8xf32>, %col: vector<1x1x5x1x8xf32>, %acc: vector<2x1x5x8xf32>) -> vector<2x1x5x8xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(c, f, kw, n, b, l) -> (n, f, b, l)>, affine_map<(c, f, kw, n, b, l) -> (n, c, kw, b, l)>, affine_map<(c, f, kw, n, b, l) -> (f, c, kw, l)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"], kind = #vector.kind<add>} %dy, %col, %acc : vector<1x2x1x8xf32>, vector<1x1x5x1x8xf32> into vector<2x1x5x8xf32>
  return %r : vector<2x1x5x8xf32>
}

// A masked 2-D transfer becomes 1-D masked loads.
// CHECK-LABEL: func.func @masked_read
// CHECK: vector.maskedload {{.*}} : memref<?x?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
func.func @masked_read(%m: memref<?x?xf32>, %n: index) -> vector<2x8xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f32
  %mask = vector.create_mask %c2, %n : vector<2x8xi1>
  %v = vector.transfer_read %m[%c0, %c0], %z, %mask {in_bounds = [true, true]} : memref<?x?xf32>, vector<2x8xf32>
  return %v : vector<2x8xf32>
}

// A register tile's row operand read from memory (a filter panel of 6
// rows): each row value is its own scalar load, broadcast (x86 folds the
// pair into vbroadcastss m32), not a 6-lane load and lane extracts (LLVM
// had turned the last two into an 8-byte load and three shuffles).
// CHECK-LABEL: func.func @row_operand_from_memory
// CHECK-NOT: vector.load %{{.*}} : memref<64x6xf32>, vector<6xf32>
// CHECK-COUNT-6: memref.load %{{.*}} : memref<64x6xf32>
// CHECK: vector.fma
// CHECK-NOT: vector.load
func.func @row_operand_from_memory(%w: memref<64x6xf32>, %y: vector<1x16xf32>, %acc: vector<6x16xf32>, %k: index) -> vector<6x16xf32> {
  %z = arith.constant 0.0 : f32
  %x = vector.transfer_read %w[%k, %k], %z {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<64x6xf32>, vector<6x1xf32>
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
  return %r : vector<6x16xf32>
}

// A read along a stride-2 innermost dim (a stride-2 depthwise conv's tap):
// two contiguous 8-lane loads of the rows under it, the second starting 7
// elements on (ending on the last element needed), and one shuffle of the
// even elements; no scalar loads.
// CHECK-LABEL: func.func @stride_two_read
// CHECK-SAME: (%[[M:.*]]: memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, %[[I:.*]]: index)
// CHECK-NOT: memref.load
// CHECK: %[[ROWS:.*]] = memref.reinterpret_cast %{{.*}} to offset: [1], sizes: [1, 4, 15], strides: [144, 36, 1]
// CHECK: %[[A:.*]] = vector.load %[[ROWS]][%{{.*}}, %[[I]], %c0] : memref<1x4x15xf32, strided<[144, 36, 1], offset: 1>>, vector<8xf32>
// CHECK: %[[B:.*]] = vector.load %[[ROWS]][%{{.*}}, %[[I]], %c7] : memref<1x4x15xf32, strided<[144, 36, 1], offset: 1>>, vector<8xf32>
// CHECK: %[[E:.*]] = vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 9, 11, 13, 15]
// CHECK: vector.insert %[[E]], %{{.*}} [0] : vector<8xf32> into vector<1x8xf32>
// CHECK-NOT: memref.load
func.func @stride_two_read(%m: memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, %i: index) -> vector<1x1x8xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, vector<1x1x8xf32>
  return %v : vector<1x1x8xf32>
}

// One lane of a stride-2 dim (a tap's last column): one element read.
// CHECK-LABEL: func.func @stride_two_one_lane
// CHECK: memref.reinterpret_cast
// CHECK: %[[E:.*]] = memref.load
// CHECK: vector.splat %[[E]] : vector<1xf32>
func.func @stride_two_one_lane(%m: memref<4x15xf32, strided<[30, 2]>>, %i: index) -> vector<1xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %c0], %pad {in_bounds = [true]} : memref<4x15xf32, strided<[30, 2]>>, vector<1xf32>
  return %v : vector<1xf32>
}

// Elementwise work on stride-2 reads alone (two taps of a depthwise conv,
// a lane-uniform weight, a ReLU) runs in the paired lane order: each read
// is one shuffle of its loads into lanes 0, 1, 4, 5, 2, 3, 6, 7 of the
// even elements, and one shuffle puts the result back in order before the
// store.
// CHECK-LABEL: func.func @stride_two_taps_paired
// CHECK: %[[A:.*]] = vector.load %{{.*}}, vector<8xf32>
// CHECK: %[[B:.*]] = vector.load %{{.*}}, vector<8xf32>
// CHECK: vector.shuffle %[[A]], %[[B]] [0, 2, 9, 11, 4, 6, 13, 15]
// CHECK: %[[C:.*]] = vector.load %{{.*}}, vector<8xf32>
// CHECK: %[[D:.*]] = vector.load %{{.*}}, vector<8xf32>
// CHECK: vector.shuffle %[[C]], %[[D]] [0, 2, 9, 11, 4, 6, 13, 15]
// CHECK: %[[R:.*]] = arith.maximumf
// CHECK: %[[FLAT:.*]] = vector.extract %[[R]][0, 0] : vector<8xf32> from vector<1x1x8xf32>
// CHECK: %[[ORDERED:.*]] = vector.shuffle %[[FLAT]], %[[FLAT]] [0, 1, 4, 5, 2, 3, 6, 7]
// CHECK: vector.store %[[ORDERED]]
func.func @stride_two_taps_paired(%m: memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, %n: memref<1x4x8xf32, strided<[144, 36, 2], offset: 2>>, %w: vector<1xf32>, %out: memref<1x4x8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x1x8xf32>
  %a = vector.transfer_read %m[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, vector<1x1x8xf32>
  %b = vector.transfer_read %n[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x8xf32, strided<[144, 36, 2], offset: 2>>, vector<1x1x8xf32>
  %wb = vector.broadcast %w : vector<1xf32> to vector<1x1x8xf32>
  %f = math.fma %a, %wb, %zero : vector<1x1x8xf32>
  %g = math.fma %b, %wb, %f : vector<1x1x8xf32>
  %r = arith.maximumf %g, %zero : vector<1x1x8xf32>
  vector.transfer_write %r, %out[%c0, %i, %c0] {in_bounds = [true, true, true]} : vector<1x1x8xf32>, memref<1x4x8xf32>
  return
}

// A lane-varying operand (a residual read in order) keeps the reads in
// order: no paired shuffle, no shuffle before the store.
// CHECK-LABEL: func.func @stride_two_with_residual
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 9, 11, 13, 15]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 9, 11, 13, 15]
// CHECK-NOT: vector.shuffle
// CHECK: vector.store
func.func @stride_two_with_residual(%m: memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, %n: memref<1x4x8xf32, strided<[144, 36, 2], offset: 2>>, %res: memref<1x4x8xf32>, %out: memref<1x4x8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %a = vector.transfer_read %m[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x8xf32, strided<[144, 36, 2], offset: 1>>, vector<1x1x8xf32>
  %b = vector.transfer_read %n[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x8xf32, strided<[144, 36, 2], offset: 2>>, vector<1x1x8xf32>
  %r = vector.transfer_read %res[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x8xf32>, vector<1x1x8xf32>
  %s = arith.addf %a, %b : vector<1x1x8xf32>
  %t = arith.addf %s, %r : vector<1x1x8xf32>
  vector.transfer_write %t, %out[%c0, %i, %c0] {in_bounds = [true, true, true]} : vector<1x1x8xf32>, memref<1x4x8xf32>
  return
}

// Six lanes (a row of 14 after one vector of 8: LeNet's first pool): the
// eleven elements needed hold two 8-lane loads, 3 elements apart, and the
// shuffle picks six lanes of them (6-lane loads and shuffles were lowered,
// next to the pool's other windows, one element at a time).
// CHECK-LABEL: func.func @stride_two_read_six
// CHECK: %[[ROWS:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 4, 11], strides: [144, 36, 1]
// CHECK: %[[A:.*]] = vector.load %[[ROWS]][%{{.*}}, %{{.*}}, %c0] : memref<1x4x11xf32, strided<[144, 36, 1]>>, vector<8xf32>
// CHECK: %[[B:.*]] = vector.load %[[ROWS]][%{{.*}}, %{{.*}}, %c3] : memref<1x4x11xf32, strided<[144, 36, 1]>>, vector<8xf32>
// CHECK: vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 13, 15] : vector<8xf32>, vector<8xf32>
func.func @stride_two_read_six(%m: memref<1x4x6xf32, strided<[144, 36, 2]>>, %i: index) -> vector<1x1x6xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0, %i, %c0], %z {in_bounds = [true, true, true]} : memref<1x4x6xf32, strided<[144, 36, 2]>>, vector<1x1x6xf32>
  return %v : vector<1x1x6xf32>
}

// A 7-lane row (a depthwise tap over a 7x7 map) is read as one masked load
// of 8 lanes with the eighth off, then cut back to 7; a 12-lane read (a
// multiple of 4: one 8-lane and one 4-lane load) stays a plain load, and
// the 7-lane write stays a plain store (masked stores measured slower on
// AVX2). With masked-stores (AVX-512) the write is one masked store of 8
// lanes, the seventh lane's value padded with a zero.
// MASKED-LABEL: func.func @odd_row_read
// MASKED: %[[W:.*]] = vector.maskedload
// MASKED: %[[R:.*]] = vector.extract_strided_slice %[[W]]
// MASKED: %[[SMASK:.*]] = vector.constant_mask [7] : vector<8xi1>
// MASKED: %[[WIDE:.*]] = vector.insert_strided_slice %[[R]], %{{.*}} {offsets = [0], strides = [1]} : vector<7xf32> into vector<8xf32>
// MASKED: vector.maskedstore %{{.*}}[%{{.*}}, %c0], %[[SMASK]], %[[WIDE]] : memref<4x7xf32>, vector<8xi1>, vector<8xf32>
// CHECK-LABEL: func.func @odd_row_read
// CHECK-SAME: (%[[M:.*]]: memref<4x7xf32>, %[[N:.*]]: memref<4x12xf32>, %[[I:.*]]: index)
// CHECK: %[[MASK:.*]] = vector.constant_mask [7] : vector<8xi1>
// CHECK: %[[W:.*]] = vector.maskedload %[[M]][%[[I]], %c0], %[[MASK]], %{{.*}} : memref<4x7xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: %[[R:.*]] = vector.extract_strided_slice %[[W]] {offsets = [0], sizes = [7], strides = [1]} : vector<8xf32> to vector<7xf32>
// CHECK: vector.load %[[N]][%[[I]], %c0] : memref<4x12xf32>, vector<12xf32>
// CHECK: vector.store %[[R]], %[[M]][%[[I]], %c0] : memref<4x7xf32>, vector<7xf32>
func.func @odd_row_read(%m: memref<4x7xf32>, %n: memref<4x12xf32>, %i: index) -> vector<12xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %c0], %z {in_bounds = [true]} : memref<4x7xf32>, vector<7xf32>
  %w = vector.transfer_read %n[%i, %c0], %z {in_bounds = [true]} : memref<4x12xf32>, vector<12xf32>
  vector.transfer_write %v, %m[%i, %c0] {in_bounds = [true]} : vector<7xf32>, memref<4x7xf32>
  return %w : vector<12xf32>
}

// An im2col's gather along a stride-2 conv's row (indices: a row start
// times the row length, plus 0, 2, .., 14) reads the buffer as one row:
// two contiguous 8-lane loads and one shuffle of the even elements, no
// scalar loads.
// CHECK-LABEL: func.func @strided_gather
// CHECK-SAME: (%[[M:.*]]: memref<3x226xf32>, %[[S:.*]]: index)
// CHECK-NOT: memref.load
// CHECK: %[[START:.*]] = arith.muli %[[S]], %c226 : index
// CHECK: %[[ROW:.*]] = memref.collapse_shape %[[M]] {{\[\[}}0, 1]] : memref<3x226xf32> into memref<678xf32>
// CHECK: %[[A:.*]] = vector.load %[[ROW]][%[[START]]] : memref<678xf32>, vector<8xf32>
// CHECK: %[[NEXT:.*]] = arith.addi %[[START]], %c7 : index
// CHECK: %[[B:.*]] = vector.load %[[ROW]][%[[NEXT]]] : memref<678xf32>, vector<8xf32>
// CHECK: vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 9, 11, 13, 15]
// CHECK-NOT: memref.load
func.func @strided_gather(%m: memref<3x226xf32>, %s: index) -> vector<1x8xf32> {
  %c0 = arith.constant 0 : index
  %iota = arith.constant dense<[0, 2, 4, 6, 8, 10, 12, 14]> : vector<8xindex>
  %row = arith.constant dense<226> : vector<8xindex>
  %b = vector.broadcast %s : index to vector<8xindex>
  %r = arith.muli %b, %row : vector<8xindex>
  %i = arith.addi %r, %iota : vector<8xindex>
  %i2 = vector.broadcast %i : vector<8xindex> to vector<1x8xindex>
  %mask = arith.constant dense<true> : vector<1x8xi1>
  %pass = arith.constant dense<0.0> : vector<1x8xf32>
  %g = vector.gather %m[%c0, %c0] [%i2], %mask, %pass : memref<3x226xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
  return %g : vector<1x8xf32>
}

// Consecutive indices: one contiguous load.
// CHECK-LABEL: func.func @unit_stride_gather
// CHECK-SAME: (%[[M:.*]]: memref<3x226xf32>, %[[S:.*]]: index)
// CHECK: %[[START:.*]] = arith.addi %[[S]], %c3 : index
// CHECK: %[[ROW:.*]] = memref.collapse_shape %[[M]]
// CHECK: vector.load %[[ROW]][%[[START]]] : memref<678xf32>, vector<8xf32>
// CHECK-NOT: memref.load
func.func @unit_stride_gather(%m: memref<3x226xf32>, %s: index) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %iota = arith.constant dense<[3, 4, 5, 6, 7, 8, 9, 10]> : vector<8xindex>
  %b = vector.broadcast %s : index to vector<8xindex>
  %i = arith.addi %b, %iota : vector<8xindex>
  %mask = arith.constant dense<true> : vector<8xi1>
  %pass = arith.constant dense<0.0> : vector<8xf32>
  %g = vector.gather %m[%c0, %c0] [%i], %mask, %pass : memref<3x226xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  return %g : vector<8xf32>
}

// A Gather's row (an embedding lookup): the row index, read as a
// one-element vector, wrapped when negative and clamped in vectors equal in
// every lane, then transposed from [8, 1]; all of it computed once as
// scalars, and the row one contiguous load instead of a scalar per lane.
// CHECK-LABEL: func.func @row_gather
// CHECK-SAME: (%[[M:.*]]: memref<100x64xf32>, %[[IDX:.*]]: vector<1xindex>, %[[J:.*]]: index)
// CHECK: %[[I:.*]] = vector.extract %[[IDX]][0] : index from vector<1xindex>
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.select %[[NEG]], %{{.*}}, %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[W]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = memref.collapse_shape %[[M]]
// CHECK: vector.load %[[ROW]][%{{.*}}] : memref<6400xf32>, vector<8xf32>
// CHECK-NOT: vector.gather
// CHECK-NOT: memref.load
func.func @row_gather(%m: memref<100x64xf32>, %idx: vector<1xindex>, %j: index) -> vector<1x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0> : vector<8x1xindex>
  %dim = arith.constant dense<100> : vector<8x1xindex>
  %last = arith.constant dense<99> : vector<8x1xindex>
  %width = arith.constant dense<64> : vector<8x1xindex>
  %iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
  %b = vector.broadcast %idx : vector<1xindex> to vector<8x1xindex>
  %neg = arith.cmpi slt, %b, %zero : vector<8x1xindex>
  %up = arith.addi %b, %dim : vector<8x1xindex>
  %w = arith.select %neg, %up, %b : vector<8x1xi1>, vector<8x1xindex>
  %lo = arith.maxsi %w, %zero : vector<8x1xindex>
  %hi = arith.minsi %lo, %last : vector<8x1xindex>
  %start = arith.muli %hi, %width : vector<8x1xindex>
  %t = vector.transpose %start, [1, 0] : vector<8x1xindex> to vector<1x8xindex>
  %jb = vector.broadcast %j : index to vector<8xindex>
  %cols = arith.addi %jb, %iota : vector<8xindex>
  %cols2 = vector.broadcast %cols : vector<8xindex> to vector<1x8xindex>
  %i = arith.addi %cols2, %t : vector<1x8xindex>
  %mask = arith.constant dense<true> : vector<1x8xi1>
  %pass = arith.constant dense<0.0> : vector<1x8xf32>
  %g = vector.gather %m[%c0, %c0] [%i], %mask, %pass : memref<100x64xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
  return %g : vector<1x8xf32>
}

// The same clamp on a loop index (a conv's border row, not an element read
// from a tensor) is not made scalar: such gathers stay as they were (as
// shuffled reads ResNet-50 ran 1.5-2% slower).
// CHECK-LABEL: func.func @clamped_loop_index_gather
// CHECK-NOT: vector.load
// CHECK: memref.load
func.func @clamped_loop_index_gather(%m: memref<100x64xf32>, %r: index, %j: index) -> vector<1x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0> : vector<8x1xindex>
  %last = arith.constant dense<99> : vector<8x1xindex>
  %width = arith.constant dense<64> : vector<8x1xindex>
  %iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
  %b = vector.broadcast %r : index to vector<8x1xindex>
  %lo = arith.maxsi %b, %zero : vector<8x1xindex>
  %hi = arith.minsi %lo, %last : vector<8x1xindex>
  %start = arith.muli %hi, %width : vector<8x1xindex>
  %t = vector.transpose %start, [1, 0] : vector<8x1xindex> to vector<1x8xindex>
  %jb = vector.broadcast %j : index to vector<8xindex>
  %cols = arith.addi %jb, %iota : vector<8xindex>
  %cols2 = vector.broadcast %cols : vector<8xindex> to vector<1x8xindex>
  %i = arith.addi %cols2, %t : vector<1x8xindex>
  %mask = arith.constant dense<true> : vector<1x8xi1>
  %pass = arith.constant dense<0.0> : vector<1x8xf32>
  %g = vector.gather %m[%c0, %c0] [%i], %mask, %pass : memref<100x64xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
  return %g : vector<1x8xf32>
}

// Stride 4 (a Winograd F(4x4) input row split into its phases): four
// contiguous 8-lane loads, the last ending on the last element needed
// (start + 28); one shuffle of the first two, then one per further load
// adding its two lanes.
// CHECK-LABEL: func.func @stride_four_gather
// CHECK-SAME: (%[[M:.*]]: memref<64x60xf32>, %[[S:.*]]: index)
// CHECK-NOT: memref.load
// CHECK: %[[START:.*]] = arith.addi %[[S]], %c2 : index
// CHECK: %[[ROW:.*]] = memref.collapse_shape %[[M]] {{\[\[}}0, 1]] : memref<64x60xf32> into memref<3840xf32>
// CHECK: %[[A:.*]] = vector.load %[[ROW]][%[[START]]]
// CHECK: %[[B:.*]] = vector.load %[[ROW]]
// CHECK: %[[C:.*]] = vector.load %[[ROW]]
// CHECK: %[[LAST:.*]] = arith.addi %[[START]], %c21 : index
// CHECK: %[[D:.*]] = vector.load %[[ROW]][%[[LAST]]]
// CHECK: %[[AB:.*]] = vector.shuffle %[[A]], %[[B]] [0, 4, 8, 12, 4, 5, 6, 7]
// CHECK: %[[ABC:.*]] = vector.shuffle %[[AB]], %[[C]] [0, 1, 2, 3, 8, 12, 6, 7]
// CHECK: %[[ALL:.*]] = vector.shuffle %[[ABC]], %[[D]] [0, 1, 2, 3, 4, 5, 11, 15]
// CHECK: return %[[ALL]]
func.func @stride_four_gather(%m: memref<64x60xf32>, %s: index) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %iota = arith.constant dense<[2, 6, 10, 14, 18, 22, 26, 30]> : vector<8xindex>
  %b = vector.broadcast %s : index to vector<8xindex>
  %i = arith.addi %b, %iota : vector<8xindex>
  %mask = arith.constant dense<true> : vector<8xi1>
  %pass = arith.constant dense<0.0> : vector<8xf32>
  %g = vector.gather %m[%c0, %c0] [%i], %mask, %pass : memref<64x60xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  return %g : vector<8xf32>
}

// Stride 3 stays a gather (one load per lane).
// CHECK-LABEL: func.func @stride_three_gather
// CHECK-NOT: memref.collapse_shape
// CHECK-COUNT-8: memref.load
func.func @stride_three_gather(%m: memref<3x226xf32>, %s: index) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %iota = arith.constant dense<[0, 3, 6, 9, 12, 15, 18, 21]> : vector<8xindex>
  %b = vector.broadcast %s : index to vector<8xindex>
  %i = arith.addi %b, %iota : vector<8xindex>
  %mask = arith.constant dense<true> : vector<8xi1>
  %pass = arith.constant dense<0.0> : vector<8xf32>
  %g = vector.gather %m[%c0, %c0] [%i], %mask, %pass : memref<3x226xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  return %g : vector<8xf32>
}
