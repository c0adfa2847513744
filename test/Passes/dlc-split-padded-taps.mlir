// RUN: %dlc-opt %s --dlc-split-padded-taps --split-input-file | FileCheck %s
// RUN: %dlc-opt %s --dlc-split-padded-taps=min-stride=1 --split-input-file | FileCheck %s --check-prefix=STRIDE1

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// Two stride-2 taps of a zero pad (window corners (0, 0) and (2, 2)) over an
// 8x8 map: the tap at (0, 0) falls on the frame for the first output row and
// column only, the one at (2, 2) never. Four regions: the corner, the first
// row, the first column and the interior, each the same body on slices of
// the unpadded input; the outside tap reads the pad's zeros per channel.
// CHECK-LABEL: func.func @stride_two
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x8xf32>, %[[W:.*]]: tensor<2xf32>)
// CHECK-DAG: %[[PADV:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[OUT:.*]] = tensor.empty() : tensor<1x2x4x4xf32>
// CHECK-NOT: tensor.pad
// Corner: only the (2, 2) tap, at source (1, 1).
// CHECK: %[[C22:.*]] = tensor.extract_slice %[[X]][0, 0, 1, 1] [1, 2, 1, 1] [1, 1, 2, 2]
// CHECK: %[[CD:.*]] = tensor.extract_slice %[[OUT]][0, 0, 0, 0] [1, 2, 1, 1] [1, 1, 1, 1]
// CHECK: %[[CR:.*]] = linalg.generic {indexing_maps = [#[[CH:map[0-9]*]], #[[ID:map[0-9]*]], #[[CH]], #[[ID]]]
// CHECK-SAME: ins(%[[PADV]], %[[C22]], %[[W]] : tensor<2xf32>, tensor<1x2x1x1xf32>, tensor<2xf32>)
// CHECK-SAME: outs(%[[CD]] : tensor<1x2x1x1xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[CR]] into %[[OUT]][0, 0, 0, 0] [1, 2, 1, 1]
// First row: columns 1..3.
// CHECK: %[[T22:.*]] = tensor.extract_slice %[[X]][0, 0, 1, 3] [1, 2, 1, 3] [1, 1, 2, 2]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[PADV]], %[[T22]], %[[W]] :
// CHECK: %[[R2:.*]] = tensor.insert_slice %{{.*}} into %[[R1]][0, 0, 0, 1] [1, 2, 1, 3]
// First column: rows 1..3.
// CHECK: %[[L22:.*]] = tensor.extract_slice %[[X]][0, 0, 3, 1] [1, 2, 3, 1] [1, 1, 2, 2]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[PADV]], %[[L22]], %[[W]] :
// CHECK: %[[R3:.*]] = tensor.insert_slice %{{.*}} into %[[R2]][0, 0, 1, 0] [1, 2, 3, 1]
// Interior: both taps inside, at (1, 1) and (3, 3), through identity maps.
// CHECK: %[[I00:.*]] = tensor.extract_slice %[[X]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[I22:.*]] = tensor.extract_slice %[[X]][0, 0, 3, 3] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[IR:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[CH]], #[[ID]]]
// CHECK-SAME: ins(%[[I00]], %[[I22]], %[[W]] :
// CHECK: math.fma
// CHECK: math.fma
// CHECK: %[[R4:.*]] = tensor.insert_slice %[[IR]] into %[[R3]][0, 0, 1, 1] [1, 2, 3, 3]
// CHECK: return %[[R4]]
// At stride 1 by default the pad stays.
// STRIDE1-LABEL: func.func @stride_two
// STRIDE1-NOT: tensor.pad
func.func @stride_two(%x: tensor<1x2x8x8xf32>, %w: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x10x10xf32> to tensor<1x2x4x4xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 2, 4, 4] [1, 1, 2, 2] : tensor<1x2x10x10xf32> to tensor<1x2x4x4xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #ch, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22, %w : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<2xf32>)
      outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %o: f32):
    %0 = math.fma %a, %s, %zero : f32
    %1 = math.fma %b, %s, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Stride 1 (a 3-wide window's first and last taps): left padded by default;
// with min-stride=1, nine regions (frame rows, columns and corners each one
// element wide). A max pool's -inf is what an outside tap reads.
// CHECK-LABEL: func.func @stride_one
// CHECK: tensor.pad
// CHECK-NOT: tensor.insert_slice
// STRIDE1-LABEL: func.func @stride_one
// STRIDE1: arith.constant dense<0xFF800000> : tensor<3xf32>
// STRIDE1-NOT: tensor.pad
// STRIDE1-COUNT-9: linalg.generic
// STRIDE1-NOT: linalg.generic
func.func @stride_one(%x: tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x3x6x6xf32> to tensor<1x3x8x8xf32>
  %t00 = tensor.extract_slice %p[0, 0, 0, 0] [1, 3, 6, 6] [1, 1, 1, 1] : tensor<1x3x8x8xf32> to tensor<1x3x6x6xf32>
  %t22 = tensor.extract_slice %p[0, 0, 2, 2] [1, 3, 6, 6] [1, 1, 1, 1] : tensor<1x3x8x8xf32> to tensor<1x3x6x6xf32>
  %e = tensor.empty() : tensor<1x3x6x6xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t00, %t22 : tensor<1x3x6x6xf32>, tensor<1x3x6x6xf32>)
      outs(%e : tensor<1x3x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.maximumf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<1x3x6x6xf32>
  return %0 : tensor<1x3x6x6xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A body that reads its iteration indices keeps the padded taps: a region
// would see its own indices from 0.
// CHECK-LABEL: func.func @reads_indices
// CHECK: tensor.pad
// STRIDE1-LABEL: func.func @reads_indices
// STRIDE1: tensor.pad
// CHECK: linalg.index
// CHECK-NOT: tensor.insert_slice
func.func @reads_indices(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
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
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %a, %b : f32
    %r = arith.addf %s, %f : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}
