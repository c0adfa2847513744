//===- SplitPaddedTaps.cpp - depthwise taps without a padded copy ---------===//
//
// dlc-depthwise-conv-to-taps (and -pooling-to-taps) read each window
// position (tap) as a strided slice of the padded input: the pad is a copy
// of the whole input plus a frame, written before the window op reads it.
// Before a stride-2 depthwise conv of MobileNetV2 (96 channels, 112x112)
// that copy took longer than the conv.
//
// Here the output is cut into regions where every tap is either inside the
// input or outside it: the interior, whose taps are slices of the unpadded
// input, and the one-element-wide frame rows and columns and corners, where
// a tap outside the input reads the pad's value (zeros, broadcast per
// channel like the weights). Each region is the same elementwise op (bias,
// BatchNorm, activation still fused) on slices; the pad goes.
//
//===----------------------------------------------------------------------===//
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace dlc {
#define GEN_PASS_DEF_SPLITPADDEDTAPS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// One tap: the generic's input operand reading it and where its window
/// starts in padded coordinates (row, column).
struct Tap {
  unsigned input;
  int64_t row, col;
};

/// Output rows [begin, end) of one region along a dim.
struct Range {
  int64_t begin, end;
};

/// Whether output index `o` reads source index o * stride + offset - low
/// inside [0, size).
bool inside(int64_t o, int64_t stride, int64_t offset, int64_t low, int64_t size) {
  int64_t i = o * stride + offset - low;
  return i >= 0 && i < size;
}

/// The ranges along one output dim of `out` elements: a first element whose
/// taps may fall before the source, the interior where all fall inside,
/// and a last element whose taps may fall after it. Fails when a frame
/// would be wider than one element (pads over 1 at stride 1).
FailureOr<SmallVector<Range>> splitDim(int64_t out, int64_t stride, ArrayRef<int64_t> offsets,
                                       int64_t low, int64_t size) {
  auto allInside = [&](int64_t o) {
    return llvm::all_of(offsets, [&](int64_t off) { return inside(o, stride, off, low, size); });
  };
  int64_t begin = 0, end = out;
  while (begin < out && !allInside(begin))
    ++begin;
  while (end > begin && !allInside(end - 1))
    --end;
  if (begin > 1 || out - end > 1 || begin >= end)
    return failure();
  SmallVector<Range> ranges;
  if (begin == 1)
    ranges.push_back({0, 1});
  ranges.push_back({begin, end});
  if (end < out)
    ranges.push_back({end, out});
  return ranges;
}

/// Rewrites `op` if it reads taps of a constant tensor.pad (a depthwise
/// conv's zeros, a max pool's -inf) at strides of at least `minStride`;
/// false if it does not match.
bool split(linalg::GenericOp op, int64_t minStride) {
  // (A body reading its iteration indices, which matchPaddedTaps rejects,
  // would see each region's from 0.) Every input besides the taps is per
  // channel (weights, BatchNorm) or reads the output's element (a
  // residual): sliced along with the region.
  std::optional<dlc::PaddedTaps> matched = dlc::matchPaddedTaps(op);
  if (!matched || matched->numTaps() < 2 || matched->strideH < minStride ||
      matched->strideW < minStride)
    return false;
  MLIRContext *ctx = op.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  auto outType = cast<RankedTensorType>(op.getResultTypes().front());
  tensor::PadOp pad = matched->pad;
  int64_t strideH = matched->strideH, strideW = matched->strideW;
  TypedAttr padValue = matched->padValue;
  Value source = pad.getSource();
  auto srcType = cast<RankedTensorType>(source.getType());
  ArrayRef<int64_t> low = pad.getStaticLow();
  SmallVector<Tap> taps;
  for (auto [i, in] : llvm::enumerate(matched->inputs))
    if (in.kind == dlc::PaddedTaps::Kind::Tap)
      taps.push_back({static_cast<unsigned>(i), in.row, in.col});
  SmallVector<int64_t> rowOffsets, colOffsets;
  for (const Tap &t : taps) {
    rowOffsets.push_back(t.row);
    colOffsets.push_back(t.col);
  }
  int64_t h = srcType.getDimSize(2), w = srcType.getDimSize(3);
  FailureOr<SmallVector<Range>> rows =
      splitDim(outType.getDimSize(2), strideH, rowOffsets, low[2], h);
  FailureOr<SmallVector<Range>> cols =
      splitDim(outType.getDimSize(3), strideW, colOffsets, low[3], w);
  if (failed(rows) || failed(cols))
    return false;

  // Taps inside the input for the whole region (its frame rows and columns
  // are one element wide: inside at one end is inside at all).
  auto tapInside = [&](const Tap &t, Range r, Range q) {
    return inside(r.begin, strideH, t.row, low[2], h) &&
           inside(r.end - 1, strideH, t.row, low[2], h) &&
           inside(q.begin, strideW, t.col, low[3], w) &&
           inside(q.end - 1, strideW, t.col, low[3], w);
  };
  auto tapOf = [&](unsigned input) -> const Tap * {
    for (const Tap &t : taps)
      if (t.input == input)
        return &t;
    return nullptr;
  };

  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t n = outType.getDimSize(0), c = outType.getDimSize(1);
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Type elem = outType.getElementType();
  AffineMap perChannel = AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx);
  // What a tap outside the input reads: the pad's value, per channel
  // (broadcast like the weights; a projected permutation, so it vectorizes).
  Value padding = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(RankedTensorType::get({c}, elem), padValue));
  Value result = b.create<tensor::EmptyOp>(loc, outType.getShape(), elem);
  for (Range r : *rows)
    for (Range q : *cols) {
      int64_t rh = r.end - r.begin, qw = q.end - q.begin;
      auto regionType = RankedTensorType::get({n, c, rh, qw}, elem);
      SmallVector<OpFoldResult> offsets{index(0), index(0), index(r.begin), index(q.begin)};
      SmallVector<OpFoldResult> sizes{index(n), index(c), index(rh), index(qw)};
      SmallVector<OpFoldResult> ones(4, index(1));
      SmallVector<Value> inputs;
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      for (OpOperand *in : op.getDpsInputOperands()) {
        unsigned i = in->getOperandNumber();
        if (const Tap *t = tapOf(i)) {
          if (tapInside(*t, r, q)) {
            inputs.push_back(b.create<tensor::ExtractSliceOp>(
                loc, regionType, source,
                ArrayRef<OpFoldResult>{index(0), index(0),
                                       index(r.begin * strideH + t->row - low[2]),
                                       index(q.begin * strideW + t->col - low[3])},
                sizes, ArrayRef<OpFoldResult>{index(1), index(1), index(strideH), index(strideW)}));
          } else {
            inputs.push_back(padding);
            maps[i] = perChannel;
          }
        } else if (op.getMatchingIndexingMap(in) == identity) {
          inputs.push_back(b.create<tensor::ExtractSliceOp>(loc, regionType, in->get(), offsets,
                                                            sizes, ones));
        } else {
          inputs.push_back(in->get());
        }
      }
      Value dest = b.create<tensor::ExtractSliceOp>(loc, regionType, result, offsets, sizes, ones);
      auto region = b.create<linalg::GenericOp>(loc, TypeRange{regionType}, inputs,
                                                ValueRange{dest}, maps,
                                                op.getIteratorTypesArray());
      IRMapping mapping;
      op.getRegion().cloneInto(&region.getRegion(), mapping);
      result = b.create<tensor::InsertSliceOp>(loc, region.getResult(0), result, offsets, sizes,
                                               ones);
    }
  // The generic, then its tap slices, init and the pad, where nothing else
  // reads them.
  dlc::replacePaddedTaps(op, *matched, result);
  return true;
}

struct SplitPaddedTapsPass : dlc::impl::SplitPaddedTapsBase<SplitPaddedTapsPass> {
  using SplitPaddedTapsBase::SplitPaddedTapsBase;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      split(op, minStride);
  }
};
} // namespace
