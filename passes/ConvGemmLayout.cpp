//===- ConvGemmLayout.cpp - the register-tile layout of conv GEMMs --------===//
#include "passes/ConvGemmLayout.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

using namespace mlir;

int64_t dlc::paddedPixels(int64_t p, int64_t lanes) {
  int64_t tiles = roundUp(p, lanes) / lanes;
  if (tiles >= 16 && tiles % 2 == 0)
    ++tiles;
  return tiles * lanes;
}

int64_t dlc::fusedColumnRows(int64_t batch, int64_t depth, int64_t oh, int64_t ow,
                             int64_t lanes, int64_t maxDepth, int64_t l2Bytes) {
  constexpr int64_t kFloat = 4;
  if (batch != 1 || depth > maxDepth || lanes <= 0 || depth * oh * ow * kFloat <= l2Bytes)
    return 0;
  for (int64_t r = 1; r <= oh; ++r)
    if (oh % r == 0 && (r * ow) % lanes == 0)
      return depth * r * ow * kFloat <= kMaxFusedColumnBytes ? r : 0;
  return 0;
}

/// The row panels' height for `filters`: the target's rows, or a lower
/// panel of 8 or 6 rows, at least half as many (enough accumulators left
/// to cover the FMA latency), where it pads the filters at least 1/9 less:
/// LeNet's 6-filter conv takes 6-row panels instead of 12 on AVX-512, or
/// 8 on Zen 4. Not 4 rows for AVX2's 6: MobileNetV2's 16- and 32-filter
/// 1x1 convs ran 3-14% slower in 4-row panels than padded to 18 and 36
/// rows, one more pass over their columns per 12 filters.
static int64_t panelRowsFor(int64_t targetRows, int64_t filters) {
  using dlc::roundUp;
  int64_t best = targetRows;
  for (int64_t r : {8, 6})
    if (r < targetRows && 2 * r >= targetRows &&
        roundUp(filters, r) * 9 <= roundUp(filters, targetRows) * 8 &&
        roundUp(filters, r) < roundUp(filters, best))
      best = r;
  return best;
}

/// A layout's GemmLayout::minTailPanels, kMinTailPanels where unset.
static int64_t minTailPanelsOf(const dlc::GemmLayout &layout) {
  return layout.minTailPanels > 0 ? layout.minTailPanels : dlc::kMinTailPanels;
}

dlc::GemmLayout dlc::layoutFor(const GemmLayout &target, int64_t filters, int64_t depth,
                               int64_t pixels) {
  constexpr int64_t kMinMultiplyAdds = 1 << 19;
  // The transposed tile stores its accumulators transposed after each K
  // chunk, and its columns are packed first: on AVX-512 (Sapphire Rapids,
  // one thread, the layers inside their models) it paid off from 2048
  // deep (ResNet-50's 512 x 4608 3x3 conv over 7x7, 0.35 ms faster; its
  // 512 x 2048 1x1 convs 0.26) and lost on shallower GEMMs (ResNet-50's
  // 2048 x 512 and 2048 x 1024 convs, MobileNetV2's 7x7 and 14x14 ones,
  // Winograd's 64- and 128-deep GEMMs: up to 1.5x slower for 64 deep).
  constexpr int64_t kMinWideTransposedDepth = 2048;
  // Shallower GEMMs take 7 to 12 pixels a row too where that pads at least
  // a fifth less (7x7 maps: 49 pixels whole, against 64) and the GEMM is
  // at least kMinNarrowTransposedDepth deep. On Zen 5 (one thread, convs
  // compiled alone, against row panels over 64 pixels): MobileNetV2's 960
  // x 160 0.084 -> 0.064 ms, 160 x 960 0.081 -> 0.068, 1280 x 320 0.212
  // -> 0.164; ResNet-50's 2048 x 512 0.522 -> 0.416; in the models,
  // MobileNetV2 3.70 -> 3.53 ms, ResNet-50 31.8 -> 30.6. On the device's
  // Xeon (denormals flushed, runtime/denormals.h): 960 x 160 0.163 ->
  // 0.118 ms, 160 x 960 0.146 -> 0.125, MobileNetV2 even. (Sessions ago,
  // with other kernels, Sapphire Rapids measured the losses above.) 14x14
  // maps (196 pixels against 224, an eighth less) stay: MobileNetV2's 96-
  // and 64-filter projections ran 12-20% slower in rows of 7. Winograd's
  // 128-deep GEMMs over 49 tiles (ResNet's 28x28 maps) stay too:
  // ResNet-18 ran 1.7% slower with them in rows of 7.
  constexpr int64_t kMinNarrowTransposedDepth = 160;
  // Rows of 14 load 16 operands for 28 FMAs a k step (two filter vectors,
  // 14 broadcasts), as few as the 12 x 32 tile's 14 for 24, so they pay
  // off from shallower GEMMs: ResNet-50's 14x14 1x1 convs (256 to 1024
  // deep) ran 0.09-0.26 ms faster each in the model on Sapphire Rapids,
  // one thread; its 28x28 and 56x56 maps stay on row panels (14 pixels a
  // row pad them no less), and Winograd's 64-deep GEMMs too. At least 256
  // filters: MobileNetV2's 64- and 96-filter 14x14 convs (2 or 3 panels
  // to pack their columns for) ran 10-15% slower in rows of 14.
  constexpr int64_t kMinWide14RowDepth = 256;
  constexpr int64_t kMinWide14RowFilters = 256;
  if (!target.rows || !target.lanes || target.pixelRows)
    return target;
  int64_t lanes = target.lanes;
  if (target.narrowLanes > 0 &&
      roundUp(pixels, target.lanes) * 8 > roundUp(pixels, target.narrowLanes) * 9)
    lanes = target.narrowLanes;
  GemmLayout rowPanels{panelRowsFor(target.rows, filters), lanes};
  // A narrow tail instead of a padded tile, where the pixels are few
  // enough that the padding is a large part of them (MobileNetV2's 14x14
  // maps: 12 of 208 pixels padding instead of 28 of 224). Not past 16
  // tiles: paddedPixels pads those to an odd count for L1's sets. At least
  // minTailPanelsOf(target) panels: each cache tile takes all the pixels.
  // And only where dlc-tile-and-vectorize takes K whole, which its peeled
  // tail needs: split along K, the pixels padded for a tail ran in
  // one-vector tiles throughout.
  constexpr int64_t kMaxTailTiles = 16;
  if (target.narrowLanes > 0 && lanes == target.lanes && pixels > lanes &&
      roundUp(pixels, lanes) / lanes < kMaxTailTiles &&
      roundUp(filters, rowPanels.rows) / rowPanels.rows >= minTailPanelsOf(target) &&
      takesDepthWhole(depth, target.depthTile) &&
      roundUp(pixels, target.narrowLanes) < roundUp(pixels, lanes))
    rowPanels.tailLanes = target.narrowLanes;
  if (filters * depth * pixels < kMinMultiplyAdds)
    return rowPanels;
  // The transposed tile's pixels: the target's rows, or on AVX2 (6 rows)
  // one fewer where that pads less: 49 pixels as 10 x 5 (50) instead of
  // 9 x 6 (54). Ten accumulators still cover the FMAs' latency.
  int64_t pixelTile = target.rows;
  if (target.rows <= 8 && roundUp(pixels, pixelTile - 1) < roundUp(pixels, pixelTile))
    --pixelTile;
  // AVX-512's 12-row tiles: rows of 14 pixels (28 accumulators of two
  // vectors) where 14 divides the pixels and the GEMM is at least
  // kMinWide14RowDepth deep over kMinWide14RowFilters filters (ResNet's
  // 14x14 maps: 196 pixels whole instead of 224); else 7 to 12 pixels a
  // row, whichever pads least (7x7 maps whole in rows of 7, 14
  // accumulators), for GEMMs at least kMinWideTransposedDepth deep, or
  // kMinNarrowTransposedDepth where they pad at least a fifth less.
  bool narrowRows = false;
  if (target.rows > 8) {
    if (pixels % 14 == 0 && depth >= kMinWide14RowDepth && filters >= kMinWide14RowFilters) {
      pixelTile = 14;
    } else {
      if (depth < kMinNarrowTransposedDepth)
        return rowPanels;
      // Nor where the filter is over the target's bound (Intel's AVX-512
      // cores: their L2). There, in the model, rows of 7 (14 accumulators)
      // ran slower than row panels (24) over 64 pixels: with ResNet-50's
      // 7x7 maps (4 to 9 MB filters) in row panels it took 0.954 of its
      // time at one thread and 0.947 at two (an identical copy 0.965 and
      // 0.963), batch 8 0.965, ResNet-18 0.944 / 0.952 (2-core Xeon VM,
      // 2 MB L2, session 61, paired rounds). Alone, called in a loop, the
      // same convs ran 7-11% faster in rows of 7: the loss is in how the
      // filters arrive from beyond L2 between other layers (measured, not
      // explained). MobileNetV2's (1.6 MB at most) keep the rows: in row
      // panels the model took 1.02 and 1.04 of its time. Rows of 14 keep
      // them too: ResNet-50's 2.4 MB 3x3 stride-2 conv over 14x14 took
      // 1.87 ms in row panels against 1.66.
      constexpr int64_t kFloatBytes = 4;
      if (target.maxTransposedFilterBytes > 0 &&
          filters * depth * kFloatBytes > target.maxTransposedFilterBytes)
        return rowPanels;
      narrowRows = depth < kMinWideTransposedDepth;
      for (int64_t t = target.rows - 1; t >= 7; --t)
        if (roundUp(pixels, t) < roundUp(pixels, pixelTile))
          pixelTile = t;
    }
  }
  GemmLayout transposed{pixelTile, target.lanes, /*pixelRows=*/true};
  int64_t direct = roundUp(filters, rowPanels.rows) * roundUp(pixels, lanes);
  int64_t swapped = roundUp(filters, target.lanes) * roundUp(pixels, pixelTile);
  if (narrowRows)
    return swapped * 5 <= direct * 4 ? transposed : rowPanels;
  return swapped * 8 <= direct * 7 ? transposed : rowPanels;
}

Value dlc::paddedBuffer(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type elem) {
  return b.create<bufferization::AllocTensorOp>(loc, RankedTensorType::get(shape, elem),
                                                ValueRange{});
}

Value dlc::writeIntoCorner(OpBuilder &b, Location loc, Value v, Value buf,
                      ArrayRef<ReassociationIndices> groups, ArrayRef<int64_t> cornerShape) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t rank = cornerShape.size();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(b.getContext(), cornerShape);
  Value corner = b.create<tensor::ExtractSliceOp>(loc, buf, offsets, sizes, strides);
  Value view = b.create<tensor::ExpandShapeOp>(loc, t, corner, groups);
  Value written;
  auto producer = v.getDefiningOp<linalg::LinalgOp>();
  if (producer && producer->getNumResults() == 1 && producer.getNumDpsInits() == 1 &&
      producer.getNumReductionLoops() == 0 &&
      producer.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>()) {
    Operation *clone = b.clone(*producer.getOperation());
    cast<linalg::LinalgOp>(clone).getDpsInitOperand(0)->set(view);
    written = clone->getResult(0);
  } else if (auto forall = v.getDefiningOp<scf::ForallOp>();
             forall && forall->getNumResults() == 1 &&
             forall.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
    // A kernel built as a forall over its output (dlc-slide-taps-in-
    // registers) writes into the corner too.
    auto clone = cast<scf::ForallOp>(b.clone(*forall.getOperation()));
    clone.getOutputsMutable()[0].set(view);
    written = clone->getResult(0);
  } else {
    written = b.create<linalg::CopyOp>(loc, v, view).getResult(0);
  }
  Value flat = b.create<tensor::CollapseShapeOp>(loc, corner.getType(), written, groups);
  return b.create<tensor::InsertSliceOp>(loc, flat, buf, offsets, sizes, strides);
}

std::string dlc::packedKernelName(const GemmLayout &l, int64_t f, int64_t p, int64_t pp,
                                  StringRef unit) {
  if (l.pixelRows)
    return "filter in " + std::to_string(l.lanes) + "-lane panels (" + std::to_string(f) +
           " -> " + std::to_string(roundUp(f, l.lanes)) + " filters), " +
           std::to_string(l.rows) + "-" + unit.drop_back().str() + " rows (" + std::to_string(p) +
           " -> " + std::to_string(pp) + " " + unit.str() + ")";
  std::string tail =
      l.tailLanes && pp % l.lanes ? " and a " + std::to_string(l.tailLanes) + "-lane one" : "";
  return "filter in " + std::to_string(l.rows) + "-row panels (" + std::to_string(f) + " -> " +
         std::to_string(roundUp(f, l.rows)) + " rows), " + std::to_string(l.lanes) +
         "-lane tiles" + tail + " (" + std::to_string(p) + " -> " + std::to_string(pp) + " " +
         unit.str() + ")";
}

/// The node `op` came from: its NameLoc, "?" without one.
static std::string nodeOf(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return "?";
}

void dlc::replaceKernel(Operation *conv, const std::string &kernel) {
  auto func = conv->getParentOfType<func::FuncOp>();
  if (!func)
    return;
  std::string prefix = nodeOf(conv) + ": ";
  Builder b(conv->getContext());
  SmallVector<Attribute> list;
  bool replaced = false;
  if (auto old = func->getAttrOfType<ArrayAttr>(kConvKernelsAttr))
    for (Attribute a : old) {
      auto entry = cast<StringAttr>(a);
      if (!replaced && entry.getValue().starts_with(prefix)) {
        list.push_back(b.getStringAttr(prefix + kernel));
        replaced = true;
      } else {
        list.push_back(entry);
      }
    }
  if (replaced)
    func->setAttr(kConvKernelsAttr, b.getArrayAttr(list));
}

void dlc::recordKernel(Operation *conv, const std::string &kernel) {
  auto func = conv->getParentOfType<func::FuncOp>();
  if (!func)
    return;
  std::string node = nodeOf(conv);
  Builder b(conv->getContext());
  SmallVector<Attribute> list;
  if (auto old = func->getAttrOfType<ArrayAttr>(kConvKernelsAttr))
    list.append(old.begin(), old.end());
  list.push_back(b.getStringAttr(node + ": " + kernel));
  func->setAttr(kConvKernelsAttr, b.getArrayAttr(list));
}
