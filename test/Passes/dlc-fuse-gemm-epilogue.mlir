// RUN: %dlc-opt %s --dlc-fuse-gemm-epilogue --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// BatchNorm as fma with per-row (filter) scale and shift, then ReLU: the
// generic names its inputs' parts.
// CHECK-LABEL: func.func @bn_relu
// CHECK-SAME: %[[S:[a-z0-9]+]]: memref<4xf32>, %[[T:[a-z0-9]+]]: memref<4xf32>, %[[Y:[a-z0-9]+]]: memref<4x8xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.matmul {dlc.gemm_overwrite} ins({{.*}}) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT: linalg.generic {{.*}}ins(%[[C]], %[[S]], %[[T]] : {{.*}}) outs(%[[Y]] : memref<4x8xf32>) attrs = {dlc.gemm_epilogue = {act = 1 : i64, input = 0 : i64, scale = 1 : i64, shift = 2 : i64}}
func.func @bn_relu(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %s: memref<4xf32>, %t: memref<4xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %s, %t : memref<4x8xf32>, memref<4xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %sc: f32, %sh: f32, %o: f32):
    %0 = math.fma %x, %sc, %sh : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A bottleneck's end: this GEMM's BatchNorm plus the other branch's
// (another GEMM's output, scaled and shifted), then ReLU.
// CHECK-LABEL: func.func @residual_branch
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<4x16xf32>, %[[B:[a-z0-9]+]]: memref<16x8xf32>, %[[R:[a-z0-9]+]]: memref<4x8xf32>
// CHECK: linalg.matmul {dlc.gemm_overwrite} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C:[a-z0-9_]+]] : memref<4x8xf32>)
// CHECK-NEXT: linalg.generic {{.*}}ins(%[[R]], {{.*}}, %[[C]], {{.*}}) outs
// CHECK-SAME: dlc.gemm_epilogue = {act = 1 : i64, input = 3 : i64, residual = 0 : i64, residual_scale = 1 : i64, residual_shift = 2 : i64, scale = 4 : i64, shift = 5 : i64}
func.func @residual_branch(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %r: memref<4x8xf32>, %s: memref<4xf32>, %t: memref<4xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row, #id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %s, %t, %c, %s, %t : memref<4x8xf32>, memref<4xf32>, memref<4xf32>, memref<4x8xf32>, memref<4xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%rv: f32, %rs: f32, %rt: f32, %x: f32, %sc: f32, %sh: f32, %o: f32):
    %0 = math.fma %rv, %rs, %rt : f32
    %1 = math.fma %x, %sc, %sh : f32
    %2 = arith.addf %1, %0 : f32
    %3 = arith.maximumf %2, %zero : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// ReLU6 (a clamp) after a bias add; the bounds go along.
// CHECK-LABEL: func.func @bias_clamp
// CHECK: dlc.gemm_epilogue = {act = 2 : i64, hi = 6.000000e+00 : f32, input = 0 : i64, lo = 0.000000e+00 : f32, shift = 1 : i64}
func.func @bias_clamp(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %t: memref<4xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %t : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %sh: f32, %o: f32):
    %0 = arith.addf %x, %sh : f32
    %1 = arith.maximumf %0, %zero : f32
    %2 = arith.minimumf %1, %six : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// An implicit-GEMM conv (dlc-implicit-gemm) with its BatchNorm and ReLU:
// the tail reads the conv's [N, F, pixels] output as [N, F, OH, OW], the
// filters its dim 1.
// CHECK-LABEL: func.func @conv_gemm_bn_relu
// CHECK: dlc.conv_gemm {{.*}} into %[[C:[a-z0-9_]+]]
// CHECK: %[[X:.*]] = memref.expand_shape %[[C]]
// CHECK-NEXT: linalg.generic {{.*}}ins(%[[X]], {{.*}}) outs
// CHECK-SAME: dlc.gemm_epilogue = {act = 1 : i64, input = 0 : i64, scale = 1 : i64, shift = 2 : i64}
func.func @conv_gemm_bn_relu(%x: memref<2x32x4x4xf32>, %w: memref<40x288xf32>, %s: memref<40xf32>, %t: memref<40xf32>, %y: memref<2x40x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<2x40x16xf32>
  dlc.conv_gemm %x, %w into %c {dilations = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, output_size = array<i64: 4, 4>, overwrite, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : memref<2x32x4x4xf32>, memref<40x288xf32> into memref<2x40x16xf32>
  %x4 = memref.expand_shape %c [[0], [1], [2, 3]] output_shape [2, 40, 4, 4] : memref<2x40x16xf32> into memref<2x40x4x4xf32>
  linalg.generic {indexing_maps = [#id4, #ch, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x4, %s, %t : memref<2x40x4x4xf32>, memref<40xf32>, memref<40xf32>) outs(%y : memref<2x40x4x4xf32>) {
  ^bb0(%v: f32, %sc: f32, %sh: f32, %o: f32):
    %0 = math.fma %v, %sc, %sh : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// Kept apart: a conv that adds into its output; a tail writing the conv's
// input (the kernel would overwrite pixels other blocks still gather).
// CHECK-LABEL: func.func @conv_gemm_not_fused
// CHECK-NOT: dlc.gemm_epilogue
// CHECK: return
func.func @conv_gemm_not_fused(%x: memref<2x40x4x4xf32>, %w: memref<40x360xf32>, %t: memref<40xf32>, %y: memref<2x40x4x4xf32>) {
  %c = memref.alloc() : memref<2x40x16xf32>
  dlc.conv_gemm %x, %w into %c {dilations = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, output_size = array<i64: 4, 4>, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : memref<2x40x4x4xf32>, memref<40x360xf32> into memref<2x40x16xf32>
  %c4 = memref.expand_shape %c [[0], [1], [2, 3]] output_shape [2, 40, 4, 4] : memref<2x40x16xf32> into memref<2x40x4x4xf32>
  linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c4, %t : memref<2x40x4x4xf32>, memref<40xf32>) outs(%y : memref<2x40x4x4xf32>) {
  ^bb0(%v: f32, %sh: f32, %o: f32):
    %0 = arith.addf %v, %sh : f32
    linalg.yield %0 : f32
  }
  %d = memref.alloc() : memref<2x40x16xf32>
  dlc.conv_gemm %x, %w into %d {dilations = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, output_size = array<i64: 4, 4>, overwrite, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : memref<2x40x4x4xf32>, memref<40x360xf32> into memref<2x40x16xf32>
  %d4 = memref.expand_shape %d [[0], [1], [2, 3]] output_shape [2, 40, 4, 4] : memref<2x40x16xf32> into memref<2x40x4x4xf32>
  linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d4, %t : memref<2x40x4x4xf32>, memref<40xf32>) outs(%x : memref<2x40x4x4xf32>) {
  ^bb0(%v: f32, %sh: f32, %o: f32):
    %0 = arith.addf %v, %sh : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Kept apart: a GEMM that adds into its output (no overwrite); a GEMM
// output something else reads too; a vector along N, not the filters; a
// tail whose output is one of the GEMM's operands (the GEMM would overwrite
// what it reads); a body that is not of the form (a sigmoid).
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: dlc.gemm_epilogue
// CHECK: return
func.func @not_fused(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %t: memref<4xf32>, %u: memref<8xf32>, %y: memref<4x8xf32>, %z: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %t : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %sh: f32, %o: f32):
    %0 = arith.addf %x, %sh : f32
    linalg.yield %0 : f32
  }
  %d = memref.alloc() : memref<4x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%d : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %t : memref<4x8xf32>, memref<4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %sh: f32, %o: f32):
    %0 = arith.addf %x, %sh : f32
    linalg.yield %0 : f32
  }
  linalg.copy ins(%d : memref<4x8xf32>) outs(%z : memref<4x8xf32>)
  %e = memref.alloc() : memref<4x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%e : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %u : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %sh: f32, %o: f32):
    %0 = arith.addf %x, %sh : f32
    linalg.yield %0 : f32
  }
  %f = memref.alloc() : memref<4x8xf32>
  %bv = memref.alloc() : memref<16x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %bv : memref<4x16xf32>, memref<16x8xf32>) outs(%f : memref<4x8xf32>)
  %bt = memref.subview %bv[0, 0] [4, 8] [1, 1] : memref<16x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %t : memref<4x8xf32>, memref<4xf32>) outs(%bt : memref<4x8xf32, strided<[8, 1]>>) {
  ^bb0(%x: f32, %sh: f32, %o: f32):
    %0 = arith.addf %x, %sh : f32
    linalg.yield %0 : f32
  }
  %g = memref.alloc() : memref<4x8xf32>
  linalg.matmul {dlc.gemm_overwrite} ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%g : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.negf %x : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  return
}
