//===- ConvToIm2Col.cpp - NCHW conv as im2col + GEMM ----------------------===//
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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

struct ConvToIm2ColPass : dlc::impl::ConvToIm2ColBase<ConvToIm2ColPass> {
  void runOnOperation() override {
    // Upstream's rewrite covers conv_2d_nchw_fchw (and the NHWC forms): the
    // gather becomes its own linalg.generic, the GEMM a contraction generic
    // that dlc-tile-and-vectorize tiles like any matmul. Pointwise convs
    // skip the gather (higher benefit).
    RewritePatternSet patterns(&getContext());
    patterns.add<PointwiseConvToGemm>(&getContext(), /*benefit=*/2);
    linalg::populateConvertConv2DToImg2ColPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
