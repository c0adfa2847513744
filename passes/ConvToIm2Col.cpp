//===- ConvToIm2Col.cpp - NCHW conv as im2col + GEMM ----------------------===//
//
// The im2col buffer is a conv's largest temporary (LeNet's first conv at
// batch 64: 5 MB, against a 1.2 MB output); under a memory budget it is
// bounded by running the conv in chunks (ChunkLargeConv).
//
//===----------------------------------------------------------------------===//
#include "passes/ConvGemmLayout.h"
#include "passes/GemmTileFusion.h"
#include "passes/LibraryGemm.h"
#include "passes/LinalgBuilders.h"
#include "passes/Passes.h"
#include "passes/TransposedPlanes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
using dlc::GemmLayout;
using dlc::roundUp;
using dlc::paddedPixels;
using dlc::paddedBuffer;
using dlc::recordKernel;
using dlc::packedKernelName;
using dlc::writeIntoCorner;

/// The filter [F, K] (row-major `w`) as row panels [F'/rows, K, rows].
Value packedFilter(OpBuilder &b, Location loc, ArrayRef<float> w, int64_t f, int64_t k,
                   int64_t rows) {
  int64_t panels = roundUp(f, rows) / rows;
  SmallVector<float> packed(panels * k * rows, 0.0f);
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t ki = 0; ki < k; ++ki)
      packed[((fi / rows) * k + ki) * rows + fi % rows] = w[fi * k + ki];
  return dlc::f32Constant(b, loc, {panels, k, rows}, packed, "packed_filter");
}

/// Marks the transpose that packs a pixelRows GEMM's columns into row
/// tiles until writeRowTilesInProducers has seen it.
constexpr llvm::StringLiteral kPackedRowTiles = "dlc.packed_row_tiles";

/// The pixelRows GEMM acc[n, F', P'] += w[F'/L, K, L] x cols[n, K, P']: the
/// columns first packed into row tiles [n, P'/R, K, R] (R = the tile's
/// pixel rows), so that a k step's R broadcasts are contiguous, as the
/// filter panel's rows are in the other layout (read from [K, P'] rows, each
/// k step touched another cache line: ResNet-50's 7x7 GEMMs ran at 75
/// GFLOP/s against 85-90 for the others); then loops (n, panel, tile, r,
/// row, k), the output map putting the rows back before the pixels (NCHW).
/// Columns of rank 4 come packed already (im2col's RowsOuter order).
Value pixelRowsGemm(OpBuilder &b, Location loc, Value wPanels, Value cols, Value acc,
                    int64_t r) {
  auto colsType = cast<RankedTensorType>(cols.getType());
  auto accType = cast<RankedTensorType>(acc.getType());
  auto wType = cast<RankedTensorType>(wPanels.getType());
  bool prepacked = colsType.getRank() == 4;
  int64_t n = colsType.getDimSize(0), k = colsType.getDimSize(prepacked ? 2 : 1),
          pp = prepacked ? colsType.getDimSize(1) * colsType.getDimSize(3)
                         : colsType.getDimSize(2);
  int64_t panels = wType.getDimSize(0), lanes = wType.getDimSize(2), tiles = pp / r;
  Type elem = colsType.getElementType();
  MLIRContext *ctx = b.getContext();
  Value packed = cols;
  if (!prepacked) {
    AffineExpr dn, dt, dk, dr;
    bindDims(ctx, dn, dt, dk, dr);
    Value cols4 = b.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get({n, k, tiles, r}, elem), cols,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    auto pack = b.create<linalg::GenericOp>(
        loc, TypeRange{RankedTensorType::get({n, tiles, k, r}, elem)}, ValueRange{cols4},
        ValueRange{dlc::paddedBuffer(b, loc, {n, tiles, k, r}, elem)},
        ArrayRef<AffineMap>{AffineMap::get(4, 0, {dn, dk, dt, dr}, ctx),
                            AffineMap::getMultiDimIdentityMap(4, ctx)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [](OpBuilder &nb, Location l, ValueRange args) { nb.create<linalg::YieldOp>(l, args[0]); });
    // See writeRowTilesInProducers.
    pack->setAttr(kPackedRowTiles, b.getUnitAttr());
    // By channel (k), as the producer wrote them.
    pack->setAttr(dlc::kShareByDimAttr, b.getI64IntegerAttr(2));
    packed = pack.getResult(0);
  }
  Value acc5 = b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get({n, panels, lanes, tiles, r}, elem), acc,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3, 4}});
  AffineExpr gn, gpanel, gt, gr, grow, gk;
  bindDims(ctx, gn, gpanel, gt, gr, grow, gk);
  SmallVector<AffineMap> maps{AffineMap::get(6, 0, {gpanel, gk, grow}, ctx),
                              AffineMap::get(6, 0, {gn, gt, gk, gr}, ctx),
                              AffineMap::get(6, 0, {gn, gpanel, grow, gt, gr}, ctx)};
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value gemm = dlc::multiplyAccumulate(b, loc, wPanels, packed, acc5, maps, iters);
  return b.create<tensor::CollapseShapeOp>(loc, accType, gemm,
                                           ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3, 4}});
}

/// out[n, F, P] = init + w[F, K] x cols[n, K, P'] in the packed layout: `cols`
/// is already padded to P' pixels (or, for a pixelRows layout, may come as
/// its row tiles, see pixelRowsGemm); `init4` is the conv's [N, F, OH, OW]
/// accumulator. Returns [N, F, P]. The loops are (n, panel, row, pixel, k);
/// a pixelRows layout's are pixelRowsGemm's.
Value packedGemm(OpBuilder &b, Location loc, Value wPanels, Value cols, Value init4,
                 const GemmLayout &layout) {
  auto init4Type = cast<RankedTensorType>(init4.getType());
  auto initType = RankedTensorType::get(
      {init4Type.getDimSize(0), init4Type.getDimSize(1),
       init4Type.getDimSize(2) * init4Type.getDimSize(3)},
      init4Type.getElementType());
  auto wType = cast<RankedTensorType>(wPanels.getType());
  int64_t n = initType.getDimSize(0), f = initType.getDimSize(1), p = initType.getDimSize(2);
  int64_t panels = wType.getDimSize(0), rows = layout.panelWidth();
  auto colsType = cast<RankedTensorType>(cols.getType());
  int64_t fp = panels * rows,
          pp = colsType.getRank() == 4 ? colsType.getDimSize(1) * colsType.getDimSize(3)
                                       : colsType.getDimSize(2);
  Type elem = initType.getElementType();
  // A constant start (zeros) fills the whole padded accumulator: one fill
  // that dlc-tile-and-vectorize moves into the GEMM's cache tiles. Any
  // other start (a bias) goes into its corner, the padding starting as
  // whatever the buffer held. (Also without padding: the conv's own
  // accumulator, reshaped into panels, was copied whole before the GEMM by
  // bufferization.)
  Value acc = paddedBuffer(b, loc, {n, fp, pp}, elem);
  if (auto fill = init4.getDefiningOp<linalg::FillOp>())
    acc = b.create<linalg::FillOp>(loc, fill.getInputs()[0], acc).getResult(0);
  else
    acc = writeIntoCorner(b, loc, init4, acc, {{0}, {1}, {2, 3}}, {n, f, p});
  MLIRContext *ctx = b.getContext();
  Value out;
  if (layout.pixelRows) {
    out = pixelRowsGemm(b, loc, wPanels, cols, acc, layout.rows);
  } else {
    Value acc4 = b.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get({n, panels, rows, pp}, elem), acc,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
    AffineExpr dn, dpanel, drow, dp, dk;
    bindDims(ctx, dn, dpanel, drow, dp, dk);
    SmallVector<AffineMap> maps{AffineMap::get(5, 0, {dpanel, dk, drow}, ctx),
                                AffineMap::get(5, 0, {dn, dk, dp}, ctx),
                                AffineMap::get(5, 0, {dn, dpanel, drow, dp}, ctx)};
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    out = b.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({n, fp, pp}, elem),
        dlc::multiplyAccumulate(b, loc, wPanels, cols, acc4, maps, iters),
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
  }
  if (fp != f || pp != p)
    out = b.create<tensor::ExtractSliceOp>(
        loc, initType, out,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0)},
        getAsIndexOpFoldResult(ctx, {n, f, p}),
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(1)});
  return out;
}

/// `g` with `bias` (per filter, dim 1) added to its input `use` before its
/// body.
void addBiasInto(PatternRewriter &r, linalg::GenericOp g, OpOperand *use, Value bias,
                 AffineMap perFilter) {
  unsigned at = use->getOperandNumber();
  SmallVector<Value> inputs(g.getDpsInputs());
  inputs.push_back(bias);
  SmallVector<AffineMap> maps;
  for (OpOperand *in : g.getDpsInputOperands())
    maps.push_back(g.getMatchingIndexingMap(in));
  maps.push_back(perFilter);
  for (OpOperand &out : g.getDpsInitsMutable())
    maps.push_back(g.getMatchingIndexingMap(&out));
  unsigned numInputs = g.getNumDpsInputs();
  r.setInsertionPoint(g);
  auto withBias = r.create<linalg::GenericOp>(
      g.getLoc(), g.getResultTypes(), inputs, g.getDpsInits(), maps, g.getIteratorTypesArray(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Block &old = g.getRegion().front();
        IRMapping mapping;
        for (unsigned i = 0; i < numInputs; ++i)
          mapping.map(old.getArgument(i), args[i]);
        for (unsigned i = numInputs; i < old.getNumArguments(); ++i)
          mapping.map(old.getArgument(i), args[i + 1]);
        mapping.map(old.getArgument(at), b.create<arith::AddFOp>(l, args[at], args[numInputs]));
        for (Operation &op : old.without_terminator())
          b.clone(op, mapping);
        SmallVector<Value> yielded;
        for (Value v : old.getTerminator()->getOperands())
          yielded.push_back(mapping.lookupOrDefault(v));
        b.create<linalg::YieldOp>(l, yielded);
      });
  r.replaceOp(g, withBias.getResults());
}

/// The sum of `copy`'s input and `bias` (per filter) written into `copy`'s
/// buffer, instead of the copy.
void addBiasIntoCopy(PatternRewriter &r, linalg::CopyOp copy, Value bias, AffineMap perFilter) {
  auto type = cast<RankedTensorType>(copy.getOutputs()[0].getType());
  AffineMap identity = r.getMultiDimIdentityMap(type.getRank());
  r.setInsertionPoint(copy);
  auto added = r.create<linalg::GenericOp>(
      copy.getLoc(), TypeRange{type}, ValueRange{copy.getInputs()[0], bias}, copy.getOutputs(),
      ArrayRef<AffineMap>{identity, perFilter, identity},
      SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
      [](OpBuilder &b, Location l, ValueRange args) {
        b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::AddFOp>(l, args[0], args[1])});
      });
  r.replaceOp(copy, added.getResults());
}

/// Whether `v` is (a reshape or slice of) the result of a GEMM that comes
/// after `op` in its block: a later conv's.
bool laterGemm(Value v, Operation *op) {
  linalg::LinalgOp gemm = dlc::reshapedGemm(v);
  return gemm && gemm->getBlock() == op->getBlock() && op->isBeforeInBlock(gemm);
}

/// The start of a packed conv GEMM whose conv starts from a per-filter
/// bias (LowerToLinalg's conv bias: every conv of a model exported with its
/// BatchNorm folded in): the GEMM starts from zeros and the bias is added
/// after it, by the conv's users where each can take it, else by a generic
/// of its own that the conv's users read. A user takes it where it is an
/// elementwise generic reading the conv's value once, element for element
/// (its activation, a residual add: the bias added to the conv's value
/// first), and reads no later conv's value (a residual add of two convs'
/// values is the later conv's epilogue: this one's sum must exist before
/// it); or a copy into a padded input (dlc::writeIntoCorner's, made before
/// this conv was rewritten), which becomes the bias add into that buffer.
/// dlc-tile-and-vectorize then starts the register tiles from zeros in
/// registers and applies that generic, bias included, before the store; a
/// bias start was a pass writing the bias over the whole output, the
/// tiles' accumulators loaded from it and stored back, and the activation
/// a pass of its own (MobileNetV2 with BatchNorm folded in ran 8% slower
/// than with it). Each user, not only a sole one: a residual add whose sum
/// the next 1x1 conv also reads is cloned into that conv's padded input;
/// with an add of their own instead, the residual adds of MobileNetV2's
/// 14x14 and 7x7 blocks ran as passes of their own. The sums differ from
/// the conv's only in rounding (the bias added last).
/// Returns the init for packedGemm: a zero fill, or the conv's own.
Value gemmStart(PatternRewriter &r, linalg::Conv2DNchwFchwOp conv) {
  Value init = conv.getOutputs()[0];
  bool scalar = false;
  Value bias = dlc::biasOf(init, scalar);
  Value result = conv.getResult(0);
  auto type = cast<RankedTensorType>(init.getType());
  if (!bias || scalar || !isa<FloatType>(type.getElementType()))
    return init;
  MLIRContext *ctx = r.getContext();
  AffineMap perFilter = AffineMap::get(type.getRank(), 0, {getAffineDimExpr(1, ctx)}, ctx);
  Location loc = conv.getLoc();
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : result.getUses())
    uses.push_back(&use);
  auto copyOf = [&](OpOperand *use) {
    auto copy = dyn_cast<linalg::CopyOp>(use->getOwner());
    return copy && copy.isDpsInput(use) && copy.getOutputs()[0].getType() == type
               ? copy
               : linalg::CopyOp();
  };
  auto takesBias = [&](OpOperand *use) {
    if (copyOf(use))
      return true;
    auto g = dyn_cast<linalg::GenericOp>(use->getOwner());
    return g && g.getNumResults() == 1 && g.getNumReductionLoops() == 0 &&
           g.getNumLoops() == type.getRank() && g.isDpsInput(use) &&
           g.getMatchingIndexingMap(use).isIdentity() && dlc::hasScalarElementwiseBody(g) &&
           llvm::count_if(uses, [&](OpOperand *u) { return u->getOwner() == g; }) == 1 &&
           llvm::none_of(g.getDpsInputOperands(), [&](OpOperand *in) {
             return in != use && laterGemm(in->get(), conv);
           });
  };
  // Where some user cannot take it, the bias as an op of its own after the
  // conv for those (the copies still take it, as writeIntoCorner clones a
  // producer).
  Value added;
  if (uses.empty() || !llvm::all_of(uses, takesBias)) {
    r.setInsertionPointAfter(conv);
    added = dlc::buildParallelGeneric(
        r, loc, type, {result, bias}, {r.getMultiDimIdentityMap(type.getRank()), perFilter},
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::AddFOp>(l, args[0], args[1]);
        });
  }
  for (OpOperand *use : uses) {
    if (linalg::CopyOp copy = copyOf(use))
      addBiasIntoCopy(r, copy, bias, perFilter);
    else if (added)
      r.modifyOpInPlace(use->getOwner(), [&] { use->set(added); });
    else
      addBiasInto(r, cast<linalg::GenericOp>(use->getOwner()), use, bias, perFilter);
  }
  r.setInsertionPoint(conv);
  return dlc::filled(r, loc, type, 0.0);
}

/// The conv input `x` [N, K, H, W] as [N, K, P] (P = H W) in a buffer padded
/// to `pp` pixels (1x1 convs over maps whose pixels are not a multiple of
/// the lanes). Given in four dims, so that writeIntoCorner can have x's
/// producer (a depthwise conv's elementwise op) write the padded buffer
/// itself: through the collapsed [N, K, P] it saw no producer and copied
/// (MobileNetV2: 3% of its time).
Value padPixels(OpBuilder &b, Location loc, Value x, int64_t pp) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t n = t.getDimSize(0), k = t.getDimSize(1), p = t.getDimSize(2) * t.getDimSize(3);
  if (p == pp)
    return b.create<tensor::CollapseShapeOp>(loc, RankedTensorType::get({n, k, p}, t.getElementType()),
                                             x, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
  return writeIntoCorner(b, loc, x, paddedBuffer(b, loc, {n, k, pp}, t.getElementType()),
                         {{0}, {1}, {2, 3}}, {n, k, p});
}
} // namespace

namespace {
/// A 1x1, stride-1 convolution is already a GEMM, out[n,f,p] += w[f,c] *
/// x[n,c,p], on reshaped (not copied) operands: no im2col buffer.
struct PointwiseConvToGemm : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  PointwiseConvToGemm(MLIRContext *ctx, GemmLayout layout)
      : OpRewritePattern(ctx, /*benefit=*/2), layout(layout) {}
  GemmLayout layout;
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
    std::optional<SmallVector<float>> filter;
    if (layout.rows)
      filter = dlc::constantF32Values(conv.getInputs()[1]);
    GemmLayout l = dlc::layoutFor(layout, f, c, hw);
    int64_t pp = roundUp(hw, l.tailLanes ? l.tailLanes : l.pixelTile());
    recordKernel(conv, "1x1 as GEMM, no im2col; " +
                           (filter ? packedKernelName(l, f, hw, pp) : std::string("plain GEMM")));
    Value gemm = filter ? packedGemm(r, loc, packedFilter(r, loc, *filter, f, c, l.panelWidth()),
                                     padPixels(r, loc, conv.getInputs()[0], pp),
                                     gemmStart(r, conv), l)
                        : dlc::weightTimesBatch(r, loc, wf, x, acc);
    r.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, out, gemm,
                                                ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return success();
  }
};

/// A KHxKW conv as im2col + GEMM, the columns from dlc::im2colColumns.
/// (Upstream's im2col gathers along the flattened OH*OW, with a vector
/// div/rem per element and no contiguous loads.)
struct Im2ColConv : OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  Im2ColConv(MLIRContext *ctx, GemmLayout layout, bool foldPadding, bool implicitGemm,
             int64_t fusedColumnsDepth, int64_t l2CacheBytes)
      : OpRewritePattern(ctx), layout(layout), foldPadding(foldPadding),
        implicitGemm(implicitGemm), fusedColumnsDepth(fusedColumnsDepth),
        l2CacheBytes(l2CacheBytes) {}
  GemmLayout layout;
  bool foldPadding;  ///< plain GEMMs: read a zero pad's source (see im2colColumns)
  bool implicitGemm; ///< columns the CUDA conv kernels can gather (see the pass's doc)
  int64_t fusedColumnsDepth, l2CacheBytes; ///< see dlc::fusedColumnRows
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
    int64_t ckk = c * kh * kw, p = oh * ow;
    std::optional<SmallVector<float>> filter;
    if (layout.rows)
      filter = dlc::constantF32Values(conv.getInputs()[1]);
    if (filter) {
      // The columns go straight into their padded buffer, through a view of
      // its first P pixels.
      GemmLayout l = dlc::layoutFor(layout, f, ckk, p);
      int64_t pp = paddedPixels(p, l.pixelTile());
      // Columns built per cache tile (dlc-tile-and-vectorize) come in
      // compact blocks: the odd tile count for L1's sets is moot.
      int64_t fusedRows = l.pixelRows ? 0
                                      : dlc::fusedColumnRows(n, ckk, oh, ow, l.pixelTile(),
                                                             fusedColumnsDepth, l2CacheBytes);
      if (fusedRows)
        pp = p;
      recordKernel(conv, "im2col + GEMM; " + packedKernelName(l, f, p, pp) +
                             (fusedRows ? "; columns built per " + std::to_string(fusedRows) +
                                              "-row tile in the GEMM's loop"
                                        : std::string()));
      Value cols;
      if (l.pixelRows && pp == p && l.rows == ow) {
        // Tile rows that are whole output rows: the columns are written in
        // the GEMM's row tiles [N, OH, C*KH*KW, OW] at once (ResNet's
        // stride-2 convs onto 14x14 and 7x7 maps, ResNet-18's 7x7 3x3
        // convs: a pass less over their 0.2-1.8 MB of columns, whose
        // transpose ran on 7 or 14 threads).
        cols = r.create<tensor::CollapseShapeOp>(
            loc, RankedTensorType::get({n, oh, ckk, ow}, elem),
            dlc::im2colColumns(r, loc, x, kh, kw, oh, ow, s, d, nullptr, {},
                               dlc::ColumnOrder::RowsOuter),
            ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3, 4}, {5}});
      } else if (pp == p) {
        cols = r.create<tensor::CollapseShapeOp>(
            loc, RankedTensorType::get({n, ckk, p}, elem),
            dlc::im2colColumns(r, loc, x, kh, kw, oh, ow, s, d),
            ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
      } else {
        Value buf = paddedBuffer(r, loc, {n, ckk, pp}, elem);
        auto zero = r.getIndexAttr(0), one = r.getIndexAttr(1);
        SmallVector<OpFoldResult> offsets(3, zero), strides(3, one);
        SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(r.getContext(), {n, ckk, p});
        Value view = r.create<tensor::ExtractSliceOp>(loc, buf, offsets, sizes, strides);
        Value into = r.create<tensor::ExpandShapeOp>(
            loc, RankedTensorType::get({n, c, kh, kw, oh, ow}, elem), view,
            ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
        Value col = dlc::im2colColumns(r, loc, x, kh, kw, oh, ow, s, d, into);
        Value col3 = r.create<tensor::CollapseShapeOp>(
            loc, RankedTensorType::get({n, ckk, p}, elem), col,
            ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
        cols = r.create<tensor::InsertSliceOp>(loc, col3, buf, offsets, sizes, strides);
      }
      Value gemm = packedGemm(r, loc, packedFilter(r, loc, *filter, f, ckk, l.panelWidth()), cols,
                              gemmStart(r, conv), l);
      r.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, out, gemm,
                                                  ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
      return success();
    }

    // A zero pad of H and W alone: the gather reads its source instead
    // (on the GPU the padded copy cost a fill and a copy of the input).
    SmallVector<int64_t> pad;
    tensor::PadOp padOp = foldPadding ? dlc::zeroSpatialPadOf(x) : tensor::PadOp();
    if (padOp && padOp.getSourceType().hasStaticShape()) {
      pad = {padOp.getStaticLow()[2], padOp.getStaticLow()[3]};
      x = padOp.getSource();
    }
    // The CUDA conv kernels' columns: taps outer (with channels in
    // multiples of 32, each 32-row K step is then one tap); they need a
    // tensor-core tile's worth of filters and the filter permuted to match
    // at compile time.
    std::optional<SmallVector<float>> implicitFilter;
    if (implicitGemm && elem.isF32() && f > 16)
      implicitFilter = dlc::constantF32Values(conv.getInputs()[1]);
    recordKernel(conv, implicitFilter ? "implicit GEMM (columns gathered by the GEMM kernel)"
                       : pad.empty()  ? "im2col + plain GEMM"
                                      : "im2col (padding folded) + plain GEMM");
    Value col = dlc::im2colColumns(r, loc, x, kh, kw, oh, ow, s, d, nullptr, pad,
                                   implicitFilter ? dlc::ColumnOrder::TapsOuter
                                                  : dlc::ColumnOrder::ChannelsOuter);
    Value colGemm = r.create<tensor::CollapseShapeOp>(
        loc, RankedTensorType::get({n, ckk, p}, elem), col,
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    Value wf;
    if (implicitFilter) {
      SmallVector<int64_t> padding = pad.empty() ? SmallVector<int64_t>{0, 0} : pad;
      col.getDefiningOp()->setAttr(
          dlc::kImplicitGemmColumnsAttr,
          r.getDictionaryAttr({r.getNamedAttr("strides", r.getDenseI64ArrayAttr(s)),
                               r.getNamedAttr("dilations", r.getDenseI64ArrayAttr(d)),
                               r.getNamedAttr("padding", r.getDenseI64ArrayAttr(padding))}));
      SmallVector<float> permuted(f * ckk);
      const SmallVector<float> &w0 = *implicitFilter;
      for (int64_t fi = 0; fi < f; ++fi)
        for (int64_t ci = 0; ci < c; ++ci)
          for (int64_t t = 0; t < kh * kw; ++t)
            permuted[fi * ckk + t * c + ci] = w0[(fi * c + ci) * kh * kw + t];
      wf = dlc::f32Constant(r, loc, {f, ckk}, permuted, "implicit_gemm_filter");
    } else {
      wf = r.create<tensor::CollapseShapeOp>(loc, RankedTensorType::get({f, ckk}, elem),
                                             conv.getInputs()[1],
                                             ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    }
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
  ChunkLargeConv(MLIRContext *ctx, int64_t limit, bool batchOnly = false)
      : OpRewritePattern(ctx, /*benefit=*/3), limit(limit), batchOnly(batchOnly) {}
  int64_t limit;
  bool batchOnly; ///< never split input channels (a cache bound, not a budget)

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
    if (batchOnly && !byBatch)
      return failure();
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
    if (maxWorkspaceBytes > 0 || cacheWorkspaceBytes > 0) {
      RewritePatternSet chunking(&getContext());
      if (maxWorkspaceBytes > 0)
        chunking.add<ChunkLargeConv>(&getContext(), maxWorkspaceBytes);
      else
        chunking.add<ChunkLargeConv>(&getContext(), cacheWorkspaceBytes, /*batchOnly=*/true);
      if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(chunking))))
        return signalPassFailure();
    }
    // The gather is its own linalg.generic, the GEMM a contraction generic
    // that dlc-tile-and-vectorize tiles like any matmul. Pointwise convs
    // skip the gather (higher benefit).
    RewritePatternSet patterns(&getContext());
    GemmLayout layout{packRows, padLanes, /*pixelRows=*/false, narrowLanes};
    layout.minTailPanels = minTailPanels;
    layout.depthTile = depthTile;
    layout.maxTransposedFilterBytes = transposedFilterBytes;
    patterns.add<PointwiseConvToGemm>(&getContext(), layout);
    patterns.add<Im2ColConv>(&getContext(), layout, foldPadding, implicitGemm, fusedColumnsDepth,
                            l2CacheBytes);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    writeRowTilesInProducers();
  }

  /// Where a pixelRows GEMM's row tiles are rows of its [N, K, H, W] input
  /// (R = W) and the input is a plane-by-plane producer's output that only
  /// the packing transpose reads, the producer writes the packed tiles
  /// itself (dlc::writePlanesTransposed: MobileNetV2's narrow depthwise
  /// convs before its 7x7 projections). After the patterns: while a conv
  /// is being rewritten it still reads its input too.
  void writeRowTilesInProducers() {
    SmallVector<linalg::GenericOp> packs;
    getOperation().walk([&](linalg::GenericOp g) {
      if (g->hasAttr(kPackedRowTiles))
        packs.push_back(g);
    });
    for (linalg::GenericOp pack : packs) {
      pack->removeAttr(kPackedRowTiles);
      // The input through the identity reshape [N, K, H W] -> [N, K, H, W]
      // the GEMM's columns went through, unless that folded away.
      Value x = pack.getDpsInputOperand(0)->get();
      auto expand = x.getDefiningOp<tensor::ExpandShapeOp>();
      auto collapse = expand ? expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>()
                             : tensor::CollapseShapeOp();
      if (collapse && collapse.getSrcType() == expand.getResultType() &&
          collapse.getReassociationIndices() == expand.getReassociationIndices() &&
          expand->hasOneUse() && collapse->hasOneUse())
        x = collapse.getSrc();
      auto type = cast<RankedTensorType>(x.getType());
      auto packedType = cast<RankedTensorType>(pack.getResult(0).getType());
      if (!x.hasOneUse() || type.getRank() != 4 || packedType.getRank() != 4 ||
          packedType.getShape() != ArrayRef<int64_t>{type.getDimSize(0), type.getDimSize(2),
                                                     type.getDimSize(1), type.getDimSize(3)})
        continue;
      OpBuilder b(pack);
      Value packed = dlc::writePlanesTransposed(b, x);
      if (!packed)
        continue;
      pack.getResult(0).replaceAllUsesWith(packed);
      Operation *producer = x.getDefiningOp();
      Operation *packBuffer = pack.getDpsInitOperand(0)->get().getDefiningOp();
      pack.erase();
      if (isa_and_nonnull<bufferization::AllocTensorOp, tensor::EmptyOp>(packBuffer) &&
          packBuffer->use_empty())
        packBuffer->erase();
      if (collapse && x == collapse.getSrc()) {
        expand.erase();
        collapse.erase();
      }
      if (producer->use_empty())
        producer->erase();
    }
  }
};
} // namespace
