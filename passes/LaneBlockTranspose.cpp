//===- LaneBlockTranspose.cpp - 2-D vector transposes in lane x lane blocks -===//
//
// A transposed GEMM register tile's epilogue (AVX-512: 14 pixels x 32
// filters, two vectors a pixel) turns the accumulator into the NCHW output's
// rows, 32 rows of 14 pixels. Upstream's shuffle lowering made that one
// 448-element shuffle, which LLVM lowered to about 1100 instructions, half
// of them spills and reloads, in an epilogue that took a third of ResNet-50's
// 256 -> 1024 14x14 convs' samples at batch 8 (with its residual's cache
// misses, see dlc-prefetch-gemm-operands). Here it is two 16 x 16 blocks of
// 64 shuffles each, every shuffle one in-lane unpack or one 128-bit lane
// shuffle: that conv alone at batch 8, 7.13 -> 6.85 ms (Zen 5, one thread).
//
//===----------------------------------------------------------------------===//
#include "passes/LaneBlockTranspose.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {
/// A mask over two `lanes`-lane vectors (a: 0 .. lanes-1, b: lanes ..
/// 2 lanes-1) built per 128-bit lane q and element i (0..3) of it.
SmallVector<int64_t> perQuad(int64_t lanes, function_ref<int64_t(int64_t, int64_t)> pick) {
  SmallVector<int64_t> mask;
  for (int64_t q = 0; q < lanes / 4; ++q)
    for (int64_t i = 0; i < 4; ++i)
      mask.push_back(pick(q, i));
  return mask;
}

/// The transpose of `lanes` rows of `lanes` lanes (8 or 16). First the 4 x 4
/// block inside each 128-bit lane of each group of four rows (unpacks of
/// single, then of pairs of elements: vunpck{l,h}ps, vunpck{l,h}pd); then
/// row 4q + k of the result is lane q of every group's row k, which 128-bit
/// lane shuffles gather (vperm2f128 at 8 lanes; vshuff32x4 twice at 16).
/// 3 x 8 or 4 x 16 shuffles.
SmallVector<Value> transposeBlock(OpBuilder &b, Location loc, ArrayRef<Value> rows,
                                  int64_t lanes) {
  int64_t n = lanes;
  auto shuffle = [&](Value x, Value y, ArrayRef<int64_t> mask) -> Value {
    return b.create<vector::ShuffleOp>(loc, x, y, mask);
  };
  SmallVector<int64_t> loPs = perQuad(n, [&](int64_t q, int64_t i) {
    return (i % 2 ? n : 0) + 4 * q + i / 2;
  });
  SmallVector<int64_t> hiPs = perQuad(n, [&](int64_t q, int64_t i) {
    return (i % 2 ? n : 0) + 4 * q + 2 + i / 2;
  });
  SmallVector<int64_t> loPd = perQuad(n, [&](int64_t q, int64_t i) {
    return (i < 2 ? 0 : n) + 4 * q + i % 2;
  });
  SmallVector<int64_t> hiPd = perQuad(n, [&](int64_t q, int64_t i) {
    return (i < 2 ? 0 : n) + 4 * q + 2 + i % 2;
  });
  SmallVector<Value> t(n), u(n), out(n);
  for (int64_t r = 0; r < n; r += 2) {
    t[r] = shuffle(rows[r], rows[r + 1], loPs);
    t[r + 1] = shuffle(rows[r], rows[r + 1], hiPs);
  }
  // u[4g + k], lane q: rows 4g .. 4g+3 at column 4q + k.
  for (int64_t g = 0; g < n; g += 4) {
    u[g] = shuffle(t[g], t[g + 2], loPd);
    u[g + 1] = shuffle(t[g], t[g + 2], hiPd);
    u[g + 2] = shuffle(t[g + 1], t[g + 3], loPd);
    u[g + 3] = shuffle(t[g + 1], t[g + 3], hiPd);
  }
  // 128-bit lanes [x.q0, y.q0] and [x.q1, y.q1] at 8 lanes; at 16,
  // [x.q0, x.q2, y.q0, y.q2] and [x.q1, x.q3, y.q1, y.q3].
  auto quads = [&](ArrayRef<int64_t> order) {
    SmallVector<int64_t> mask;
    for (int64_t quad : order)
      for (int64_t i = 0; i < 4; ++i)
        mask.push_back(4 * quad + i);
    return mask;
  };
  for (int64_t k = 0; k < 4; ++k) {
    if (n == 8) {
      out[k] = shuffle(u[k], u[4 + k], quads({0, 2}));
      out[4 + k] = shuffle(u[k], u[4 + k], quads({1, 3}));
      continue;
    }
    SmallVector<int64_t> even = quads({0, 2, 4, 6}), odd = quads({1, 3, 5, 7});
    Value v0 = shuffle(u[k], u[4 + k], even), v1 = shuffle(u[k], u[4 + k], odd);
    Value v2 = shuffle(u[8 + k], u[12 + k], even), v3 = shuffle(u[8 + k], u[12 + k], odd);
    out[k] = shuffle(v0, v2, even);
    out[4 + k] = shuffle(v1, v3, even);
    out[8 + k] = shuffle(v0, v2, odd);
    out[12 + k] = shuffle(v1, v3, odd);
  }
  return out;
}

/// A transpose whose two non-unit dims are the source's rows (its last dim,
/// `cols` lanes) and their index (`rows`): the source's rows extracted,
/// cut into `lanes`-lane pieces (or padded to `lanes` with repeats of lane
/// 0: lanes past `cols` are never read back), `lanes` of them (padded with
/// repeats of the block's first row) transposed as one block, and the
/// result's rows assembled from the blocks' rows, cut to `rows` lanes.
struct TransposeInLaneBlocks : OpRewritePattern<vector::TransposeOp> {
  TransposeInLaneBlocks(MLIRContext *ctx, int64_t lanes, PatternBenefit benefit)
      : OpRewritePattern(ctx, benefit), lanes(lanes) {}

  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType src = op.getSourceVectorType();
    Type elt = src.getElementType();
    int64_t rank = src.getRank();
    if (src.isScalable() || !elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() != 32)
      return failure();
    SmallVector<int64_t> nonUnit;
    for (int64_t d = 0; d < rank; ++d)
      if (src.getDimSize(d) != 1)
        nonUnit.push_back(d);
    ArrayRef<int64_t> perm = op.getPermutation();
    if (nonUnit.size() != 2 || nonUnit[1] != rank - 1 || perm[rank - 1] != nonUnit[0])
      return failure();
    int64_t rowDim = nonUnit[0];
    int64_t colPos = llvm::find(perm, rank - 1) - perm.begin();
    int64_t rows = src.getDimSize(rowDim), cols = src.getDimSize(rank - 1);
    // A dim under `lanes` pads each block; at half a block or less (7-pixel
    // rows) the padded network ran MobileNetV2 3% slower than the flat
    // shuffle (Zen 5, one thread), so those stay upstream's.
    auto fits = [&](int64_t size) {
      return (size > lanes / 2 && size <= lanes) || size % lanes == 0;
    };
    if (!fits(rows) || !fits(cols))
      return failure();

    Location loc = op.getLoc();
    SmallVector<int64_t> at(rank - 1, 0);
    SmallVector<Value> srcRows;
    for (int64_t r = 0; r < rows; ++r) {
      at[rowDim] = r;
      srcRows.push_back(rewriter.create<vector::ExtractOp>(loc, op.getVector(), at));
    }
    auto piece = [&](Value row, int64_t offset) -> Value {
      if (cols == lanes)
        return row;
      if (cols > lanes)
        return rewriter.create<vector::ExtractStridedSliceOp>(
            loc, row, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
      SmallVector<int64_t> mask;
      for (int64_t i = 0; i < lanes; ++i)
        mask.push_back(i < cols ? i : 0);
      return rewriter.create<vector::ShuffleOp>(loc, row, row, mask);
    };
    VectorType outRowType = VectorType::get({rows}, elt);
    Value zeroRow = rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(outRowType));
    SmallVector<Value> outRows(cols, zeroRow);
    for (int64_t r0 = 0; r0 < rows; r0 += lanes) {
      for (int64_t c0 = 0; c0 < cols; c0 += lanes) {
        SmallVector<Value> block;
        for (int64_t i = 0; i < lanes; ++i)
          block.push_back(piece(srcRows[r0 + i < rows ? r0 + i : r0], c0));
        SmallVector<Value> transposed = transposeBlock(rewriter, loc, block, lanes);
        for (int64_t j = 0; j < lanes && c0 + j < cols; ++j) {
          Value part = transposed[j];
          if (rows < lanes) {
            SmallVector<int64_t> mask;
            for (int64_t i = 0; i < rows; ++i)
              mask.push_back(i);
            part = rewriter.create<vector::ShuffleOp>(loc, part, part, mask);
          }
          outRows[c0 + j] = rows <= lanes
                                ? part
                                : rewriter.create<vector::InsertStridedSliceOp>(
                                      loc, part, outRows[c0 + j], ArrayRef<int64_t>{r0},
                                      ArrayRef<int64_t>{1});
        }
      }
    }
    Value result = rewriter.create<arith::ConstantOp>(
        loc, rewriter.getZeroAttr(op.getResultVectorType()));
    SmallVector<int64_t> to(rank - 1, 0);
    for (int64_t c = 0; c < cols; ++c) {
      to[colPos] = c;
      result = rewriter.create<vector::InsertOp>(loc, outRows[c], result, to);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  int64_t lanes;
};
} // namespace

void dlc::populateLaneBlockTransposePatterns(RewritePatternSet &patterns, int64_t lanes,
                                             PatternBenefit benefit) {
  if (lanes == 8 || lanes == 16)
    patterns.add<TransposeInLaneBlocks>(patterns.getContext(), lanes, benefit);
}
