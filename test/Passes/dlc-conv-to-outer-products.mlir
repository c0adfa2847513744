// RUN: %dlc-opt %s --dlc-conv-to-outer-products="vector-width=8 max-accumulators=12 max-window-row-bytes=4096" --split-input-file | FileCheck %s
// RUN: %dlc-opt %s --dlc-conv-to-outer-products="vector-width=8 max-accumulators=12 max-window-row-bytes=4096 read-around-padding=false" --split-input-file | FileCheck %s --check-prefix=NOPAD

// Two filters over one input channel, rows of 8 pixels: a [2, 8] tile per
// output row (pixels in lanes), started from the broadcast bias, summed over
// the channel and tap rows with the three tap columns unrolled, the ReLU
// applied in registers, the row written in place. The filter is re-packed
// tap-major ([C, KH, KW, F]) and the bias generic and the ReLU generic go.
// CHECK-LABEL: func.func @pixel_lanes
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x6x10xf32>)
// CHECK-SAME: dlc.conv_kernels = ["?: outer products per output row, no im2col; 2 filters x 8-pixel lanes, epilogue in registers"]
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<tap_major_filter> : tensor<1x3x3x2xf32>
// CHECK: %[[OUT:.*]] = scf.forall (%[[N:.*]], %[[FB:.*]], %[[ROW:.*]]) in (1, 1, 4) shared_outs(%[[SHARED:.*]] = %{{.*}}) -> (tensor<1x2x4x8xf32>)
// CHECK: %[[F0:.*]] = arith.muli %[[FB]], %{{.*}} : index
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[SHARED]][%[[N]], %[[F0]], %[[ROW]], 0] [1, 2, 1, 8] [1, 1, 1, 1]
// CHECK: %[[START:.*]] = vector.transfer_read %[[BIAS]][%[[F0]]]{{.*}} : tensor<2xf32>, vector<2x8xf32>
// CHECK: %[[SUM:.*]] = scf.for %[[C:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[START]]) -> (vector<2x8xf32>)
// CHECK: scf.for %[[KY:.*]] = {{.*}} iter_args(%[[ACC2:.*]] = %[[ACC]]) -> (vector<2x8xf32>)
// CHECK: %[[IN_ROW:.*]] = arith.addi %[[ROW]], %[[KY]] : index
// CHECK: %[[W0:.*]] = vector.transfer_read %[[W]][%[[C]], %[[KY]], %{{.*}}, %[[F0]]]{{.*}} : tensor<1x3x3x2xf32>, vector<2xf32>
// CHECK: %[[T0:.*]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %[[IN_ROW]], %{{.*}}]{{.*}} : tensor<1x1x6x10xf32>, vector<8xf32>
// CHECK: %[[P0:.*]] = vector.outerproduct %[[W0]], %[[T0]], %[[ACC2]] {kind = #vector.kind<add>} : vector<2xf32>, vector<8xf32>
// CHECK: vector.outerproduct
// CHECK: %[[P2:.*]] = vector.outerproduct
// CHECK: scf.yield %[[P2]] : vector<2x8xf32>
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<2x8xf32>
// CHECK: %[[WRITTEN:.*]] = vector.transfer_write %[[RELU]], %[[SLICE]]
// CHECK: tensor.parallel_insert_slice %[[WRITTEN]] into %[[SHARED]][%[[N]], %[[F0]], %[[ROW]], 0] [1, 2, 1, 8] [1, 1, 1, 1]
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
func.func @pixel_lanes(%x: tensor<1x1x6x10xf32>) -> tensor<1x2x4x8xf32> {
  %w = arith.constant dense<0.5> : tensor<2x1x3x3xf32>
  %bias = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<2xf32>) outs(%e : tensor<1x2x4x8xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x2x4x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x6x10xf32>, tensor<2x1x3x3xf32>) outs(%init : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %e2 = tensor.empty() : tensor<1x2x4x8xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x2x4x8xf32>) outs(%e2 : tensor<1x2x4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %relu : tensor<1x2x4x8xf32>
}

// -----

// Sixteen filters over rows of 6 pixels: the filters fill two vectors, so
// they take the lanes, a [6, 16] tile (12 accumulators) per row, the tap's
// input row broadcast element by element; written transposed. A zero fill
// start is a broadcast constant; no activation follows.
// CHECK-LABEL: func.func @filter_lanes
// CHECK-SAME: dlc.conv_kernels = ["?: outer products per output row, no im2col; 16-filter lanes x 6-pixel rows"]
// CHECK: scf.forall ({{.*}}) in (1, 1, 6)
// CHECK: vector.broadcast %{{.*}} : f32 to vector<6x16xf32>
// CHECK: vector.outerproduct %{{.*}}, %{{.*}}, %{{.*}} {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : vector<6x16xf32>, tensor<1x16x1x6xf32>
func.func @filter_lanes(%x: tensor<1x2x8x8xf32>) -> tensor<1x16x6x6xf32> {
  %w = arith.constant dense<0.25> : tensor<16x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x2x8x8xf32>, tensor<16x2x3x3xf32>) outs(%init : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
  return %conv : tensor<1x16x6x6xf32>
}

// -----

// Rows of 6 pixels in lanes take a whole vector of 8: the conv's zero pad
// grows two columns on the right (one pad, not two), and the tile's last
// two pixels are dropped before the write. Another start than a bias or a
// fill is read from the accumulator (its row's 6 pixels, 2 zeros after).
// CHECK-LABEL: func.func @widened_rows
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x6x6xf32>, %[[ACC:.*]]: tensor<1x3x6x6xf32>)
// CHECK: %[[WIDE:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 3]
// CHECK: tensor<1x1x6x6xf32> to tensor<1x1x8x10xf32>
// CHECK: scf.forall ({{.*}}) in (1, 1, 6) shared_outs(%[[SHARED:.*]] = %[[ACC]])
// CHECK: %[[START:.*]] = vector.transfer_read %[[SHARED]]{{.*}} : tensor<1x3x6x6xf32>, vector<3x6xf32>
// CHECK: vector.insert_strided_slice %[[START]], %{{.*}} {offsets = [0, 0], strides = [1, 1]} : vector<3x6xf32> into vector<3x8xf32>
// CHECK: vector.transfer_read %[[WIDE]]{{.*}} : tensor<1x1x8x10xf32>, vector<8xf32>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [0, 0], sizes = [3, 6], strides = [1, 1]} : vector<3x8xf32> to vector<3x6xf32>
// CHECK-NOT: tensor.pad
func.func @widened_rows(%x: tensor<1x1x6x6xf32>, %acc: tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32> {
  %w = arith.constant dense<1.0> : tensor<3x1x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x6x6xf32> to tensor<1x1x8x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x1x8x8xf32>, tensor<3x1x3x3xf32>) outs(%acc : tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  return %conv : tensor<1x3x6x6xf32>
}

// -----

// Left to dlc-conv-to-im2col: a 1x1 conv (no columns to save), a conv over
// max-multiply-adds (2^19) whose window rows (64 channels x 3 rows x 34
// floats, 26 KB) overflow max-window-row-bytes, one over it whose window
// rows fit (3 x 3 x 98 floats, 3.5 KB) but whose 12 filters make no whole
// 8-filter tiles, a filter that is not a constant.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: dlc.conv_kernels
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw
// CHECK-NOT: vector.outerproduct
func.func @kept(%x: tensor<1x8x9x9xf32>, %big: tensor<1x64x34x34xf32>, %wv: tensor<4x8x3x3xf32>,
                %a: tensor<1x4x9x9xf32>, %c: tensor<1x64x32x32xf32>,
                %d: tensor<1x4x7x7xf32>, %img: tensor<1x3x98x98xf32>, %e: tensor<1x12x48x48xf32>)
    -> (tensor<1x4x9x9xf32>, tensor<1x64x32x32xf32>, tensor<1x4x7x7xf32>, tensor<1x12x48x48xf32>) {
  %w1 = arith.constant dense<1.0> : tensor<4x8x1x1xf32>
  %wb = arith.constant dense<1.0> : tensor<64x64x3x3xf32>
  %w12 = arith.constant dense<1.0> : tensor<12x3x3x3xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x8x9x9xf32>, tensor<4x8x1x1xf32>) outs(%a : tensor<1x4x9x9xf32>) -> tensor<1x4x9x9xf32>
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%big, %wb : tensor<1x64x34x34xf32>, tensor<64x64x3x3xf32>) outs(%c : tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32>
  %3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %wv : tensor<1x8x9x9xf32>, tensor<4x8x3x3xf32>) outs(%d : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%img, %w12 : tensor<1x3x98x98xf32>, tensor<12x3x3x3xf32>) outs(%e : tensor<1x12x48x48xf32>) -> tensor<1x12x48x48xf32>
  return %0, %2, %3, %4 : tensor<1x4x9x9xf32>, tensor<1x64x32x32xf32>, tensor<1x4x7x7xf32>, tensor<1x12x48x48xf32>
}

// -----

// An image stem over max-multiply-adds (16 filters, 3 channels, 3x3,
// stride 2, rows of 40 pixels) whose window rows (3 channels x 3 rows x 82
// floats, 2.9 KB) fit max-window-row-bytes: tiles of 8 filters per output
// row (input row = 2 x row + tap row), the row's 5 vectors of 8 pixels in
// segments of 2, 2 and 1, each summed over the window on its own. A tap's
// 8 pixels are every other element of 16 read contiguously. The BatchNorm
// (scale and shift per filter) and the clamp that follow run on the
// registers, the scale read once per tile, broadcast along the pixels.
// The zero pad is read around, not copied: tap row 0 of output row 0 is
// the top padding, so a row's tap rows start at max(0, 1 - 2 x row), and
// rows starting at 0 take a loop with constant bounds (scf.if); the first
// chunk's tap column 0 reads from column 0 and shuffles a zero into lane 0
// (column -1); the last chunk's reads (columns 63 + kx..) start at column
// 64 at most, inside the row. With read-around-padding=false (NOPAD) the
// pad stays and the rows read it.
// CHECK-LABEL: func.func @strided_segments
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x3x80x80xf32>)
// CHECK-SAME: dlc.conv_kernels = ["?: outer products per output row, no im2col; 8 filters x 40-pixel lanes, epilogue in registers, padding read around (no padded copy)"]
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%[[N:.*]], %[[FB:.*]], %[[ROW:.*]]) in (1, 2, 40)
// CHECK: %[[SCALE:[0-9]+]] = vector.transfer_read %{{.*}}[%{{.*}}], %{{.*}} {{{.*}}permutation_map = #{{.*}}} : tensor<16xf32>, vector<8x8xf32>
// CHECK: %[[TWICE:[0-9]+]] = arith.muli %[[ROW]], %{{.*}} : index
// CHECK: %[[ORIGIN:[0-9]+]] = arith.subi %[[TWICE]], %{{.*}} : index
// CHECK: %[[ABOVE:[0-9]+]] = arith.subi %{{.*}}, %[[ORIGIN]] : index
// CHECK: %[[FIRST:[0-9]+]] = arith.maxsi %{{.*}}, %[[ABOVE]] : index
// CHECK: %[[INTERIOR:[0-9]+]] = arith.cmpi eq, %[[FIRST]], %{{.*}} : index
// CHECK: scf.if %[[INTERIOR]] -> (vector<8x8xf32>, vector<8x8xf32>) {
// CHECK: scf.for {{.*}} -> (vector<8x8xf32>, vector<8x8xf32>)
// CHECK: scf.for %[[KY:[a-z0-9_]+]] = %c0 to %c3{{.*}} -> (vector<8x8xf32>, vector<8x8xf32>)
// CHECK: %[[IN_ROW:[0-9]+]] = arith.addi %[[ORIGIN]], %[[KY]] : index
// CHECK: %[[EDGE:[0-9]+]] = vector.transfer_read %[[X]][%[[N]], %{{.*}}, %[[IN_ROW]], %c0{{.*}}]{{.*}} : tensor<1x3x80x80xf32>, vector<16xf32>
// CHECK: %[[ZEROS:[a-z0-9_]+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[EDGE_TAPS:[0-9]+]] = vector.shuffle %[[EDGE]], %[[ZEROS]] [16, 1, 3, 5, 7, 9, 11, 13] : vector<16xf32>, vector<16xf32>
// CHECK: vector.outerproduct %{{.*}}, %[[EDGE_TAPS]], %{{.*}} {kind = #vector.kind<add>} : vector<8xf32>, vector<8xf32>
// CHECK: %[[WIDE_TAPS:[0-9]+]] = vector.transfer_read %[[X]]{{.*}} : tensor<1x3x80x80xf32>, vector<16xf32>
// CHECK: %[[TAPS:[0-9]+]] = vector.shuffle %[[WIDE_TAPS]], %[[WIDE_TAPS]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK: vector.outerproduct %{{.*}}, %[[TAPS]], %{{.*}} {kind = #vector.kind<add>} : vector<8xf32>, vector<8xf32>
// CHECK: } else {
// CHECK: scf.for {{.*}} -> (vector<8x8xf32>, vector<8x8xf32>)
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %c3{{.*}} -> (vector<8x8xf32>, vector<8x8xf32>)
// CHECK: math.fma %{{.*}}, %[[SCALE]], %{{.*}} : vector<8x8xf32>
// CHECK: arith.minimumf {{.*}} : vector<8x8xf32>
// CHECK: vector.transfer_write
// CHECK: vector.transfer_write
// CHECK: scf.if {{.*}} -> (vector<8x8xf32>, vector<8x8xf32>)
// CHECK: scf.if {{.*}} -> (vector<8x8xf32>) {
// CHECK: vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c64]{{.*}} : tensor<1x3x80x80xf32>, vector<16xf32>
// CHECK: %[[LAST:[0-9]+]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c64_{{[0-9]+}}]{{.*}} : tensor<1x3x80x80xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[LAST]], %[[LAST]] [1, 3, 5, 7, 9, 11, 13, 15] : vector<16xf32>, vector<16xf32>
// CHECK: vector.transfer_write
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[N]], %{{.*}}, %[[ROW]], 0] [1, 8, 1, 40] [1, 1, 1, 1]
// CHECK-NOT: linalg.generic
// NOPAD-LABEL: func.func @strided_segments
// NOPAD-SAME: 8 filters x 40-pixel lanes, epilogue in registers"]
// NOPAD: %[[PADDED:[a-z0-9_]+]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// NOPAD: scf.forall
// NOPAD-NOT: scf.if
// NOPAD: scf.for %{{.*}} = %c0 to %c3
// NOPAD: vector.transfer_read %[[PADDED]]{{.*}} : tensor<1x3x82x82xf32>, vector<16xf32>
func.func @strided_segments(%x: tensor<1x3x80x80xf32>) -> tensor<1x16x40x40xf32> {
  %w = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
  %scale = arith.constant dense<2.0> : tensor<16xf32>
  %shift = arith.constant dense<0.5> : tensor<16xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x3x80x80xf32> to tensor<1x3x82x82xf32>
  %e = tensor.empty() : tensor<1x16x40x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x3x82x82xf32>, tensor<16x3x3x3xf32>) outs(%init : tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32>
  %e2 = tensor.empty() : tensor<1x16x40x40xf32>
  %bn = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (f)>,
                                         affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %scale, %shift : tensor<1x16x40x40xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<1x16x40x40xf32>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %o: f32):
    %a = math.fma %v, %s, %t : f32
    %r = arith.maximumf %a, %zero : f32
    %c = arith.minimumf %r, %six : f32
    linalg.yield %c : f32
  } -> tensor<1x16x40x40xf32>
  return %bn : tensor<1x16x40x40xf32>
}

// -----

// An elementwise op after the conv that reads a non-scalar value (an index
// from outside the body) is no activation for the register tile: the conv
// still becomes outer products, the op stays a generic on its result.
// CHECK-LABEL: func.func @not_an_activation
// CHECK-SAME: dlc.conv_kernels = ["?: outer products per output row, no im2col; 2 filters x 8-pixel lanes"]
// CHECK: %[[OUT:.*]] = scf.forall
// CHECK-NOT: arith.index_cast
// CHECK: linalg.generic {{.*}} ins(%[[OUT]] : tensor<1x2x4x8xf32>)
// CHECK: arith.index_cast
func.func @not_an_activation(%x: tensor<1x1x6x10xf32>, %k: index) -> tensor<1x2x4x8xf32> {
  %w = arith.constant dense<0.5> : tensor<2x1x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x1x6x10xf32>, tensor<2x1x3x3xf32>) outs(%init : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %e2 = tensor.empty() : tensor<1x2x4x8xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<1x2x4x8xf32>) outs(%e2 : tensor<1x2x4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = arith.index_cast %k : index to i32
    %s = arith.sitofp %i : i32 to f32
    %r = arith.addf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x8xf32>
  return %shifted : tensor<1x2x4x8xf32>
}

// -----

// Padding on all four sides, stride 1, rows of 14 pixels in two 8-lane
// chunks: the last output row's window reaches the bottom padding too, so
// a row's tap rows end at min(3, 6 - (row - 1)) as well, and only rows
// whose window is inside the input on both sides take the constant-bound
// loop. The right chunk's reads (columns 7.. and 8..) start at column 6,
// the last 8 of the row, the columns past it shuffled in as zeros.
// CHECK-LABEL: func.func @padded_all_sides
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<1x1x6x14xf32>)
// CHECK-SAME: "?: outer products per output row, no im2col; 2 filters x 14-pixel lanes, padding read around (no padded copy)"]
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %[[ROW:[a-z0-9_]+]]) in (1, 1, 6)
// CHECK: %[[ORIGIN:[0-9]+]] = arith.subi %[[ROW]], %c1 : index
// CHECK: %[[FIRST:[0-9]+]] = arith.maxsi
// CHECK: %[[BELOW:[0-9]+]] = arith.subi %c6, %[[ORIGIN]] : index
// CHECK: %[[END:[0-9]+]] = arith.minsi %c3, %[[BELOW]] : index
// CHECK: %[[TOP_OK:[0-9]+]] = arith.cmpi eq, %[[FIRST]], %c0 : index
// CHECK: %[[BOTTOM_OK:[0-9]+]] = arith.cmpi eq, %[[END]], %c3{{.*}} : index
// CHECK: %[[INTERIOR:[0-9]+]] = arith.andi %[[TOP_OK]], %[[BOTTOM_OK]] : i1
// CHECK: scf.if %[[INTERIOR]]
// CHECK: %[[RIGHT:[0-9]+]] = vector.transfer_read %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %c6{{.*}}]{{.*}} : tensor<1x1x6x14xf32>, vector<8xf32>
// CHECK: vector.shuffle %[[RIGHT]], %{{.*}} [1, 2, 3, 4, 5, 6, 7, 8] : vector<8xf32>, vector<8xf32>
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %[[END]]
func.func @padded_all_sides(%x: tensor<1x1x6x14xf32>) -> tensor<1x2x6x14xf32> {
  %w = arith.constant dense<0.5> : tensor<2x1x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x1x6x14xf32> to tensor<1x1x8x16xf32>
  %e = tensor.empty() : tensor<1x2x6x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x6x14xf32>) -> tensor<1x2x6x14xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x1x8x16xf32>, tensor<2x1x3x3xf32>) outs(%init : tensor<1x2x6x14xf32>) -> tensor<1x2x6x14xf32>
  return %conv : tensor<1x2x6x14xf32>
}
