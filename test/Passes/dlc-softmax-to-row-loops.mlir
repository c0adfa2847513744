// RUN: %dlc-opt %s --dlc-softmax-to-row-loops=vector-width=8 --split-input-file | FileCheck %s

// A Softmax over the last dim: one forall iteration a row. 77 elements at 8
// lanes go as two chunks of four vectors (64, an scf.for whose vector
// partial is reduced once after it), one of a vector (8, inline) and one
// per set bit of the rest (4, 1), every read in bounds. The max, then
// exp(x - max) written to the output row with its sum, then the row times
// 1 / sum.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<3x77xf32>)
// CHECK: %[[Y:.*]] = scf.forall (%[[ROW:.*]]) in (3) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<3x77xf32>)
// CHECK: %[[OUTROW:.*]] = tensor.extract_slice %[[OUT]][%[[ROW]], 0] [1, 77] [1, 1]
// The max as compare and select (one vmaxps), its lanes as a tree of halves.
// CHECK: %[[MAXV:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<32xf32>)
// CHECK: %[[V:.*]] = vector.transfer_read %[[X]][%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<3x77xf32>, vector<32xf32>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[ACC]] : vector<32xf32>
// CHECK: arith.select %[[GT]], %[[V]], %[[ACC]]
// CHECK: %[[LO:.*]] = vector.extract_strided_slice %[[MAXV]] {offsets = [0], sizes = [16]
// CHECK: %[[HI:.*]] = vector.extract_strided_slice %[[MAXV]] {offsets = [16], sizes = [16]
// CHECK: arith.cmpf ogt, %[[HI]], %[[LO]] : vector<16xf32>
// CHECK: vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK: vector.transfer_read %[[X]][%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<3x77xf32>, vector<8xf32>
// CHECK: vector.transfer_read %[[X]][%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<3x77xf32>, vector<4xf32>
// CHECK: vector.transfer_read %[[X]][%[[ROW]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<3x77xf32>, vector<1xf32>
// CHECK: %[[EXP:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[OUTROW]]) -> (vector<32xf32>, tensor<1x77xf32>)
// CHECK: math.fma
// CHECK: arith.select
// CHECK: vector.transfer_write
// CHECK: %[[INV:.*]] = arith.divf
// CHECK: %[[SCALED:.*]] = scf.for {{.*}} -> (tensor<1x77xf32>)
// CHECK: arith.mulf
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[ROW]], 0] [1, 77] [1, 1]
// CHECK: return %[[Y]]
func.func @softmax(%x: tensor<3x77xf32>) -> tensor<3x77xf32> {
  %y = dlc.softmax %x {axis = 1 : i64, coerce_2d = false} : tensor<3x77xf32>
  return %y : tensor<3x77xf32>
}

// -----

// LogSoftmax with coerce_2d at axis 1 of [2, 4, 16]: rows of 64 (two
// chunks of four vectors); the sum of exp(x - max) writes nothing, and the output
// is x - (max + log(sum)).
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[FLAT]] {{.*}} into tensor<2x64xf32>
// CHECK: scf.forall (%[[ROW:.*]]) in (2)
// CHECK: arith.select
// CHECK: %[[SUMV:.*]] = scf.for {{.*}} -> (vector<32xf32>) {
// CHECK-NOT: vector.transfer_write
// CHECK: vector.extract_strided_slice %[[SUMV]] {offsets = [16], sizes = [16]
// CHECK: arith.addf %{{.*}} : vector<16xf32>
// CHECK: %[[LOG:.*]] = math.log
// CHECK: %[[OFFSET:.*]] = arith.addf %{{.*}}, %[[LOG]]
// CHECK: vector.transfer_read %[[ROWS]]
// CHECK: arith.subf
// CHECK: vector.transfer_write
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape {{.*}} into tensor<2x4x16xf32>
func.func @log_softmax(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %y = dlc.log_softmax %x {axis = 1 : i64, coerce_2d = true} : tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// Over an outer dim, or on f16: left to dlc-lower-to-linalg.
// CHECK-LABEL: func.func @outer_axis
// CHECK: dlc.softmax
// CHECK: dlc.log_softmax
// CHECK-NOT: scf.forall
func.func @outer_axis(%x: tensor<4x6xf32>, %h: tensor<4x6xf16>) -> (tensor<4x6xf32>, tensor<4x6xf16>) {
  %y = dlc.softmax %x {axis = 0 : i64, coerce_2d = false} : tensor<4x6xf32>
  %z = dlc.log_softmax %h {axis = 1 : i64, coerce_2d = false} : tensor<4x6xf16>
  return %y, %z : tensor<4x6xf32>, tensor<4x6xf16>
}

// RUN: not %dlc-opt %s --dlc-softmax-to-row-loops=vector-width=6 --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: dlc-softmax-to-row-loops: vector-width must be a power of two, got 6
