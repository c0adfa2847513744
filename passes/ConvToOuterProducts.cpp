//===- ConvToOuterProducts.cpp - small convs as register-tile outer products -===//
//
// A small stride-1 conv (LeNet's) spent as long gathering its im2col
// columns as multiplying them: on Zen 4 the two columns buffers (78 and
// 60 KB, past L1) took 2.5 of LeNet's 12 us, its GEMMs 6.5. Here each
// output row is one register tile summed over the window in place: per
// (channel, tap row, tap column), the tap's input row is a contiguous read
// of the (padded) input, the filter's values at that tap a contiguous read
// of the filter re-packed at compile time as [C, KH, KW, F], and the tile
// takes their outer product. No columns, no padding of the pixels to
// whole register tiles.
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
#include "mlir/IR/IRMapping.h"

namespace dlc {
#define GEN_PASS_DEF_CONVTOOUTERPRODUCTS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// The register tile of one output row: `filters` output channels by the
/// row's pixels, with the filters along the vector lanes (`filterLanes`:
/// the tile is [pixels, filters]) or the pixels (the tile is [filters,
/// pixels]).
struct RowTile {
  int64_t filters = 0;
  bool filterLanes = false;
  /// With the pixels in lanes: vectors of the row a register tile takes
  /// (0: the whole row).
  int64_t segmentVectors = 0;
};

/// The tile for F filters over rows of `ow` pixels within `accumulators`
/// vector registers of `width` lanes; filters = 0 where none fits. Filters
/// along the lanes where they fill whole vectors (LeNet's 16: rows of 10
/// pixels, one vector each, nothing padded), else the pixels (its 6
/// filters over rows of 28: 4 vectors a filter on AVX2-width vectors).
RowTile rowTileFor(int64_t f, int64_t ow, int64_t width, int64_t accumulators) {
  for (int64_t vectors : {2, 1})
    if (f % (vectors * width) == 0 && ow * vectors <= accumulators)
      return {vectors * width, true};
  int64_t perFilter = (ow + width - 1) / width; // whole vectors a row
  for (int64_t t = std::min(f, accumulators / perFilter); t >= 1; --t)
    if (f % t == 0)
      return {t, false};
  return {};
}

/// `x` [N, C, H, W] with `extra` more zero columns on the right: the
/// rows a tile of whole vectors reads past the window's last tap stay in
/// bounds (masked loads instead did not lower). A zero pad of `x`'s source
/// (the conv's own padding) gets wider instead of padded twice.
Value widenRows(OpBuilder &b, Location loc, Value x, int64_t extra) {
  if (extra == 0)
    return x;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> low(4, 0), high(4, 0);
  Value source = x;
  if (tensor::PadOp pad = dlc::zeroSpatialPadOf(x)) {
    source = pad.getSource();
    low.assign(pad.getStaticLow().begin(), pad.getStaticLow().end());
    high.assign(pad.getStaticHigh().begin(), pad.getStaticHigh().end());
  }
  high[3] += extra;
  SmallVector<int64_t> shape(type.getShape());
  shape[3] += extra;
  Value zero = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type.getElementType()));
  return b.create<tensor::PadOp>(loc, RankedTensorType::get(shape, type.getElementType()),
                                 source, getAsIndexOpFoldResult(b.getContext(), low),
                                 getAsIndexOpFoldResult(b.getContext(), high), zero);
}

/// A conv input that is a zero pad of its H and W, as the pad's source and
/// the rows and columns the pad puts before it; any other input as itself.
struct PaddedSource {
  Value source;
  int64_t top = 0, left = 0;
};

PaddedSource paddedSourceOf(Value x) {
  tensor::PadOp pad = dlc::zeroSpatialPadOf(x);
  if (!pad)
    return {x};
  return {pad.getSource(), pad.getStaticLow()[2], pad.getStaticLow()[3]};
}

struct ConvToOuterProductsPass
    : dlc::impl::ConvToOuterProductsBase<ConvToOuterProductsPass> {
  using ConvToOuterProductsBase::ConvToOuterProductsBase;

  void runOnOperation() override {
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation().walk([&](linalg::Conv2DNchwFchwOp op) { convs.push_back(op); });
    for (linalg::Conv2DNchwFchwOp op : convs)
      rewrite(op);
  }

  void rewrite(linalg::Conv2DNchwFchwOp conv) {
    if (!conv.hasPureTensorSemantics())
      return;
    auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto w = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    if (!in.hasStaticShape() || !w.hasStaticShape() || !out.hasStaticShape() ||
        !out.getElementType().isF32() ||
        !llvm::all_of(conv.getDilations().getValues<int64_t>(), [](int64_t d) { return d == 1; }))
      return;
    SmallVector<int64_t> convStrides(conv.getStrides().getValues<int64_t>());
    int64_t sh = convStrides[0], sw = convStrides[1];
    int64_t n = out.getDimSize(0), f = out.getDimSize(1), oh = out.getDimSize(2),
            ow = out.getDimSize(3);
    int64_t c = w.getDimSize(1), kh = w.getDimSize(2), kw = w.getDimSize(3);
    // 1x1 convs have no columns to save.
    if (kh * kw == 1)
      return;
    RowTile tile = rowTileFor(f, ow, vectorWidth, maxAccumulators);
    // Larger convs keep the GEMM, whose cache tiles and threads pay for the
    // columns, unless their window's input rows (all channels) stay in L1
    // across the output row's filter blocks (`max-window-row-bytes`): an
    // image stem (3 channels) spent a third of its time gathering columns
    // (ResNet-50's 7x7 stride-2 stem: 147 of them a pixel) for a GEMM that
    // otherwise ran at the FMA peak. Their rows go in segments of
    // kSegmentVectors vectors by kSegmentFilters filters: 16 accumulators,
    // 8 filter broadcasts and 2 pixel vectors a tap, which with the
    // stride's shuffle index fit AVX-512's 32 registers. Zen 5, one
    // thread, ResNet-50's stem inside the model: 1.18 ms as im2col + GEMM
    // (the BatchNorm and ReLU in its epilogue), 0.97 ms in 8 x 2 segments;
    // 8 x 3 spilled (1.46 ms), 16 x 1 took 1.08 ms.
    bool large = f * c * kh * kw * oh * ow > maxMultiplyAdds;
    if (large) {
      constexpr int64_t kSegmentFilters = 8, kSegmentVectors = 2;
      int64_t windowRowBytes = c * kh * in.getDimSize(3) * 4;
      if (windowRowBytes > maxWindowRowBytes || f % kSegmentFilters != 0)
        return;
      tile = {kSegmentFilters, false, kSegmentVectors};
    }
    if (!tile.filters)
      return;
    // Strided rows are read whole and their every sw-th element taken
    // (pixels in lanes only).
    if (sw > 1 && tile.filterLanes)
      return;
    std::optional<SmallVector<float>> filter = dlc::constantF32Values(conv.getInputs()[1]);
    if (!filter)
      return;

    OpBuilder b(conv);
    Location loc = conv.getLoc();
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    // The tile [filters, pixels], or [pixels, filters] with the filters in
    // lanes; maps from the output [N, F, OH, OW] to it. Pixels in lanes go
    // in whole vectors (LLVM split a loop-carried 6 x 28 tile into shuffles
    // and stack slots): the input gets as many more zero columns (see
    // widenRows), and the tile's extra pixels are dropped before the write.
    int64_t pixels = tile.filterLanes ? ow : (ow + vectorWidth - 1) / vectorWidth * vectorWidth;
    // The row's tile as chunks that are each one vector wide in the pixels
    // (LLVM scalarized a <112 x float> row through the stack) or, with
    // the filters in lanes, one [pixels, filters] chunk.
    int64_t chunkPixels = tile.filterLanes ? pixels : vectorWidth;
    int64_t chunks = pixels / chunkPixels;
    // One tap read: a chunk's pixels, or with a stride the sw times as many
    // columns they are taken from.
    int64_t readWidth = chunkPixels * sw;
    // A zero pad of the input is read around (see tapChunk and the tap-row
    // bounds): the padded copy of MobileNetV2's 224 x 224 image took 1% of
    // its time at one thread and crossed cores at two.
    PaddedSource source = paddedSourceOf(conv.getInputs()[0]);
    auto sourceType = cast<RankedTensorType>(source.source.getType());
    bool readAround = readAroundPadding && sourceType.hasStaticShape() &&
                      readWidth <= sourceType.getDimSize(3);
    if (!readAround)
      source = {conv.getInputs()[0]};
    int64_t sourceRows = sourceType.getDimSize(2), sourceColumns = sourceType.getDimSize(3);
    // Otherwise the reads of a tap row (see tapChunk) end at column pixels
    // * sw + kw - 2: zero columns beyond the input's width keep them in
    // bounds.
    int64_t extra =
        readAround ? 0 : std::max<int64_t>(0, pixels * sw + kw - 1 - in.getDimSize(3));
    // The filter as [C, KH, KW, F]: a tap's values for the tile's filters
    // are contiguous.
    SmallVector<float> packed(filter->size());
    for (int64_t fi = 0; fi < f; ++fi)
      for (int64_t k = 0; k < c * kh * kw; ++k)
        packed[k * f + fi] = (*filter)[fi * c * kh * kw + k];
    Value wPacked = dlc::f32Constant(b, loc, {c, kh, kw, f}, packed, "tap_major_filter");

    Value x = readAround ? source.source : widenRows(b, loc, conv.getInputs()[0], extra);
    Value init = conv.getOutputs()[0];
    bool scalarBias = false;
    Value bias = dlc::biasOf(init, scalarBias);
    linalg::GenericOp act = dlc::epilogueOf(conv.getResult(0));
    // Any other start is read from the accumulator, which the rows then
    // overwrite in place.
    Value dest = bias ? b.create<tensor::EmptyOp>(loc, out.getShape(), f32).getResult() : init;

    auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
    SmallVector<OpFoldResult> ubs = getAsIndexOpFoldResult(ctx, {n, f / tile.filters, oh});
    auto forall = b.create<scf::ForallOp>(loc, ubs, ValueRange{dest}, std::nullopt);
    b.setInsertionPointToStart(forall.getBody());
    Value bn = forall.getInductionVar(0), by = forall.getInductionVar(1),
          row = forall.getInductionVar(2);
    Value f0 = b.create<arith::MulIOp>(loc, by, idx(tile.filters));
    Value shared = forall.getRegionIterArgs()[0];
    Value zero = idx(0);
    Value pad = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));

    auto chunkType = tile.filterLanes ? VectorType::get({pixels, tile.filters}, f32)
                                      : VectorType::get({tile.filters, chunkPixels}, f32);
    // Pixels of chunk j inside the row (the last may be partly padding).
    auto validPixels = [&](int64_t j) { return std::min(chunkPixels, ow - j * chunkPixels); };
    AffineExpr d0, d1, d2, d3;
    bindDims(ctx, d0, d1, d2, d3);
    AffineMap outMap = tile.filterLanes ? AffineMap::get(4, 0, {d3, d1}, ctx)
                                        : AffineMap::get(4, 0, {d1, d3}, ctx);
    SmallVector<bool> inBounds2{true, true};
    // The tile's row of the output, written in place, chunk by chunk.
    SmallVector<OpFoldResult> offsets{bn, f0, row, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, {1, tile.filters, 1, ow});
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    Value written = b.create<tensor::ExtractSliceOp>(loc, shared, offsets, sizes, strides);
    // A per-filter [F] vector (the bias, BatchNorm's scale and shift) as a
    // chunk: the tile's filters, broadcast along its pixels.
    auto perFilterChunk = [&](Value vec) -> Value {
      AffineExpr e0 = getAffineDimExpr(0, ctx), zeroExpr = getAffineConstantExpr(0, ctx);
      AffineMap m = tile.filterLanes ? AffineMap::get(1, 0, {zeroExpr, e0}, ctx)
                                     : AffineMap::get(1, 0, {e0, zeroExpr}, ctx);
      return b.create<vector::TransferReadOp>(loc, chunkType, vec, ValueRange{f0}, m, pad,
                                              /*mask=*/Value(), b.getBoolArrayAttr(inBounds2));
    };
    DenseMap<Value, Value> perFilter;
    if (act)
      for (OpOperand *in : act.getDpsInputOperands())
        if (in->get() != conv.getResult(0) && !perFilter.count(in->get()))
          perFilter[in->get()] = perFilterChunk(in->get());
    Value start;
    if (bias)
      start = scalarBias ? b.create<vector::BroadcastOp>(loc, chunkType, bias).getResult()
                         : perFilterChunk(bias);
    auto lanesType = VectorType::get({tile.filters}, f32);
    SmallVector<int64_t> every;
    for (int64_t l = 0; l < chunkPixels; ++l)
      every.push_back(l * sw);
    // The input row of tap row 0, and the tap rows inside the input: all
    // of them, or with the pad read around those not in its top or
    // bottom padding (the padding's taps add zeros).
    Value rowOrigin = sh == 1 ? row : b.create<arith::MulIOp>(loc, row, idx(sh)).getResult();
    Value firstTapRow = zero, endTapRow = idx(kh);
    if (readAround && source.top) {
      rowOrigin = b.create<arith::SubIOp>(loc, rowOrigin, idx(source.top));
      firstTapRow = b.create<arith::MaxSIOp>(loc, zero,
                                             b.create<arith::SubIOp>(loc, zero, rowOrigin));
    }
    if (readAround && (oh - 1) * sh + kh - source.top > sourceRows)
      endTapRow = b.create<arith::MinSIOp>(
          loc, endTapRow, b.create<arith::SubIOp>(loc, idx(sourceRows), rowOrigin));
    // The chunks in segments of tile.segmentVectors, each a register tile
    // summed over the whole window.
    int64_t perSegment = tile.segmentVectors ? tile.segmentVectors : chunks;
    for (int64_t first = 0; first < chunks; first += perSegment) {
      int64_t count = std::min(perSegment, chunks - first);
      SmallVector<Value> starts;
      if (start) {
        starts.assign(count, start);
      } else {
        // The row's own pixels, the tile's extra ones zero.
        for (int64_t j = first; j < first + count; ++j) {
          int64_t valid = validPixels(j);
          auto part = tile.filterLanes ? chunkType : VectorType::get({tile.filters, valid}, f32);
          Value acc = b.create<vector::TransferReadOp>(
              loc, part, shared, ValueRange{bn, f0, row, idx(j * chunkPixels)}, outMap, pad,
              /*mask=*/Value(), b.getBoolArrayAttr(inBounds2));
          if (part != chunkType) {
            Value zeros = b.create<arith::ConstantOp>(loc, chunkType,
                                                      DenseElementsAttr::get(chunkType, 0.0f));
            acc = b.create<vector::InsertStridedSliceOp>(loc, acc, zeros, ArrayRef<int64_t>{0, 0},
                                                         ArrayRef<int64_t>{1, 1});
          }
          starts.push_back(acc);
        }
      }

      // Sum over (channel, tap row) from tap row `firstRow` to `endRow`:
      // each tap column unrolled.
      auto sumWindow = [&](Value firstRow, Value endRow) -> SmallVector<Value> {
        auto channels = b.create<scf::ForOp>(loc, zero, idx(c), idx(1), starts);
        b.setInsertionPointToStart(channels.getBody());
        Value ci = channels.getInductionVar();
        auto tapRows = b.create<scf::ForOp>(loc, firstRow, endRow, idx(1),
                                            channels.getRegionIterArgs());
        b.setInsertionPointToStart(tapRows.getBody());
        Value ky = tapRows.getInductionVar();
        SmallVector<Value> sums(tapRows.getRegionIterArgs());
        Value inRow = b.create<arith::AddIOp>(loc, rowOrigin, ky);
        // Chunk j's pixels of tap column kx's input row: contiguous from kx,
        // or with a stride every sw-th element of sw vectors read contiguously
        // (one vpermt2ps a vector for stride 2 on AVX-512). With the pad read
        // around, a read that would start left of the row or end right of it
        // starts inside it instead, and the lanes of the padding's columns
        // come from a zero vector in the same shuffle (the column offsets are
        // constants: only the row's first and last chunks shuffle more).
        auto tapChunk = [&](int64_t kx, int64_t j) -> Value {
          if (readAround) {
            int64_t first = j * chunkPixels * sw + kx - source.left; // lane 0's column
            int64_t at = std::clamp<int64_t>(first, 0, sourceColumns - readWidth);
            auto wideType = VectorType::get({readWidth}, f32);
            Value wide = b.create<vector::TransferReadOp>(loc, wideType, x,
                                                          ValueRange{bn, ci, inRow, idx(at)}, pad,
                                                          ArrayRef<bool>{true});
            SmallVector<int64_t> lanes;
            bool zeros = false;
            for (int64_t l = 0; l < chunkPixels; ++l) {
              int64_t column = first + l * sw;
              bool inside = column >= 0 && column < sourceColumns;
              lanes.push_back(inside ? column - at : readWidth);
              zeros |= !inside;
            }
            if (!zeros && sw == 1)
              return wide;
            Value other = zeros ? b.create<arith::ConstantOp>(
                                       loc, wideType, DenseElementsAttr::get(wideType, 0.0f))
                                       .getResult()
                                : wide;
            return b.create<vector::ShuffleOp>(loc, wide, other, lanes);
          }
          Value col = idx(j * chunkPixels * sw + kx);
          if (sw == 1)
            return b.create<vector::TransferReadOp>(loc, VectorType::get({chunkPixels}, f32), x,
                                                    ValueRange{bn, ci, inRow, col}, pad,
                                                    ArrayRef<bool>{true});
          Value wide = b.create<vector::TransferReadOp>(
              loc, VectorType::get({chunkPixels * sw}, f32), x, ValueRange{bn, ci, inRow, col}, pad,
              ArrayRef<bool>{true});
          return b.create<vector::ShuffleOp>(loc, wide, wide, every);
        };
        for (int64_t kx = 0; kx < kw; ++kx) {
          Value weights = b.create<vector::TransferReadOp>(
              loc, lanesType, wPacked, ValueRange{ci, ky, idx(kx), f0}, pad, ArrayRef<bool>{true});
          for (int64_t j = first; j < first + count; ++j) {
            Value taps = tapChunk(kx, j);
            Value &sum = sums[j - first];
            sum = tile.filterLanes
                      ? b.create<vector::OuterProductOp>(loc, chunkType, taps, weights, sum)
                            .getResult()
                      : b.create<vector::OuterProductOp>(loc, chunkType, weights, taps, sum)
                            .getResult();
          }
        }
        b.create<scf::YieldOp>(loc, sums);
        b.setInsertionPointAfter(tapRows);
        b.create<scf::YieldOp>(loc, tapRows.getResults());
        b.setInsertionPointAfter(channels);
        return channels.getResults();
      };
      // Rows whose window reaches into the top or bottom padding take the
      // loop with their tap-row bounds; the others one with constant
      // bounds, which LLVM unrolls (with the bounds computed for every row,
      // MobileNetV2's stem ran no faster than with the padded copy).
      SmallVector<Value> windowSums;
      if (firstTapRow == zero && isa<arith::ConstantIndexOp>(endTapRow.getDefiningOp())) {
        windowSums = sumWindow(zero, idx(kh));
      } else {
        Value interior;
        auto also = [&](Value bound, Value full) {
          Value is = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, bound, full);
          interior = interior ? b.create<arith::AndIOp>(loc, interior, is).getResult() : is;
        };
        if (firstTapRow != zero)
          also(firstTapRow, zero);
        if (!isa<arith::ConstantIndexOp>(endTapRow.getDefiningOp()))
          also(endTapRow, idx(kh));
        auto inside = b.create<scf::IfOp>(loc, ValueRange(starts).getTypes(), interior,
                                          /*withElseRegion=*/true);
        b.setInsertionPointToStart(inside.thenBlock());
        b.create<scf::YieldOp>(loc, sumWindow(zero, idx(kh)));
        b.setInsertionPointToStart(inside.elseBlock());
        b.create<scf::YieldOp>(loc, sumWindow(firstTapRow, endTapRow));
        b.setInsertionPointAfter(inside);
        windowSums = inside.getResults();
      }

      for (int64_t j = first; j < first + count; ++j) {
        Value result = windowSums[j - first];
        if (act) {
          SmallVector<Value> operands;
          for (OpOperand *in : act.getDpsInputOperands())
            operands.push_back(in->get() == conv.getResult(0) ? result
                                                              : perFilter.lookup(in->get()));
          result = dlc::applyElementwise(b, loc, act, operands);
        }
        int64_t valid = validPixels(j);
        if (valid != chunkPixels)
          result = b.create<vector::ExtractStridedSliceOp>(
              loc, result, ArrayRef<int64_t>{0, 0},
              tile.filterLanes ? ArrayRef<int64_t>{valid, tile.filters}
                               : ArrayRef<int64_t>{tile.filters, valid},
              ArrayRef<int64_t>{1, 1});
        written = b.create<vector::TransferWriteOp>(loc, result, written,
                                                    ValueRange{zero, zero, zero,
                                                               idx(j * chunkPixels)},
                                                    outMap, ArrayRef<bool>(inBounds2))
                      .getResult();
      }
    }
    b.setInsertionPointToStart(forall.getTerminator().getBody());
    b.create<tensor::ParallelInsertSliceOp>(loc, written, shared, offsets, sizes, strides);

    dlc::recordKernel(conv, std::string("outer products per output row, no im2col; ") +
                                std::to_string(tile.filters) +
                                (tile.filterLanes ? "-filter lanes x " + std::to_string(ow) +
                                                        "-pixel rows"
                                                  : " filters x " + std::to_string(ow) +
                                                        "-pixel lanes") +
                                (act ? ", epilogue in registers" : "") +
                                (readAround && source.source != conv.getInputs()[0]
                                     ? ", padding read around (no padded copy)"
                                     : ""));
    if (act) {
      act.getResult(0).replaceAllUsesWith(forall.getResult(0));
      act.erase();
    }
    conv.getResult(0).replaceAllUsesWith(forall.getResult(0));
    // The pad read around, unless something else reads it.
    auto padReadAround = conv.getInputs()[0].getDefiningOp<tensor::PadOp>();
    if (source.source == conv.getInputs()[0])
      padReadAround = nullptr;
    conv.erase();
    if (padReadAround && padReadAround->use_empty())
      padReadAround->erase();
  }
};
} // namespace
