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
/// A vector.contract whose reduction dims all have size 1 (a lane-reduction
/// register tile: one step of each reduced loop) as one vector.fma over the
/// accumulator's shape, its operands broadcast and transposed to it. The
/// outer-product lowering takes only matmul-shaped contracts; the generic
/// lowering unrolls these into scalar dot products (vector.reduction).
struct UnitReductionContractToFma : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (op.getKind() != vector::CombiningKind::ADD || !accType ||
        !isa<FloatType>(accType.getElementType()) ||
        op->getParentOfType<vector::MaskOp>())
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<vector::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<int64_t> sizes(iters.size(), 0);
    Value operands[3] = {op.getLhs(), op.getRhs(), op.getAcc()};
    for (int i = 0; i < 3; ++i)
      for (auto [pos, expr] : llvm::enumerate(maps[i].getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim)
          return failure();
        sizes[dim.getPosition()] = cast<VectorType>(operands[i].getType()).getDimSize(pos);
      }
    for (auto [d, it] : llvm::enumerate(iters))
      if (it == vector::IteratorType::reduction && sizes[d] != 1)
        return failure();
    SmallVector<unsigned> accDims;
    for (AffineExpr e : maps[2].getResults())
      accDims.push_back(cast<AffineDimExpr>(e).getPosition());
    // Both operands run along the accumulator's innermost dim (the lanes):
    // broadcasts and transposes then move whole 1-D vectors. A matmul tile
    // (one operand broadcast along the row) is the outer-product lowering's.
    for (int i = 0; i < 2; ++i) {
      ArrayRef<AffineExpr> res = maps[i].getResults();
      if (accDims.empty() || res.empty() ||
          cast<AffineDimExpr>(res.back()).getPosition() != accDims.back())
        return failure();
    }

    Location loc = op.getLoc();
    Type elem = accType.getElementType();
    // An operand as the accumulator's shape: its unit reduction dims moved
    // to the front and extracted away (a leading-dim extract keeps whole
    // lane vectors, where a shape_cast would lower element by element), then
    // broadcast over the accumulator dims it lacks and transposed into the
    // accumulator's order.
    auto toAccShape = [&](Value v, AffineMap map) -> Value {
      SmallVector<int64_t> reducedFirst;
      SmallVector<unsigned> kept;
      for (auto [pos, e] : llvm::enumerate(map.getResults()))
        if (iters[cast<AffineDimExpr>(e).getPosition()] == vector::IteratorType::reduction)
          reducedFirst.push_back(pos);
      size_t numReduced = reducedFirst.size();
      for (auto [pos, e] : llvm::enumerate(map.getResults()))
        if (iters[cast<AffineDimExpr>(e).getPosition()] == vector::IteratorType::parallel) {
          reducedFirst.push_back(pos);
          kept.push_back(cast<AffineDimExpr>(e).getPosition());
        }
      if (!llvm::equal(reducedFirst, llvm::seq<int64_t>(0, reducedFirst.size())))
        v = rewriter.create<vector::TransposeOp>(loc, v, reducedFirst);
      if (numReduced)
        v = rewriter.create<vector::ExtractOp>(loc, v, SmallVector<int64_t>(numReduced, 0));
      SmallVector<unsigned> order;
      for (unsigned d : accDims)
        if (!llvm::is_contained(kept, d))
          order.push_back(d);
      order.append(kept);
      SmallVector<int64_t> orderShape;
      for (unsigned d : order)
        orderShape.push_back(sizes[d]);
      if (order.size() != kept.size())
        v = rewriter.create<vector::BroadcastOp>(loc, VectorType::get(orderShape, elem), v);
      SmallVector<int64_t> perm;
      for (unsigned d : accDims)
        perm.push_back(llvm::find(order, d) - order.begin());
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
        v = rewriter.create<vector::TransposeOp>(loc, v, perm);
      return v;
    };
    Value lhs = toAccShape(op.getLhs(), maps[0]), rhs = toAccShape(op.getRhs(), maps[1]);
    rewriter.replaceOpWithNewOp<vector::FMAOp>(op, lhs, rhs, op.getAcc());
    return success();
  }
};

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
          // Ahead of the generic contract lowering (benefit 1), which would
          // unroll these into dot products.
          p.add<UnitReductionContractToFma>(ctx, /*benefit=*/2);
          vector::populateVectorContractLoweringPatterns(p, opts);
          vector::populateVectorTransferPermutationMapLoweringPatterns(p);
          vector::populateVectorMultiReductionLoweringPatterns(
              p, vector::VectorMultiReductionLowering::InnerParallel);
          vector::populateVectorMaskOpLoweringPatterns(p);
        })) &&
        // An outer product's broadcast operand (a GEMM tile's rows) read
        // element by element from memory: a load and lane extracts (LLVM
        // joined two 4-byte broadcasts into an 8-byte load and three
        // shuffles, which compete with the FMAs for their ports).
        succeeded(apply([&](RewritePatternSet &p) {
          vector::populateScalarVectorTransferLoweringPatterns(p, /*benefit=*/1,
                                                               /*allowMultipleUses=*/true);
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
