//===- SlideTapsInRegisters.cpp - stride-1 window taps from row vectors ---===//
//
// dlc-depthwise-conv-to-taps (and -pooling-to-taps) sum a window's taps as
// strided slices of the padded input. At stride 1 on MobileNetV2's 14x14
// and 7x7 maps that costs twice: a loop copying each channel into its
// padded plane (three stores and two scalar border stores a 14-wide row),
// then nine loads an output row, each input row read again for every tap
// that touches it. Both loops took 6% of the model at one thread, against
// onnxruntime's 1.3x faster NCHWc kernel.
//
// Here the taps read the unpadded input. Where a plane's rows fit one
// vector, each input row is loaded once (lanes past the row hold the pad's
// value) and its column shifts made in registers (one shuffle each); every
// output row then applies the window op's body to the shifted rows of its
// window, rows outside the input being the pad's value. Wider rows go in
// aligned vector-wide pieces, each tap a shuffle of the two around its
// column shift, rows at the border unrolled and the others a loop, at
// stride 1 four output rows a step sharing their input rows' pieces, at
// stride 2 one a step handing its last input row's taps to the next. The
// padded copy goes.
//
//===----------------------------------------------------------------------===//
#include "passes/ConvGemmLayout.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace dlc {
#define GEN_PASS_DEF_SLIDETAPSINREGISTERS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
using Kind = dlc::PaddedTaps::Kind;
using Input = dlc::PaddedTaps::Input;

LogicalResult finish(linalg::GenericOp op, scf::ForallOp forall, const dlc::PaddedTaps &taps,
                     int64_t lanes, bool narrow, bool paired = false);

/// The output plane of one channel where rows are wider than a vector:
/// each output row in pieces of `lanes`, every tap a shuffle of the aligned
/// pieces of the unpadded source row around its column shift (lanes past
/// the row's end the pad's value). Rows whose window reaches outside the
/// input are unrolled, the others one scf.for, at stride 1 four output rows
/// an iteration sharing their input rows' pieces. Returns the written
/// plane.
Value wideRows(OpBuilder &b, Location loc, linalg::GenericOp op, ArrayRef<Input> inputs,
               Value source, Value padRow, ArrayRef<Value> uniform, Value plane, Value bn,
               Value ch, ArrayRef<int64_t> low, int64_t sh, int64_t sw) {
  auto srcType = cast<RankedTensorType>(source.getType());
  auto outType = cast<RankedTensorType>(op.getResultTypes().front());
  int64_t srcH = srcType.getDimSize(2), srcW = srcType.getDimSize(3);
  int64_t h = outType.getDimSize(2), w = outType.getDimSize(3);
  auto rowType = cast<VectorType>(padRow.getType());
  int64_t lanes = rowType.getNumElements();
  Type f32 = rowType.getElementType();
  Value padValue = padRow.getDefiningOp<vector::BroadcastOp>().getSource();
  auto idx = [&](int64_t v) -> Value { return b.create<arith::ConstantIndexOp>(loc, v); };
  // Columns [col, col + lanes) of a row of `x` (`width` wide) in a vector,
  // the pad's value outside the row.
  std::function<Value(Value, int64_t, Value, int64_t)> read = [&](Value x, int64_t width,
                                                                  Value row,
                                                                  int64_t col) -> Value {
    if (col >= width)
      return padRow;
    if (col < 0) {
      SmallVector<int64_t> mask;
      for (int64_t j = 0; j < lanes; ++j)
        mask.push_back(j + col >= 0 ? j + col : lanes);
      return b.create<vector::ShuffleOp>(loc, read(x, width, row, 0), padRow, mask);
    }
    int64_t count = std::min(lanes, width - col);
    Value part = b.create<vector::TransferReadOp>(loc, VectorType::get({count}, f32), x,
                                                  ValueRange{bn, ch, row, idx(col)}, padValue,
                                                  ArrayRef<bool>{true});
    if (count == lanes)
      return part;
    return b.create<vector::InsertStridedSliceOp>(loc, part, padRow, ArrayRef<int64_t>{0},
                                                  ArrayRef<int64_t>{1});
  };
  // The aligned pieces of the input rows that one block of output rows
  // reads, each read once: keyed by the row (its offset from the block's
  // first output row times the stride, or its index in an unrolled row)
  // and the piece's first column.
  std::map<std::pair<int64_t, int64_t>, Value> pieces;
  auto readPiece = [&](int64_t rowKey, Value row, int64_t col) -> Value {
    Value &v = pieces[{rowKey, col}];
    if (!v)
      v = read(source, srcW, row, col);
    return v;
  };
  // Every sw-th column from piece start `start` plus `shift` (sw 1 or 2).
  // At stride 1 a shift within a vector is one shuffle of the two aligned
  // pieces around it (an unaligned read per tap, most of them split over
  // two cache lines, ran MobileNetV2's 28x28 depthwise convs at 73 GFLOP/s
  // on Zen 5). At stride 2 a piece's 2 x lanes columns are read once and
  // each shift of 0 or 1 is one shuffle of their even or odd lanes; a shift
  // of -1 or -2 is the shift two more, one lane right, the lane it lacks
  // the previous piece's last (or the pad's value for the first piece).
  std::function<Value(int64_t, Value, int64_t, int64_t)> readTaps =
      [&](int64_t rowKey, Value row, int64_t start, int64_t shift) -> Value {
    if (sw == 1) {
      if (shift == 0)
        return readPiece(rowKey, row, start);
      if (std::abs(shift) >= lanes)
        return read(source, srcW, row, start + shift);
      int64_t base = shift < 0 ? start - lanes : start;
      Value lo = base < 0 ? padRow : readPiece(rowKey, row, base);
      Value hi = readPiece(rowKey, row, base + lanes);
      SmallVector<int64_t> pick;
      for (int64_t j = 0; j < lanes; ++j)
        pick.push_back(start + shift + j - base);
      return b.create<vector::ShuffleOp>(loc, lo, hi, pick);
    }
    if (start + shift >= srcW)
      return padRow;
    if (shift >= 0 && shift <= 1) {
      Value lo = readPiece(rowKey, row, start), hi = readPiece(rowKey, row, start + lanes);
      SmallVector<int64_t> pick;
      for (int64_t j = 0; j < lanes; ++j)
        pick.push_back(2 * j + shift);
      return b.create<vector::ShuffleOp>(loc, lo, hi, pick);
    }
    if (shift >= -2 && shift < 0) {
      Value next = readTaps(rowKey, row, start, shift + 2);
      Value before = start == 0 ? padRow : readPiece(rowKey, row, start - lanes);
      SmallVector<int64_t> right{start == 0 ? lanes : lanes + lanes + shift};
      for (int64_t j = 0; j + 1 < lanes; ++j)
        right.push_back(j);
      return b.create<vector::ShuffleOp>(loc, next, before, right);
    }
    // Wider windows: the 2 x lanes columns from the first inside the row.
    int64_t col0 = start + shift, base = std::max<int64_t>(col0, 0);
    Value lo = read(source, srcW, row, base), hi = read(source, srcW, row, base + lanes);
    SmallVector<int64_t> pick, outside;
    for (int64_t j = 0; j < lanes; ++j) {
      int64_t col = col0 + sw * j;
      pick.push_back(col < 0 ? 0 : col - base);
      outside.push_back(col < 0 ? lanes : j);
    }
    Value v = b.create<vector::ShuffleOp>(loc, lo, hi, pick);
    if (col0 < 0)
      v = b.create<vector::ShuffleOp>(loc, v, padRow, outside);
    return v;
  };
  int64_t rowMin = INT64_MAX, rowMax = INT64_MIN;
  for (const Input &in : inputs)
    if (in.kind == Kind::Tap) {
      rowMin = std::min(rowMin, in.row - low[2]);
      rowMax = std::max(rowMax, in.row - low[2]);
    }
  // A loop step's tap vectors by (row key, piece start, column shift):
  // those it takes from the step before (`carriedIn`) and those it builds.
  using TapKey = std::tuple<int64_t, int64_t, int64_t>;
  std::map<TapKey, Value> carriedIn, produced;
  // Piece `k` of output row `base` + `offset` into `plane`, `fixed` where
  // the row is a constant (then `base` is unused).
  auto emitPiece = [&](Value base, int64_t offset, std::optional<int64_t> fixed, Value plane,
                       int64_t k) -> Value {
    Value r = fixed ? idx(*fixed)
                    : (offset ? b.create<arith::AddIOp>(loc, base, idx(offset)).getResult() : base);
    Value scaledBase;
    if (!fixed)
      scaledBase = sh == 1 ? base : b.create<arith::MulIOp>(loc, base, idx(sh)).getResult();
    SmallVector<Value> operands;
    for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
      const Input &input = inputs[i];
      if (input.kind == Kind::Tap) {
        int64_t dy = input.row - low[2], col = sw * k * lanes + input.col - low[3];
        if ((fixed && (sh * *fixed + dy < 0 || sh * *fixed + dy >= srcH)) || col >= srcW) {
          operands.push_back(padRow);
          continue;
        }
        // The input row: sh * fixed + dy, or sh * base + (sh * offset + dy).
        int64_t rowKey = fixed ? sh * *fixed + dy : sh * offset + dy;
        TapKey key{rowKey, sw * k * lanes, input.col - low[3]};
        if (!fixed)
          if (auto it = carriedIn.find(key); it != carriedIn.end()) {
            operands.push_back(it->second);
            continue;
          }
        Value y = fixed ? idx(rowKey)
                        : (rowKey ? b.create<arith::AddIOp>(loc, scaledBase, idx(rowKey))
                                        .getResult()
                                  : scaledBase);
        Value taps = readTaps(rowKey, y, sw * k * lanes, input.col - low[3]);
        if (!fixed)
          produced[key] = taps;
        operands.push_back(taps);
      } else if (input.kind == Kind::Element) {
        operands.push_back(read(in->get(), w, r, k * lanes));
      } else {
        operands.push_back(uniform[i]);
      }
    }
    Value result = dlc::applyElementwise(b, loc, op, operands);
    int64_t count = std::min(lanes, w - k * lanes);
    if (count != lanes)
      result = b.create<vector::ExtractStridedSliceOp>(loc, result, ArrayRef<int64_t>{0},
                                                       ArrayRef<int64_t>{count},
                                                       ArrayRef<int64_t>{1});
    Value zero = idx(0);
    plane = b.create<vector::TransferWriteOp>(loc, result, plane,
                                              ValueRange{zero, zero, r, idx(k * lanes)},
                                              ArrayRef<bool>{true})
                .getResult();
    return plane;
  };
  int64_t numPieces = (w + lanes - 1) / lanes;
  auto emitRow = [&](Value base, int64_t offset, std::optional<int64_t> fixed,
                     Value plane) -> Value {
    for (int64_t k = 0; k < numPieces; ++k)
      plane = emitPiece(base, offset, fixed, plane, k);
    return plane;
  };
  // Rows whose whole window is inside the input: [first, end).
  int64_t first = std::clamp<int64_t>((-rowMin + sh - 1) / sh, 0, h);
  int64_t end = srcH - 1 - rowMax < 0 ? first
                                      : std::clamp<int64_t>((srcH - 1 - rowMax) / sh + 1, first, h);
  // At stride 1 those go in blocks of 4, a loop iteration each: an input
  // row's pieces, read once a block, serve every output row of the block
  // whose window holds it (6 rows read for 4 written instead of 12). With
  // the shifts shuffled from aligned pieces, MobileNetV2's depthwise convs
  // on Zen 5, one thread (perf, in the model): 144 channels over 56x56
  // 0.079 -> 0.052 ms, 32 over 112x112 0.066 -> 0.051, 192 over 28x28 (two)
  // 0.073 -> 0.058. At stride 2 rows stay one an iteration: in blocks of 2
  // the 96-channel 112x112 -> 56x56 conv ran 0.083 -> 0.093 ms (its 32
  // input columns a piece, 5 rows of them, no longer fit the registers).
  const int64_t kRowBlock = dlc::slidRowsPerStep(sh);
  int64_t blockEnd = first + (end - first) / kRowBlock * kRowBlock;
  for (int64_t r = 0; r < h; ++r)
    if (r < first || r >= blockEnd) {
      pieces.clear();
      plane = emitRow(Value(), 0, r, plane);
    }
  if (first < blockEnd) {
    // At stride 2 the last input row a step reads is the next step's
    // first: its tap vectors (the even columns, the odd, the odd one lane
    // right, a piece each) go to the next step in registers instead of
    // being loaded and shuffled again, 6 shuffles an output row for 9. A C
    // copy of MobileNetV2's 96-channel 112x112 -> 56x56 loop (Zen 4): 119
    // -> 90 us.
    // Rows one a step (stride over 1): the step's tap vectors (emitRow's
    // keys); a first-row one is carried where the step builds the same one
    // sh rows down. (At stride 1 four rows a step already share theirs.)
    SmallVector<TapKey> carried;
    int64_t advance = sh * kRowBlock;
    if (kRowBlock == 1) {
      std::set<TapKey> keys;
      for (int64_t k = 0; k * lanes < w; ++k)
        for (const Input &input : inputs)
          if (input.kind == Kind::Tap && sw * k * lanes + input.col - low[3] < srcW)
            keys.insert({input.row - low[2], sw * k * lanes, input.col - low[3]});
      for (auto [row, start, shift] : keys)
        if (row == rowMin && keys.count({row + advance, start, shift}))
          carried.push_back({row, start, shift});
    }
    // The first step's carried vectors, from its first input row.
    SmallVector<Value> inits{plane};
    pieces.clear();
    for (auto [row, start, shift] : carried)
      inits.push_back(readTaps(sh * first + row, idx(sh * first + row), start, shift));
    auto rows = b.create<scf::ForOp>(loc, idx(first), idx(blockEnd), idx(kRowBlock), inits);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rows.getBody());
    pieces.clear();
    carriedIn.clear();
    produced.clear();
    for (auto [i, key] : llvm::enumerate(carried))
      carriedIn[key] = rows.getRegionIterArgs()[i + 1];
    Value written = rows.getRegionIterArgs()[0];
    // A piece column at a time, its rows inner: a column's tap vectors
    // (and the pieces beside it that its shifts read) die once its four
    // rows are written. Row by row they all lived until the block's last
    // row and LLVM spilled (112 columns: 50 stack reloads a step). One
    // thread, Zen 4, each conv alone: MobileNetV2's 192-channel 28x28
    // depthwise conv 39.3 -> 37.6 us; its 56- and 112-column ones even.
    for (int64_t k = 0; k < numPieces; ++k)
      for (int64_t j = 0; j < kRowBlock; ++j)
        written = emitPiece(rows.getInductionVar(), j, std::nullopt, written, k);
    SmallVector<Value> yields{written};
    for (auto [row, start, shift] : carried) {
      Value next = produced[TapKey{row + advance, start, shift}];
      assert(next && "emitRow builds every key the step does not take in");
      yields.push_back(next);
    }
    b.create<scf::YieldOp>(loc, yields);
    carriedIn.clear();
    plane = rows.getResult(0);
  }
  return plane;
}

/// The window op `op` (dlc::matchPaddedTaps, over f32 with a body of
/// scalar elementwise ops that does not read its init) as row vectors of
/// `lanes` lanes; failure where it does not match or its taps' column
/// stride is over 2 (a row piece reads at most two vectors).
LogicalResult slide(linalg::GenericOp op, int64_t lanes, int64_t maxRows) {
  std::optional<dlc::PaddedTaps> taps = dlc::matchPaddedTaps(op);
  if (!taps)
    return failure();
  auto outType = cast<RankedTensorType>(op.getResultTypes().front());
  if (!outType.getElementType().isF32() || !dlc::hasScalarElementwiseBody(op) ||
      !op.getBody()->getArgument(op.getNumDpsInputs()).use_empty() || taps->strideW > 2)
    return failure();
  MLIRContext *ctx = op.getContext();
  ArrayRef<Input> inputs = taps->inputs;
  tensor::PadOp pad = taps->pad;
  int64_t sh = taps->strideH, sw = taps->strideW;
  Value source = pad.getSource();
  auto srcType = cast<RankedTensorType>(source.getType());
  ArrayRef<int64_t> low = pad.getStaticLow();
  int64_t n = outType.getDimSize(0), c = outType.getDimSize(1), h = outType.getDimSize(2),
          w = outType.getDimSize(3), srcH = srcType.getDimSize(2), srcW = srcType.getDimSize(3);
  // Rows of one vector, few enough to unroll: each read once.
  bool narrow = w <= lanes && srcW <= lanes && h <= maxRows && srcH <= sh * maxRows + 2;
  // Two channels a vector where a row and a lane of the pad's value fit
  // half of it twice (7x7 maps at stride 1: a channel in lanes 0-6, the
  // next in 8-14, lanes 7 and 15 the pad's value, which the shifts bring
  // in at each half's ends): one channel a vector left 9 of 16 lanes idle,
  // and MobileNetV2's three 960-channel 7x7 convs took 0.038 ms at one
  // thread, 0.022 paired (Zen 5, perf, in the model).
  int64_t half = lanes / 2;
  // At stride 2 the input row is twice the output's: where it fits one
  // vector with a lane to spare, each channel's row is read into a vector
  // of its own (the pad's value past it) and one shuffle of the pair's two
  // rows takes both channels' taps, each half's out-of-row columns from
  // its own row's spare lane (MobileNetV2's 576-channel stride-2 conv,
  // rows of 14 down to 7: one channel a vector left 9 of 16 lanes idle).
  bool pairFits = narrow && w < half && c % 2 == 0;
  bool rowsApart = pairFits && sw == 2 && srcW < lanes;
  bool paired = rowsApart || (pairFits && sw == 1 && srcW < half);

  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  auto rowType = VectorType::get({lanes}, f32);
  auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  Value init = op.getDpsInitOperand(0)->get();
  auto forall = b.create<scf::ForallOp>(loc, getAsIndexOpFoldResult(ctx, {n, paired ? c / 2 : c}),
                                        ValueRange{init}, std::nullopt);
  b.setInsertionPointToStart(forall.getBody());
  Value bn = forall.getInductionVar(0), ch = forall.getInductionVar(1);
  // Paired: the pair's first channel and the next (unused otherwise).
  if (paired)
    ch = b.create<arith::MulIOp>(loc, ch, idx(2));
  Value nextCh = paired ? b.create<arith::AddIOp>(loc, ch, idx(1)).getResult() : ch;
  Value shared = forall.getRegionIterArgs()[0];
  Value zero = idx(0);
  // The pad's value in every lane: rows outside the input, and the lanes
  // past a row that its shifts bring in.
  Value padValue = b.create<arith::ConstantOp>(loc, taps->padValue);
  Value padRow = b.create<vector::BroadcastOp>(loc, rowType, padValue);
  // A row of `x` (srcW or w wide) in a vector of `lanes`, the pad's value
  // past it.
  auto readRowOf = [&](Value x, int64_t width, Value channel, Value row, Value into,
                       int64_t at) -> Value {
    Value part = b.create<vector::TransferReadOp>(
        loc, VectorType::get({width}, f32), x, ValueRange{bn, channel, row, zero}, padValue,
        ArrayRef<bool>{true});
    if (width == lanes)
      return part;
    return b.create<vector::InsertStridedSliceOp>(loc, part, into, ArrayRef<int64_t>{at},
                                                  ArrayRef<int64_t>{1});
  };
  // Paired, the row of both channels, the second's from lane `half`.
  auto readRow = [&](Value x, int64_t width, Value row) -> Value {
    Value v = readRowOf(x, width, ch, row, padRow, 0);
    return paired ? readRowOf(x, width, nextCh, row, v, half) : v;
  };
  // Input row `y` (padded coordinates) shifted so that lane j holds its
  // column sw * j + shift (source coordinates), built once for every output row
  // and tap that reads it.
  std::map<std::pair<int64_t, int64_t>, Value> shifted;
  std::map<int64_t, Value> loaded;
  // rowsApart: each channel's row, in a vector of its own.
  std::map<int64_t, std::pair<Value, Value>> loadedApart;
  auto tapRow = [&](int64_t y, int64_t shift) -> Value {
    int64_t srcRow = y - low[2];
    if (srcRow < 0 || srcRow >= srcH)
      return padRow;
    auto key = std::make_pair(srcRow, shift);
    if (Value v = shifted[key])
      return v;
    if (rowsApart) {
      // Lane j of the pair's half j / half: its channel's row at column sw
      // * (j % half) + shift, or that row's first spare lane (srcW).
      auto &[first, second] = loadedApart[srcRow];
      if (!first) {
        first = readRowOf(source, srcW, ch, idx(srcRow), padRow, 0);
        second = readRowOf(source, srcW, nextCh, idx(srcRow), padRow, 0);
      }
      SmallVector<int64_t> mask;
      for (int64_t j = 0; j < lanes; ++j) {
        int64_t from = sw * (j % half) + shift;
        mask.push_back(j / half * lanes + (from >= 0 && from < srcW ? from : srcW));
      }
      return shifted[key] = b.create<vector::ShuffleOp>(loc, first, second, mask);
    }
    Value &row = loaded[srcRow];
    if (!row)
      row = readRow(source, srcW, idx(srcRow));
    Value v = row;
    if (shift != 0 || sw != 1) {
      // Lanes of `row` (0..lanes-1) and of padRow (lanes..): a column
      // outside the row takes the pad's value.
      SmallVector<int64_t> mask;
      for (int64_t j = 0; j < lanes; ++j) {
        // Paired, each half shifts on its own.
        int64_t base = paired ? j / half * half : 0, col = paired ? j % half : j;
        int64_t from = sw * col + shift;
        mask.push_back(from >= 0 && from < srcW ? base + from : lanes);
      }
      v = b.create<vector::ShuffleOp>(loc, row, padRow, mask);
    }
    return shifted[key] = v;
  };
  // Per-channel and scalar inputs, once per channel.
  SmallVector<Value> uniform(inputs.size());
  for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
    if (inputs[i].kind == Kind::Channel)
      uniform[i] = b.create<tensor::ExtractOp>(loc, in->get(), ValueRange{ch});
    if (inputs[i].kind == Kind::Channel && paired) {
      // The first channel's value in the first half, the next's after.
      Value next = b.create<tensor::ExtractOp>(loc, in->get(), ValueRange{nextCh});
      SmallVector<int64_t> pick;
      for (int64_t j = 0; j < lanes; ++j)
        pick.push_back(j < half ? j : lanes + j);
      uniform[i] = b.create<vector::ShuffleOp>(
          loc, b.create<vector::BroadcastOp>(loc, rowType, uniform[i]),
          b.create<vector::BroadcastOp>(loc, rowType, next), pick);
    }
    else if (inputs[i].kind == Kind::Scalar)
      uniform[i] = b.create<tensor::ExtractOp>(loc, in->get(), ValueRange{});
  }
  SmallVector<OpFoldResult> offsets{bn, ch, b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, {1, paired ? 2 : 1, h, w});
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  Value plane = b.create<tensor::ExtractSliceOp>(loc, shared, offsets, sizes, strides);
  if (!narrow) {
    plane = wideRows(b, loc, op, inputs, source, padRow, uniform, plane, bn, ch, low, sh, sw);
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    b.create<tensor::ParallelInsertSliceOp>(loc, plane, shared, offsets, sizes, strides);
    return finish(op, forall, *taps, lanes, narrow);
  }
  for (int64_t r = 0; r < h; ++r) {
    SmallVector<Value> operands;
    for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
      switch (inputs[i].kind) {
      case Kind::Tap:
        operands.push_back(tapRow(sh * r + inputs[i].row, inputs[i].col - low[3]));
        break;
      case Kind::Element:
        operands.push_back(readRow(in->get(), w, idx(r)));
        break;
      default:
        operands.push_back(uniform[i]);
      }
    }
    Value result = dlc::applyElementwise(b, loc, op, operands);
    // The row (paired: each channel's, from its half).
    for (int64_t k = 0; k < (paired ? 2 : 1); ++k) {
      Value row = result;
      if (w != lanes)
        row = b.create<vector::ExtractStridedSliceOp>(loc, result, ArrayRef<int64_t>{k * half},
                                                      ArrayRef<int64_t>{w},
                                                      ArrayRef<int64_t>{1});
      plane = b.create<vector::TransferWriteOp>(loc, row, plane,
                                                ValueRange{zero, idx(k), idx(r), zero},
                                                ArrayRef<bool>{true})
                  .getResult();
    }
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  b.create<tensor::ParallelInsertSliceOp>(loc, plane, shared, offsets, sizes, strides);
  return finish(op, forall, *taps, lanes, narrow, paired);
}

/// Replaces `op` by `forall`, records the kernel and erases what only the
/// window op read.
LogicalResult finish(linalg::GenericOp op, scf::ForallOp forall, const dlc::PaddedTaps &taps,
                     int64_t lanes, bool narrow, bool paired) {
  // `dlc inspect` lists a depthwise conv's kernel under its name (the pad's
  // loc); a pool has no entry to replace.
  tensor::PadOp pad = taps.pad;
  int64_t srcW = pad.getSourceType().getDimSize(3);
  // Wide rows go four output rows a step at stride 1, else one a step,
  // whose last input row's taps the next takes over where the window is
  // taller than the stride (wideRows).
  int64_t top = INT64_MAX, bottom = INT64_MIN;
  for (const Input &in : taps.inputs)
    if (in.kind == Kind::Tap) {
      top = std::min(top, in.row);
      bottom = std::max(bottom, in.row);
    }
  std::string steps = taps.strideH == 1 ? "4 output rows a step ("
                      : taps.strideH <= bottom - top
                          ? "an output row a step, its last input row's taps kept for the next ("
                          : "an output row a step (";
  std::string how =
      paired ? " read once, two channels a vector, and shifted in registers ("
      : narrow            ? " read once a channel and shifted in registers ("
      : taps.strideW == 1 ? " read in aligned " + std::to_string(lanes) +
                                "-lane pieces, shifts in registers, " + steps
                          : " read in " + std::to_string(2 * lanes) +
                                "-column pieces, even and odd columns split in registers, " + steps;
  std::string strides = taps.strideH == taps.strideW
                            ? (taps.strideW == 1 ? "" : " at stride " + std::to_string(taps.strideW))
                            : " at strides " + std::to_string(taps.strideH) + " down, " +
                                  std::to_string(taps.strideW) + " across";
  dlc::replaceKernel(pad, "depthwise: " + std::to_string(taps.numTaps()) + " taps" + strides +
                              " from rows of " +
                              std::to_string(srcW) + how + std::to_string(lanes) +
                              "-lane rows, no padded copy)");
  dlc::replacePaddedTaps(op, taps, forall.getResult(0));
  return success();
}

struct SlideTapsInRegistersPass
    : dlc::impl::SlideTapsInRegistersBase<SlideTapsInRegistersPass> {
  using SlideTapsInRegistersBase::SlideTapsInRegistersBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      (void)slide(op, vectorWidth, maxRows);
  }
};
} // namespace
