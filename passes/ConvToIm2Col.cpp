//===- ConvToIm2Col.cpp - NCHW conv as im2col + GEMM ----------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct ConvToIm2ColPass : dlc::impl::ConvToIm2ColBase<ConvToIm2ColPass> {
  void runOnOperation() override {
    // Upstream's rewrite covers conv_2d_nchw_fchw (and the NHWC forms): the
    // gather becomes its own linalg.generic, the GEMM a contraction generic
    // that dlc-tile-and-vectorize tiles like any matmul.
    RewritePatternSet patterns(&getContext());
    linalg::populateConvertConv2DToImg2ColPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
