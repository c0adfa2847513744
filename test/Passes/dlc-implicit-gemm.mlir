// RUN: %dlc-opt %s --dlc-implicit-gemm --split-input-file -verify-diagnostics | FileCheck %s

#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#a = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A marked gather ([N, KH, KW, C, OH, OW] columns of %x, padding 1) and the
// GEMM reading them: one dlc.conv_gemm of %x, the GEMM's filter and output,
// with the conv's geometry and the GEMM's overwrite; the column buffer goes.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: memref<2x32x8x8xf32>, %[[W:.*]]: memref<40x288xf32>, %[[Y:.*]]: memref<2x40x64xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.generic
// CHECK: dlc.conv_gemm %[[X]], %[[W]] into %[[Y]]
// CHECK-SAME: dilations = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, output_size = array<i64: 8, 8>, overwrite, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>
// CHECK-NEXT: return
func.func @conv(%x: memref<2x32x8x8xf32>, %w: memref<40x288xf32>, %y: memref<2x40x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %cols = memref.alloc() {alignment = 64 : i64} : memref<2x3x3x32x8x8xf32>
  linalg.generic {indexing_maps = [#id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%cols : memref<2x3x3x32x8x8xf32>)
      attrs = {dlc.implicit_gemm_columns = {dilations = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>}} {
  ^bb0(%out: f32):
    %kh = linalg.index 1 : index
    %oh = linalg.index 4 : index
    %h0 = arith.addi %kh, %oh : index
    %kw = linalg.index 2 : index
    %ow = linalg.index 5 : index
    %w0 = arith.addi %kw, %ow : index
    %h = arith.subi %h0, %c1 : index
    %wi = arith.subi %w0, %c1 : index
    %hin = arith.cmpi ult, %h, %c8 : index
    %win = arith.cmpi ult, %wi, %c8 : index
    %in = arith.andi %hin, %win : i1
    %hc = arith.select %in, %h, %c0 : index
    %wc = arith.select %in, %wi, %c0 : index
    %n = linalg.index 0 : index
    %ch = linalg.index 3 : index
    %v = memref.load %x[%n, %ch, %hc, %wc] : memref<2x32x8x8xf32>
    %r = arith.select %in, %v, %zero : f32
    linalg.yield %r : f32
  }
  %flat = memref.collapse_shape %cols [[0], [1, 2, 3], [4, 5]] : memref<2x3x3x32x8x8xf32> into memref<2x288x64xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %flat : memref<40x288xf32>, memref<2x288x64xf32>) outs(%y : memref<2x40x64xf32>)
      attrs = {dlc.gemm_overwrite} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#a = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Kept: the input is written between the gather and the GEMM (the GEMM
// would read the new values), and columns that something else reads too.
// CHECK-LABEL: func.func @input_written_between
// CHECK: memref.alloc
// CHECK: linalg.generic
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-NOT: dlc.conv_gemm
func.func @input_written_between(%x: memref<1x32x4x4xf32>, %w: memref<40x32xf32>, %y: memref<1x40x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %cols = memref.alloc() : memref<1x1x1x32x4x4xf32>
  linalg.generic {indexing_maps = [#id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%cols : memref<1x1x1x32x4x4xf32>)
      attrs = {dlc.implicit_gemm_columns = {dilations = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}} {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %ch = linalg.index 3 : index
    %h = linalg.index 4 : index
    %wi = linalg.index 5 : index
    %v = memref.load %x[%n, %ch, %h, %wi] : memref<1x32x4x4xf32>
    linalg.yield %v : f32
  }
  linalg.fill ins(%zero : f32) outs(%x : memref<1x32x4x4xf32>)
  %flat = memref.collapse_shape %cols [[0], [1, 2, 3], [4, 5]] : memref<1x1x1x32x4x4xf32> into memref<1x32x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %flat : memref<40x32xf32>, memref<1x32x16xf32>) outs(%y : memref<1x40x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @columns_read_twice
// CHECK: memref.alloc
// CHECK-NOT: dlc.conv_gemm
// CHECK: memref.copy
func.func @columns_read_twice(%x: memref<1x32x4x4xf32>, %w: memref<40x32xf32>, %y: memref<1x40x16xf32>, %keep: memref<1x32x16xf32>) {
  %cols = memref.alloc() : memref<1x1x1x32x4x4xf32>
  linalg.generic {indexing_maps = [#id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%cols : memref<1x1x1x32x4x4xf32>)
      attrs = {dlc.implicit_gemm_columns = {dilations = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}} {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %ch = linalg.index 3 : index
    %h = linalg.index 4 : index
    %wi = linalg.index 5 : index
    %v = memref.load %x[%n, %ch, %h, %wi] : memref<1x32x4x4xf32>
    linalg.yield %v : f32
  }
  %flat = memref.collapse_shape %cols [[0], [1, 2, 3], [4, 5]] : memref<1x1x1x32x4x4xf32> into memref<1x32x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %flat : memref<40x32xf32>, memref<1x32x16xf32>) outs(%y : memref<1x40x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  memref.copy %flat, %keep : memref<1x32x16xf32> to memref<1x32x16xf32>
  return
}

// Kept, without a diagnostic: a geometry that is not two values a field
// (the conv kernels would read past it).
// CHECK-LABEL: func.func @three_strides
// CHECK: memref.alloc
// CHECK-NOT: dlc.conv_gemm
// CHECK: return
func.func @three_strides(%x: memref<1x32x4x4xf32>, %w: memref<40x32xf32>, %y: memref<1x40x16xf32>) {
  %cols = memref.alloc() : memref<1x1x1x32x4x4xf32>
  linalg.generic {indexing_maps = [#id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      outs(%cols : memref<1x1x1x32x4x4xf32>)
      attrs = {dlc.implicit_gemm_columns = {dilations = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1, 1>}} {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %ch = linalg.index 3 : index
    %h = linalg.index 4 : index
    %wi = linalg.index 5 : index
    %v = memref.load %x[%n, %ch, %h, %wi] : memref<1x32x4x4xf32>
    linalg.yield %v : f32
  }
  %flat = memref.collapse_shape %cols [[0], [1, 2, 3], [4, 5]] : memref<1x1x1x32x4x4xf32> into memref<1x32x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %flat : memref<40x32xf32>, memref<1x32x16xf32>) outs(%y : memref<1x40x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
