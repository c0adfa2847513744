//===- LowerVectors.cpp - progressive lowering to 1-D vector ops ----------===//
#include "passes/LaneBlockTranspose.h"
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

/// The "paired" lane order of 8 lanes: lane k holds lane kPairedOrder[k]
/// (the middle two pairs swapped; its own inverse). The even elements of
/// two 8-lane reads 7 apart in this order are one in-lane vshufps on AVX2;
/// in order they take a vpermpd as well, per read.
constexpr int64_t kPairedLanes = 8;
constexpr int64_t kPairedOrder[kPairedLanes] = {0, 1, 4, 5, 2, 3, 6, 7};

/// Lanes i = 0..lanes-1 of `rows` (a memref whose innermost dim is
/// contiguous) at `indices`, the innermost index advancing by `step` per
/// lane: contiguous reads spanning the step * (lanes - 1) + 1 elements
/// needed, the last ending on the last element needed (none reads past
/// it), then one shuffle of the first two reads and one more per further
/// read, each adding that read's lanes to those picked so far. The reads
/// are `width` lanes each: the next power of two where the span holds it
/// (6 lanes as reads of 8). LLVM legalized a 6-lane read and shuffle, once
/// combined with its neighbours' (a pool's windows), into one scalar
/// extract per element. Step 2 (stride-2 taps, an im2col's row of a
/// stride-2 conv) is two reads and one shuffle; step 4 (a Winograd F(4x4)
/// input row split into its phases) four reads and three shuffles, where
/// the gather lowering read one scalar per lane.
Value readEveryNth(RewriterBase &rewriter, Location loc, Value rows, SmallVector<Value> indices,
                   int64_t lanes, int64_t step, Value padding, bool paired = false) {
  auto rowsType = cast<MemRefType>(rows.getType());
  int64_t rank = rowsType.getRank();
  int64_t span = step * (lanes - 1) + 1;
  int64_t width = llvm::PowerOf2Ceil(lanes);
  if (width > span)
    width = lanes;
  auto lineType = VectorType::get({width}, rowsType.getElementType());
  AffineMap minor = AffineMap::getMinorIdentityMap(rank, 1, rewriter.getContext());
  auto inBounds = rewriter.getBoolArrayAttr({true});
  Value start = indices.back();
  SmallVector<Value> reads;
  SmallVector<int64_t> offsets;
  for (int64_t o = 0; o < span; o += width) {
    int64_t offset = std::min(o, span - width);
    if (offset)
      indices.back() = rewriter.create<arith::AddIOp>(
          loc, start, rewriter.create<arith::ConstantIndexOp>(loc, offset));
    reads.push_back(rewriter.create<vector::TransferReadOp>(
        loc, lineType, rows, indices, AffineMapAttr::get(minor), padding, Value(), inBounds));
    offsets.push_back(offset);
  }
  if (reads.size() == 1) { // one lane: the shuffle takes two operands
    reads.push_back(reads[0]);
    offsets.push_back(0);
  }
  // Lane i wants element step * i, from the first read holding it.
  auto from = [&](int64_t i) {
    int64_t k = 0;
    while (step * i >= offsets[k] + width)
      ++k;
    return std::make_pair(k, step * i - offsets[k]);
  };
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < lanes; ++i) {
    auto [k, at] = from(i);
    mask.push_back(k == 0 ? at : k == 1 ? width + at : i); // later reads: below
  }
  if (paired) {
    assert(lanes == kPairedLanes && reads.size() == 2 && "paired order is for 8 lanes, 2 reads");
    SmallVector<int64_t> inOrder = mask;
    for (int64_t k = 0; k < lanes; ++k)
      mask[k] = inOrder[kPairedOrder[k]];
  }
  Value picked = rewriter.create<vector::ShuffleOp>(loc, reads[0], reads[1], mask);
  for (size_t r = 2; r < reads.size(); ++r) {
    mask.clear();
    for (int64_t i = 0; i < lanes; ++i) {
      auto [k, at] = from(i);
      mask.push_back(k == int64_t(r) ? lanes + at : i);
    }
    picked = rewriter.create<vector::ShuffleOp>(loc, picked, reads[r], mask);
  }
  return picked;
}

/// Whether `op` reads V lanes along an innermost dim of stride 2 (a
/// stride-2 depthwise conv's or pool's taps) in a form readStrideTwo takes.
bool isStrideTwoRead(vector::TransferReadOp op) {
  auto memType = dyn_cast<MemRefType>(op.getSource().getType());
  VectorType vecType = op.getVectorType();
  if (!memType || op.getMask() || !op.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(op.getInBoundsValues(), [](bool b) { return !b; }) ||
      vecType.isScalable() || vecType.getNumElements() != vecType.getShape().back())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(getStridesAndOffset(memType, strides, offset)) && strides.back() == 2 &&
         !memType.isDynamicDim(memType.getRank() - 1);
}

/// A stride-2 read (isStrideTwoRead) as readEveryNth over the underlying
/// rows, its lanes in the paired order if `paired`.
Value readStrideTwo(RewriterBase &rewriter, vector::TransferReadOp op, bool paired) {
  auto memType = cast<MemRefType>(op.getSource().getType());
  VectorType vecType = op.getVectorType();
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)getStridesAndOffset(memType, strides, offset);
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
      StridedLayoutAttr::get(rewriter.getContext(), offset, staticStrides),
      memType.getMemorySpace());
  Value rows = rewriter.create<memref::ReinterpretCastOp>(loc, rowsType, meta.getBaseBuffer(),
                                                          off, sizes, unitStrides);
  SmallVector<Value> indices(op.getIndices());
  Value two = rewriter.create<arith::ConstantIndexOp>(loc, 2);
  indices.back() = rewriter.create<arith::MulIOp>(loc, indices.back(), two);
  Value picked =
      readEveryNth(rewriter, loc, rows, indices, lanes, /*step=*/2, op.getPadding(), paired);
  if (vecType.getRank() > 1)
    picked = rewriter.create<vector::BroadcastOp>(loc, vecType, picked);
  return picked;
}

/// A stride-2 read as readStrideTwo in lane order. Left alone,
/// VectorToSCF reads such a vector one scalar at a time.
struct StrideTwoReadAsShuffle : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rewriter) const override {
    if (!isStrideTwoRead(op))
      return failure();
    rewriter.replaceOp(op, readStrideTwo(rewriter, op, /*paired=*/false));
    return success();
  }
};

/// Whether `v` holds one value in every lane: a splat constant or a
/// broadcast of a scalar or of a one-element vector (a depthwise conv's
/// weight, bias or BatchNorm, a pool's init).
bool laneUniform(Value v) {
  if (auto broadcast = v.getDefiningOp<vector::BroadcastOp>()) {
    auto source = dyn_cast<VectorType>(broadcast.getSourceType());
    return !source || source.getNumElements() == 1;
  }
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  return dense && dense.isSplat();
}

/// The stride-2 8-lane reads that `write`'s vector is computed from by
/// elementwise ops alone, whose other operands are lane-uniform, each op
/// used only on the way to `write`; empty unless there are two or more
/// (one would save nothing) and nothing else feeds the value.
SmallVector<vector::TransferReadOp> pairableReads(vector::TransferWriteOp write) {
  VectorType type = write.getVectorType();
  if (type.getNumElements() != kPairedLanes || type.getShape().back() != kPairedLanes)
    return {};
  SmallVector<vector::TransferReadOp> reads;
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist{write.getVector()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (laneUniform(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != write->getBlock() || v.getType() != type)
      return {};
    if (!slice.insert(def))
      continue;
    if (auto read = dyn_cast<vector::TransferReadOp>(def)) {
      if (!isStrideTwoRead(read))
        return {};
      reads.push_back(read);
      continue;
    }
    if (!OpTrait::hasElementwiseMappableTraits(def) || def->getNumResults() != 1 ||
        def->getNumRegions())
      return {};
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation *op : slice)
    for (Operation *user : op->getUsers())
      if (user != write.getOperation() && !slice.contains(user))
        return {};
  if (reads.size() < 2)
    return {};
  return reads;
}

/// Elementwise work on stride-2 reads only (a stride-2 depthwise conv's
/// taps, a pool's windows) done in the paired lane order: each read is one
/// in-lane shuffle of its two loads, and the result goes back in order with
/// one permute before its write. In order, each of the 9 taps took a
/// second, cross-lane shuffle.
void pairStrideTwoLanes(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<vector::TransferWriteOp> writes;
  func.walk([&](vector::TransferWriteOp write) { writes.push_back(write); });
  for (vector::TransferWriteOp write : writes) {
    SmallVector<vector::TransferReadOp> reads = pairableReads(write);
    if (reads.empty())
      continue;
    for (vector::TransferReadOp read : reads) {
      rewriter.setInsertionPoint(read);
      rewriter.replaceOp(read, readStrideTwo(rewriter, read, /*paired=*/true));
    }
    rewriter.setInsertionPoint(write);
    Location loc = write.getLoc();
    VectorType type = write.getVectorType();
    // The 8 lanes out of the leading unit dims and back (as the reads'
    // broadcasts do; a shape_cast lowers lane by lane).
    Value value = write.getVector();
    if (type.getRank() > 1)
      value = rewriter.create<vector::ExtractOp>(
          loc, value, SmallVector<int64_t>(type.getRank() - 1, 0));
    value = rewriter.create<vector::ShuffleOp>(loc, value, value, kPairedOrder);
    if (type.getRank() > 1)
      value = rewriter.create<vector::BroadcastOp>(loc, type, value);
    rewriter.modifyOpInPlace(write, [&] { write.getVectorMutable().assign(value); });
  }
}

/// A gather's index vector as a scalar plus constant lane offsets:
/// broadcasts of a scalar, constant vectors, and sums and products by a
/// constant splat of those (the linearized indices the vectorizer builds
/// for an im2col's tensor.extract). With `rewriter`, also builds the
/// scalar; without, only checks.
struct LaneAffine {
  Value scalar; // null: 0
  SmallVector<int64_t> lanes;
  /// Computed from an element read as a one-element vector (a Gather's
  /// index), not only from loop indices and constants.
  bool fromElement = false;
};
FailureOr<LaneAffine> laneAffine(Value v, int64_t n, PatternRewriter *rewriter, Location loc) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return failure();
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
    if (!dense || !isa<VectorType>(c.getType()) || dense.getNumElements() != n)
      return failure();
    LaneAffine r;
    for (const APInt &x : dense.getValues<APInt>())
      r.lanes.push_back(x.getSExtValue());
    return r;
  }
  if (auto b = dyn_cast<vector::BroadcastOp>(def)) {
    if (auto source = dyn_cast<VectorType>(b.getSourceType())) {
      // One element (a Gather's row index read as vector<1xindex>): a scalar.
      if (source.getNumElements() == 1 && n > 1) {
        Value scalar = b.getSource();
        if (rewriter)
          scalar = rewriter->create<vector::ExtractOp>(
              loc, b.getSource(), SmallVector<int64_t>(source.getRank(), 0));
        return LaneAffine{scalar, SmallVector<int64_t>(n, 0), /*fromElement=*/true};
      }
      if (source.getNumElements() != n)
        return failure();
      return laneAffine(b.getSource(), n, rewriter, loc);
    }
    return LaneAffine{b.getSource(), SmallVector<int64_t>(n, 0)};
  }
  if (auto c = dyn_cast<vector::ShapeCastOp>(def))
    return laneAffine(c.getSource(), n, rewriter, loc);
  // A transpose of a vector with one non-unit dim keeps the lanes' order.
  if (auto t = dyn_cast<vector::TransposeOp>(def))
    if (llvm::count_if(t.getSourceVectorType().getShape(), [](int64_t d) { return d != 1; }) <= 1)
      return laneAffine(t.getVector(), n, rewriter, loc);
  // An op on vectors equal in every lane (a Gather's index wrapped and
  // clamped: cmpi, select, maxsi, minsi, index_cast) is the op on scalars.
  // Only for an index read from a tensor: conv gathers whose clamps this
  // also matched ran ResNet-50 1.5-2% slower as shuffled reads.
  if (isa<arith::CmpIOp, arith::SelectOp, arith::MaxSIOp, arith::MinSIOp, arith::SubIOp,
          arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
    SmallVector<Value> scalars;
    bool fromElement = false;
    for (Value operand : def->getOperands()) {
      FailureOr<LaneAffine> a = laneAffine(operand, n, rewriter, loc);
      if (failed(a) || llvm::any_of(a->lanes, [&](int64_t x) { return x != a->lanes[0]; }))
        return failure();
      fromElement |= a->fromElement;
      if (!rewriter) {
        scalars.push_back(operand);
        continue;
      }
      Type elem = getElementTypeOrSelf(operand.getType());
      Value offset =
          a->lanes[0] || !a->scalar
              ? rewriter->create<arith::ConstantOp>(loc, rewriter->getIntegerAttr(elem, a->lanes[0]))
                    .getResult()
              : Value();
      scalars.push_back(!a->scalar ? offset
                        : offset   ? rewriter->create<arith::AddIOp>(loc, a->scalar, offset).getResult()
                                   : a->scalar);
    }
    if (!fromElement)
      return failure();
    if (!rewriter)
      return LaneAffine{def->getResult(0), SmallVector<int64_t>(n, 0), true};
    OperationState state(loc, def->getName(), scalars,
                         TypeRange{getElementTypeOrSelf(def->getResult(0).getType())},
                         def->getAttrs());
    return LaneAffine{rewriter->create(state)->getResult(0), SmallVector<int64_t>(n, 0), true};
  }
  auto combine = [&](Value a, Value b) -> Value {
    if (!rewriter || !a || !b)
      return a ? a : b;
    return rewriter->create<arith::AddIOp>(loc, a, b);
  };
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    FailureOr<LaneAffine> a = laneAffine(add.getLhs(), n, rewriter, loc);
    FailureOr<LaneAffine> b = laneAffine(add.getRhs(), n, rewriter, loc);
    if (failed(a) || failed(b))
      return failure();
    LaneAffine r{combine(a->scalar, b->scalar), a->lanes, a->fromElement || b->fromElement};
    for (int64_t i = 0; i < n; ++i)
      r.lanes[i] += b->lanes[i];
    return r;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    for (int side = 0; side < 2; ++side) {
      Value factor = mul->getOperand(1 - side);
      DenseIntElementsAttr splat;
      if (!matchPattern(factor, m_Constant(&splat)) || !splat.isSplat())
        continue;
      FailureOr<LaneAffine> a = laneAffine(mul->getOperand(side), n, rewriter, loc);
      if (failed(a))
        return failure();
      int64_t k = splat.getSplatValue<APInt>().getSExtValue();
      LaneAffine r{a->scalar, a->lanes, a->fromElement};
      if (rewriter && r.scalar)
        r.scalar = rewriter->create<arith::MulIOp>(
            loc, r.scalar, rewriter->create<arith::ConstantIndexOp>(loc, k));
      for (int64_t &x : r.lanes)
        x *= k;
      return r;
    }
  }
  return failure();
}

/// An unmasked gather from a contiguous buffer whose indices advance by 1,
/// 2 or 4 per lane (an im2col's row of a stride-1 or stride-2 conv, a
/// Winograd F(4x4) row split into phases): one contiguous read, or
/// readEveryNth, of the buffer seen as one row. The
/// gather lowering reads one scalar per lane: ResNet-50's first im2col
/// (7x7, stride 2) took 0.80 ms of its 82 at one thread, the GEMM after it
/// 2.9; MobileNetV2's (3x3, stride 2) 0.165 ms, read this way 0.06.
struct StridedGatherAsReads : OpRewritePattern<vector::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::GatherOp op, PatternRewriter &rewriter) const override {
    auto memType = dyn_cast<MemRefType>(op.getBase().getType());
    VectorType type = op.getVectorType();
    if (!memType || !memType.hasStaticShape() || !memType.getLayout().isIdentity() ||
        type.isScalable() || type.getNumElements() != type.getShape().back() ||
        !matchPattern(op.getMask(), m_One()) ||
        llvm::any_of(op.getIndices(), [](Value i) { return !matchPattern(i, m_Zero()); }))
      return failure();
    if (!op.getIndexVectorType().getElementType().isIndex())
      return failure();
    int64_t n = type.getNumElements();
    Location loc = op.getLoc();
    FailureOr<LaneAffine> check = laneAffine(op.getIndexVec(), n, nullptr, loc);
    if (failed(check) || n < 2)
      return failure();
    int64_t step = check->lanes[1] - check->lanes[0];
    for (int64_t i = 1; i < n; ++i)
      if (check->lanes[i] - check->lanes[i - 1] != step)
        return failure();
    if (step != 1 && step != 2 && step != 4)
      return failure();
    LaneAffine index = *laneAffine(op.getIndexVec(), n, &rewriter, loc);
    Value start = rewriter.create<arith::ConstantIndexOp>(loc, index.lanes[0]);
    if (index.scalar)
      start = rewriter.create<arith::AddIOp>(loc, index.scalar, start);
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < memType.getRank(); ++d)
      all[0].push_back(d);
    Value row = rewriter.create<memref::CollapseShapeOp>(loc, op.getBase(), all);
    Value zero = rewriter.create<arith::ConstantOp>(loc, rewriter.getZeroAttr(type.getElementType()));
    Value read;
    if (step == 1)
      read = rewriter.create<vector::TransferReadOp>(
          loc, VectorType::get({n}, type.getElementType()), row, ValueRange{start}, zero,
          ArrayRef<bool>{true});
    else
      read = readEveryNth(rewriter, loc, row, {start}, n, step, zero);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(op, type, read);
    return success();
  }
};

/// Whether `type` is a 1-D row of 32-bit elements, which a masked load or
/// store of the next power of two lanes can stand for.
bool isRowOf32Bits(VectorType type) {
  Type elem = type.getElementType();
  return type.getRank() == 1 && !type.isScalable() && elem.isIntOrFloat() &&
         elem.getIntOrFloatBitWidth() == 32;
}

/// For a row of `lanes` widened to `wide` lanes of `elem`: the mask of its
/// first `lanes` and a zero vector (the masked load's pass-through, the
/// masked store's filler).
std::pair<Value, Value> widenedRowMask(PatternRewriter &rewriter, Location loc, Type elem,
                                       int64_t lanes, int64_t wide) {
  auto wideType = VectorType::get({wide}, elem);
  auto maskType = VectorType::get({wide}, rewriter.getI1Type());
  Value mask = rewriter.create<vector::ConstantMaskOp>(loc, maskType,
                                                       rewriter.getI64ArrayAttr({lanes}));
  Value zeros =
      rewriter.create<arith::ConstantOp>(loc, wideType, rewriter.getZeroAttr(wideType));
  return {mask, zeros};
}

/// A 1-D load of a lane count that is not a multiple of 4 (a depthwise
/// tap's row of a 7x7 or 14x14 map: 7 lanes, or 8 + 6) as a masked load
/// of the next power of two, the lanes past it off. LLVM assembled a
/// 7-lane load from a 4-lane load, an 8-byte load and two inserts, four
/// instructions for each of the nine taps; the masked load is one
/// (vmaskmovps, or a k-masked vmovups on AVX-512) and, like the plain
/// load, touches no element past the row. MobileNetV2, 1 thread: its
/// 7x7 and 14x14 depthwise convs 25-35% faster in a profile, the model
/// 0.2-1.3% in three A/B runs. Stores stay plain on AVX2 (see
/// OddStoreAsMaskedStore).
struct OddLoadAsMaskedLoad : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::LoadOp op, PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    int64_t lanes = type.getNumElements();
    if (!isRowOf32Bits(type) || lanes <= 4 || lanes % 4 == 0)
      return failure();
    int64_t wide = llvm::PowerOf2Ceil(lanes);
    auto [mask, zeros] =
        widenedRowMask(rewriter, op.getLoc(), type.getElementType(), lanes, wide);
    Value loaded = rewriter.create<vector::MaskedLoadOp>(op.getLoc(), zeros.getType(),
                                                         op.getBase(), op.getIndices(), mask,
                                                         zeros);
    rewriter.replaceOpWithNewOp<vector::ExtractStridedSliceOp>(
        op, loaded, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
    return success();
  }
};

/// A 1-D store of a lane count that is not a power of two (a 14-wide
/// row: LLVM split it into 8-, 4- and 2-lane stores, three for each of a
/// depthwise conv's rows and a pad's copy) as one masked store of the next
/// power of two. Only where masked stores are plain k-masked vmovups
/// (AVX-512); AVX2's vmaskmovps to memory is microcoded on Zen 3 and made
/// MobileNetV2 5% slower there.
struct OddStoreAsMaskedStore : OpRewritePattern<vector::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::StoreOp op, PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    int64_t lanes = type.getNumElements();
    if (!isRowOf32Bits(type) || lanes <= 4 || llvm::isPowerOf2_64(lanes) || lanes > 16)
      return failure();
    auto [mask, zeros] = widenedRowMask(rewriter, op.getLoc(), type.getElementType(), lanes,
                                        llvm::PowerOf2Ceil(lanes));
    Value widened = rewriter.create<vector::InsertStridedSliceOp>(
        op.getLoc(), op.getValueToStore(), zeros, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1});
    rewriter.replaceOpWithNewOp<vector::MaskedStoreOp>(op, op.getBase(), op.getIndices(), mask,
                                                       widened);
    return success();
  }
};

struct LowerVectorsPass : dlc::impl::LowerVectorsBase<LowerVectorsPass> {
  using LowerVectorsBase::LowerVectorsBase;

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
    // Masked transfers first: later patterns rewrite the op inside a
    // vector.mask region into several ops, which the mask cannot hold.
    bool ok = succeeded(apply([&](RewritePatternSet &p) {
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(p);
    }));
    // Before StrideTwoReadAsShuffle takes the stride-2 reads in order.
    if (ok)
      pairStrideTwoLanes(func);
    ok = ok &&
        succeeded(apply([&](RewritePatternSet &p) {
          p.add<StrideTwoReadAsShuffle, StridedGatherAsReads>(ctx);
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
          // Ahead of upstream's (benefit 1): its one flat shuffle of a
          // 14 x 32 tile became ~1100 instructions in LLVM.
          dlc::populateLaneBlockTransposePatterns(p, vectorWidth, /*benefit=*/2);
          vector::populateVectorTransposeLoweringPatterns(p, opts);
          vector::populateVectorBroadcastLoweringPatterns(p);
          vector::populateVectorGatherLoweringPatterns(p);
          vector::populateVectorMaskOpLoweringPatterns(p);
        })) &&
        // Last: the loads the stages above made.
        succeeded(apply([&](RewritePatternSet &p) {
          p.add<OddLoadAsMaskedLoad>(ctx);
          if (maskedStores)
            p.add<OddStoreAsMaskedStore>(ctx);
        }));
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
