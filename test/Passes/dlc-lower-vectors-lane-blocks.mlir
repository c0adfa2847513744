// RUN: %dlc-opt %s --split-input-file --dlc-lower-vectors=vector-width=16 | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-lower-vectors=vector-width=8 | FileCheck %s --check-prefix=AVX2
// RUN: %dlc-opt %s --split-input-file --dlc-lower-vectors | FileCheck %s --check-prefix=FLAT

// A transposed GEMM tile (12 pixels x 16 filters) into 16 rows of 12: one
// 16 x 16 block (its rows 12..15 repeat row 0), the rows unpacked in pairs,
// then pairs of pairs, then 128-bit lanes gathered twice; each result row
// cut to 12 lanes. Without a vector width: one flat 192-element shuffle.
// CHECK-LABEL: func.func @tile_12x16
// CHECK-SAME: (%[[A:.*]]: vector<12x16xf32>)
// CHECK: %[[R0:.*]] = vector.extract %[[A]][0] : vector<16xf32> from vector<12x16xf32>
// CHECK: %[[R1:.*]] = vector.extract %[[A]][1] : vector<16xf32> from vector<12x16xf32>
// CHECK: %[[LO:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29]
// CHECK: %[[HI:.*]] = vector.shuffle %[[R0]], %[[R1]] [2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31]
// CHECK: vector.shuffle %[[R0]], %[[R0]] [0, 16, 1, 17
// CHECK: vector.shuffle %[[LO]], %{{.*}} [0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31]
// CHECK: %[[ROW0:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] : vector<16xf32>, vector<16xf32>
// CHECK: vector.insert %[[ROW0]], %{{.*}} [0] : vector<12xf32> into vector<16x12xf32>
// CHECK-COUNT-15: vector.insert
// CHECK-NOT: vector.shuffle
// CHECK: return
// FLAT-LABEL: func.func @tile_12x16
// FLAT: vector.shuffle {{.*}} [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 1, 17,
func.func @tile_12x16(%a: vector<12x16xf32>) -> vector<16x12xf32> {
  %t = vector.transpose %a, [1, 0] : vector<12x16xf32> to vector<16x12xf32>
  return %t : vector<16x12xf32>
}

// -----

// The epilogue's form: unit dims around the two swapped ones, 14 pixels x
// 32 filters, two blocks whose result rows go to rows 0..15 and 16..31.
// CHECK-LABEL: func.func @tile_unit_dims
// CHECK-COUNT-14: vector.extract %{{.*}} : vector<32xf32> from vector<1x14x1x32xf32>
// CHECK-COUNT-28: vector.extract_strided_slice
// CHECK: vector.insert %{{.*}} [0, 0, 0] : vector<14xf32> into vector<1x32x1x14xf32>
// CHECK: vector.insert %{{.*}} [0, 31, 0] : vector<14xf32> into vector<1x32x1x14xf32>
// CHECK-NEXT: return
func.func @tile_unit_dims(%a: vector<1x14x1x32xf32>) -> vector<1x32x1x14xf32> {
  %t = vector.transpose %a, [0, 3, 2, 1] : vector<1x14x1x32xf32> to vector<1x32x1x14xf32>
  return %t : vector<1x32x1x14xf32>
}

// -----

// AVX2's 6 x 16 tile: two 8 x 8 blocks; the 128-bit lanes of a pair of
// rows gathered once.
// AVX2-LABEL: func.func @tile_6x16
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 8, 1, 9, 4, 12, 5, 13] : vector<8xf32>, vector<8xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 8, 9, 4, 5, 12, 13] : vector<8xf32>, vector<8xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [4, 5, 6, 7, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5] : vector<8xf32>, vector<8xf32>
// AVX2-COUNT-16: vector.insert
// AVX2-NEXT: return
func.func @tile_6x16(%a: vector<6x16xf32>) -> vector<16x6xf32> {
  %t = vector.transpose %a, [1, 0] : vector<6x16xf32> to vector<16x6xf32>
  return %t : vector<16x6xf32>
}

// -----

// Rows of 7 (half a 16-lane block or less) stay one flat shuffle: padded,
// the network ran MobileNetV2's 7-pixel tiles slower.
// CHECK-LABEL: func.func @seven_rows
// CHECK: vector.shuffle {{.*}} [0, 32, 64, 96, 128, 160, 192, 1, 33,{{.*}} : vector<224xf32>, vector<224xf32>
func.func @seven_rows(%a: vector<7x32xf32>) -> vector<32x7xf32> {
  %t = vector.transpose %a, [1, 0] : vector<7x32xf32> to vector<32x7xf32>
  return %t : vector<32x7xf32>
}
