// RUN: %dlc-opt %s --dlc-slide-taps-in-registers="vector-width=8" --cse --split-input-file | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// Three taps of a zero pad (window positions (0, 0), (1, 1) and (2, 2))
// over 3 rows of 5 with per-channel weights: a forall over (image,
// channel); each of the 3 input rows is read once into 8 lanes (zeros past
// the row), its shifts by -1 and +1 one shuffle each (lane 8 is the pad's
// zero); output row 0's (0, 0) tap is above the input and reads the zero
// row, row 2's (2, 2) tap likewise below it. The pad goes.
// CHECK-LABEL: func.func @diagonal
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x5xf32>, %[[W:.*]]: tensor<2xf32>)
// `dlc inspect`'s entry for the conv (the pad's loc) names the new kernel.
// CHECK-SAME: dlc.conv_kernels = ["dw: depthwise: 3 taps from rows of 5 read once a channel and shifted in registers (8-lane rows, no padded copy)"]
// CHECK-NOT: tensor.pad
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x3x5xf32>
// CHECK: scf.forall (%[[N:.*]], %[[C:.*]]) in (1, 2) shared_outs(%[[OUT:.*]] = %[[E]])
// CHECK-DAG: %[[ZROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-DAG: %[[WC:.*]] = tensor.extract %[[W]][%[[C]]] : tensor<2xf32>
// CHECK: %[[PLANE:.*]] = tensor.extract_slice %[[OUT]][%[[N]], %[[C]], 0, 0] [1, 1, 3, 5]
// Row 0: taps (zero row), row 0 as is, row 1 shifted left.
// CHECK: %[[R0:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}]{{.*}} : tensor<1x2x3x5xf32>, vector<5xf32>
// CHECK: %[[R0W:.*]] = vector.insert_strided_slice %[[R0]], %[[ZROW]] {offsets = [0], strides = [1]} : vector<5xf32> into vector<8xf32>
// CHECK: %[[R1:.*]] = vector.transfer_read %[[X]]
// CHECK: %[[R1W:.*]] = vector.insert_strided_slice %[[R1]], %[[ZROW]]
// CHECK: %[[R1L:.*]] = vector.shuffle %[[R1W]], %[[ZROW]] [1, 2, 3, 4, 8, 8, 8, 8]
// CHECK: %[[WV:.*]] = vector.broadcast %[[WC]] : f32 to vector<8xf32>
// CHECK: %[[S0:.*]] = math.fma %[[ZROW]], %[[WV]], %{{.*}} : vector<8xf32>
// CHECK: %[[S1:.*]] = math.fma %[[R0W]], %[[WV]], %[[S0]] : vector<8xf32>
// CHECK: %[[S2:.*]] = math.fma %[[R1L]], %[[WV]], %[[S1]] : vector<8xf32>
// CHECK: %[[ROW0:.*]] = vector.extract_strided_slice %[[S2]] {offsets = [0], sizes = [5], strides = [1]}
// CHECK: %[[P0:.*]] = vector.transfer_write %[[ROW0]], %[[PLANE]]
// Row 1: row 0 shifted right (lane 0 the pad's zero), row 1, row 2 left.
// CHECK: %[[R0R:.*]] = vector.shuffle %[[R0W]], %[[ZROW]] [8, 0, 1, 2, 3, 4, 8, 8]
// CHECK: math.fma %[[R0R]]
// CHECK: math.fma %[[R1W]]
// CHECK: %[[P1:.*]] = vector.transfer_write %{{.*}}, %[[P0]]
// CHECK: %[[P2:.*]] = vector.transfer_write %{{.*}}, %[[P1]]
// CHECK: tensor.parallel_insert_slice %[[P2]] into %[[OUT]][%[[N]], %[[C]], 0, 0] [1, 1, 3, 5]
func.func @diagonal(%x: tensor<1x2x3x5xf32>, %w: tensor<2xf32>) -> tensor<1x2x3x5xf32>
    attributes {dlc.conv_kernels = ["dw: depthwise: 3 taps summed in one elementwise loop"]} {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x3x5xf32> to tensor<1x2x5x7xf32> loc("dw")
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 3, 5] [1, 1, 1, 1] : tensor<1x2x5x7xf32> to tensor<1x2x3x5xf32>
  %t11 = tensor.extract_slice %p[0, 0, 1, 1] [1, 2, 3, 5] [1, 1, 1, 1] : tensor<1x2x5x7xf32> to tensor<1x2x3x5xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 3, 5] [1, 1, 1, 1] : tensor<1x2x5x7xf32> to tensor<1x2x3x5xf32>
  %e = tensor.empty() : tensor<1x2x3x5xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id, #ch, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t11, %t22, %w : tensor<1x2x3x5xf32>, tensor<1x2x3x5xf32>, tensor<1x2x3x5xf32>, tensor<2xf32>)
      outs(%e : tensor<1x2x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %0 = math.fma %a, %s, %zero : f32
    %1 = math.fma %b, %s, %0 : f32
    %2 = math.fma %c, %s, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<1x2x3x5xf32>
  return %0 : tensor<1x2x3x5xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// Rows of 3 fit half of 8 lanes with a lane to spare: two channels a
// vector, a forall over channel pairs. Channel 2c's row in lanes 0-2,
// channel 2c + 1's in lanes 4-6, lanes 3 and 7 the pad's zero; each half
// shifts on its own (the row's end brings in the zero, not the other
// channel), the per-channel weight is one vector of both, and each output
// row is written twice, from each half.
// CHECK-LABEL: func.func @paired_channels
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x3xf32>, %[[W:.*]]: tensor<2xf32>)
// CHECK-SAME: dlc.conv_kernels = ["pc: depthwise: 2 taps from rows of 3 read once, two channels a vector, and shifted in registers (8-lane rows, no padded copy)"]
// CHECK: scf.forall (%[[N:.*]], %[[P:.*]]) in (1, 1)
// CHECK: %[[C0:.*]] = arith.muli %[[P]], %c2
// CHECK: %[[C1:.*]] = arith.addi %[[C0]], %c1
// CHECK: %[[ZROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[W0:.*]] = tensor.extract %[[W]][%[[C0]]]
// CHECK: %[[W1:.*]] = tensor.extract %[[W]][%[[C1]]]
// CHECK: %[[WB0:.*]] = vector.broadcast %[[W0]]
// CHECK: %[[WB1:.*]] = vector.broadcast %[[W1]]
// CHECK: %[[WV:.*]] = vector.shuffle %[[WB0]], %[[WB1]] [0, 1, 2, 3, 12, 13, 14, 15]
// CHECK: %[[PLANE:.*]] = tensor.extract_slice %{{.*}}[%[[N]], %[[C0]], 0, 0] [1, 2, 3, 3]
// CHECK: %[[A:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C0]], %c1, %c0]{{.*}} : tensor<1x2x3x3xf32>, vector<3xf32>
// CHECK: %[[AW:.*]] = vector.insert_strided_slice %[[A]], %[[ZROW]] {offsets = [0], strides = [1]}
// CHECK: %[[B:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C1]], %c1, %c0]{{.*}} : tensor<1x2x3x3xf32>, vector<3xf32>
// CHECK: %[[ROW1:.*]] = vector.insert_strided_slice %[[B]], %[[AW]] {offsets = [4], strides = [1]}
// CHECK: %[[LEFT:.*]] = vector.shuffle %[[ROW1]], %[[ZROW]] [1, 2, 8, 8, 5, 6, 8, 8]
// CHECK: %[[S:.*]] = math.fma %[[LEFT]], %[[WV]], %{{.*}} : vector<8xf32>
// CHECK: %[[OUT0:.*]] = vector.extract_strided_slice %[[S]] {offsets = [0], sizes = [3], strides = [1]}
// CHECK: %[[P0:.*]] = vector.transfer_write %[[OUT0]], %[[PLANE]][%c0, %c0, %c0, %c0]
// CHECK: %[[OUT1:.*]] = vector.extract_strided_slice %[[S]] {offsets = [4], sizes = [3], strides = [1]}
// CHECK: vector.transfer_write %[[OUT1]], %[[P0]][%c0, %c1, %c0, %c0]
// Row 1's (0, 0) tap: row 0 shifted right, each half's lane 0 the zero.
// CHECK: vector.shuffle %{{.*}}, %[[ZROW]] [8, 0, 1, 2, 8, 4, 5, 6]
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[N]], %[[C0]], 0, 0] [1, 2, 3, 3]
func.func @paired_channels(%x: tensor<1x2x3x3xf32>, %w: tensor<2xf32>) -> tensor<1x2x3x3xf32>
    attributes {dlc.conv_kernels = ["pc: depthwise: 2 taps summed in one elementwise loop"]} {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x3x3xf32> to tensor<1x2x5x5xf32> loc("pc")
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x3x3xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 3, 3] [1, 1, 1, 1] : tensor<1x2x5x5xf32> to tensor<1x2x3x3xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #ch, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22, %w : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2xf32>)
      outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32, %o: f32):
    %0 = math.fma %a, %s, %zero : f32
    %1 = math.fma %c, %s, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Rows wider than a vector (9 > 8 lanes): each output row in pieces of 8
// and 1 lanes, each tap a shuffle of the aligned pieces around its shift
// (the (0, 0) tap's first piece one column left: lane 0 the pad's zero, the
// rest the row's first piece; the (2, 2) tap's second piece starts past
// the row and is the zero row). Rows 0 and 6, whose windows leave the
// input, are unrolled, and so is row 5, past the last whole block of four;
// rows 1 to 4 are one iteration of an scf.for of step 4 in which each input
// row's pieces are read once: row r + 1's first piece is the (2, 2) tap of
// row r and, shifted right, the (0, 0) tap of row r + 2. The iteration
// writes a piece column at a time: the four rows' first pieces, then their
// second ones (its taps die with their column, not with the block).
// CHECK-LABEL: func.func @wide_rows
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x7x9xf32>)
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%[[N:.*]], %[[C:.*]]) in (1, 2)
// CHECK: %[[ZROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// Row 0, first piece: the (2, 2) tap is row 1 from column 1, the row's
// column 8 in the second piece's lane 0.
// CHECK: %[[A:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %c1, %c0]{{.*}} : tensor<1x2x7x9xf32>, vector<8xf32>
// CHECK: %[[A8:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %c1, %c8]{{.*}} : tensor<1x2x7x9xf32>, vector<1xf32>
// CHECK: %[[AHI:.*]] = vector.insert_strided_slice %[[A8]], %[[ZROW]]
// CHECK: %[[AT:.*]] = vector.shuffle %[[A]], %[[AHI]] [1, 2, 3, 4, 5, 6, 7, 8]
// CHECK: arith.addf %[[ZROW]], %[[AT]] : vector<8xf32>
// Row 5, first piece: the (0, 0) tap is row 4 shifted right.
// CHECK: %[[B:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %c4, %c0]{{.*}} : tensor<1x2x7x9xf32>, vector<8xf32>
// CHECK: vector.shuffle %[[ZROW]], %[[B]] [7, 8, 9, 10, 11, 12, 13, 14]
// CHECK: vector.transfer_write %{{.*}}[%c0, %c0, %c5, %c0]
// CHECK: %[[ROWS:.*]] = scf.for %[[R:.*]] = %c1 to %c5 step %c4 iter_args(%[[P:.*]] = %{{.*}})
// CHECK: %[[ABOVE:.*]] = arith.addi %[[R]], %c-1
// CHECK: vector.transfer_read %[[X]][%[[N]], %[[C]], %[[ABOVE]], %c0]
// CHECK: %[[BELOW:.*]] = arith.addi %[[R]], %c1
// CHECK: %[[NEXT:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %[[BELOW]], %c0]
// CHECK: vector.transfer_write %{{.*}}, %[[P]][%c0, %c0, %[[R]], %c0]
// CHECK-NOT: vector.transfer_write {{.*}}, %c8]
// CHECK: vector.transfer_write %{{.*}}[%c0, %c0, %[[BELOW]], %c0]
// CHECK-NOT: vector.transfer_write {{.*}}, %c8]
// CHECK-NOT: vector.transfer_read %[[X]][%[[N]], %[[C]], %[[BELOW]], %c0]
// CHECK: vector.shuffle %[[ZROW]], %[[NEXT]] [7, 8, 9, 10, 11, 12, 13, 14]
// CHECK: %[[ROW3:.*]] = arith.addi %[[R]], %c3
// CHECK: vector.transfer_write %{{.*}}[%c0, %c0, %[[ROW3]], %c8]
// CHECK: scf.yield
// CHECK: tensor.parallel_insert_slice %[[ROWS]]
func.func @wide_rows(%x: tensor<1x2x7x9xf32>) -> tensor<1x2x7x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x7x9xf32> to tensor<1x2x9x11xf32>
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 7, 9] [1, 1, 1, 1] : tensor<1x2x9x11xf32> to tensor<1x2x7x9xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 7, 9] [1, 1, 1, 1] : tensor<1x2x9x11xf32> to tensor<1x2x7x9xf32>
  %e = tensor.empty() : tensor<1x2x7x9xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22 : tensor<1x2x7x9xf32>, tensor<1x2x7x9xf32>)
      outs(%e : tensor<1x2x7x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x7x9xf32>
  return %0 : tensor<1x2x7x9xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Stride 2 over rows of 8 (one vector): each input row that a tap reads
// (1, 3, 5, 7) is read once; the (2, 2) tap takes its odd lanes, the (0, 0)
// tap the same one lane right, lane 0 the pad's zero.
// CHECK-LABEL: func.func @stride_two
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x8xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[ZROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[R1:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c1, %c0]{{.*}} : tensor<1x2x8x8xf32>, vector<8xf32>
// CHECK: %[[ODD1:.*]] = vector.shuffle %[[R1]], %[[ZROW]] [1, 3, 5, 7, 8, 8, 8, 8]
// CHECK: arith.addf %[[ZROW]], %[[ODD1]]
// CHECK: %[[RIGHT1:.*]] = vector.shuffle %[[R1]], %[[ZROW]] [8, 1, 3, 5, 7, 8, 8, 8]
// CHECK: %[[R3:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c3, %c0]
// CHECK: %[[ODD3:.*]] = vector.shuffle %[[R3]], %[[ZROW]] [1, 3, 5, 7, 8, 8, 8, 8]
// CHECK: arith.addf %[[RIGHT1]], %[[ODD3]]
func.func @stride_two(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x10x10xf32> to tensor<1x2x4x4xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x10x10xf32> to tensor<1x2x4x4xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
      outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Stride 2 over rows of 6 (3 outputs, under half of 8 lanes; the row under
// a vector, with lanes to spare): two channels a vector, each channel's
// input row read into a vector of its own (lanes 6 and 7 the pad's zero),
// and one shuffle of the pair's two rows per tap: lanes 0-2 channel 2c's
// columns, lanes 4-6 channel 2c + 1's (8 + column), each half's columns
// outside the row from its own row's lane 6. The (2, 2) tap takes the odd
// columns, the (0, 0) tap the same one lane right.
// CHECK-LABEL: func.func @stride_two_paired
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x6xf32>)
// CHECK-SAME: dlc.conv_kernels = ["sp: depthwise: 2 taps at stride 2 from rows of 6 read once, two channels a vector, and shifted in registers (8-lane rows, no padded copy)"]
// CHECK: scf.forall (%[[N:.*]], %[[P:.*]]) in (1, 1)
// CHECK: %[[C0:.*]] = arith.muli %[[P]], %c2
// CHECK: %[[C1:.*]] = arith.addi %[[C0]], %c1
// CHECK: %[[ZROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[A:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C0]], %c1, %c0]{{.*}} : tensor<1x2x6x6xf32>, vector<6xf32>
// CHECK: %[[AV:.*]] = vector.insert_strided_slice %[[A]], %[[ZROW]] {offsets = [0], strides = [1]}
// CHECK: %[[B:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C1]], %c1, %c0]{{.*}} : tensor<1x2x6x6xf32>, vector<6xf32>
// CHECK: %[[BV:.*]] = vector.insert_strided_slice %[[B]], %[[ZROW]] {offsets = [0], strides = [1]}
// CHECK: %[[ODD1:.*]] = vector.shuffle %[[AV]], %[[BV]] [1, 3, 5, 6, 9, 11, 13, 14]
// CHECK: arith.addf %[[ZROW]], %[[ODD1]]
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [3], strides = [1]}
// CHECK: %[[RIGHT1:.*]] = vector.shuffle %[[AV]], %[[BV]] [6, 1, 3, 5, 14, 9, 11, 13]
// CHECK: vector.transfer_read %[[X]][%[[N]], %[[C0]], %c3, %c0]
// CHECK: vector.transfer_read %[[X]][%[[N]], %[[C1]], %c3, %c0]
// CHECK: %[[ODD3:.*]] = vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 6, 9, 11, 13, 14]
// CHECK: arith.addf %[[RIGHT1]], %[[ODD3]]
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[N]], %[[C0]], 0, 0] [1, 2, 3, 3]
func.func @stride_two_paired(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
    attributes {dlc.conv_kernels = ["sp: depthwise: 2 taps summed in one elementwise loop"]} {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32> loc("sp")
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x8x8xf32> to tensor<1x2x3x3xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x8x8xf32> to tensor<1x2x3x3xf32>
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
      outs(%e : tensor<1x2x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Stride 2 over rows of 20 (10 outputs: pieces of 8 and 2). A piece's 16
// columns are read once as two vectors; shift 0 takes their even lanes,
// shift 1 the odd ones, shift -1 the odd ones one lane right, lane 0 the
// pad's zero in the first piece and the first piece's column 15 in the
// second (its columns 16-19, then zeros).
// CHECK-LABEL: func.func @stride_two_wide
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x2x20xf32>)
// CHECK: %[[ZROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[LO:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}]{{.*}} vector<8xf32>
// CHECK: %[[HI:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c8{{.*}}]{{.*}} vector<8xf32>
// CHECK: %[[ODD:.*]] = vector.shuffle %[[LO]], %[[HI]] [1, 3, 5, 7, 9, 11, 13, 15]
// CHECK: %[[LEFT:.*]] = vector.shuffle %[[ODD]], %[[ZROW]] [8, 0, 1, 2, 3, 4, 5, 6]
// CHECK: %[[EVEN:.*]] = vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: %[[S:.*]] = arith.addf %[[LEFT]], %[[EVEN]]
// CHECK: arith.addf %[[S]], %[[ODD]]
// CHECK: %[[LAST:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c16{{.*}}]{{.*}} vector<4xf32>
// CHECK: %[[LO2:.*]] = vector.insert_strided_slice %[[LAST]], %[[ZROW]]
// CHECK: %[[ODD2:.*]] = vector.shuffle %[[LO2]], %[[ZROW]] [1, 3, 5, 7, 9, 11, 13, 15]
// CHECK: vector.shuffle %[[ODD2]], %[[HI]] [15, 0, 1, 2, 3, 4, 5, 6]
func.func @stride_two_wide(%x: tensor<1x1x2x20xf32>) -> tensor<1x1x1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x1x2x20xf32> to tensor<1x1x4x22xf32>
  %t0 = tensor.extract_slice %p[0, 0, 1, 0] [1, 1, 1, 10] [1, 1, 2, 2] : tensor<1x1x4x22xf32> to tensor<1x1x1x10xf32>
  %t1 = tensor.extract_slice %p[0, 0, 1, 1] [1, 1, 1, 10] [1, 1, 2, 2] : tensor<1x1x4x22xf32> to tensor<1x1x1x10xf32>
  %t2 = tensor.extract_slice %p[0, 0, 1, 2] [1, 1, 1, 10] [1, 1, 2, 2] : tensor<1x1x4x22xf32> to tensor<1x1x1x10xf32>
  %e = tensor.empty() : tensor<1x1x1x10xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t0, %t1, %t2 : tensor<1x1x1x10xf32>, tensor<1x1x1x10xf32>, tensor<1x1x1x10xf32>)
      outs(%e : tensor<1x1x1x10xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    %1 = arith.addf %0, %c : f32
    linalg.yield %1 : f32
  } -> tensor<1x1x1x10xf32>
  return %0 : tensor<1x1x1x10xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Stride 2 down 8 rows of 20 (4 output rows, a window of 3 rows, the
// middle column): output row 0 reaches above the input and is unrolled;
// rows 1-3 are a loop of one row a step, which reads input rows 2r and
// 2r + 1 and takes row 2r - 1's even lanes (both pieces) from the step
// before, where they were row 2r + 1's: the loop carries them, starting
// from input row 1's (read for output row 0).
// CHECK-LABEL: func.func @stride_two_carried
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x8x20xf32>)
// `dlc inspect`'s entry says so (strides 2 down and across: a 1-column
// window's taps are one column apart, so they count as stride 2 there too).
// CHECK-SAME: dlc.conv_kernels = ["sc: depthwise: 3 taps at stride 2 from rows of 20 read in 16-column pieces, even and odd columns split in registers, an output row a step, its last input row's taps kept for the next (8-lane rows, no padded copy)"]
// CHECK: %[[R1LO:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c1, %c0]
// CHECK: %[[R1HI:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c1, %c8]
// CHECK: %[[R1A:.*]] = vector.shuffle %[[R1LO]], %[[R1HI]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: %[[R1C:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %c1, %c16]
// CHECK: %[[R1CW:.*]] = vector.insert_strided_slice %[[R1C]]
// CHECK: %[[R1B:.*]] = vector.shuffle %[[R1CW]], %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: scf.for %[[R:.*]] = %c1 to %c4 step %c1 iter_args(%[[P:.*]] = %{{.*}}, %[[UPA:.*]] = %[[R1A]], %[[UPB:.*]] = %[[R1B]])
// CHECK: %[[Y:.*]] = arith.muli %[[R]], %c2
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %[[Y]], %c0]
// CHECK: %[[Y1:.*]] = arith.addi %[[Y]], %c1
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %[[Y1]], %c0]
// CHECK: %[[DOWNA:.*]] = vector.shuffle
// CHECK: arith.addf %[[UPA]],
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %[[Y]], %c16]
// CHECK: %[[Y1C:.*]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %[[Y1]], %c16]
// CHECK: %[[Y1CW:.*]] = vector.insert_strided_slice %[[Y1C]]
// CHECK: %[[DOWNB:.*]] = vector.shuffle %[[Y1CW]]
// CHECK: arith.addf %[[UPB]],
// CHECK: scf.yield %{{.*}}, %[[DOWNA]], %[[DOWNB]]
func.func @stride_two_carried(%x: tensor<1x1x8x20xf32>) -> tensor<1x1x4x10xf32>
    attributes {dlc.conv_kernels = ["sc: depthwise: 3 taps summed in one elementwise loop"]} {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x1x8x20xf32> to tensor<1x1x10x22xf32> loc("sc")
  %t0 = tensor.extract_slice %p[0, 0, 0, 1] [1, 1, 4, 10] [1, 1, 2, 2] : tensor<1x1x10x22xf32> to tensor<1x1x4x10xf32>
  %t1 = tensor.extract_slice %p[0, 0, 1, 1] [1, 1, 4, 10] [1, 1, 2, 2] : tensor<1x1x10x22xf32> to tensor<1x1x4x10xf32>
  %t2 = tensor.extract_slice %p[0, 0, 2, 1] [1, 1, 4, 10] [1, 1, 2, 2] : tensor<1x1x10x22xf32> to tensor<1x1x4x10xf32>
  %e = tensor.empty() : tensor<1x1x4x10xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t0, %t1, %t2 : tensor<1x1x4x10xf32>, tensor<1x1x4x10xf32>, tensor<1x1x4x10xf32>)
      outs(%e : tensor<1x1x4x10xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    %1 = arith.addf %0, %c : f32
    linalg.yield %1 : f32
  } -> tensor<1x1x4x10xf32>
  return %0 : tensor<1x1x4x10xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A pad as deep as the window (3 rows above a window of 3 rows, which ONNX
// allows): output row 0's window lies wholly in the padding. Left as it is
// (the padded copy), as the rows whose window reaches outside the input are
// unrolled: a pool with pads of 1000 had its compile run for minutes.
// CHECK-LABEL: func.func @pad_past_window
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x5xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 3, 1] high[0, 0, 1, 1]
// CHECK: %[[T00:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 2, 6, 5]
// CHECK: %[[T22:.*]] = tensor.extract_slice %[[P]][0, 0, 2, 2] [1, 2, 6, 5]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T00]], %[[T22]] :
// CHECK-NOT: scf.forall
func.func @pad_past_window(%x: tensor<1x2x3x5xf32>) -> tensor<1x2x6x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x3x5xf32> to tensor<1x2x7x7xf32>
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 6, 5] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x6x5xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 6, 5] [1, 1, 1, 1] : tensor<1x2x7x7xf32> to tensor<1x2x6x5xf32>
  %e = tensor.empty() : tensor<1x2x6x5xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22 : tensor<1x2x6x5xf32>, tensor<1x2x6x5xf32>)
      outs(%e : tensor<1x2x6x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x6x5xf32>
  return %0 : tensor<1x2x6x5xf32>
}
