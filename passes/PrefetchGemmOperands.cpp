//===- PrefetchGemmOperands.cpp - prefetch what a GEMM's k loop streams ---===//
//
// A register tile's k loop reads its operands one k step at a time. Four
// reads are not kept ahead of by the hardware prefetcher:
// - a weight panel (read from memory once per run) where the GEMM has few
//   columns, so that each panel serves one register tile: the FMAs wait on
//   memory. A prefetch a few KB ahead keeps the panel's stream in flight.
// - columns read in place (a 1x1 conv's activation rows, P floats apart):
//   each k step is another cache line, another page every few steps, and
//   more lines than L1's sets hold at that stride. A prefetch some steps
//   ahead has the line in L1 when the step comes; where the k loop is
//   short (16 or 32 channels), the same row of a column tile further on,
//   and where it is at most 160 channels inside a loop over column tiles,
//   the same row of the next tile (steps ahead miss each tile's first).
// - the next weight panel, where tiles of rows of pixels re-read a panel
//   one after another (a transposed tile's 32 filters): the prefetch a few
//   KB ahead reaches it only at the end of each re-read. The last row's
//   tile prefetches it at the same k step, a whole re-read ahead.
// - the epilogue's tile after the loop (a residual, a line per row from L2
//   or L3): prefetched before the loop, it arrives while the tile
//   accumulates.
// Prefetches change no result. See the pass description in Passes.td for
// the measurements.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace dlc {
#define GEN_PASS_DEF_PREFETCHGEMMOPERANDS
#include "passes/Passes.h.inc"
} // namespace dlc

using namespace mlir;

namespace {
constexpr int64_t kCacheLineBytes = 64;

/// The global `v` is a view (subview, reshape) of: a weight; null if none.
memref::GetGlobalOp weightGlobal(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v.getDefiningOp<memref::GetGlobalOp>();
}

bool isWeight(Value v) { return weightGlobal(v) != nullptr; }

/// The bytes of the weight `v` is a view of, or 0 where it is none.
int64_t weightBytes(Value v) {
  memref::GetGlobalOp global = weightGlobal(v);
  auto type = global ? dyn_cast<MemRefType>(global.getType()) : MemRefType();
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

/// Whether `index` moves one step with `loop`'s induction variable: the
/// variable itself, or it plus values defined outside the loop (an
/// arith.addi, or an affine.apply in which it has coefficient 1): a K
/// chunk's offset plus the step within the chunk.
bool stepsWithInductionVar(Value index, scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  if (index == iv)
    return true;
  auto invariant = [&](Value v) { return v != iv && loop.isDefinedOutsideOfLoop(v); };
  if (auto add = index.getDefiningOp<arith::AddIOp>())
    return (add.getLhs() == iv && invariant(add.getRhs())) ||
           (add.getRhs() == iv && invariant(add.getLhs()));
  auto apply = index.getDefiningOp<affine::AffineApplyOp>();
  if (!apply || llvm::count(apply.getOperands(), iv) != 1)
    return false;
  AffineMap map = apply.getAffineMap();
  unsigned pos = llvm::find(apply.getOperands(), iv) - apply.getOperands().begin();
  for (auto [i, v] : llvm::enumerate(apply.getOperands()))
    if (i != pos && !invariant(v))
      return false;
  bool isDim = pos < map.getNumDims();
  AffineExpr ivExpr = isDim ? getAffineDimExpr(pos, map.getContext())
                            : getAffineSymbolExpr(pos - map.getNumDims(), map.getContext());
  AffineExpr rest = simplifyAffineExpr(map.getResult(0) - ivExpr, map.getNumDims(),
                                       map.getNumSymbols());
  return isDim ? !rest.isFunctionOfDim(pos) : !rest.isFunctionOfSymbol(pos - map.getNumDims());
}

/// A register tile's k loop: it carries vectors (the accumulators) and
/// contracts in its body.
bool isRegisterTileLoop(scf::ForOp loop) {
  return llvm::any_of(loop.getInitArgs(),
                      [](Value v) { return isa<VectorType>(v.getType()); }) &&
         !loop.getBody()->getOps<vector::ContractionOp>().empty();
}

struct PrefetchGemmOperandsPass
    : dlc::impl::PrefetchGemmOperandsBase<PrefetchGemmOperandsPass> {
  using PrefetchGemmOperandsBase::PrefetchGemmOperandsBase;

  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp loop) {
      if (!isRegisterTileLoop(loop))
        return;
      prefetchOperands(loop);
      if (epilogueTiles)
        prefetchEpilogueReads(loop);
    });
  }

  /// The epilogue's reads after the k loop (a residual tile, rows P floats
  /// apart: a line each, from L2 or L3) prefetched before the loop, so that
  /// they arrive while the tile accumulates: one prefetch per line of the
  /// read (at most kMaxLines whole lines, plus the last element of each row
  /// that is not whole lines), at indices that dominate the loop (an index
  /// computed after it from values that do is computed again before it).
  void prefetchEpilogueReads(scf::ForOp loop) {
    constexpr int64_t kMaxLines = 32;
    // The epilogue: the ops after the loop up to the next one with regions
    // (another loop nest).
    for (Operation *op = loop->getNextNode(); op && !op->getNumRegions();
         op = op->getNextNode()) {
      auto read = dyn_cast<vector::TransferReadOp>(op);
      if (!read || !dominatesLoop(loop, read.getSource()))
        continue;
      auto type = dyn_cast<MemRefType>(read.getSource().getType());
      VectorType vt = read.getVectorType();
      if (!type || isWeight(read.getSource()) || !read.getPermutationMap().isMinorIdentity() ||
          vt.getRank() == 0 || vt.getRank() > type.getRank())
        continue;
      int64_t elemBytes = type.getElementTypeBitWidth() / 8;
      int64_t perLine = elemBytes > 0 ? std::max<int64_t>(1, kCacheLineBytes / elemBytes) : 0;
      ArrayRef<int64_t> shape = vt.getShape();
      int64_t inner = shape.back(), rows = vt.getNumElements() / inner;
      if (!perLine || rows * llvm::divideCeil(inner, perLine) > kMaxLines)
        continue;
      OpBuilder b(loop);
      SmallVector<Value> base;
      for (Value index : read.getIndices()) {
        Value hoisted = beforeLoop(b, loop, index);
        if (!hoisted)
          break;
        base.push_back(hoisted);
      }
      if (base.size() != read.getIndices().size())
        continue;
      Location loc = read.getLoc();
      int64_t lead = type.getRank() - vt.getRank();
      auto offsetIndex = [&](Value v, int64_t by) -> Value {
        return by ? b.create<arith::AddIOp>(loc, v, b.create<arith::ConstantIndexOp>(loc, by))
                        .getResult()
                  : v;
      };
      for (int64_t row = 0; row < rows; ++row) {
        // The row's position in the vector's outer dims.
        SmallVector<Value> at(base);
        for (int64_t d = vt.getRank() - 2, rest = row; d >= 0; --d) {
          at[lead + d] = offsetIndex(base[lead + d], rest % shape[d]);
          rest /= shape[d];
        }
        auto prefetch = [&](int64_t e) {
          at.back() = offsetIndex(base.back(), e);
          b.create<memref::PrefetchOp>(loc, read.getSource(), at, /*isWrite=*/false,
                                       /*localityHint=*/3, /*isDataCache=*/true);
        };
        for (int64_t e = 0; e < inner; e += perLine)
          prefetch(e);
        // A row that is not whole lines (a transposed tile's 14 pixels, 56
        // bytes at 56-byte steps) mostly ends in a line its start is not
        // in: its last element too.
        if (inner % perLine)
          prefetch(inner - 1);
      }
    }
  }

  /// `v` where it is available before `loop`: itself when it dominates the
  /// loop, else a clone of its pure defining op (after the loop, in the same
  /// block) whose operands dominate it; null otherwise.
  static Value beforeLoop(OpBuilder &b, scf::ForOp loop, Value v) {
    if (dominatesLoop(loop, v))
      return v;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop->getBlock() || def->getNumResults() != 1 ||
        def->getNumRegions() || !isMemoryEffectFree(def) ||
        !llvm::all_of(def->getOperands(), [&](Value x) { return dominatesLoop(loop, x); }))
      return Value();
    return b.clone(*def)->getResult(0);
  }

  /// Whether `v`, used after `loop` in its block, is defined before it: a
  /// value from outside the loop's block (or one of its arguments) is.
  static bool dominatesLoop(scf::ForOp loop, Value v) {
    Operation *d = v.getDefiningOp();
    return !d || d->getBlock() != loop->getBlock() || d->isBeforeInBlock(loop);
  }

  /// How many k steps ahead to prefetch a read whose k index moves
  /// `stepBytes` a step, or 0 for none: weights `distanceBytes` ahead
  /// (`streamedDistanceBytes` for a weight of `bytes` over
  /// `streamedWeightBytes`);
  /// other operands `columnSteps` ahead where each step is another line
  /// (a packed column tile, 64 bytes a step or less, streams in order and
  /// stays in cache).
  int64_t stepsAhead(bool weight, int64_t stepBytes, int64_t bytes = 0) const {
    if (weight) {
      int64_t distance = distanceBytes;
      if (streamedDistanceBytes > 0 && streamedWeightBytes > 0 && bytes > streamedWeightBytes)
        distance = streamedDistanceBytes;
      return distance > 0 ? llvm::divideCeil(distance, stepBytes) : 0;
    }
    return stepBytes > kCacheLineBytes ? std::max<int64_t>(columnSteps, 0) : 0;
  }

  /// A prefetch before each read indexed by the loop's induction variable
  /// (or it plus a K chunk's offset: stepsWithInductionVar), that index
  /// moved on. Past the dim's end the address runs on into the
  /// next panel or rows (packed panels are contiguous); past the buffer's
  /// end it points at nothing, which a prefetch may do (no fault, no
  /// effect).
  void prefetchOperands(scf::ForOp loop) {
    for (auto read : llvm::to_vector(loop.getBody()->getOps<vector::TransferReadOp>())) {
      auto type = dyn_cast<MemRefType>(read.getSource().getType());
      if (!type)
        continue;
      auto indices = llvm::to_vector(read.getIndices());
      auto steps = [&](Value v) { return stepsWithInductionVar(v, loop); };
      auto at = llvm::find_if(indices, steps);
      if (at == indices.end() || llvm::count_if(indices, steps) != 1)
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(getStridesAndOffset(type, strides, offset)))
        continue;
      int64_t stride = strides[at - indices.begin()];
      int64_t elemBytes = type.getElementTypeBitWidth() / 8;
      if (ShapedType::isDynamic(stride) || stride <= 0 || elemBytes <= 0)
        continue;
      bool weight = isWeight(read.getSource());
      int64_t ahead = stepsAhead(weight, stride * elemBytes, weightBytes(read.getSource()));
      if (ahead <= 0)
        continue;
      OpBuilder b(read);
      Location loc = read.getLoc();
      auto moved = [&](Value v, int64_t by) -> Value {
        return b.create<arith::AddIOp>(loc, v, b.create<arith::ConstantIndexOp>(loc, by));
      };
      std::optional<int64_t> trips =
          constantTripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
      int64_t innerSize = read.getVectorType().getShape().back();
      bool alongRows = !weight && trips && at != indices.end() - 1 &&
                       read.getPermutationMap().isMinorIdentity();
      if (alongRows && *trips <= 2 * ahead && columnTilesAhead > 0) {
        // A short k loop (a 1x1 conv of 16 or 32 channels): half or more
        // of the steps ahead would lie past the tile's rows. The same row of the
        // column tile `columnTilesAhead` further along is next instead.
        indices.back() = moved(indices.back(), columnTilesAhead * innerSize);
      } else if (alongRows && *trips <= nextTileMaxSteps &&
                 stepsOverColumnTiles(loop, indices.back())) {
        // The loop around this one reads the next column tile, the same
        // rows a tile further along: its lines are what this step's are
        // next. Steps ahead miss each tile's first `columnSteps` rows.
        indices.back() = moved(indices.back(), innerSize);
      } else {
        *at = moved(*at, ahead);
      }
      b.create<memref::PrefetchOp>(loc, read.getSource(), indices, /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
      if (weight && nextPanel)
        prefetchNextPanel(b, loop, read, strides.front() * elemBytes, at - indices.begin());
    }
  }

  /// A weight panel read a cache line or more a k step (a transposed
  /// tile's 32 filters: 128 bytes for 14 FMAs in rows of 7 pixels), which
  /// register tiles re-read one after another (the loop around the k loop,
  /// or the parallel loop's innermost dim, which runs fastest, steps over
  /// rows of pixels, not over panels), and which is larger than
  /// `distanceBytes`: the prefetch `distanceBytes` ahead (32 k steps there)
  /// reaches into the next panel only at the end of each re-read, so most
  /// of the next panel comes in on its first read, too little ahead to hide
  /// memory's latency (MobileNetV2's 7x7 convs: panels of 20-120 KB, each
  /// read by 7 tiles of 7 pixels). On the last row the panel after the
  /// ones read is prefetched too, at the same k step, a whole re-read
  /// ahead of its first read; on the other rows the prefetch goes to the
  /// line the step reads (an index select before the k loop, no branch).
  /// On every row it ran faster on Zen 5 at one thread, but on the
  /// device's Xeon at 16 threads it fetched panels that other threads'
  /// shares read (a thread's share there is a row or two of a panel). Row
  /// panels (12 filters, 48 bytes for 24 FMAs a step) are left to the
  /// prefetch ahead: with them as well, ResNet-50 ran 0.7% slower.
  void prefetchNextPanel(OpBuilder &b, scf::ForOp loop, vector::TransferReadOp read,
                         int64_t panelBytes, int64_t kDim) {
    auto type = cast<MemRefType>(read.getSource().getType());
    int64_t stepBytes =
        read.getVectorType().getShape().back() * type.getElementTypeBitWidth() / 8;
    if (kDim == 0 || type.getRank() < 3 || stepBytes < kCacheLineBytes ||
        panelBytes <= distanceBytes)
      return;
    std::optional<RowLoop> rows = rereadsAcrossEnclosingLoop(loop, read, kDim);
    if (!rows)
      return;
    VectorType vt = read.getVectorType();
    int64_t panelsRead = vt.getRank() == type.getRank() ? vt.getShape().front() : 1;
    SmallVector<Value> indices(read.getIndices());
    Location loc = read.getLoc();
    // Before the k loop: the panel to prefetch from, the next one on the
    // last row and the one read on the others (where the prefetch finds
    // the line its step reads, already on its way).
    Value panel;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop);
      Value next = b.create<arith::AddIOp>(
          loc, indices.front(), b.create<arith::ConstantIndexOp>(loc, panelsRead));
      Value last = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, rows->iv,
                                           b.create<arith::ConstantIndexOp>(loc, rows->last));
      panel = b.create<arith::SelectOp>(loc, last, next, indices.front());
    }
    indices.front() = panel;
    b.create<memref::PrefetchOp>(loc, read.getSource(), indices, /*isWrite=*/false,
                                 /*localityHint=*/3, /*isDataCache=*/true);
  }

  /// Whether the loop right around the k loop `loop` is an scf.for that
  /// moves `column` (a read's column index): it steps over column tiles.
  static bool stepsOverColumnTiles(scf::ForOp loop, Value column) {
    auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
    return tiles && !tiles.isDefinedOutsideOfLoop(column);
  }

  /// The loop around a k loop that steps over rows of pixels: its
  /// induction variable and the value it takes last.
  struct RowLoop {
    Value iv;
    int64_t last;
  };

  /// The loop right around the k loop `loop` (an scf.for, or an
  /// scf.parallel's innermost dim) where it has a constant two iterations
  /// or more and `read`'s indices do not move with it (the k step's only
  /// with `loop`); none otherwise.
  static std::optional<RowLoop> rereadsAcrossEnclosingLoop(scf::ForOp loop,
                                                           vector::TransferReadOp read,
                                                           int64_t kDim) {
    Operation *parent = loop->getParentOp();
    Value iv, lb, ub, step;
    if (auto rows = dyn_cast<scf::ForOp>(parent)) {
      iv = rows.getInductionVar();
      lb = rows.getLowerBound();
      ub = rows.getUpperBound();
      step = rows.getStep();
    } else if (auto par = dyn_cast<scf::ParallelOp>(parent)) {
      iv = par.getInductionVars().back();
      lb = par.getLowerBound().back();
      ub = par.getUpperBound().back();
      step = par.getStep().back();
    } else {
      return std::nullopt;
    }
    std::optional<int64_t> trips = constantTripCount(lb, ub, step);
    std::optional<int64_t> first = getConstantIntValue(lb), by = getConstantIntValue(step);
    if (!trips || *trips < 2 || !first || !by)
      return std::nullopt;
    Region &body = parent->getRegion(0);
    // Defined outside the loop, or one of its other induction variables.
    auto fixed = [&](Value v) {
      return !body.isAncestor(v.getParentRegion()) ||
             (isa<BlockArgument>(v) && v.getParentRegion() == &body && v != iv);
    };
    for (auto [d, index] : llvm::enumerate(read.getIndices())) {
      if ((int64_t)d != kDim) {
        if (!fixed(index))
          return std::nullopt;
        continue;
      }
      // The k step: the k loop's variable, plus at most a fixed offset
      // (not a K chunk the enclosing loop moves on).
      Value k = loop.getInductionVar();
      if (index == k)
        continue;
      Operation *def = index.getDefiningOp();
      if (!def || !llvm::all_of(def->getOperands(), [&](Value v) { return v == k || fixed(v); }))
        return std::nullopt;
    }
    return RowLoop{iv, *first + (*trips - 1) * *by};
  }
};
} // namespace
