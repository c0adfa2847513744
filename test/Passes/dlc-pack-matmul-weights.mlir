// RUN: %dlc-opt %s --split-input-file --dlc-pack-matmul-weights=lanes=16 | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-pack-matmul-weights="lanes=16 matvec-panel-vectors=8" | FileCheck %s --check-prefix=WIDE

// A constant weight [64, 32] becomes two column panels [2, 64, 16]; the
// matmul a generic over (m, panel, lane, k) writing the output viewed as
// [8, 2, 16].
// CHECK-DAG: #[[$AMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-DAG: #[[$WMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
// CHECK-DAG: #[[$CMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_panels
// CHECK-SAME: (%[[A:.*]]: tensor<8x64xf32>, %[[C:.*]]: tensor<8x32xf32>)
// CHECK: %[[WP:.*]] = arith.constant dense_resource<packed_weight{{.*}}> : tensor<2x64x16xf32>
// CHECK: %[[C3:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] {{.*}} into tensor<8x2x16xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[$AMAP]], #[[$WMAP]], #[[$CMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[WP]] : tensor<8x64xf32>, tensor<2x64x16xf32>) outs(%[[C3]] : tensor<8x2x16xf32>)
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] {{.*}} into tensor<8x32xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul_panels(%a: tensor<8x64xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %w = arith.constant dense<0.5> : tensor<64x32xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A matrix-vector product (one row) takes one-vector panels (matvec-lanes,
// 8 by default): [64, 40] becomes [5, 64, 8].
// CHECK-LABEL: func.func @matvec_panels
// CHECK: %[[WP:.*]] = arith.constant dense_resource<packed_weight{{.*}}> : tensor<5x64x8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[WP]] : tensor<1x64xf32>, tensor<5x64x8xf32>) outs(%{{.*}} : tensor<1x5x8xf32>)
// CHECK-NOT: linalg.matmul
func.func @matvec_panels(%v: tensor<1x64xf32>, %c: tensor<1x40xf32>) -> tensor<1x40xf32> {
  %k = arith.constant dense<0.5> : tensor<64x40xf32>
  %0 = linalg.matmul ins(%v, %k : tensor<1x64xf32>, tensor<64x40xf32>) outs(%c : tensor<1x40xf32>) -> tensor<1x40xf32>
  return %0 : tensor<1x40xf32>
}

// -----

// A width that is a multiple of one vector (matvec-lanes, 8) but not of the
// register tile's lanes (16): one-vector panels, [64, 24] as [3, 64, 8].
// CHECK-LABEL: func.func @one_vector_panels
// CHECK: %[[WP:.*]] = arith.constant dense_resource<packed_weight{{.*}}> : tensor<3x64x8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[WP]] : tensor<8x64xf32>, tensor<3x64x8xf32>) outs(%{{.*}} : tensor<8x3x8xf32>)
// CHECK-NOT: linalg.matmul
func.func @one_vector_panels(%a: tensor<8x64xf32>, %c: tensor<8x24xf32>) -> tensor<8x24xf32> {
  %k = arith.constant dense<0.5> : tensor<64x24xf32>
  %0 = linalg.matmul ins(%a, %k : tensor<8x64xf32>, tensor<64x24xf32>) outs(%c : tensor<8x24xf32>) -> tensor<8x24xf32>
  return %0 : tensor<8x24xf32>
}

// -----

// A width within an eighth of a multiple of the lanes (a classifier's 1000
// outputs; here 100, matvec-lanes 8) is padded with zero columns to 13
// panels. The product then starts from zeros over 104 columns, and C is
// added to its first 100.
// CHECK-LABEL: func.func @padded_panels
// CHECK-SAME: (%[[V:.*]]: tensor<1x64xf32>, %[[C:.*]]: tensor<1x100xf32>)
// CHECK: %[[WP:.*]] = arith.constant dense_resource<packed_weight{{.*}}> : tensor<13x64x8xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x104xf32>)
// CHECK: %[[Z3:.*]] = tensor.expand_shape %[[ZERO]] {{\[}}[0], [1, 2]] {{.*}} into tensor<1x13x8xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[V]], %[[WP]] : tensor<1x64xf32>, tensor<13x64x8xf32>) outs(%[[Z3]] : tensor<1x13x8xf32>)
// CHECK: %[[G2:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] {{.*}} into tensor<1x104xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[G2]][0, 0] [1, 100] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[C]] : tensor<1x100xf32>, tensor<1x100xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.matmul
func.func @padded_panels(%v: tensor<1x64xf32>, %c: tensor<1x100xf32>) -> tensor<1x100xf32> {
  %k = arith.constant dense<0.5> : tensor<64x100xf32>
  %0 = linalg.matmul ins(%v, %k : tensor<1x64xf32>, tensor<64x100xf32>) outs(%c : tensor<1x100xf32>) -> tensor<1x100xf32>
  return %0 : tensor<1x100xf32>
}

// -----

// Left alone: a matrix-vector product whose width is under two panels and
// would be over an eighth padding (10), a weight that is not a constant, a
// width that is not within an eighth of a multiple of the lanes (20 of 32).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: linalg.matmul
func.func @left_alone(%v: tensor<1x64xf32>, %a: tensor<8x64xf32>, %w: tensor<64x32xf32>,
                      %c1: tensor<1x10xf32>, %c: tensor<8x32xf32>, %c20: tensor<8x20xf32>)
    -> (tensor<1x10xf32>, tensor<8x32xf32>, tensor<8x20xf32>) {
  %k10 = arith.constant dense<0.5> : tensor<64x10xf32>
  %k20 = arith.constant dense<0.5> : tensor<64x20xf32>
  %0 = linalg.matmul ins(%v, %k10 : tensor<1x64xf32>, tensor<64x10xf32>) outs(%c1 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %1 = linalg.matmul ins(%a, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%a, %k20 : tensor<8x64xf32>, tensor<64x20xf32>) outs(%c20 : tensor<8x20xf32>) -> tensor<8x20xf32>
  return %0, %1, %2 : tensor<1x10xf32>, tensor<8x32xf32>, tensor<8x20xf32>
}

// -----

// With matvec-panel-vectors=8 a matrix-vector product's panels are the
// widest of 8, 4, 2 vectors that pad within an eighth: 256 outputs as 4
// panels of 64 lanes (one contiguous run a k step for a register tile of 8
// vectors), 84 outputs as 11 one-vector panels (96 would pad 12).
// WIDE-LABEL: func.func @wide_matvec_panels
// WIDE: %[[W64:.*]] = arith.constant dense_resource<packed_weight{{.*}}> : tensor<4x32x64xf32>
// WIDE: linalg.generic {{.*}} ins(%{{.*}}, %[[W64]] : tensor<1x32xf32>, tensor<4x32x64xf32>) outs(%{{.*}} : tensor<1x4x64xf32>)
// WIDE: %[[W8:.*]] = arith.constant dense_resource<packed_weight{{.*}}> : tensor<11x32x8xf32>
// WIDE: linalg.generic {{.*}} ins(%{{.*}}, %[[W8]] : tensor<1x32xf32>, tensor<11x32x8xf32>) outs(%{{.*}} : tensor<1x11x8xf32>)
// WIDE-NOT: linalg.matmul
func.func @wide_matvec_panels(%v: tensor<1x32xf32>, %c: tensor<1x256xf32>, %d: tensor<1x84xf32>) -> (tensor<1x256xf32>, tensor<1x84xf32>) {
  %k = arith.constant dense<0.5> : tensor<32x256xf32>
  %0 = linalg.matmul ins(%v, %k : tensor<1x32xf32>, tensor<32x256xf32>) outs(%c : tensor<1x256xf32>) -> tensor<1x256xf32>
  %j = arith.constant dense<0.25> : tensor<32x84xf32>
  %1 = linalg.matmul ins(%v, %j : tensor<1x32xf32>, tensor<32x84xf32>) outs(%d : tensor<1x84xf32>) -> tensor<1x84xf32>
  return %0, %1 : tensor<1x256xf32>, tensor<1x84xf32>
}
