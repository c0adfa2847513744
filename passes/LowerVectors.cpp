//===- LowerVectors.cpp - progressive lowering to 1-D vector ops ----------===//
#include "passes/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_LOWERVECTORS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
struct LowerVectorsPass : dlc::impl::LowerVectorsBase<LowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    func::FuncOp func = getOperation();
    // One stage per greedy run: mixing canonicalization into the lowering
    // patterns blew up on convs (see toolchain notes), so stages stay apart.
    auto apply = [&](auto populate) {
      RewritePatternSet patterns(ctx);
      populate(patterns);
      return applyPatternsAndFoldGreedily(func, std::move(patterns));
    };
    vector::VectorTransformsOptions opts;
    opts.setVectorTransformsOptions(vector::VectorContractLowering::OuterProduct);
    opts.setVectorMultiReductionLowering(vector::VectorMultiReductionLowering::InnerParallel);
    opts.setVectorTransferSplit(vector::VectorTransferSplit::VectorTransfer);
    bool ok =
        // Masked transfers first: later patterns rewrite the op inside a
        // vector.mask region into several ops, which the mask cannot hold.
        succeeded(apply([&](RewritePatternSet &p) {
          vector::populateVectorMaskLoweringPatternsForSideEffectingOps(p);
        })) &&
        succeeded(apply([&](RewritePatternSet &p) {
          vector::populateVectorContractLoweringPatterns(p, opts);
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerParallel);
          vector::populateVectorMaskOpLoweringPatterns(p);
        })) &&
        succeeded(apply([&](RewritePatternSet &p) {
          vector::populateVectorTransferFullPartialPatterns(p, opts);
        })) &&
        succeeded(apply([&](RewritePatternSet &p) {
          VectorTransferToSCFOptions scfOpts;
          scfOpts.enableFullUnroll(true);
          scfOpts.setTargetRank(1);
          populateVectorToSCFConversionPatterns(p, scfOpts);
          vector::populateVectorTransferLoweringPatterns(p, /*maxTransferRank=*/1);
          vector::populateVectorShapeCastLoweringPatterns(p);
          vector::populateVectorTransposeLoweringPatterns(p, opts);
          vector::populateVectorBroadcastLoweringPatterns(p);
          vector::populateVectorGatherLoweringPatterns(p);
          vector::populateVectorMaskOpLoweringPatterns(p);
        }));
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
