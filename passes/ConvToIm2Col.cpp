//===- ConvToIm2Col.cpp - NCHW conv as im2col + GEMM ----------------------===//
//
// The im2col buffer is a conv's largest temporary (LeNet's first conv at
// batch 64: 5 MB, against a 1.2 MB output); under a memory budget it is
// bounded by running the conv in chunks (ChunkLargeConv).
//
//===----------------------------------------------------------------------===//
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// A 1x1, stride-1 convolution is already a GEMM, out[n,f,p] += w[f,c] *
/// x[n,c,p], on reshaped (not copied) operands: no im2col buffer.
struct PointwiseConvToGemm : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp conv,
                                PatternRewriter &r) const override {
    auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto w = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    if (!conv.hasPureTensorSemantics() || w.getDimSize(2) != 1 || w.getDimSize(3) != 1 ||
        !llvm::all_of(conv.getStrides().getValues<int64_t>(), [](int64_t s) { return s == 1; }) ||
        in.getDimSize(2) != out.getDimSize(2) || in.getDimSize(3) != out.getDimSize(3))
      return failure();
    Location loc = conv.getLoc();
    int64_t n = in.getDimSize(0), c = in.getDimSize(1), f = w.getDimSize(0);
    int64_t hw = in.getDimSize(2) * in.getDimSize(3);
    Type elem = out.getElementType();
    auto collapse = [&](Value v, RankedTensorType to, ArrayRef<ReassociationIndices> groups) {
      return r.create<tensor::CollapseShapeOp>(loc, to, v, groups);
    };
    Value x = collapse(conv.getInputs()[0], RankedTensorType::get({n, c, hw}, elem), {{0}, {1}, {2, 3}});
    Value wf = collapse(conv.getInputs()[1], RankedTensorType::get({f, c}, elem), {{0}, {1, 2, 3}});
    auto accType = RankedTensorType::get({n, f, hw}, elem);
    Value acc = collapse(conv.getOutputs()[0], accType, {{0}, {1}, {2, 3}});
    Value gemm = dlc::weightTimesBatch(r, loc, wf, x, acc);
    r.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, out, gemm,
                                                ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return success();
  }
};

/// A KHxKW conv as im2col + GEMM, the columns from dlc::im2colColumns.
/// (Upstream's im2col gathers along the flattened OH*OW, with a vector
/// div/rem per element and no contiguous loads.)
struct Im2ColConv : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp conv,
                                PatternRewriter &r) const override {
    if (!conv.hasPureTensorSemantics())
      return failure();
    auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto w = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    if (!in.hasStaticShape() || !w.hasStaticShape() || !out.hasStaticShape())
      return failure();
    Location loc = conv.getLoc();
    int64_t n = in.getDimSize(0), c = in.getDimSize(1), f = w.getDimSize(0);
    int64_t kh = w.getDimSize(2), kw = w.getDimSize(3);
    int64_t oh = out.getDimSize(2), ow = out.getDimSize(3);
    SmallVector<int64_t> s(conv.getStrides().getValues<int64_t>());
    SmallVector<int64_t> d(conv.getDilations().getValues<int64_t>());
    Type elem = out.getElementType();
    Value x = conv.getInputs()[0];

    Value col = dlc::im2colColumns(r, loc, x, kh, kw, oh, ow, s, d);
    int64_t ckk = c * kh * kw, p = oh * ow;
    Value colGemm = r.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({n, ckk, p}, elem), col,
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    Value wf = r.create<tensor::CollapseShapeOp>(loc, RankedTensorType::get({f, ckk}, elem),
                                                 conv.getInputs()[1],
                                                 ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    Value acc = r.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({n, f, p}, elem), conv.getOutputs()[0],
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    Value gemm = dlc::weightTimesBatch(r, loc, wf, colGemm, acc);
    r.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, out, gemm,
                                                ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return success();
  }
};

/// Marks a conv that already runs in chunks.
constexpr llvm::StringLiteral kChunked = "dlc.chunked";

/// A conv whose im2col buffer [N, C*KH*KW, OH*OW] exceeds `limit` bytes, as
/// an scf.for over batch chunks (outputs inserted), or, with a batch of one,
/// over input-channel chunks (partial convs accumulated in the output).
/// The chunk is the largest divisor of the dim whose buffer fits (at least 1).
struct ChunkLargeConv : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  ChunkLargeConv(MLIRContext *ctx, int64_t limit)
      : OpRewritePattern(ctx, /*benefit=*/3), limit(limit) {}
  int64_t limit;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp conv,
                                PatternRewriter &r) const override {
    if (!conv.hasPureTensorSemantics() || conv->hasAttr(kChunked))
      return failure();
    auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto w = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    int64_t n = in.getDimSize(0), c = in.getDimSize(1);
    int64_t kk = w.getDimSize(2) * w.getDimSize(3), p = out.getDimSize(2) * out.getDimSize(3);
    int64_t bytes = std::max<int64_t>(1, in.getElementTypeBitWidth() / 8);
    if (kk == 1 || n * c * kk * p * bytes <= limit) // 1x1: no im2col buffer
      return failure();
    bool byBatch = n > 1;
    int64_t dim = byBatch ? n : c;
    int64_t chunk = dlc::chunkThatFits(dim, (byBatch ? c : n) * kk * p * bytes, limit);
    if (chunk == dim)
      return failure();

    Location loc = conv.getLoc();
    Value x = conv.getInputs()[0], filter = conv.getInputs()[1], init = conv.getOutputs()[0];
    auto chunkConv = [&](OpBuilder &b, Location l, ValueRange ins, Value into) {
      auto pc = b.create<linalg::Conv2DNchwFchwOp>(l, into.getType(), ins, into,
                                                   conv.getStrides(), conv.getDilations());
      pc->setAttr(kChunked, b.getUnitAttr());
      return pc.getResult(0);
    };
    Value result;
    if (byBatch) {
      result = dlc::forEachBatchChunk(
          r, loc, init, chunk, [&](OpBuilder &b, Location l, Value at, Value acc) {
            return chunkConv(b, l, {dlc::sliceAlong(b, l, x, 0, at, chunk), filter},
                             dlc::sliceAlong(b, l, acc, 0, at, chunk));
          });
    } else {
      auto idx = [&](int64_t v) { return r.create<arith::ConstantIndexOp>(loc, v); };
      result = r.create<scf::ForOp>(
                    loc, idx(0), idx(dim), idx(chunk), ValueRange{init},
                    [&](OpBuilder &b, Location l, Value at, ValueRange acc) {
                      b.create<scf::YieldOp>(
                          l, chunkConv(b, l,
                                       {dlc::sliceAlong(b, l, x, 1, at, chunk),
                                        dlc::sliceAlong(b, l, filter, 1, at, chunk)},
                                       acc[0]));
                    })
                   .getResult(0);
    }
    r.replaceOp(conv, result);
    return success();
  }
};

struct ConvToIm2ColPass : dlc::impl::ConvToIm2ColBase<ConvToIm2ColPass> {
  using ConvToIm2ColBase::ConvToIm2ColBase;

  void runOnOperation() override {
    if (maxWorkspaceBytes > 0) {
      RewritePatternSet chunking(&getContext());
      chunking.add<ChunkLargeConv>(&getContext(), maxWorkspaceBytes);
      if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(chunking))))
        return signalPassFailure();
    }
    // The gather is its own linalg.generic, the GEMM a contraction generic
    // that dlc-tile-and-vectorize tiles like any matmul. Pointwise convs
    // skip the gather (higher benefit).
    RewritePatternSet patterns(&getContext());
    patterns.add<PointwiseConvToGemm>(&getContext(), /*benefit=*/2);
    patterns.add<Im2ColConv>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
