//===- SoftmaxToRowLoops.cpp - Softmax and LogSoftmax a row at a time ------===//
//
// dlc-lower-to-linalg builds a Softmax from whole-tensor stages: the row
// maxima, exp(x - max) into a buffer, the row sums, the scaled output. Each
// stage is its own loop over every row (a 64 x 1000 Softmax swept 1.25 MB
// through L2 for 256 KB of input), the row reductions end in a serial loop
// over the rows, and the max's arith.maximumf ran as four dependent chains
// of a compare, a blend and a max. onnxruntime (MLAS) runs the three passes
// of a row while the row is in L1: 1.5x faster at one thread.
//
// This pass rewrites a Softmax or LogSoftmax over the innermost elements
// (opset 13's last axis, or coerce_2d's flattened tail) of a static f32
// tensor into one scf.forall over its rows, whose body is vector code on
// the row: the max, then exp(x - max) with its sum (Softmax stores it in
// the output row), then the output row scaled by one reciprocal (Softmax)
// or x - (max + log(sum)) (LogSoftmax). The row goes in chunks of four
// vectors (four independent accumulators: LLVM splits the wide vector),
// then single vectors, then one chunk per set bit of what is left (1000 at
// 16 lanes: 15 x 64, 2 x 16, 8), all in bounds: no masks and no scalar
// loop. The thread pool shares out the rows. Other Softmaxes (another
// axis, dynamic shapes, other element types) keep dlc-lower-to-linalg's.
//
//===----------------------------------------------------------------------===//
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "dialects/DlcDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

namespace dlc {
#define GEN_PASS_DEF_SOFTMAXTOROWLOOPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The in-bounds chunks a row of `n` elements goes in: `count` chunks of
/// `width` from `start`. Chunks of `wide` elements, then of `lanes`, then
/// one per set bit of the rest (1000 at 16 lanes: 15 x 64, 2 x 16, 1 x 8).
struct ChunkGroup {
  int64_t width, start, count;
};

SmallVector<ChunkGroup> chunkGroups(int64_t n, int64_t wide, int64_t lanes) {
  SmallVector<ChunkGroup> groups;
  int64_t at = 0;
  for (int64_t width : {wide, lanes})
    if (int64_t count = (n - at) / width) {
      groups.push_back({width, at, count});
      at += count * width;
    }
  for (int64_t width = lanes / 2; width >= 1; width /= 2)
    if ((n - at) & width) {
      groups.push_back({width, at, 1});
      at += width;
    }
  return groups;
}

/// `step` over a group's chunks, threading `init` through them: an scf.for,
/// or the one chunk inline. `step` gets the chunk's offset and the carried
/// values and returns their next values.
using ChunkFn = function_ref<SmallVector<Value>(OpBuilder &, Location, Value offset,
                                               ValueRange carried)>;

SmallVector<Value> overChunks(OpBuilder &b, Location loc, const ChunkGroup &g, ValueRange init,
                              ChunkFn step) {
  auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
  if (g.count == 1)
    return step(b, loc, idx(g.start), init);
  auto loop = b.create<scf::ForOp>(
      loc, idx(g.start), idx(g.start + g.count * g.width), idx(g.width), init,
      [&](OpBuilder &nb, Location l, Value offset, ValueRange args) {
        nb.create<scf::YieldOp>(l, step(nb, l, offset, args));
      });
  return SmallVector<Value>(loop.getResults().begin(), loop.getResults().end());
}

Value readChunk(OpBuilder &b, Location loc, Value tensor, Value row, Value offset,
                int64_t width) {
  auto type = VectorType::get({width}, b.getF32Type());
  Value pad = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));
  return b.create<vector::TransferReadOp>(loc, type, tensor, ValueRange{row, offset}, pad,
                                          ArrayRef<bool>{true});
}

Value writeChunk(OpBuilder &b, Location loc, Value v, Value tensor, Value row, Value offset) {
  return b.create<vector::TransferWriteOp>(loc, v, tensor, ValueRange{row, offset},
                                           ArrayRef<bool>{true})
      .getResult();
}

Value splat(OpBuilder &b, Location loc, Value scalar, int64_t width) {
  return b.create<vector::BroadcastOp>(loc, VectorType::get({width}, b.getF32Type()), scalar);
}

/// exp(x) for x <= 0 (x - max of a row, or NaN), as MLAS computes a
/// softmax's exponentials: 2^m * p(r) with m = round(x / ln 2) from the
/// rounding bias (1.5 * 2^23, whose low mantissa bits then hold m),
/// r = x - m ln 2 in two parts, p of degree 7 (MLAS's coefficients, about
/// 1 ulp); 14 vector instructions where math.exp's approximation took 26
/// (it also handles overflow, which x <= 0 cannot reach). Below ln(FLT_MIN)
/// the result is 0 (the denormals flushed, -inf included); a NaN stays NaN.
Value expOfNonPositive(OpBuilder &b, Location loc, Value x) {
  auto type = cast<VectorType>(x.getType());
  auto intType = VectorType::get(type.getShape(), b.getI32Type());
  auto f = [&](float v) {
    return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, b.getF32FloatAttr(v)))
        .getResult();
  };
  auto fma = [&](Value a, Value m, Value c) { return b.create<math::FmaOp>(loc, a, m, c).getResult(); };
  Value bias = f(12582912.0f);
  Value biased = fma(x, f(1.44269504088896341f), bias);
  Value m = b.create<arith::SubFOp>(loc, biased, bias);
  Value r = fma(m, f(-6.93145752e-1f), x);
  r = fma(m, f(-1.42860677e-6f), r);
  Value p = f(1.37805939e-3f);
  for (float c : {8.37312452e-3f, 4.16695364e-2f, 1.66664720e-1f, 4.99999851e-1f, 1.0f, 1.0f})
    p = fma(p, r, f(c));
  Value bits = b.create<arith::BitcastOp>(loc, intType, biased);
  auto i = [&](int32_t v) {
    return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(intType, b.getI32IntegerAttr(v)));
  };
  Value exponent = b.create<arith::AddIOp>(loc, b.create<arith::ShLIOp>(loc, bits, i(23)),
                                           i(127 << 23));
  Value y = b.create<arith::MulFOp>(loc, p, b.create<arith::BitcastOp>(loc, type, exponent));
  Value tiny = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, f(-87.33654f));
  return b.create<arith::SelectOp>(loc, tiny, f(0.0f), y);
}

/// A chunk's values: `width` elements from `offset` of the row; may thread
/// the output row (`rowTensor`) through a write.
using ChunkValueFn =
    function_ref<Value(OpBuilder &, Location, Value offset, int64_t width, Value &rowTensor)>;

/// The row's sum or max of two values (scalars or vectors). The max is a
/// compare and select, one vmaxps: arith.maximumf's NaN and signed-zero
/// rules cost a compare, two blends and a sign test each, and neither
/// matters here (a NaN the max skips still reaches every output through
/// its own exponential and the sum; x - max is the same for either zero).
Value combine(OpBuilder &b, Location loc, bool isSum, Value acc, Value v) {
  if (isSum)
    return b.create<arith::AddFOp>(loc, acc, v);
  Value greater = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, v, acc);
  return b.create<arith::SelectOp>(loc, greater, v, acc);
}

/// A vector's lanes combined as a tree of halves: vector.reduction's f32
/// add is ordered (one scalar add after another, 64 in a row for the wide
/// partial) and its maximumf a scalar chain with NaN checks.
Value combineLanes(OpBuilder &b, Location loc, bool isSum, Value v) {
  for (int64_t width = cast<VectorType>(v.getType()).getNumElements(); width > 1; width /= 2) {
    int64_t half = width / 2;
    Value lo = b.create<vector::ExtractStridedSliceOp>(loc, v, ArrayRef<int64_t>{0},
                                                       ArrayRef<int64_t>{half},
                                                       ArrayRef<int64_t>{1});
    Value hi = b.create<vector::ExtractStridedSliceOp>(loc, v, ArrayRef<int64_t>{half},
                                                       ArrayRef<int64_t>{half},
                                                       ArrayRef<int64_t>{1});
    v = combine(b, loc, isSum, lo, hi);
  }
  return b.create<vector::ExtractOp>(loc, v, 0);
}

/// A reduction over a row: each chunk group folds into a vector partial
/// (the wide group's four independent registers), its lanes combined once
/// after the group. `rowTensor`, where set, is threaded through the chunks
/// (updated to the last one's).
Value reduceRow(OpBuilder &b, Location loc, ArrayRef<ChunkGroup> groups, bool isSum,
                float identity, Value &rowTensor, ChunkValueFn chunk) {
  Value total = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(identity));
  for (const ChunkGroup &g : groups) {
    auto type = VectorType::get({g.width}, b.getF32Type());
    SmallVector<Value> init{b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, b.getF32FloatAttr(identity)))};
    if (rowTensor)
      init.push_back(rowTensor);
    SmallVector<Value> done =
        overChunks(b, loc, g, init, [&](OpBuilder &cb, Location cl, Value offset, ValueRange c) {
          Value row = rowTensor ? c[1] : Value();
          SmallVector<Value> next{
              combine(cb, cl, isSum, c[0], chunk(cb, cl, offset, g.width, row))};
          if (row)
            next.push_back(row);
          return next;
        });
    if (rowTensor)
      rowTensor = done[1];
    total = combine(b, loc, isSum, total, combineLanes(b, loc, isSum, done[0]));
  }
  return total;
}

/// Softmax or LogSoftmax over the rows of `x` ([rows, n], f32): one forall
/// iteration a row.
Value rowLoops(OpBuilder &b, Location loc, Value x, bool isLog, int64_t lanes) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rows = type.getDimSize(0), n = type.getDimSize(1);
  SmallVector<ChunkGroup> groups = chunkGroups(n, 4 * lanes, lanes);
  Value empty = b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  auto forall = b.create<scf::ForallOp>(
      loc, ArrayRef<OpFoldResult>{b.getIndexAttr(rows)}, ValueRange{empty},
      /*mapping=*/std::nullopt, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value row = args[0], out = args[1];
        // The output row ([1, n]) the passes write: in place in the
        // forall's output once bufferized (the whole output threaded
        // through the loops was copied per row).
        auto unit = nb.getIndexAttr(1);
        SmallVector<OpFoldResult> rowOffsets{row, nb.getIndexAttr(0)},
            rowSizes{unit, nb.getIndexAttr(n)}, rowStrides{unit, unit};
        Value outRow = nb.create<tensor::ExtractSliceOp>(l, out, rowOffsets, rowSizes, rowStrides);
        Value zero = nb.create<arith::ConstantIndexOp>(l, 0);
        Value noRow;
        Value max = reduceRow(nb, l, groups, /*isSum=*/false,
                              -std::numeric_limits<float>::infinity(), noRow,
                              [&](OpBuilder &cb, Location cl, Value offset, int64_t width,
                                  Value &) { return readChunk(cb, cl, x, row, offset, width); });
        // exp(x - max) and its sum; Softmax keeps it in the output row.
        Value rowTensor = isLog ? Value() : outRow;
        Value sum = reduceRow(
            nb, l, groups, /*isSum=*/true, 0.0f, rowTensor,
            [&](OpBuilder &cb, Location cl, Value offset, int64_t width, Value &rowIn) {
              Value v = readChunk(cb, cl, x, row, offset, width);
              Value e = expOfNonPositive(
                  cb, cl, cb.create<arith::SubFOp>(cl, v, splat(cb, cl, max, width)));
              if (rowIn)
                rowIn = writeChunk(cb, cl, e, rowIn, zero, offset);
              return e;
            });
        // The output row: e * (1 / sum), or x - (max + log(sum)).
        Value factor =
            isLog ? nb.create<arith::AddFOp>(l, max, nb.create<math::LogOp>(l, sum)).getResult()
                  : nb.create<arith::DivFOp>(
                          l, nb.create<arith::ConstantOp>(l, nb.getF32FloatAttr(1.0f)), sum)
                        .getResult();
        Value result = isLog ? outRow : rowTensor;
        for (const ChunkGroup &g : groups)
          result = overChunks(
              nb, l, g, result,
              [&](OpBuilder &cb, Location cl, Value offset, ValueRange c) {
                Value f = splat(cb, cl, factor, g.width);
                Value y =
                    isLog ? cb.create<arith::SubFOp>(cl, readChunk(cb, cl, x, row, offset, g.width), f)
                                .getResult()
                          : cb.create<arith::MulFOp>(
                                  cl, readChunk(cb, cl, c[0], zero, offset, g.width), f)
                                .getResult();
                return SmallVector<Value>{writeChunk(cb, cl, y, c[0], zero, offset)};
              })[0];
        // The row back into the forall's output.
        auto inParallel = nb.create<scf::InParallelOp>(l);
        OpBuilder::InsertionGuard guard(nb);
        nb.setInsertionPointToStart(inParallel.getBody());
        nb.create<tensor::ParallelInsertSliceOp>(l, result, out, rowOffsets, rowSizes,
                                                 rowStrides);
      });
  return forall.getResult(0);
}

template <typename OpTy>
void rewrite(OpTy op, int64_t lanes) {
  auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() || type.getRank() == 0)
    return;
  int64_t axis = op.getAxis();
  // Over the innermost elements only: the last dim, or coerce_2d's tail.
  if (!op.getCoerce_2d() && axis != type.getRank() - 1)
    return;
  int64_t rows = 1, n = 1;
  for (int64_t i = 0; i < type.getRank(); ++i)
    (i < axis ? rows : n) *= type.getDimSize(i);
  if (rows == 0 || n == 0)
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = dlc::reshapeStatic(b, loc, op.getInput(), {rows, n});
  Value y = rowLoops(b, loc, x, std::is_same_v<OpTy, dlc::LogSoftmaxOp>, lanes);
  op.getResult().replaceAllUsesWith(dlc::reshapeStatic(b, loc, y, type.getShape()));
  op.erase();
}

struct SoftmaxToRowLoopsPass : dlc::impl::SoftmaxToRowLoopsBase<SoftmaxToRowLoopsPass> {
  using SoftmaxToRowLoopsBase::SoftmaxToRowLoopsBase;
  void runOnOperation() override {
    if (vectorWidth < 1 || (vectorWidth & (vectorWidth - 1))) {
      getOperation().emitError("dlc-softmax-to-row-loops: vector-width must be a power of two, got ")
          << static_cast<int64_t>(vectorWidth);
      return signalPassFailure();
    }
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<dlc::SoftmaxOp, dlc::LogSoftmaxOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto s = dyn_cast<dlc::SoftmaxOp>(op))
        rewrite(s, vectorWidth);
      else
        rewrite(cast<dlc::LogSoftmaxOp>(op), vectorWidth);
    }
  }
};
} // namespace
