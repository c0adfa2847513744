//===- TileAndVectorize.cpp - cache/register tiling + vectorization -------===//
#include "passes/ConvGemmLayout.h"
#include "passes/GemmTileFusion.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace dlc {
#define GEN_PASS_DEF_TILEANDVECTORIZE
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
/// Marks a register tile with the vector sizes it is vectorized with.
constexpr llvm::StringLiteral kVectorSizes = "dlc.vector_sizes";

/// Whether `v`'s buffer will be one contiguous row-major block: views
/// (reshapes, slices) keep their source's layout, and a slice is contiguous
/// only when it cuts nothing but leading dims.
bool contiguous(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto e = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    return contiguous(e.getSrc());
  if (auto c = dyn_cast_or_null<tensor::CollapseShapeOp>(def))
    return contiguous(c.getSrc());
  if (auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def)) {
    if (!slice.hasUnitStride() || !slice.getSourceType().hasStaticShape())
      return false;
    ArrayRef<int64_t> from = slice.getSourceType().getShape();
    ArrayRef<int64_t> sizes = slice.getStaticSizes();
    unsigned i = 0;
    while (i < sizes.size() && sizes[i] == 1)
      ++i;
    for (unsigned j = i + 1; j < sizes.size(); ++j)
      if (sizes[j] != from[j])
        return false;
    return contiguous(slice.getSource());
  }
  return true;
}

/// The vectorizer turns a body's tensor.extract into a vector.gather with
/// offsets linearized for a row-major source; on a strided view (a slice of
/// a wider tensor, reshaped) those offsets land in the wrong rows. Such a
/// source is first copied into a buffer of its own.
void copyStridedGatherSources(func::FuncOp func) {
  SmallVector<std::pair<linalg::GenericOp, Value>> work;
  func.walk([&](linalg::GenericOp op) {
    llvm::SetVector<Value> strided;
    op->walk([&](tensor::ExtractOp e) {
      if (!op->isAncestor(e.getTensor().getParentBlock()->getParentOp()) &&
          !contiguous(e.getTensor()))
        strided.insert(e.getTensor());
    });
    for (Value v : strided)
      work.push_back({op, v});
  });
  for (auto &[generic, v] : work) {
    linalg::GenericOp op = generic;
    OpBuilder b(op);
    auto type = cast<RankedTensorType>(v.getType());
    Value copy = b.create<bufferization::AllocTensorOp>(op.getLoc(), type, ValueRange{}, v);
    v.replaceUsesWithIf(copy, [&](OpOperand &use) {
      return isa<tensor::ExtractOp>(use.getOwner()) && op->isAncestor(use.getOwner());
    });
  }
}

/// A constant-padded tensor.pad as a fill of the padded buffer and a copy
/// of the input into the view of its interior: both then tile, vectorize
/// and run on the thread pool like any elementwise op. (Bufferized as is,
/// a pad is a memset and an untiled copy in the entry, one thread:
/// 12% of MobileNetV2's time.)
void decomposePads(func::FuncOp func) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
  for (tensor::PadOp pad : pads) {
    Value value = pad.getConstantPaddingValue();
    auto type = pad.getResultType();
    if (!value || !type.hasStaticShape() || !pad.getSourceType().hasStaticShape() ||
        llvm::any_of(pad.getMixedLowPad(),
                     [](OpFoldResult o) { return !getConstantIntValue(o); }))
      continue;
    OpBuilder b(pad);
    Location loc = pad.getLoc();
    // Not a tensor.empty: CSE would merge two pads' equal empties and
    // fills, and bufferization then copy one of them whole.
    Value filled = b.create<bufferization::AllocTensorOp>(loc, type, ValueRange{});
    // A pad rebuilt on purpose stays apart from its twin (see
    // dlc::kRecomputedAttr).
    Attribute mark = pad->getAttr(dlc::kRecomputedAttr);
    ArrayRef<int64_t> shape = type.getShape(), source = pad.getSourceType().getShape();
    SmallVector<int64_t> low, high;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      low.push_back(*getConstantIntValue(pad.getMixedLowPad()[d]));
      high.push_back(shape[d] - source[d] - low.back());
    }
    // The interior's copy first, then the border: fused into one loop per
    // channel (dlc-fuse-parallel-loops), the border's scattered column
    // stores then land on lines the copy just brought into L1.
    SmallVector<OpFoldResult> interiorSizes = getAsIndexOpFoldResult(b.getContext(), source);
    SmallVector<OpFoldResult> unitStrides(type.getRank(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> lowPad = pad.getMixedLowPad();
    Value interior =
        b.create<tensor::ExtractSliceOp>(loc, filled, lowPad, interiorSizes, unitStrides);
    auto copy = b.create<linalg::CopyOp>(loc, pad.getSource(), interior);
    if (mark)
      copy->setAttr(dlc::kRecomputedAttr, mark);
    filled = b.create<tensor::InsertSliceOp>(loc, copy.getResult(0), filled, lowPad,
                                             interiorSizes, unitStrides);
    // Only the border is filled, as one slab below and one above the
    // interior along each padded dim (the dims before it restricted to the
    // interior): filling the whole buffer first wrote each interior element
    // twice (MobileNetV2's depthwise inputs, 5 MB for the first).
    for (int64_t d = 0; d < type.getRank(); ++d)
      for (bool below : {true, false}) {
        int64_t width = below ? low[d] : high[d];
        if (width <= 0)
          continue;
        SmallVector<int64_t> offsets(type.getRank(), 0), sizes(shape);
        for (int64_t i = 0; i < d; ++i) {
          offsets[i] = low[i];
          sizes[i] = source[i];
        }
        offsets[d] = below ? 0 : low[d] + source[d];
        sizes[d] = width;
        MLIRContext *ctx = b.getContext();
        SmallVector<OpFoldResult> at = getAsIndexOpFoldResult(ctx, offsets),
                                  size = getAsIndexOpFoldResult(ctx, sizes),
                                  ones(type.getRank(), b.getIndexAttr(1));
        Value slab = b.create<tensor::ExtractSliceOp>(loc, filled, at, size, ones);
        auto fill = b.create<linalg::FillOp>(loc, value, slab);
        if (mark)
          fill->setAttr(dlc::kRecomputedAttr, mark);
        filled = b.create<tensor::InsertSliceOp>(loc, fill.getResult(0), filled, at, size, ones);
      }
    pad.replaceAllUsesWith(filled);
    pad.erase();
  }
}

/// A fill that several ops accumulate into (CSE merged their equal zero
/// starts) gets one clone per such use: each op then accumulates into a
/// buffer of its own instead of bufferization copying the shared one, in
/// the entry, on one thread (MobileNetV2's depthwise convs).
void splitSharedFills(func::FuncOp func) {
  SmallVector<linalg::FillOp> fills;
  func.walk([&](linalg::FillOp fill) {
    if (fill.hasPureTensorSemantics() && !fill->hasOneUse())
      fills.push_back(fill);
  });
  for (linalg::FillOp fill : fills) {
    for (OpOperand &use : llvm::make_early_inc_range(fill->getResult(0).getUses())) {
      // Linalg accumulators only: an insert_slice into the fill (a pad's
      // interior) must keep writing into the same buffer.
      auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!user || !user.isDpsInit(&use))
        continue;
      OpBuilder b(use.getOwner());
      use.set(b.clone(*fill)->getResult(0));
    }
  }
}

/// Tiles `op` by `sizes` (0 = untiled) and returns the tiled op, or null;
/// `loops` gets one scf.for per tiled dim, in dim order.
linalg::LinalgOp tile(RewriterBase &rewriter, linalg::LinalgOp op,
                      ArrayRef<int64_t> sizes, SmallVectorImpl<scf::ForOp> *loops = nullptr,
                      bool forall = false, ArrayRef<int64_t> interchange = {}) {
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op;
  scf::SCFTilingOptions options;
  if (!interchange.empty())
    options.setInterchange(interchange);
  SmallVector<OpFoldResult> ofr;
  for (int64_t s : sizes)
    ofr.push_back(rewriter.getIndexAttr(s));
  options.setTileSizes(ofr);
  if (forall)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result))
    return nullptr;
  // A value rebuilt on purpose keeps its mark on its loops (see
  // dlc::kRecomputedAttr).
  if (Attribute mark = op->getAttr(dlc::kRecomputedAttr)) {
    for (LoopLikeOpInterface l : result->loops)
      l->setAttr(dlc::kRecomputedAttr, mark);
    result->tiledOps.back()->setAttr(dlc::kRecomputedAttr, mark);
  }
  rewriter.replaceOp(op, result->replacements);
  if (loops)
    for (LoopLikeOpInterface l : result->loops)
      loops->push_back(cast<scf::ForOp>(l.getOperation()));
  return dyn_cast<linalg::LinalgOp>(result->tiledOps.back());
}

/// Splits the loops tiling dims `dims` (by `sizes`) into full tiles and one
/// partial tile, so that full tiles get static shapes: unmasked vectors
/// whose accumulators can be hoisted into registers.
void peel(RewriterBase &rewriter, ArrayRef<scf::ForOp> loops, ArrayRef<int64_t> sizes,
          ArrayRef<unsigned> dims) {
  for (unsigned d : dims) {
    if (sizes[d] == 0)
      continue;
    unsigned index = llvm::count_if(sizes.take_front(d), [](int64_t s) { return s != 0; });
    scf::ForOp partial;
    rewriter.setInsertionPoint(loops[index]);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, loops[index], partial);
  }
}

/// A tile size of `want` along a dim of `size`, 0 (untiled) when it covers it.
int64_t clampTile(int64_t want, int64_t size) {
  return ShapedType::isDynamic(size) || want < size ? want : 0;
}

/// Forall iterations a panel GEMM's cache tiles aim for: the thread pool
/// shares out whole iterations, and a thread done early waits for the
/// other's last one, so on two threads at least 32 each. (32 in all, until
/// session 53: on a Zen 4 VM, MobileNetV2's 14x14 and 7x7 GEMMs then went
/// in 39 to 60 tiles and its 56x56 expand convs in 36; at 64, 78 to 420
/// and 72, the model took 0.98 of its time at one thread and at two, paired
/// rounds. No ResNet, LeNet or MLP GEMM changed.)
constexpr int64_t kEnoughForallTiles = 64;

/// An elementwise op over at least kMinPlanes planes of at most
/// kPlaneElements elements (16 KB, a padded 62x62 channel: half of L1) goes
/// a plane per forall iteration (see tileElementwise); 64 planes keep 16
/// threads' shares even.
constexpr int64_t kPlaneElements = 4096;
constexpr int64_t kMinPlanes = 64;

/// Planes of at most kTinyPlaneElements elements (16x16, a padded 14x14
/// channel) go kTinyPlaneGroup per forall iteration, where that leaves at
/// least kEnoughForallTiles iterations: a pad's copy of one 7x7 channel
/// and the depthwise taps reading it back right after, fused per channel,
/// had each tap's load wait on the copy's stores still in flight (a
/// load spanning two stores is not forwarded from the store buffer).
/// The copy's planes and the taps' must both be tiny to group alike (and
/// fuse): a 15x15 map, padded to 17x17, would keep the two loops apart.
/// The count is the panel GEMMs' (kEnoughForallTiles): with 32 here and
/// their 64 (tried in session 53), ResNet-18's copy of a 256-channel 14x14
/// map into its padded plane no longer fused with the loop after it.
constexpr int64_t kTinyPlaneElements = 256;
constexpr int64_t kTinyPlaneGroup = 8;

/// Rows a forall iteration takes of `planes` planes of `rows` rows each: the
/// largest power of two dividing `rows` that leaves kEnoughForallTiles
/// iterations or more; 0 (whole planes) where none does.
int64_t rowBlock(int64_t rows, int64_t planes) {
  int64_t block = 0;
  for (int64_t b = 1; rows % b == 0 && planes * (rows / b) >= kEnoughForallTiles; b *= 2)
    block = b;
  return block;
}

/// A cache tile along a dim of `size`: the largest multiple of `multiple` at
/// most `want` that divides `size` (static tiles need no masks); else the
/// whole dim when it is at most twice `want` (register-tile remainders then
/// stay static), else `want`.
int64_t cacheTile(int64_t want, int64_t size, int64_t multiple) {
  if (ShapedType::isDynamic(size))
    return want;
  if (size <= want)
    return 0;
  for (int64_t t = want / multiple * multiple; t >= multiple; t -= multiple)
    if (size % t == 0)
      return t;
  return size <= 2 * want ? 0 : want;
}

/// A read of exactly what a transfer_write just wrote to a tensor, through
/// other permutation maps (a pixelRows register tile's epilogue reading the
/// accumulator the GEMM stored transposed): the written vector, transposed.
/// Upstream's read-after-write folding built an invalid broadcast for these
/// when unit dims sat between the permuted ones.
struct ForwardPermutedWrite : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto write = read.getSource().getDefiningOp<vector::TransferWriteOp>();
    if (!write || read.getMask() || write.getMask() ||
        !isa<RankedTensorType>(read.getSource().getType()) ||
        llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }) ||
        llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }) ||
        read.getIndices() != write.getIndices())
      return failure();
    AffineMap r = read.getPermutationMap(), w = write.getPermutationMap();
    if (!r.isPermutation() || !w.isPermutation() || r == w)
      return failure();
    VectorType from = write.getVectorType(), to = read.getVectorType();
    SmallVector<int64_t> perm;
    for (unsigned i = 0; i < r.getNumResults(); ++i) {
      unsigned j = 0;
      while (w.getDimPosition(j) != r.getDimPosition(i))
        ++j;
      if (from.getDimSize(j) != to.getDimSize(i))
        return failure();
      perm.push_back(j);
    }
    rewriter.replaceOpWithNewOp<vector::TransposeOp>(read, write.getVector(), perm);
    return success();
  }
};

struct TileAndVectorizePass
    : dlc::impl::TileAndVectorizeBase<TileAndVectorizePass> {
  using TileAndVectorizeBase::TileAndVectorizeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (maxAccumulators < 1) {
      func.emitError("dlc-tile-and-vectorize: max-accumulators must be at least 1, got ")
          << static_cast<int64_t>(maxAccumulators);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    fusedAway.clear();
    dlc::propagateReshapesToGemms(func);
    decomposePads(func);
    splitSharedFills(func);
    copyStridedGatherSources(func);
    SmallVector<linalg::LinalgOp> roots;
    func.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        roots.push_back(op);
    });
    // Im2col generics whose GEMM builds their columns per cache tile wait
    // for it (tileContraction); those it did not take are tiled after.
    fusedColumns.clear();
    SmallVector<Operation *> deferred;
    for (linalg::LinalgOp op : roots) {
      int64_t rows = 0;
      if (linalg::GenericOp im2col = fusableColumns(op, rows)) {
        fusedColumns[op] = {im2col, rows};
        deferred.push_back(im2col);
      }
    }
    for (linalg::LinalgOp op : roots) {
      if (fusedAway.contains(op) || llvm::is_contained(deferred, op.getOperation()) ||
          dlc::initOfContraction(op))
        continue;
      if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
              linalg::PoolingNchwSumOp, linalg::Conv2DNgchwGfchwOp>(op))
        tileWindowOp(rewriter, op);
      else if (isLaneReduction(op))
        tileLaneReduction(rewriter, op);
      else if (linalg::isaContractionOpInterface(op))
        tileContraction(rewriter, op);
      else if (isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(op) &&
               op.getNumReductionLoops() == 0)
        tileElementwise(rewriter, op);
    }
    for (Operation *im2col : deferred)
      if (!fusedAway.contains(im2col))
        tileElementwise(rewriter, cast<linalg::LinalgOp>(im2col));
    // Peeled remainders have affine.min sizes that fold to constants:
    // canonicalize first so that they vectorize without masks too.
    {
      RewritePatternSet canon(&getContext());
      for (Dialect *dialect : getContext().getLoadedDialects())
        dialect->getCanonicalizationPatterns(canon);
      for (RegisteredOperationName op : getContext().getRegisteredOperations())
        op.getCanonicalizationPatterns(canon, &getContext());
      if (failed(applyPatternsAndFoldGreedily(func, std::move(canon))))
        return signalPassFailure();
    }
    // Register tiles (peeled copies included) carry their vector sizes.
    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorSizes))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      SmallVector<int64_t> sizes(
          cast<DenseI64ArrayAttr>(op->getAttr(kVectorSizes)).asArrayRef());
      op->removeAttr(kVectorSizes);
      ArrayRef<int64_t> vs = op.hasDynamicShape() ? ArrayRef<int64_t>(sizes)
                                                  : ArrayRef<int64_t>();
      // An explicit all-false scalable-dims list: with an empty one the
      // vectorizer builds mask types that differ from the transfer ops'.
      SmallVector<bool> scalable(vs.size(), false);
      // Gathers (the im2col generic reads with tensor.extract) vectorize too.
      bool gathers = false;
      op->walk([&](tensor::ExtractOp) { gathers = true; });
      if (failed(linalg::vectorizeOpPrecondition(op, vs, scalable, gathers)))
        continue; // stays scalar: correct, slower
      rewriter.setInsertionPoint(op);
      (void)linalg::vectorize(rewriter, op, vs, scalable, gathers);
    }
    // Masked transfers become transfers with a mask operand first: the
    // patterns below would rewrite the op inside a vector.mask into several.
    {
      RewritePatternSet maskPatterns(&getContext());
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(maskPatterns);
      if (failed(applyPatternsAndFoldGreedily(func, std::move(maskPatterns))))
        return signalPassFailure();
    }
    hoistAccumulators(func);
    {
      RewritePatternSet forwarding(&getContext());
      forwarding.add<ForwardPermutedWrite>(&getContext());
      if (failed(applyPatternsAndFoldGreedily(func, std::move(forwarding))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, &getContext());
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, &getContext());
    // Drops the tensor iter_args hoistAccumulators leaves yielded unchanged.
    scf::ForOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(func, std::move(patterns))))
      signalPassFailure();
  }

  /// GEMMs that build their columns per cache tile: the im2col generic and
  /// its output rows per tile.
  DenseMap<Operation *, std::pair<linalg::GenericOp, int64_t>> fusedColumns;

  /// The im2col generic (dlc::im2colColumns: [1, C, KH, KW, OH, OW], read
  /// from its input through tensor.extract) whose columns, reshaped to [1,
  /// C KH KW, OH OW], are row-panel GEMM `gemm`'s operand along N, where
  /// dlc::fusedColumnRows lets the GEMM build them per cache tile of `rows`
  /// output rows; else null.
  linalg::GenericOp fusableColumns(linalg::LinalgOp gemm, int64_t &rows) {
    if (!fuseColumns || !linalg::isaContractionOpInterface(gemm))
      return {};
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(gemm);
    if (failed(dims) || dims->n.empty() || dims->k.size() != 1)
      return {};
    AffineExpr n = getAffineDimExpr(dims->n.back(), gemm.getContext());
    for (OpOperand *in : gemm.getDpsInputOperands()) {
      auto collapse = in->get().getDefiningOp<tensor::CollapseShapeOp>();
      AffineMap map = gemm.getMatchingIndexingMap(in);
      if (!collapse || !collapse->hasOneUse() || map.getNumResults() != 3 ||
          map.getResult(2) != n)
        continue;
      auto im2col = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
      if (!im2col || !im2col->hasOneUse() || im2col.getNumDpsInputs() != 0 ||
          im2col.getNumLoops() != 6 || im2col.getNumReductionLoops() != 0 ||
          im2col.hasDynamicShape() ||
          collapse.getReassociationIndices() !=
              SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}})
        continue;
      bool gathers = false;
      im2col->walk([&](tensor::ExtractOp) { gathers = true; });
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(im2col->getResult(0).getType()).getShape();
      rows = dlc::fusedColumnRows(shape[0], shape[1] * shape[2] * shape[3], shape[4], shape[5],
                                  nVectors * vectorWidth, cacheK, l2CacheBytes);
      if (gathers && rows)
        return im2col;
    }
    return {};
  }

  /// `tile` (a GEMM cache tile in its scf.forall) reads its columns from a
  /// block of its own: the rows of `im2col` its pixels cover, built in the
  /// iteration into a buffer of the iteration's (a thread's stack, see
  /// dlc-parallel-scratch-on-stack), while they are in cache. ResNet's stem
  /// wrote 7.4 MB of columns that its GEMM then read back from memory.
  void buildColumnsInTile(RewriterBase &rewriter, linalg::LinalgOp tile,
                          linalg::GenericOp im2col, int64_t rows) {
    auto collapse = cast<tensor::CollapseShapeOp>(*im2col->getUsers().begin());
    for (OpOperand *in : tile.getDpsInputOperands()) {
      auto slice = in->get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || slice.getSource() != collapse.getResult())
        continue;
      auto type = cast<RankedTensorType>(im2col->getResult(0).getType());
      int64_t width = type.getDimSize(5);
      Location loc = im2col.getLoc();
      MLIRContext *ctx = rewriter.getContext();
      rewriter.setInsertionPoint(slice);
      AffineExpr p;
      bindDims(ctx, p);
      SmallVector<OpFoldResult> offsets(6, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, type.getShape());
      offsets[4] = affine::makeComposedFoldedAffineApply(rewriter, loc, p.floorDiv(width),
                                                         {slice.getMixedOffsets()[2]});
      sizes[4] = rewriter.getIndexAttr(rows);
      FailureOr<TilingResult> tiled = cast<TilingInterface>(im2col.getOperation())
                                          .getTiledImplementation(rewriter, offsets, sizes);
      if (failed(tiled) || tiled->tiledOps.size() != 1)
        return;
      auto block = cast<linalg::LinalgOp>(tiled->tiledOps.front());
      SmallVector<int64_t> blockShape(type.getShape());
      blockShape[4] = rows;
      rewriter.setInsertionPoint(block);
      block.getDpsInitOperand(0)->set(rewriter.create<bufferization::AllocTensorOp>(
          loc, RankedTensorType::get(blockShape, type.getElementType()), ValueRange{}));
      rewriter.setInsertionPoint(slice);
      Value cols = rewriter.create<tensor::CollapseShapeOp>(
          loc, slice.getType(), block->getResult(0), collapse.getReassociationIndices());
      rewriter.replaceOp(slice, cols);
      if (collapse->use_empty())
        rewriter.eraseOp(collapse);
      if (im2col->use_empty()) {
        fusedAway.insert(im2col);
        rewriter.eraseOp(im2col);
      }
      vectorizeRows(rewriter, block);
      return;
    }
  }

  /// A panel GEMM whose operands fit in L2 (LeNet's convs) has too few cache
  /// tiles for an even split among threads: 3 panel tiles gave one thread 2
  /// and the other 1. Its cache tiles become single panels by the largest
  /// pixel tile (a multiple of `lanes` dividing the pixels) that still
  /// gives `min-forall-tiles`; its operands stay in cache either way.
  void splitSmallGemm(linalg::LinalgOp op, const linalg::ContractionDimensions &dims,
                      ArrayRef<int64_t> ranges, int64_t lanes, SmallVectorImpl<int64_t> &cache) {
    const int64_t kMinForallIterations = minForallTiles;
    constexpr int64_t kSmallOperandBytes = 256 << 10;
    if (kMinForallIterations <= 1)
      return;
    unsigned m = dims.m.back(), n = dims.n.back();
    if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges[n] % lanes != 0)
      return;
    int64_t operandBytes = 0;
    for (OpOperand &operand : op->getOpOperands())
      if (auto t = dyn_cast<RankedTensorType>(operand.get().getType()))
        operandBytes += t.getNumElements() * 4;
    auto iterations = [&](unsigned d) { return cache[d] ? ranges[d] / cache[d] : 1; };
    int64_t forall = iterations(n), panels = 1;
    for (unsigned d : dims.m)
      if (d != m) {
        forall *= iterations(d);
        panels *= ranges[d];
      }
    if (forall >= kMinForallIterations || operandBytes > kSmallOperandBytes)
      return;
    for (unsigned d : dims.m)
      if (d != m && ranges[d] > 1)
        cache[d] = 1;
    int64_t pixels = lanes;
    for (int64_t t = ranges[n]; t >= lanes; t -= lanes)
      if (ranges[n] % t == 0 && panels * (ranges[n] / t) >= kMinForallIterations) {
        pixels = t;
        break;
      }
    cache[n] = pixels == ranges[n] ? 0 : pixels;
  }

  /// A panel GEMM that writes more than half of L2 from columns that fit
  /// in half of it (ResNet-50's 256 x 64 1x1 convs over 56x56: 3.2 MB out
  /// of 800 KB) takes its cache tiles panel by panel, each over all its
  /// pixels (in chunks where the panels alone are fewer than
  /// kEnoughForallTiles): the tile's output and residual rows then run on
  /// as 2 x `rows` sequential streams, where pixel blocks over all panels
  /// wrote and read 264 rows a block, each line a miss of its own; the
  /// columns are read again per panel, from L2. Where the columns overflow
  /// L2 they would come from memory once per panel (ResNet-50's 256-deep
  /// 56x56 convs ran 2x slower). Measured on Sapphire Rapids (2 MB of L2,
  /// one thread, layers inside the model): those 256 x 64 convs 1.22 ->
  /// 0.94 ms, the 512 x 128 ones over 28x28 0.90 -> 0.79; MobileNetV2's
  /// 96 x 16 over 112x112 0.86 -> 0.57 (the model about 3% faster). Only
  /// with 1 MB of L2 or more, where it was measured; at 16 threads on the
  /// device (AVX-512, MobileNetV2) 1.72 -> 1.67 ms.
  bool panelMajor(const linalg::ContractionDimensions &dims, ArrayRef<int64_t> ranges,
                  int64_t lanes, SmallVectorImpl<int64_t> &cache) {
    if (l2CacheBytes < (1 << 20) || llvm::any_of(ranges, ShapedType::isDynamic))
      return false;
    unsigned m = dims.m.back(), n = dims.n.back();
    int64_t columnBytes = 4, outputBytes = 4, panels = 1;
    for (unsigned d : dims.k)
      columnBytes *= ranges[d];
    for (unsigned d : dims.n) {
      columnBytes *= ranges[d];
      outputBytes *= ranges[d];
    }
    for (unsigned d : dims.m) {
      outputBytes *= ranges[d];
      if (d != m)
        panels *= ranges[d];
    }
    if (columnBytes * 2 > l2CacheBytes || outputBytes * 2 < l2CacheBytes)
      return false;
    for (unsigned d : dims.m)
      if (d != m)
        cache[d] = 1;
    int64_t chunks = (kEnoughForallTiles + panels - 1) / panels;
    cache[n] = chunks > 1 ? cacheTile(dlc::roundUp(ranges[n] / chunks, lanes), ranges[n], lanes) : 0;
    return true;
  }

  /// A panel GEMM's cache tiles (the scf.forall the threads share, whole
  /// iterations each) in a count that shares out finely: under
  /// kEnoughForallTiles, its panels go in smaller groups (the largest
  /// divisor of their count that reaches it, else single panels). A
  /// thread that is done takes whole iterations of the other's share, so
  /// with few the last one decides: ResNet-50's 3x3 conv over 28x28 made
  /// 7 tiles of 112 pixels, 4 for one thread and 3 for the other (2.5 ms
  /// of 48 on 2 threads over the model until the count was made even);
  /// an even 14 still left each of its 28x28 GEMMs 3-5% of the two
  /// threads' time waiting (measured per loop in session 31). A panel
  /// group reads the columns again, from L2 or L3: these GEMMs do at
  /// least a hundred FMAs for each float of them.
  bool balancePanelTiles(const linalg::ContractionDimensions &dims, ArrayRef<int64_t> ranges,
                         SmallVectorImpl<int64_t> &cache) {
    if (minForallTiles <= 1 || llvm::any_of(ranges, ShapedType::isDynamic))
      return false;
    bool changed = false;
    auto count = [&] {
      int64_t c = 1;
      for (unsigned d = 0; d < ranges.size(); ++d)
        if (!llvm::is_contained(dims.k, d) && cache[d] && ranges[d] > 1)
          c *= ranges[d] / cache[d];
      return c;
    };
    unsigned m = dims.m.back();
    for (unsigned d : dims.m) {
      int64_t tiles = count();
      if (d == m || ranges[d] <= 1 || tiles >= kEnoughForallTiles)
        continue;
      int64_t group = cache[d] ? cache[d] : ranges[d];
      int64_t others = tiles / (ranges[d] / group);
      for (int64_t g = group - 1; g >= 1; --g) {
        if (ranges[d] % g)
          continue;
        cache[d] = g;
        changed = true;
        if (others * (ranges[d] / g) >= kEnoughForallTiles)
          break;
      }
    }
    return changed;
  }

  /// M, N, K from the indexing maps: cache tiles, then a rows x nVectors*width
  /// register tile over one k step (accumulators stay in registers).
  void tileContraction(RewriterBase &rewriter, linalg::LinalgOp op) {
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.empty())
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned m = dims->m.back(), n = dims->n.back(), k = dims->k.back();
    SmallVector<int64_t> cache(ranges.size(), 1), reg(ranges.size(), 1);
    // A GEMM over row panels (dlc-conv-to-im2col's packed layout): the
    // innermost M dim is one panel, the register tile's rows; cache tiles
    // take whole panels. A transposed panel is up to nVectors vectors wide
    // (AVX-512's 32 lanes, which as a plain GEMM split into 12 + 12 + 8
    // lanes of one vector each and ran 2x slower).
    bool panels = dims->m.size() > 1 && !ShapedType::isDynamic(ranges[m]) &&
                  (ranges[m] <= 16 || (m > n && ranges[m] <= nVectors * vectorWidth));
    int64_t tileRows = panels ? ranges[m] : rows;
    // A transposed panel GEMM (dlc-conv-to-im2col's pixelRows layout: the
    // panel's rows, inner to the pixels, are the lanes): its register tile
    // is one panel of lanes by as many pixels as leave twelve accumulators
    // (6 x 16 on AVX2, as dlc-conv-to-im2col padded them; 5 x 16 where the
    // pixels were padded to 5-pixel tiles).
    bool pixelRows = panels && m > n;
    // A pixelRows tile reads and writes its accumulator transposed at each
    // K chunk's ends: its chunks are 4x longer (ResNet-50, 1 thread: 83.0
    // ms against 83.5 with 256-step chunks, 512 the same as 1024; whole K,
    // with the register epilogue, ran a 2048 x 512 1x1 conv 15% slower: its
    // filter panel and columns then stream from L2).
    // With K chunks of 1024 (1 MB of L2 or more), K up to a quarter more
    // goes whole: split, a 1152-deep GEMM (a 3x3 stride-2 conv over 128
    // channels) ran two 576-deep passes with its partial sums through
    // memory and its epilogue outside the tiles. Whole, on Sapphire Rapids
    // at one thread (layers inside their models, interleaved): ResNet-50's
    // 128 x 1152 conv 3.22 -> 2.66 ms, ResNet-18's 256 x 1152 1.78 ->
    // 1.46, ResNet-50's transposed 512 x 4608 3.32 -> 2.91.
    int64_t depthTile = pixelRows ? 4 * cacheK : cacheK;
    if (cacheK >= 1024 && !ShapedType::isDynamic(ranges[k]) && ranges[k] <= depthTile * 5 / 4)
      depthTile = ranges[k];
    // Panels of up to 16 rows come with pixels padded to whole tiles of
    // nVectors vectors (dlc-conv-to-im2col and -winograd: 6 x 16 on AVX2,
    // 12 x 32 on AVX-512); a wider panel, or pixels padded to one vector
    // (AVX-512's narrow-lanes GEMMs, 12 x 16), takes one vector.
    // `max-accumulators` at most: twelve, with the operand loads and the
    // broadcast, fill AVX2's 16 vector registers (12-row panels over two
    // vectors, 24 accumulators, spilled on every k and ran at half speed);
    // AVX-512VL's 32 take 24 (8-row panels over two vectors on Zen 4).
    int64_t lanes = nVectors * vectorWidth;
    // Pixels in full tiles and one narrower tail (dlc::layoutFor's
    // tailLanes: 208 as six tiles of 32 lanes and one of 16): the pixels go
    // whole in each cache tile, and the register tiles' loop over them is
    // peeled (registerTiles). Not where a cache tile builds its columns,
    // nor over fewer than `min-tail-panels` panels (the threads' iterations),
    // nor where K is split (dlc::takesDepthWhole, which dlc-conv-to-im2col's
    // layout asks too: registerTiles only takes K whole; a 2000-deep
    // GEMM over 112 pixels otherwise ran masked 32-lane tiles, 4.7x
    // onnxruntime's time).
    int64_t panelCount = 1;
    for (unsigned d : dims->m)
      if (d != m)
        panelCount *= ShapedType::isDynamic(ranges[d]) ? 0 : ranges[d];
    bool pixelTail = panels && !pixelRows && nVectors > 1 && !ShapedType::isDynamic(ranges[n]) &&
                     ranges[n] > lanes && ranges[n] % lanes != 0 &&
                     ranges[n] % vectorWidth == 0 && tileRows * nVectors <= maxAccumulators &&
                     panelCount >= minTailPanels && dims->k.size() == 1 &&
                     !ShapedType::isDynamic(ranges[k]) && dlc::takesDepthWhole(ranges[k], cacheK) &&
                     !fusedColumns.lookup(op.getOperation()).first;
    if (pixelRows) {
      lanes = std::max<int64_t>(1, maxAccumulators / std::max<int64_t>(1, tileRows / vectorWidth));
      // Pixels padded to fewer per tile (dlc::layoutFor: 49 as 10 x 5) take
      // that many: the largest count up to twelve accumulators' that
      // divides them.
      if (!ShapedType::isDynamic(ranges[n]))
        while (lanes > 1 && ranges[n] % lanes != 0)
          --lanes;
    } else if (panels && !pixelTail &&
               (ranges[n] % lanes != 0 || tileRows * nVectors > maxAccumulators))
      lanes = vectorWidth;
    // Fewer rows than the register tile has (batch-1 fully connected
    // layers): the unused accumulators go along N. One row of two vectors
    // kept two chains of 4-cycle FMAs in flight, a quarter of what the FMA
    // units take. With weights in one-vector panels (dlc-pack-matmul-weights'
    // matvec-lanes) the tile spans `matvecPanels` panels, each its own
    // vector; unpacked, a power-of-two count of vectors (LLVM splits a
    // <40 x float> loop-carried value into scalars through the stack).
    // At 8 lanes dlc-pack-matmul-weights packs matvec panels of up to 64
    // lanes (matvec-panel-vectors): such a panel is N here, and its
    // register tile one run of 8 vectors a k step (the branch below).
    // Twelve accumulators here on any target: the weights stream from L2
    // (the MLP's 784 x 256 layer), and 16 panels at a time instead of 8
    // made it 6% slower on Zen 4.
    int64_t matvecAccumulators = std::min<int64_t>(maxAccumulators, 12);
    int64_t matvecPanels = 0;
    unsigned panelDim = dims->n.size() > 1 ? dims->n[dims->n.size() - 2] : n;
    // Weights of over half the L2 and at most twice it in panels (beyond
    // that they stream from L3 or memory however swept): tiles of at most
    // 64 lanes (four AVX-512 panels, eight AVX2 ones: 256 bytes of weights
    // a k step), each tile an iteration of the parallel loop. A sweep then
    // has tiles enough to run back to front on alternate runs
    // (dlc-alternate-sweeps), and the last tiles read, still in L2, are
    // read first; in two tiles the reversed sweep ran no faster. The MLP's
    // 784 x 256 layer (0.8 MB; Zen 5, 1 MB of L2), one thread, a call:
    // AVX-512 6.1 us in two tiles of 8 panels, 4.8-5.0 in four of 4
    // sweeping alternately; AVX2 7.1 us in two cache tiles of 16 panels,
    // 6.3-6.4 in four of 8, 6.0-6.2 alternating (four panels of 8 lanes,
    // fewer FMA chains: 7.5-7.8).
    bool streamedPanels = false;
    if (!panels && !llvm::any_of(ranges, ShapedType::isDynamic) && ranges[m] < tileRows) {
      int64_t most = matvecAccumulators / std::max<int64_t>(1, ranges[m]);
      if (panelDim != n && ranges[n] == vectorWidth) {
        int64_t weightBytes = 4 * ranges[k] * ranges[panelDim] * ranges[n];
        streamedPanels = 2 * weightBytes > l2CacheBytes && weightBytes <= 2 * l2CacheBytes;
        // Register tiles of at most 64 lanes also where the weights are
        // over twice the L2, streamed from L3 or memory whatever the sweep
        // (MobileNetV2's 1280 x 1000 classifier, 5 MB, on AVX-512: its 63
        // panels in 21 tiles of 3 instead of 7 of 9; the layer's share of
        // the model at one thread 3.3 -> 2.8%, perf on Zen 5, and the
        // model 0.98 of its time; at two threads no change). Fewer weight
        // streams at a time for the prefetchers; three or more chains of
        // FMAs still take more than L3 feeds.
        if (2 * weightBytes > l2CacheBytes)
          most = std::min<int64_t>(most, std::max<int64_t>(1, 64 / vectorWidth));
        for (int64_t v = most; v > 1 && !matvecPanels; --v)
          if (ranges[panelDim] % v == 0)
            matvecPanels = v;
      } else {
        for (int64_t v = nVectors * 2; v <= most; v *= 2)
          if (ranges[n] % (v * vectorWidth) == 0)
            lanes = v * vectorWidth;
      }
    }
    cache[m] = panels ? 0 : cacheTile(cacheM, ranges[m], rows);
    cache[n] = pixelTail ? 0 : cacheTile(cacheN, ranges[n], lanes);
    // Columns built per cache tile: tiles of whole output rows.
    auto fused = fusedColumns.lookup(op.getOperation());
    linalg::GenericOp columns = fused.first;
    int64_t columnTile = 0;
    if (columns) {
      auto type = cast<RankedTensorType>(columns->getResult(0).getType());
      columnTile = fused.second * type.getDimSize(5);
      cache[n] = clampTile(columnTile, ranges[n]);
    }
    cache[k] = cacheTile(depthTile, ranges[k], 1);
    // A matvec's panels in at least two cache tiles where they make two
    // register tiles: the threads then share its weights, which it streams
    // from L2 or memory (LeNet's 400 x 120 layer, 192 KB of weights).
    if (matvecPanels)
      cache[panelDim] = cacheTile(
          streamedPanels ? matvecPanels
                         : std::max<int64_t>(std::min(cacheN / vectorWidth, ranges[panelDim] / 2),
                                             matvecPanels),
          ranges[panelDim], matvecPanels);
    // Which operand stays in L1 while the other streams past it: a [k,
    // lanes] block of the columns (the pixel tiles go outside the panels)
    // when its rows, an odd number of register tiles apart, spread over
    // every L1 set; else the filter panel [k, rows], contiguous anyway
    // (rows of 3136 pixels, 196 cache lines apart, fell into a quarter of
    // the sets and missed L1 on every k: twice slower). A pixelRows GEMM
    // keeps its filter panel: its pixels are few (ResNet-50's 7x7 maps), and
    // with the pixel tiles outside, its 4 MB filters were read from memory
    // once per pixel tile.
    bool columnsStay = false;
    SmallVector<int64_t> forallOrder;
    if (panels) {
      for (OpOperand *in : op.getDpsInputOperands()) {
        if (pixelRows)
          break;
        AffineMap map = op.getMatchingIndexingMap(in);
        auto t = dyn_cast<RankedTensorType>(in->get().getType());
        if (t && t.hasStaticShape() && map.getNumResults() &&
            map.getResults().back() == getAffineDimExpr(n, op.getContext()))
          columnsStay = t.getShape().back() % lanes == 0 && (t.getShape().back() / lanes) % 2;
      }
      // Whole panels in a cache tile; groups of them when the pixel tiles
      // alone are too few iterations for the threads (ResNet-50's 7x7
      // GEMMs, one pixel tile: groups of a quarter of the panels left one
      // of two threads idle for 16% of each such loop). Not where a tile
      // builds its columns: each group would build them again.
      int64_t pixelTiles = cache[n] ? ranges[n] / cache[n] : 1;
      for (unsigned d : dims->m)
        cache[d] = 0;
      // A tile's own column block is compact, its rows `columnTile`
      // apart: an odd number of register tiles keeps it in L1.
      if (columns)
        columnsStay = (columnTile / lanes) % 2 == 1;
      for (unsigned d : dims->m)
        if (d != m && pixelTiles < 4 && !columns)
          cache[d] = cacheTile(std::max<int64_t>(1, ranges[d] * pixelTiles / kEnoughForallTiles),
                               ranges[d], 1);
      // A pixelRows GEMM over packed columns (n, panel, tile, r, row, k):
      // all its pixel tiles in each cache tile, where they reuse the
      // filter panel; split in groups where the panels alone are too few
      // iterations for the threads, unless `min-forall-tiles` is off
      // (MobileNetV2's 160-filter 7x7 GEMMs, 5 panels: one of two threads
      // ran 3, and the model 3% slower at two threads). A thread's
      // consecutive groups share a panel.
      if (pixelRows) {
        int64_t panelTiles = 1;
        for (unsigned d : dims->m)
          if (d != m && cache[d])
            panelTiles *= ranges[d] / cache[d];
        for (unsigned d : dims->n)
          if (d != n && d != dims->n.front())
            cache[d] = minForallTiles <= 1 || panelTiles >= kEnoughForallTiles
                           ? 0
                           : cacheTile(std::max<int64_t>(
                                           1, ranges[d] * panelTiles / kEnoughForallTiles),
                                       ranges[d], 1);
      }
      bool byPanel =
          !pixelRows && !columns && !pixelTail && panelMajor(*dims, ranges, lanes, cache);
      if (!columns && !byPanel)
        splitSmallGemm(op, *dims, ranges, lanes, cache);
      // Panel groups inside the pixel tiles: one thread's consecutive
      // iterations then read the same columns, from L2.
      if (!columns && !byPanel && balancePanelTiles(*dims, ranges, cache)) {
        auto panel = llvm::find_if(dims->m, [&](unsigned d) { return d != m; });
        if (panel != dims->m.end() && *panel < n && !pixelTail)
          for (unsigned d = 0; d < ranges.size(); ++d) {
            if (d == *panel)
              forallOrder.push_back(n);
            if (d != n)
              forallOrder.push_back(d);
          }
      }
    }
    for (size_t i = 0; i < ranges.size(); ++i)
      if (ranges[i] == 1)
        cache[i] = 0;
    // Cache tiles over the parallel dims form an scf.forall: the iterations
    // the runtime's thread pool shares out. K stays a sequential loop inside.
    SmallVector<int64_t> parallelTiles(cache), kTiles(ranges.size(), 0);
    for (unsigned d : dims->k) {
      parallelTiles[d] = 0;
      kTiles[d] = cache[d];
    }
    linalg::LinalgOp cacheTile =
        tile(rewriter, op, parallelTiles, /*loops=*/nullptr, /*forall=*/true, forallOrder);
    if (cacheTile && columns)
      buildColumnsInTile(rewriter, cacheTile, columns, fused.second);
    // Whole cache tiles (static shapes) take the elementwise op after the
    // GEMM (bias, BatchNorm, activation, residual) into their iteration.
    bool wholeTiles = panels;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (parallelTiles[d] && ranges[d] % parallelTiles[d] != 0)
        wholeTiles = false;
    bool kWhole = llvm::all_of(dims->k, [&](unsigned d) { return kTiles[d] == 0; });
    linalg::LinalgOp tileFill;
    if (cacheTile)
      if (auto forall = dyn_cast<scf::ForallOp>(cacheTile->getParentOp()))
        tileFill = dlc::fuseInitFill(rewriter, forall);
    // The fill in memory before the K loop, unless each register tile
    // starts from it in registers (registerTiles).
    if (tileFill && !(wholeTiles && kWhole))
      vectorizeRows(rewriter, tileFill);
    if (cacheTile)
      cacheTile = tile(rewriter, cacheTile, kTiles);
    if (!cacheTile)
      return;
    SmallVector<int64_t> tileRanges = cacheTile.getStaticLoopRanges();
    auto bound = [&](unsigned d) {
      return ShapedType::isDynamic(tileRanges[d]) ? (cache[d] ? cache[d] : ranges[d])
                                                  : tileRanges[d];
    };
    reg[m] = std::min<int64_t>(tileRows, bound(m));
    reg[n] = std::min<int64_t>(lanes, bound(n));
    if (matvecPanels)
      reg[panelDim] = matvecPanels;
    SmallVector<int64_t> regTiles(reg);
    for (size_t i = 0; i < reg.size(); ++i)
      if (bound(i) == 1 || (i != m && i != n && i != k && bound(i) == reg[i]))
        regTiles[i] = 0;
    // Columns staying in L1: the pixel tiles go outside the panels.
    SmallVector<int64_t> order;
    if (columnsStay) {
      for (unsigned d = 0; d < ranges.size(); ++d)
        if (d != k && !llvm::is_contained(dims->m, d))
          order.push_back(d);
      order.append(dims->m.begin(), dims->m.end());
      order.push_back(k);
      if (order.size() != ranges.size())
        order.clear();
    }
    // The forall around the K loop too: a GEMM whose K is split in cache
    // tiles (MobileNetV2's 384- and 576-deep projections, most of
    // ResNet-50's GEMMs on AVX2) ran its epilogue as a pass of its own.
    Operation *cacheLoop = cacheTile->getParentOp();
    while (isa<scf::ForOp>(cacheLoop))
      cacheLoop = cacheLoop->getParentOp();
    linalg::LinalgOp epilogue;
    if (wholeTiles)
      if (auto forall = dyn_cast<scf::ForallOp>(cacheLoop)) {
        Operation *replaced = nullptr;
        epilogue = dlc::fuseEpilogue(rewriter, forall, replaced);
        if (epilogue)
          fusedAway.insert(replaced);
      }
    if (tileFill && wholeTiles && kWhole) {
      if (registerTiles(rewriter, cacheTile, epilogue, regTiles, order, reg, k))
        return;
      vectorizeRows(rewriter, tileFill);
    }
    SmallVector<scf::ForOp> loops;
    linalg::LinalgOp regTile = tile(rewriter, cacheTile, regTiles, &loops, false, order);
    if (!regTile)
      return;
    regTile->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(reg));
    if (!panels) // panel tiles are full: nothing to peel
      peel(rewriter, loops, regTiles, {m, n});
    // The epilogue in the register tile's vectors: it reads back what the
    // tile just stored, which LLVM forwards from the stored values. Half a
    // 16-lane store forwarded into an 8-lane load became an i256 extract,
    // lowered on AVX2 through general registers (12 instructions a vector).
    if (epilogue)
      vectorizeRows(rewriter, epilogue, reg[n]);
  }

  /// The GEMM's register tiles each starting from its fill's constant in
  /// registers and, with an `epilogue` (fused into the cache tile),
  /// computing their part of it while the accumulators are still there:
  /// the epilogue (else the GEMM) is tiled like the register tiles and the
  /// GEMM and its fill fused into those tiles (upstream's tile-and-fuse),
  /// then the GEMM tile's K goes one step at a time. Once vectorized and its
  /// accumulator hoisted out of the K loop (hoistAccumulators), the tile
  /// starts from the fill's constant, and the epilogue reads and writes the
  /// accumulator as values: one store per output element, where the
  /// cache-tile fill, the K loop's load and store, and the epilogue's pass
  /// over the tile made three stores and two loads. Without an epilogue (a
  /// Winograd conv's GEMMs, read by the output transform) the fill in
  /// memory cost a store and a load of each accumulator, and for a
  /// pixelRows tile two transposes (ResNet-18 29.2 -> 28.3 ms at 1 thread,
  /// ResNet-50 84.4 -> 83.4). False (nothing changed) if upstream's tiling
  /// fails.
  bool registerTiles(RewriterBase &rewriter, linalg::LinalgOp gemm, linalg::LinalgOp epilogue,
                     ArrayRef<int64_t> regTiles, ArrayRef<int64_t> order,
                     ArrayRef<int64_t> reg, unsigned k) {
    // The root's tile sizes and loop order: the GEMM's, K untiled, or
    // through the GEMM's output map, the epilogue's.
    linalg::LinalgOp root = epilogue ? epilogue : gemm;
    SmallVector<OpFoldResult> sizes;
    SmallVector<int64_t> interchange;
    if (epilogue) {
      AffineMap out = gemm.getMatchingIndexingMap(gemm.getDpsInitOperand(0));
      if (!out.isProjectedPermutation() || epilogue.getNumLoops() != out.getNumResults())
        return false;
      for (unsigned j = 0; j < out.getNumResults(); ++j)
        sizes.push_back(rewriter.getIndexAttr(regTiles[out.getDimPosition(j)]));
      for (int64_t d : order)
        for (unsigned j = 0; j < out.getNumResults(); ++j)
          if (out.getDimPosition(j) == d)
            interchange.push_back(j);
    } else {
      for (auto [d, t] : llvm::enumerate(regTiles))
        sizes.push_back(rewriter.getIndexAttr(d == k ? 0 : t));
      interchange.assign(order.begin(), order.end());
    }
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(sizes);
    if (interchange.size() == root.getNumLoops())
      tiling.setInterchange(interchange);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> result = scf::tileConsumerAndFuseProducersUsingSCF(
        rewriter, cast<TilingInterface>(root.getOperation()), options);
    if (failed(result))
      return false;
    linalg::LinalgOp gemmTile, fillTile, epilogueTile;
    for (Operation *t : result->tiledAndFusedOps) {
      auto l = dyn_cast<linalg::LinalgOp>(t);
      if (!l)
        continue;
      if (isa<linalg::FillOp>(t))
        fillTile = l;
      else if (l.getNumReductionLoops())
        gemmTile = l;
      else
        epilogueTile = l;
    }
    if (!gemmTile || !fillTile || (epilogue && !epilogueTile)) {
      // Tiled but not fused as expected: unwind to the memory path.
      for (LoopLikeOpInterface loop : llvm::reverse(result->loops))
        if (loop->use_empty())
          rewriter.eraseOp(loop);
      return false;
    }
    for (auto [from, to] : result->replacements)
      rewriter.replaceAllUsesWith(from, to);
    // The fill's and epilogue's vector sizes: the register tile's along
    // the GEMM's output dims (a tail tile's shape is dynamic until peeled).
    AffineMap outMap = gemm.getMatchingIndexingMap(gemm.getDpsInitOperand(0));
    SmallVector<int64_t> outTile;
    if (outMap.isProjectedPermutation())
      for (unsigned j = 0; j < outMap.getNumResults(); ++j)
        outTile.push_back(reg[outMap.getDimPosition(j)]);
    Operation *fill = gemm.getDpsInitOperand(0)->get().getDefiningOp();
    for (Operation *d : {epilogue ? epilogue.getOperation() : nullptr, gemm.getOperation(), fill})
      if (d && d->use_empty())
        rewriter.eraseOp(d);
    SmallVector<int64_t> kStep(gemmTile.getNumLoops(), 0);
    kStep[k] = 1;
    linalg::LinalgOp regTile = tile(rewriter, gemmTile, kStep);
    if (!regTile)
      return true; // stays scalar: correct, slower
    regTile->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(reg));
    for (linalg::LinalgOp t : {fillTile, epilogueTile}) {
      if (!t)
        continue;
      SmallVector<int64_t> shape = t.getStaticLoopRanges();
      if (!llvm::any_of(shape, ShapedType::isDynamic))
        t->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(shape));
      else if (outTile.size() == shape.size())
        t->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(outTile));
    }
    // A loop whose tiles do not divide its range (a pixel tail) in full
    // tiles and the tail's own: each copy's sizes fold to constants, and
    // the tail vectorizes at its width instead of masking a full tile.
    for (LoopLikeOpInterface loop : result->loops) {
      auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
      std::optional<int64_t> lb = forOp ? getConstantIntValue(forOp.getLowerBound()) : std::nullopt;
      std::optional<int64_t> ub = forOp ? getConstantIntValue(forOp.getUpperBound()) : std::nullopt;
      std::optional<int64_t> step = forOp ? getConstantIntValue(forOp.getStep()) : std::nullopt;
      if (!lb || !ub || !step || (*ub - *lb) % *step == 0)
        continue;
      scf::ForOp tail;
      rewriter.setInsertionPoint(forOp);
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, tail);
    }
    return true;
  }

  /// Each GEMM register tile's accumulator out of its K-step loop while
  /// still on tensors (upstream's hoistLoopInvariantSubsets: the transfer
  /// read and write of the loop's tensor at loop-invariant indices), so
  /// that the read folds to registerTiles' fill and the epilogue's read
  /// to the loop's vector, leaving the tile's tensor unused. (The
  /// memref-level hoisting comes after bufferization, too late: the tile's
  /// separate tensor bufferized to a heap copy.) Not a loop over a function
  /// argument: written after the loop, that tensor bufferized in place into
  /// the caller's input (and was returned).
  void hoistAccumulators(func::FuncOp func) {
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      if (loop.getNumRegionIterArgs() != 1 ||
          !isa<RankedTensorType>(loop.getInitArgs()[0].getType()))
        return;
      if (auto init = dyn_cast<BlockArgument>(loop.getInitArgs()[0]);
          init && isa<FunctionOpInterface>(init.getOwner()->getParentOp()))
        return;
      loops.push_back(loop);
    });
    IRRewriter rewriter(func.getContext());
    for (scf::ForOp loop : loops)
      hoistLoopInvariantSubsets(rewriter, cast<LoopLikeOpInterface>(loop.getOperation()));
  }

  /// An all-parallel op on a static tile (an elementwise op's forall row or
  /// plane, or a fill or epilogue inside a GEMM's cache tile): its rows one
  /// at a time (scf.for), each in vectors of `width` lanes (default: the
  /// target's width) along its last dim, the remainder peeled. The rows go
  /// in the same tiling as the vectors (a separate one leaves a row slice between the two loops, and
  /// the transfer folds then lost the full vectors' writes).
  void vectorizeRows(RewriterBase &rewriter, linalg::LinalgOp op, int64_t width = 0) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || llvm::any_of(ranges, ShapedType::isDynamic))
      return;
    if (width <= 0)
      width = vectorWidth;
    SmallVector<int64_t> sizes(ranges.size(), 0), vec(ranges.size(), 1);
    for (size_t i = 0; i + 1 < ranges.size(); ++i)
      sizes[i] = ranges[i] > 1 ? 1 : 0;
    vec.back() = std::min<int64_t>(width, ranges.back());
    sizes.back() = clampTile(width, ranges.back());
    SmallVector<scf::ForOp> loops;
    linalg::LinalgOp t = tile(rewriter, op, sizes, &loops);
    if (!t)
      return;
    // Bool tensors stay scalar: LLVM packs vectors of i1 into bits in
    // memory, while a memref of i1 holds one byte per element.
    bool touchesBool = llvm::any_of(t->getOperandTypes(), [](Type type) {
      return getElementTypeOrSelf(type).isInteger(1);
    });
    if (!touchesBool)
      t->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(vec));
    peel(rewriter, loops, sizes, {(unsigned)sizes.size() - 1});
  }

  /// Generics of this function fused into a GEMM's tiles (erased: their
  /// pointers are only compared against the roots collected before).
  llvm::DenseSet<Operation *> fusedAway;

  /// A reduction in vector lanes (dlc::sumInLanes, or a reduction over an
  /// outer dim): the innermost loop is parallel, at most four vectors long,
  /// and the last index of every operand but inputs constant along it and
  /// the reductions; other loops reduce. Bool tensors
  /// stay scalar (see tileElementwise).
  bool isLaneReduction(linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op) || op.getNumReductionLoops() == 0 ||
        op.hasDynamicShape() || op.getNumDpsInits() != 1)
      return false;
    unsigned lane = op.getNumLoops() - 1;
    if (op.getIteratorTypesArray()[lane] != utils::IteratorType::parallel ||
        op.getStaticLoopRanges()[lane] > 4 * vectorWidth)
      return false;
    if (llvm::any_of(op->getOperandTypes(),
                     [](Type t) { return getElementTypeOrSelf(t).isInteger(1); }))
      return false;
    return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
      AffineMap m = op.getMatchingIndexingMap(&operand);
      auto last = m.getNumResults() ? dyn_cast<AffineDimExpr>(m.getResults().back()) : nullptr;
      if (last && last.getPosition() == lane)
        return true;
      // An input broadcast along the lanes and the reduction (a row's max
      // in LogSoftmax's sum of exp(x - max)): one value per register row.
      return op.isDpsInput(&operand) && !m.isFunctionOfDim(lane) &&
             llvm::none_of(llvm::seq<unsigned>(0, lane), [&](unsigned d) {
               return op.getIteratorTypesArray()[d] == utils::IteratorType::reduction &&
                      m.isFunctionOfDim(d);
             });
    });
  }

  /// Loop order for a lane reduction: the parallel dims that do not index
  /// the largest input move inside those that do, just before the innermost
  /// one. Consecutive forall iterations (one thread's run) then reuse one
  /// block of that input from cache, and the register tile takes its rows
  /// from adjacent dims. (A conv weight gradient [F, C, KH, KW] read its
  /// im2col block, 128 KB on LeNet, once per output channel: F passes over
  /// 4 MB of columns.)
  linalg::LinalgOp reuseLargestInput(RewriterBase &rewriter, linalg::LinalgOp op) {
    auto generic = cast<linalg::GenericOp>(op.getOperation());
    OpOperand *largest = nullptr;
    int64_t most = 0;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto t = dyn_cast<RankedTensorType>(in->get().getType());
      if (t && t.getNumElements() > most) {
        most = t.getNumElements();
        largest = in;
      }
    }
    if (!largest)
      return op;
    AffineMap map = op.getMatchingIndexingMap(largest);
    unsigned lanes = op.getNumLoops() - 1;
    SmallVector<unsigned> inBig, outside, reductions;
    for (unsigned d = 0; d < lanes; ++d) {
      if (op.getIteratorTypesArray()[d] == utils::IteratorType::reduction)
        reductions.push_back(d);
      else if (map.isFunctionOfDim(d))
        inBig.push_back(d);
      else
        outside.push_back(d);
    }
    if (outside.empty() || inBig.empty())
      return op;
    SmallVector<unsigned> order(inBig.begin(), inBig.end() - 1);
    order.append(outside);
    order.push_back(inBig.back());
    order.append(reductions);
    order.push_back(lanes);
    if (llvm::equal(order, llvm::seq<unsigned>(0, lanes + 1)))
      return op;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> moved = linalg::interchangeGenericOp(rewriter, generic, order);
    return succeeded(moved) ? cast<linalg::LinalgOp>(moved->getOperation()) : op;
  }

  /// Register tiles over the parallel dims (an scf.forall of them for the
  /// thread pool), one step of each reduction dim (scf.for), and the lanes
  /// as one vector: the partial sums [tile..., lanes] stay in registers
  /// across the reduction loops. The last two parallel dims take blocks of
  /// up to 6 and 2 (a 2x6 tile reads 8 vectors for 12 FMAs).
  void tileLaneReduction(RewriterBase &rewriter, linalg::LinalgOp op) {
    op = reuseLargestInput(rewriter, op);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned lanes = ranges.size() - 1;
    SmallVector<unsigned> parallel;
    for (unsigned d = 0; d < lanes; ++d)
      if (op.getIteratorTypesArray()[d] == utils::IteratorType::parallel)
        parallel.push_back(d);
    auto block = [&](int64_t size, ArrayRef<int64_t> candidates) -> int64_t {
      for (int64_t c : candidates)
        if (size % c == 0)
          return c;
      return 1;
    };
    SmallVector<int64_t> reg(ranges.size(), 1);
    reg[lanes] = ranges[lanes];
    if (!parallel.empty())
      reg[parallel.back()] = block(ranges[parallel.back()], {6, 5, 4, 3, 2});
    if (parallel.size() > 1)
      reg[parallel[parallel.size() - 2]] = block(ranges[parallel[parallel.size() - 2]], {2});
    SmallVector<int64_t> forall(ranges.size(), 0), steps(ranges.size(), 0);
    for (unsigned d : parallel)
      forall[d] = reg[d] < ranges[d] ? reg[d] : 0;
    for (unsigned d = 0; d < lanes; ++d)
      if (op.getIteratorTypesArray()[d] == utils::IteratorType::reduction && ranges[d] > 1)
        steps[d] = 1;
    linalg::LinalgOp tiled = tile(rewriter, op, forall, /*loops=*/nullptr, /*forall=*/true);
    if (tiled)
      tiled = tile(rewriter, tiled, steps);
    if (tiled)
      tiled->setAttr(kVectorSizes, rewriter.getDenseI64ArrayAttr(reg));
  }

  /// Depthwise/grouped convolutions and pools (NCHW) are not vectorized by
  /// upstream; as generics with the output's innermost dim (ow) moved to the
  /// innermost loop, their loops end as `for ow { out[ow] += in[ow*s+kw] *
  /// w }`, which LLVM's loop vectorizer turns into vector code. Channel blocks
  /// form an scf.forall for the thread pool.
  void tileWindowOp(RewriterBase &rewriter, linalg::LinalgOp op) {
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return;
    AffineMap outMap = generic->getIndexingMapsArray().back();
    unsigned innermost = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
    SmallVector<unsigned> order;
    for (unsigned d = 0; d < generic->getNumLoops(); ++d)
      if (d != innermost)
        order.push_back(d);
    order.push_back(innermost);
    FailureOr<linalg::GenericOp> moved = linalg::interchangeGenericOp(rewriter, *generic, order);
    if (failed(moved))
      return;
    // Channels: dim 1 of the output (C, or G for grouped convs).
    unsigned channel = cast<AffineDimExpr>(outMap.getResults()[1]).getPosition();
    unsigned newChannel = llvm::find(order, channel) - order.begin();
    SmallVector<int64_t> ranges = moved->getStaticLoopRanges();
    int64_t c = ranges[newChannel], block = 1;
    for (int64_t t = std::max<int64_t>(1, c / 16); t >= 1; --t)
      if (c % t == 0) {
        block = t;
        break;
      }
    SmallVector<int64_t> sizes(ranges.size(), 0);
    sizes[newChannel] = block;
    if (c > 1)
      (void)tile(rewriter, cast<linalg::LinalgOp>(moved->getOperation()), sizes,
                 /*loops=*/nullptr, /*forall=*/true);
  }

  /// All-parallel ops: one vector along the innermost dim, 1 elsewhere.
  void tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || llvm::any_of(ranges, ShapedType::isDynamic))
      return;
    // Outer dims: one scf.forall iteration per row, for the thread pool.
    // Short rows (at most two vectors) go a plane at a time instead: the
    // forall iteration's index arithmetic then serves all the plane's rows,
    // an scf.for over them (LeNet's im2col rows of 10 spent more time on
    // delinearizing the iteration than on the copy).
    // Small planes, when there are many, go a plane at a time too: a pad's
    // interior copy and the depthwise taps that read the padded channel
    // then split the same way, and dlc-fuse-parallel-loops runs them as one
    // loop, each channel's padded plane read from L1 right after it is
    // written (MobileNetV2's 56x56 and 28x28 padded inputs, 0.7-1.9 MB,
    // went through L3 between the two loops).
    size_t rank = ranges.size();
    int64_t planes = 1;
    for (size_t i = 0; i + 2 < rank; ++i)
      planes *= ranges[i];
    bool shortRows = rank >= 3 && ranges.back() <= 2 * vectorWidth && ranges[rank - 2] > 1;
    bool smallPlanes = rank >= 3 && ranges[rank - 1] * ranges[rank - 2] <= kPlaneElements &&
                       planes >= kMinPlanes;
    SmallVector<int64_t> outer(rank, 0);
    for (size_t i = 0; i + 1 < rank; ++i)
      outer[i] = ranges[i] > 1 ? 1 : 0;
    if (shortRows || smallPlanes)
      outer[rank - 2] = 0;
    // Few planes of many short rows (a pixelRows GEMM's packed columns:
    // [N, OH, K, OW], 7 or 14 planes of up to 4608 rows) go in blocks of
    // rows, kEnoughForallTiles iterations or more: a plane each left 9 of
    // the device's 16 threads idle, its packs 7% of ResNet-50's time there.
    // Not where that would leave under kTinyPlaneElements elements an
    // iteration (a pad's border columns: their fills stay a loop over the
    // channels, one with the border rows').
    int64_t elements = planes * ranges[rank - 2] * ranges[rank - 1];
    if (shortRows && !smallPlanes && planes < kEnoughForallTiles &&
        elements >= kEnoughForallTiles * kTinyPlaneElements)
      outer[rank - 2] = rowBlock(ranges[rank - 2], planes);
    if (smallPlanes && ranges[rank - 1] * ranges[rank - 2] <= kTinyPlaneElements &&
        ranges[rank - 3] % kTinyPlaneGroup == 0 &&
        planes / kTinyPlaneGroup >= kEnoughForallTiles)
      outer[rank - 3] = kTinyPlaneGroup;
    // Im2col columns in row tiles [N, OH, C, KH, KW, OW] go by output row
    // and block of channels (KH x KW x OW floats a channel) instead: a
    // plane of [KW, OW] each (21 floats for a 3x3 window over 7x7) spent
    // more on sharing out than on copying.
    if (op->hasAttr(dlc::kRowTileColumnsAttr) && rank == 6) {
      outer.assign(rank, 0);
      outer[0] = ranges[0] > 1 ? 1 : 0;
      outer[1] = 1;
      outer[2] = rowBlock(ranges[2], ranges[0] * ranges[1]);
    }
    // Ops marked with the dims a forall iteration takes one index of take
    // the rest whole (see dlc::kForallDimsAttr).
    // (A mark naming no outer loop dim, or the vectorized last one, is
    // ignored.)
    auto outerDim = [&](int64_t d) { return d >= 0 && d + 1 < int64_t(rank); };
    if (auto dims = op->getAttrOfType<DenseI64ArrayAttr>(dlc::kForallDimsAttr);
        dims && llvm::all_of(dims.asArrayRef(), outerDim)) {
      outer.assign(rank, 0);
      for (int64_t d : dims.asArrayRef())
        if (outerDim(d) && ranges[d] > 1)
          outer[d] = 1;
    }
    // The dim the producer shared out first (see dlc::kShareByDimAttr).
    SmallVector<int64_t> interchange;
    if (auto dim = op->getAttrOfType<IntegerAttr>(dlc::kShareByDimAttr);
        dim && outerDim(dim.getInt()) && outer[dim.getInt()] != 0) {
      interchange.push_back(dim.getInt());
      for (int64_t d = 0; d < int64_t(rank); ++d)
        if (d != dim.getInt())
          interchange.push_back(d);
    }
    linalg::LinalgOp row =
        tile(rewriter, op, outer, /*loops=*/nullptr, /*forall=*/true, interchange);
    if (row)
      vectorizeRows(rewriter, row);
  }
};
} // namespace
