// RUN: %dlc-opt %s --split-input-file --dlc-prefetch-gemm-operands | FileCheck %s
// RUN: %dlc-opt %s --split-input-file --dlc-prefetch-gemm-operands='distance-bytes=0 column-steps=0 epilogue-tiles=false next-panel=false' | FileCheck %s --check-prefix=OFF
// RUN: %dlc-opt %s --split-input-file --dlc-prefetch-gemm-operands='column-tiles-ahead=0' | FileCheck %s --check-prefix=KSTEPS
// RUN: %dlc-opt %s --split-input-file --dlc-prefetch-gemm-operands='next-tile-max-steps=0' | FileCheck %s --check-prefix=NOTILE

// A register tile's k loop over a packed filter panel (a global, 6 floats
// = 24 bytes a k step): the panel's read gets a prefetch 4096 bytes on,
// ceil(4096 / 24) = 171 steps; the packed columns (not a weight, 64 bytes a
// step) get none.
// CHECK-LABEL: func.func @panel_gemm
// CHECK-SAME: (%[[COLS:.*]]: memref<256x16xf32>, %[[PANEL:.*]]: index, %[[OUT:.*]]: memref<6x16xf32>)
// CHECK: %[[W:.*]] = memref.get_global @filter
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c171
// CHECK-NEXT: memref.prefetch %[[W]][%[[PANEL]], %[[AHEAD]], %c0], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[W]][%[[PANEL]], %[[K]], %c0]
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
// OFF-LABEL: func.func @panel_gemm
// OFF-NOT: memref.prefetch
memref.global "private" constant @filter : memref<43x256x6xf32> = dense<1.0>
func.func @panel_gemm(%cols: memref<256x16xf32>, %panel: index, %out: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  %w = memref.get_global @filter : memref<43x256x6xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
    %x = vector.transfer_read %w[%panel, %k, %c0], %z {in_bounds = [true, true]} : memref<43x256x6xf32>, vector<1x6xf32>
    %y = vector.transfer_read %cols[%k, %c0], %z {in_bounds = [true, true]} : memref<256x16xf32>, vector<1x16xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
    scf.yield %c : vector<6x16xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32>
  return
}

// -----

// Through a view (a transposed panel's subview), the stride of the k dim
// comes from the view's layout: 16 floats = 64 bytes, 64 steps ahead.
// CHECK-LABEL: func.func @panel_through_view
// CHECK: %[[W:.*]] = memref.get_global @wide
// CHECK: %[[V:.*]] = memref.subview %[[W]]
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c64
// CHECK-NEXT: memref.prefetch %[[V]][%[[AHEAD]], %c0], read, locality<3>, data
memref.global "private" constant @wide : memref<8x512x16xf32> = dense<1.0>
func.func @panel_through_view(%cols: memref<512x5xf32>, %p: index, %out: memref<5x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<5x16xf32>
  %w = memref.get_global @wide : memref<8x512x16xf32>
  %v = memref.subview %w[%p, 0, 0] [1, 512, 16] [1, 1, 1] : memref<8x512x16xf32> to memref<512x16xf32, strided<[16, 1], offset: ?>>
  %r = scf.for %k = %c0 to %c512 step %c1 iter_args(%acc = %zero) -> (vector<5x16xf32>) {
    %x = vector.transfer_read %v[%k, %c0], %z {in_bounds = [true, true]} : memref<512x16xf32, strided<[16, 1], offset: ?>>, vector<1x16xf32>
    %y = vector.transfer_read %cols[%k, %c0], %z {in_bounds = [true, true]} : memref<512x5xf32>, vector<1x5xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x16xf32>, vector<1x5xf32> into vector<5x16xf32>
    scf.yield %c : vector<5x16xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<5x16xf32>, memref<5x16xf32>
  return
}

// -----

// A loop that contracts nothing (an elementwise pass over a weight) is no
// register tile: no prefetch.
// CHECK-LABEL: func.func @not_a_register_tile
// CHECK-NOT: memref.prefetch
memref.global "private" constant @bias : memref<256x8xf32> = dense<1.0>
func.func @not_a_register_tile(%out: memref<256x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %w = memref.get_global @bias : memref<256x8xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (vector<8xf32>) {
    %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true]} : memref<256x8xf32>, vector<8xf32>
    %s = arith.addf %x, %acc : vector<8xf32>
    scf.yield %s : vector<8xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true]} : vector<8xf32>, memref<256x8xf32>
  return
}

// -----

// Columns read in place, rows 3136 floats apart (a 1x1 conv's activation):
// each k step is another line, prefetched 16 steps ahead; the weight panel
// too.
// CHECK-LABEL: func.func @strided_columns
// CHECK-SAME: (%[[ACT:[^:]*]]: memref<256x3136xf32>, %[[PX:[^:]*]]: index
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: memref.prefetch %{{.*}}[%{{.*}}, %{{.*}}, %c0], read
// CHECK: vector.transfer_read
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c16
// CHECK-NEXT: memref.prefetch %[[ACT]][%[[AHEAD]], %[[PX]]], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[ACT]][%[[K]], %[[PX]]]
// OFF-LABEL: func.func @strided_columns
// OFF-NOT: memref.prefetch
memref.global "private" constant @filter2 : memref<22x256x6xf32> = dense<1.0>
func.func @strided_columns(%act: memref<256x3136xf32>, %px: index, %panel: index, %out: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  %w = memref.get_global @filter2 : memref<22x256x6xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
    %x = vector.transfer_read %w[%panel, %k, %c0], %z {in_bounds = [true, true]} : memref<22x256x6xf32>, vector<1x6xf32>
    %y = vector.transfer_read %act[%k, %px], %z {in_bounds = [true, true]} : memref<256x3136xf32>, vector<1x16xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
    scf.yield %c : vector<6x16xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32>
  return
}

// -----

// The same columns over a short k loop (16 channels, fewer than twice the
// 16 steps ahead): the prefetch reads the same row 2 column tiles (2 x 16
// floats) further along instead; column-tiles-ahead=0 keeps k steps.
// CHECK-LABEL: func.func @short_k_columns
// CHECK-SAME: (%[[ACT:[^:]*]]: memref<16x12544xf32>, %[[PX:[^:]*]]: index
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: %[[NEXT:.*]] = arith.addi %[[PX]], %c32
// CHECK-NEXT: memref.prefetch %[[ACT]][%[[K]], %[[NEXT]]], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[ACT]][%[[K]], %[[PX]]]
// KSTEPS-LABEL: func.func @short_k_columns
// KSTEPS: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c16
// KSTEPS-NEXT: memref.prefetch %{{.*}}[%[[AHEAD]], %{{.*}}], read
func.func @short_k_columns(%act: memref<16x12544xf32>, %px: index, %w: memref<16x6xf32>, %out: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
    %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<16x6xf32>, vector<1x6xf32>
    %y = vector.transfer_read %act[%k, %px], %z {in_bounds = [true, true]} : memref<16x12544xf32>, vector<1x16xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
    scf.yield %c : vector<6x16xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32>
  return
}

// -----

// 32 channels, exactly twice the 16 steps ahead, are short too: k steps
// ahead, the prefetches of the loop's second half would land past its rows.
// CHECK-LABEL: func.func @thirty_two_k_columns
// CHECK-SAME: (%[[ACT:[^:]*]]: memref<32x12544xf32>, %[[PX:[^:]*]]: index
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: %[[NEXT:.*]] = arith.addi %[[PX]], %c32
// CHECK-NEXT: memref.prefetch %[[ACT]][%[[K]], %[[NEXT]]], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[ACT]][%[[K]], %[[PX]]]
func.func @thirty_two_k_columns(%act: memref<32x12544xf32>, %px: index, %w: memref<32x6xf32>, %out: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
    %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<32x6xf32>, vector<1x6xf32>
    %y = vector.transfer_read %act[%k, %px], %z {in_bounds = [true, true]} : memref<32x12544xf32>, vector<1x16xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
    scf.yield %c : vector<6x16xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32>
  return
}

// -----

// A 96-step k loop inside a loop over column tiles (a 1x1 conv's 96
// channels, 16 pixels a tile): the line each step reads next is the same
// row's in the next tile (16 floats on), which the outer loop reads next;
// 16 steps ahead would miss each tile's first 16 rows. The same loop over
// 256 channels (more than next-tile-max-steps) keeps k steps, and so does
// next-tile-max-steps=0.
// CHECK-LABEL: func.func @next_column_tile
// CHECK-SAME: (%[[ACT:[^:]*]]: memref<256x3136xf32>
// CHECK: scf.for %[[T:.*]] = %c0 to %c3136 step %c16
// CHECK: scf.for %[[K:.*]] = %c0 to %c96 step %c1 iter_args
// CHECK: %[[NEXT:.*]] = arith.addi %[[T]], %c16
// CHECK-NEXT: memref.prefetch %[[ACT]][%[[K]], %[[NEXT]]], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[ACT]][%[[K]], %[[T]]]
// CHECK: scf.for %[[T2:.*]] = %c0 to %c3136 step %c16
// CHECK: scf.for %[[K2:.*]] = %c0 to %c256 step %c1 iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K2]], %c16
// CHECK-NEXT: memref.prefetch %[[ACT]][%[[AHEAD]], %[[T2]]], read, locality<3>, data
// NOTILE-LABEL: func.func @next_column_tile
// NOTILE: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c16
// NOTILE-NEXT: memref.prefetch %{{.*}}[%[[AHEAD]], %{{.*}}], read
func.func @next_column_tile(%act: memref<256x3136xf32>, %w: memref<256x6xf32>, %out: memref<6x3136xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c96 = arith.constant 96 : index
  %c256 = arith.constant 256 : index
  %c3136 = arith.constant 3136 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  scf.for %t = %c0 to %c3136 step %c16 {
    %r = scf.for %k = %c0 to %c96 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
      %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<256x6xf32>, vector<1x6xf32>
      %y = vector.transfer_read %act[%k, %t], %z {in_bounds = [true, true]} : memref<256x3136xf32>, vector<1x16xf32>
      %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
      scf.yield %c : vector<6x16xf32>
    }
    vector.transfer_write %r, %out[%c0, %t] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x3136xf32>
  }
  scf.for %t = %c0 to %c3136 step %c16 {
    %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
      %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<256x6xf32>, vector<1x6xf32>
      %y = vector.transfer_read %act[%k, %t], %z {in_bounds = [true, true]} : memref<256x3136xf32>, vector<1x16xf32>
      %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
      scf.yield %c : vector<6x16xf32>
    }
    vector.transfer_write %r, %out[%c0, %t] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x3136xf32>
  }
  return
}

// -----

// The epilogue's residual tile (6 rows 3136 floats apart, a line each) is
// prefetched before the k loop, a prefetch per row, at its column computed
// again before the loop (the epilogue computed it after).
// CHECK-LABEL: func.func @epilogue_residual
// CHECK-SAME: (%[[RES:[^:]*]]: memref<6x3136xf32>, %[[T:[^:]*]]: index
// CHECK: %[[PX0:.*]] = affine.apply #{{.*}}()[%[[T]]]
// CHECK: memref.prefetch %[[RES]][%c0, %[[PX0]]]
// CHECK: %[[R1:.*]] = arith.addi %c0, %c1
// CHECK: memref.prefetch %[[RES]][%[[R1]], %[[PX0]]]
// CHECK-COUNT-4: memref.prefetch %[[RES]]
// CHECK-NOT: memref.prefetch %[[RES]]
// CHECK: scf.for
// CHECK: %[[PX:.*]] = affine.apply
// CHECK: vector.transfer_read %[[RES]][%c0, %[[PX]]]
// OFF-LABEL: func.func @epilogue_residual
// OFF-NOT: memref.prefetch
memref.global "private" constant @filter3 : memref<256x6xf32> = dense<1.0>
func.func @epilogue_residual(%res: memref<6x3136xf32>, %t: index, %cols: memref<256x16xf32>, %out: memref<6x3136xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x16xf32>
  %w = memref.get_global @filter3 : memref<256x6xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (vector<6x16xf32>) {
    %x = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<256x6xf32>, vector<1x6xf32>
    %y = vector.transfer_read %cols[%k, %c0], %z {in_bounds = [true, true]} : memref<256x16xf32>, vector<1x16xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
    scf.yield %c : vector<6x16xf32>
  }
  %px = affine.apply affine_map<()[s0] -> (s0 * 16)>()[%t]
  %skip = vector.transfer_read %res[%c0, %px], %z {in_bounds = [true, true]} : memref<6x3136xf32>, vector<6x16xf32>
  %sum = arith.addf %r, %skip : vector<6x16xf32>
  vector.transfer_write %sum, %out[%c0, %px] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x3136xf32>
  return
}

// -----

// Rows of 14 floats (a transposed tile's 14 pixels, 56 bytes at 56-byte
// steps) mostly end in another line than they start in: each row gets a
// prefetch of its first and of its last element.
// CHECK-LABEL: func.func @epilogue_partial_line_rows
// CHECK-SAME: (%[[RES:[^:]*]]: memref<2x196xf32>, %[[T:[^:]*]]: index
// CHECK: %[[PX0:.*]] = affine.apply #{{.*}}()[%[[T]]]
// CHECK: memref.prefetch %[[RES]][%c0, %[[PX0]]]
// CHECK: %[[LAST0:.*]] = arith.addi %[[PX0]], %c13
// CHECK: memref.prefetch %[[RES]][%c0, %[[LAST0]]]
// CHECK: %[[R1:.*]] = arith.addi %c0, %c1
// CHECK: memref.prefetch %[[RES]][%[[R1]], %[[PX0]]]
// CHECK: %[[LAST1:.*]] = arith.addi %[[PX0]], %c13
// CHECK: memref.prefetch %[[RES]][%[[R1]], %[[LAST1]]]
// CHECK-NOT: memref.prefetch %[[RES]]
// CHECK: scf.for
// OFF-LABEL: func.func @epilogue_partial_line_rows
// OFF-NOT: memref.prefetch
memref.global "private" constant @filter5 : memref<256x16xf32> = dense<1.0>
func.func @epilogue_partial_line_rows(%res: memref<2x196xf32>, %t: index, %cols: memref<256x2xf32>, %out: memref<2x196xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<2x14xf32>
  %w = memref.get_global @filter5 : memref<256x16xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (vector<2x14xf32>) {
    %x = vector.transfer_read %cols[%k, %c0], %z {in_bounds = [true, true]} : memref<256x2xf32>, vector<1x2xf32>
    %y = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<256x16xf32>, vector<1x14xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x2xf32>, vector<1x14xf32> into vector<2x14xf32>
    scf.yield %c : vector<2x14xf32>
  }
  %px = affine.apply affine_map<()[s0] -> (s0 * 14)>()[%t]
  %skip = vector.transfer_read %res[%c0, %px], %z {in_bounds = [true, true]} : memref<2x196xf32>, vector<2x14xf32>
  %sum = arith.addf %r, %skip : vector<2x14xf32>
  vector.transfer_write %sum, %out[%c0, %px] {in_bounds = [true, true]} : vector<2x14xf32>, memref<2x196xf32>
  return
}

// -----

// Only the epilogue: a read of a buffer allocated after the k loop, and one
// past the next loop nest, get no prefetch (the weight in the loop does).
// CHECK-LABEL: func.func @not_the_epilogue
// CHECK-NOT: memref.prefetch
// CHECK: scf.for
// CHECK: memref.prefetch %{{.*}} : memref<128x16xf32>
// CHECK: scf.yield
// CHECK-NOT: memref.prefetch
// CHECK: return
memref.global "private" constant @filter4 : memref<128x16xf32> = dense<1.0>
func.func @not_the_epilogue(%x: memref<128xf32>, %later: memref<64xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %w = memref.get_global @filter4 : memref<128x16xf32>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
    %a = vector.transfer_read %x[%k], %z {in_bounds = [true]} : memref<128xf32>, vector<1xf32>
    %b = vector.transfer_read %w[%k, %c0], %z {in_bounds = [true, true]} : memref<128x16xf32>, vector<1x16xf32>
    %c = vector.contract {indexing_maps = [affine_map<(n, k) -> (k)>, affine_map<(n, k) -> (k, n)>, affine_map<(n, k) -> (n)>], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<1xf32>, vector<1x16xf32> into vector<16xf32>
    scf.yield %c : vector<16xf32>
  }
  %buf = memref.alloc() : memref<16xf32>
  vector.transfer_write %r, %buf[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %back = vector.transfer_read %buf[%c0], %z {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %z, %later[%i] : memref<64xf32>
  }
  %v = vector.transfer_read %later[%c0], %z {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
  %s = arith.addf %back, %v : vector<16xf32>
  vector.transfer_write %s, %out[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}

// -----

// K in chunks (a 2048-deep GEMM's two 1024-step chunks): the k loop reads
// at the chunk's offset plus its induction variable, through an
// affine.apply; the weight's read still gets its prefetch, 4096 bytes (32
// steps of 128 bytes) on from that index. A 2048^3 matmul had none and ran
// at 0.67 of OpenBLAS (0.88 with it). The activation's read (4 bytes a
// step) gets none.
// CHECK-LABEL: func.func @chunked_k
// CHECK-SAME: (%[[A:.*]]: memref<12x2048xf32>, %[[CHUNK:.*]]: index, %[[OUT:.*]]: memref<12x32xf32>)
// CHECK: %[[W:.*]] = memref.get_global @deep
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: %[[AT:.*]] = affine.apply #{{.*}}()[%[[CHUNK]], %[[K]]]
// CHECK-NOT: memref.prefetch %[[A]]
// CHECK: %[[AHEAD:.*]] = arith.addi %[[AT]], %c32
// CHECK-NEXT: memref.prefetch %[[W]][%[[AHEAD]], %c0], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[W]][%[[AT]], %c0]
// OFF-LABEL: func.func @chunked_k
// OFF-NOT: memref.prefetch
memref.global "private" constant @deep : memref<2048x32xf32> = dense<1.0>
func.func @chunked_k(%a: memref<12x2048xf32>, %chunk: index, %out: memref<12x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<12x32xf32>
  %w = memref.get_global @deep : memref<2048x32xf32>
  %r = scf.for %k = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (vector<12x32xf32>) {
    %at = affine.apply affine_map<()[s0, s1] -> (s0 + s1)>()[%chunk, %k]
    %x = vector.transfer_read %a[%c0, %at], %z {in_bounds = [true, true]} : memref<12x2048xf32>, vector<12x1xf32>
    %y = vector.transfer_read %w[%at, %c0], %z {in_bounds = [true, true]} : memref<2048x32xf32>, vector<1x32xf32>
    %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<12x1xf32>, vector<1x32xf32> into vector<12x32xf32>
    scf.yield %c : vector<12x32xf32>
  }
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<12x32xf32>, memref<12x32xf32>
  return
}

// -----

// A transposed tile's filter panel (32 filters: 128 bytes a k step, 40 KB
// a panel) that the parallel loop's innermost dim, rows of 7 pixels, makes
// 7 tiles re-read one after another: besides its prefetch 32 steps on, on
// the last row (6) the next panel gets one at the same k step, and on the
// others the panel read does (MobileNetV2's 7x7 1x1 convs).
// CHECK-LABEL: func.func @next_panel_across_rows
// CHECK-SAME: (%[[COLS:.*]]: memref<7x320x7xf32>, %[[OUT:.*]]: memref<10x7x7x32xf32>)
// CHECK: %[[W:.*]] = memref.get_global @panels
// CHECK: scf.parallel (%[[P:.*]], %[[R:.*]]) =
// CHECK: %[[NEXT:.*]] = arith.addi %[[P]], %c1
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[R]], %c6
// CHECK-NEXT: %[[FROM:.*]] = arith.select %[[LAST]], %[[NEXT]], %[[P]]
// CHECK-NEXT: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c32
// CHECK-NEXT: memref.prefetch %[[W]][%[[P]], %[[AHEAD]], %c0], read, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[W]][%[[FROM]], %[[K]], %c0], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[W]][%[[P]], %[[K]], %c0]
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
// OFF-LABEL: func.func @next_panel_across_rows
// OFF-NOT: memref.prefetch
memref.global "private" constant @panels : memref<10x320x32xf32> = dense<1.0>
func.func @next_panel_across_rows(%cols: memref<7x320x7xf32>, %out: memref<10x7x7x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %c320 = arith.constant 320 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<7x32xf32>
  %w = memref.get_global @panels : memref<10x320x32xf32>
  scf.parallel (%p, %row) = (%c0, %c0) to (%c10, %c7) step (%c1, %c1) {
    %r = scf.for %k = %c0 to %c320 step %c1 iter_args(%acc = %zero) -> (vector<7x32xf32>) {
      %x = vector.transfer_read %w[%p, %k, %c0], %z {in_bounds = [true, true]} : memref<10x320x32xf32>, vector<1x32xf32>
      %y = vector.transfer_read %cols[%row, %k, %c0], %z {in_bounds = [true, true]} : memref<7x320x7xf32>, vector<1x7xf32>
      %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x32xf32>, vector<1x7xf32> into vector<7x32xf32>
      scf.yield %c : vector<7x32xf32>
    }
    vector.transfer_write %r, %out[%p, %row, %c0, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<10x7x7x32xf32>
    scf.reduce
  }
  return
}

// -----

// The same panel re-read across an scf.for over rows of pixels inside the
// parallel loop over panels: the next panel is prefetched on the last row.
// Across a loop that moves the K chunk instead (the k step read at the
// chunk's offset), the next panel would be read by no tile of this one:
// none.
// CHECK-LABEL: func.func @next_panel_rows_not_chunks
// CHECK-SAME: (%[[COLS:.*]]: memref<7x640x7xf32>, %[[P:[^:]*]]: index,
// CHECK: %[[W:.*]] = memref.get_global @deep_panels
// CHECK: scf.for %[[R:.*]] = %c0 to %c7
// CHECK: %[[NEXT:.*]] = arith.addi %[[P]], %c1
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[R]], %c6
// CHECK-NEXT: %[[FROM:.*]] = arith.select %[[LAST]], %[[NEXT]], %[[P]]
// CHECK-NEXT: scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK: memref.prefetch %[[W]][%[[P]], %{{.*}}, %c0]
// CHECK-NEXT: memref.prefetch %[[W]][%[[FROM]], %[[K]], %c0]
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c640 step %c320
// CHECK: scf.for %[[K2:.*]] = {{.*}} iter_args
// CHECK: %[[AT:.*]] = arith.addi %[[CHUNK]], %[[K2]]
// CHECK: memref.prefetch %[[W]][%[[P]], %{{.*}}, %c0]
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
memref.global "private" constant @deep_panels : memref<4x640x32xf32> = dense<1.0>
func.func @next_panel_rows_not_chunks(%cols: memref<7x640x7xf32>, %p: index, %out: memref<7x7x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c320 = arith.constant 320 : index
  %c640 = arith.constant 640 : index
  %z = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<7x32xf32>
  %w = memref.get_global @deep_panels : memref<4x640x32xf32>
  scf.for %row = %c0 to %c7 step %c1 {
    %r = scf.for %k = %c0 to %c640 step %c1 iter_args(%acc = %zero) -> (vector<7x32xf32>) {
      %x = vector.transfer_read %w[%p, %k, %c0], %z {in_bounds = [true, true]} : memref<4x640x32xf32>, vector<1x32xf32>
      %y = vector.transfer_read %cols[%row, %k, %c0], %z {in_bounds = [true, true]} : memref<7x640x7xf32>, vector<1x7xf32>
      %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x32xf32>, vector<1x7xf32> into vector<7x32xf32>
      scf.yield %c : vector<7x32xf32>
    }
    vector.transfer_write %r, %out[%row, %c0, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<7x7x32xf32>
  }
  scf.for %chunk = %c0 to %c640 step %c320 {
    %r = scf.for %k = %c0 to %c320 step %c1 iter_args(%acc = %zero) -> (vector<7x32xf32>) {
      %at = arith.addi %chunk, %k : index
      %x = vector.transfer_read %w[%p, %at, %c0], %z {in_bounds = [true, true]} : memref<4x640x32xf32>, vector<1x32xf32>
      %y = vector.transfer_read %cols[%c0, %at, %c0], %z {in_bounds = [true, true]} : memref<7x640x7xf32>, vector<1x7xf32>
      %c = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x32xf32>, vector<1x7xf32> into vector<7x32xf32>
      scf.yield %c : vector<7x32xf32>
    }
    vector.transfer_write %r, %out[%c0, %c0, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<7x7x32xf32>
  }
  return
}
