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

/// A contraction whose lhs runs along the accumulator's lanes (its
/// innermost dim) and whose rhs does not, with the two swapped. The
/// outer-product lowering broadcasts the lhs along the accumulator's rows
/// and reads the rhs as its lane vector: left as is, a transposed GEMM
/// tile (dlc-conv-to-im2col's pixelRows layout: filters in lanes, the
/// filter operand first) lowered to one 6-lane FMA per filter, with the
/// 6 x 16 accumulator transposed element by element on every k step
/// (ResNet-50 three times slower).
struct LanesOperandSecond : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKind() != vector::CombiningKind::ADD || op->getParentOfType<vector::MaskOp>())
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (maps[2].getNumResults() == 0)
      return failure();
    AffineExpr lanes = maps[2].getResults().back();
    auto has = [&](AffineMap m) { return llvm::is_contained(m.getResults(), lanes); };
    if (!has(maps[0]) || has(maps[1]))
      return failure();
    rewriter.replaceOpWithNewOp<vector::ContractionOp>(
        op, op.getRhs(), op.getLhs(), op.getAcc(),
        rewriter.getAffineMapArrayAttr({maps[1], maps[0], maps[2]}), op.getIteratorTypes(),
        op.getKind());
    return success();
  }
};

/// A read of V lanes along an innermost dim of stride 2 (a stride-2 depthwise
/// conv's taps, see DepthwiseConvToTaps) as two contiguous reads of the
/// underlying rows and one shuffle picking every other element. Left
/// alone, VectorToSCF reads such a vector one scalar at a time. The reads
/// are V lanes, or the next power of two where it fits the 2V - 1 elements
/// needed; the second ends on the last element the strided read needs:
/// neither reads past it.
struct StrideTwoReadAsShuffle : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rewriter) const override {
    auto memType = dyn_cast<MemRefType>(op.getSource().getType());
    VectorType vecType = op.getVectorType();
    if (!memType || op.getMask() || !op.getPermutationMap().isMinorIdentity() ||
        llvm::any_of(op.getInBoundsValues(), [](bool b) { return !b; }) ||
        vecType.isScalable() || vecType.getNumElements() != vecType.getShape().back())
      return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(getStridesAndOffset(memType, strides, offset)) || strides.back() != 2 ||
        memType.isDynamicDim(memType.getRank() - 1))
      return failure();
    int64_t lanes = vecType.getShape().back();
    int64_t rank = memType.getRank();
    Location loc = op.getLoc();
    // The same memory with the innermost dim at stride 1, (n - 1) * 2 + 1 long.
    auto meta = rewriter.create<memref::ExtractStridedMetadataOp>(loc, op.getSource());
    SmallVector<OpFoldResult> sizes, unitStrides;
    SmallVector<int64_t> staticSizes(memType.getShape()), staticStrides(strides);
    for (int64_t d = 0; d < rank; ++d) {
      sizes.push_back(memType.isDynamicDim(d) ? OpFoldResult(meta.getSizes()[d])
                                              : rewriter.getIndexAttr(staticSizes[d]));
      unitStrides.push_back(ShapedType::isDynamic(strides[d])
                                ? OpFoldResult(meta.getStrides()[d])
                                : rewriter.getIndexAttr(strides[d]));
    }
    staticSizes.back() = (staticSizes.back() - 1) * 2 + 1;
    sizes.back() = rewriter.getIndexAttr(staticSizes.back());
    staticStrides.back() = 1;
    unitStrides.back() = rewriter.getIndexAttr(1);
    OpFoldResult off = ShapedType::isDynamic(offset) ? OpFoldResult(meta.getOffset())
                                                     : rewriter.getIndexAttr(offset);
    auto rowsType = MemRefType::get(
        staticSizes, memType.getElementType(),
        StridedLayoutAttr::get(getContext(), offset, staticStrides), memType.getMemorySpace());
    Value rows = rewriter.create<memref::ReinterpretCastOp>(loc, rowsType, meta.getBaseBuffer(),
                                                            off, sizes, unitStrides);
    SmallVector<Value> indices(op.getIndices());
    Value two = rewriter.create<arith::ConstantIndexOp>(loc, 2);
    indices.back() = rewriter.create<arith::MulIOp>(loc, indices.back(), two);
    // The reads span the 2 * lanes - 1 elements the strided read needs. They
    // are `width` lanes each: the next power of two where the span holds it
    // (6 lanes as two reads of 8). LLVM legalized a 6-lane read and shuffle,
    // once combined with its neighbours' (a pool's windows), into one scalar
    // extract per element.
    int64_t span = 2 * lanes - 1;
    int64_t width = llvm::PowerOf2Ceil(lanes);
    if (width > span)
      width = lanes;
    auto lineType = VectorType::get({width}, vecType.getElementType());
    AffineMap minor = AffineMap::getMinorIdentityMap(rank, 1, getContext());
    auto inBounds = rewriter.getBoolArrayAttr({true});
    Value first = rewriter.create<vector::TransferReadOp>(loc, lineType, rows, indices,
                                                          AffineMapAttr::get(minor),
                                                          op.getPadding(), Value(), inBounds);
    Value shift = rewriter.create<arith::ConstantIndexOp>(loc, span - width);
    indices.back() = rewriter.create<arith::AddIOp>(loc, indices.back(), shift);
    Value second = rewriter.create<vector::TransferReadOp>(loc, lineType, rows, indices,
                                                           AffineMapAttr::get(minor),
                                                           op.getPadding(), Value(), inBounds);
    // Lane i wants element 2i: first[2i] below `width`, else
    // second[2i - (span - width)], shuffle index width + 2i - (span - width).
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < lanes; ++i)
      mask.push_back(2 * i < width ? 2 * i : 2 * width + 2 * i - span);
    Value picked = rewriter.create<vector::ShuffleOp>(loc, first, second, mask);
    if (vecType.getRank() > 1)
      picked = rewriter.create<vector::BroadcastOp>(loc, vecType, picked);
    rewriter.replaceOp(op, picked);
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
    // Transposes as one shuffle each, which LLVM lowers to unpacks and
    // blends (a transposed GEMM tile's 6 x 16 accumulator, see
    // LanesOperandSecond); element by element, the default, they took
    // 4% of a 1x1 conv's time at 256-step K chunks.
    opts.setVectorTransposeLowering(vector::VectorTransposeLowering::Shuffle1D);
    bool ok =
        // Masked transfers first: later patterns rewrite the op inside a
        // vector.mask region into several ops, which the mask cannot hold.
        succeeded(apply([&](RewritePatternSet &p) {
          vector::populateVectorMaskLoweringPatternsForSideEffectingOps(p);
        })) &&
        succeeded(apply([&](RewritePatternSet &p) {
          p.add<StrideTwoReadAsShuffle>(ctx);
        })) &&
        succeeded(apply([&](RewritePatternSet &p) {
          // Ahead of the generic contract lowering (benefit 1), which would
          // unroll these into dot products.
          p.add<UnitReductionContractToFma>(ctx, /*benefit=*/2);
          p.add<LanesOperandSecond>(ctx, /*benefit=*/3);
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
