//===- GemmTileFusion.cpp - elementwise work into a GEMM's cache tiles ----===//
//
// A conv's GEMM on the CPU writes its output a cache tile at a time; the
// zero fill it accumulates into and the elementwise op after it (bias,
// BatchNorm, activation, residual add) each made one more pass over the
// whole output in memory. These helpers move both into the tiles, where the
// data is in L1/L2. TileAndVectorize calls them on each GEMM's scf.forall.
//
//===----------------------------------------------------------------------===//
#include "passes/GemmTileFusion.h"
#include "passes/LinalgBuilders.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>

using namespace mlir;

linalg::LinalgOp dlc::reshapedGemm(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto s = dyn_cast<tensor::ExtractSliceOp>(def))
      v = s.getSource();
    else if (auto l = dyn_cast<linalg::LinalgOp>(def))
      return l.getNumReductionLoops() > 0 && l.getNumParallelLoops() >= 3 ? l
                                                                         : linalg::LinalgOp();
    else
      return {};
  }
  return {};
}

namespace {
/// Whether `v` is, through reshapes, the result of a GEMM: elementwise ops
/// reading it are its epilogue.
bool reshapedGemmResult(Value v) { return static_cast<bool>(dlc::reshapedGemm(v)); }

/// `v` padded at the end of each dim with zeros to `type`: a new constant
/// when `v` is one (a per-channel scale, which must exist before the GEMM
/// it joins), else a tensor.pad. A conv's own bias (an ONNX initializer, in
/// a resource blob: every conv of a model exported with its BatchNorm
/// folded) is one too; padded at run time instead, it kept the bias and
/// activation out of the GEMM's tiles, a pass of their own over memory.
Value padWithZeros(PatternRewriter &rewriter, Location loc, Value v, RankedTensorType type) {
  auto from = cast<RankedTensorType>(v.getType());
  if (from.getRank() == 1 && from.getElementType().isF32())
    if (std::optional<SmallVector<float>> values = dlc::constantF32Values(v)) {
      values->resize(type.getDimSize(0), 0.0f);
      return rewriter.create<arith::ConstantOp>(
          loc, type, DenseElementsAttr::get(type, ArrayRef<float>(*values)));
    }
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && from.getRank() == 1 &&
      isa<FloatType>(from.getElementType())) {
    SmallVector<APFloat> values(dense.getValues<APFloat>());
    values.resize(type.getDimSize(0),
                  APFloat::getZero(cast<FloatType>(from.getElementType()).getFloatSemantics()));
    return rewriter.create<arith::ConstantOp>(loc, type, DenseElementsAttr::get(type, values));
  }
  Value zero = rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(type.getElementType()));
  return tensor::createPadHighOp(type, v, zero, /*nofold=*/false, loc, rewriter);
}

/// An elementwise op reading the valid corner (an extract_slice at zero) of
/// a GEMM's padded result (filter rows padded to whole panels, pixels to
/// whole tiles) runs over the whole padded result instead, its result
/// sliced after it: it then reads the GEMM's result itself and can join
/// its tiles. Its other inputs must be broadcasts (per-channel scale and
/// shift), padded with zeros, or full-size inputs that are themselves the
/// corner of a result padded alike (a residual from an earlier fused GEMM);
/// any other would need a padded copy, which costs what the fusion saves.
struct ComputeOverGemmPadding : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op, PatternRewriter &rewriter) const override {
    if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
        !op.hasPureTensorSemantics() || op->getNumResults() != 1)
      return failure();
    OpOperand *init = op.getDpsInitOperand(0);
    if (!op.getMatchingIndexingMap(init).isIdentity() || op.payloadUsesValueFromOperand(init))
      return failure();
    OpOperand *sliced = nullptr;
    tensor::ExtractSliceOp slice;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto s = in->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (s && op.getMatchingIndexingMap(in).isIdentity() && reshapedGemmResult(s.getSource()) &&
          s.getSourceType().hasStaticShape() && s.getSourceType().getRank() == s.getType().getRank() &&
          s.hasZeroOffset() && s.hasUnitStride()) {
        sliced = in;
        slice = s;
        break;
      }
    }
    // Padding up to the corner's size again at most: a small slice of a
    // large result is not a padded GEMM's corner.
    if (!sliced || slice.getSourceType().getNumElements() > 2 * slice.getType().getNumElements())
      return failure();
    ArrayRef<int64_t> whole = slice.getSourceType().getShape();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op.getLoc();
    SmallVector<Value> inputs;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (in == sliced) {
        inputs.push_back(slice.getSource());
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(in);
      auto type = dyn_cast<RankedTensorType>(in->get().getType());
      if (!type || !type.hasStaticShape() || !map.isProjectedPermutation())
        return failure();
      SmallVector<int64_t> padded(type.getShape());
      for (auto [j, e] : llvm::enumerate(map.getResults()))
        padded[j] = whole[cast<AffineDimExpr>(e).getPosition()];
      if (padded == type.getShape()) {
        inputs.push_back(in->get());
        continue;
      }
      if (map.getNumResults() == op.getNumLoops()) {
        // A full-size input (a residual) only as the corner of a tensor
        // padded alike (the output of an earlier GEMM run over its padding):
        // it is read in place.
        auto corner = in->get().getDefiningOp<tensor::ExtractSliceOp>();
        if (!map.isIdentity() || !corner || !corner.hasZeroOffset() || !corner.hasUnitStride() ||
            corner.getSourceType().getShape() != ArrayRef<int64_t>(padded))
          return failure();
        inputs.push_back(corner.getSource());
        continue;
      }
      inputs.push_back(padWithZeros(rewriter, loc, in->get(), type.clone(padded)));
    }
    Value empty = rewriter.create<tensor::EmptyOp>(loc, whole, resultType.getElementType());
    auto wide = rewriter.create<linalg::GenericOp>(loc, TypeRange{empty.getType()}, inputs,
                                                   ValueRange{empty}, op.getIndexingMapsArray(),
                                                   op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), wide.getRegion(), wide.getRegion().begin());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, wide.getResult(0), slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
    return success();
  }
};

/// A GEMM's padded input (pixels padded to whole tiles: dlc-conv-to-im2col
/// writes the producer's result into the corner of an uninitialized
/// buffer, whose padding is don't-care) taken from the corner of a result
/// that is at least as large (an epilogue ComputeOverGemmPadding ran over
/// an earlier GEMM's padded result) reads that result in place instead:
/// its extra rows and pixels stand in for the uninitialized ones. The
/// insert was a copy, serial in the entry function, between every pair of
/// MobileNetV2's 14x14 blocks (its residual, 64 of 66 rows and 196 of 208
/// pixels, into a buffer of 64 x 208): on the device's 16 threads the
/// model ran 2.20 -> 2.10 ms without them (AVX2 build; AVX-512 1.99 ->
/// 1.86), the same at one.
struct ReadPaddedResultInPlace : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto dest = insert.getDest().getDefiningOp<bufferization::AllocTensorOp>();
    auto corner = insert.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    RankedTensorType destType = insert.getDestType();
    if (!dest || dest.getCopy() || !dest.getDynamicSizes().empty() || !corner ||
        !destType.hasStaticShape() || !insert.hasZeroOffset() || !insert.hasUnitStride() ||
        insert.getSourceType() != insert.getDestType().clone(insert.getStaticSizes()) ||
        !corner.hasZeroOffset() || !corner.hasUnitStride())
      return failure();
    RankedTensorType whole = corner.getSourceType();
    if (!whole.hasStaticShape() || whole.getRank() != destType.getRank() ||
        corner.getType() != insert.getSourceType())
      return failure();
    for (int64_t d = 0; d < whole.getRank(); ++d)
      if (whole.getDimSize(d) < destType.getDimSize(d))
        return failure();
    SmallVector<OpFoldResult> zeros(whole.getRank(), rewriter.getIndexAttr(0)),
        ones(whole.getRank(), rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        insert, destType, corner.getSource(), zeros,
        getAsIndexOpFoldResult(rewriter.getContext(), destType.getShape()), ones);
    return success();
  }
};

/// Moves `v`'s side-effect-free producers that sit after `before` in its
/// block (an init's tensor.empty and reshapes) above it; false if one
/// cannot move.
bool hoistAbove(Value v, Operation *before) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != before->getBlock() || def->isBeforeInBlock(before))
    return true;
  if (def == before || !isMemoryEffectFree(def) || def->getNumRegions())
    return false;
  for (Value operand : def->getOperands())
    if (!hoistAbove(operand, before))
      return false;
  def->moveBefore(before);
  return true;
}

/// Whether `a` and `b` are the same all-parallel generic: the same inputs
/// (or equal constants), maps and body, each writing a fresh tensor.empty
/// (reshaped) that it does not read.
bool sameElementwise(linalg::GenericOp a, linalg::GenericOp b) {
  auto freshInit = [](linalg::GenericOp g) {
    if (g.getNumDpsInits() != 1 || g.getNumReductionLoops() != 0 ||
        !g.hasPureTensorSemantics() || g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
      return false;
    Value init = g.getDpsInitOperand(0)->get();
    while (Operation *def = init.getDefiningOp()) {
      if (isa<tensor::EmptyOp>(def))
        return true;
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
        return false;
      init = def->getOperand(0);
    }
    return false;
  };
  // ComputeOverGemmPadding made each its own padded per-channel constants,
  // or its own reshape of one that needed no padding (a resource blob, which
  // the reshape does not fold into a constant: a conv's own bias).
  std::function<bool(Value, Value)> same = [&](Value x, Value y) {
    Attribute cx, cy;
    if (x == y || (matchPattern(x, m_Constant(&cx)) && matchPattern(y, m_Constant(&cy)) &&
                   cx == cy))
      return true;
    Operation *dx = x.getDefiningOp(), *dy = y.getDefiningOp();
    bool reshapes = dx && dy && dx->getName() == dy->getName() &&
                    isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(dx) &&
                    dx->getNumOperands() == 1 && dy->getNumOperands() == 1 &&
                    x.getType() == y.getType() && dx->getAttrs() == dy->getAttrs();
    return reshapes && same(dx->getOperand(0), dy->getOperand(0));
  };
  if (!freshInit(a) || !freshInit(b) || a->getResultTypes() != b->getResultTypes() ||
      a.getNumDpsInputs() != b.getNumDpsInputs() ||
      !llvm::all_of(llvm::zip(a.getInputs(), b.getInputs()),
                    [&](auto xy) { return same(std::get<0>(xy), std::get<1>(xy)); }))
    return false;
  Value initA = a.getDpsInitOperand(0)->get(), initB = b.getDpsInitOperand(0)->get();
  // The bodies' block arguments and values correspond as they are matched.
  DenseMap<Value, Value> matched;
  return OperationEquivalence::isEquivalentTo(
      a, b,
      [&](Value x, Value y) {
        return success(same(x, y) || matched.lookup(x) == y || (x == initA && y == initB));
      },
      [&](Value x, Value y) { matched[x] = y; }, OperationEquivalence::IgnoreLocations);
}

/// An elementwise op computed twice from the same values goes once.
/// dlc-conv-to-im2col gives a 1x1 conv's producer a clone that writes into
/// the conv's pixel-padded input; where the producer is an epilogue run
/// over its GEMM's padding (ComputeOverGemmPadding) and the conv reads that
/// result in place (ReadPaddedResultInPlace), the clone and the original
/// are the same op, and the GEMM's result with two readers kept either out
/// of its tiles (fuseEpilogue): MobileNetV2's linear bottlenecks after its
/// stride-2 blocks ran their BatchNorm twice, over memory, serially.
/// (Upstream CSE would merge them only after merging their tensor.empty
/// inits, and with them every other equal empty and fill, which
/// bufferization then copies: see decomposePads.)
void mergeEqualElementwise(func::FuncOp func) {
  // Candidates by their first input: each is compared with the earlier
  // ones reading it.
  DenseMap<Value, SmallVector<linalg::GenericOp>> byInput;
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp g) {
    if (g.getNumDpsInputs() > 0)
      generics.push_back(g);
  });
  IRRewriter rewriter(func.getContext());
  for (linalg::GenericOp b : generics) {
    SmallVector<linalg::GenericOp> &earlier = byInput[b.getInputs()[0]];
    auto same = llvm::find_if(earlier, [&](linalg::GenericOp a) {
      return a->getBlock() == b->getBlock() && sameElementwise(a, b);
    });
    if (same != earlier.end())
      rewriter.replaceOp(b, (*same)->getResults());
    else
      earlier.push_back(b);
  }
}

} // namespace

void dlc::propagateReshapesToGemms(func::FuncOp func) {
  auto control = [](OpOperand *operand) {
    auto generic = dyn_cast<linalg::GenericOp>(operand->getOwner());
    return generic && generic.getNumReductionLoops() == 0 &&
           reshapedGemmResult(operand->get());
  };
  for (bool expand : {false, true}) {
    RewritePatternSet patterns(func.getContext());
    if (expand)
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    else {
      linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns, control);
      patterns.add<ComputeOverGemmPadding, ReadPaddedResultInPlace>(func.getContext());
    }
    tensor::populateReassociativeReshapeFoldingPatterns(patterns);
    (void)applyPatternsAndFoldGreedily(func, std::move(patterns));
  }
  mergeEqualElementwise(func);
}


linalg::LinalgOp dlc::fuseEpilogue(RewriterBase &rewriter, scf::ForallOp forall,
                                   Operation *&replaced) {
  if (forall->getNumResults() != 1 || !forall->getResult(0).hasOneUse())
    return nullptr;
  Value whole = forall->getResult(0);
  OpOperand &use = *whole.getUses().begin();
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || consumer.getNumReductionLoops() != 0 || consumer.getNumDpsInits() != 1 ||
      !consumer.hasPureTensorSemantics() || !consumer.isDpsInput(&use) ||
      !consumer.getMatchingIndexingMap(&use).isIdentity() ||
      consumer->getBlock() != forall->getBlock() ||
      consumer.getResult(0).getType() != whole.getType())
    return nullptr;
  OpOperand *init = consumer.getDpsInitOperand(0);
  if (!consumer.getMatchingIndexingMap(init).isIdentity() ||
      consumer.payloadUsesValueFromOperand(init))
    return nullptr;
  // The generic's other inputs must exist before the GEMM's loop.
  SmallVector<OpOperand *> others;
  for (OpOperand *in : consumer.getDpsInputOperands())
    if (in != &use)
      others.push_back(in);
  if (llvm::any_of(others, [&](OpOperand *in) { return !hoistAbove(in->get(), forall); }))
    return nullptr;
  auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(
      &*forall.getTerminator().getYieldingOps().begin());
  if (!insert || !insert.getSourceType().hasStaticShape())
    return nullptr;
  // The tile: the consumer over the inserted slice, reading its other
  // inputs' slices through their maps and the GEMM's tile as its init.
  SmallVector<OpFoldResult> offsets = insert.getMixedOffsets(), extents = insert.getMixedSizes();
  rewriter.setInsertionPoint(forall.getTerminator());
  Location loc = consumer.getLoc();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : others) {
    AffineMap map = consumer.getMatchingIndexingMap(in);
    auto type = cast<RankedTensorType>(in->get().getType());
    SmallVector<OpFoldResult> o, z, one(type.getRank(), rewriter.getIndexAttr(1));
    for (AffineExpr e : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      o.push_back(offsets[d]);
      z.push_back(extents[d]);
    }
    inputs.push_back(rewriter.create<tensor::ExtractSliceOp>(loc, in->get(), o, z, one));
    maps.push_back(map);
  }
  AffineMap identity = consumer.getMatchingIndexingMap(init);
  maps.push_back(identity);
  Value gemmTile = insert.getSource();
  auto tileOp = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{gemmTile.getType()}, inputs, ValueRange{gemmTile}, maps,
      consumer.getIteratorTypesArray());
  // The body, with the GEMM's value read from the init.
  Block *body = rewriter.createBlock(&tileOp.getRegion());
  IRMapping mapping;
  Block &old = consumer.getRegion().front();
  for (OpOperand *in : others)
    mapping.map(old.getArgument(in->getOperandNumber()),
                body->addArgument(old.getArgument(in->getOperandNumber()).getType(), loc));
  Value outArg = body->addArgument(old.getArgument(use.getOperandNumber()).getType(), loc);
  mapping.map(old.getArgument(use.getOperandNumber()), outArg);
  rewriter.setInsertionPointToStart(body);
  for (Operation &op : old)
    rewriter.clone(op, mapping);
  rewriter.modifyOpInPlace(insert, [&] { insert.getSourceMutable().assign(tileOp.getResult(0)); });
  replaced = consumer;
  rewriter.replaceOp(consumer, whole);
  return cast<linalg::LinalgOp>(tileOp.getOperation());
}

linalg::LinalgOp dlc::fuseInitFill(RewriterBase &rewriter, scf::ForallOp forall) {
  if (forall.getOutputs().size() != 1)
    return nullptr;
  auto fill = forall.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse() || !fill.hasPureTensorSemantics())
    return nullptr;
  BlockArgument arg = forall.getRegionIterArgs()[0];
  tensor::ExtractSliceOp slice;
  for (Operation *user : arg.getUsers())
    if (auto s = dyn_cast<tensor::ExtractSliceOp>(user)) {
      if (slice)
        return nullptr; // the tile is read in two places
      slice = s;
    }
  if (!slice)
    return nullptr;
  rewriter.setInsertionPointAfter(slice);
  auto tileFill = rewriter.create<linalg::FillOp>(fill.getLoc(), fill.getInputs()[0],
                                                  slice.getResult());
  rewriter.replaceAllUsesExcept(slice.getResult(), tileFill.getResult(0), tileFill);
  rewriter.modifyOpInPlace(forall, [&] {
    forall.getOutputsMutable()[0].assign(fill.getOutputs()[0]);
  });
  rewriter.eraseOp(fill);
  return cast<linalg::LinalgOp>(tileFill.getOperation());
}

bool dlc::initOfContraction(linalg::LinalgOp op) {
  if (!isa<linalg::FillOp>(op) || !op->hasOneUse())
    return false;
  OpOperand &use = *op->getUses().begin();
  auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return user && user.isDpsInit(&use) && linalg::isaContractionOpInterface(user);
}
